"""Do two checkouts give the same answers? Each solves the same problems with the same
salts (Solver seed) and the default answer; every field of the records is compared.

    python bench/compare.py ../base . [--sets tanuki_generated:300,yo_mate5:150] [--time-limit S]

A refactoring must change no record: status, lengths, lines, exact, 無駄合, 余詰 entries,
変同, 駒余り, 完全作, and the nodes too. Each checkout runs in a process of its own
(the checkout's directory first on sys.path), one after the other.
"""
import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "problems"
FIELDS = ("status", "length", "strict_length", "moves", "exact", "mudaai", "yozume", "henka",
          "komaamari", "leftover", "complete", "nodes")

# Run inside each checkout's process: the checkout's own solve() (pipeline.py from the
# pipeline on, solver.py before it).
_WORKER = r"""
import json, os, sys
root, sets, time_limit = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
sys.path.insert(0, root)
from tsume.position import Position
from tsume.solver import Solver
if os.path.exists(os.path.join(root, "tsume", "pipeline.py")):
    from tsume.pipeline import solve
else:
    from tsume.solver import solve
solver = Solver(256, seed=12345)
for path, count in sets:
    rows = [line.rstrip("\n").split("\t") for line in open(path, encoding="utf-8")
            if line.strip() and not line.startswith("#")][:count]
    for k, cols in enumerate(rows):
        r = solve(Position.from_sfen(cols[0]), solver=solver, time_limit=time_limit)
        out = {f: getattr(r, f) for f in %r}
        out["id"] = f"{os.path.basename(path)}:{cols[2] if len(cols) > 2 else k + 1}"
        print(json.dumps(out, ensure_ascii=False), flush=True)
""" % (FIELDS,)


def run(checkout, sets, time_limit):
    proc = subprocess.run([sys.executable, "-c", _WORKER, str(Path(checkout).resolve()),
                           json.dumps(sets), json.dumps(time_limit)],
                          capture_output=True, text=True, check=True)
    return [json.loads(line) for line in proc.stdout.splitlines()]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--sets", default="tanuki_generated:300,yo_mate5:150,yo_mate7:60,zuko:5")
    ap.add_argument("--time-limit", type=float, default=None,
                    help="per problem (default none: limits make results timing-dependent)")
    args = ap.parse_args()
    sets = []
    for item in args.sets.split(","):
        name, _, count = item.partition(":")
        sets.append((str(SHARED / f"{name}.tsv"), int(count or 10 ** 9)))
    a, b = run(args.a, sets, args.time_limit), run(args.b, sets, args.time_limit)
    differing = 0
    for x, y in zip(a, b):
        fields = [f for f in FIELDS if x[f] != y[f]]
        if fields:
            differing += 1
            print(f"{x['id']}: {', '.join(fields)}")
    print(f"{len(a)} / {len(b)} problems, {differing} differ")
    return 1 if differing or len(a) != len(b) else 0


if __name__ == "__main__":
    sys.exit(main())
