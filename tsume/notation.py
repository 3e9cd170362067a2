"""Move text: USI strings <-> integer moves (encoded as move.py says), Japanese (KI2-style,
SPEC §4.1) and KIF (SPEC §4.3) move text. The Japanese/KIF part is output code: plain
Python, not numba."""
import unicodedata as _ud
from functools import lru_cache

from . import pieces as P
from .move import drop_kind, is_drop, is_promotion, make_drop, make_move, move_from, move_to


def square_to_usi(sq):
    return f"{P.square_file(sq)}{'abcdefghi'[P.square_rank(sq) - 1]}"


def usi_to_square(text):
    if len(text) != 2 or text[0] not in "123456789" or text[1] not in "abcdefghi":
        raise ValueError(f"bad USI square {text!r}")
    return P.square(int(text[0]), "abcdefghi".index(text[1]) + 1)


@lru_cache(maxsize=None)      # a few thousand distinct moves, converted very often
def move_to_usi(move):
    """USI text of an integer move."""
    to = square_to_usi(move_to(move))
    if is_drop(move):
        return f"{P.USI_LETTER[drop_kind(move)]}*{to}"
    return square_to_usi(move_from(move)) + to + ("+" if is_promotion(move) else "")


@lru_cache(maxsize=None)
def usi_to_move(text):
    """Integer move from USI text (syntax only; legality is the caller's business)."""
    if len(text) == 4 and text[1] == "*":
        kind = P.LETTER_KIND.get(text[0])
        if kind is None or kind == P.KING:
            raise ValueError(f"bad USI drop {text!r}")
        return make_drop(kind, usi_to_square(text[2:]))
    if len(text) in (4, 5) and (len(text) == 4 or text[4] == "+"):
        return make_move(usi_to_square(text[0:2]), usi_to_square(text[2:4]), len(text) == 5)
    raise ValueError(f"bad USI move {text!r}")


# ==================================================================== Japanese move text

MARKS = ("▲", "△")
KIF_TIME = "( 0:00/00:00:00)"
KIF_HEADER = "手数----指手---------消費時間--"
KIF_MOVE_WIDTH = 13     # display width of the move column in Kakinoki's layout (SPEC §3.2)

# Pieces that may take 直 (SPEC §4.1 rule 2): silver and the gold-movers.
_STRAIGHT_KINDS = frozenset((P.SILVER, P.GOLD, P.PRO_PAWN, P.PRO_LANCE, P.PRO_KNIGHT,
                             P.PRO_SILVER))
_COMPARE_KINDS = frozenset((P.HORSE, P.DRAGON))   # 龍/馬: right/left among the candidates


def _as_move(move):
    return usi_to_move(move) if isinstance(move, str) else int(move)


def square_to_japanese(sq):
    """``２四`` for file 2 rank 4."""
    return P.FULLWIDTH_DIGITS[P.square_file(sq)] + P.KANJI_NUMERALS[P.square_rank(sq)]


def _in_zone(sq, colour):
    return P.relative_rank(sq, colour) <= 3


def could_promote(piece, frm, to):
    """May ``piece`` promote on the board move frm -> to (SPEC §1.3)?"""
    kind, colour = P.piece_kind(piece), P.piece_colour(piece)
    return P.can_promote(kind) and (_in_zone(frm, colour) or _in_zone(to, colour))


def _view(sq, colour):
    """(file, rank) from the mover's viewpoint (White: board rotated 180°)."""
    f, r = P.square_file(sq), P.square_rank(sq)
    return (f, r) if colour == P.BLACK else (10 - f, 10 - r)


def disambiguation(kind, colour, frm, to, candidates):
    """Relative/motion words (SPEC §4.1 rules 1-3) for the piece on ``frm`` among the
    ``candidates`` (source squares of the mover's pieces of the same kind that can legally
    reach ``to``; ``frm`` included). '' when the move is the only one."""
    cands = sorted(set(candidates) | {frm})
    if len(cands) < 2:
        return ""
    tf, tr = _view(to, colour)

    def motion(sq):
        r = _view(sq, colour)[1]
        return "上" if r > tr else ("引" if r < tr else "寄")

    if kind in _COMPARE_KINDS:
        files = [_view(c, colour)[0] for c in cands]
        lo, hi = min(files), max(files)

        def relative(sq):
            f = _view(sq, colour)[0]
            if lo == hi:
                return ""
            return "右" if f == lo else ("左" if f == hi else "")
    else:
        def relative(sq):
            f, r = _view(sq, colour)
            if f > tf:
                return "左"
            if f < tf:
                return "右"
            return "直" if (r > tr and kind in _STRAIGHT_KINDS) else ""

    mot = motion(frm)
    if sum(motion(c) == mot for c in cands) == 1:            # rule 1
        return mot
    rel = relative(frm)
    if rel and sum(relative(c) == rel for c in cands) == 1:  # rule 2
        return rel
    return rel + mot                                         # rule 3


