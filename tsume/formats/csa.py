"""CSA standard records (CSA標準棋譜ファイル形式 V2.2 / V3.0, SPEC §3.3): reader and writer.

The start position is built the CSA way, by taking pieces out of a full box (PI, P1..P9,
P+/P- items); ``00AL`` hands the rest of the box to one side and is applied after every
other P statement whatever its place. Moves after the side-to-move line are the 作意.
"""
import re

import numpy as np

from .. import pieces as P
from ..errors import FormatError
from .common import Parsed
from .sfen import STARTPOS, pack_checked, sfen_to_arrays

_MOVE = re.compile(r"^([+-])([0-9])([0-9])([1-9])([1-9])([A-Z]{2})$")
_ITEM = re.compile(r"([0-9])([0-9])([A-Z]{2})")
_SIGN = {"+": P.BLACK, "-": P.WHITE}
_END_WORDS = ("TSUMI", "FUZUMI", "TORYO", "CHUDAN", "SENNICHITE", "TIME_UP", "ILLEGAL_MOVE",
              "+ILLEGAL_ACTION", "-ILLEGAL_ACTION", "JISHOGI", "KACHI", "HIKIWAKE", "MATTA",
              "ERROR")


# ==================================================================== reading
def parse_csa(text):
    """Yield one Parsed per record (records are separated by a line ``/``)."""
    records, current = [], []
    for lineno, line in enumerate(text.splitlines(), 1):
        line = line.rstrip("\r\n").lstrip("\ufeff")
        if line.strip() == "/":
            records.append(current)
            current = []
            continue
        if line.startswith("'"):
            continue                      # comment (including 'CSA encoding=...)
        for statement in line.split(","):
            current.append((lineno, statement))
    records.append(current)
    records = [r for r in records if any(s.strip() for _, s in r)]
    multi = len(records) > 1
    for n, record in enumerate(records, 1):
        first = next(ln for ln, s in record if s.strip())
        where = f"#{n}" if multi else f":{first}"
        try:
            parsed = _parse_record(record)
            parsed.where = where
            yield parsed
        except FormatError as e:
            yield Parsed(where, error=f"line {e.line or first}: {e}")


class _Box:
    """Pieces still in the box while a CSA start position is built."""

    def __init__(self):
        self.board = np.zeros(81, dtype=np.int8)
        self.hands = [dict.fromkeys(P.HAND_KINDS, 0), dict.fromkeys(P.HAND_KINDS, 0)]
        self.left = dict(P.TOTAL)

    def take(self, kind, lineno):
        base = P.base_kind(kind)
        if self.left[base] <= 0:
            raise FormatError(f"more {P.CSA_NAME[base]} than a full set holds", lineno)
        self.left[base] -= 1

    def put(self, sq, piece, lineno):
        if self.board[sq]:
            raise FormatError(f"two pieces on square {P.square_file(sq)}{P.square_rank(sq)}", lineno)
        self.take(P.piece_kind(piece), lineno)
        self.board[sq] = piece


