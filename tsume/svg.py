"""The board diagram as an SVG picture, in the style of printed tsume diagrams.

A renderer: it reads a Position (and, optionally, the move just played) and draws it;
it computes nothing about the search. The picture is drawn from Black's side, as KIF/BOD
diagrams and printed problems are: files ９…１ across the top in full-width digits,
ranks 一…九 down the right, White's (後手's, normally the defender's) pieces upside down,
White's hand (△) in a column on the left from the top and Black's (▲) on the right
from the bottom, each written vertically: ``持駒`` then ``飛 角二 … 歩十七`` (or なし).

The output is a standalone SVG document (no XML declaration: UTF-8 is XML's default;
no external fonts or images; a generic font list with CJK fallbacks) and the same for
the same input, so it can be compared and committed. Elements carry classes for
scripts and tests: ``sq`` (the 81 squares), ``piece b|w`` (a piece on the board),
``hand b|w`` (one kind in hand, its count in kanji after it), ``last`` (the square of
the last move).
"""
from html import escape

from . import pieces as P

# Geometry, in the picture's own units (1 unit = 1 CSS px at the natural size).
# Squares are a little taller than wide, as on a real board.
SQ_W, SQ_H = 40, 44
MARGIN = 8
HAND_W = 44            # one hand's column
GAP = 10               # between a hand's column and the board (or its rank labels)
LABEL = 22             # the row of file numbers, the column of rank kanji
BOARD_X = MARGIN + HAND_W + GAP
BOARD_Y = MARGIN + LABEL
BOARD_W, BOARD_H = 9 * SQ_W, 9 * SQ_H
WIDTH = BOARD_X + BOARD_W + LABEL + GAP + HAND_W + MARGIN
HEIGHT = BOARD_Y + BOARD_H + MARGIN
PIECE_SIZE = 30
HAND_SIZE, COUNT_SIZE, HAND_LABEL_SIZE = 24, 17, 15
CAPTION_SIZE, CAPTION_LINE = 15, 21
# A CJK face's em box reaches about 0.88 em above the baseline and 0.12 below: its
# centre is this far above the baseline, in ems.
BASELINE = 0.36

# Mincho faces first, as in print; then any CJK face; the generic family last.
FONT_FAMILY = ("'Hiragino Mincho ProN', 'Yu Mincho', YuMincho, 'MS PMincho', "
               "'Noto Serif CJK JP', 'Noto Serif JP', 'Source Han Serif JP', IPAexMincho, "
               "IPAMincho, 'Noto Sans CJK JP', 'Hiragino Sans', Meiryo, serif")
BOARD_FILL, LINE_COLOUR, LAST_FILL = "#f7e3b0", "#333", "#f4b860"

_HAND_ORDER = (P.ROOK, P.BISHOP, P.GOLD, P.SILVER, P.KNIGHT, P.LANCE, P.PAWN)
# One-character names of the pieces as printed (成銀 → 全, 成桂 → 圭, 成香 → 杏).
PIECE_KANJI = dict(P.BOARD_KANJI)


def kanji_count(n):
    """二 … 九, 十, 十一 … 十八: a hand's count as printed (1 is not written)."""
    if n < 10:
        return P.KANJI_NUMERALS[n]
    return "十" + (P.KANJI_NUMERALS[n - 10] if n > 10 else "")


def _n(value):
    """A coordinate as short, fixed text (the output is compared byte for byte)."""
    value = round(value, 2)
    return str(int(value)) if value == int(value) else f"{value:.2f}".rstrip("0")


def _square_origin(sq):
    """Top-left corner of square `sq` (file 9 on the left, rank 1 at the top)."""
    file, rank = P.square_file(sq), P.square_rank(sq)
    return BOARD_X + (9 - file) * SQ_W, BOARD_Y + (rank - 1) * SQ_H


def _text(x, y, text, size, cls=None, rotate=False, anchor="middle"):
    """A line of text (centred on `x`, the root's text-anchor, unless `anchor` says
    otherwise) whose em box is centred on height `y` (the baseline is placed by
    hand: dominant-baseline is not honoured alike by every viewer), turned half round
    about that centre with `rotate`."""
    attrs = f'x="{_n(x)}" y="{_n(y + BASELINE * size)}" font-size="{size}"'
    if anchor != "middle":
        attrs += f' text-anchor="{anchor}"'
    if cls:
        attrs = f'class="{cls}" ' + attrs
    if rotate:
        attrs += f' transform="rotate(180 {_n(x)} {_n(y)})"'
    return f"<text {attrs}>{escape(text, quote=False)}</text>"


def _hand_glyphs(counts):
    """[(kind, [(glyph, size), ...]), ...] of a hand, in the printed order."""
    out = []
    for kind in _HAND_ORDER:
        n = counts.get(kind, 0)
        if n:
            glyphs = [(PIECE_KANJI[kind], HAND_SIZE)]
            glyphs += [(ch, COUNT_SIZE) for ch in (kanji_count(n) if n > 1 else "")]
            out.append((kind, glyphs))
    return out


