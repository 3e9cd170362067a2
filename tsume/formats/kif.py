"""KIF / BOD board diagrams (柿木 format, SPEC §3.2): reader and writer.

The reader takes a decoded text, splits it into one chunk per board diagram and yields
``Parsed`` records (see formats/common.py). It is lenient about layout (2- or 3-column
cells, rank column present or not, hands before or after the grid, arabic counts) and
strict about content (unknown pieces, bad hand items, a grid that is not 9×9).
Move lines become the 作意; KIF gives the source square, so turning them into USI only
needs the position they are played from.
"""
import re

import numpy as np

from .. import pieces as P
from ..errors import FormatError
from ..move import move_to
from .common import Parsed
from .sfen import STARTPOS, pack_checked, sfen_to_arrays

_BORDER = re.compile(r"^\s*\+-{5,}\+?\s*$")
_FILES_LINE = re.compile(r"^[\s　]*(?:[1-9１-９][\s　]*){5,9}$")
_HEADER = re.compile(r"^([^：:]{1,30}?)[\s　]*[：:](.*)$")
_MOVE_LINE = re.compile(r"^\s*(\d+)[\s　]+(\S.*)$")
# A trailing time such as "( 0:01/00:00:01)" or "(00:00 / 00:00:00)", and a branch mark "+".
_MOVE_TIME = re.compile(r"[\s　]*\(\s*[0-9]+:[0-9:]*\s*(?:/\s*[0-9:]*\s*)?\)[\s　]*\+?[\s　]*$|[\s　]+\+$")
_MOVE = re.compile(
    r"^[▲△☗☖]?[\s　]*"
    r"(?:(同)[\s　]*|([1-9１-９])([一二三四五六七八九1-9１-９]))[\s　]*"
    r"(成銀|成桂|成香|[歩香桂銀金角飛玉王と杏圭全馬龍竜])"
    r"(不成|生|成|打)?[\s　]*(?:\(([0-9])([0-9])\))?(不成|生|成)?")
_TERMINAL = ("詰み", "詰", "投了", "中断", "不詰", "千日手", "持将棋", "切れ負け", "反則",
             "入玉", "不戦", "封じ手", "まで")
_REST_WORDS = ("残り全部", "残りすべて", "残り全て", "残り全駒")
_HAND_KEYS = {"先手の持駒": P.BLACK, "下手の持駒": P.BLACK, "後手の持駒": P.WHITE,
              "上手の持駒": P.WHITE}
_SIDE_LINES = {"先手番": P.BLACK, "下手番": P.BLACK, "後手番": P.WHITE, "上手番": P.WHITE}
_DIGITS = {**{str(i): i for i in range(10)}, **{c: i for i, c in enumerate(P.FULLWIDTH_DIGITS)}}
_KANJI_DIGIT = {c: i for i, c in enumerate(P.KANJI_NUMERALS) if i}
_HAND_ORDER = (P.ROOK, P.BISHOP, P.GOLD, P.SILVER, P.KNIGHT, P.LANCE, P.PAWN)
_RANK_KANJI = "一二三四五六七八九"


# ==================================================================== reading
def parse_kif(text):
    """Yield one Parsed per board diagram (or one for a diagram-less 平手 record)."""
    lines = [ln.rstrip("\r\n").lstrip("\ufeff") for ln in text.splitlines()]
    for start, end in _chunks(lines):
        try:
            yield _parse_chunk(lines, start, end)
        except FormatError as e:
            yield Parsed(f":{start + 1}", error=f"line {e.line or start + 1}: {e}")


def _chunks(lines):
    """(start, end) line ranges, one per diagram. A diagram's own preamble (file-number
    line, 後手の持駒 line, title headers) goes with it rather than the previous one."""
    tops, in_grid = [], False
    for i, ln in enumerate(lines):
        if _BORDER.match(ln):
            if not in_grid:
                tops.append(i)
            in_grid = not in_grid
        elif in_grid and not ln.lstrip().startswith("|"):
            in_grid = False          # malformed grid: let the chunk parser report it
    starts = [0]
    for prev, top in zip(tops, tops[1:]):
        s = top
        while s - 1 > prev and _is_preamble(lines[s - 1]):
            s -= 1
        starts.append(s)
    ends = starts[1:] + [len(lines)]
    # Start each chunk at its first non-blank line: that is the line a source names.
    return [(next((i for i in range(a, b) if lines[i].strip()), a), b) for a, b in zip(starts, ends)]