def _parse_record(record):
    box = _Box()
    header, moves = {}, []
    side = None
    all_to = None              # colour given the rest of the box (00AL)
    placed = False             # any P statement seen
    warnings = []
    for lineno, raw in record:
        s = raw.strip()
        if not s:
            continue
        if side is not None:
            if _MOVE.match(s):
                moves.append((s, lineno))
                continue
            if s[0] == "T" or s.startswith("'"):
                continue
            if s[0] == "%":
                break
            warnings.append(f"line {lineno}: ignored {s[:20]!r} after the start position")
            break
        if s in ("+", "-"):
            side = _SIGN[s]
            continue
        if _MOVE.match(s) and placed:
            side = _SIGN[s[0]]
            warnings.append(f"line {lineno}: no side-to-move line (+ or -); taken from the first move")
            moves.append((s, lineno))
            continue
        if s[0] == "V" or s[0] == "N" or s[0] == "$":
            if s[0] == "$" and ":" in s:
                key, value = s[1:].split(":", 1)
                header[key] = value.strip()
            elif s[0] == "N" and len(s) > 1 and s[1] in "+-":
                header[s[:2]] = s[2:].strip()
            elif s[0] == "V":
                header["V"] = s[1:]
            else:
                raise FormatError(f"unknown CSA statement {s[:20]!r}", lineno)
            continue
        if s.startswith("PI"):
            if placed:
                raise FormatError("PI must come before any other P statement", lineno)
            placed = True
            _even(box, s[2:], lineno)
            continue
        if len(s) >= 2 and s[0] == "P" and s[1] in "123456789":
            placed = True
            _rank(box, int(s[1]), s[2:], lineno)
            continue
        if len(s) >= 2 and s[0] == "P" and s[1] in "+-":
            placed = True
            colour = _SIGN[s[1]]
            body = s[2:]
            if body == "00AL":
                if all_to is not None:
                    raise FormatError("00AL given twice", lineno)
                all_to = colour
                continue
            if not body or _ITEM.sub("", body):
                raise FormatError(f"bad CSA piece list {s[:30]!r}", lineno)
            for m in _ITEM.finditer(body):
                f, r, name = int(m.group(1)), int(m.group(2)), m.group(3)
                kind = P.CSA_KIND.get(name)
                if kind is None:
                    raise FormatError(f"unknown CSA piece {name!r}", lineno)
                if (f, r) == (0, 0):
                    if kind not in P.HAND_KINDS:
                        raise FormatError(f"{name} cannot be a piece in hand", lineno)
                    box.take(kind, lineno)
                    box.hands[colour][kind] += 1
                elif f == 0 or r == 0:
                    raise FormatError(f"bad square {f}{r} in {s[:30]!r}", lineno)
                else:
                    box.put(P.square(f, r), P.make_piece(kind, colour), lineno)
            continue
        raise FormatError(f"unknown CSA statement {s[:20]!r}", lineno)

    if not placed:
        raise FormatError("no start position (PI or P1..P9 lines) in the CSA record",
                          record[0][0] if record else None)
    if side is None:
        side = P.BLACK
        warnings.append("no side-to-move line (+ or -): Black assumed")
    if all_to is not None:
        for k in P.HAND_KINDS:
            box.hands[all_to][k] += box.left[k]
            box.left[k] = 0
    hands = np.array([pack_checked(box.hands[0]), pack_checked(box.hands[1])], dtype=np.int64)
    arrays = (box.board, hands, side)
    metadata = {"header": header, "title": header.get("TITLE") or header.get("EVENT"),
                "author": header.get("AUTHOR")}
    # 00AL for the defender is 玉方残り駒全部; for the attacker it is just his hand.
    rest = (all_to,) if all_to is not None and all_to != side else ()
    solution = (lambda position: csa_moves_to_usi(position, moves)) if moves else None
    return Parsed("", arrays, metadata, rest_colours=rest, solution=solution, warnings=warnings)


def _even(box, removals, lineno):
    """PI: the even start position, minus the pieces named in ``ffXX`` items."""
    board = sfen_to_arrays(STARTPOS)[0]
    if _ITEM.sub("", removals.strip()):
        raise FormatError(f"bad PI piece list {removals[:30]!r}", lineno)
    for m in _ITEM.finditer(removals):
        f, r, name = int(m.group(1)), int(m.group(2)), m.group(3)
        if f == 0 or r == 0:
            raise FormatError(f"bad square {f}{r} in PI", lineno)
        sq = P.square(f, r)
        if not board[sq] or P.CSA_NAME[P.piece_kind(int(board[sq]))] != name:
            raise FormatError(f"PI: no {name} on {f}{r} to remove", lineno)
        board[sq] = 0
    for sq in range(81):
        if board[sq]:
            box.put(sq, int(board[sq]), lineno)


def _rank(box, rank, body, lineno):
    """P1..P9: nine 3-character cells, file 9 first (trailing blanks may be trimmed)."""
    body = body.ljust(27)
    if body[27:].strip():
        raise FormatError(f"P{rank} has more than 9 squares", lineno)
    for i in range(9):
        cell = body[3 * i:3 * i + 3]
        if cell.strip() == "*" or not cell.strip():
            if not cell.strip():
                raise FormatError(f"P{rank} has fewer than 9 squares", lineno)
            continue
        kind = P.CSA_KIND.get(cell[1:])
        if cell[0] not in "+-" or kind is None:
            raise FormatError(f"unknown CSA square {cell!r} in P{rank}", lineno)
        box.put(P.square(9 - i, rank), P.make_piece(kind, _SIGN[cell[0]]), lineno)


