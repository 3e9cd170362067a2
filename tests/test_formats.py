"""Readers and writers of SFEN, KIF/BOD and CSA (SPEC §3), the defender-hand policy
(SPEC §2.2) and read_problems' promise never to raise on bad content."""
import os
import random
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import shared_files
from tsume import pieces as P
from tsume.errors import PositionError
from tsume.formats import apply_defender_hand, read_problems
from tsume.formats.csa import write_csa
from tsume.formats.kif import parse_kif, write_kif
from tsume.position import Position, split_sfen

S3 = "8k/9/9/7+R1/9/9/9/9/9 b LP 1"
S3_EXPLICIT = "8k/9/9/7+R1/9/9/9/9/9 b LPr2b4g4s4n3l17p 1"
S3_MOVES = ["P*1b", "1a1b", "L*1c"]
S3_REST_LINE = "後手の持駒：飛　角二　金四　銀四　桂四　香三　歩十七"

# SPEC §3.2, verbatim: what write_kif must produce for S3 and its answer.
S3_KIF = """\
# ---- tsume ----
後手の持駒：飛　角二　金四　銀四　桂四　香三　歩十七
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
先手：
後手：
手数----指手---------消費時間--
   1 １二歩打     ( 0:00/00:00:00)
   2 同　玉(11)   ( 0:00/00:00:00)
   3 １三香打     ( 0:00/00:00:00)
   4 詰み         ( 0:00/00:00:00)
まで3手で詰み
"""

# SPEC §3.3, verbatim (trailing blanks of the P lines included).
S3_CSA = """\
V2.2
$EVENT:S3
P1 *  *  *  *  *  *  *  * -OU
P2 *  *  *  *  *  *  *  *  * 
P3 *  *  *  *  *  *  *  *  * 
P4 *  *  *  *  *  *  * +RY * 
P5 *  *  *  *  *  *  *  *  * 
P6 *  *  *  *  *  *  *  *  * 
P7 *  *  *  *  *  *  *  *  * 
P8 *  *  *  *  *  *  *  *  * 
P9 *  *  *  *  *  *  *  *  * 
P+00KY00FU
P-00AL
+
+0012FU
-1112OU
+0013KY
%TSUMI
"""


def one(source, **kwargs):
    problems = list(read_problems(source, **kwargs))
    assert len(problems) == 1, [(p.source, p.error) for p in problems]
    return problems[0]


def ok(source, **kwargs):
    p = one(source, **kwargs)
    assert p.error is None, f"{p.source}: {p.error}"
    return p


def replay(position, moves):
    pos = position.copy()
    for m in moves:
        pos.push_usi(m)
    return pos


# ---------------------------------------------------------------- S3 in every form
@pytest.mark.parametrize("text", [
    S3, S3_EXPLICIT, "sfen " + S3, "position sfen " + S3, "  " + S3 + "\t3\ts3  ",
    "8k/9/9/7+R1/9/9/9/9/9 b PL", "8k/9/9/7+R1/9/9/9/9/9 b 17pLr4s4g2b4nP3l 1"])
def test_s3_sfen_forms(text):
    p = ok(text)
    assert p.position.sfen() == S3_EXPLICIT
    assert p.metadata["format"] == "sfen" and "moves" not in p.metadata


@pytest.mark.parametrize("variant", [
    lambda t: t,
    lambda t: t.replace(S3_REST_LINE, "後手の持駒：残り全部"),
    lambda t: t.replace(S3_REST_LINE, "後手の持駒：残りすべて"),
    lambda t: t.replace(S3_REST_LINE, "後手の持駒：残り全て"),
    lambda t: t.replace(S3_REST_LINE, "後手の持駒：なし"),
    lambda t: t.replace(S3_REST_LINE + "\n", ""),
    lambda t: t.replace("\n", "\r\n"),
    lambda t: t.replace("先手の持駒：香　歩", "先手の持駒：香 歩 "),
    lambda t: t.replace("  ９ ８ ７ ６ ５ ４ ３ ２ １\n", ""),
], ids=["explicit", "nokori-zenbu", "nokori-subete", "nokori-subete-kanji", "nashi",
        "no-line", "crlf", "half-width-space", "no-file-numbers"])