def _is_preamble(line):
    s = line.strip()
    if not s or s.startswith("#") or _FILES_LINE.match(line):
        return True
    m = _HEADER.match(s)
    return bool(m) and not _MOVE_LINE.match(s) and m.group(1).replace("持ち駒", "持駒") not in (
        "先手の持駒", "下手の持駒", "先手", "後手", "下手", "上手", "手番")


def _parse_chunk(lines, start, end):
    header, comments, moves = {}, [], []
    hands = {}               # colour -> {kind: n} or "rest"
    side = None
    grid, grid_state = [], "before"   # before | in | done
    warnings = []
    moves_done = False
    for i in range(start, end):
        raw = lines[i]
        s = raw.strip()
        lineno = i + 1
        if grid_state == "in":
            if _BORDER.match(raw):
                grid_state = "done"
                if len(grid) != 9:
                    raise FormatError(f"the board diagram has {len(grid)} ranks, not 9", lineno)
            elif s.startswith("|"):
                if len(grid) == 9:
                    raise FormatError("the board diagram has more than 9 ranks", lineno)
                grid.append(_parse_rank(s, len(grid) + 1, lineno))
            else:
                raise FormatError(f"unexpected line inside the board diagram: {s[:30]!r}", lineno)
            continue
        if not s or s.startswith("#"):
            continue
        if _BORDER.match(raw):
            if grid_state == "done":
                raise FormatError("a second board diagram in the same problem", lineno)
            grid_state = "in"
            continue
        if s.startswith("*"):
            comments.append(s[1:].strip())
            continue
        if s.startswith("&") or _FILES_LINE.match(raw) or re.match(r"^手数-+指手", s):
            continue
        if s in _SIDE_LINES:
            side = _SIDE_LINES[s]
            continue
        m = _MOVE_LINE.match(s)
        if m:
            if not moves_done:
                if len(m.group(1)) > 9:     # int() refuses thousands of digits
                    raise FormatError(f"move number {m.group(1)[:12]}… is too long", lineno)
                moves.append((int(m.group(1)), _MOVE_TIME.sub("", m.group(2)).strip(), lineno))
            continue
        if s.startswith("変化"):
            moves_done = True          # variations are not read; the main line is the 作意
            continue
        if s.startswith("まで"):
            moves_done = True
            continue
        m = _HEADER.match(s)
        if m:
            key, value = m.group(1).strip().replace("持ち駒", "持駒"), m.group(2).strip()
            if key in _HAND_KEYS:
                colour = _HAND_KEYS[key]
                if colour in hands:
                    raise FormatError(f"a second {key} line", lineno)
                hands[colour] = parse_hand(value, key, lineno)
            elif key == "手番":
                if value.startswith(("後手", "上手")):
                    side = P.WHITE
                elif value.startswith(("先手", "下手")):
                    side = P.BLACK
                else:
                    raise FormatError(f"unknown 手番 {value[:20]!r}", lineno)
            header[key] = value
            continue
        warnings.append(f"line {lineno}: ignored unrecognised line {s[:30]!r}")

    if grid_state == "in":
        raise FormatError("the board diagram is not closed by a +----+ border", end)
    metadata = {"header": header, "title": header.get("作品名") or header.get("表題"),
                "author": header.get("作者")}
    if comments:
        metadata["comments"] = comments
    if grid_state == "done":
        board = np.array([p for rank in _files_first(grid) for p in rank], dtype=np.int8)
    elif header.get("手合割", "").strip() == "平手":
        board = sfen_to_arrays(STARTPOS)[0]
    else:
        raise FormatError("no board diagram found"
                          + (f" (手合割 {header['手合割'][:10]!r} needs one)" if "手合割" in header else ""),
                          start + 1)
    if side is None:
        # No side line: a first move marked △ means White is to move.
        side = P.WHITE if moves and moves[0][1].startswith(("△", "☖")) else P.BLACK
    counts = [hands.get(c) if isinstance(hands.get(c), dict) else {} for c in (P.BLACK, P.WHITE)]
    packed = np.array([pack_checked(_full(counts[0])), pack_checked(_full(counts[1]))], dtype=np.int64)
    arrays = (board, packed, side)
    rest = tuple(c for c in (P.BLACK, P.WHITE) if hands.get(c) == "rest")
    solution = (lambda position: kif_moves_to_usi(position, moves)) if moves else None
    return Parsed(f":{start + 1}", arrays, metadata, rest_colours=rest, solution=solution,
                  warnings=warnings)


