"""The 3-ply floor: where a short problem's time goes, against cshogi's DfPn.

    python bench/floor.py [--count 1000] [--repeat 5]

On the first --count problems of yo_mate3, in one process, each timed --repeat times
(the fastest counts), medians per problem of: DfPn's search and PV; our compiled
search called directly (numba's dispatch included); Solver.search around it; and the
whole solve() without the analysis (what bench/peers.py times). The gap between the
last two is solve()'s Python (salt, line, USI text, Result).
"""
import argparse
import statistics
import sys
import time
from pathlib import Path

import cshogi

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tsume import dfpn as D  # noqa: E402
from tsume import pipeline  # noqa: E402
from tsume import solver as S  # noqa: E402
from tsume.position import Position  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    path = ROOT.parent / "shared" / "problems" / "yo_mate3.tsv"
    sfens = [line.split("\t")[0] for line in path.open(encoding="utf-8")
             if not line.startswith("#")][:args.count]
    pipeline.warm_up()
    solver = S.shared_solver()
    positions = [Position.from_sfen(s) for s in sfens]
    boards = [cshogi.Board(s) for s in sfens]

    def kernel(pos):
        solver.new_problem()
        solver.control[D.CTRL_WANT_LINE] = 1     # read the line, as solve() asks
        t = time.perf_counter()
        D.dfpn_search(pos.board, pos.hands, pos.state, *solver.table, solver.salt, solver.salt,
                      0, D.NO_LIMIT, S.SLICE_NODES, solver.control, solver.work)
        return time.perf_counter() - t

    def search(pos):
        solver.new_problem()
        t = time.perf_counter()
        solver.search(pos, None, line=True)
        return time.perf_counter() - t

    def whole(pos):
        t = time.perf_counter()
        pipeline.solve(pos, answer=False)
        return time.perf_counter() - t

    def peer(board):
        dfpn = cshogi.DfPn()
        dfpn.set_max_search_node(10 ** 7)
        dfpn.set_max_depth(1024)
        t = time.perf_counter()
        dfpn.search(board)
        dfpn.get_pv(board)
        return time.perf_counter() - t

    for name, run, items in (("cshogi.DfPn", peer, boards), ("compiled call", kernel, positions),
                             ("Solver.search", search, positions), ("solve()", whole, positions)):
        times = [min(run(x) for _ in range(args.repeat)) for x in items]
        print(f"{name:14s} median {statistics.median(times) * 1e6:6.2f} µs   "
              f"total {sum(times) * 1e3:7.2f} ms")


if __name__ == "__main__":
    main()
