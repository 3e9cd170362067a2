"""A/B of two versions of the engine in one process: is a change faster?

    python bench/ab.py A B [--set yo_mate7] [--count 1000] [--repeat 3]
    python bench/ab.py A B --set zuko,musou [--time-limit 60] [--hash 2048]
    python bench/ab.py A B --set yo_mate3 --count 2000 --repeat 5 --bulk
    python bench/ab.py A B --set yo_mate9 --count 500 --both

A and B are checkouts (directories holding a `tsume/` package, e.g. a `git worktree`
of main and one of the change). Each package is copied under a name of its own
(tsume_a, tsume_b) into a temporary directory, with a fresh numba cache, so both load
side by side; then every problem is solved by A and B in turn, `--repeat` times each
(which goes first alternating), and the fastest run of each counts. Printed: total
seconds of A and B, the ratio B/A (< 1: B is faster), and each one's nodes.

Why in one process: on this shared machine separate runs drift by 5-15% between
minutes, which hides a change of a few percent; alternating problem by problem in one
process cancels the drift. What it does not cancel is where each copy lands (its
compiled code, its table): the same checkout against itself has come out several
percent apart on the longer sets, mostly against the copy loaded second. --both runs
the comparison twice, in two processes, A and B and then B and A, and prints the
change with that factor divided out (the square root of the first B/A over the
second) beside the factor itself: a change of a few percent needs it.

Why a fresh cache: numba's cache does not see that a function calls into another file
that changed (dfpn.py inlines movegen.py's kernels), so a reused cache can silently run
the old code.

Sets: yo_mate3..11 (first --count rows) or tanuki (tanuki_generated.tsv), read from
../shared/problems/ beside A. Proof and mating line only (answer=False), as in peers.py.
With --bulk they go through pipeline.solve_many (the batch's path, bulk.py) in blocks
of 200, A and B in turn block by block, instead of solve() one problem at a time: a
short problem's search is then no longer hidden under solve()'s Python.

The classics (--set zuko, musou or both, comma-separated: 将棋図巧 / 将棋無双, the first
--count rows of each, once each, at --time-limit seconds) are solved on a table of --hash MB per engine, with
the same per-problem salts for A and B (a salt decides where entries land and so the
order of equal choices; different salts move a long search's nodes by 2x either way,
which would drown the change). Printed as well: what each solves, and the totals over
the problems both settle.
"""
import argparse
import importlib
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import types
import zlib
from pathlib import Path


CLASSICS = {"zuko": "zuko.tsv", "musou": "musou.tsv"}


def _load(root, name, workdir):
    """Import the `tsume` package of checkout `root` as `name`."""
    shutil.copytree(Path(root) / "tsume", Path(workdir) / name,
                    ignore=shutil.ignore_patterns("__pycache__"))
    position = importlib.import_module(name + ".position")
    solver = importlib.import_module(name + ".solver")
    try:             # (checkouts before the pipeline had solve() in solver.py)
        front = importlib.import_module(name + ".pipeline")
    except ImportError:
        front = solver
    engine = types.SimpleNamespace(solve=front.solve, warm_up=front.warm_up, Solver=solver.Solver,
                                   solve_many=getattr(front, "solve_many", None))
    if engine.solve_many:
        engine.warm_up(bulk=True)       # (solve_many's kernel too, for --bulk)
    else:
        engine.warm_up()
    return position.Position, engine


def _rows(path):
    return [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()
            if line and not line.startswith("#")]


def short_sets(engines, rows, repeat, bulk=False, block=200):
    """Each problem (with `bulk`, each block of `block` problems through solve_many) by
    A and B in turn, `repeat` times each, the one to go first changing every turn; the
    fastest run of each counts."""
    size = block if bulk else 1
    total = [0.0, 0.0]
    nodes = [0, 0]
    for turn, lo in enumerate(range(0, len(rows), size)):
        positions = [[position_cls.from_sfen(sfen) for sfen in rows[lo:lo + size]]
                     for position_cls, _ in engines]
        best = [float("inf"), float("inf")]
        for r in range(repeat):
            for k in ((0, 1) if (turn + r) % 2 == 0 else (1, 0)):
                module = engines[k][1]
                start = time.perf_counter()
                if bulk:
                    results = module.solve_many(positions[k], hash_mb=256, answer=False)
                else:
                    results = [module.solve(positions[k][0], hash_mb=256, answer=False)]
                best[k] = min(best[k], time.perf_counter() - start)
                if r == 0:
                    nodes[k] += sum(result.nodes for result in results)
        total[0] += best[0]
        total[1] += best[1]
    return total, nodes


