"""One budget per problem: --time-limit and --nodes bound the whole answer (proof,
length, 無駄合, 余詰, line), not each phase, and what the budget cut is said."""
import json
import math
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from shared_data import rows
from tsume.cli import cli
from tsume.limits import (LENGTH_ALONE_TIME_SHARE, LENGTH_TIME_SHARE, MAX_NODES, RULE_NODES_MAX,
                          RULE_NODES_MIN, RULE_TIME_SHARE, YOZUME_NODES, YOZUME_SHARE, Budget,
                          Limits, available_cores)
from tsume.lines import verify_mating_line
from tsume.movegen import MAX_MOVES
from tsume.pipeline import solve
from tsume.position import Position

PROBLEMS = Path(__file__).resolve().parents[1] / "problems"
# Classics whose default answer (the exact length, the 無駄合 rule and the 余詰 check)
# takes from several seconds to a minute on this kind of machine: a 2 s limit cuts
# the proof of some and the answer of others, and must bound each whole problem.
HARD = {"musou.tsv": ("musou-001", "musou-006"), "zuko.tsv": ("zukou-003", "zukou-018")}


def _hard_rows():
    found = []
    for name, ids in HARD.items():
        found += [(cols[2], cols[0]) for cols in rows(name) if cols[2] in ids]
    return found


def _run_jsonl(tmp_path, sfens, *options):
    path = tmp_path / "problems.sfen"
    path.write_text("".join(sfen + "\n" for sfen in sfens), encoding="utf-8")
    result = CliRunner().invoke(cli, ["solve", "-f", "jsonl", *map(str, options), str(path)])
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines()]


def test_a_time_limit_bounds_the_whole_answer(tmp_path):
    hard = _hard_rows()
    solve(Position.from_sfen(hard[0][1]), answer=False)      # (numba loaded before timing)
    start = time.perf_counter()
    records = _run_jsonl(tmp_path, [sfen for _, sfen in hard], "--time-limit", 2)
    wall = time.perf_counter() - start
    assert len(records) == len(hard)
    for (pid, sfen), rec in zip(hard, records):
        assert rec["seconds"] <= 2.5, (pid, rec["seconds"])
        if rec["status"] == "mate":
            assert verify_mating_line(Position.from_sfen(sfen), rec["moves"], rule=True), pid
    assert wall <= 2.5 * len(hard) + 1.0, wall
    # The limit really cut something: an answer left open says so.
    cut = [rec for rec in records if rec["status"] == "unknown" or not rec["exact"]
           or rec["mudaai"] != "not counted"
           or any(y["kind"] == "unchecked" for y in rec["yozume"])]
    assert cut, [(r["seconds"], r["exact"], r["mudaai"]) for r in records]


@pytest.mark.parametrize("nodes", [10, 5_000, 300_000])
def test_a_node_limit_bounds_the_reported_nodes(tmp_path, nodes):
    sfens = [(PROBLEMS / "komaamari.sfen").read_text().strip()]
    sfens += [sfen for _, sfen in _hard_rows()[:2]] + [c[0] for c in rows("yo_mate7.tsv", limit=3)]
    threads = available_cores()         # (the CLI's default --threads)
    for sfen, rec in zip(sfens, _run_jsonl(tmp_path, sfens, "--nodes", nodes)):
        # (A search stops after the node it is expanding: one expansion's children past,
        # in each of its threads.)
        assert 0 < rec["nodes"] <= nodes + threads * MAX_MOVES, (sfen, rec["nodes"])
        assert rec["status"] in ("mate", "unknown"), rec
        if rec["status"] == "unknown":
            assert rec["reason"] == "node limit", rec


def test_the_python_api_takes_the_same_limits():
    pos = Position.from_sfen("7k1/8s/8+P/9/7n1/9/9/9/9 b RSr2b4g2s3n4l17p 1")
    assert solve(pos, nodes=1_000).nodes <= 1_000 + MAX_MOVES
    assert solve(pos, Limits(nodes=1_000)).nodes <= 1_000 + MAX_MOVES
    full = solve(pos, Limits(yozume=False))
    assert full.status == "mate" and full.length == 3 and full.exact and not full.yozume


@pytest.mark.parametrize("bad", [dict(time_limit=math.nan), dict(time_limit=math.inf),
                                 dict(time_limit=0), dict(nodes=0), dict(nodes=MAX_NODES + 1),
                                 dict(yozume_nodes=-1)])
def test_limits_refuse_what_cannot_be_a_limit(bad):
    with pytest.raises(ValueError):
        Limits(**bad)


