"""The solution tree (tree.py) and its KIF form (issue #47): every defender reply at every
defender turn of the main line, with its refutation, written as KIF 変化 and read back to
the same tree; python-shogi still reads the main line alone; a line the 無駄合 rule stops
ends 以下無駄合, never with a false 詰み."""
import functools
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import shared_files
from tsume import read_problems
from tsume.cli import cli
from tsume.formats.kif import write_kif
from tsume.lines import only_interpositions_left
from tsume.pipeline import solve
from tsume.position import Position
from tsume.sakui import compare
from tsume.solver import shared_solver
from tsume.tree import solution_tree, tree_size, walk

ROOT = Path(__file__).resolve().parents[1]
PROBLEMS = ROOT / "problems"
S3_SFEN = "8k/9/9/7+R1/9/9/9/9/9 b LPr2b4g4s4n3l17p 1"
MUDAAI_SFEN = "8k/6G1p/9/9/9/9/9/9/4R4 b r2b3g4s4n4l17p 1"
# SPEC's samples (S3, S-komaamari, the 無駄合 example), the generator's lines and the
# shared KIF problems of 1 and 3 plies (musou-001 takes minutes: a slow test below).
FILES = ([PROBLEMS / name for name in ("s3.sfen", "komaamari.sfen", "mudaai.csa", "tanuki.tsv",
                                       "marken-foo-3te-01.kif")]
         + shared_files("kif/marken-foo_tsumemi/*/*.kif"))


def _id(path):
    return "/".join(path.parts[-2:])


@functools.lru_cache(maxsize=None)
def solved(path):
    """(position, result with its tree) of every problem in a file, solved once (the
    余詰 check, which the tree does not need, left out: it is most of the time)."""
    return [(p.position, solve(p.position, tree=True, yozume=False))
            for p in read_problems(path) if p.position is not None]


def _replay(pos, moves):
    cur = pos.copy()
    for usi in moves:
        cur.push_usi(usi)
    return cur


def _turns(tree, root):
    """(ply, position, the line's own reply or None) of every defender turn of the main
    line, its end included when the 無駄合 rule stops it."""
    pos = root.copy()
    for i, usi in enumerate(tree["moves"]):
        if i % 2 == 1:
            yield i + 1, pos.copy(), usi
        pos.push_usi(usi)
    if tree["end"] == "mudaai":
        yield len(tree["moves"]) + 1, pos, None


@pytest.mark.parametrize("path", FILES, ids=_id)
def test_the_tree_holds_every_reply_at_every_main_line_defender_turn(path):
    for root, result in solved(path):
        tree = result.tree
        assert tree["moves"] == result.moves and tree["kind"] == "main"
        for ply, pos, own in _turns(tree, root):
            firsts = [v["moves"][0] for v in tree["variations"] if v["ply"] == ply]
            assert sorted(firsts + ([own] if own else [])) == sorted(pos.legal_moves()), ply
        end = _replay(root, tree["moves"])
        assert tree["end"] == ("mate" if end.is_mate() else "mudaai")
        assert tree["end"] == "mate" or only_interpositions_left(end)
        for variation in tree["variations"]:
            assert variation["end"] in ("mate", "mudaai"), variation     # all analysed
            before = _replay(root, tree["moves"][:variation["ply"] - 1])
            end = _replay(before, variation["moves"])
            assert (end.is_mate() if variation["end"] == "mate"
                    else only_interpositions_left(end))
            assert variation["length"] == len(variation["moves"])


@pytest.mark.parametrize("path", FILES, ids=_id)
def test_the_kif_tree_reads_back_to_the_same_tree(path):
    for root, result in solved(path):
        text = write_kif(root, moves=result.moves, tree=result.tree)
        problem = next(iter(read_problems(text)))
        assert problem.warnings == [] and problem.error is None
        assert problem.metadata["moves"] == result.moves        # the 作意 is the main line
        assert problem.metadata["tree"] == result.tree


