"""Validation (SPEC §3.4): every rejection kind on a small hand-made position, directly
through validate() and through read_problems(); plus malformed hand lines and unknown
tokens, which the format readers reject."""
import random

import numpy as np
import pytest

from tsume import pieces as P
from tsume.errors import FormatError, PositionError
from tsume.formats import read_problems
from tsume.formats.kif import parse_hand
from tsume.position import split_sfen
from tsume.validate import _COUNT, _DEAD, _KING_SQ, _KINGS, _NIFU, _board_survey, validate

S3 = "8k/9/9/7+R1/9/9/9/9/9 b LPr2b4g4s4n3l17p 1"

# (SFEN, words the message must contain). All hands explicit so that no policy is involved.
REJECTED = {
    "too many rooks": ("8k/9/9/9/9/9/9/9/RRR6 b - 1", "too many R"),
    "too many pawns (hands)": ("8k/9/9/9/9/9/9/9/9 b 10P9p 1", "too many P"),
    "too many promoted bishops": ("8k/9/9/9/9/9/9/9/+B+B+b6 b - 1", "too many B"),
    "three kings": ("7kk/9/9/9/9/9/9/9/K8 b - 1", "too many K"),
    "no defender king": ("9/9/9/9/9/9/9/9/K8 b P 1", "no defender king"),
    "no defender king (White attacks)": ("8k/9/9/9/9/9/9/9/9 w P 1", "no defender king"),
    "two White kings": ("7kk/9/9/9/9/9/9/9/9 b P 1", "White has 2 kings"),
    "two Black kings": ("9/9/9/9/9/9/9/9/K7K w p 1", "Black has 2 kings"),
    "nifu Black": ("8k/9/9/9/4P4/9/4P4/9/9 b - 1", "二歩"),
    "nifu White": ("8k/4p4/9/4p4/9/9/9/9/9 b - 1", "二歩"),
    "dead Black pawn": ("P7k/9/9/9/9/9/9/9/9 b - 1", "dead piece: Black 歩 on 9一"),
    "dead Black lance": ("L7k/9/9/9/9/9/9/9/9 b - 1", "Black 香 on 9一"),
    "dead Black knight rank 2": ("8k/N8/9/9/9/9/9/9/9 b - 1", "Black 桂 on 9二"),
    "dead Black knight rank 1": ("N7k/9/9/9/9/9/9/9/9 b - 1", "Black 桂 on 9一"),
    "dead White pawn": ("8k/9/9/9/9/9/9/9/p8 b - 1", "White 歩 on 9九"),
    "dead White lance": ("8k/9/9/9/9/9/9/9/1l7 b - 1", "White 香 on 8九"),
    "dead White knight rank 8": ("8k/9/9/9/9/9/9/n8/9 b - 1", "White 桂 on 9八"),
    "defender in check": ("8k/9/8R/9/9/9/9/9/9 b - 1", "defender (White) is already in check"),
    "defender in check (White attacks)": ("8K/9/8r/9/9/9/9/9/9 w - 1", "defender (Black) is already in check"),
    "defender in check by a knight": ("8k/9/7N1/9/9/9/9/9/9 b - 1", "already in check"),
    "attacker in check": ("8k/9/9/9/9/9/9/9/K7r b - 1", "side to move (attacker, Black) is in check"),
    "attacker in check (White)": ("k7R/9/9/9/9/9/9/9/8K w - 1", "side to move (attacker, White) is in check"),
}


@pytest.mark.parametrize("sfen,words", REJECTED.values(), ids=REJECTED.keys())
def test_rejections(sfen, words):
    pos, _ = split_sfen(sfen)
    with pytest.raises(PositionError) as err:
        validate(pos)
    assert words in str(err.value) and "\n" not in str(err.value)
    for policy in ("literal", "auto"):    # (rest would replace an over-full defender hand)
        (p,) = read_problems(sfen, defender_hand=policy)
        assert p.position is None and words in p.error


