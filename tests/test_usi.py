"""`tsume usi`: the USI mate engine, driven through pipes the way a shogi GUI drives it.

Every wait is bounded (a reader thread feeds a queue; each expectation has a timeout), so
a broken engine fails a test instead of hanging it. Every ``checkmate`` answer is replayed
with cshogi: each attacker move a legal check, each defender move legal, the end mate.
"""
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time

import cshogi
import pytest

S3 = "8k/9/9/7+R1/9/9/9/9/9 b LPr2b4g4s4n3l17p 1"          # mate in 3: P*1b 1a1b L*1c
S3_LITERAL = "8k/9/9/7+R1/9/9/9/9/9 b LP 1"                  # the same, defender hand not given
MATE1 = "8k/9/8G/9/9/9/9/9/9 b G2r2b2g4s4n4l18p 1"         # G*1b
NOMATE = "4k4/9/9/9/9/9/9/9/9 b G2r2b3g4s4n4l18p 1"        # a lone gold cannot mate
HARD = "7k1/9/9/9/9/9/9/9/9 b B2G2SL2P2rb2g2s4n3l16p 1"    # far beyond a second of search
MUDAAI = "8k/6G1p/9/9/9/9/9/9/4R4 b r2b3g4s4n4l17p 1"       # 5i5a+: the rest are futile interpositions
IN_CHECK = "7lk/7p1/7l1/9/9/9/8G/9/7KL b - 1"             # attacker in check; 1g2f/1g2g parry and mate
# 将棋図巧 30, 17 plies: proven in well under a second, the shortest answer in 2-4 s at
# the default hash (two busy cores), so a search that end of input cuts short shows.
ZUKO30 = "4+LgB2/3+P1+R1R1/4+bl1g1/8k/5p1p1/7+p1/9/9/9 b 2G4s4n2l14p 1"

READY_TIMEOUT = 120      # the first run after install compiles the numba code (~20-30 s)
ANSWER_TIMEOUT = 20


