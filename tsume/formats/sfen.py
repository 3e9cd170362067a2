"""SFEN (USI position string) reader and writer (SPEC §3.1).

Accepted forms: ``board side hands [ply]``, optionally prefixed by ``sfen`` or
``position sfen``, ``position startpos``, each optionally followed by ``moves m1 m2 ...``.
A problem file holds one such string per line, optionally followed by TAB-separated
fields (the layout of shared/problems/*.tsv); ``#`` lines and blank lines are skipped.

Arrays in, arrays out: position.py makes the Position (Position.from_sfen, split_sfen,
parse_sfen) and calls the writer here for Position.sfen().
"""
import functools
import re

import numpy as np

from .. import pieces as P
from ..errors import FormatError

STARTPOS = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"

_HAND_RE = re.compile(r"([0-9]*)([RBGSNLPrbgsnlp])")
_LETTER_KIND = {**P.LETTER_KIND, **{c.lower(): k for c, k in P.LETTER_KIND.items()}}
_PLY_RE = re.compile(r"[0-9]{1,9}")
# A board token: 9 ranks of SFEN letters/digits. Loose on purpose (it only decides
# "this line means to be SFEN"); _parse_board gives the precise error.
BOARD_TOKEN_RE = re.compile(r"^[0-9+A-Za-z]+(?:/[0-9+A-Za-z]+){8}$")


def looks_like_sfen(line):
    """Does this (non-comment) line mean to be a SFEN string?"""
    tokens = line.split("\t", 1)[0].split()
    if tokens[:1] == ["position"]:
        return True
    if tokens[:1] == ["sfen"]:
        tokens = tokens[1:]
    return bool(tokens) and bool(BOARD_TOKEN_RE.match(tokens[0]))


def sfen_to_arrays(text):
    """(board, hands, side, [USI moves]) from any accepted form; moves are not played."""
    tokens = text.split()
    if tokens[:1] == ["position"]:
        tokens = tokens[1:]
        if tokens[:1] == ["startpos"]:
            tokens = STARTPOS.split() + tokens[1:]
        elif tokens[:1] != ["sfen"]:
            raise FormatError("'position' must be followed by 'sfen' or 'startpos'")
    if tokens[:1] == ["sfen"]:
        tokens = tokens[1:]
    moves = []
    if "moves" in tokens:
        i = tokens.index("moves")
        tokens, moves = tokens[:i], tokens[i + 1:]
    if len(tokens) < 3:
        raise FormatError("SFEN needs board, side to move and hands")
    if len(tokens) > 4 or (len(tokens) == 4 and not _PLY_RE.fullmatch(tokens[3])):
        raise FormatError(f"unexpected text after SFEN: {' '.join(tokens[3:])[:40]!r}")
    board = _parse_board(tokens[0])
    if tokens[1] not in ("b", "w"):
        raise FormatError(f"side to move must be b or w, not {tokens[1][:20]!r}")
    side = P.BLACK if tokens[1] == "b" else P.WHITE
    hands = _parse_hands(tokens[2])
    return board, hands, side, moves


def play_usi_moves(pos, moves):
    """Play USI moves on pos in place; FormatError names the first bad one."""
    for i, m in enumerate(moves):
        try:
            pos.push_usi(m)
        except ValueError:
            raise FormatError(f"illegal or malformed move {i + 1} {m[:20]!r} after the SFEN") from None


# A batch of 10^5 problems spent more in a per-character parse of SFEN than in the
# search of a 3-ply mate. A board is read with bytes.replace and bytes.translate
# instead: each square one byte whose value is its piece (a digit n becomes n empty
# squares, a '+' and its letter the promoted piece), then the 81 bytes as the array.
# Anything else (a bad character, a rank of the wrong length, a '+' not before a
# promotable piece) goes to the per-character parse, which names the fault.
_BOARD_CHARS = b"123456789/+" + "".join(_LETTER_KIND).encode()
_PROMOTED_BYTE = {ch.encode(): bytes([(kind + P.PROMOTED) | (0 if ch.isupper() else P.WHITE_BIT)])
                  for ch, kind in _LETTER_KIND.items() if P.can_promote(kind)}
