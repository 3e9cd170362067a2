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
    events = []              # the move section in order: moves (of every line), comments, まで
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
            # Before the first move: the problem's comments; after: a move's (the tree's).
            (events.append(("comment", s[1:].strip(), lineno)) if events
             else comments.append(s[1:].strip()))
            continue
        if s.startswith("&") or _FILES_LINE.match(raw) or re.match(r"^手数-+指手", s):
            continue
        if s in _SIDE_LINES:
            side = _SIDE_LINES[s]
            continue
        m = _MOVE_LINE.match(s)
        if m:
            if len(m.group(1)) > 9:     # int() refuses thousands of digits
                raise FormatError(f"move number {m.group(1)[:12]}… is too long", lineno)
            entry = (int(m.group(1)), _MOVE_TIME.sub("", m.group(2)).strip(), lineno)
            if not moves_done:
                moves.append(entry)
            events.append(("move",) + entry)
            continue
        if s.startswith("変化"):
            moves_done = True          # the main line is the 作意; variations go to the tree
            events.append(("branch", s, lineno))
            continue
        if s.startswith("まで"):
            moves_done = True
            if events:
                events.append(("result", s, lineno))
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
    tree = (lambda position: read_tree(position, events)) if moves else None
    return Parsed(f":{start + 1}", arrays, metadata, rest_colours=rest, solution=solution,
                  tree=tree, warnings=warnings)


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


# -------------------------------------------------------------------- 変化 (the tree)
# Comment tags of a solution tree (``*【…】`` after a move): the writer puts them, the
# reader takes the tree's marks back from them (tree.py's shape).
KIND_TAGS = {"equal": "変同", "longer": "変長", "komaamari": "駒余り", "mudaai": "無駄合"}
END_TAGS = {"mudaai": "以下無駄合", "budget": "未解析"}
CUT_TAGS = {"depth": "変化省略：深さ", "size": "変化省略：手数", "budget": "変化省略：予算"}
_TAG = re.compile(r"^【([^】]{1,20})】")
_TAG_MEANING = {**{tag: ("kind", k) for k, tag in KIND_TAGS.items()},
                **{tag: ("end", k) for k, tag in END_TAGS.items()},
                **{tag: ("cut", k) for k, tag in CUT_TAGS.items()}}


def read_tree(position, events):
    """(tree, warning or None): the move section as a solution tree (tree.py's shape:
    lines with ply, moves, length, kind, end, cut, variations). A 変化 goes where the
    KIF readers of 柿木将棋 and ShogiHome put it: a move numbered n follows the (n-1)th
    move of the line read last, so a 変化：n手 block branches off the most recently
    read line that reaches ply n-1. The marks come from the tags our writer puts in
    comments; a 変化 without one is "shorter", "equal" or "longer" by its length
    against the line's own move at that ply; a line ends "mate" at 詰み (or a まで…詰み
    trailer), else as its tag says, else None. Reading stops at the first move that
    cannot be read or played, with a warning."""
    tree, path, positions = None, [], [position.copy()]
    last = None                 # the line whose terminal word was read last
    branched = False            # past the first 変化 line (before it, the 作意's reader
                                # has already warned about a move that cannot be read)
    ended = set()               # (ids of) lines a terminal word ended: a move after their
                                # last one is a 変化 at their end, not their next move
    warning = None
    for event in events:
        if event[0] == "comment":
            _apply_tag(event[1], path, last)
            continue
        if event[0] == "branch":
            branched = True
            continue
        if event[0] == "result":
            if last is None and path and _is_last(path[-1]) and "詰" in event[1]:
                path[-1][0]["end"] = path[-1][0]["end"] or "mate"
            continue
        _, number, text, lineno = event
        if not 1 <= number <= len(path) + 1:
            warning = (f"line {lineno}: move {number} does not follow the line before it; "
                       f"the variations are read up to there")
            break
        del path[number - 1:]
        del positions[number:]
        try:
            usi = kif_move_to_usi(positions[-1], text,
                                  move_to(path[-1][2]) if path else None)
            if usi is None:          # a terminal word ends the line of the move before it
                last = path[-1][0] if path and _is_last(path[-1]) else None
                if last is not None:
                    ended.add(id(last))
                if last is not None and last["end"] is None and text.lstrip("▲△ 　").startswith("詰"):
                    last["end"] = "mate"
                continue
            cur = positions[-1].copy()
            move = cur.push_usi(usi)
        except (FormatError, ValueError) as e:
            msg = str(e).split(" in ")[0] if isinstance(e, ValueError) else str(e)
            warning = (f"line {lineno}: move {number} ({text[:20]}) not played: {msg}; "
                       f"the variations are read up to there") if branched else None
            break
        last = None
        if tree is None:
            tree = _new_line(1, usi)
            line, index = tree, 0
        else:
            line, index = _place(tree, path[-1] if path else (None, -1, 0), number, usi, ended)
        path.append((line, index, move))
        positions.append(cur)
    if tree is not None:
        _finish_tree(tree)
    return tree, warning