def _full(counts):
    return {k: counts.get(k, 0) for k in P.HAND_KINDS}


def _files_first(grid):
    """Diagram ranks (file 9 first) -> board order (square = (file-1)*9 + rank-1)."""
    return [[grid[r][9 - f] for r in range(9)] for f in range(1, 10)]


def _parse_rank(line, rank, lineno):
    """Nine piece codes (file 9 first) of a grid row ``| ・ ・v玉 …|一``. Cells are found
    by their piece characters, so 2- and 3-column cell layouts both work."""
    body = line[1:]
    bar = body.rfind("|")
    if bar < 0:
        raise FormatError(f"rank {rank} of the diagram lacks its closing '|'", lineno)
    body = body[:bar]
    cells, white, i = [], False, 0
    while i < len(body):
        ch = body[i]
        i += 1
        if ch in " \u3000\t":
            continue
        if ch in "vV":
            white = True
            continue
        if ch in "^+":           # some writers mark Black explicitly
            continue
        if ch == "・":
            cells.append(0)
        else:
            name = ch
            if ch == "成" and i < len(body) and body[i] in "銀桂香":
                name += body[i]
                i += 1
            kind = P.KANJI_KIND.get(name)
            if kind is None:
                raise FormatError(f"unknown piece {name!r} in rank {rank} of the diagram", lineno)
            cells.append(P.make_piece(kind, P.WHITE if white else P.BLACK))
        white = False
    if len(cells) != 9:
        raise FormatError(f"rank {rank} of the diagram has {len(cells)} squares, not 9", lineno)
    return cells


def parse_hand(value, key="持駒", lineno=None):
    """{kind: n} from a hand line value (``飛　角二　歩十七``, ``金2　銀``), or "rest"
    for 残り全部 and friends. FormatError names the item that does not parse."""
    value = value.strip(" \u3000\t")
    if value in ("", "なし", "無し"):
        return {}
    if value in _REST_WORDS:
        return "rest"
    counts = {}
    for item in re.split(r"[\s\u3000、,，]+", value):
        if not item:
            continue
        kind = P.KANJI_KIND.get(item[0])
        if kind is None or kind not in P.HAND_KINDS:
            raise FormatError(f"bad item {item[:10]!r} in the {key} line", lineno)
        n = _count(item[1:])
        if n is None:
            raise FormatError(f"bad count in {item[:10]!r} in the {key} line", lineno)
        counts[kind] = counts.get(kind, 0) + n
        if counts[kind] > P.TOTAL[kind]:
            raise FormatError(f"{counts[kind]} {P.BOARD_KANJI[kind]} in the {key} line: "
                              f"at most {P.TOTAL[kind]} exist", lineno)
    return counts


def _count(text):
    """1 for '', kanji numerals 一…九 十 十一…十八, or arabic digits; None if not a count."""
    if not text:
        return 1
    if all(c in _DIGITS for c in text) and len(text) <= 2:
        n = 0
        for c in text:
            n = n * 10 + _DIGITS[c]
        return n if n > 0 else None
    if text[0] == "十":
        if len(text) == 1:
            return 10
        return 10 + _KANJI_DIGIT[text[1]] if len(text) == 2 and text[1] in _KANJI_DIGIT else None
    return _KANJI_DIGIT[text] if len(text) == 1 and text in _KANJI_DIGIT else None


