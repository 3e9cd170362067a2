"""Short problems in bulk: proof-only throughput of solve() one by one and of
solve_many, against cshogi's DfPn.

    python bench/bulk.py [--count 2000] [--repeat 5] [--block 200] [--sets yo_mate3,yo_mate5]

On the first --count rows of each set, in one process. The positions (our Position
objects, cshogi Boards) are made before any timing. The set is cut into blocks of
--block problems; --repeat times, each block is solved by the three in turn (their
order rotating), and each one's fastest time per block counts: on a shared machine a
whole-set total catches other processes' bursts, a block's best mostly does not.
Printed per set: microseconds per problem (the sum of the blocks' best times over the
count) and the ratio ours/DfPn (< 1: ours faster). DfPn is cshogi.DfPn() with search
and get_pv per position (as bench/floor.py and bench/peers.py drive it), one searcher
reused over the set as ours reuses its table; ours is the proof and a mating line with
no answer analysis (answer=False), on the default 256 MB table; solve_many gets one
block per call. The last line, its kernel alone (bulk.prove_many on the block's
positions stacked beforehand, no Results made), is what the search costs.
"""
import argparse
import sys
import time
from pathlib import Path

import cshogi
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tsume import bulk as B  # noqa: E402
from tsume import pipeline  # noqa: E402
from tsume.limits import MAX_NODES  # noqa: E402
from tsume.position import Position  # noqa: E402
from tsume.solver import shared_solver  # noqa: E402

SHARED = ROOT.parent / "shared" / "problems"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--block", type=int, default=200)
    ap.add_argument("--sets", default="yo_mate3,yo_mate5")
    args = ap.parse_args()
    pipeline.warm_up(bulk=True)
    dfpn = cshogi.DfPn()
    dfpn.set_max_search_node(10 ** 7)
    dfpn.set_max_depth(1024)

    def peer(boards):
        mates = []
        for board in boards:
            mate = dfpn.search(board)
            if mate:
                dfpn.get_pv(board)
            mates.append(mate)
        return mates

    def one_by_one(positions):
        return [pipeline.solve(pos, answer=False) for pos in positions]

    def many(positions):
        return pipeline.solve_many(positions, answer=False)

    solver = shared_solver()

    def stacked(positions):
        return (np.stack([p.board for p in positions]), np.stack([p.hands for p in positions]),
                np.stack([p.state for p in positions]),
                np.empty((len(positions), B.OUT_SIZE), dtype=np.int64),
                np.empty((len(positions), B.LINE_PLIES), dtype=np.int32))

    def kernel(block):
        boards, hands, states, out, lines = block
        salts = solver.new_salts(len(boards))
        i = 0
        while i < len(boards):      # (a problem handed back is skipped: none here is)
            i, handoff = B.prove_many(boards, hands, states, *solver.full_table, salts, i,
                                      MAX_NODES, B.HANDOFF_NODES, B.CALL_NODES,
                                      solver.control, solver.work, out, lines)
            i += handoff != B.HANDOFF_NONE
        return [pn == 0 for pn in out[:, B.O_PN].tolist()]

    for name in args.sets.split(","):
        path = SHARED / f"{name}.tsv"
        sfens = [line.split("\t")[0] for line in path.open(encoding="utf-8")
                 if line.strip() and not line.startswith("#")][:args.count]
        blocks = [(sfens[k:k + args.block]) for k in range(0, len(sfens), args.block)]
        items = {"cshogi.DfPn": [[cshogi.Board(s) for s in b] for b in blocks],
                 "solve() one by one": [[Position.from_sfen(s) for s in b] for b in blocks]}
        items["solve_many"] = items["solve() one by one"]
        items["its kernel alone"] = [stacked(b) for b in items["solve_many"]]
        runs = {"cshogi.DfPn": peer, "solve() one by one": one_by_one, "solve_many": many,
                "its kernel alone": kernel}
        names = list(runs)
        best = {key: [float("inf")] * len(blocks) for key in names}
        found = {key: [None] * len(blocks) for key in names}
        for r in range(args.repeat):
            for b in range(len(blocks)):
                turn = (r + b) % len(names)
                for key in names[turn:] + names[:turn]:
                    start = time.perf_counter()
                    found[key][b] = runs[key](items[key][b])
                    best[key][b] = min(best[key][b], time.perf_counter() - start)
        solo = [x for block in found["solve() one by one"] for x in block]
        bulk = [x for block in found["solve_many"] for x in block]
        peer_mates = sum(sum(block) for block in found["cshogi.DfPn"])
        mates = sum(r.status == "mate" for r in bulk)
        same = sum(a.status == b.status for a, b in zip(solo, bulk))
        print(f"{name}: {len(sfens)} problems in blocks of {args.block}, best of {args.repeat}; "
              f"mates: DfPn {peer_mates}, ours {mates}; solve_many's status as solve()'s on {same}")
        total = {key: sum(best[key]) for key in names}
        for key in names:
            print(f"  {key:20s} {total[key] / len(sfens) * 1e6:8.2f} µs/problem   "
                  f"ours/DfPn {total[key] / total['cshogi.DfPn']:5.2f}")


if __name__ == "__main__":
    main()
