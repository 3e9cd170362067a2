"""Check every mate length in a collections.py table with an independent proof tree.

    python bench/verify_lengths.py [--results bench/results/collections.md[,...]]
                                   [--time-limit 120] [--max-plies 101] [--hash 1024]

For each problem reported mate, is there really a mate within its `strict` length (every
interposition counted) against every defence? cshogi generates every move of the tree
and judges mate (tests/oracle.py, cshogi_mates_within); our engine only proposes which
check to try first at each attacker node (from its table, or a search within the plies
left). So a "verified" row does not rest on our move generator or our search, and a
length below the shortest mate can never be verified. "not verified" means the claim
is false or our proposals missed the mate (both worth a look); "undecided" that our
proposals ran out of time or nodes first. Reported lengths are upper bounds when not
exact, so this is the check that they never understate; the minimality of exact
lengths is a disproof this does not cover.
"""
import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from oracle import OutOfTime, cshogi_mates_within, proposer  # noqa: E402
from reasons import problem_sfens, result_rows  # noqa: E402
from tsume.position import Position  # noqa: E402
from tsume.pipeline import warm_up  # noqa: E402
from tsume.solver import Solver  # noqa: E402

PROPOSAL_NODES = 50_000_000


def verify(solver, sfen, plies, time_limit):
    solver.new_problem()
    attacker = Position.from_sfen(sfen).side_to_move
    try:
        held = cshogi_mates_within(sfen, plies, proposer(solver, attacker, PROPOSAL_NODES,
                                                         time.perf_counter() + time_limit))
    except OutOfTime:
        return "undecided"
    return "verified" if held else "not verified"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", default=str(ROOT / "bench" / "results" / "collections.md"),
                    help="comma-separated collections.py reports")
    ap.add_argument("--time-limit", type=float, default=120.0, help="seconds per problem")
    ap.add_argument("--max-plies", type=int, default=101,
                    help="skip longer mates (the tree is walked in Python)")
    ap.add_argument("--hash", type=int, default=1024)
    ap.add_argument("--ids", default=None, help="comma-separated problem ids (default: all)")
    args = ap.parse_args()
    sys.setrecursionlimit(10_000)
    warm_up()
    solver = Solver(args.hash, seed=0)
    sfens = problem_sfens()
    wanted = set(args.ids.split(",")) if args.ids else None
    counts = {}
    for path in args.results.split(","):
        for row in result_rows(path):
            if row["verdict"] != "mate" or row["id"] not in sfens \
                    or (wanted and row["id"] not in wanted):
                continue
            plies = int(row["strict"])
            if plies > args.max_plies:
                kind, seconds = "skipped (long)", 0.0
            else:
                start = time.perf_counter()
                kind = verify(solver, sfens[row["id"]], plies, args.time_limit)
                seconds = time.perf_counter() - start
            counts[kind] = counts.get(kind, 0) + 1
            print(f"{row['id']}\tstrict {plies}\texact {row['exact']}\t{kind}\t{seconds:.1f} s",
                  flush=True)
    print("Summary: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))


if __name__ == "__main__":
    main()
