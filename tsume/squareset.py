"""Sets of squares as two int64 words, for the move generator's occupancy tests.

Squares 0-62 are bits 0-62 of the first word and squares 63-80 bits 0-17 of the
second, so the sign bit is never used: no signed-shift or overflow surprises in numba.

position.py keeps such sets in `state` (each colour's pieces, and the sliders of both
colours), updated by do_move/undo_move. With them, "is a slider aiming at this square
with nothing in between" is a few AND operations against the tables below instead of
a walk along eight rays, which was a fifth of the search's time.
"""
import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from .pieces import NUM_PIECES, STEP, STEP_MASK

SPLIT = 63          # first square of the second word


def _word_bit(sq):
    return (0, 1 << sq) if sq < SPLIT else (1, 1 << (sq - SPLIT))


# LINES[sq, w]: the squares on the eight rays from sq (to the edge of the board).
# BETWEEN[a, b, w]: the squares strictly between a and b when they share a ray, else none.
LINES = np.zeros((81, 2), dtype=np.int64)
BETWEEN = np.zeros((81, 81, 2), dtype=np.int64)
for _a in range(81):
    for _d in range(8):
        _seen = []
        _b = STEP[_a, _d]
        while _b >= 0:
            _w, _bit = _word_bit(_b)
            LINES[_a, _w] |= _bit
            for _s in _seen:
                _ws, _bits = _word_bit(_s)
                BETWEEN[_a, _b, _ws] |= _bits
            _seen.append(int(_b))
            _b = STEP[_b, _d]


# CHECK_ZONE[sq, w]: the squares from which some piece can attack a king on sq without
# anything else moving: its eight lines and its knight squares (both colours).
CHECK_ZONE = LINES.copy()
for _a in range(81):
    for _d in range(8, 12):
        _b = STEP[_a, _d]
        if _b >= 0:
            _w, _bit = _word_bit(_b)
            CHECK_ZONE[_a, _w] |= _bit

# CONTACT_ZONE[sq, w]: the squares from which a check on a king on sq cannot be blocked:
# its neighbours and its knight squares (both colours).
CONTACT_ZONE = np.zeros((81, 2), dtype=np.int64)
for _a in range(81):
    for _d in range(12):
        _b = STEP[_a, _d]
        if _b >= 0:
            _w, _bit = _word_bit(_b)
            CONTACT_ZONE[_a, _w] |= _bit

# STEP_ATTACKS[piece, sq, w]: the squares a piece standing on sq attacks by its steps
# (its slides are left out). KING_NEAR[sq, w]: the squares from which a step reaches a
# square next to sq (a king on sq: who could guard its flight squares).
STEP_ATTACKS = np.zeros((NUM_PIECES, 81, 2), dtype=np.int64)
KING_NEAR = np.zeros((81, 2), dtype=np.int64)
for _a in range(81):
    for _p in range(NUM_PIECES):
        for _d in range(12):
            _b = STEP[_a, _d]
            if _b >= 0 and (STEP_MASK[_p] >> _d) & 1:
                _w, _bit = _word_bit(_b)
                STEP_ATTACKS[_p, _a, _w] |= _bit
    for _d in range(8):
        _t = STEP[_a, _d]
        if _t < 0:
            continue
        for _d2 in range(12):
            _b = STEP[_t, _d2]
            if _b >= 0:
                _w, _bit = _word_bit(_b)
                KING_NEAR[_a, _w] |= _bit

# PROMOTION_ZONE[colour, w]: the three far ranks of that colour (Black: ranks 1-3).
PROMOTION_ZONE = np.zeros((2, 2), dtype=np.int64)
for _a in range(81):
    for _c, _far in ((0, _a % 9 < 3), (1, _a % 9 > 5)):
        if _far:
            _w, _bit = _word_bit(_a)
            PROMOTION_ZONE[_c, _w] |= _bit


@intrinsic
def lowest_square(typingctx, word):
    """Index of the lowest set bit of a non-zero int64 word (LLVM's cttz)."""
    sig = types.int64(types.int64)

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))
    return sig, codegen


@njit(cache=True, inline="always")
def word_of(sq):
    return 0 if sq < SPLIT else 1


@njit(cache=True, inline="always")
def bit_of(sq):
    return np.int64(1) << (sq if sq < SPLIT else sq - SPLIT)


@njit(cache=True, inline="always")
def contains(lo, hi, sq):
    return (lo >> sq) & 1 == 1 if sq < SPLIT else (hi >> (sq - SPLIT)) & 1 == 1


@njit(cache=True, inline="always")
def pop_square(lo, hi):
    """The lowest square of a non-empty set, and the set without it:
    ``while lo | hi: sq, lo, hi = pop_square(lo, hi)`` visits every square."""
    if lo:
        return lowest_square(lo), lo & (lo - 1), hi
    return SPLIT + lowest_square(hi), lo, hi & (hi - 1)


@njit(cache=True, inline="always")
def with_square(lo, hi, sq):
    """The set with sq added."""
    if sq < SPLIT:
        return lo | (np.int64(1) << sq), hi
    return lo, hi | (np.int64(1) << (sq - SPLIT))


@njit(cache=True, inline="always")
def single_square(lo, hi):
    """The square of a set holding exactly one, or -1 (empty, or two or more)."""
    if lo != 0:
        if hi != 0 or lo & (lo - 1) != 0:
            return -1
        return lowest_square(lo)
    if hi != 0 and hi & (hi - 1) == 0:
        return SPLIT + lowest_square(hi)
    return -1