def test_valid_positions_pass():
    assert validate(split_sfen(S3)[0]) == []
    assert validate(split_sfen("8k/9/9/9/4+P4/9/4P4/9/9 b - 1")[0]) == []     # と金 is not a pawn for 二歩
    assert validate(split_sfen("8k/9/9/9/9/9/9/9/K6R1 b - 1")[0]) == []        # 双玉, nobody in check
    assert validate(split_sfen("+N7k/9/9/9/9/9/9/9/9 b - 1")[0]) == []           # promoted: not dead
    assert validate(split_sfen("8K/9/9/9/9/9/9/8+n/8+l w - 1")[0]) == []


def test_box_warning():
    pos, _ = split_sfen("8k/9/9/7+R1/9/9/9/9/9 b LP2g 1")
    (warning,) = validate(pos)
    assert "pieces left in the box" in warning and "R 2B 2G 4S 4N 3L 17P" in warning
    assert validate(pos, box_warning=False) == []
    assert validate(split_sfen("8k/9/9/7+R1/9/9/9/9/9 b LP 1")[0]) == []      # empty defender hand


def test_too_many_from_the_remainder():
    (p,) = read_problems("8k/9/9/7+R1/9/9/9/9/9 b LP2R 1")
    assert p.error.startswith("too many R")


def test_board_survey_reads_every_square():
    """The compiled one-pass survey that validate() reads, against its definitions read
    off the board square by square, on random boards of every piece code (often with
    several faults at once: the first dead square and the first 二歩 file matter)."""
    rng = random.Random(11)
    codes = [kind | colour for kind in range(1, 15) for colour in (0, P.WHITE_BIT)]
    for _ in range(2000):
        board = np.zeros(81, dtype=np.int8)
        for sq in rng.sample(range(81), rng.randint(0, 40)):
            board[sq] = rng.choice(codes)
        facts = _board_survey(board).tolist()
        pieces = [(sq, int(p) & 15, int(p) >> 4) for sq, p in enumerate(board) if p]
        for kind in P.TOTAL:
            assert facts[_COUNT + kind] == sum(P.base_kind(k) == kind for _, k, _ in pieces)
        dead = [sq for sq, k, c in pieces if P.is_dead_square(k, c, sq)]
        assert facts[_DEAD] == (dead[0] if dead else -1)
        for colour in (P.BLACK, P.WHITE):
            files = [P.square_file(sq) for sq, k, c in pieces if k == P.PAWN and c == colour]
            doubled = [f for f in range(1, 10) if files.count(f) > 1]
            assert facts[_NIFU + colour] == (doubled[0] if doubled else 0)
            kings = [sq for sq, k, c in pieces if k == P.KING and c == colour]
            assert facts[_KINGS + colour] == len(kings)
            assert facts[_KING_SQ + colour] == (kings[0] if kings else -1)


# ---------------------------------------------------------------- format-level rejections
@pytest.mark.parametrize("value", ["香　歩X", "象", "龍", "歩十九", "歩二十", "金0", "香,,象"])
def test_bad_hand_line(value):
    with pytest.raises(FormatError) as err:
        parse_hand(value, "先手の持駒", 12)
    assert err.value.line == 12 and "先手の持駒" in str(err.value)


def test_hand_line_forms():
    assert parse_hand("飛　角二　金四　銀四　桂四　香三　歩十七") == {
        P.ROOK: 1, P.BISHOP: 2, P.GOLD: 4, P.SILVER: 4, P.KNIGHT: 4, P.LANCE: 3, P.PAWN: 17}
    assert parse_hand("金2　銀　桂 歩15 ") == {P.GOLD: 2, P.SILVER: 1, P.KNIGHT: 1, P.PAWN: 15}
    assert parse_hand("歩１８") == {P.PAWN: 18}
    assert parse_hand("なし") == {} and parse_hand("") == {}
    assert parse_hand("残り全部") == parse_hand("残りすべて") == parse_hand("残り全て") == "rest"


