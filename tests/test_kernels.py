"""Checks on the compiled kernels' source.

One compiled copy per kernel: no compiled function passes a Python literal to another.

Numba types a literal argument (0, True, or a module constant that is a Python int) as
that very value and compiles the callee once per value: before this was fixed,
_evaluate_child was compiled 4 times and tt_store 5 times, 40-48 s of first-run compile
time instead of 27 s. Functions with inline="always" are exempt (inlined before typing,
they get no copy of their own). Checked on the source, since a warm numba cache does not
show which copies it holds.

No reference counting in the search: every kernel the search reaches is compiled with
_nrt=False (see movegen.py).
"""
import ast
import importlib
from pathlib import Path

import pytest

import tsume

KERNEL_MODULES = ("dfpn", "movegen", "tt", "perft")


def _is_njit(decorator):
    call = decorator if isinstance(decorator, ast.Call) else None
    name = call.func if call else decorator
    return isinstance(name, ast.Name) and name.id == "njit"


def _inlined(decorator):
    return isinstance(decorator, ast.Call) and any(
        k.arg == "inline" and isinstance(k.value, ast.Constant) and k.value.value == "always"
        for k in decorator.keywords)


def _kernels():
    """{module name: (module, tree, {kernel name: inlined?})} over the kernel modules."""
    out = {}
    for name in KERNEL_MODULES:
        module = importlib.import_module(f"tsume.{name}")
        tree = ast.parse(Path(tsume.__file__).with_name(f"{name}.py").read_text(encoding="utf-8"))
        kernels = {}
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                jit = [d for d in node.decorator_list if _is_njit(d)]
                if jit:
                    kernels[node.name] = _inlined(jit[0])
        out[name] = (module, tree, kernels)
    return out


def _without_refcounts(decorator):
    return isinstance(decorator, ast.Call) and any(
        k.arg == "_nrt" and isinstance(k.value, ast.Constant) and k.value.value is False
        for k in decorator.keywords)


def test_the_search_runs_without_reference_counting():
    """numba's reference counts (an atomic increment and decrement per array argument
    of every call) were a quarter of the search's time on yo_mate11. A kernel that the
    search calls and that was compiled with them would bring them back unnoticed."""
    defs = {}
    for name in ("dfpn", "movegen", "tt"):
        tree = ast.parse(Path(tsume.__file__).with_name(f"{name}.py").read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                jit = [d for d in node.decorator_list if _is_njit(d)]
                if jit:
                    defs[node.name] = (name, node, jit[0])
    seen, todo, offences = set(), ["dfpn_search"], []
    while todo:
        fn = todo.pop()
        if fn in seen:
            continue
        seen.add(fn)
        module, node, decorator = defs[fn]
        if not _inlined(decorator) and not _without_refcounts(decorator):
            offences.append(f"{module}.py: {fn}")
        todo += [c.func.id for c in ast.walk(node)
                 if isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id in defs]
    assert len(seen) > 20, seen            # the walk did follow the calls
    assert not offences, "compile these with @njit(cache=True, _nrt=False):\n" + "\n".join(offences)


def _literal(arg, module):
    if isinstance(arg, ast.UnaryOp) and isinstance(arg.op, ast.USub):
        arg = arg.operand
    if isinstance(arg, ast.Constant):
        return isinstance(arg.value, (bool, int))
    if isinstance(arg, ast.Name) and hasattr(module, arg.id):
        return type(getattr(module, arg.id)) in (bool, int)    # numpy scalars are not
    return False


def test_no_compiled_call_passes_a_literal():
    kernels = _kernels()
    compiled = {}                 # kernel name -> inlined?, over all modules
    for _, _, ks in kernels.values():
        compiled.update(ks)
    offences = []
    for name, (module, tree, ks) in kernels.items():
        for fn in tree.body:
            if not (isinstance(fn, ast.FunctionDef) and fn.name in ks):
                continue
            for call in ast.walk(fn):
                if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)):
                    continue
                callee = call.func.id
                if callee not in compiled or compiled[callee]:
                    continue
                for i, arg in enumerate(call.args):
                    if _literal(arg, module):
                        offences.append(f"{name}.py:{call.lineno} {fn.name} -> {callee} "
                                        f"argument {i + 1}: {ast.unparse(arg)}")
    assert not offences, "wrap these in np.int64(...) / np.bool_(...):\n" + "\n".join(offences)


@pytest.mark.parametrize("source, expected", [
    ("f(a, 0)", True), ("f(a, -1)", True), ("f(a, True)", True), ("f(a, LIMIT)", True),
    ("f(a, b)", False), ("f(a, np.int64(0))", False), ("f(a, b + 1)", False)])
def test_literal_detection(source, expected):
    class Module:
        LIMIT = 1 << 29
    call = ast.parse(source).body[0].value
    assert _literal(call.args[1], Module) == expected
