"""The move encoding: one integer per move, the same in the numba kernels and in Python.

    bit 31 ........ 15   14   13 ........ 7   6 ......... 0
        0 ........... 0    P    from            to

    to     destination square 0..80 (see pieces.square)
    from   source square 0..80 of a board move; DROP_BASE + kind (82..88) for a drop
    P      PROMOTE_FLAG: the piece promotes on arrival

Move buffers hold them as int32; -1 stands for "no move". A drop's kind is the unpromoted
kind (pieces.PAWN .. pieces.GOLD) of the piece taken from the hand.

The accessors are register_jitable: plain Python functions when notation and the format
code call them, and compiled into a kernel that calls them (no dispatch either way).
"""
from numba.extending import register_jitable

DROP_BASE = 81          # from > DROP_BASE: a drop of kind from - DROP_BASE
PROMOTE_FLAG = 1 << 14


@register_jitable
def move_to(move):
    return move & 127


@register_jitable
def move_from(move):
    """The source square, or DROP_BASE + kind for a drop."""
    return (move >> 7) & 127


@register_jitable
def is_drop(move):
    return ((move >> 7) & 127) > DROP_BASE


@register_jitable
def drop_kind(move):
    return ((move >> 7) & 127) - DROP_BASE


@register_jitable
def is_promotion(move):
    return (move & PROMOTE_FLAG) != 0


@register_jitable
def make_move(frm, to, promote=False):
    return to | (frm << 7) | (PROMOTE_FLAG if promote else 0)


@register_jitable
def make_drop(kind, to):
    return to | ((DROP_BASE + kind) << 7)