@pytest.mark.parametrize("path", FILES, ids=_id)
def test_python_shogi_reads_the_main_line_of_a_kif_tree(path):
    shogi_kif = pytest.importorskip("shogi.KIF")
    for root, result in solved(path):
        text = write_kif(root, moves=result.moves, tree=result.tree)
        assert shogi_kif.Parser.parse_str(text)[0]["moves"] == result.moves


def test_a_line_stopped_by_the_mudaai_rule_never_ends_in_tsumi():
    pos = Position.from_sfen(MUDAAI_SFEN)
    (root, result), = solved(PROBLEMS / "mudaai.csa")
    text = write_kif(root, moves=result.moves, tree=result.tree)
    main = text[:text.index("変化：")]
    assert "   1 ５一飛成(59)" in main and "まで1手で中断" in main and "詰み" not in main
    assert "*【以下無駄合】△４一・３一・２一への合駒" in main
    # Each futile interposition is listed with the capture that refutes it.
    assert {v["moves"][0] for v in result.tree["variations"]} == set(
        _replay(pos, ["5i5a+"]).legal_moves())
    assert all(v["kind"] == "mudaai" for v in result.tree["variations"])
    # Without a tree, the writer still says 詰み only on a checkmate.
    plain = write_kif(pos, moves=["5i5a+"])
    assert "まで1手で中断" in plain and "詰み" not in plain
    assert "まで3手で詰み" in write_kif(Position.from_sfen(S3_SFEN), moves=["P*1b", "1a1b", "L*1c"])


def test_the_strict_line_is_what_usi_gets():
    (root, result), = solved(PROBLEMS / "mudaai.csa")
    assert result.moves == ["5i5a+"] and len(result.strict_moves) == result.strict_length == 7
    assert _replay(root, result.strict_moves).is_mate()
    out = CliRunner().invoke(cli, ["solve", "-f", "usi", str(PROBLEMS / "mudaai.csa")])
    assert out.exit_code == 0
    assert out.output.split("\t")[1].split() == ["checkmate"] + result.strict_moves


# A KIF with 変化 laid out as 柿木将棋 writes them: a line's 変化 from its last ply to its
# first, each followed by its own, siblings at one ply one after the other; the branch
# mark "+" on the main line too, and no tags (the kinds come from the lengths).
KIF_WITH_VARIATIONS = """\
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
手数----指手---------消費時間--
   1 ２二龍(24)   ( 0:00/00:00:00)+
   2 同　玉(11)   ( 0:00/00:00:00)
   3 中断         ( 0:00/00:00:00)
まで2手で中断

変化：1手
   1 １二歩打     ( 0:00/00:00:00)+
   2 同　玉(11)   ( 0:00/00:00:00)
   3 １三香打     ( 0:00/00:00:00)+
   4 詰み         ( 0:00/00:00:00)

変化：3手
   3 ２二龍(24)   ( 0:00/00:00:00)
*a comment
   4 同　玉(12)   ( 0:00/00:00:00)

変化：1手
   1 １三香打     ( 0:00/00:00:00)
   2 １二歩打     ( 0:00/00:00:00)
"""


def test_the_reader_places_variations_where_kif_viewers_do():
    problem = next(iter(read_problems(KIF_WITH_VARIATIONS)))
    assert problem.warnings == []
    assert problem.metadata["moves"] == ["2d2b", "1a2b"]
    tree = problem.metadata["tree"]
    assert (tree["moves"], tree["end"], tree["kind"]) == (["2d2b", "1a2b"], None, "main")
    first, second = tree["variations"]
    assert (first["ply"], first["moves"], first["end"], first["kind"]) == (
        1, ["P*1b", "1a1b", "L*1c"], "mate", "longer")
    assert (second["ply"], second["moves"], second["kind"]) == (1, ["L*1c", "P*1b"], "equal")
    (inner,) = first["variations"]
    assert (inner["ply"], inner["moves"], inner["kind"]) == (3, ["2d2b", "1b2b"], "longer")