def test_s3_kif_forms(variant):
    p = ok(variant(S3_KIF))
    assert p.position.sfen() == S3_EXPLICIT
    assert p.metadata["format"] == "kif"
    assert p.metadata["moves"] == S3_MOVES
    assert p.warnings == []


@pytest.mark.parametrize("encoding,suffix", [("cp932", ".kif"), ("utf-8-sig", ".kif"),
                                             ("utf-8", ".kifu"), ("cp932", ".txt")])
def test_s3_kif_file_encodings(tmp_path, encoding, suffix):
    path = tmp_path / ("s3" + suffix)
    path.write_bytes(S3_KIF.replace(S3_REST_LINE + "\n", "").encode(encoding))
    for source in (path, str(path)):
        p = ok(source)
        assert p.position.sfen() == S3_EXPLICIT and p.metadata["moves"] == S3_MOVES
        assert p.source == f"{path}:1"


@pytest.mark.parametrize("variant", [
    lambda t: t,
    lambda t: t.replace("P-00AL", "P-00HI00KA00KA" + "00KI" * 4 + "00GI" * 4 + "00KE" * 4
                        + "00KY" * 3 + "00FU" * 17),
    lambda t: t.replace("P-00AL\n", ""),
    lambda t: "'CSA encoding=UTF-8\nV3.0\n" + t.split("\n", 1)[1],
    lambda t: t.replace("P+00KY00FU\nP-00AL\n+\n", "P+00KY00FU,P-00AL,+\n").replace("-1112OU", "T3\n-1112OU,T0"),
    lambda t: t.replace("P+00KY00FU", "P+00FU\nP+00KY").replace("%TSUMI", "%TSUMI\n'done"),
    lambda t: t.replace("\n", "\r\n"),
], ids=["spec", "explicit-rest", "no-defender-line", "v3", "commas-and-times", "split-hand",
        "crlf"])
def test_s3_csa_forms(variant):
    p = ok(variant(S3_CSA))
    assert p.position.sfen() == S3_EXPLICIT
    assert p.metadata["format"] == "csa"
    assert p.metadata["moves"] == S3_MOVES


def test_writers_reproduce_the_spec_texts():
    pos = ok(S3).position
    assert write_kif(pos, moves=S3_MOVES) == S3_KIF
    assert pos.to_kif(moves=S3_MOVES) == S3_KIF
    csa = write_csa(pos, moves=S3_MOVES)
    rest = "P-00HI" + "00KA" * 2 + "00KI" * 4 + "00GI" * 4 + "00KE" * 4 + "00KY" * 3 + "00FU" * 17
    assert csa == S3_CSA.replace("$EVENT:S3\n", "").replace("P-00AL", rest)
    assert write_csa(pos, moves=S3_MOVES, title="S3") == S3_CSA.replace("P-00AL", rest)
    assert pos.to_csa() == csa.split("+0012FU")[0]


def test_write_kif_white_to_move_and_title():
    p = ok("9/9/9/9/9/1+r7/9/9/K8 w lp 1")
    assert p.position.sfen() == "9/9/9/9/9/1+r7/9/9/K8 w R2B4G4S4N3L17Plp 1"
    text = write_kif(p.position, title="mirror\nS3")
    assert "後手番\n" in text and "作品名：mirror S3\n" in text
    back = ok(text, defender_hand="literal")
    assert back.position == p.position and back.metadata["title"] == "mirror S3"


