"""Piece codes, squares, directions and the precomputed tables the move generator uses.

Encoding (shared by the Python layer and the numba kernels):

* square ``sq = (file - 1) * 9 + (rank - 1)``; file 1..9 counted from Black's right,
  rank 1..9 from the top (SPEC §1.1). ``1a`` (１一) is 0, ``9i`` (９九) is 80.
* piece = kind | (colour << 4); colour 0 = Black (先手), 1 = White (後手); 0 = empty.
* kinds: P L N S B R G K = 1..8, promoted P L N S B R = 9..14 (kind + 8).
* hands are packed into one int64 per colour (see ``HAND_SHIFT``) so that hand
  superiority ("hand A holds at least hand B") is one subtraction and one mask.
* moves are ints, encoded as move.py describes.
"""
import functools

import numpy as np

BLACK, WHITE = 0, 1
EMPTY = 0
PAWN, LANCE, KNIGHT, SILVER, BISHOP, ROOK, GOLD, KING = 1, 2, 3, 4, 5, 6, 7, 8
PRO_PAWN, PRO_LANCE, PRO_KNIGHT, PRO_SILVER, HORSE, DRAGON = 9, 10, 11, 12, 13, 14
PROMOTED = 8      # kind + PROMOTED = promoted kind (P..R only)
WHITE_BIT = 16
NUM_PIECES = 32   # size of piece-indexed tables

HAND_KINDS = (PAWN, LANCE, KNIGHT, SILVER, BISHOP, ROOK, GOLD)
SFEN_HAND_ORDER = (ROOK, BISHOP, GOLD, SILVER, KNIGHT, LANCE, PAWN)
# How many of each kind a full set holds (SPEC §2.2).
TOTAL = {PAWN: 18, LANCE: 4, KNIGHT: 4, SILVER: 4, GOLD: 4, BISHOP: 2, ROOK: 2, KING: 2}

USI_LETTER = {PAWN: "P", LANCE: "L", KNIGHT: "N", SILVER: "S", BISHOP: "B", ROOK: "R",
              GOLD: "G", KING: "K"}
LETTER_KIND = {v: k for k, v in USI_LETTER.items()}
CSA_NAME = {PAWN: "FU", LANCE: "KY", KNIGHT: "KE", SILVER: "GI", BISHOP: "KA", ROOK: "HI",
            GOLD: "KI", KING: "OU", PRO_PAWN: "TO", PRO_LANCE: "NY", PRO_KNIGHT: "NK",
            PRO_SILVER: "NG", HORSE: "UM", DRAGON: "RY"}
CSA_KIND = {v: k for k, v in CSA_NAME.items()}
# Single-character board kanji (KIF/BOD diagrams) and the names used in move text.
BOARD_KANJI = {PAWN: "歩", LANCE: "香", KNIGHT: "桂", SILVER: "銀", BISHOP: "角", ROOK: "飛",
               GOLD: "金", KING: "玉", PRO_PAWN: "と", PRO_LANCE: "杏", PRO_KNIGHT: "圭",
               PRO_SILVER: "全", HORSE: "馬", DRAGON: "龍"}
KANJI_KIND = {v: k for k, v in BOARD_KANJI.items()}
KANJI_KIND.update({"王": KING, "竜": DRAGON, "成香": PRO_LANCE, "成桂": PRO_KNIGHT,
                   "成銀": PRO_SILVER})
MOVE_KANJI = dict(BOARD_KANJI)
MOVE_KANJI.update({PRO_LANCE: "成香", PRO_KNIGHT: "成桂", PRO_SILVER: "成銀"})

FULLWIDTH_DIGITS = "０１２３４５６７８９"
KANJI_NUMERALS = "〇一二三四五六七八九"


def make_piece(kind, colour):
    return kind | (colour << 4)


def piece_kind(piece):
    return piece & 15


def piece_colour(piece):
    return piece >> 4


def base_kind(kind):
    """Unpromoted kind (what a captured piece becomes in hand)."""
    return kind - PROMOTED if kind > KING else kind


def can_promote(kind):
    return PAWN <= kind <= ROOK


def square(file, rank):
    return (file - 1) * 9 + (rank - 1)


def square_file(sq):
    return sq // 9 + 1


def square_rank(sq):
    return sq % 9 + 1


# ---------------------------------------------------------------- packed hands
HAND_SHIFT = np.zeros(16, dtype=np.int64)
HAND_MASK = np.zeros(16, dtype=np.int64)
_layout = {PAWN: (0, 5), LANCE: (6, 3), KNIGHT: (10, 3), SILVER: (14, 3), BISHOP: (18, 2),
           ROOK: (21, 2), GOLD: (24, 3)}
HAND_GUARD = 0
for _k, (_s, _bits) in _layout.items():
    HAND_SHIFT[_k] = _s
    HAND_MASK[_k] = (1 << _bits) - 1
    HAND_GUARD |= 1 << (_s + _bits)   # one spare bit above every field catches a borrow


# The same layout as Python ints, for the Python side (numpy scalar arithmetic is slow).
# One kind's count in compiled code is movegen.hand_count; Python code unpacks the hand.
_HAND_FIELDS = {_k: (int(HAND_SHIFT[_k]), int(HAND_MASK[_k])) for _k in HAND_KINDS}


def pack_hand(counts):
    """counts: mapping kind -> number."""
    packed = 0
    for kind, n in counts.items():
        if n:
            packed += int(n) << int(HAND_SHIFT[kind])
    return packed


