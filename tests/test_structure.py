"""The package's import graph has no cycle (issue #44).

The modules are meant to stand in floors, each importing only from floors below it
(tables, the position's arrays, move encoding, move generation, notation, the format
codecs and Position, the search, the engine front, the pipeline, renderers, CLI/USI).
A cycle means two modules can only be understood, tested and changed together.

The graph is read from the source, not from sys.modules: every import statement
anywhere in a file counts, also one inside a function (importing lazily keeps start-up
light; it does not remove the dependency). A package's __init__ is a node of its own;
importing a submodule is not counted as importing its package.
"""
import ast
from pathlib import Path

import pytest

import tsume

ROOT = Path(tsume.__file__).resolve().parent


def _modules(root=ROOT, package="tsume"):
    """{dotted module name: source path}; a package's __init__.py is named after the package."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join([package] + parts)] = path
    return out


def _resolve(module, path, level, target):
    """Absolute name of `from <level dots><target> import ...` written in `module`."""
    if level == 0:
        return target
    base = module.split(".")
    if path.name != "__init__.py":
        base = base[:-1]                   # a module's own package
    if level > 1:
        base = base[:len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def import_graph(root=ROOT, package="tsume"):
    """{module: set of modules of the package it imports}."""
    modules = _modules(root, package)
    graph = {}
    for module, path in modules.items():
        edges = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    name = alias.name
                    # `import a.b.c` binds a; the module it loads is a.b.c
                    while name and name not in modules:
                        name = name.rpartition(".")[0]
                    if name:
                        edges.add(name)
            elif isinstance(node, ast.ImportFrom):
                source = _resolve(module, path, node.level, node.module)
                for alias in node.names:
                    sub = f"{source}.{alias.name}"
                    if sub in modules:             # `from . import movegen`
                        edges.add(sub)
                    elif source in modules:        # `from .movegen import attacked`
                        edges.add(source)
        edges.discard(module)
        graph[module] = edges
    return graph


def find_cycle(graph):
    """One cycle as [a, b, ..., a], or None. Depth-first, in sorted order (stable messages)."""
    state = {}                         # module -> 1 on the current path, 2 done
    path = []

    def visit(node):
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def below(graph, roots):
    """The graph restricted to the roots and every module they import, directly or not."""
    seen, todo = set(), list(roots)
    while todo:
        m = todo.pop()
        if m not in seen:
            seen.add(m)
            todo += graph[m]
    return {m: graph[m] & seen for m in seen}


def test_the_package_has_no_import_cycle():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_floors_below_the_engine_front_have_no_cycle():
    """The search, the readers and writers of problems and what they stand on. Kept apart
    from the test above so that a cycle higher up does not hide one down here."""
    graph = below(import_graph(), ["tsume.dfpn", "tsume.formats", "tsume.perft", "tsume.validate"])
    assert "tsume.position" in graph and "tsume.movegen" in graph
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_graph_sees_every_kind_of_import():
    """The reader itself: a top-level import, a lazy one inside a function, `from . import
    x` of a module, and a name imported from a subpackage's module all make edges."""
    graph = import_graph()
    assert "tsume.squareset" in graph["tsume.movegen"]        # from .squareset import ...
    assert "tsume.movegen" in graph["tsume.notation"]         # from . import movegen, in a function
    assert "tsume.formats" in graph["tsume"]                  # from .formats import ..., in a function
    assert "tsume.pieces" in graph["tsume.formats.kif"]       # from .. import pieces as P
    assert "tsume.errors" in graph["tsume.formats.sfen"]      # from ..errors import FormatError


@pytest.mark.parametrize("graph, cycle", [
    ({"a": {"b"}, "b": {"c"}, "c": set()}, None),
    ({"a": {"b"}, "b": {"a"}}, ["a", "b", "a"]),
    ({"a": {"b"}, "b": {"c"}, "c": {"b"}}, ["b", "c", "b"]),
    ({"a": {"b", "c"}, "b": {"d"}, "c": {"d"}, "d": set()}, None),     # a diamond is no cycle
])
def test_find_cycle(graph, cycle):
    assert find_cycle(graph) == cycle


def test_resolve_relative_imports(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from .a import x\n")
    (pkg / "a.py").write_text("def f():\n    from .sub import b\n")
    (pkg / "sub" / "__init__.py").write_text("from ..a import x\nfrom . import b\n")
    (pkg / "sub" / "b.py").write_text("import pkg.a\nfrom .. import a\n")
    assert import_graph(pkg, "pkg") == {
        "pkg": {"pkg.a"}, "pkg.a": {"pkg.sub.b"}, "pkg.sub": {"pkg.a", "pkg.sub.b"},
        "pkg.sub.b": {"pkg.a"}}