# ---------------------------------------------------------------- defender-hand policy
def test_defender_hand_policies():
    listed = "8k/9/9/7+R1/9/9/9/9/9 b LP2g 1"
    auto = ok(listed)
    assert auto.position.sfen() == listed
    assert len(auto.warnings) == 1 and "pieces left in the box" in auto.warnings[0]
    assert ok(listed, defender_hand="rest").position.sfen() == S3_EXPLICIT
    literal = ok(listed, defender_hand="literal")
    assert literal.position.sfen() == listed and literal.warnings == []
    assert ok(S3, defender_hand="literal").position.sfen() == S3
    assert ok(S3, defender_hand="rest").position.sfen() == S3_EXPLICIT
    # 残り全部 is "the file as written" even for literal
    rest_kif = S3_KIF.replace(S3_REST_LINE, "後手の持駒：残り全部")
    assert ok(rest_kif, defender_hand="literal").position.sfen() == S3_EXPLICIT
    assert ok(S3_CSA, defender_hand="literal").position.sfen() == S3_EXPLICIT
    no_line = S3_CSA.replace("P-00AL\n", "")
    assert ok(no_line, defender_hand="literal").position.sfen() == S3
    with pytest.raises(ValueError):
        list(read_problems(S3, defender_hand="all"))


def test_white_attacker_gets_upper_case_remainder():
    # A White attacker: the remainder goes to Black's (upper-case) hand.
    p = ok("8K/9/9/9/9/9/9/1+r7/9 w l 1")
    assert p.position.hand(P.BLACK)[P.LANCE] == 3 and p.position.hand(P.WHITE)[P.LANCE] == 1


def test_attacker_rest_in_kif_is_an_error():
    bad = S3_KIF.replace("先手の持駒：香　歩", "先手の持駒：残り全部")
    assert "attacker" in one(bad).error


def test_apply_defender_hand_too_many():
    pos, _ = split_sfen("8k/9/9/7+R1/9/9/9/9/9 b LP 1")
    pos.set_hand(P.BLACK, {P.PAWN: 18, P.ROOK: 2})
    with pytest.raises(PositionError, match="too many R"):
        apply_defender_hand(pos, (), "auto")


# ---------------------------------------------------------------- other inputs
def test_position_startpos_and_moves():
    p = ok("position startpos moves 7g7f 3c3d")
    assert p.position.sfen() == "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 1"
    p = ok("position sfen " + S3 + " moves P*1b 1a1b")
    assert p.position.sfen() == "9/8k/9/7+R1/9/9/9/9/9 b Lr2b4g4s4n3l18p 1"
    assert "illegal" in one("position sfen " + S3 + " moves 1a1b").error


def test_sfen_file_errors_do_not_stop_other_lines(tmp_path):
    path = tmp_path / "mixed.tsv"
    path.write_text("# header\tcol\n\n" + S3 + "\t3\tgood\n" + "8k/9/9 b - 1\t1\tbad\n"
                    + "8k/9/9/7+R1/9/9/9/9/9 x LP 1\n" + "\t\n" + S3_EXPLICIT + "\n", encoding="utf-8")
    problems = list(read_problems(path))
    assert [p.source for p in problems] == [f"{path}:{n}" for n in (3, 4, 5, 7)]   # 6 is blank
    assert [p.error is None for p in problems] == [True, False, False, True]
    assert problems[0].metadata["fields"] == ["3", "good"]
    assert "9 ranks" in problems[1].error and "side to move" in problems[2].error
    assert all(p.position.sfen() == S3_EXPLICIT for p in problems if p.error is None)


def test_csa_multiple_records_and_pi():
    text = S3_CSA + "/\n" + "V2.2\nPI82HI22KA\n+\n/\n" + "P1-OU\n+\n/\n"
    problems = list(read_problems(text))
    assert [p.source for p in problems] == ["<text>#1", "<text>#2", "<text>#3"]
    assert problems[0].position.sfen() == S3_EXPLICIT
    assert problems[1].position.sfen() == "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b rb 1"
    assert "P1 has fewer than 9 squares" in problems[2].error


def test_csa_promotion_and_white_moves():
    text = ("P1 *  *  *  *  *  *  *  * -OU\nP2 *  *  *  *  *  *  *  *  * \n"
            "P3 *  *  *  *  *  * +GI *  * \n" + "".join(f"P{r}\n" for r in range(4, 10)) +
            "P+00KI\n+\n+3322NG\n-1122OU\n+0032KI\n%TSUMI\n")
    text = re.sub(r"^P([4-9])$", lambda m: "P" + m.group(1) + " * " * 9, text, flags=re.M)
    p = ok(text)
    assert p.metadata["moves"] == ["3c2b+", "1a2b", "G*3b"]
    bad = ok(text.replace("+3322NG", "+3322KI"))
    assert bad.metadata["moves"] == [] and "is GI, not KI" in bad.warnings[0]


