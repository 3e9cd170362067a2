"""The board picture (svg.py, issue #47): valid standalone SVG with 81 squares, the
position's pieces by kind and colour, both hands, coordinates; `show`/`solve --format svg`."""
import os
import xml.etree.ElementTree as ET

import pytest

from tsume import pieces as P
from tsume.position import Position
from tsume.svg import board_svg, kanji_count

from test_cli import PROBLEMS, S3_SFEN, run

SVG = "{http://www.w3.org/2000/svg}"
# Every kind on the board, both colours, promoted ones too; hands on both sides.
ALL_KINDS = ("lnsgkgsnl/1r5b1/+p+l+n+s+b+r3/9/9/9/+P+L+N+S+B+R3/1B5R1/LNSGKGSNL "
             "b 2G3P4p 1")
MUSOU_001 = "3g1n1l1/2p1g1r2/5k2S/4p1N+R1/3+p5/7N1/B8/9/9 b 2GSNb2s3l15p 1"


def _glyphs(root, cls):
    """[(text, element)] of the <text> elements whose class list holds every word of cls."""
    words = cls.split()
    return [("".join(t.itertext()), t) for t in root.iter(SVG + "text")
            if all(w in (t.get("class") or "").split() for w in words)]


def _expected_board(pos):
    counts = {}
    for sq in range(81):
        piece = int(pos.board[sq])
        if piece:
            key = (P.BOARD_KANJI[P.piece_kind(piece)], P.piece_colour(piece))
            counts[key] = counts.get(key, 0) + 1
    return counts


@pytest.mark.parametrize("sfen", [S3_SFEN, MUSOU_001, ALL_KINDS])
def test_svg_is_xml_with_81_squares_and_the_positions_pieces(sfen):
    pos = Position.from_sfen(sfen)
    text = board_svg(pos, last_move="2d3c", caption=["▲１二歩　まで1手詰"], title="<a & b>")
    root = ET.fromstring(text)
    assert root.tag == SVG + "svg" and root.get("viewBox")
    squares = [r for r in root.iter(SVG + "rect") if "sq" in (r.get("class") or "").split()]
    assert len(squares) == 81
    assert len({(r.get("x"), r.get("y")) for r in squares}) == 81
    # The board: every piece once, by kind and colour; White's turned half round.
    found = {}
    for glyph, element in _glyphs(root, "piece"):
        colour = P.WHITE if "w" in element.get("class").split() else P.BLACK
        found[(glyph, colour)] = found.get((glyph, colour), 0) + 1
        assert ("rotate(180" in (element.get("transform") or "")) == (colour == P.WHITE)
    assert found == _expected_board(pos)
    # The hands: each kind with its count written in kanji after it.
    for colour, side in ((P.BLACK, "b"), (P.WHITE, "w")):
        shown = {g: e for g, e in _glyphs(root, f"hand {side}")}
        want = {P.BOARD_KANJI[k] + (kanji_count(n) if n > 1 else ""): n
                for k, n in pos.hand(colour).items() if n}
        assert set(shown) == set(want)
        assert all(int(e.get("data-count")) == want[g] for g, e in shown.items())
        assert bool(_glyphs(root, f"hand-none {side}")) == (not want)
    # The coordinates, the last move's square, the caption and title (escaped).
    texts = ["".join(t.itertext()) for t in root.iter(SVG + "text")]
    assert texts[:18] == list("９８７６５４３２１一二三四五六七八九")
    last = [r for r in squares if "last" in r.get("class").split()]
    assert [(r.get("x"), r.get("y")) for r in last] == [("302", "118")]    # ３三
    assert "▲１二歩　まで1手詰" in texts
    assert root.find(SVG + "title").text == "<a & b>"


def test_svg_is_deterministic_and_standalone():
    pos = Position.from_sfen(MUSOU_001)
    a, b = board_svg(pos, last_move="P*1b"), board_svg(pos.copy(), last_move="P*1b")
    assert a == b
    assert "href" not in a and "url(" not in a and "@import" not in a
    assert a.count("http") == 1                   # the xmlns, nothing fetched
    assert "serif" in a and "Mincho" in a         # a generic family after the CJK faces


def test_kanji_counts():
    assert [kanji_count(n) for n in (2, 9, 10, 11, 18)] == ["二", "九", "十", "十一", "十八"]


def test_show_and_solve_draw_svg(tmp_path):
    result = run("show", "-f", "svg", PROBLEMS / "s3.kif")
    assert result.exit_code == 0
    root = ET.fromstring(result.stdout)
    texts = ["".join(t.itertext()) for t in root.iter(SVG + "text")]
    assert "作意 (3手)：▲１二歩　△同玉　▲１三香" in texts
    result = run("solve", "-f", "svg", PROBLEMS / "s3.sfen")
    root = ET.fromstring(result.stdout)
    texts = ["".join(t.itertext()) for t in root.iter(SVG + "text")]
    assert "▲１二歩　△同玉　▲１三香　まで3手詰" in texts
    assert any(t.startswith("完全作") for t in texts)
    result = run("show", "-f", "svg", "--out-dir", tmp_path, PROBLEMS / "tanuki.tsv")
    assert sorted(os.listdir(tmp_path)) == ["tanuki_2.svg", "tanuki_3.svg", "tanuki_4.svg"]