class UsiEngine:
    """The engine process with a reader thread; `expect` never waits longer than asked."""

    def __init__(self, address_space=None):
        """address_space: an RLIMIT_AS for the engine in bytes (Linux), so that a table too
        large fails to map instead of being written into the machine's memory."""
        def limit_address_space():
            import resource
            resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
        preexec = limit_address_space if address_space is not None else None
        # Outside the checkout, `-m tsume` runs the tsume these tests import (and its
        # numba cache, warm by now), whether installed editable or not.
        self.proc = subprocess.Popen([sys.executable, "-m", "tsume", "usi"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     cwd=tempfile.gettempdir(), preexec_fn=preexec)
        self.lines = queue.Queue()
        self.transcript = []
        self.stderr = []
        threading.Thread(target=self._read, args=(self.proc.stdout, self.lines.put), daemon=True).start()
        self._stderr_reader = threading.Thread(target=self._read, args=(self.proc.stderr, self.stderr.append),
                                               daemon=True)
        self._stderr_reader.start()

    @staticmethod
    def _read(stream, put):
        for raw in stream:
            put(raw.decode("utf-8", "replace").rstrip("\r\n"))
        put(None)

    def send(self, command):
        self.transcript.append("> " + command)
        self.proc.stdin.write((command + "\n").encode())
        self.proc.stdin.flush()
        return time.perf_counter()

    def expect(self, prefix, timeout=ANSWER_TIMEOUT):
        """Lines up to and including the first that starts with prefix."""
        end = time.perf_counter() + timeout
        got = []
        while True:
            left = end - time.perf_counter()
            if left <= 0:
                self._fail(f"no {prefix!r} within {timeout} s", got)
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                self._fail(f"engine output ended before {prefix!r}", got)
            self.transcript.append("< " + line)
            got.append(line)
            if line.startswith(prefix):
                return got

    def quiet_until_ready(self):
        """Lines up to readyok (a barrier: everything sent before has been handled)."""
        self.send("isready")
        return self.expect("readyok", READY_TIMEOUT)

    def end_input(self):
        """Close the engine's input, as a script's pipe or a crashed GUI does."""
        self.transcript.append("> (end of input)")
        self.proc.stdin.close()

    def stderr_text(self, timeout=5):
        """Everything the engine wrote to stderr (all of it once the process has ended)."""
        if self.proc.poll() is not None:
            self._stderr_reader.join(timeout)
        return "".join(line + "\n" for line in list(self.stderr) if line is not None)

    def _fail(self, message, got):
        tail = "\n".join(self.transcript[-40:])
        pytest.fail(f"{message}; got {got}\ntranscript:\n{tail}\nstderr: {self.stderr_text(0)[-2000:]}")

    def close(self):
        if self.proc.poll() is None:
            try:
                self.send("quit")
            except (OSError, ValueError):       # the engine is gone, or its input closed
                pass
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self._stderr_reader.join(5)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            stream.close()


class InProcessEngine(UsiEngine):
    """tsume.usi.Engine on pipes in a thread of this process, where a test can hold one of
    its threads or look at its objects."""

    def __init__(self):
        import os

        from tsume import usi
        to_engine, to_engine_w = os.pipe()
        from_engine, to_test = os.pipe()
        self._stdin = open(to_engine_w, "wb")
        self._streams = [open(to_engine, "rb"), open(to_test, "wb"), open(from_engine, "rb")]
        self.engine = usi.Engine(self._streams[0], self._streams[1])
        self.lines = queue.Queue()
        self.transcript = []
        self._main = threading.Thread(target=self.engine.run, name="test-usi-main", daemon=True)
        self._main.start()
        self._reader = threading.Thread(target=self._read, args=(self._streams[2], self.lines.put),
                                        daemon=True)
        self._reader.start()

    def send(self, command):
        self.transcript.append("> " + command)
        self._stdin.write((command + "\n").encode())
        self._stdin.flush()

    def stderr_text(self, timeout=5):
        return ""

    def close(self):
        """quit, once every engine thread has ended: beside one still running, the engine
        would end its process (os._exit), here pytest's."""
        threads = [t for t in threading.enumerate() if t.name.startswith("tsume-usi")]
        for thread in threads:
            thread.join(ANSWER_TIMEOUT)
        if any(thread.is_alive() for thread in threads):
            pytest.fail("an engine thread did not end: not sending quit")
        self.send("quit")
        self._main.join(ANSWER_TIMEOUT)
        self._stdin.close()
        self._streams[1].close()            # (the reader then sees the end of output)
        self._reader.join(ANSWER_TIMEOUT)
        for stream in self._streams:
            stream.close()


def _handshake(engine):
    engine.send("usi")
    engine.expect("usiok", 10)
    engine.quiet_until_ready()


@pytest.fixture(scope="module")
def engine():
    eng = UsiEngine()
    try:
        _handshake(eng)
        yield eng
    finally:
        eng.close()
        assert eng.proc.returncode == 0, eng.stderr


def go_mate(engine, position, limit="10000", timeout=ANSWER_TIMEOUT):
    """(checkmate answer, the info lines before it) for one `position` + `go mate`."""
    engine.send(position)
    engine.send(f"go mate {limit}")
    lines = engine.expect("checkmate", timeout)
    return lines[-1], lines[:-1]


def assert_mating_line(sfen, moves, pre_moves=()):
    """cshogi replay: attacker moves are legal checks, defender moves legal, the end mate."""
    board = cshogi.Board(sfen)
    for usi in pre_moves:
        board.push_usi(usi)
    assert moves and len(moves) % 2 == 1, moves
    for i, usi in enumerate(moves):
        legal = {cshogi.move_to_usi(m) for m in board.legal_moves}
        assert usi in legal, (i, usi, board.sfen())
        board.push_usi(usi)
        if i % 2 == 0:
            assert board.is_check(), (i, usi, board.sfen())
    assert board.is_check() and not list(board.legal_moves), board.sfen()


def checkmate_moves(answer):
    tokens = answer.split()
    assert tokens[0] == "checkmate" and len(tokens) > 1, answer
    assert tokens[1] not in ("nomate", "timeout", "notimplemented"), answer
    return tokens[1:]


# ---------------------------------------------------------------- handshake, options
def test_handshake_lists_id_and_options():
    eng = UsiEngine()
    try:
        eng.send("usi")
        lines = eng.expect("usiok", 10)
        assert lines[0].startswith("id name tsume ")
        assert any(line.startswith("id author ") for line in lines)
        options = {line.split()[2]: line for line in lines if line.startswith("option name ")}
        assert options["USI_Hash"] == "option name USI_Hash type spin default 256 min 1 max 65536"
        assert options["MateNodes"].startswith("option name MateNodes type spin default 0 min 0 ")
        assert options["YozumeCheck"] == "option name YozumeCheck type check default false"
        assert options["DefenderHoldsRest"] == "option name DefenderHoldsRest type check default false"
        from tsume.limits import available_cores
        assert options["Threads"] == (f"option name Threads type spin default {available_cores()} "
                                      f"min 1 max 256")
        eng.send("isready")
        eng.expect("readyok", READY_TIMEOUT)
        # A second isready is answered at once (a bounded wait, not a benchmark).
        eng.send("isready")
        eng.expect("readyok", 2)
    finally:
        eng.close()
    assert eng.proc.returncode == 0


def test_setoption(engine):
    for command in ("setoption name USI_Hash value 32", "setoption name usi_hash value 16",
                    "setoption name MateNodes value 0", "setoption name yozumecheck value false",
                    "setoption name DefenderHoldsRest value false", "setoption name threads value 2",
                    "setoption name USI_Ponder value false"):
        engine.send(command)
    lines = engine.quiet_until_ready()
    assert not [line for line in lines if line.startswith("info string")], lines
    engine.send("setoption name NoSuchOption value 3")
    engine.send("setoption name MateNodes value many")
    engine.send("setoption name YozumeCheck value maybe")
    engine.send("setoption")
    lines = engine.quiet_until_ready()
    notes = [line for line in lines if line.startswith("info string")]
    assert len(notes) == 4 and all("ignored" in note for note in notes), lines
    assert "NoSuchOption" in notes[0]
    # The hash option took effect: a search still works on the 16 MB table.
    answer, _ = go_mate(engine, f"position sfen {S3}")
    assert_mating_line(S3, checkmate_moves(answer))


def _vm_peak(pid):
    """The most address space the process has had mapped, in bytes (Linux)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmPeak:"):
                return int(line.split()[1]) * 1024
    pytest.skip("no VmPeak in /proc")


def _lowered_hash(eng, hash_mb):
    """(the size USI_Hash hash_mb was lowered to, the MB free it was measured against)."""
    eng.send(f"setoption name USI_Hash value {hash_mb}")
    lines = eng.quiet_until_ready()
    notes = [line for line in lines if line.startswith(f"info string USI_Hash {hash_mb} MB lowered to ")]
    assert len(notes) == 1 and "does not fit in the memory available (" in notes[0], lines
    free = notes[0].split("memory available (")[1].split()[0]
    return int(notes[0].split()[7]), int(free)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS and /proc: Linux only")
def test_usi_hash_larger_than_memory_is_lowered(engine):
    """GUIs send USI_Hash without knowing the machine: a table that cannot fit is lowered to
    what fits, with an info string, before it is touched (issue #44: 65536 MB was mapped and
    zeroed until the engine was killed). The engine runs under an address-space limit, so
    that a regression fails to map the table instead of taking this machine's memory: the
    peak of a warm engine that has searched (numba and LLVM map much more than they use),
    its 256 MB table included, plus a margin."""
    pytest.importorskip("resource")
    limit = _vm_peak(engine.proc.pid) + (256 << 20)
    eng = UsiEngine(address_space=limit)
    try:
        eng.send("usi")
        eng.expect("usiok", 10)
        size, free = _lowered_hash(eng, 65536)
        assert 1 <= size < limit >> 20
        answer, _ = go_mate(eng, f"position sfen {S3}", "5000")
        assert answer == "checkmate P*1b 1a1b L*1c"
        # The lowered size is kept: the next isready neither reallocates nor says it again.
        assert eng.quiet_until_ready() == ["readyok"]
        # Asked again after a search, the old table is freed before the memory is measured
        # (not freed, the memory free would have shrunk by the whole table).
        size2, free2 = _lowered_hash(eng, 65535)
        assert free2 > free - size, (size, free, size2, free2)
        answer, _ = go_mate(eng, f"position sfen {MUDAAI}", "5000")
        assert_mating_line(MUDAAI, checkmate_moves(answer))
    finally:
        eng.close()
    stderr = eng.stderr_text()
    assert eng.proc.returncode == 0 and "Error" not in stderr, (eng.proc.returncode, stderr)


def test_a_new_hash_frees_the_table_of_a_search_whose_thread_has_not_ended(monkeypatch):
    """GUIs send USI_Hash right after an answer, and the thread of the search that gave it
    may still be returning then: the search lets go of its solver before it answers, so the
    old table is freed before the new size is measured against the memory free (held, it
    made a table that fits look too large, and be lowered)."""
    import gc
    import weakref

    from tsume import usi
    linger = threading.Event()
    ran = usi._Search._run

    def run_then_linger(search):
        ran(search)
        linger.wait(ANSWER_TIMEOUT)
    monkeypatch.setattr(usi._Search, "_run", run_then_linger)
    eng = InProcessEngine()
    try:
        eng.send("usi")
        eng.expect("usiok", 10)
        eng.send("setoption name USI_Hash value 16")
        eng.quiet_until_ready()
        old = weakref.ref(eng.engine.get_solver())
        answer, _ = go_mate(eng, f"position sfen {S3}")
        assert answer == "checkmate P*1b 1a1b L*1c"
        search = eng.engine._last_search()
        assert search is not None and search.thread.is_alive()
        eng.send("setoption name USI_Hash value 8")
        assert eng.quiet_until_ready() == ["readyok"]
        gc.collect()
        assert old() is None
        assert search.thread.is_alive()
        del search
    finally:
        linger.set()
        eng.close()


# ---------------------------------------------------------------- go mate
def test_mate_in_one_and_three(engine):
    answer, info = go_mate(engine, f"position sfen {MATE1}")
    assert answer == "checkmate G*1b"
    assert_mating_line(MATE1, checkmate_moves(answer))
    assert any(line.startswith("info string mate 1 plies") for line in info), info
    assert any(line.startswith("info time ") and " nodes " in line and " nps " in line for line in info)

    answer, info = go_mate(engine, f"position sfen {S3}", "infinite")
    assert answer == "checkmate P*1b 1a1b L*1c"
    assert_mating_line(S3, checkmate_moves(answer))
    assert any(line.startswith("info string mate 3 plies") for line in info), info


def test_go_mate_without_time_is_infinite(engine):
    engine.send(f"position sfen {S3}")
    engine.send("go mate")
    assert engine.expect("checkmate")[-1] == "checkmate P*1b 1a1b L*1c"


def test_position_moves_are_played(engine):
    answer, _ = go_mate(engine, f"position sfen {S3} moves P*1b 1a1b")
    assert answer == "checkmate L*1c"
    assert_mating_line(S3, checkmate_moves(answer), pre_moves=["P*1b", "1a1b"])


def test_no_defender_king_answers_nomate(engine):
    # After 2d2c White is to move, so White attacks, and Black has no king.
    answer, info = go_mate(engine, f"position sfen {S3} moves 2d2c")
    assert answer == "checkmate nomate"
    assert any("not a mate problem" in line and "king" in line for line in info), info


def test_answer_ends_in_checkmate_even_with_futile_interpositions(engine):
    """GUIs replay the answer: the interpositions that the 無駄合 rule would not count are
    played out, so that the line ends in checkmate."""
    answer, _ = go_mate(engine, f"position sfen {MUDAAI}")
    moves = checkmate_moves(answer)
    assert moves[0] == "5i5a+" and len(moves) > 1
    assert_mating_line(MUDAAI, moves)


def test_nomate(engine):
    answer, info = go_mate(engine, f"position sfen {NOMATE}")
    assert answer == "checkmate nomate"
    assert any(line.startswith("info string no mate") for line in info), info


def test_startpos(engine):
    answer, _ = go_mate(engine, "position startpos moves 7g7f 3c3d", "300")
    assert answer in ("checkmate nomate", "checkmate timeout")


def test_attacker_in_check(engine):
    answer, info = go_mate(engine, f"position sfen {IN_CHECK}")
    assert answer in ("checkmate 1g2f", "checkmate 1g2g")
    assert_mating_line(IN_CHECK, checkmate_moves(answer))
    assert any("in check" in line for line in info), info


def test_timeout(engine):
    engine.send(f"position sfen {HARD}")
    engine.send("go mate 200")
    lines = engine.expect("checkmate", 1.5)     # the GUI's limit is honoured
    assert lines[-1] == "checkmate timeout"


def test_mate_nodes_limit(engine):
    engine.send("setoption name MateNodes value 50000")
    try:
        answer, _ = go_mate(engine, f"position sfen {HARD}", "infinite", timeout=5)
        assert answer == "checkmate timeout"
    finally:
        engine.send("setoption name MateNodes value 0")


def test_stop_during_infinite_search(engine):
    engine.send(f"position sfen {HARD}")
    engine.send("go mate infinite")
    time.sleep(0.6)
    engine.send("go mate 100")                 # one search at a time: ignored
    engine.send("isready")                     # answered during the search
    lines = engine.expect("readyok", 5)
    assert not [line for line in lines if line.startswith("checkmate")], lines
    assert any("ignored" in line and "search is running" in line for line in lines), lines
    engine.send("stop")
    lines = engine.expect("checkmate", 1.0)     # issue #7: answer within 1 s of stop
    assert lines[-1] == "checkmate timeout"
    # Exactly one answer per `go mate`, and the engine is ready for the next one.
    lines = engine.quiet_until_ready()
    assert not [line for line in lines if line.startswith("checkmate")], lines
    answer, _ = go_mate(engine, f"position sfen {MATE1}")
    assert answer == "checkmate G*1b"


def test_stop_right_after_go(engine):
    """A stop that arrives before the search has really begun is not lost."""
    engine.send(f"position sfen {HARD}")
    for _ in range(5):
        engine.send("go mate infinite")
        engine.send("stop")
        assert engine.expect("checkmate", 1.0)[-1] == "checkmate timeout"


def test_stop_without_search_is_harmless(engine):
    engine.send("stop")
    engine.send("ponderhit")
    engine.send("usinewgame")
    engine.send("gameover lose")
    lines = engine.quiet_until_ready()
    assert lines == ["readyok"]


def test_defender_holds_rest(engine):
    engine.send("setoption name DefenderHoldsRest value true")
    try:
        answer, info = go_mate(engine, f"position sfen {S3_LITERAL}")
        assert answer == "checkmate P*1b 1a1b L*1c"
        assert_mating_line(S3, checkmate_moves(answer))
    finally:
        engine.send("setoption name DefenderHoldsRest value false")
    # Literal: the defender has nothing to interpose, still a mate (a shorter one).
    answer, info = go_mate(engine, f"position sfen {S3_LITERAL}")
    assert_mating_line(S3_LITERAL, checkmate_moves(answer))
    assert any("DefenderHoldsRest" in line for line in info), info


def test_option_change_after_position_applies(engine):
    engine.send(f"position sfen {S3_LITERAL}")
    engine.send("setoption name DefenderHoldsRest value true")
    try:
        engine.send("go mate 10000")
        answer = engine.expect("checkmate")[-1]
        assert answer == "checkmate P*1b 1a1b L*1c"
    finally:
        engine.send("setoption name DefenderHoldsRest value false")


def test_yozume_check_option(engine):
    engine.send("setoption name YozumeCheck value true")
    try:
        answer, info = go_mate(engine, f"position sfen {S3}")
        assert answer == "checkmate P*1b 1a1b L*1c"
        assert any(line.startswith("info string yozume: ") for line in info), info
    finally:
        engine.send("setoption name YozumeCheck value false")
    _, info = go_mate(engine, f"position sfen {S3}")
    assert not any(line.startswith("info string yozume") for line in info), info


# ---------------------------------------------------------------- plain go
def test_plain_go_mate_found(engine):
    engine.send(f"position sfen {S3}")
    engine.send("go btime 0 wtime 0 byoyomi 1000")
    lines = engine.expect("bestmove", 2)
    assert lines[-1] == "bestmove P*1b"
    assert any(line.startswith("info") and "score mate" in line for line in lines), lines


def test_plain_go_no_mate_resigns(engine):
    engine.send(f"position sfen {HARD}")
    engine.send("go btime 60000 wtime 60000 byoyomi 0")
    lines = engine.expect("bestmove", 2)
    assert lines[-1] == "bestmove resign"


def test_plain_go_infinite_waits_for_stop(engine):
    engine.send(f"position sfen {S3}")
    engine.send("go infinite")
    time.sleep(0.5)
    engine.send("isready")
    lines = engine.expect("readyok", 5)
    assert not [line for line in lines if line.startswith("bestmove")], lines
    engine.send("stop")
    assert engine.expect("bestmove", 5)[-1] == "bestmove P*1b"


# ---------------------------------------------------------------- bad input
def test_malformed_commands_are_ignored(engine):
    for command in ("hello", "go mate soon", "position", "position sfen xx",
                    "position sfen 9/9/9/9/9/9/9/9/9 x - 1", "register later"):
        engine.send(command)
    lines = engine.quiet_until_ready()
    notes = [line for line in lines if line.startswith("info string")]
    assert len(notes) == 6, lines
    assert not [line for line in lines if line.startswith(("checkmate", "bestmove"))], lines


def test_illegal_move_leaves_no_position(engine):
    engine.send(f"position sfen {S3}")
    engine.send("position startpos moves 7g7f 7g7f")
    lines = engine.quiet_until_ready()
    assert any("illegal" in line for line in lines), lines
    engine.send("go mate 1000")
    lines = engine.expect("checkmate")
    assert lines[-1] == "checkmate timeout"
    assert any("no position" in line for line in lines), lines
    # Still working afterwards.
    answer, _ = go_mate(engine, f"position sfen {MATE1}")
    assert answer == "checkmate G*1b"


def test_invalid_problem_answers_nomate(engine):
    # The defender (White) is already in check: no mate problem.
    answer, info = go_mate(engine, "position sfen 8k/8R/9/9/9/9/9/9/9 b G 1")
    assert answer == "checkmate nomate"
    assert any("not a mate problem" in line for line in info), info


# ---------------------------------------------------------------- quit
def test_quit_during_search_exits_promptly():
    eng = UsiEngine()
    try:
        _handshake(eng)
        eng.send(f"position sfen {HARD}")
        eng.send("go mate infinite")
        time.sleep(0.3)
        eng.send("quit")
        eng.proc.wait(3)                         # raises if it does not exit promptly
    finally:
        eng.close()
    assert eng.proc.returncode == 0


def test_end_of_input_exits():
    eng = UsiEngine()
    try:
        eng.send("usi")
        eng.expect("usiok", 10)
        eng.proc.stdin.close()
        eng.proc.wait(10)
    finally:
        if eng.proc.poll() is None:
            eng.proc.kill()
            eng.proc.wait(5)
    assert eng.proc.returncode == 0


def test_end_of_input_answers_a_pending_isready():
    eng = UsiEngine()
    try:
        eng.send("usi")
        eng.send("isready")
        eng.end_input()
        eng.expect("readyok", READY_TIMEOUT)
        eng.proc.wait(10)
    finally:
        eng.close()
    assert eng.proc.returncode == 0


def test_end_of_input_lets_a_timed_go_mate_answer():
    """printf 'usi\nisready\nposition ...\ngo mate 5000\n' | tsume-usi: the input ends at
    once, and the script still expects the answer within the time it gave (issue #44: the
    search was stopped at end of input and answered `checkmate timeout`)."""
    eng = UsiEngine()
    try:
        for command in ("usi", "isready", f"position sfen {ZUKO30}", "go mate 5000"):
            eng.send(command)
        eng.end_input()
        eng.expect("readyok", READY_TIMEOUT)
        start = time.perf_counter()
        lines = eng.expect("checkmate", 5 + 5)     # its 5 s, the grace, and slack for a busy machine
        assert_mating_line(ZUKO30, checkmate_moves(lines[-1]))
        eng.proc.wait(5)
        assert time.perf_counter() - start < 5 + 5
    finally:
        eng.close()
    assert eng.proc.returncode == 0, eng.stderr_text()


@pytest.mark.parametrize("go,answer", [("go mate infinite", "checkmate timeout"),
                                       ("go infinite", "bestmove resign")])
def test_end_of_input_stops_a_search_without_time_limit(go, answer):
    """A GUI that crashed sends no stop: the search must not run on."""
    eng = UsiEngine()
    try:
        _handshake(eng)
        eng.send(f"position sfen {HARD}")
        eng.send(go)
        time.sleep(0.7)                            # past plain go's 0.5 s: the bestmove is held
        eng.end_input()
        assert eng.expect(answer.split()[0], 2)[-1] == answer
        eng.proc.wait(3)                           # raises if it does not exit promptly
    finally:
        eng.close()
    assert eng.proc.returncode == 0, eng.stderr_text()


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("searching", [True, False])
def test_sigint_stops_and_exits_130_without_traceback(searching):
    """Ctrl-C in a terminal (or a GUI's process group): the search is stopped and answered,
    and the engine exits with 130 (128 + SIGINT) instead of a KeyboardInterrupt traceback."""
    eng = UsiEngine()
    try:
        _handshake(eng)
        if searching:
            eng.send(f"position sfen {HARD}")
            eng.send("go mate infinite")
            eng.expect("info time", 5)             # the search is under way
        eng.proc.send_signal(signal.SIGINT)
        if searching:
            assert eng.expect("checkmate", 2)[-1] == "checkmate timeout"
        eng.proc.wait(3)                           # raises if a thread holds it up
    finally:
        eng.close()
    stderr = eng.stderr_text()
    assert eng.proc.returncode == 130 and "Traceback" not in stderr, (eng.proc.returncode, stderr)