def _new_line(ply, usi):
    return {"ply": ply, "moves": [usi], "length": None, "kind": None, "end": None,
            "cut": [], "variations": []}


def _is_last(step):
    line, index, _ = step
    return index == len(line["moves"]) - 1


def _place(tree, step, ply, usi, ended):
    """(line, index) of move `usi` at `ply` after `step` (line, index, move) of the path:
    the line's own next move, a 変化 of it at that ply with that first move, or new."""
    line, index, _ = step
    if line is None:
        line = tree
    if index + 1 == len(line["moves"]):
        if id(line) not in ended:
            line["moves"].append(usi)
            return line, index + 1
    elif line["moves"][index + 1] == usi:
        return line, index + 1
    for variation in line["variations"]:
        if variation["ply"] == ply and variation["moves"][0] == usi:
            return variation, 0
    variation = _new_line(ply, usi)
    line["variations"].append(variation)
    return variation, 0


def _apply_tag(text, path, last):
    m = _TAG.match(text)
    meaning = _TAG_MEANING.get(m.group(1)) if m else None
    if meaning is None or not path:
        return
    line, index, _ = path[-1]
    what, value = meaning
    if what == "kind" and index == 0 and line["ply"] > 1:
        line["kind"] = value
    elif what == "end" and (last is line or _is_last(path[-1])):
        line["end"] = value
    elif what == "cut":
        line["cut"].append({"ply": line["ply"] + index + 1, "why": value})


def _finish_tree(tree):
    """Lengths, kinds by length where no tag said, variations in ply order."""
    tree["kind"] = "main"
    todo = [tree]
    while todo:
        line = todo.pop()
        line["length"] = None if line["end"] == "budget" else len(line["moves"])
        line["variations"].sort(key=lambda v: v["ply"])
        for variation in line["variations"]:
            if variation["kind"] is None and variation["end"] != "budget":
                own = len(line["moves"]) - (variation["ply"] - line["ply"])
                size = len(variation["moves"])
                variation["kind"] = ("equal" if size == own else
                                     "shorter" if size < own else "longer")
            todo.append(variation)


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


