"""A/B of two versions of the engine in one process: is a change faster?

    python bench/ab.py A B [--set yo_mate7] [--count 1000] [--repeat 3]

A and B are checkouts (directories holding a `tsume/` package, e.g. a `git worktree`
of main and one of the change). Each package is copied under a name of its own
(tsume_a, tsume_b) into a temporary directory, with a fresh numba cache, so both load
side by side; then every problem is solved by A and B in turn, `--repeat` times each,
and the fastest run of each counts. Printed: total seconds of A and B, the ratio B/A
(< 1: B is faster), and each one's nodes.

Why in one process: on this shared machine separate runs drift by 5-15% between
minutes, which hides a change of a few percent; alternating problem by problem in one
process cancels the drift. Why a fresh cache: numba's cache does not see that a
function calls into another file that changed (dfpn.py inlines movegen.py's kernels),
so a reused cache can silently run the old code.

Sets: yo_mate3..11 (first --count rows) or tanuki (tanuki_generated.tsv), read from
../shared/problems/ beside A. Proof and mating line only (answer=False), as in peers.py.
"""
import argparse
import importlib
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path


def _load(root, name, workdir):
    """Import the `tsume` package of checkout `root` as `name`."""
    shutil.copytree(Path(root) / "tsume", Path(workdir) / name,
                    ignore=shutil.ignore_patterns("__pycache__"))
    position = importlib.import_module(name + ".position")
    solver = importlib.import_module(name + ".solver")
    solver.warm_up()
    return position.Position, solver.solve


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("a", help="checkout A (the baseline)")
    ap.add_argument("b", help="checkout B (the change)")
    ap.add_argument("--set", default="yo_mate7", help="yo_mate3..yo_mate11 or tanuki")
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    shared = Path(args.a).resolve().parent / "shared" / "problems"
    name = "tanuki_generated" if args.set == "tanuki" else args.set
    path = shared / f"{name}.tsv"
    if not path.exists():
        sys.exit(f"ab.py: {path}: not found")
    rows = [line.split("\t")[0] for line in path.read_text(encoding="utf-8").splitlines()
            if line and not line.startswith("#")][:args.count]

    workdir = tempfile.mkdtemp(prefix="tsume-ab-")
    # Before numba compiles anything: a cache of its own (see the module docstring).
    os.environ["NUMBA_CACHE_DIR"] = os.path.join(workdir, "numba-cache")
    sys.path.insert(0, workdir)
    try:
        engines = [_load(args.a, "tsume_a", workdir), _load(args.b, "tsume_b", workdir)]
        total = [0.0, 0.0]
        nodes = [0, 0]
        for sfen in rows:
            for k, (position_cls, solve) in enumerate(engines):
                pos = position_cls.from_sfen(sfen)
                best = float("inf")
                for r in range(args.repeat):
                    start = time.perf_counter()
                    result = solve(pos, hash_mb=256, answer=False)
                    best = min(best, time.perf_counter() - start)
                    if r == 0:
                        nodes[k] += result.nodes
                total[k] += best
        print(f"{args.set} x{len(rows)}: A {total[0]:.3f} s, B {total[1]:.3f} s, "
              f"B/A {total[1] / total[0]:.3f}; nodes A {nodes[0]:,}, B {nodes[1]:,}")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