_EMPTY_BYTES = [(str(n).encode(), bytes(n)) for n in range(1, 10)]
_RANK_ENDS = b"/" * 8       # (a board of nine 9-byte ranks: bytes 9, 19, ... 79)
_CODE_OF = bytearray(b"\xff" * 256)         # a letter's byte -> its piece; 0xff: not one
for _code in range(32):
    _CODE_OF[_code] = _code                 # (pieces and empty squares already replaced)
for _ch, _kind in _LETTER_KIND.items():
    _CODE_OF[ord(_ch)] = _kind if _ch.isupper() else _kind | P.WHITE_BIT
_CODE_OF = bytes(_CODE_OF)
_HANDS = {}         # hands text -> (Black's, White's) packed hand; cleared when full
_CACHE_SIZE = 1 << 14


def _parse_board(text):
    raw = text.encode("ascii", "replace")
    if raw.translate(None, _BOARD_CHARS):        # a character no board has
        return _parse_board_slowly(text)
    if b"+" in raw:
        # Each '+' and the letter after it become the promoted piece's byte.
        parts = raw.split(b"+")
        for i in range(1, len(parts)):
            code = _PROMOTED_BYTE.get(parts[i][:1])
            if code is None:
                return _parse_board_slowly(text)
            parts[i] = code + parts[i][1:]
        raw = b"".join(parts)
    for digit, empty in _EMPTY_BYTES:
        raw = raw.replace(digit, empty)
    # (A stray '/' would leave fewer than 81 squares; anything else not a piece, 0xff.)
    squares = raw.translate(_CODE_OF, b"/")
    if len(raw) != 89 or raw[9::10] != _RANK_ENDS or len(squares) != 81 or b"\xff" in squares:
        return _parse_board_slowly(text)
    return np.frombuffer(squares, dtype=np.int8)[_SQUARE_ORDER]