def test_depth_size_and_budget_cut_the_tree_and_say_so():
    (root, result), = solved(PROBLEMS / "komaamari.sfen")
    solver = shared_solver()
    bare = solution_tree(solver, root, result.moves, depth=0)
    assert bare["variations"] == [] and bare["cut"] == [{"ply": 2, "why": "depth"}]
    # The first level is complete whatever the size limit; deeper ones stop at it.
    nine = shared_files("kif/marken-foo_tsumemi/3te/9.kif")
    if not nine:
        pytest.skip("shared problems absent")
    (root9, result9), = solved(nine[0])
    small = solution_tree(solver, root9, result9.moves, max_moves=1)
    assert {v["ply"] for v in small["variations"]} == {v["ply"] for v in result9.tree["variations"]}
    assert all(c["why"] == "size" for line in walk(small) for c in line["cut"])
    # No budget: every reply is listed, none analysed, none guessed.
    spent = solution_tree(solver, root, result.moves, total_nodes=0)
    assert [(v["moves"], v["length"], v["kind"], v["end"]) for v in spent["variations"]] == [
        (["2a1a"], None, None, "budget")]
    text = write_kif(root, tree=spent)
    assert "*【未解析】" in text and next(iter(read_problems(text))).metadata["tree"] == spent


def test_the_json_record_has_the_tree_only_when_asked():
    runner = CliRunner()
    komaamari = str(PROBLEMS / "komaamari.sfen")
    plain = json.loads(runner.invoke(cli, ["solve", "-f", "jsonl", "--no-yozume", komaamari]).output)
    assert plain["tree"] is None
    asked = json.loads(runner.invoke(cli, ["solve", "-f", "jsonl", "--no-yozume", "--tree",
                                           komaamari]).output)
    (variation,) = asked["tree"]["variations"]
    assert (variation["ply"], variation["moves"], variation["kind"]) == (2, ["2a1a", "1c1b"], "komaamari")
    kif = runner.invoke(cli, ["solve", "-f", "kif", "--no-yozume", "--tree-depth", "0", komaamari])
    assert "変化：" not in kif.output and "【変化省略：深さ】" in kif.output


# ---------------------------------------------------------------- flaws a person can read
def test_the_author_line_comparison_names_the_ply_and_why():
    (root, result), = solved(PROBLEMS / "komaamari.sfen")
    rec = dict(result.fields())
    assert compare(root, rec, result.moves)["departs"] is None
    # The author plays the 駒余り defence: the tree knows it lasts as long.
    departs = compare(root, rec, ["R*2b", "2a1a", "1c1b"])["departs"]
    assert departs == {"ply": 2, "ours": "2a3a", "theirs": "2a1a", "why": "komaamari"}
    s3 = Position.from_sfen(S3_SFEN)
    ours = {"moves": ["P*1b", "1a1b", "L*1c"], "length": 3, "strict_length": 3, "exact": True}
    assert compare(s3, ours, ["P*1c"])["departs"]["why"] == "not-check"
    assert compare(s3, ours, ["L*1d"] + ["x"] * 4)["departs"]["why"] == "hayazume"
    assert compare(s3, ours, ["P*1b", "1a1b", "L*1c", "x"])["departs"] == {
        "ply": 4, "ours": None, "theirs": "x", "why": "illegal"}