def test_kif_side_to_move_lines():
    text = write_kif(ok("9/9/9/9/9/1+r7/9/9/K8 w lp 1").position)
    assert "後手番" in text
    assert ok(text.replace("後手番", "手番：後手")).position.side_to_move == P.WHITE
    assert ok(text.replace("後手番", "上手番")).position.side_to_move == P.WHITE
    # without the line Black is to move, and White (now the defender) has no king
    assert "no defender king" in one(text.replace("後手番\n", "")).error


def test_kif_moves_variants():
    # quirks seen in real files: ▲/△ marks, 成 after the source, (00) drops, 不成 omitted.
    body = S3_KIF.split("手数")[0]
    moves = "   1 ▲１二歩(00)\n   2 △同玉(11)\n   3 ▲１三香打\n   4 △投了\n"
    assert ok(body + moves).metadata["moves"] == S3_MOVES
    assert ok(body + "1 1二歩打\n2 同　玉(11)\n").metadata["moves"] == S3_MOVES[:2]
    p = ok(body + "   1 １二歩打\n   2 同　玉(12)\n")
    assert p.metadata["moves"] == ["P*1b"] and "move 2" in p.warnings[0]


def test_kif_multiple_diagrams():
    second = S3_KIF.replace("v玉|一", " ・|一").replace(" ・ ・ ・ ・ ・ ・ ・ ・ ・|二", " ・ ・ ・ ・ ・ ・ ・ ・v玉|二")
    second = second.split("先手：")[0].replace(S3_REST_LINE, "後手の持駒：残り全部")
    problems = list(read_problems(S3_KIF + "\n" + second))
    assert len(problems) == 2
    assert problems[0].source == "<text>:1" and problems[1].source == "<text>:25"
    assert problems[0].position.sfen() == S3_EXPLICIT
    assert problems[1].position.sfen() == "9/8k/9/7+R1/9/9/9/9/9 b LPr2b4g4s4n3l17p 1"
    assert "moves" not in problems[1].metadata


@pytest.mark.parametrize("source,message", [
    ("", "no problem found"),
    ("\n# only a comment\n\n", "no problem found"),
    (b"\xff\xfe\x81\x00\x9f", "cannot decode"),
    ("random words\nmore words\n", "unrecognised input"),
    ("missing.kif", "no such file"),
    ("8k/9/9/7+R1/9/9/9/9/9 b LQ 1", "malformed SFEN hands"),
])
def test_unreadable_inputs(source, message):
    p = one(source)
    assert p.position is None and message in p.error