def _hand(colour, counts):
    """One hand's column: the label, then each kind with its count, written vertically;
    White's from the top of the board down, Black's ending at the board's bottom. A hand
    too long for the board's height is drawn smaller."""
    mark = "▲" if colour == P.BLACK else "△"
    label = [(mark, HAND_LABEL_SIZE), ("持", HAND_LABEL_SIZE), ("駒", HAND_LABEL_SIZE)]
    kinds = _hand_glyphs(counts)
    step = 1.12           # line height, in font sizes
    blank = 0.5 * HAND_SIZE
    height = sum(s for _, s in label) * step + blank
    height += sum(s for _, glyphs in kinds for _, s in glyphs) * step
    if not kinds:
        height += 2 * HAND_LABEL_SIZE * step
    scale = min(1.0, BOARD_H / height)
    x = (MARGIN + HAND_W / 2 if colour == P.WHITE
         else BOARD_X + BOARD_W + LABEL + GAP + HAND_W / 2)
    y = BOARD_Y if colour == P.WHITE else BOARD_Y + BOARD_H - height * scale
    side = "b" if colour == P.BLACK else "w"
    out = [f'<g class="hand-column {side}">']

    def glyph_line(glyph, size):
        nonlocal y
        size = size * scale
        y += size * step
        # (y is the line's bottom; the glyph's em box is centred in the line)
        return f'<tspan x="{_n(x)}" y="{_n(y - step * size / 2 + BASELINE * size)}" ' \
               f'font-size="{_n(size)}">' \
               f"{escape(glyph, quote=False)}</tspan>"

    out.append(f'<text class="hand-label {side}">'
               + "".join(glyph_line(g, s) for g, s in label) + "</text>")
    y += blank * scale
    if not kinds:
        out.append(f'<text class="hand-none {side}">'
                   + "".join(glyph_line(g, HAND_LABEL_SIZE) for g in "なし") + "</text>")
    for kind, glyphs in kinds:
        out.append(f'<text class="hand {side}" data-kind="{P.USI_LETTER[kind]}" '
                   f'data-count="{counts[kind]}">'
                   + "".join(glyph_line(g, s) for g, s in glyphs) + "</text>")
    out.append("</g>")
    return out


def _wrap(line, width):
    """Cut a caption line into pieces of at most `width` columns (a wide character, 2)."""
    from .notation import display_width
    out, cur = [], ""
    for ch in line:
        if cur and display_width(cur + ch) > width:
            out.append(cur)
            cur = ""
        cur += ch
    return out + [cur] if cur or not out else out


def board_svg(position, last_move=None, caption=(), title=None):
    """The SVG document (a string) of `position`'s board and hands. `last_move`: a move
    in USI whose destination square is highlighted; `caption`: lines of text written
    under the board (wrapped to the picture's width); `title`: the picture's <title>
    (a tooltip, and the name a screen reader gives)."""
    from .notation import usi_to_square
    highlight = None
    if last_move:
        highlight = usi_to_square(last_move[2:4])     # the destination, of a drop or a move
    lines = []
    columns = int((WIDTH - 2 * MARGIN) / (CAPTION_SIZE / 2))
    for line in caption:
        lines += _wrap(str(line), columns)
    height = HEIGHT + (len(lines) * CAPTION_LINE + 4 if lines else 0)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" viewBox="0 0 {WIDTH} {height}" '
           f'width="{WIDTH}" height="{height}" role="img" '
           f'font-family="{FONT_FAMILY}" text-anchor="middle" fill="#111">']
    if title:
        out.append(f"<title>{escape(str(title), quote=False)}</title>")
    out.append(f'<rect class="background" x="0" y="0" width="{WIDTH}" height="{height}" fill="#fff"/>')
    # The squares, then the star points and the frame over them.
    out.append(f'<g class="board" fill="{BOARD_FILL}" stroke="{LINE_COLOUR}" stroke-width="1">')
    for sq in range(81):
        x, y = _square_origin(sq)
        fill = f' fill="{LAST_FILL}"' if sq == highlight else ""
        cls = "sq last" if sq == highlight else "sq"
        out.append(f'<rect class="{cls}" x="{x}" y="{y}" width="{SQ_W}" height="{SQ_H}"{fill}/>')
    out.append("</g>")
    out.append(f'<g class="stars" fill="{LINE_COLOUR}">')
    for fx in (3, 6):
        for ry in (3, 6):
            out.append(f'<circle cx="{BOARD_X + fx * SQ_W}" cy="{BOARD_Y + ry * SQ_H}" r="2.5"/>')
    out.append("</g>")
    out.append(f'<rect class="frame" x="{BOARD_X}" y="{BOARD_Y}" width="{BOARD_W}" '
               f'height="{BOARD_H}" fill="none" stroke="{LINE_COLOUR}" stroke-width="2.5"/>')
    # Coordinates: ９…１ over the files, 一…九 beside the ranks.
    out.append('<g class="coords" fill="#444">')
    for file in range(9, 0, -1):
        x = BOARD_X + (9 - file) * SQ_W + SQ_W / 2
        out.append(_text(x, MARGIN + LABEL / 2, P.FULLWIDTH_DIGITS[file], 14))
    for rank in range(1, 10):
        y = BOARD_Y + (rank - 1) * SQ_H + SQ_H / 2
        out.append(_text(BOARD_X + BOARD_W + LABEL / 2 + 1, y, P.KANJI_NUMERALS[rank], 14))
    out.append("</g>")
    # The pieces: upright for Black, upside down for White.
    out.append('<g class="pieces">')
    board = position.board.tolist()
    for sq in range(81):
        piece = board[sq]
        if not piece:
            continue
        x, y = _square_origin(sq)
        white = P.piece_colour(piece) == P.WHITE
        out.append(_text(x + SQ_W / 2, y + SQ_H / 2, PIECE_KANJI[P.piece_kind(piece)], PIECE_SIZE,
                         cls="piece w" if white else "piece b", rotate=white))
    out.append("</g>")
    out += _hand(P.WHITE, position.hand(P.WHITE))
    out += _hand(P.BLACK, position.hand(P.BLACK))
    if lines:
        out.append('<g class="caption">')
        for i, line in enumerate(lines):
            out.append(_text(MARGIN, HEIGHT + 2 + CAPTION_LINE * i + CAPTION_LINE / 2, line,
                             CAPTION_SIZE, anchor="start"))
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"