def _japanese_body(position, move, legal):
    """Move text without side mark and destination: piece + words + 成/不成/打. `legal`:
    the legal moves, or only those onto the move's destination (all it reads)."""
    to = move_to(move)
    rivals = [m for m in legal if move_to(m) == to]
    return _body(move, position.side_to_move, rivals,
                 [0 if is_drop(m) else position.piece_at(move_from(m)) for m in rivals])


def _body(move, colour, rivals, pieces):
    """_japanese_body from the legal moves onto the move's destination (`rivals`, the
    move among them) and the piece each moves (0: a drop)."""
    # board moves of the side to move onto the same square, by the moving piece's kind
    others = {}
    for m, piece in zip(rivals, pieces):
        if piece:
            others.setdefault(P.piece_kind(piece), set()).add(move_from(m))
    if is_drop(move):
        kind = drop_kind(move)
        return P.MOVE_KANJI[kind] + ("打" if kind in others else "")
    frm = move_from(move)
    piece = pieces[rivals.index(move)]
    kind = P.piece_kind(piece)
    text = P.MOVE_KANJI[kind] + disambiguation(kind, colour, frm, move_to(move),
                                               others.get(kind, ()))
    if is_promotion(move):
        return text + "成"
    if could_promote(piece, frm, move_to(move)):
        return text + "不成"
    return text


def _legal_checked(position, move):
    """The legal moves onto the destination of `move` (see _japanese_body); ValueError
    if `move` is not one of them."""
    from . import movegen
    legal = movegen.legal_moves_to(position, move_to(move))
    if move not in legal:
        raise ValueError(f"illegal move {move_to_usi(move)} in {position.sfen()}")
    return legal


def move_to_japanese(position, move, previous_to=None, marks=MARKS):
    """KI2-style text (SPEC §4.1) of a legal ``move`` (USI or int) played from ``position``
    (the position before the move), e.g. ``▲５八金左``, ``△同玉``, ``▲５六金打``.

    ``previous_to``: square index of the previous move's destination (-> ``同``).
    ``marks``: (Black, White) side marks, e.g. ``("☗", "☖")`` or ``("", "")``.
    Raises ValueError if the move is not legal."""
    move = _as_move(move)
    legal = _legal_checked(position, move)
    return _japanese_text(position, move, legal, previous_to, marks)


def _japanese_text(position, move, legal, previous_to, marks):
    to = move_to(move)
    dest = "同" if previous_to is not None and previous_to == to else square_to_japanese(to)
    return marks[position.side_to_move] + dest + _japanese_body(position, move, legal)


def line_to_japanese(position, moves, separator="　", marks=MARKS):
    """A whole line (``▲１二歩　△同玉　▲１三香``). ValueError names the first illegal
    move. (Each move's rivals come from one compiled call for the line: a batch writes
    this for every problem.)"""
    from . import movegen
    ints = [_as_move(mv) for mv in moves]
    rivals, pieces, bad = movegen.line_rivals_of(position, ints)
    if bad < len(ints):
        pos = position.copy()
        for mv in ints[:bad]:
            pos.push(mv)
        _legal_checked(pos, ints[bad])          # (raises, naming it)
    colour = position.side_to_move
    out, prev = [], None
    for i, mv in enumerate(ints):
        to = move_to(mv)
        dest = "同" if prev is not None and prev == to else square_to_japanese(to)
        side = colour ^ (i & 1)
        out.append(marks[side] + dest + _body(mv, side, rivals[i], pieces[i]))
        prev = to
    return separator.join(out)


_SIDE_MARKS = ("▲☗", "△☖▽")
_READ_REPLACE = (("王", "玉"), ("竜", "龍"), ("全", "成銀"), ("圭", "成桂"), ("杏", "成香"),
                 ("生", "不成"))


def _normalise_japanese(text):
    text = "".join(text.split())          # spaces (also full-width) carry no meaning
    for a, b in _READ_REPLACE:
        text = text.replace(a, b)
    return text.translate(str.maketrans("123456789", P.FULLWIDTH_DIGITS[1:]))