# Byte 9r + c of the board's text is rank r + 1, file 9 - c: square (8 - c) * 9 + r.
_SQUARE_ORDER = np.array([9 * (sq % 9) + 8 - sq // 9 for sq in range(81)])


def _parse_board_slowly(text):
    """_parse_board character by character: the precise FormatError of a bad board."""
    rows = text.split("/")
    if len(rows) != 9:
        raise FormatError(f"SFEN board needs 9 ranks separated by '/', got {len(rows)}")
    ranks = [_parse_rank(row, r) for r, row in enumerate(rows)]
    # (Byte f of rank r is the piece on file f + 1, rank r + 1: square f * 9 + r.)
    return np.frombuffer(b"".join(ranks), dtype=np.int8).reshape(9, 9).T.ravel()


def _parse_rank(row, r):
    """The 9 pieces of one rank's text (r: its index, for the messages), file 1 first."""
    cells = [0] * 9
    file = 9
    promoted = False
    for ch in row:
        if ch in "0123456789":
            if promoted or ch == "0":
                raise FormatError(f"bad SFEN rank {r + 1}: {row[:20]!r}")
            file -= int(ch)
        elif ch == "+":
            if promoted:
                raise FormatError(f"bad SFEN rank {r + 1}: {row[:20]!r}")
            promoted = True
            continue
        elif ch in _LETTER_KIND:
            kind = _LETTER_KIND[ch]
            if promoted:
                if not P.can_promote(kind):
                    raise FormatError(f"piece {ch!r} cannot be promoted (rank {r + 1})")
                kind += P.PROMOTED
            if file < 1:
                raise FormatError(f"SFEN rank {r + 1} has more than 9 squares: {row[:20]!r}")
            cells[file - 1] = kind if ch.isupper() else kind | P.WHITE_BIT
            file -= 1
        else:
            raise FormatError(f"unknown character {ch!r} in SFEN board")
        promoted = False
    if file != 0 or promoted:
        raise FormatError(f"SFEN rank {r + 1} does not have 9 squares: {row[:20]!r}")
    return bytes(cells)


def _parse_hands(text):
    packed = _HANDS.get(text)
    if packed is None:
        if len(_HANDS) >= _CACHE_SIZE:
            _HANDS.clear()
        packed = _HANDS[text] = _parse_hands_text(text)
    return np.array(packed, dtype=np.int64)


def _parse_hands_text(text):
    hands = [dict.fromkeys(P.HAND_KINDS, 0), dict.fromkeys(P.HAND_KINDS, 0)]
    if text != "-":
        pos = 0
        for m in _HAND_RE.finditer(text):
            if m.start() != pos:
                break
            pos = m.end()
            # A count of more digits is out of range anyway, and int() refuses thousands.
            n = (int(m.group(1)) if len(m.group(1)) <= 3 else 0) if m.group(1) else 1
            if n < 1 or n > 18:
                raise FormatError(f"bad count {m.group(1)[:5]} in SFEN hands")
            ch = m.group(2)
            hands[P.BLACK if ch.isupper() else P.WHITE][P.LETTER_KIND[ch.upper()]] += n
        if pos != len(text) or not text:
            raise FormatError(f"malformed SFEN hands {text[:30]!r}")
    return pack_checked(hands[0]), pack_checked(hands[1])


def pack_checked(counts):
    """Packed hand from {kind: n}; FormatError when a count exceeds the full set (the
    packed fields are only a few bits wide, so this check must come first)."""
    for k, n in counts.items():
        if n > P.TOTAL[k]:
            raise FormatError(f"{n} {P.USI_LETTER[k]} in one hand: at most {P.TOTAL[k]} exist")
    return P.pack_hand(counts)


def read_sfen_lines(text):
    """Yield (line number, SFEN text, extra TAB fields) for each content line."""
    for lineno, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        fields = line.rstrip("\r\n").split("\t")
        yield lineno, fields[0].strip(), [f.strip() for f in fields[1:]]


# ---------------------------------------------------------------- writer
# The writer's translate: each square's piece code to its SFEN letters (an empty square
# to "1", runs of them then counted).
_TEXT_OF = {0: "1"}
_TEXT_OF.update({(kind | colour): ("+" if kind > P.KING else "")
                 + (P.USI_LETTER[P.base_kind(kind)] if colour == 0
                    else P.USI_LETTER[P.base_kind(kind)].lower())
                 for kind in range(1, 16) if P.base_kind(kind) in P.USI_LETTER or kind == P.KING
                 for colour in (0, P.WHITE_BIT)})
_RUNS = [("1" * n, str(n)) for n in range(9, 1, -1)]


def write_board(pos):
    # (Square f * 9 + r is file f + 1, rank r + 1: the board as ranks of files 9..1.)
    cells = np.ascontiguousarray(pos.board.reshape(9, 9)[::-1].T).tobytes().decode("latin-1")
    text = "/".join([cells[r:r + 9] for r in range(0, 81, 9)]).translate(_TEXT_OF)
    for run, count in _RUNS:        # (longest first; a rank holds at most 9)
        text = text.replace(run, count)
    return text


def write_hands(pos):
    out = (_hand_text(P.BLACK, int(pos.hands[P.BLACK]))
           + _hand_text(P.WHITE, int(pos.hands[P.WHITE])))
    return out or "-"


# (Each colour's text cached apart: a batch writes every problem's SFEN, and in sets
# cut from games one side's hand repeats far more often than the pair.)
@functools.lru_cache(maxsize=8192)
def _hand_text(colour, packed):
    hand = P.unpack_hand(packed)
    out = ""
    for k in P.SFEN_HAND_ORDER:
        n = hand[k]
        if n:
            letter = P.USI_LETTER[k] if colour == P.BLACK else P.USI_LETTER[k].lower()
            out += (str(n) if n > 1 else "") + letter
    return out


def write_sfen(pos, ply=1):
    side = "b" if pos.side_to_move == P.BLACK else "w"
    return f"{write_board(pos)} {side} {write_hands(pos)} {ply}"