def csa_move_to_usi(position, text):
    """USI of a CSA move (``+0012FU``, ``+3324NG``) played from position; the piece code
    is the one after the move, so a change of code means promotion."""
    m = _MOVE.match(text)
    if not m:
        raise FormatError(f"cannot read CSA move {text[:20]!r}")
    sign, ff, fr, tf, tr, name = m.groups()
    if _SIGN[sign] != position.side_to_move:
        raise FormatError(f"{text}: it is not {'Black' if sign == '+' else 'White'}'s move")
    kind = P.CSA_KIND.get(name)
    if kind is None:
        raise FormatError(f"unknown CSA piece {name!r}")
    to = f"{tf}{'abcdefghi'[int(tr) - 1]}"
    if ff == "0" and fr == "0":
        if kind not in P.HAND_KINDS:
            raise FormatError(f"{text}: {name} cannot be dropped")
        return f"{P.USI_LETTER[kind]}*{to}"
    if ff == "0" or fr == "0":
        raise FormatError(f"{text}: bad source square")
    piece = position.piece_at(P.square(int(ff), int(fr)))
    if not piece or P.piece_colour(piece) != position.side_to_move:
        raise FormatError(f"{text}: no piece of the side to move on {ff}{fr}")
    before = P.piece_kind(piece)
    if kind == before:
        promote = False
    elif P.can_promote(before) and kind == before + P.PROMOTED:
        promote = True
    else:
        raise FormatError(f"{text}: the piece on {ff}{fr} is {P.CSA_NAME[before]}, not {name}")
    return f"{ff}{'abcdefghi'[int(fr) - 1]}{to}" + ("+" if promote else "")


def csa_moves_to_usi(position, moves):
    """(USI list, warning or None) for [(CSA move, line)], played on position (modified)."""
    usi = []
    for n, (text, lineno) in enumerate(moves, 1):
        try:
            move = csa_move_to_usi(position, text)
            position.push_usi(move)
        except (FormatError, ValueError) as e:
            msg = str(e).split(" in ")[0] if isinstance(e, ValueError) else str(e)
            return usi, f"line {lineno}: move {n} ({text}) not played: {msg}; the 作意 is read up to move {len(usi)}"
        usi.append(move)
    return usi, None


# ==================================================================== writing
def write_csa(position, moves=None, title=None):
    """V2.2 record: P1..P9, P+/P- hand lines with 00XX items (a hand line is left out
    when that hand is empty), the side line, then the moves and %TSUMI if given."""
    out = ["V2.2"]
    if title:
        out.append(f"$EVENT:{' '.join(str(title).split())}")
    board = position.board.tolist()
    for rank in range(1, 10):
        row = f"P{rank}"
        for file in range(9, 0, -1):
            p = board[P.square(file, rank)]
            row += " * " if not p else ("+" if P.piece_colour(p) == P.BLACK else "-") + P.CSA_NAME[P.piece_kind(p)]
        out.append(row)
    for colour, sign in ((P.BLACK, "+"), (P.WHITE, "-")):
        hand = position.hand(colour)
        items = "".join(f"00{P.CSA_NAME[k]}" * hand[k] for k in
                        (P.ROOK, P.BISHOP, P.GOLD, P.SILVER, P.KNIGHT, P.LANCE, P.PAWN))
        if items:
            out.append(f"P{sign}{items}")
    out.append("+" if position.side_to_move == P.BLACK else "-")
    if moves is not None:
        from ..move import drop_kind, is_drop, is_promotion, move_from, move_to
        from ..notation import move_to_usi, usi_to_move
        pos = position.copy()
        moves = list(moves)
        for mv in moves:
            move = usi_to_move(mv) if isinstance(mv, str) else int(mv)
            sign = "+" if pos.side_to_move == P.BLACK else "-"
            to = move_to(move)
            dest = f"{P.square_file(to)}{P.square_rank(to)}"
            if is_drop(move):
                out.append(f"{sign}00{dest}{P.CSA_NAME[drop_kind(move)]}")
            else:
                frm = move_from(move)
                kind = P.piece_kind(pos.piece_at(frm))
                if is_promotion(move):
                    kind += P.PROMOTED
                out.append(f"{sign}{P.square_file(frm)}{P.square_rank(frm)}{dest}{P.CSA_NAME[kind]}")
            pos.push_usi(move_to_usi(move))      # legality check, and the next source piece
        out.append("%TSUMI" if len(moves) % 2 else "%CHUDAN")
    return "\n".join(out) + "\n"