def parse_japanese_move(position, text, previous_to=None):
    """Integer move for KI2-style text (``▲５八金左``, ``同玉``, ``△２二銀不成`` …) in
    ``position``; the inverse of move_to_japanese. The side mark is optional (if present
    it must be the mover's). Also accepted: 王 竜 全 圭 杏 for 玉 龍 成銀 成桂 成香, 生 for
    不成, half-width file digits, ``同　`` with a space, the destination written out
    although it equals ``previous_to``, a superfluous 打 and a missing 不成 — as long as
    exactly one legal move fits. Relative/motion words must be the ones SPEC §4.1 gives.
    Raises ValueError otherwise."""
    from . import movegen
    text = text.strip()
    colour = position.side_to_move
    if text and text[0] in "".join(_SIDE_MARKS):
        if text[0] not in _SIDE_MARKS[colour]:
            raise ValueError(f"{text!r}: side mark of the side not to move")
        text = text[1:]
    want = _normalise_japanese(text)
    if want.startswith("同") and previous_to is None:
        raise ValueError(f"{text!r}: 同 without a previous move")
    if want.startswith("同"):
        to = previous_to
    elif (len(want) >= 2 and want[0] in P.FULLWIDTH_DIGITS[1:]
          and want[1] in P.KANJI_NUMERALS[1:]):
        to = P.square(P.FULLWIDTH_DIGITS.index(want[0]), P.KANJI_NUMERALS.index(want[1]))
    else:
        raise ValueError(f"{text!r}: no destination square")
    legal = movegen.legal_moves_of(position)
    texts = []
    for m in legal:
        if move_to(m) != to:
            continue
        t = _japanese_text(position, m, legal, previous_to, ("", ""))
        texts.append((m, t))
        if t.startswith("同"):            # the square written out instead of 同
            texts.append((m, square_to_japanese(move_to(m)) + t[1:]))
    fits = {m for m, t in texts if t == want}
    if not fits:
        def loose(t):
            return t.replace("打", "").replace("不成", "")
        fits = {m for m, t in texts if loose(t) == loose(want)
                and (is_drop(m) or "打" not in want) and ("不成" in t or "不成" not in want)}
    if len(fits) == 1:
        return fits.pop()
    if not fits:
        raise ValueError(f"{text!r}: no legal move fits in {position.sfen()}")
    raise ValueError(f"{text!r}: ambiguous ({', '.join(sorted(move_to_usi(m) for m in fits))})")


# ==================================================================== KIF move text
def move_to_kif(position, move, previous_to=None):
    """KIF move text (SPEC §4.3): ``２四銀成(33)``, ``同　玉(11)``, ``１三香打``.
    Drops always carry 打, board moves always their source; no 右/左/上…
    The move is not checked for legality (only the piece on its source is needed)."""
    move = _as_move(move)
    to = move_to(move)
    dest = "同　" if previous_to is not None and previous_to == to else square_to_japanese(to)
    if is_drop(move):
        return dest + P.MOVE_KANJI[drop_kind(move)] + "打"
    frm = move_from(move)
    piece = position.piece_at(frm)
    if not piece or P.piece_colour(piece) != position.side_to_move:
        raise ValueError(f"no piece of the side to move on {square_to_usi(frm)}")
    text = dest + P.MOVE_KANJI[P.piece_kind(piece)]
    if is_promotion(move):
        text += "成"
    elif could_promote(piece, frm, to):
        text += "不成"
    return text + f"({P.square_file(frm)}{P.square_rank(frm)})"


def display_width(text):
    """Columns on a fixed-width terminal: full-width/wide characters count 2."""
    return sum(2 if _ud.east_asian_width(ch) in "FW" else 1 for ch in text)


def kif_line(number, text, mark=""):
    """One numbered line of a KIF move list (Kakinoki layout), ``mark`` after the time
    (KIF's branch mark ``+``)."""
    pad = max(1, KIF_MOVE_WIDTH - display_width(text))
    return f"{number:>4} {text}{' ' * pad}{KIF_TIME}{mark}"


def kif_move_list(position, moves, header=True, terminator="詰み"):
    """Numbered KIF move list of SPEC §3.2/§4.3 (Kakinoki layout), one line per ply, then
    ``terminator`` as the next numbered line and ``まで<n>手で<terminator>``; the text ends
    with a newline. ``terminator=None`` writes neither. The moves are played on a copy
    (each checked for legality)."""
    pos = position.copy()
    lines = [KIF_HEADER] if header else []
    prev = None
    n = 0
    for n, mv in enumerate(moves, 1):
        mv = _as_move(mv)
        _legal_checked(pos, mv)
        lines.append(kif_line(n, move_to_kif(pos, mv, prev)))
        pos.push(mv)
        prev = move_to(mv)
    if terminator:
        lines.append(kif_line(n + 1, terminator))
        lines.append(f"まで{n}手で{terminator}")
    return "\n".join(lines) + "\n"
