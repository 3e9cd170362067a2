"""Batches (tsume/batch.py): answer levels, records in input order with id and
metadata, --jobs workers that die, SIGTERM/SIGINT, --output/--resume, and a Dask
cluster through --scheduler.

The tests that run `tsume` as a process start it in a session of its own and kill that
session at the end, so that a failing test leaves no worker behind. Those that need the
shared problem collection or Dask skip when it is absent.
"""
import contextlib
import json
import logging
import multiprocessing
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from shared_data import rows
from tsume import batch, pipeline
from tsume.cli import cli
from tsume.formats import read_problems
from tsume.limits import Limits

ROOT = Path(__file__).resolve().parents[1]
PROBLEMS = ROOT / "problems"
S3_SFEN = "8k/9/9/7+R1/9/9/9/9/9 b LPr2b4g4s4n3l17p 1"
MATE1 = "9/7Sk/1+R7/9/9/9/9/9/9 b r2b4g3s4n4l18p 1"
MATE3 = "9/8k/9/7RG/9/9/9/9/9 b r2b3g4s4n4l18p 1"
MATE5 = "9/9/8k/7R1/7G1/9/9/9/9 b r2b3g4s4n4l18p 1"
KOMAAMARI = "7k1/8s/8+P/9/7n1/9/9/9/9 b RSr2b4g2s3n4l17p 1"
# 驚愕の曠野, a bare king whose proof takes far longer than any test waits.
HARD = "4k4/9/9/9/9/9/9/9/9 b B4G2S9P2rb2s4n4l9p 1"
HEADER = "# sfen\tmate_length\tsource_id\tsolution_usi (one shortest line)\n"
ENV = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
ENV.pop("TSUME_DEBUG", None)


def run(*args, input=None):
    try:
        runner = CliRunner(mix_stderr=False)
    except TypeError:
        runner = CliRunner()
    result = runner.invoke(cli, [str(a) for a in args], input=input, catch_exceptions=True)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def tsv(tmp_path, name, count, seed=5, extra=""):
    """`count` rows of a shared yo_mate file (with their header line) in tmp_path."""
    path = tmp_path / name
    path.write_text(HEADER + "".join("\t".join(r) + "\n" for r in rows(name, count, seed))
                    + extra, encoding="utf-8")
    return path


def records(text):
    return [json.loads(line) for line in text.splitlines()]


def verdicts(recs):
    return {r["source"]: (r["status"], r["length"], r["moves"]) for r in recs}


def line_number(source):
    return int(source.rsplit(":", 1)[1])