def test_stdin(monkeypatch):
    import io
    import sys
    stdin = io.TextIOWrapper(io.BytesIO(S3_KIF.encode("cp932")), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", stdin)
    p = ok("-")
    assert p.source == "-:1" and p.position.sfen() == S3_EXPLICIT


def test_unreadable_files(tmp_path):
    assert "No such file" in one(tmp_path / "nope.sfen").error
    assert "directory" in one(tmp_path).error
    (tmp_path / "empty.kif").write_bytes(b"")
    assert one(tmp_path / "empty.kif").error == "no problem found"
    (tmp_path / "junk.bin").write_bytes(bytes(range(256)) * 4)
    assert one(tmp_path / "junk.bin").error


def test_numbers_past_the_int_digit_limit():
    """int() refuses more than 4,300 digits: such a count or move number is that problem's
    error (a KIF's with its line), and the problems after it are still read."""
    digits = "1" * 5000
    problems = list(read_problems(f"8k/9/9/7+R1/9/9/9/9/9 b {digits}P 1\n{S3}\n"))
    assert [p.source for p in problems] == ["<text>:1", "<text>:2"]
    assert "bad count" in problems[0].error and problems[1].position.sfen() == S3_EXPLICIT
    kif = S3_KIF.replace("\n   1 ", f"\n{digits} ")
    first, second = read_problems(kif + "\n" + S3_KIF)
    assert first.error.startswith("line 19: move number 1111") and "too long" in first.error
    assert second.error is None and second.metadata["moves"] == S3_MOVES


def test_special_files_and_the_size_limit(tmp_path, monkeypatch):
    import tsume.formats
    fifo = tmp_path / "p.sfen"
    os.mkfifo(fifo)
    assert one(fifo).error == "not a regular file"          # not opened: it would block
    if os.path.exists("/dev/zero"):
        assert one("/dev/zero").error == "not a regular file"
    path = tmp_path / "s3.sfen"
    path.write_text(S3 + "\n")
    monkeypatch.setattr(tsume.formats, "MAX_INPUT_BYTES", len(S3))
    assert "the limit of one input" in one(path).error
    monkeypatch.setattr(tsume.formats, "MAX_INPUT_BYTES", len(S3) + 1)
    assert ok(path).position.sfen() == S3_EXPLICIT


# ---------------------------------------------------------------- shared data: KIF files
def _marken_rows():
    rows = {}
    for path in shared_files("marken_foo_kif.tsv"):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line and not line.startswith("#"):
                sfen, length, _, note = line.split("\t")
                rows[note.split(";")[0]] = (sfen, int(length))
    return rows


MARKEN = _marken_rows()


@pytest.mark.parametrize("kif", shared_files("kif/marken-foo_tsumemi/*/*.kif"), ids=lambda p: p.parent.name + "/" + p.name)
def test_marken_foo_kif_files(kif, shared_problems):
    sfen, length = MARKEN[str(kif.relative_to(shared_problems))]
    assert kif.read_bytes().decode("cp932")          # really Shift_JIS
    p = ok(kif)
    assert p.position.sfen() == sfen
    assert len(p.metadata["moves"]) == length
    assert replay(p.position, p.metadata["moves"])
    assert p.metadata["header"]["先手"] == "" and p.warnings == []


def test_musou_001_kif(shared_problems):
    p = ok(shared_problems / "kif/tokoroten_open-tsume/musou-001.kif")
    row = next(ln for ln in (shared_problems / "musou.tsv").read_text(encoding="utf-8").splitlines()
               if not ln.startswith("#")).split("\t")
    assert p.position.sfen() == row[0]
    assert len(p.metadata["moves"]) == int(row[1]) == 11
    assert p.metadata["moves"][0] == "3d4b+"                  # 「４二桂(34)成」
    assert replay(p.position, p.metadata["moves"]).is_mate()
    assert p.metadata["header"]["手合割"] == "詰将棋"


def test_shtsume_issue6_bod(shared_problems):
    """The BOD reads to the edge_cases.tsv SFEN; both are rejected because the defender's
    king stands in check from the 8一 rook with Black to move (see validate.py)."""
    path = shared_problems / "kif/issues/shtsume-issue6.bod"
    rows = [ln.split("\t") for ln in (shared_problems / "edge_cases.tsv").read_text(encoding="utf-8").splitlines()
            if "shtsume-issue6" in ln]
    if not rows:
        pytest.skip("no shtsume-issue6 row in edge_cases.tsv")
    (parsed,) = parse_kif(path.read_text(encoding="utf-8"))
    pos = Position(*parsed.arrays)
    apply_defender_hand(pos, parsed.rest_colours, "auto")
    expected, _ = split_sfen(rows[0][0])
    assert pos == expected
    assert "in check" in one(path).error
    assert "in check" in one(rows[0][0]).error


# ---------------------------------------------------------------- shared data: TSV files
_TSV_CACHE = {}


def _read_tsv(path):
    if path not in _TSV_CACHE:
        _TSV_CACHE[path] = list(read_problems(path))
    return _TSV_CACHE[path]


# Rows the collection contains although they are not valid problems (reported upstream of us).
KNOWN_BAD = {
    "yo_attacker_in_check.tsv": "side to move (attacker",      # every row, by design
    "tanuki_generated.tsv": "二歩",                             # generator placed two pawns on a file
    "edge_cases.tsv": "defender (White) is already in check",   # shtsume-issue6-bod, see above
}


@pytest.mark.parametrize("tsv", shared_files("*.tsv"), ids=lambda p: p.name)
def test_every_tsv_row_reads(tsv):
    lines = [(n, ln) for n, ln in enumerate(tsv.read_text(encoding="utf-8").splitlines(), 1)
             if ln.strip() and not ln.startswith("#")]
    problems = _read_tsv(tsv)
    assert [p.source for p in problems] == [f"{tsv}:{n}" for n, _ in lines]
    bad = [p for p in problems if p.error]
    for p in bad:
        assert KNOWN_BAD.get(tsv.name, "<none>") in p.error, f"{p.source}: {p.error}"
    if tsv.name == "yo_attacker_in_check.tsv":
        assert len(bad) == len(problems) > 0
        assert all("check" in p.error for p in bad)
    pairs = list(zip(problems, lines))
    if len(pairs) > 2000:        # the big files: a fixed sample keeps the test fast
        pairs = random.Random(7).sample(pairs, 1000)
    for p, (_, line) in pairs:
        assert p.metadata["fields"] == [f.strip() for f in line.split("\t")[1:]]
        if p.error is None:      # the collection's SFENs are explicit: auto changes nothing
            assert p.position == split_sfen(line.split("\t")[0])[0], p.source


def _usi_line(text):
    tokens = text.split()
    return tokens if tokens and all(re.fullmatch(r"[1-9][a-i][1-9][a-i]\+?|[RBGSNLP]\*[1-9][a-i]", t)
                                    for t in tokens) else None


def _round_trip_sample(tsv, rng):
    good = [p for p in _read_tsv(tsv) if p.error is None]
    return rng.sample(good, 400) if tsv.name.startswith("yo_mate") and len(good) > 400 else good


@pytest.mark.parametrize("tsv", shared_files("*.tsv"), ids=lambda p: p.name)
def test_round_trip_sfen_kif_csa(tsv):
    """SFEN -> Position -> SFEN / KIF / CSA -> Position is the identity; with the row's
    solution line (300 rows per file) the KIF and CSA move lists read back to the same
    USI moves, which also replay legally."""
    rng = random.Random(20261129)
    sample = _round_trip_sample(tsv, rng)
    with_moves = set(map(id, rng.sample(sample, min(len(sample), 300))))
    for p in sample:
        pos = p.position
        assert one(pos.sfen()).position == pos
        for text in (write_kif(pos), write_csa(pos)):
            back = one(text, defender_hand="literal")
            assert back.error is None and back.position == pos, (p.source, back.error, text)
        moves = _usi_line(p.metadata["fields"][2]) if len(p.metadata["fields"]) > 2 else None
        if moves and id(p) in with_moves:
            for text in (write_kif(pos, moves=moves), write_csa(pos, moves=moves)):
                back = one(text)
                assert back.position == pos and back.metadata["moves"] == moves, (p.source, text)


# ---------------------------------------------------------------- fuzzing
def _check_all(source):
    problems = list(read_problems(source))
    assert problems
    for p in problems:
        assert (p.position is None) == (p.error is not None)
        if p.error is not None:
            assert isinstance(p.error, str) and p.error and "\n" not in p.error and "\r" not in p.error
            assert "internal error" not in p.error, p.error
        assert all("\n" not in w for w in p.warnings)


_ALPHABET = st.sampled_from(list("0123456789+-/ *\t\nbwKRBGSNLPkrbgsnlpv|・歩香桂銀金角飛玉と龍馬同成打"
                                 "一二三四五六七八九１２３４５６７８９：,%'OUFUKYHIKAP") + ["なし", "残り全部", "\r\n", "P-00AL", "00"])
_SEEDS = [S3, S3_EXPLICIT + "\tx", "position startpos moves 7g7f 3c3d", S3_KIF, S3_CSA,
          S3_KIF.replace(S3_REST_LINE + "\n", "").replace(" ・", "  ・"),   # wide cells
          S3_CSA + "/\n" + S3_CSA, S3_KIF + S3_KIF]


@st.composite
def _mutated(draw):
    text = draw(st.sampled_from(_SEEDS))
    for _ in range(draw(st.integers(1, 6))):
        i = draw(st.integers(0, len(text)))
        op = draw(st.sampled_from(["insert", "delete", "replace", "duplicate"]))
        if op == "insert":
            text = text[:i] + draw(_ALPHABET) + text[i:]
        elif op == "delete":
            text = text[:i] + text[i + draw(st.integers(1, 8)):]
        elif op == "replace":
            text = text[:i] + draw(_ALPHABET) + text[i + 1:]
        else:
            j = draw(st.integers(0, len(text)))
            text = text[:i] + text[min(i, j):max(i, j)] + text[i:]
    return text


# TSUME_FUZZ_EXAMPLES=5000 for a long campaign; the default keeps the file fast.
_FUZZ = settings(max_examples=int(os.environ.get("TSUME_FUZZ_EXAMPLES", "150")), deadline=None,
                 database=None, suppress_health_check=list(HealthCheck))


@_FUZZ
@given(st.text(max_size=300))
def test_fuzz_random_text(text):
    _check_all(text + "\n")          # the newline keeps the text from being taken for a path


@_FUZZ
@given(st.binary(max_size=300))
def test_fuzz_random_bytes(data):
    _check_all(data)


@_FUZZ
@given(_mutated())
def test_fuzz_mutated_valid_texts(text):
    _check_all(text + "\n")
    _check_all(text.encode("cp932", errors="replace"))


@_FUZZ
@given(st.lists(st.sampled_from(sorted(P.KANJI_KIND) + [" ・", "v", " "]), min_size=9, max_size=12),
       st.integers(0, 8))
def test_fuzz_kif_grid_rows(cells, rank):
    rows = S3_KIF.split("\n")
    row_index = rows.index("+---------------------------+") + 1 + rank
    rows[row_index] = "|" + "".join(cells) + "|" + "一二三四五六七八九"[rank]
    _check_all("\n".join(rows))


def test_position_helpers_round_trip():
    pos = Position.from_sfen(S3_EXPLICIT)
    assert Position.from_sfen(pos.sfen()) == pos


def _board_outcome(parse, text):
    try:
        return parse(text).tolist()
    except Exception as exc:        # noqa: BLE001 - the message is what is compared
        return f"{type(exc).__name__}: {exc}"


def test_sfen_board_fast_read_equals_the_character_parse():
    """formats.sfen reads a board with bytes.replace/translate and hands anything that
    does not fit to the per-character parse, which names the fault: on valid boards
    and on boards broken at random (characters changed, added, removed) the two give
    the same squares or the same message."""
    from tsume.formats import sfen
    rng = random.Random(20261206)
    boards = [Position.from_sfen(text).sfen().split()[0] for text in (
        "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
        "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w GR5pnsg 1",
        "3+R3nk/8p/7P1/9/9/9/9/9/8B b rb4g4s3n4l16p 1",
        "8k/9/9/7+R1/9/9/9/9/9 b LPr2b4g4s4n3l17p 1")]
    alphabet = "0123456789/+PLNSBRGKplnsbrgk+x \u3042"
    broken = 0
    for _ in range(4000):
        text = list(rng.choice(boards))
        for _ in range(rng.randint(0, 3)):
            i = rng.randrange(len(text))
            op = rng.randrange(3)
            if op == 0:
                text[i] = rng.choice(alphabet)
            elif op == 1:
                text.insert(i, rng.choice(alphabet))
            else:
                del text[i]
        text = "".join(text)
        fast = _board_outcome(sfen._parse_board, text)
        assert fast == _board_outcome(sfen._parse_board_slowly, text), text
        broken += isinstance(fast, str)
    assert broken > 1000