def test_flaws_are_grouped_per_ply_in_japanese(monkeypatch):
    from tsume import render
    from tsume.render import verdict_lines
    s3 = Position.from_sfen(S3_SFEN)
    rec = {"status": "mate", "length": 3, "strict_length": 3, "moves": ["P*1b", "1a1b", "L*1c"],
           "kifu": "▲１二歩　△同玉　▲１三香", "komaamari": False, "leftover": {}, "exact": True,
           "complete": False, "henka": [], "tree": None, "sakui": None, "yozume": [
               {"ply": 1, "move": "L*1c", "kind": "yozume", "length": 9, "line": None,
                "budget": None},
               {"ply": 1, "move": "L*1b", "kind": "yozume", "length": 7, "line": None, "budget": None},
               {"ply": 1, "move": "2d2c", "kind": "unchecked", "length": None, "line": None,
                "budget": "nodes"},
               {"ply": 3, "move": "L*1e", "kind": "unchecked", "length": None, "line": None,
                "budget": "time"},
               {"ply": 3, "move": "L*1f", "kind": "unchecked", "length": None, "line": None,
                "budget": "time"}]}
    lines = verdict_lines(rec, s3)
    assert "  1手目 ▲１二香 ほか1手で余詰 (7手で詰む)" in lines
    unchecked = next(line for line in lines if line.startswith("余詰未確認"))
    # Per ply the first open check named, the others counted.
    assert unchecked.startswith("余詰未確認 3手") and \
        unchecked.endswith(": 1手目 ▲２三龍, 3手目 ▲１五香 ほか1手")
    assert "node budget / time limit" in unchecked
    # The line of the shortest one, cut after LINE_PLIES.
    rec["yozume"] = [{"ply": 1, "move": "P*1b", "kind": "yozume", "length": 3,
                      "line": ["P*1b", "1a1b", "L*1c"], "budget": None}]
    assert "  1手目 ▲１二歩で余詰 (3手で詰む: ▲１二歩　△同玉　▲１三香)" in verdict_lines(rec, s3)
    monkeypatch.setattr(render, "LINE_PLIES", 2)
    assert "  1手目 ▲１二歩で余詰 (3手で詰む: ▲１二歩　△同玉　…)" in verdict_lines(rec, s3)
    # Without the position, in USI.
    assert "  1手目 P*1bで余詰 (3手で詰む: P*1b 1a1b …)" in verdict_lines(rec)


@pytest.mark.slow
def test_musou_001_flaws_fit_on_a_screen_and_name_where_the_lines_part():
    path = shared_files("kif/tokoroten_open-tsume/musou-001.kif")
    if not path:
        pytest.skip("shared problems absent")
    out = CliRunner().invoke(cli, ["solve", str(path[0])])
    assert out.exit_code == 0
    lines = out.output.splitlines()
    verdict = next(i for i, line in enumerate(lines) if line.startswith("USI:"))
    assert len(lines) - verdict <= 30
    assert any(line.startswith("作意と異なる") and "4手目で分岐" in line for line in lines)


def test_tree_helpers():
    (root, result), = solved(PROBLEMS / "mudaai.csa")
    assert tree_size(result.tree) == 1 + sum(len(v["moves"]) for v in result.tree["variations"])
    assert [line["ply"] for line in walk(result.tree)][0] == 1


def test_a_bad_move_is_warned_about_once():
    # On the main line, the 作意's reader says it; in a 変化, the tree's reader.
    bad_main = KIF_WITH_VARIATIONS.replace("   2 同　玉(11)   ( 0:00/00:00:00)\n   3 中断",
                                           "   2 同　金(11)   ( 0:00/00:00:00)\n   3 中断")
    problem = next(iter(read_problems(bad_main)))
    assert len(problem.warnings) == 1 and "作意 is read up to move 1" in problem.warnings[0]
    assert problem.metadata["tree"]["moves"] == ["2d2b"]
    bad_branch = KIF_WITH_VARIATIONS.replace("   3 ２二龍(24)", "   3 ２二龍(25)")
    problem = next(iter(read_problems(bad_branch)))
    assert len(problem.warnings) == 1 and "variations are read up to there" in problem.warnings[0]
    assert problem.metadata["tree"]["variations"][0]["variations"] == []
