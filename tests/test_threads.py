"""Searches in several threads sharing one table (Solver.threads): the same verdicts as
one thread, lines that mate, a stop that ends every thread, and a table whose entries
cannot be read half-written."""
import threading

import numpy as np
import pytest

cshogi = pytest.importorskip("cshogi")

from shared_data import rows  # noqa: E402
from test_dfpn import assert_line_mates_under_cshogi  # noqa: E402
from tsume import solver as solver_module  # noqa: E402
from tsume.pipeline import solve  # noqa: E402
from tsume.position import Position  # noqa: E402
from tsume.solver import Solver  # noqa: E402
from tsume.tt import LOOK_SIZE, V_PN, new_table, tt_lookup, tt_store  # noqa: E402


@pytest.fixture
def threads_from_the_start(monkeypatch):
    """Every slice in threads, and small slices: short problems then go through the
    threaded path many times over (helpers started, stopped, a root settled by either)."""
    monkeypatch.setattr(solver_module, "PARALLEL_AFTER", 0)
    monkeypatch.setattr(solver_module, "SLICE_NODES", 3_000)


@pytest.mark.parametrize("name, limit", [("yo_mate9.tsv", 60), ("yo_mate11.tsv", 30),
                                         ("tanuki_generated.tsv", 60)])
def test_threads_prove_what_one_thread_proves(threads_from_the_start, name, limit):
    solver = Solver(hash_mb=64)
    for cols in rows(name, limit, seed=23):
        position = Position.from_sfen(cols[0])
        one = solve(position, answer=False, solver=solver, threads=1)
        two = solve(position, answer=False, solver=solver, threads=2)
        assert one.status == two.status == "mate", (cols[2], one.status, two.status)
        assert_line_mates_under_cshogi(cols[0], two.moves)


def test_threads_disprove_what_one_thread_disproves(threads_from_the_start):
    shared = {c[2]: c for c in rows("musou.tsv")}
    sfen = shared["musou-088"][0]         # 不詰 as transcribed (test_dfpn)
    for threads in (1, 2):
        result = solve(Position.from_sfen(sfen), answer=False, nodes=20_000_000,
                       solver=Solver(hash_mb=256), threads=threads)
        assert result.status == "nomate", threads


def test_threaded_answer_is_the_answer_of_one_thread(threads_from_the_start):
    """The answer (shortest length, the line by the rules) reads the table the threads
    filled: the same length and line."""
    for cols in rows("yo_mate7.tsv", 12, seed=3):
        position = Position.from_sfen(cols[0])
        one = solve(position, answer="length", solver=Solver(hash_mb=32), threads=1)
        two = solve(position, answer="length", solver=Solver(hash_mb=32), threads=2)
        assert (two.status, two.length, two.exact) == (one.status, one.length, one.exact), cols[2]
        if one.exact:
            assert two.moves == one.moves, cols[2]


def test_threads_answer_the_yozume_question_as_one_thread(threads_from_the_start):
    """Solver.search(only=check) in threads (the helpers search the same one-check
    root, whose result is read from the check's entry when a helper settles it): the
    verdicts of one thread."""
    from tsume import movegen
    settled = 0
    solvers = (Solver(hash_mb=32, seed=1), Solver(hash_mb=32, seed=2))
    solvers[1].threads = 2
    for cols in rows("tanuki_generated.tsv", 8, seed=29):
        position = Position.from_sfen(cols[0])
        for check in movegen.check_moves_of(position):
            verdicts = []
            for solver in solvers:
                solver.new_problem()
                pn, dn, _, _ = solver.search(position, 200_000, expect_no_mate=True, only=check)
                verdicts.append("mate" if pn == 0 else "escape" if dn == 0 else "open")
            if "open" not in verdicts:
                assert verdicts[0] == verdicts[1], (cols[2], check)
                settled += 1
    assert settled > 30


def test_a_stop_ends_every_thread():
    bare_king = "7k1/9/9/9/9/9/9/9/9 b B2G2SL2P2rb2g2s4n3l16p 1"   # no mate, and hard
    solver = Solver(hash_mb=64)
    before = threading.active_count()
    timer = threading.Timer(1.0, solver.stop)
    timer.start()
    result = solve(Position.from_sfen(bare_king), solver=solver, threads=2)
    assert result.status == "unknown" and result.reason == "interrupted"
    assert result.nodes > solver_module.PARALLEL_AFTER      # (the threads did run)
    timer.join()
    assert threading.active_count() == before


def test_a_half_written_entry_is_no_entry():
    """Another thread may be writing an entry while it is read: a read that mixes old
    and new words must not find a result in it (tt.py's entry check)."""
    keys, hands, vals = new_table(1)
    out = np.zeros(LOOK_SIZE, dtype=np.int64)
    key, hand = np.int64(0x1234_5678_9ABC), np.int64(3)
    tt_store(keys, hands, vals, np.int32(1), key, hand, np.int64(5), np.int64(7), np.int64(10),
             np.int64(0))
    assert tt_lookup(keys, hands, vals, key, hand, np.int64(100), out)
    assert tuple(out[:2]) == (5, 7)
    slot = int(np.flatnonzero(keys == key)[0])
    # A proof of the same position half stored: pn written, the rest not yet.
    vals[slot, V_PN] = 0
    assert not tt_lookup(keys, hands, vals, key, hand, np.int64(100), out)
    # Once the whole entry is written, it is found.
    tt_store(keys, hands, vals, np.int32(1), key, hand, np.int64(0), np.int64(1 << 30),
             np.int64(10), np.int64(9))
    assert tt_lookup(keys, hands, vals, key, hand, np.int64(100), out)
    assert tuple(out[:2]) == (0, 1 << 30) and out[2] == 9


def test_the_cli_answers_alike_with_any_number_of_threads(threads_from_the_start):
    import json
    from pathlib import Path

    from test_cli import run
    problems = Path(__file__).resolve().parents[1] / "problems"
    out = {}
    for threads in ("1", "2"):
        result = run("solve", "--threads", threads, "-f", "jsonl", "--time-limit", "60",
                     problems / "zukou-002.sfen", problems / "tanuki.tsv")
        assert result.exit_code == 0, result.stderr
        out[threads] = [json.loads(line) for line in result.stdout.splitlines()]
    keep = ("id", "status", "length", "exact", "moves", "yozume", "mudaai", "complete")
    def kept(records):
        return [{k: r[k] for k in keep} for r in records]
    assert kept(out["1"]) == kept(out["2"])
    assert run("solve", "--threads", "0", problems / "s3.sfen").exit_code == 2


@pytest.mark.parametrize("nodes", [150_000, 400_000, 1_000_000])
def test_a_node_limit_holds_in_threads(nodes):
    """Each thread has its share of the nodes left: the problem's nodes pass its limit
    by no more than one expansion's children per thread (limits.py)."""
    from tsume.movegen import MAX_MOVES
    bare_king = "7k1/9/9/9/9/9/9/9/9 b B2G2SL2P2rb2g2s4n3l16p 1"
    for threads in (2, 3):
        result = solve(Position.from_sfen(bare_king), nodes=nodes, solver=Solver(hash_mb=64),
                       threads=threads)
        assert result.status == "unknown" and result.reason == "node limit"
        assert nodes - threads * MAX_MOVES <= result.nodes <= nodes + threads * MAX_MOVES, threads
