"""solve_many: the proof-only batch path (bulk.py) gives solve()'s results.

Two solvers seeded alike draw the same salts, so solve_many on one and solve() one by
one on the other search every problem node for node alike: their Results must agree in
every field but the time. The paths a batch hands back to Python (a search still
unsettled after its first nodes, a line longer than the line buffer, a stop request)
are forced with small settings, on problems that would not reach them."""
import dataclasses
import random
import subprocess
import sys

import pytest

from randpos import random_position
from shared_data import rows
from tsume import bulk, pipeline
from tsume.lines import verify_mating_line
from tsume.position import Position
from tsume.solver import Solver

try:
    import cshogi
except ImportError:          # the replays by cshogi are then left out
    cshogi = None

SEED = 17


def _fields(result):
    out = dataclasses.asdict(result)
    del out["seconds"]
    return out


def _agree(positions, seed=SEED, **limits):
    """solve_many on a seeded solver against solve() one by one on another; returns the
    batch's Results."""
    many = pipeline.solve_many(positions, answer=False, solver=Solver(16, seed=seed), **limits)
    reference = Solver(16, seed=seed)
    assert len(many) == len(positions)
    for k, (pos, got) in enumerate(zip(positions, many)):
        want = pipeline.solve(pos, answer=False, solver=reference, **limits)
        assert _fields(got) == _fields(want), (k, pos.sfen())
        assert got.seconds >= 0
    return many


def _assert_mates(positions, results):
    for pos, result in zip(positions, results):
        if result.status != "mate":
            continue
        assert result.length == len(result.moves)
        assert verify_mating_line(pos, result.moves), pos.sfen()
        if cshogi is not None:
            board = cshogi.Board(pos.sfen())
            for i, usi in enumerate(result.moves):
                move = board.move_from_usi(usi)
                assert board.is_legal(move), (pos.sfen(), i, usi)
                board.push(move)
                assert i % 2 or board.is_check(), (pos.sfen(), i, usi)
            assert board.is_check() and board.is_game_over(), pos.sfen()


def _positions(name, limit):
    return [Position.from_sfen(cols[0]) for cols in rows(name, limit)]


@pytest.mark.parametrize("name, limit", [("yo_mate3.tsv", 300), ("yo_mate5.tsv", 300),
                                         ("yo_mate7.tsv", 300)])
def test_game_positions_agree_with_solve(name, limit):
    positions = _positions(name, limit)
    results = _agree(positions)
    assert all(r.status == "mate" for r in results)
    _assert_mates(positions, results)


def _mixed():
    """Mates, no mates and problems out of a small node budget, interleaved."""
    rng = random.Random(5)
    found = _positions("yo_mate3.tsv", 30) + _positions("yo_mate9.tsv", 30)
    found += [random_position(rng) for _ in range(60)]
    edge = {cols[2]: cols[0] for cols in rows("edge_cases.tsv")}
    found.append(Position.from_sfen(edge["cshogi-issue54-case1"]))    # no mate, 45K nodes
    found.append(Position.from_sfen("9/9/9/9/4k4/9/9/9/9 b 2r2b4g4s4n4l18p 1"))
    random.Random(6).shuffle(found)
    return found


def test_mates_nomates_and_node_limits_agree_with_solve():
    positions = _mixed()
    results = _agree(positions, nodes=3_000)
    statuses = {r.status for r in results}
    assert statuses == {"mate", "nomate", "unknown"}
    assert {r.reason for r in results if r.status == "unknown"} == {"node limit"}
    _assert_mates(positions, results)


def test_searches_handed_back_go_on_where_the_kernel_stopped(monkeypatch):
    """A problem unsettled after HANDOFF_NODES goes on in Python (Solver.search) from the
    table and nodes the kernel left: the same search as solve()'s. CALL_NODES this small
    also makes every few problems a call of their own."""
    monkeypatch.setattr(bulk, "HANDOFF_NODES", 300)
    monkeypatch.setattr(bulk, "CALL_NODES", 2_000)
    positions = _mixed()
    handed = []
    take_over = pipeline._take_over
    monkeypatch.setattr(pipeline, "_take_over", lambda *a: handed.append(a[3]) or take_over(*a))
    results = _agree(positions, nodes=50_000)
    assert len(handed) >= 5
    assert max(r.nodes for r in results if r.status != "unknown") > 10_000   # far past 300
    assert {r.status for r in results} == {"mate", "nomate", "unknown"}
    _assert_mates(positions, results)


@pytest.mark.parametrize("plies", [1, 4])
def test_lines_longer_than_the_buffer_are_read_by_the_ordinary_path(monkeypatch, plies):
    monkeypatch.setattr(bulk, "LINE_PLIES", plies)
    positions = _positions("yo_mate3.tsv", 40) + _positions("yo_mate5.tsv", 40)
    handed = []
    take_over = pipeline._take_over
    monkeypatch.setattr(pipeline, "_take_over", lambda *a: handed.append(a[3]) or take_over(*a))
    results = _agree(positions)
    assert len(handed) == sum(len(r.moves) > plies for r in results) > 0
    _assert_mates(positions, results)


def test_a_stop_request_ends_the_batch(monkeypatch):
    """Solver.stop during the batch: the problem searched and the rest are unknown,
    interrupted; those before it keep their results."""
    monkeypatch.setattr(bulk, "HANDOFF_NODES", 500)
    positions = _mixed()

    class Stopping(Solver):
        def search(self, *args, **kwargs):       # (only a handed-back search comes here)
            self.stop()
            return super().search(*args, **kwargs)

    results = pipeline.solve_many(positions, answer=False, solver=Stopping(16, seed=SEED))
    first = next(k for k, r in enumerate(results) if r.reason == "interrupted")
    assert len(results) == len(positions)
    assert all(r.status == "unknown" and r.reason == "interrupted" for r in results[first:])
    assert all(r.reason != "interrupted" for r in results[:first]) and first > 0


def test_the_answer_and_time_limits_take_solve_one_by_one():
    positions = [Position.from_sfen("8k/9/9/7+R1/9/9/9/9/9 b LPr2b4g4s4n3l17p 1"),
                 Position.from_sfen("9/9/9/9/4k4/9/9/9/9 b 2r2b4g4s4n4l18p 1")]
    full = pipeline.solve_many(positions, solver=Solver(16, seed=1))
    assert [r.status for r in full] == ["mate", "nomate"]
    assert full[0].exact and full[0].moves == ["P*1b", "1a1b", "L*1c"]
    timed = pipeline.solve_many(positions, answer=False, time_limit=10, solver=Solver(16))
    assert [r.status for r in timed] == ["mate", "nomate"]
    assert pipeline.solve_many([], answer=False) == []


def test_positions_are_left_as_they_were():
    positions = _positions("yo_mate5.tsv", 50)
    before = [(p.board.copy(), p.hands.copy(), p.state.copy()) for p in positions]
    pipeline.solve_many(positions, answer=False, solver=Solver(16))
    for p, (board, hands, state) in zip(positions, before):
        assert (p.board == board).all() and (p.hands == hands).all() and (p.state == state).all()


def test_the_plain_solve_path_does_not_load_the_batch_kernel():
    code = ("import sys; from tsume import Position, solve; "
            "solve(Position.from_sfen('8k/9/9/7+R1/9/9/9/9/9 b LPr2b4g4s4n3l17p 1'), answer=False); "
            "print('tsume.bulk' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