def test_the_mudaai_rule_leaves_time_for_the_yozume_check():
    """With a time limit, the 無駄合 rule's questions stop at RULE_TIME_SHARE of the time
    left when the 余詰 check follows; without it, or with a node limit (which shares
    by nodes), they may go to the deadline."""
    budget = Budget(Limits(time_limit=10.0))
    before = time.perf_counter()
    until = budget.rule_until(True)
    after = time.perf_counter()

    def share_from(now):
        return now + (budget.deadline - now) * RULE_TIME_SHARE
    assert share_from(before) <= until <= share_from(after) < budget.deadline
    assert budget.rule_until(False) == budget.deadline
    both = Budget(Limits(time_limit=10.0, nodes=10**6))
    assert both.rule_until(True) == both.deadline
    assert Budget(Limits()).rule_until(True) is None


def test_the_length_alone_may_take_nearly_all_of_a_time_limit():
    """With a time limit, the shortest length's questions go on past their node share
    until LENGTH_TIME_SHARE of the time left when the 無駄合 rule, the 余詰 check or
    the tree follow them, and until LENGTH_ALONE_TIME_SHARE when only the line is left
    to read (--answer length): a share kept for phases that never run would be time
    the length goes without. With a node limit, or without a time limit, never past
    their node share."""
    budget = Budget(Limits(time_limit=10.0, answer="length"))

    def share_from(now, share):
        return now + (budget.deadline - now) * share
    for follow, share in ((True, LENGTH_TIME_SHARE), (False, LENGTH_ALONE_TIME_SHARE)):
        before = time.perf_counter()
        until = budget.length_until(follow)
        after = time.perf_counter()
        assert share_from(before, share) <= until <= share_from(after, share) < budget.deadline
    assert LENGTH_TIME_SHARE < LENGTH_ALONE_TIME_SHARE < 1
    assert Budget(Limits(time_limit=10.0, nodes=10**6)).length_until(False) is None
    assert Budget(Limits()).length_until(False) is None


def test_a_cheap_length_leaves_the_mudaai_rule_its_whole_share_under_a_time_limit():
    """Without limits the 無駄合 rule's questions get twice what the problem took before
    them, within RULE_NODES_MIN and RULE_NODES_MAX; with a time limit the most, whatever
    the length took (their share of the time bounds them), so that a length settled
    in fewer nodes does not cut the rule's answer short; with a node limit, at most
    what the length's questions left."""
    free = Budget(Limits())
    assert free.rule_nodes(1_000, 0) == RULE_NODES_MIN
    assert free.rule_nodes(10**9, 0) == RULE_NODES_MAX
    timed = Budget(Limits(time_limit=10.0))
    assert timed.rule_nodes(1_000, 0) == timed.rule_nodes(10**9, 0) == RULE_NODES_MAX
    assert Budget(Limits(time_limit=10.0, nodes=10**6)).rule_nodes(1_000, 500) == 500


def test_the_yozume_check_widens_within_its_share_unless_capped():
    """--yozume-nodes caps the 余詰 check a reply; unless it is given, the check goes on
    past YOZUME_NODES a reply until it has taken YOZUME_SHARE times what the problem
    took before it (or the deadline, or the node limit), with a time limit or not: a
    share in nodes gives a run without a limit the answer of a run whose limit it does
    not reach."""
    widened = (YOZUME_NODES, 1_000_000 * (1 + YOZUME_SHARE))
    for limits in (Limits(time_limit=10.0), Limits(), Limits(nodes=10**7)):
        assert Budget(limits).yozume_nodes(None, 1_000_000) == widened
        assert Budget(limits).yozume_nodes(5_000, 1_000_000) == (5_000, None)


def test_a_time_limit_does_not_count_loading_the_compiled_code(monkeypatch):
    """The first solve() with a time limit in a process loads (after installing: compiles)
    the compiled code before its clock starts, once: a fresh install's first problems
    used to spend their limit compiling and end unknown, past the limit. Here the load
    is made to take longer than the limit; the answer is still complete."""
    from tsume import pipeline
    real, loads = pipeline.warm_up, []

    def slow_load(bulk=False):
        real(bulk)
        time.sleep(0.6)
        loads.append(bulk)
    monkeypatch.setattr(pipeline, "_warm", False)
    monkeypatch.setattr(pipeline, "warm_up", slow_load)
    pos = Position.from_sfen("8k/9/9/7+R1/9/9/9/9/9 b LPr2b4g4s4n3l17p 1")
    first, second = solve(pos, time_limit=0.5), solve(pos, time_limit=0.5)
    assert loads == [False]
    assert first.status == second.status == "mate" and first.exact and second.exact