# ---------------------------------------------------------------- processes
@contextlib.contextmanager
def tsume_process(*args, cwd):
    """`python -m tsume ARGS` in a session of its own; the session is killed at the end."""
    proc = subprocess.Popen([sys.executable, "-m", "tsume", *map(str, args)], cwd=cwd, env=ENV,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        yield proc
    finally:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()


def rest(proc, timeout=300):
    """The rest of the output after lines read with readline (communicate() would lose
    what the pipe's buffer holds), the process ended; the session is killed after
    `timeout` seconds so that a hung run fails instead of hanging the suite."""
    import threading
    timer = threading.Timer(timeout, lambda: os.killpg(proc.pid, signal.SIGKILL))
    timer.start()
    try:
        out, err = proc.stdout.read(), proc.stderr.read()
        proc.wait()
    finally:
        timer.cancel()
    return out, err


def _stat(pid):
    """(state, ppid, session) of a process from /proc, None if it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()
    return fields[0], int(fields[1]), int(fields[3])


def _pids():
    return [int(p) for p in os.listdir("/proc") if p.isdigit()]


def alive_in_session(sid):
    """Processes of the session that are not zombies (a zombie is dead: it only waits to
    be reaped by whoever adopted it)."""
    found = []
    for pid in _pids():
        stat = _stat(pid)
        if stat and stat[2] == sid and stat[0] != "Z":
            found.append(pid)
    return found


def local_workers(parent):
    """The --jobs worker processes of `parent` (not its resource tracker)."""
    found = []
    for pid in _pids():
        stat = _stat(pid)
        if stat and stat[1] == parent and stat[0] != "Z":
            with contextlib.suppress(OSError):
                if b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes():
                    found.append(pid)
    return found


needs_proc = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs /proc")


# ---------------------------------------------------------------- what a batch pays for
def test_answer_levels():
    """--answer proof: a verified mate, nothing more; length: the exact length with every
    interposition counted, no 無駄合 analysis and no 余詰 check; full: both. The Python
    API takes the same levels and still takes answer=True/False."""
    assert Limits(answer="length") == Limits(yozume=False, mudaai=False)
    assert Limits(answer="proof") == Limits(answer=False) and Limits(answer="full") == Limits()
    assert [Limits(answer=a).level for a in ("proof", "length", "full")] == ["proof", "length", "full"]
    with pytest.raises(ValueError):
        Limits(answer="fast")
    mudaai = PROBLEMS / "mudaai.csa"
    found = {}
    for level in ("proof", "length", "full"):
        result = run("solve", "-f", "jsonl", "--answer", level, PROBLEMS / "s3.sfen", mudaai)
        assert result.exit_code == 0, result.stderr
        found[level] = records(result.stdout)
    proof, length, full = (found[k] for k in ("proof", "length", "full"))
    assert all(r["status"] == "mate" for r in proof + length + full)
    assert [r["mudaai"] for r in proof] == [None, None]
    assert not any(r["exact"] or r["complete"] for r in proof)
    assert [r["mudaai"] for r in length] == ["counted", "counted"]
    assert all(r["exact"] and not r["complete"] for r in length)
    # (other mates at the last move come with the line; the 余詰 check is what is left out)
    assert all(y["kind"] == "last-move" for r in length for y in r["yozume"])
    # The futile interpositions count in `length`, not in `full`.
    assert length[1]["length"] == length[1]["strict_length"] == full[1]["strict_length"]
    assert full[1]["length"] < full[1]["strict_length"]
    assert full[0]["complete"] and full[0]["mudaai"] == "not counted"
    assert "(proof only)" in run("solve", "--answer", "proof", PROBLEMS / "s3.sfen").stdout


# ---------------------------------------------------------------- proof-only batches
PROOF = {"answer": "proof", "time_limit": None, "nodes": None, "hash_mb": 256, "yozume": True,
         "yozume_nodes": None}
NOMATE = "9/9/9/9/4k4/9/9/9/9 b 2r2b4g4s4n4l18p 1"


def without_seconds(outcomes):
    """solve_chunk's outcomes by index, each problem's time left out (the one field a
    batch's proofs, timed per call and shared out by nodes, give otherwise)."""
    found = {}
    for index, fields in outcomes:
        found[index] = {k: v for k, v in fields.items() if k != "seconds"} \
            if isinstance(fields, dict) else fields
    return found


def spy_solve_many(monkeypatch):
    """The sizes of the batches pipeline.solve_many is given, in this process."""
    sizes = []
    real = pipeline.solve_many
    monkeypatch.setattr(pipeline, "solve_many",
                        lambda positions, **kw: sizes.append(len(positions)) or real(positions, **kw))
    return sizes


def test_a_proof_only_chunk_is_proven_together_as_one_by_one(monkeypatch):
    """--answer proof without a time limit: a chunk's problems go to solve_many together,
    and each gets the fields solve() one by one gives it (the time aside); a problem that
    cannot be read is its own error, the others are answered."""
    sfens = [r[0] for r in rows("yo_mate3.tsv", 200)] + [r[0] for r in rows("yo_mate5.tsv", 200)]
    random.Random(3).shuffle(sfens)
    sfens[40:40] = ["not a problem"]
    sfens[300:300] = ["9/9/9 b - 1"]
    problems = list(enumerate(sfens))
    sizes = spy_solve_many(monkeypatch)
    together = without_seconds(batch.solve_chunk(problems, PROOF))
    assert sizes == [400]
    one_by_one = without_seconds(o for p in problems for o in batch.solve_chunk([p], PROOF))
    assert sizes == [400]                       # (a lone problem is solve()'s)
    assert together == one_by_one
    assert [k for k, f in together.items() if isinstance(f, str)] == [40, 300]
    assert together[40].startswith("internal error: ")
    mates = [f for f in together.values() if isinstance(f, dict)]
    assert len(mates) == 400 and all(f["status"] == "mate" and f["kifu"] for f in mates)
    assert {f["length"] for f in mates} >= {3, 5}


def test_proof_only_chunks_keep_node_limits_and_no_mates(monkeypatch):
    sfens = [S3_SFEN, NOMATE, HARD, MATE1, "not a problem", MATE5, KOMAAMARI]
    problems = list(enumerate(sfens))
    limits = dict(PROOF, nodes=3_000, hash_mb=16)
    sizes = spy_solve_many(monkeypatch)
    together = without_seconds(batch.solve_chunk(problems, limits))
    one_by_one = without_seconds(o for p in problems for o in batch.solve_chunk([p], limits))
    assert sizes == [6] and together == one_by_one
    assert [together[k]["status"] for k in range(4)] == ["mate", "nomate", "unknown", "mate"]
    assert together[2]["reason"] == "node limit"
    # A time limit, or the answer, takes solve() one problem at a time.
    for other in (dict(limits, time_limit=10.0), dict(limits, answer="length")):
        sizes.clear()
        assert not batch.proof_only(other)
        batch.solve_chunk(problems[:2], other)
        assert sizes == []


def test_a_failing_batch_is_solved_one_problem_at_a_time(monkeypatch):
    """Should solve_many itself fail, each problem of the chunk is solved on its own (so
    a bug is the record of the problem that causes it)."""
    problems = list(enumerate([S3_SFEN, MATE1, MATE3]))

    def broken(positions, **kw):
        raise RuntimeError("a bug")

    expected = without_seconds(batch.solve_chunk(problems, PROOF))
    monkeypatch.setattr(pipeline, "solve_many", broken)
    assert without_seconds(batch.solve_chunk(problems, PROOF)) == expected


def test_proof_only_batches_get_chunks_in_this_process_and_with_jobs(tmp_path, monkeypatch):
    """`tsume solve --answer proof` hands solve_many chunks of many problems, serial or
    with --jobs (LocalPool's chunks counted as they are sent); the records are those of
    the problem-by-problem path (the time aside), in input order."""
    paths = [tsv(tmp_path, "yo_mate3.tsv", 300), tsv(tmp_path, "yo_mate5.tsv", 200)]
    args = ("solve", "-f", "jsonl", "--answer", "proof", *paths)
    sizes = spy_solve_many(monkeypatch)
    serial = run(*args)
    assert serial.exit_code == 0, serial.stderr
    assert max(sizes) > 50 and sum(sizes) > 400
    sent = []
    submit = batch.LocalPool.submit
    monkeypatch.setattr(batch.LocalPool, "submit",
                        lambda self, chunk: (sent.append(len(chunk)), submit(self, chunk)))
    jobs = run(*args, "-j", "2")
    assert jobs.exit_code == 0, jobs.stderr
    # (A chunk is at most a share of the problems read so far, and how many are read
    # before the workers' first answers depends on the machine's load: the largest was
    # 59-60 on a quiet machine, 45 in a loaded CI run. Twenty is still many problems to
    # a call, far from one by one.)
    assert max(sent) > 20 and sum(sent) == 500
    monkeypatch.setattr(batch, "proof_only", lambda limits: False)
    sizes.clear()
    each = run(*args)
    assert sizes == []
    expected = [{k: v for k, v in r.items() if k != "seconds"} for r in records(each.stdout)]
    assert len(expected) == 500 and {r["status"] for r in expected} == {"mate"}
    for result in (serial, jobs):
        assert [{k: v for k, v in r.items() if k != "seconds"}
                for r in records(result.stdout)] == expected


@needs_proc
def test_ctrl_c_ends_a_proof_only_batch_promptly(tmp_path):
    """SIGINT in the middle of a serial proof-only batch (chunks of hundreds, each proven
    by compiled calls of a fraction of a second): exit 130 within a few seconds, the
    records written whole and in input order."""
    path = tsv(tmp_path, "yo_mate5.tsv", None)
    total = sum(1 for line in path.open(encoding="utf-8") if not line.startswith("#"))
    with tsume_process("solve", "-f", "jsonl", "--answer", "proof", path, cwd=tmp_path) as proc:
        lines = [proc.stdout.readline() for _ in range(1500)]
        os.kill(proc.pid, signal.SIGINT)
        sent = time.monotonic()
        out, err = rest(proc, 60)
        took = time.monotonic() - sent
    assert proc.returncode == 130, err.decode()
    assert err.decode().strip().endswith("interrupted")
    assert took < 5
    recs = records(b"".join(lines).decode() + out.decode())
    assert 1500 <= len(recs) < total
    assert [line_number(r["source"]) for r in recs] == list(range(2, len(recs) + 2))


# ---------------------------------------------------------------- records line up with input
def test_id_and_metadata(tmp_path):
    """id: the TSV's id column named by its `#` header, else the KIF/CSA title, else the
    source; metadata: the title and author, the TSV's other named columns, or its
    unnamed ones as `fields`."""
    named = tmp_path / "named.tsv"
    named.write_text("# 将棋図巧 sfen\tmate_length (as published)\tsource_id\tnote\n"
                     f"{S3_SFEN}\t3\tzukou-000\ta note\n", encoding="utf-8")
    bare = tmp_path / "bare.tsv"
    bare.write_text(f"{S3_SFEN}\t3\tx-1\n", encoding="utf-8")
    result = run("solve", "-f", "jsonl", "--answer", "proof", named, bare,
                 PROBLEMS / "s3.kif", PROBLEMS / "s3.sfen")
    assert result.exit_code == 0, result.stderr
    recs = records(result.stdout)
    assert [r["id"] for r in recs] == ["zukou-000", f"{bare}:1", "S3 (SPEC §2.7)", f"{PROBLEMS / 's3.sfen'}:1"]
    assert recs[0]["metadata"] == {"mate_length": "3", "note": "a note"}
    assert recs[1]["metadata"] == {"fields": ["3", "x-1"]}
    assert recs[2]["metadata"]["title"] == "S3 (SPEC §2.7)"
    assert recs[3]["metadata"] == {}
    assert batch.header_columns(named) == ["将棋図巧", "mate_length", "source_id", "note"]


def _mixed_input(tmp_path):
    """Good and bad problems interleaved, with a missing path: the sources in order."""
    path = tmp_path / "mixed.tsv"
    path.write_text(HEADER + f"{S3_SFEN}\t3\tgood-1\n" + "9/9/9 b - 1\t0\tbad-1\n"
                    + f"{MATE1}\t1\tgood-2\n" + "not a problem\t0\tbad-2\n"
                    + f"{S3_SFEN}\t3\tgood-3\n", encoding="utf-8")
    missing = tmp_path / "missing.sfen"
    sources = [f"{path}:{n}" for n in (2, 3, 4, 5, 6)] + [str(missing), f"{PROBLEMS / 's3.kif'}:1"]
    return [path, missing, PROBLEMS / "s3.kif"], sources


@pytest.mark.parametrize("fmt", ["json", "jsonl", "usi", "kif", "text"])
def test_every_format_has_one_record_per_problem_in_input_order(tmp_path, fmt):
    paths, sources = _mixed_input(tmp_path)
    jobs = "2" if fmt in ("jsonl", "usi") else "1"
    result = run("solve", "-f", fmt, "-j", jobs, "--answer", "proof", *paths)
    assert result.exit_code == 2, result.stderr          # bad inputs: 2, the rest answered
    assert len(result.stderr.splitlines()) == 3
    out = result.stdout
    if fmt in ("json", "jsonl"):
        recs = json.loads(out) if fmt == "json" else records(out)
        assert [r["source"] for r in recs] == sources
        assert [r["status"] for r in recs] == ["mate", "error", "mate", "error", "mate",
                                               "error", "mate"]
        assert [r["id"] for r in recs][:3] == ["good-1", "bad-1", "good-2"]
    elif fmt == "usi":
        lines = out.splitlines()
        assert [ln.split("\t")[0] for ln in lines] == sources
        assert [ln.split("\t")[1].split()[0] for ln in lines] == [
            "checkmate", "error", "checkmate", "error", "checkmate", "error", "checkmate"]
        assert "no such file" in lines[5]
    else:
        blocks = out.strip("\n").split("\n\n")
        heads = [b.splitlines()[0] for b in blocks]
        assert heads == ([f"# {s}" for s in sources] if fmt == "kif" else sources)
        assert sum(("エラー / error" in b) for b in blocks) == 3


def test_input_order_holds_with_jobs_and_unordered(tmp_path):
    """A slow first problem: with --jobs 2 the fast ones finish first, and are held back
    for input order unless --unordered. (It runs 5 s: the other worker must have loaded
    the compiled code before then, which took over 2 s on a loaded machine.)"""
    path = tmp_path / "slow-first.sfen"
    path.write_text(f"{HARD}\n" + f"{S3_SFEN}\n" * 6, encoding="utf-8")
    args = ("solve", "-f", "usi", "-j", "2", "--answer", "proof", "--time-limit", "5", path)
    ordered = run(*args)
    assert [line_number(ln.split("\t")[0]) for ln in ordered.stdout.splitlines()] == list(range(1, 8))
    assert ordered.stdout.splitlines()[0].endswith("\tcheckmate timeout")
    unordered = run(*args, "--unordered")
    numbers = [line_number(ln.split("\t")[0]) for ln in unordered.stdout.splitlines()]
    assert sorted(numbers) == list(range(1, 8)) and numbers[0] != 1


def test_reorder_delivers_in_input_order():
    out = []
    order = batch.Reorder(lambda item, rec: out.append(item))
    for index in (2, 0, 3, 5, 1):
        order.put(index, index, None)
    assert out == [0, 1, 2, 3] and list(order.held) == [5]
    order.flush()
    assert out == [0, 1, 2, 3, 5]


# ---------------------------------------------------------------- dead workers
@needs_proc
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_jobs_survive_a_dead_worker(tmp_path, sig):
    """A --jobs worker killed mid-batch: the problems it held are retried, every problem
    has exactly one record, none an error, in input order."""
    path = tsv(tmp_path, "yo_mate5.tsv", 100)
    with tsume_process("solve", "-j", "2", "-f", "jsonl", "--answer", "length", path,
                       cwd=tmp_path) as proc:
        lines = [proc.stdout.readline() for _ in range(5)]
        workers = local_workers(proc.pid)
        assert len(workers) == 2
        os.kill(workers[0], sig)
        out, err = rest(proc)
    recs = records(b"".join(lines).decode() + out.decode())
    assert proc.returncode == 0, err.decode()
    assert [line_number(r["source"]) for r in recs] == list(range(2, 102))
    assert {r["status"] for r in recs} == {"mate"}


POISON = MATE3


def die_on_poison(problems, limits):
    """A worker function that kills its process on the poisoned problem (a worker that
    always dies on one position)."""
    if any(sfen.split()[0] == POISON.split()[0] for _, sfen in problems):
        os.kill(os.getpid(), signal.SIGKILL)
    return batch.solve_chunk(problems, limits)


class PoisonedPool(batch.LocalPool):
    work = staticmethod(die_on_poison)


def test_a_problem_whose_worker_dies_twice_is_an_error_record(monkeypatch):
    monkeypatch.setattr(batch, "CHUNK_SHARE", 100)     # chunks of several problems at once
    text = "".join(f"{sfen}\n" for sfen in [S3_SFEN] * 3 + [POISON] + [S3_SFEN] * 3)
    items = list(read_problems(text))
    out = []
    limits = {"answer": "proof", "hash_mb": 16}
    pool = PoisonedPool(2, limits)
    pool.max_chunk = 4
    job = batch.Batch(pool, lambda item, rec: out.append(rec))
    job.seconds = 0.02
    sizes = []
    submit = pool.submit
    pool.submit = lambda chunk: (sizes.append(len(chunk)), submit(chunk))
    job.run(lambda before_stdin: iter(items))
    assert max(sizes) > 1
    assert [r["source"] for r in out] == [f"<text>:{n}" for n in range(1, 8)]
    assert [r["status"] for r in out] == ["mate"] * 3 + ["error"] + ["mate"] * 3
    assert out[3]["error"] == "worker process died while solving it, twice (killed by SIGKILL)"
    assert out[3]["sfen"] is not None


@needs_proc
@pytest.mark.parametrize("sig,code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_ends_the_workers_and_keeps_whole_records(tmp_path, sig, code):
    path = tsv(tmp_path, "yo_mate7.tsv", 200)
    with tsume_process("solve", "-j", "2", "-f", "jsonl", "--answer", "length", path,
                       cwd=tmp_path) as proc:
        lines = [proc.stdout.readline() for _ in range(3)]
        assert len(local_workers(proc.pid)) == 2
        os.kill(proc.pid, sig)
        out, err = rest(proc, 60)
        assert proc.returncode == code, err.decode()
        assert err.decode().strip().endswith("terminated" if code == 143 else "interrupted")
        recs = records(b"".join(lines).decode() + out.decode())    # whole lines only
        assert 3 <= len(recs) < 200
        numbers = [line_number(r["source"]) for r in recs]
        assert numbers == sorted(numbers)
        deadline = time.monotonic() + 10
        while alive_in_session(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert alive_in_session(proc.pid) == []       # no worker, no resource tracker


def test_a_killed_local_pool_leaves_no_manager_thread_behind():
    """close(kill=True), as an interrupt ends a --jobs run: the workers end, and so do the
    pools' manager threads before it returns (at exit Python 3.11 wakes each one still
    there through a pipe it may be closing: "Bad file descriptor" after our last line)."""
    import concurrent.futures.process as cfp
    pool = batch.LocalPool(2, {"answer": "proof", "hash_mb": 16})
    for k in range(3):          # (the first is held until a second comes)
        pool.submit([batch.Task(k, None, S3_SFEN)])
    assert sum(p is not None for p in pool.pools) == 2
    pool.close(kill=True)
    assert not [t for t in threading.enumerate()
                if isinstance(t, cfp._ExecutorManagerThread) and t.is_alive()]
    assert multiprocessing.active_children() == []


# ---------------------------------------------------------------- --output / --resume
@needs_proc
def test_resume_after_sigkill_at_a_random_point(tmp_path):
    """SIGKILL at a random point of a --jobs 2 batch, then --resume: each problem has
    exactly one record, in input order, with the verdicts of an uninterrupted run."""
    path = tsv(tmp_path, "yo_mate5.tsv", 120, seed=11)
    whole = run("solve", "-f", "jsonl", "--answer", "length", path)
    assert whole.exit_code == 0, whole.stderr
    expected = verdicts(records(whole.stdout))
    out = tmp_path / "out.jsonl"
    seed = random.randrange(1 << 30)
    stop_at = random.Random(seed).randrange(1, 110)
    args = ("solve", "-j", "2", "--answer", "length", "--output", out, path)
    with tsume_process(*args, cwd=tmp_path) as proc:
        while proc.poll() is None and (not out.exists() or out.read_bytes().count(b"\n") < stop_at):
            time.sleep(0.005)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        deadline = time.monotonic() + 10   # its workers see the parent gone and exit
        while local_workers_orphaned(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not local_workers_orphaned(proc.pid), f"seed {seed}"
    done_before = out.read_bytes().count(b"\n")
    resumed = run(*args, "--resume")
    assert resumed.exit_code == 0, resumed.stderr
    recs = records(out.read_text(encoding="utf-8"))
    assert [line_number(r["source"]) for r in recs] == list(range(2, 122)), f"seed {seed}"
    assert verdicts(recs) == expected, f"seed {seed}, stopped at {done_before}"


def local_workers_orphaned(sid):
    return [pid for pid in alive_in_session(sid) if pid != sid]


def test_resume_redoes_what_is_not_final(tmp_path, monkeypatch):
    """What --resume keeps: a final record with the same SFEN (mate, nomate, unknown by
    a budget); what it redoes: errors, interrupted solves, a problem whose line now holds
    another position, and a torn last line. The file ends with one record per problem."""
    import tsume.pipeline
    sfens = [S3_SFEN, MATE1, MATE3, MATE5, KOMAAMARI]
    problems = tmp_path / "p.sfen"
    problems.write_text("".join(s + "\n" for s in sfens), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    first = run("solve", "--answer", "proof", "--output", out, problems)
    assert first.exit_code == 0 and first.stdout == "", first.stderr
    lines = out.read_text(encoding="utf-8").splitlines()
    recs = [json.loads(line) for line in lines]
    recs[1].update(status="error", error="worker process died while solving it, twice")
    recs[2].update(status="unknown", reason="interrupted")
    recs[3]["sfen"] = S3_SFEN                                   # another position
    kept = [lines[0], json.dumps(recs[1]), json.dumps(recs[2]), json.dumps(recs[3])]
    out.write_text("\n".join(kept) + "\n" + lines[4][:40], encoding="utf-8")  # torn
    solved = []
    real = tsume.pipeline.solve

    def counting(position, **kwargs):
        solved.append(position.sfen())
        return real(position, **kwargs)

    monkeypatch.setattr(tsume.pipeline, "solve", counting)
    again = run("solve", "--answer", "proof", "--output", out, "--resume", problems)
    assert again.exit_code == 0, again.stderr
    assert len(solved) == 4 and not any(s.startswith(S3_SFEN.split()[0]) for s in solved)
    final = out.read_text(encoding="utf-8").splitlines()
    assert final[0] == lines[0]                  # kept as it was
    assert [json.loads(x)["source"] for x in final] == [f"{problems}:{n}" for n in range(1, 6)]
    assert all(json.loads(x)["status"] == "mate" for x in final)


def test_output_and_resume_usage(tmp_path):
    out = tmp_path / "out.jsonl"
    for args, message in [
            (["--resume"], "tsume: --resume needs --output FILE (the records to resume)\n"),
            (["--output", out, "-f", "text"],
             "tsume: --output writes JSONL records: --format text cannot go with it\n"),
            (["--scheduler", "tcp://127.0.0.1:9", "-j", "2"],
             "tsume: --jobs and --scheduler cannot go together: the cluster's workers do the jobs\n")]:
        result = run("solve", *args, PROBLEMS / "s3.sfen")
        assert (result.exit_code, result.stderr, result.stdout) == (2, message, "")
    result = run("solve", "--output", tmp_path / "no-dir" / "out.jsonl", PROBLEMS / "s3.sfen")
    assert result.exit_code == 4 and result.stderr.startswith("tsume: cannot write ")


def test_scheduler_without_dask_names_the_extra(monkeypatch):
    import importlib.util
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "distributed" else real(name, *a))
    result = run("solve", "--scheduler", "tcp://127.0.0.1:8786", PROBLEMS / "s3.sfen")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == "tsume: --scheduler needs Dask: pip install 'tsume[cluster]'\n"


def test_warmup_says_how_long_it_took():
    result = run("warmup")
    assert result.exit_code == 0
    assert result.stdout.startswith("tsume: ") and result.stdout.rstrip().endswith(" s")


# ---------------------------------------------------------------- Dask
@pytest.fixture(scope="module")
def cluster():
    """A 2-worker Dask cluster on the loopback: the scheduler in this process, each worker
    a process of its own."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None,
                                  silence_logs=logging.CRITICAL) as local, \
            distributed.Client(local, set_as_default=False) as client:
        yield local.scheduler_address, client


def test_unreachable_scheduler_is_one_line(monkeypatch):
    pytest.importorskip("distributed")
    monkeypatch.setattr(batch, "DASK_CONNECT_SECONDS", 1)
    result = run("solve", "--scheduler", "tcp://127.0.0.1:9", PROBLEMS / "s3.sfen")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.startswith("tsume: cannot reach the Dask scheduler at tcp://127.0.0.1:9: ")
    assert result.stderr.count("\n") == 1


@pytest.mark.parametrize("answer", ["length", "proof"])
def test_a_dask_cluster_gives_the_records_of_a_local_run(tmp_path, cluster, answer):
    """(proof: the workers prove each chunk together, solve_many.) The workers have
    switched Dask's statistical profiler off (batch._quiet_profiler: its samples of the
    answer's deep stacks grew a worker by ~170 MB)."""
    address, client = cluster
    paths = [tsv(tmp_path, "yo_mate3.tsv", 150), tsv(tmp_path, "yo_mate5.tsv", 150)]
    local = run("solve", "-f", "jsonl", "--answer", answer, *paths)
    assert local.exit_code == 0, local.stderr
    with tsume_process("solve", "--scheduler", address, "-f", "jsonl", "--answer", answer,
                       *paths, cwd=tmp_path) as proc:
        out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err.decode()
    recs, expected = records(out.decode()), records(local.stdout)
    assert [r["source"] for r in recs] == [r["source"] for r in expected]      # input order
    assert verdicts(recs) == verdicts(expected) and len(recs) == 300
    assert [r["id"] for r in recs] == [r["id"] for r in expected]

    def profiling(dask_worker):
        return sorted(name for name in dask_worker.periodic_callbacks if "profile" in name)

    assert list(client.run(profiling).values()) == [[], []]


def test_a_dask_worker_killed_mid_batch(tmp_path, cluster):
    address, client = cluster
    path = tsv(tmp_path, "yo_mate5.tsv", 150, seed=7)
    pids = list(client.run(os.getpid).values())
    with tsume_process("solve", "--scheduler", address, "-f", "jsonl", "--answer", "length",
                       path, cwd=tmp_path) as proc:
        lines = [proc.stdout.readline() for _ in range(5)]
        os.kill(pids[0], signal.SIGKILL)
        out, err = rest(proc)
    recs = records(b"".join(lines).decode() + out.decode())
    assert proc.returncode == 0, err.decode()
    assert [line_number(r["source"]) for r in recs] == list(range(2, 152))
    assert {r["status"] for r in recs} == {"mate"}
    client.wait_for_workers(2, timeout=60)      # (the nanny restarts it for the next test)