def write_kif(position, moves=None, title=None, tree=None):
    """The KIF/BOD diagram of SPEC §3.2 (both hands explicit) and, when ``moves`` (USI or
    int) is given, the KIF move list of SPEC §4.3, or with ``tree`` (tree.py's shape)
    the main line and its 変化 (kif_tree_moves). An empty defender hand is written
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
    if tree is not None:
        text += "先手：\n後手：\n" + kif_tree_moves(position, tree)
    elif moves is not None:
        from ..notation import kif_move_list
        moves = list(moves)
        text += "先手：\n後手：\n"
        # 詰み only on a checkmate (a line shortened by the 無駄合 rule stops before it).
        text += kif_move_list(position, moves, terminator="詰み" if _ends_in_mate(position, moves)
                              else "中断")
    return text


def _ends_in_mate(position, moves):
    from ..notation import usi_to_move
    pos = position.copy()
    for move in moves:
        pos.push(usi_to_move(move) if isinstance(move, str) else int(move))
    return pos.is_mate()


def kif_tree_moves(position, tree):
    """The KIF move section of a solution tree (tree.py's shape): the main line, ended
    by 詰み only on a checkmate (else 中断, after a comment saying why), then every 変化
    as a ``変化：N手`` block. The blocks come in the order the KIF readers of 柿木将棋
    and ShogiHome expect: a line's 変化 from its last ply to its first, each followed at
    once by its own. The marks of the tree are comments tagged ``【…】`` (KIND_TAGS,
    END_TAGS, CUT_TAGS), which read_tree takes back.

    Every move line of a 変化 block ends with KIF's branch mark ``+``, and the main line
    carries none: readers that know 変化 accept the mark at the end of any move line,
    and one that does not (python-shogi's) then reads the main line alone instead of
    running the variations on after it."""
    from ..notation import KIF_HEADER, MARKS, kif_line, move_to_kif, square_to_japanese, usi_to_move
    out = [KIF_HEADER]
    stack = [(tree, position.copy(), None)]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out += ["", item]
            continue
        line, cur, prev = item
        cur = cur.copy()            # (the 変化 at one ply share their start)
        branch = line is not tree
        mark = "+" if branch else ""
        cut_after = {c["ply"] - 1: c["why"] for c in line["cut"]}
        before = {}
        for i, usi in enumerate(line["moves"]):
            ply = line["ply"] + i
            before[ply] = (cur.copy(), prev)
            move = usi_to_move(usi)
            out.append(kif_line(ply, move_to_kif(cur, move, prev), mark))
            if i == 0 and branch and line["kind"] in KIND_TAGS:
                out.append(f"*【{KIND_TAGS[line['kind']]}】{_KIND_NOTES[line['kind']]}")
            if ply in cut_after:
                out.append(f"*【{CUT_TAGS[cut_after[ply]]}】{_CUT_NOTES[cut_after[ply]]}")
            cur.push_usi(usi)
            prev = move_to(move)
        end, n = line["end"], line["ply"] + len(line["moves"]) - 1
        before[n + 1] = (cur.copy(), prev)     # (the replies a 以下無駄合 end leaves)
        if end == "mudaai":
            out.append(f"*【{END_TAGS['mudaai']}】" + _mudaai_note(cur, MARKS, square_to_japanese))
        elif end == "budget":
            out.append(f"*【{END_TAGS['budget']}】この応手への詰め手順は予算内に求められなかった")
        word = "詰み" if end == "mate" else "中断"
        out.append(kif_line(n + 1, word, mark))
        if not branch:
            out.append(f"まで{n}手で{word}")
        order = sorted(line["variations"], key=lambda v: -v["ply"])     # (stable within a ply)
        for variation in reversed(order):
            stack.append((variation, *before[variation["ply"]]))
            stack.append(f"変化：{variation['ply']}手")
    return "\n".join(out) + "\n"


_KIND_NOTES = {
    "equal": "この応手も同じ手数で詰む（変化同手数）",
    "longer": "この応手のほうが長く逃れる：本線の応手は最長の抵抗でない",
    "komaamari": "同じ手数で詰むが攻方に駒が余るので、玉方はこれを選ばない",
    "mudaai": "この合駒は無駄合（取って詰む）：手数に数えない",
}
_CUT_NOTES = {
    "depth": "ここでの他の応手は --tree-depth により省略",
    "size": "ここでの他の応手は解図の大きさの上限により省略",
    "budget": "ここでの他の応手は予算切れで省略",
}


def _mudaai_note(pos, marks, square_to_japanese):
    """What the 無駄合 rule did at a line's end: the defender's replies there (all of
    them interpositions) and why they are not played."""
    from ..notation import usi_to_square
    squares = sorted({usi_to_square(usi[2:4]) for usi in pos.legal_moves()},
                     key=lambda sq: (-P.square_file(sq), P.square_rank(sq)))
    where = "・".join(square_to_japanese(sq) for sq in squares)
    return (f"{marks[pos.side_to_move]}{where}への合駒はどれも取られて詰む無駄合なので、"
            "手数に数えずここで終わりとする（玉はまだ詰んでいない）")
