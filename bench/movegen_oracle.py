"""Long cross-check of the move generator against cshogi (python-shogi where cshogi errs).

    python bench/movegen_oracle.py [--positions 40000] [--seed 1]

For each random tsume-style position: all legal moves, the checking moves, and the
defender's legal replies after each of up to 6 checks are compared as sets. Also
replays every tanuki_generated and yo_mate*.tsv line present in ../shared/problems.
Prints the number of positions compared and every difference; exit code 1 on any.
"""
import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
SHARED = ROOT.parent / "shared" / "problems"

from oracle import cshogi_board, cshogi_checks, cshogi_legal, python_shogi_legal  # noqa: E402
from randpos import random_position  # noqa: E402
from tsume.position import Position  # noqa: E402


def compare(pos, diffs, checks):
    board = cshogi_board(pos.sfen())
    ours, theirs = set(pos.legal_moves()), cshogi_legal(board)
    if ours != theirs and ours != python_shogi_legal(pos.sfen()):
        diffs.append(f"legal {pos.sfen()} ours-only={sorted(ours - theirs)} cshogi-only={sorted(theirs - ours)}")
    if not checks:
        return []
    oc, tc = set(pos.check_moves()), cshogi_checks(board)
    if oc != tc:
        diffs.append(f"checks {pos.sfen()} ours-only={sorted(oc - tc)} cshogi-only={sorted(tc - oc)}")
    return sorted(oc)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--positions", type=int, default=40000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    diffs, count, start = [], 0, time.perf_counter()
    for _ in range(args.positions):
        pos = random_position(rng)
        checks = compare(pos, diffs, True)
        count += 1
        for usi in checks[:6]:
            after = pos.copy()
            after.push_usi(usi)
            compare(after, diffs, False)
            count += 1
    random_count = count
    for name in ["tanuki_generated.tsv"] + [f"yo_mate{n}.tsv" for n in (3, 5, 7, 9, 11)]:
        path = SHARED / name
        if not path.exists():
            continue
        for line in path.open(encoding="utf-8"):
            if line.startswith("#"):
                continue
            cols = line.rstrip("\n").split("\t")
            pos = Position.from_sfen(cols[0])
            moves = cols[3].split() if len(cols) > 3 else []
            for i in range(len(moves) + 1):
                compare(pos, diffs, i % 2 == 0)
                count += 1
                if i < len(moves):
                    pos.push_usi(moves[i])
    for d in diffs:
        print(d)
    print(f"compared {count:,} positions ({random_count:,} random, {count - random_count:,} from "
          f"problem lines) in {time.perf_counter() - start:.0f} s: {len(diffs)} differences")
    sys.exit(1 if diffs else 0)


if __name__ == "__main__":
    main()
