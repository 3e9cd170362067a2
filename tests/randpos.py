"""Random tsume-style positions for cross-checking the move generator against oracles.

Shared by tests/test_movegen.py and bench/movegen_oracle.py. The defender's king sits
near an edge, a handful of pieces of both colours stand around it (promoted ones
included), hands are random, sometimes the attacker has a king too (双玉). Positions
obey the placement rules (piece totals, 二歩, dead pieces) and the side not to move
is never in check.
"""
import random

import numpy as np

from tsume import pieces as P
from tsume.movegen import attacked
from tsume.position import Position

_KINDS = [P.PAWN] * 6 + [P.LANCE, P.KNIGHT, P.SILVER, P.GOLD, P.BISHOP, P.ROOK] * 2 + [
    P.PRO_PAWN, P.PRO_LANCE, P.PRO_KNIGHT, P.PRO_SILVER, P.HORSE, P.DRAGON]


def random_position(rng: random.Random, attacker=None, max_pieces=14, attacker_king_near=False):
    """With attacker_king_near, the attacker always has a king, among the pieces round
    the defender's (where its pieces get pinned and its own checks can be illegal)."""
    attacker = rng.choice((P.BLACK, P.BLACK, P.WHITE)) if attacker is None else attacker
    defender = 1 - attacker
    while True:
        board = np.zeros(81, dtype=np.int8)
        used = {k: 0 for k in P.TOTAL}
        # Defender's king near its own back edge (the edge the attacker moves towards).
        file = rng.randint(1, 9)
        rank = rng.randint(1, 4) if attacker == P.BLACK else rng.randint(6, 9)
        if rng.random() < 0.3:
            file = rng.choice((1, 2, 8, 9))
        board[P.square(file, rank)] = P.make_piece(P.KING, defender)
        used[P.KING] += 1
        if attacker_king_near or rng.random() < 0.3:
            sq = rng.randrange(81)
            if attacker_king_near:
                sq = P.square(min(9, max(1, file + rng.randint(-3, 3))),
                              min(9, max(1, rank + rng.randint(-4, 4))))
            if board[sq] == 0:
                board[sq] = P.make_piece(P.KING, attacker)
                used[P.KING] += 1
        for _ in range(rng.randint(1, max_pieces)):
            kind = rng.choice(_KINDS)
            base = P.base_kind(kind)
            if used[base] >= P.TOTAL[base]:
                continue
            colour = attacker if rng.random() < 0.55 else defender
            # Cluster pieces around the defender's king, as in problems.
            f = min(9, max(1, file + rng.randint(-3, 3)))
            r = min(9, max(1, rank + rng.randint(-3, 4) * (1 if attacker == P.BLACK else -1)))
            sq = P.square(f, r)
            if board[sq] != 0:
                continue
            if kind in (P.PAWN, P.LANCE, P.KNIGHT) and P.is_dead_square(kind, colour, sq):
                continue
            if kind == P.PAWN and any(board[P.square(f, rr)] == P.make_piece(P.PAWN, colour)
                                      for rr in range(1, 10)):
                continue
            board[sq] = P.make_piece(kind, colour)
            used[base] += 1
        if attacker_king_near and rng.random() < 0.6:
            _add_pin(rng, board, used, attacker)
        hands = [dict.fromkeys(P.HAND_KINDS, 0), dict.fromkeys(P.HAND_KINDS, 0)]
        for k in P.HAND_KINDS:
            left = P.TOTAL[k] - used[k]
            take = rng.randint(0, min(left, 2 if k != P.PAWN else 3)) if rng.random() < 0.5 else 0
            hands[attacker][k] = take
            # Defender: the rest (tsume convention) or a random part of it.
            rest = left - take
            hands[defender][k] = rest if rng.random() < 0.7 else rng.randint(0, rest)
        pos = Position(board, [P.pack_hand(hands[0]), P.pack_hand(hands[1])], attacker)
        dk = pos.king_square(defender)
        if attacked(pos.board, pos.state, dk, attacker):
            continue
        if attacker_king_near and pos.king_square(attacker) is None:
            continue
        return pos


def _add_pin(rng, board, used, attacker):
    """Pin one of the attacker's pieces to its king: a defender's rook or bishop (maybe
    promoted) on the far side of the first attacker's piece on a ray from that king."""
    king = P.make_piece(P.KING, attacker)
    ksq = next((sq for sq in range(81) if board[sq] == king), None)
    if ksq is None:
        return
    for d in rng.sample(range(8), 8):        # the first ray where a pin fits
        base = P.ROOK if d < 4 else P.BISHOP
        if used[base] >= P.TOTAL[base]:
            continue
        t = P.STEP[ksq, d]
        while t >= 0 and board[t] == 0:
            t = P.STEP[t, d]
        if t < 0 or P.piece_colour(board[t]) != attacker:
            continue
        t = P.STEP[t, d]
        while t >= 0 and board[t] == 0:
            if rng.random() < 0.5 or P.STEP[t, d] < 0 or board[P.STEP[t, d]] != 0:
                kind = base + P.PROMOTED if rng.random() < 0.3 else base
                board[t] = P.make_piece(kind, 1 - attacker)
                used[base] += 1
                return
            t = P.STEP[t, d]
