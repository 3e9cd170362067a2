"""Move-generation speed: ours (numba) against cshogi (C++) on the same positions.

    python bench/movegen.py [--positions N]

Positions: random tsume-style ones (tests/randpos.py) and full-board game positions from
../shared/problems/yo_mate5.tsv. Reported: moves generated per second for
all legal moves, attacker checks and defender evasions; do/undo pairs per second; and the
cold (empty numba cache) and warm start of the first generation call.
cshogi is driven from Python (its API), ours both inside numba and from Python, so the
ratios show the engine-to-engine figure and the call overhead separately.
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from numba import njit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
SHARED = ROOT.parent / "shared" / "problems"

import cshogi  # noqa: E402

from randpos import random_position  # noqa: E402
from tsume.movegen import (MAX_MOVES, all_moves, check_moves, do_move, evasions,  # noqa: E402
                           undo_move)
from tsume.position import Position  # noqa: E402


@njit(cache=True)
def _run(boards, hands, states, what, repeat):
    """what: 0 all legal moves, 1 checks, 2 evasions, 3 do/undo of every legal move."""
    buf = np.empty(2 * MAX_MOVES, dtype=np.int32)
    total = 0
    for _ in range(repeat):
        for i in range(boards.shape[0]):
            b, h, s = boards[i], hands[i], states[i]
            if what == 0:
                total += all_moves(b, h, s, buf)
            elif what == 1:
                total += check_moves(b, h, s, buf)
            elif what == 2:
                total += evasions(b, h, s, buf, False)
            else:
                n = all_moves(b, h, s, buf)
                for j in range(n):
                    cap = do_move(b, h, s, buf[j])
                    undo_move(b, h, s, buf[j], cap)
                total += n
    return total


def _stack(positions):
    return (np.stack([p.board for p in positions]), np.stack([p.hands for p in positions]),
            np.stack([p.state for p in positions]))


def _time(fn, min_seconds=1.0):
    n, start = 0, time.perf_counter()
    while True:
        result = fn()
        n += 1
        elapsed = time.perf_counter() - start
        if elapsed >= min_seconds:
            return result * n / elapsed


def _cshogi_all(boards):
    return sum(len(list(b.legal_moves)) for b in boards)


def _cshogi_checks(boards):
    total = 0
    for b in boards:
        for m in b.legal_moves:
            b.push(m)
            total += b.is_check()
            b.pop()
    return total


def _cshogi_doundo(boards):
    total = 0
    for b in boards:
        for m in b.legal_moves:
            b.push(m)
            b.pop()
            total += 1
    return total


def _start_time(cache_dir):
    code = ("import time; t=time.perf_counter(); from tsume.position import Position; "
            "p=Position.from_sfen('8k/9/9/7+R1/9/9/9/9/9 b LP 1'); p.check_moves(); p.legal_moves(); "
            "print(time.perf_counter()-t)")
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=2000)
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as cache:
        cold = _start_time(cache)
        warm = _start_time(cache)
    print(f"start-up incl. compile: cold {cold:.2f} s, warm (numba cache) {warm:.2f} s")

    rng = random.Random(1)
    attack = [random_position(rng) for _ in range(args.positions)]
    defend = []
    for p in attack:
        for usi in p.check_moves()[:2]:
            q = p.copy()
            q.push_usi(usi)
            defend.append(q)
    game = []
    if (SHARED / "yo_mate5.tsv").exists():
        lines = [l.split("\t")[0] for l in (SHARED / "yo_mate5.tsv").open() if not l.startswith("#")]
        game = [Position.from_sfen(s) for s in lines[: args.positions]]
    sets = [("tsume attacker", attack), ("tsume defender", defend), ("game positions", game)]

    print(f"{'set':16} {'what':10} {'ours numba':>14} {'ours python':>13} {'cshogi':>13} {'time ours/cshogi':>18}")
    for name, positions in sets:
        if not positions:
            continue
        arrays = _stack(positions)
        cboards = [cshogi.Board(p.sfen()) for p in positions]
        defender = name == "tsume defender"
        kinds = [("legal", 0 if not defender else 2, _cshogi_all, lambda p: len(p.legal_moves()))]
        if not defender:
            kinds.append(("checks", 1, _cshogi_checks, lambda p: len(p.check_moves())))
        kinds.append(("do/undo", 3, _cshogi_doundo, None))
        for what, code, cfn, pyfn in kinds:
            _run(*arrays, code, 1)
            ours = _time(lambda: _run(*arrays, code, 1))
            py = _time(lambda: sum(pyfn(p) for p in positions)) if pyfn else float("nan")
            theirs = _time(lambda: cfn(cboards))
            print(f"{name:16} {what:10} {ours:14,.0f} {py:13,.0f} {theirs:13,.0f} {theirs / ours:18.2f}")
    print("(moves per second; do/undo = pairs per second; time ratio < 1 means ours is faster.\n"
          " cshogi 'checks' and 'do/undo' go through Python push/pop per move, so those rows\n"
          " mostly measure call overhead)")


if __name__ == "__main__":
    main()