def unpack_hand(packed):
    """{kind: count} for the seven hand kinds (a fresh dict; a batch reads each
    problem's hands several times, so the unpacking is cached)."""
    return dict(_unpacked(int(packed)))


@functools.lru_cache(maxsize=4096)
def _unpacked(packed):
    return {k: (packed >> shift) & mask for k, (shift, mask) in _HAND_FIELDS.items()}


def held_pieces(packed):
    """{kind: count} of the kinds a packed hand holds (none for an empty hand)."""
    return {k: c for k, c in unpack_hand(packed).items() if c} if packed else {}


# ---------------------------------------------------------------- directions
# (file delta, rank delta); rank delta -1 is "forward" for Black.
DIRECTIONS = [(0, -1), (0, 1), (-1, 0), (1, 0), (-1, -1), (1, -1), (-1, 1), (1, 1),
              (-1, -2), (1, -2), (-1, 2), (1, 2)]
N_DIRS = len(DIRECTIONS)
OPPOSITE = np.array([DIRECTIONS.index((-df, -dr)) for df, dr in DIRECTIONS], dtype=np.int64)
_MIRROR = np.array([DIRECTIONS.index((df, -dr)) for df, dr in DIRECTIONS], dtype=np.int64)

# STEP[sq, d]: the square one step from sq in direction d, or -1 off the board.
STEP = np.full((81, N_DIRS), -1, dtype=np.int64)
for _sq in range(81):
    _f, _r = square_file(_sq), square_rank(_sq)
    for _d, (_df, _dr) in enumerate(DIRECTIONS):
        if 1 <= _f + _df <= 9 and 1 <= _r + _dr <= 9:
            STEP[_sq, _d] = square(_f + _df, _r + _dr)

# DIRECTION_TO[a, b]: direction d (0..7) such that b lies on the ray from a in d,
# or 8..11 if b is a knight jump from a, else -1.
DIRECTION_TO = np.full((81, 81), -1, dtype=np.int64)
for _a in range(81):
    for _d in range(8):
        _b = STEP[_a, _d]
        while _b >= 0:
            DIRECTION_TO[_a, _b] = _d
            _b = STEP[_b, _d]
    for _d in range(8, 12):
        if STEP[_a, _d] >= 0:
            DIRECTION_TO[_a, STEP[_a, _d]] = _d

# Movement as bit masks over direction indices, per piece code (kind | colour << 4).
_GOLD_STEPS = (0, 4, 5, 2, 3, 1)
_BLACK_STEPS = {PAWN: (0,), KNIGHT: (8, 9), SILVER: (0, 4, 5, 6, 7), GOLD: _GOLD_STEPS,
                KING: tuple(range(8)), PRO_PAWN: _GOLD_STEPS, PRO_LANCE: _GOLD_STEPS,
                PRO_KNIGHT: _GOLD_STEPS, PRO_SILVER: _GOLD_STEPS, HORSE: (0, 1, 2, 3),
                DRAGON: (4, 5, 6, 7)}
_BLACK_SLIDES = {LANCE: (0,), BISHOP: (4, 5, 6, 7), ROOK: (0, 1, 2, 3), HORSE: (4, 5, 6, 7),
                 DRAGON: (0, 1, 2, 3)}
STEP_MASK = np.zeros(NUM_PIECES, dtype=np.int64)
SLIDE_MASK = np.zeros(NUM_PIECES, dtype=np.int64)
for _kind in range(1, 15):
    for _d in _BLACK_STEPS.get(_kind, ()):
        STEP_MASK[_kind] |= 1 << _d
        STEP_MASK[_kind | WHITE_BIT] |= 1 << int(_MIRROR[_d])
    for _d in _BLACK_SLIDES.get(_kind, ()):
        SLIDE_MASK[_kind] |= 1 << _d
        SLIDE_MASK[_kind | WHITE_BIT] |= 1 << int(_MIRROR[_d])

# Ranks (1..9) on which a piece of the colour may not stand, per kind: the "last ranks".
# DEAD_RANKS[colour, kind] = number of last ranks forbidden (0, 1 or 2).
DEAD_RANKS = np.zeros((2, 16), dtype=np.int64)
for _c in (BLACK, WHITE):
    DEAD_RANKS[_c, PAWN] = 1
    DEAD_RANKS[_c, LANCE] = 1
    DEAD_RANKS[_c, KNIGHT] = 2


def relative_rank(sq, colour):
    """Rank 1..9 counted from the colour's far side (1 = the last rank it moves towards)."""
    r = square_rank(sq)
    return r if colour == BLACK else 10 - r


def is_dead_square(kind, colour, sq):
    return relative_rank(sq, colour) <= DEAD_RANKS[colour, kind]


# ---------------------------------------------------------------- Zobrist keys
_rng = np.random.Generator(np.random.PCG64(20261129))
ZOBRIST_BOARD = _rng.integers(-(2 ** 63), 2 ** 63 - 1, size=(NUM_PIECES, 81), dtype=np.int64)
ZOBRIST_BOARD[EMPTY, :] = 0
ZOBRIST_SIDE = np.int64(_rng.integers(1, 2 ** 62))
# Packed hands are mixed into the full key by an odd multiplier (a bijection on 64 bits).
HAND_MIX = np.array([0x9E3779B97F4A7C15 - 2 ** 64, 0x632BE59BD9B4E019], dtype=np.int64)
