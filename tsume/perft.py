"""Perft-style tree counts for tsume trees (attacker checks at odd plies, every legal reply
at even plies): a cheap, exact way to compare move generators and to time them."""
import numpy as np
from numba import njit

from .movegen import EVERY_REPLY, MAX_MOVES, check_moves, do_move, evasions, undo_move


@njit(cache=True)
def tsume_perft(board, hands, state, depth):
    """Number of leaf nodes `depth` plies down the tsume tree, with an explicit stack."""
    moves = np.empty((depth + 1, 2 * MAX_MOVES), dtype=np.int32)
    counts = np.zeros(depth + 1, dtype=np.int64)
    index = np.zeros(depth + 1, dtype=np.int64)
    captured = np.zeros(depth + 1, dtype=np.int64)
    leaves = 0
    ply = 0
    counts[0] = check_moves(board, hands, state, moves[0])
    index[0] = 0
    while ply >= 0:
        if index[ply] >= counts[ply]:
            ply -= 1
            if ply >= 0:
                undo_move(board, hands, state, moves[ply, index[ply]], captured[ply])
                index[ply] += 1
            continue
        if ply == depth - 1:
            leaves += counts[ply]
            index[ply] = counts[ply]
            continue
        m = moves[ply, index[ply]]
        captured[ply] = do_move(board, hands, state, m)
        nxt = ply + 1
        if nxt % 2 == 1:
            counts[nxt] = evasions(board, hands, state, moves[nxt], EVERY_REPLY)
        else:
            counts[nxt] = check_moves(board, hands, state, moves[nxt])
        index[nxt] = 0
        ply = nxt
    return leaves