KIF_BODY = """後手の持駒：残り全部
  ９ ８ ７ ６ ５ ４ ３ ２ １
+---------------------------+
| ・ ・ ・ ・ ・ ・ ・ ・v玉|一
| ・ ・ ・ ・ ・ ・ ・ ・ ・|二
| ・ ・ ・ ・ ・ ・ ・ ・ ・|三
| ・ ・ ・ ・ ・ ・ ・ 龍 ・|四
| ・ ・ ・ ・ ・ ・ ・ ・ ・|五
| ・ ・ ・ ・ ・ ・ ・ ・ ・|六
| ・ ・ ・ ・ ・ ・ ・ ・ ・|七
| ・ ・ ・ ・ ・ ・ ・ ・ ・|八
| ・ ・ ・ ・ ・ ・ ・ ・ ・|九
+---------------------------+
先手の持駒：香　歩
"""
CSA_BODY = ("P1 *  *  *  *  *  *  *  * -OU\n" + "".join(f"P{r}" + " * " * 9 + "\n" for r in range(2, 10))
            + "P+00KY00FU\nP-00AL\n+\n").replace("P4" + " * " * 9, "P4" + " * " * 7 + "+RY * ")


@pytest.mark.parametrize("text,words", [
    (KIF_BODY, None),
    (KIF_BODY.replace("先手の持駒：香　歩", "先手の持駒：香　歩X"), "line 14: bad count in '歩X'"),
    (KIF_BODY.replace("後手の持駒：残り全部", "後手の持駒：全部"), "line 1: bad item '全部'"),
    (KIF_BODY.replace("v玉|一", "v象|一"), "line 4: unknown piece '象'"),
    (KIF_BODY.replace("龍 ・|四", "龍|四"), "rank 4 of the diagram has 8 squares"),
    (KIF_BODY.replace("| ・ ・ ・ ・ ・ ・ ・ ・ ・|九\n", ""), "8 ranks"),
    (KIF_BODY.replace("龍", "v龍").replace("v玉", " 玉"), "no defender king"),
    (KIF_BODY.replace("| ・ ・ ・ ・ ・ ・ ・ ・ ・|五", "| ・ ・ ・ ・ 歩 ・ ・ ・ ・|五")
     .replace("| ・ ・ ・ ・ ・ ・ ・ ・ ・|六", "| ・ ・ ・ ・ 歩 ・ ・ ・ ・|六"), "二歩 (nifu): two unpromoted Black pawns on file 5"),
    (KIF_BODY.replace("| ・ ・ ・ ・ ・ ・ ・ ・ ・|五", "| ・ ・ ・ ・v歩 ・ ・ ・ ・|五")
     .replace("先手の持駒：香　歩", "先手の持駒：香　歩十八"), "too many P"),
    (CSA_BODY, None),
    (CSA_BODY.replace("-OU", "-XY"), "line 1: unknown CSA square '-XY' in P1"),
    (CSA_BODY.replace("P+00KY00FU", "P+00KY00FX"), "unknown CSA piece 'FX'"),
    (CSA_BODY.replace("P+00KY00FU", "P+00KY00F"), "bad CSA piece list"),
    (CSA_BODY.replace("P+00KY00FU", "X+00KY"), "unknown CSA statement 'X+00KY'"),
    (CSA_BODY.replace("P+00KY00FU", "P+00KY00FU00HI00HI00HI"), "more HI than a full set holds"),
    (CSA_BODY.replace("P+00KY00FU", "P+00OU"), "OU cannot be a piece in hand"),
    (CSA_BODY.replace("P9" + " * " * 9, "P9" + " * " * 8 + "-KE"), "dead piece: White 桂 on 1九"),
    ("8k/9/9/7+R1/9/9/9/9/9 b LZ 1", "malformed SFEN hands"),
    ("8k/9/9/7+X1/9/9/9/9/9 b L 1", "unknown character 'X' in SFEN board"),
    ("8k/9/9/7+R1/9/9/9/9/9 B L 1", "side to move must be b or w"),
])
def test_format_rejections(text, words):
    (p,) = read_problems(text)
    if words is None:
        assert p.error is None and p.position.sfen() == S3
    else:
        assert p.position is None and words in p.error, p.error