def classics(engines, rows, time_limit, hash_mb):
    """Each problem once by A and B in turn, with the same salts (see the docstring)."""
    solvers = []
    for _, module in engines:
        solver = module.Solver(hash_mb)
        for array in solver.full_table:
            array[::512] = 0          # touch every page before anything is timed
        solvers.append(solver)
    total = [0.0, 0.0]
    nodes = [0, 0]
    settled = [0, 0]
    both = [0.0, 0.0]
    for sfen, _, pid in (row[:3] for row in rows):
        seconds = []
        for k, (position_cls, module) in enumerate(engines):
            pos = position_cls.from_sfen(sfen)
            # (Checkouts before Solver.reseed: the same through its generator.)
            reseed = getattr(solvers[k], "reseed", None) or solvers[k]._rng.seed
            reseed(zlib.crc32(pid.encode()))
            start = time.perf_counter()
            result = module.solve(pos, solver=solvers[k], answer=False, time_limit=time_limit)
            elapsed = time.perf_counter() - start
            nodes[k] += result.nodes
            done = result.status in ("mate", "nomate")
            settled[k] += done
            seconds.append(elapsed if done else None)
            print(f"  {pid} {'AB'[k]} {result.status} {result.length} {elapsed:.2f} s "
                  f"{result.nodes:,}", flush=True)
        for k in range(2):
            total[k] += seconds[k] if seconds[k] is not None else time_limit
        if None not in seconds:
            both[0] += seconds[0]
            both[1] += seconds[1]
    print(f"settled: A {settled[0]}, B {settled[1]} of {len(rows)}; on the "
          f"problems both settle: A {both[0]:.1f} s, B {both[1]:.1f} s, "
          f"B/A {both[1] / max(both[0], 1e-9):.3f}")
    return total, nodes


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("a", help="checkout A (the baseline)")
    ap.add_argument("b", help="checkout B (the change)")
    ap.add_argument("--set", default="yo_mate7",
                    help="yo_mate3..yo_mate11, tanuki, or zuko / musou / zuko,musou")
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--time-limit", type=float, default=60.0, help="classics: per problem")
    ap.add_argument("--hash", type=int, default=2048, help="classics: table MB per engine")
    ap.add_argument("--bulk", action="store_true",
                    help="short sets: pipeline.solve_many in blocks instead of solve()")
    ap.add_argument("--both", action="store_true",
                    help="A B, then B A in a second process; the change net of placement")
    args = ap.parse_args()
    if args.both:
        sys.exit(_both_orders(args))

    shared = Path(args.a).resolve().parent / "shared" / "problems"
    names = args.set.split(",")
    is_classics = all(name in CLASSICS for name in names)
    if is_classics:
        paths = [shared / CLASSICS[name] for name in names]
    else:
        paths = [shared / ("tanuki_generated.tsv" if args.set == "tanuki" else f"{args.set}.tsv")]
    for path in paths:
        if not path.exists():
            sys.exit(f"ab.py: {path}: not found")
    rows = [row for path in paths for row in _rows(path)[:args.count]]

    workdir = tempfile.mkdtemp(prefix="tsume-ab-")
    # Before numba compiles anything: a cache of its own (see the module docstring).
    os.environ["NUMBA_CACHE_DIR"] = os.path.join(workdir, "numba-cache")
    sys.path.insert(0, workdir)
    try:
        engines = [_load(args.a, "tsume_a", workdir), _load(args.b, "tsume_b", workdir)]
        if is_classics:
            total, nodes = classics(engines, rows, args.time_limit, args.hash)
        else:
            rows = [row[0] for row in rows]
            if args.bulk and not all(module.solve_many for _, module in engines):
                sys.exit("ab.py: --bulk: a checkout without pipeline.solve_many")
            total, nodes = short_sets(engines, rows, args.repeat, bulk=args.bulk)
        print(f"{args.set} x{len(rows)}: A {total[0]:.3f} s, B {total[1]:.3f} s, "
              f"B/A {total[1] / total[0]:.3f}; nodes A {nodes[0]:,}, B {nodes[1]:,}")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _both_orders(args):
    """Run A B and then B A, each in a process of its own; print both and the change
    with the factor of being loaded second divided out. Returns the exit status."""
    ratios = []
    for first, second in ((args.a, args.b), (args.b, args.a)):
        command = [sys.executable, __file__, first, second, "--set", args.set,
                   "--count", str(args.count), "--repeat", str(args.repeat),
                   "--time-limit", str(args.time_limit), "--hash", str(args.hash)]
        run = subprocess.run(command + (["--bulk"] if args.bulk else []),
                             capture_output=True, text=True)
        print(f"{Path(first).name or first} then {Path(second).name or second}: "
              f"{run.stdout.strip()}", flush=True)
        found = re.search(r"B/A ([0-9.]+)", run.stdout)
        if run.returncode != 0 or not found:
            print(run.stderr.strip(), file=sys.stderr)
            return run.returncode or 1
        ratios.append(float(found.group(1)))
    print(f"both orders: B/A {math.sqrt(ratios[0] / ratios[1]):.3f} "
          f"(the engine loaded second: x{math.sqrt(ratios[0] * ratios[1]):.3f})")
    return 0


if __name__ == "__main__":
    main()