# -------------------------------------------------------------------- move text
def kif_move_to_usi(position, text, previous_to):
    """USI of one KIF move text (``２四銀成(33)``, ``同　玉(11)``, ``１三香打``) played
    from position. Checks that the named piece stands on the source square; legality is
    left to the caller. Returns None for a terminal word (詰み, 投了, ...)."""
    body = text.lstrip("▲△☗☖ \u3000")
    if body.startswith(_TERMINAL):
        return None
    m = _MOVE.match(body)
    if not m:
        raise FormatError(f"cannot read move '{text[:20]}'")
    same, file_ch, rank_ch, name, modifier, src_f, src_r, post = m.groups()
    if same:
        if previous_to is None:
            raise FormatError(f"'同' in the first move '{text[:20]}'")
        to = previous_to
    else:
        rank = _DIGITS.get(rank_ch) or _RANK_KANJI.index(rank_ch) + 1
        to = P.square(_DIGITS[file_ch], rank)
    kind = P.KANJI_KIND[name]
    usi_to = f"{P.square_file(to)}{'abcdefghi'[P.square_rank(to) - 1]}"
    if modifier == "打" or src_f is None or (src_f, src_r) == ("0", "0"):
        if kind not in P.HAND_KINDS:
            raise FormatError(f"cannot drop {name} in '{text[:20]}'")
        return f"{P.USI_LETTER[kind]}*{usi_to}"
    if src_f == "0" or src_r == "0":
        raise FormatError(f"bad source square in '{text[:20]}'")
    frm = P.square(int(src_f), int(src_r))
    piece = position.piece_at(frm)
    if (not piece or P.piece_colour(piece) != position.side_to_move
            or P.piece_kind(piece) != kind):
        raise FormatError(f"'{text[:20]}': no {name} of the side to move on {src_f}{src_r}")
    promote = "成" in (modifier, post)
    return f"{src_f}{'abcdefghi'[int(src_r) - 1]}{usi_to}" + ("+" if promote else "")


def kif_moves_to_usi(position, moves):
    """(USI list, warning or None) for the KIF move lines [(number, text, line)], played
    on position (modified). Reading stops at a terminal word; a move that cannot be read
    or is illegal stops it too, with a warning."""
    usi, previous_to = [], None
    for number, text, lineno in moves:
        try:
            move = kif_move_to_usi(position, text, previous_to)
            if move is None:
                break
            previous_to = move_to(position.push_usi(move))
        except (FormatError, ValueError) as e:
            msg = str(e).split(" in ")[0] if isinstance(e, ValueError) else str(e)
            return usi, (f"line {lineno}: move {number} ({text[:20]}) not played: {msg}; "
                         f"the 作意 is read up to move {len(usi)}")
        usi.append(move)
    return usi, None


# ==================================================================== writing
def hand_kanji(counts):
    """``飛　角二　歩十七`` or ``なし`` (Kakinoki order: 飛 角 金 銀 桂 香 歩)."""
    items = []
    for k in _HAND_ORDER:
        n = counts.get(k, 0)
        if n:
            items.append(P.BOARD_KANJI[k] + (_kanji_count(n) if n > 1 else ""))
    return "　".join(items) or "なし"


def _kanji_count(n):
    if n < 10:
        return P.KANJI_NUMERALS[n]
    return "十" + (P.KANJI_NUMERALS[n - 10] if n > 10 else "")


def write_kif(position, moves=None, title=None):
    """The KIF/BOD diagram of SPEC §3.2 (both hands explicit) and, when ``moves`` (USI or
    int) is given, the KIF move list of SPEC §4.3. An empty defender hand is written
    ``なし``, which ``auto`` reads back as "the rest": re-read with ``literal`` when
    pieces were meant to stay in the box."""
    out = ["# ---- tsume ----"]
    if title:
        out.append(f"作品名：{' '.join(str(title).split())}")
    out.append("後手の持駒：" + hand_kanji(position.hand(P.WHITE)))
    out.append("  ９ ８ ７ ６ ５ ４ ３ ２ １")
    out.append("+---------------------------+")
    board = position.board.tolist()
    for rank in range(1, 10):
        row = ""
        for file in range(9, 0, -1):
            p = board[P.square(file, rank)]
            if not p:
                row += " ・"
            else:
                row += ("v" if P.piece_colour(p) == P.WHITE else " ") + P.BOARD_KANJI[P.piece_kind(p)]
        out.append(f"|{row}|{_RANK_KANJI[rank - 1]}")
    out.append("+---------------------------+")
    out.append("先手の持駒：" + hand_kanji(position.hand(P.BLACK)))
    if position.side_to_move == P.WHITE:
        out.append("後手番")
    text = "\n".join(out) + "\n"
    if moves is not None:
        from ..notation import kif_move_list
        moves = list(moves)
        text += "先手：\n後手：\n"
        text += kif_move_list(position, moves, terminator="詰み" if len(moves) % 2 else "中断")
    return text
