"""SFEN (USI position string) reader and writer (SPEC §3.1)."""
import re

import numpy as np

from .. import pieces as P
from ..errors import FormatError
from ..position import Position

_HAND_RE = re.compile(r"(\d*)([RBGSNLPrbgsnlp])")


def parse_sfen(text, play_moves=True):
    """Position from ``[position] [sfen] board side hands [ply] [moves m1 m2 ...]``.
    Raises FormatError on malformed text; moves are replayed (legality checked)."""
    tokens = text.split()
    if tokens[:1] == ["position"]:
        tokens = tokens[1:]
    if tokens[:1] == ["sfen"]:
        tokens = tokens[1:]
    moves = []
    if "moves" in tokens:
        i = tokens.index("moves")
        tokens, moves = tokens[:i], tokens[i + 1:]
    if len(tokens) < 3:
        raise FormatError("SFEN needs board, side to move and hands")
    if len(tokens) > 4 or (len(tokens) == 4 and not tokens[3].isdigit()):
        raise FormatError(f"unexpected text after SFEN: {' '.join(tokens[3:])[:40]!r}")
    board = _parse_board(tokens[0])
    if tokens[1] not in ("b", "w"):
        raise FormatError(f"side to move must be b or w, not {tokens[1][:20]!r}")
    side = P.BLACK if tokens[1] == "b" else P.WHITE
    hands = _parse_hands(tokens[2])
    pos = Position(board, hands, side)
    if play_moves:
        for m in moves:
            try:
                pos.push_usi(m)
            except ValueError:
                raise FormatError(f"illegal or malformed move {m[:20]!r} after the SFEN") from None
    return pos


def _parse_board(text):
    rows = text.split("/")
    if len(rows) != 9:
        raise FormatError(f"SFEN board needs 9 ranks separated by '/', got {len(rows)}")
    board = np.zeros(81, dtype=np.int8)
    for r, row in enumerate(rows):
        file = 9
        promoted = False
        for ch in row:
            if ch.isdigit():
                if promoted or ch == "0":
                    raise FormatError(f"bad SFEN rank {r + 1}: {row[:20]!r}")
                file -= int(ch)
            elif ch == "+":
                if promoted:
                    raise FormatError(f"bad SFEN rank {r + 1}: {row[:20]!r}")
                promoted = True
                continue
            elif ch.upper() in P.LETTER_KIND:
                kind = P.LETTER_KIND[ch.upper()]
                if promoted:
                    if not P.can_promote(kind):
                        raise FormatError(f"piece {ch!r} cannot be promoted (rank {r + 1})")
                    kind += P.PROMOTED
                if file < 1:
                    raise FormatError(f"SFEN rank {r + 1} has more than 9 squares: {row[:20]!r}")
                colour = P.BLACK if ch.isupper() else P.WHITE
                board[P.square(file, r + 1)] = P.make_piece(kind, colour)
                file -= 1
            else:
                raise FormatError(f"unknown character {ch!r} in SFEN board")
            promoted = False
        if file != 0 or promoted:
            raise FormatError(f"SFEN rank {r + 1} does not have 9 squares: {row[:20]!r}")
    return board


def _parse_hands(text):
    hands = [dict.fromkeys(P.HAND_KINDS, 0), dict.fromkeys(P.HAND_KINDS, 0)]
    if text != "-":
        pos = 0
        for m in _HAND_RE.finditer(text):
            if m.start() != pos:
                break
            pos = m.end()
            n = int(m.group(1)) if m.group(1) else 1
            if n < 1 or n > 18:
                raise FormatError(f"bad count {m.group(1)} in SFEN hands")
            ch = m.group(2)
            hands[P.BLACK if ch.isupper() else P.WHITE][P.LETTER_KIND[ch.upper()]] += n
        if pos != len(text) or not text:
            raise FormatError(f"malformed SFEN hands {text[:30]!r}")
    for h in hands:
        for k, n in h.items():
            if n > P.TOTAL[k]:
                raise FormatError(f"{n} {P.USI_LETTER[k]} in one hand: at most {P.TOTAL[k]} exist")
    return np.array([P.pack_hand(hands[0]), P.pack_hand(hands[1])], dtype=np.int64)


def write_board(pos):
    rows = []
    for rank in range(1, 10):
        row, empty = "", 0
        for file in range(9, 0, -1):
            p = pos.piece_at(P.square(file, rank))
            if not p:
                empty += 1
                continue
            if empty:
                row += str(empty)
                empty = 0
            kind = P.piece_kind(p)
            letter = P.USI_LETTER[P.base_kind(kind)]
            row += ("+" if kind > P.KING else "") + (letter if P.piece_colour(p) == P.BLACK else letter.lower())
        if empty:
            row += str(empty)
        rows.append(row)
    return "/".join(rows)


def write_hands(pos):
    out = ""
    for colour in (P.BLACK, P.WHITE):
        hand = pos.hand(colour)
        for k in P.SFEN_HAND_ORDER:
            n = hand[k]
            if n:
                letter = P.USI_LETTER[k] if colour == P.BLACK else P.USI_LETTER[k].lower()
                out += (str(n) if n > 1 else "") + letter
    return out or "-"


def write_sfen(pos, ply=1):
    side = "b" if pos.side_to_move == P.BLACK else "w"
    return f"{write_board(pos)} {side} {write_hands(pos)} {ply}"
