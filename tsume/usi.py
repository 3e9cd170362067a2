"""``tsume usi``: a USI mate engine for shogi GUIs (将棋所, ShogiGUI, ShogiHome, Electron Shogi).

GUIs send ``go mate`` for "詰将棋を解く" and read back ``checkmate <moves>``,
``checkmate nomate`` or ``checkmate timeout`` (SPEC §4.2). Behaviour (README "USI engine"):

* ``usi`` -> ``id``/``option`` lines, ``usiok``. ``isready`` -> ``readyok`` once the numba
  code is loaded (a background warm-up starts with the engine; first run after install:
  it compiles, ~40-60 s).
* ``position sfen ... [moves ...]`` / ``position startpos [moves ...]``: the side to move
  is the attacker. A bad position or an illegal move gives ``info string error: ...`` and
  leaves *no* position (a later ``go mate`` then answers ``checkmate timeout``).
* ``go mate <ms>|infinite`` (``go mate`` alone = infinite): exactly one ``checkmate`` line;
  its moves always end in checkmate (futile interpositions, 無駄合, are played out).
  Limits (time, MateNodes) and ``stop`` give ``checkmate timeout``; a position that is no
  mate problem at all (no defender king, defender already in check, 二歩, dead piece, too
  many pieces) gives ``checkmate nomate`` with the reason in an ``info string``. The
  attacker may be in check: only checks that also parry it are tried.
* plain ``go`` (a game move): a short mate search (0.5 s at most, less under a tight
  clock); ``bestmove <first move of the mate>`` or ``bestmove resign``. ``go infinite`` and
  ``go ponder`` hold the ``bestmove`` until ``stop`` (or ``ponderhit``).
* ``stop`` ends the search within one search slice (200k nodes, well under a second);
  ``quit`` stops it and exits with status 0. End of input exits with status 0 too, once
  a pending ``isready`` and a search with a time limit (``go mate <ms>``, plain ``go``)
  have answered (a script pipes its commands in); a search without one is stopped and
  answered at once (a GUI that crashed sends no ``stop``). SIGINT (Ctrl-C) stops and
  answers the search, then exits with status 130, without a traceback.
* Anything malformed or unknown: ``info string ignored: ...``; the engine never exits on bad
  input. ``info string`` texts are ASCII (GUIs differ in the encoding they expect).

Threads: the reader (main thread) parses commands; each search runs in a worker thread,
with a monitor thread that prints progress ``info`` lines and enforces the time limit.
The numba search holds the GIL during a slice, so other threads run between slices.
Only the standard library and tsume itself are imported here; the solver (numba) is
imported by the warm-up thread so that ``usi`` is answered at once.
"""
import os
import signal
import sys
import threading
import time
import weakref

from . import render
from .limits import MAX_THREADS, available_cores

ENGINE_NAME = "tsume"
ENGINE_AUTHOR = "the tsume authors"
PLAIN_GO_SECONDS = 0.5        # mate search budget of a plain `go`
PLAIN_GO_NPS = 400_000        # node cap of a plain `go` = seconds * this (bounds one slice)
INFO_PERIOD = 1.0             # seconds between progress `info` lines
HASHFULL_SAMPLE = 1000        # table entries sampled for `hashfull`
MAX_SPIN = 2_147_483_647      # spin maxima stay in int32 for GUIs
EOF_GRACE = 2.0               # seconds past its limit a search may take to answer at end of input
SIGINT_STATUS = 130           # exit status after SIGINT (128 + 2, the shell's convention)

# name -> (type, default, min, max); USI option names are case-insensitive.
OPTIONS = {
    "USI_Hash": ("spin", 256, 1, 65536),
    "MateNodes": ("spin", 0, 0, MAX_SPIN),
    "YozumeCheck": ("check", False, None, None),
    "DefenderHoldsRest": ("check", False, None, None),
    "Threads": ("spin", available_cores(), 1, MAX_THREADS),
}
# GUI-built-in options some GUIs send whether declared or not: accepted silently.
_QUIET_OPTIONS = {"usi_ponder", "usi_ownbook", "usi_multipv", "usi_showcurrline",
                  "usi_showrefutations", "usi_limitstrength", "usi_strength", "usi_analysemode"}


def _version():
    try:
        from . import __version__
        return __version__
    except Exception:   # noqa: BLE001 - the id line must never fail
        return "unknown"


def _ascii(text, limit=300):
    """One printable ASCII line (GUIs decode engine output differently)."""
    text = " ".join(str(text).split())
    text = text.encode("ascii", "backslashreplace").decode("ascii")
    return text if len(text) <= limit else text[:limit - 3] + "..."


_SOLVER_CLASS = None


def _solver_class():
    """A Solver whose stop request survives ``solve()``'s ``new_problem()`` (which clears
    the stop flag): the search being run is recorded, and a stop asked for before the
    search began is re-applied."""
    global _SOLVER_CLASS
    if _SOLVER_CLASS is None:
        from .solver import Solver

        class UsiSolver(Solver):
            def __init__(self, hash_mb):
                self.lock = threading.Lock()
                self.current = None          # the _Search using this solver
                super().__init__(hash_mb)

            def new_problem(self, budget=None):
                super().new_problem(budget)
                with self.lock:
                    if self.current is not None and self.current.stopped:
                        self.stop()

        _SOLVER_CLASS = UsiSolver
    return _SOLVER_CLASS


class _Search:
    """One `go` command: its limits, its stop state and its threads."""

    def __init__(self, engine, mate, position, time_limit=None, nodes=None, hold=False):
        self.engine = engine
        self.mate = mate                 # go mate (checkmate answer) or plain go (bestmove)
        self.position = position         # None: no usable position (answered at once)
        self.time_limit = time_limit     # seconds, None = none
        self.nodes = nodes
        self.hold = hold                 # go infinite / go ponder: bestmove waits for stop
        self.yozume = bool(engine.options["YozumeCheck"])
        self.threads = int(engine.options["Threads"])
        self.stopped = False
        self.stop_cause = None           # "stopped" (stop, gameover), "time limit", or at exit
                                         # "quit", "end of input", "interrupted" (SIGINT)
        self.released = threading.Event()   # stop or ponderhit (for hold)
        self.done = threading.Event()
        self.solver = None
        self._lock = threading.Lock()
        self.start = time.perf_counter()
        self.thread = threading.Thread(target=self._run, name="tsume-usi-search", daemon=True)

    # ------------------------------------------------------------ control
    def request_stop(self, cause="stopped"):
        """Safe from any thread, at any time (before, during or after the search).
        Ordering: `stopped` is set before the flag, and UsiSolver.new_problem clears the
        flag before it reads `stopped`, so a stop is never lost; the flag is only written
        while this search is the solver's current one, so a late stop of a finished
        search cannot stop the next."""
        with self._lock:
            if self.stop_cause is None:
                self.stop_cause = cause
            self.stopped = True
            solver = self.solver
        if solver is not None:
            with solver.lock:
                if solver.current is self:
                    solver.stop()
        self.released.set()

    # ------------------------------------------------------------ worker
    def _run(self):
        engine = self.engine
        result, error = None, None
        try:
            if self.position is not None:
                engine.wait_warm()
                self._attach(engine.get_solver())
                monitor = threading.Thread(target=self._monitor, name="tsume-usi-monitor", daemon=True)
                monitor.start()
                result = self._solve()
        except Exception as exc:   # noqa: BLE001 - report, answer, keep running
            error = exc.with_traceback(None)      # its frames would keep the solver
        finally:
            self.done.set()
        try:
            self._report(result, error)
        finally:
            engine.search_finished(self)      # idempotent; _final already did it

    def _attach(self, solver):
        """Search with solver (a method, so that no frame of _run holds it)."""
        with solver.lock:
            solver.current = self
        with self._lock:
            self.solver = solver
            stopped = self.stopped
        if stopped:
            with solver.lock:
                solver.stop()

    def _final(self, line):
        """The answer ends the search: the engine takes a new `go` or USI_Hash as soon as
        the GUI has read it, so the search is cleared and lets go of the solver first (a
        new USI_Hash frees the old table before it measures the memory free, and this
        thread may not have ended by then)."""
        with self._lock:
            solver, self.solver = self.solver, None
        if solver is not None:
            with solver.lock:
                if solver.current is self:
                    solver.current = None
        del solver
        self.engine.search_finished(self)
        self.engine.send(line)

    def _solve(self):
        from .pipeline import solve
        if self.mate:
            # mudaai=False: GUIs replay the answer, so it must end in checkmate; under the
            # 無駄合 rule the line could end with futile interpositions still possible.
            return solve(self.position, time_limit=self.time_limit, nodes=self.nodes,
                         solver=self.solver, threads=self.threads, answer=True,
                         yozume=self.yozume, mudaai=False)
        return solve(self.position, time_limit=self.time_limit, nodes=self.nodes,
                     solver=self.solver, threads=self.threads, answer=False, yozume=False)

    def _monitor(self):
        """Progress lines every INFO_PERIOD and the time limit (also checked by solve()
        between slices; this one also covers the answer phase after the proof)."""
        last = self.start
        while not self.done.wait(0.05):
            now = time.perf_counter()
            if self.time_limit is not None and now - self.start >= self.time_limit and not self.stopped:
                self.request_stop("time limit")
            if now - last >= INFO_PERIOD:
                last = now
                line = self._info_line()
                if self.done.is_set():
                    break
                self.engine.send(line)

    def _info_line(self):
        seconds = max(time.perf_counter() - self.start, 1e-6)
        solver = self.solver             # read once: _final lets go of it
        nodes = int(solver.nodes) if solver is not None else 0
        line = f"info time {int(seconds * 1000)} nodes {nodes} nps {int(nodes / seconds)}"
        full = self._hashfull(solver)
        return line if full is None else f"{line} hashfull {full}"

    @staticmethod
    def _hashfull(solver):
        try:
            from .tt import usage_permille
            return usage_permille(solver.table.vals, HASHFULL_SAMPLE)
        except Exception:   # noqa: BLE001 - optional
            return None

    # ------------------------------------------------------------ answers
    def _report(self, result, error):
        send = self.engine.send
        if self.solver is not None:
            send(self._info_line())
        if error is not None:
            send(f"info string internal error: {_ascii(f'{type(error).__name__}: {error}')}")
        if self.mate:
            for line in self._mate_details(result):
                send(line)
            self._final(self._checkmate(result))
            return
        if result is not None and result.status == "mate" and result.moves:
            n = len(result.moves)
            send(f"info depth {n} score mate {n} pv {' '.join(result.moves)}")
            best = result.moves[0]
        else:
            if result is not None:
                send(f"info string no mate found ({self._why(result)}): resign")
            best = "resign"
        if self.hold:
            self.released.wait()
        self._final(f"bestmove {best}")

    def _why(self, result):
        if result.status == "nomate":
            return "no mate"
        if self.stopped and result.reason in ("interrupted", None):
            return self.stop_cause or "stopped"
        return result.reason or result.status

    def _record(self, result):
        return result.fields() if result is not None else None

    def _checkmate(self, result):
        return render.checkmate_line(self._record(result))

    def _mate_details(self, result):
        why = self._why(result) if result is not None else None
        stopped = (self.stop_cause or "stopped") if self.stopped else None
        return ["info string " + _ascii(text, 2000)
                for text in render.usi_details(self._record(result), self.yozume, stopped, why)]


class _Interrupted(BaseException):
    """SIGINT, raised in the main thread only while it waits (see Engine._wait). A
    BaseException, so that the per-command `except Exception` does not swallow it."""


class Engine:
    """The USI protocol over two binary streams (stdin/stdout of the process)."""

    def __init__(self, inp=None, out=None):
        self.inp = inp if inp is not None else sys.stdin.buffer
        self.out = out if out is not None else sys.stdout.buffer
        self.options = {name: spec[1] for name, spec in OPTIONS.items()}
        self._out_lock = threading.Lock()
        self._out_closed = False
        self._solver = None
        self._solver_lock = threading.Lock()
        self._warm_error = None
        self._warm = threading.Thread(target=self._warm_up, name="tsume-usi-warmup", daemon=True)
        self.search = None               # the running _Search, if any
        # The latest _Search, still answering after search_finished; weak, so that it does
        # not keep the solver it used (and its table) alive once it has ended.
        self._last_search = lambda: None
        self._ready_threads = []         # isready helpers (readyok not yet sent, maybe)
        self._sigint = None              # None (not caught), "armed", "fired", "exiting"
        self._waiting = False            # the main thread is in _wait
        self._search_lock = threading.Lock()
        self._start = None               # (start Position, [USI moves]) of `position`
        self.position = None             # the position `go` searches (None = none)
        self._built_with = None          # DefenderHoldsRest value self.position was built with

    # ------------------------------------------------------------ output
    def send(self, line):
        with self._out_lock:
            if self._out_closed:
                return
            try:
                self.out.write(line.encode("utf-8", "replace") + b"\n")
                self.out.flush()
            except (OSError, ValueError):     # the GUI went away
                self._out_closed = True

    def note(self, text):
        self.send("info string " + _ascii(text))

    # ------------------------------------------------------------ numba, table
    def _warm_up(self):
        """Import the solver and load (or compile) every numba function a search uses,
        with a 3-ply problem on a tiny table."""
        try:
            from .position import parse_sfen
            from .pipeline import warm_up
            from .validate import validate
            s3 = "8k/9/9/7+R1/9/9/9/9/9 b LPr2b4g4s4n3l17p 1"
            parse_sfen(f"position sfen {s3} moves 2d2c")        # move replay
            pos = parse_sfen(s3)
            validate(pos)
            pos.is_check()
            warm_up()
        except Exception as exc:   # noqa: BLE001 - reported at isready / go
            self._warm_error = exc

    def wait_warm(self):
        if self._warm.is_alive():
            if threading.current_thread() is threading.main_thread():
                self._wait(self._warm.join)       # the first compile takes a minute
            else:
                self._warm.join()

    def get_solver(self):
        """The shared solver, (re)allocated when USI_Hash changed. The size is checked
        against the memory available first (tt.check_table_size): Linux lets a table too
        large be mapped and kills a process (maybe another one) when it is written, and
        GUIs send USI_Hash without knowing the machine, so a size that does not fit is
        lowered to the largest that does, with an info string, rather than refused. A new
        table is written through once, so that the operating system maps its pages now
        (at isready) rather than during the first search, whose first slices would be
        slow (and `stop` with them)."""
        with self._solver_lock:
            want = int(self.options["USI_Hash"])
            if self._solver is not None and self._solver.hash_mb == want:
                return self._solver
            cls = _solver_class()
            self._drop_solver()
            size = self._fitting_hash(want)
            while True:
                try:
                    solver = cls(size)
                    for array in solver.full_table:
                        array.fill(0)
                    self._solver = solver
                    break
                except MemoryError:
                    # The memory went between the check and the allocation.
                    if size <= 1:
                        raise
                    size //= 2
                    self.note(f"USI_Hash {want} MB could not be allocated: trying {size} MB")
            self.options["USI_Hash"] = size
            return self._solver

    def _drop_solver(self):
        """Free the old table before the new one is measured against free memory (a
        solver and its last search refer to each other: only the collector frees them)."""
        old, self._solver = self._solver, None
        if old is not None:
            with old.lock:
                old.current = None
            del old
            import gc
            gc.collect()

    def _fitting_hash(self, want):
        """want, or the largest USI_Hash whose table fits (with an info string saying so)."""
        from .tt import TableSizeError, check_table_size, table_bytes
        try:
            check_table_size(want)
            return want
        except TableSizeError as exc:
            why = str(exc)
        lo, hi = 0, want                 # check_table_size passes at lo (0: nowhere), fails at hi
        while hi - lo > 1:
            mid = (lo + hi) // 2
            try:
                check_table_size(mid)
                lo = mid
            except TableSizeError:
                hi = mid
        # Tables come in few sizes (a power of two of clusters): name the size of the
        # table itself, not the largest request that rounds down to it.
        mb = 1 << 20
        size = max(1, -(-table_bytes(lo) // mb)) if lo else 1
        self.note(f"USI_Hash {want} MB lowered to {size} MB: {why}")
        return size

    # ------------------------------------------------------------ main loop
    def run(self):
        """Read commands until `quit` or end of input; returns the exit status: 0, or
        SIGINT_STATUS after SIGINT (see shutdown)."""
        restore = self._catch_sigint()
        try:
            self._warm.start()
            try:
                return self.shutdown(eof=self._read_commands())
            except _Interrupted:
                # A second SIGINT kills at once (default action), not a traceback.
                signal.signal(signal.SIGINT, signal.SIG_DFL)
                self._sigint = "exiting"
                return self.shutdown(status=SIGINT_STATUS)
        finally:
            restore()

    def _read_commands(self):
        """Handle commands until `quit` (returns False) or end of input (returns True)."""
        while True:
            try:
                raw = self._wait(self.inp.readline)
            except (OSError, ValueError):
                raw = b""
            if not raw:
                return True
            line = raw.decode("utf-8", "replace").strip()
            if not line:
                continue
            try:
                if self.handle(line) == "quit":
                    return False
            except Exception as exc:   # noqa: BLE001 - never die on one command
                self.note(f"internal error on {line[:60]!r}: {type(exc).__name__}: {exc}")

    # ------------------------------------------------------------ SIGINT
    def _catch_sigint(self):
        """Route SIGINT to _on_sigint (only the main thread can); returns the undo."""
        if threading.current_thread() is not threading.main_thread():
            return lambda: None
        try:
            previous = signal.signal(signal.SIGINT, self._on_sigint)
        except (ValueError, OSError, AttributeError):
            return lambda: None
        self._sigint = "armed"
        return lambda: signal.signal(signal.SIGINT, previous)

    def _on_sigint(self, signum, frame):
        """Raise only where the main thread waits (see _wait): raised anywhere, the
        exception could leave a lock held or a search half started; elsewhere the
        next wait raises it."""
        if self._sigint == "armed":
            self._sigint = "fired"
        if self._waiting:
            raise _Interrupted()

    def _wait(self, call, *args):
        """call(*args), a blocking call of the main thread, interruptible by SIGINT."""
        self._waiting = True
        try:
            if self._sigint == "fired":
                raise _Interrupted()
            return call(*args)
        finally:
            self._waiting = False

    # ------------------------------------------------------------ exit
    def shutdown(self, eof=False, status=0):
        """Stop and answer the search, then return status (or exit with it at once when a
        thread cannot be joined). At end of input a script is still reading: a search
        with a time limit (`go mate <ms>`, plain `go`) is given its time to answer, and a
        pending isready its readyok; a search without one (`go mate infinite`,
        `go infinite`, `go ponder`) is stopped, since a GUI that crashed will not send stop."""
        wait = self._wait if self._sigint != "exiting" else (lambda call, *args: call(*args))
        if eof:
            for thread in list(self._ready_threads):
                wait(thread.join)
        search = self._last_search()
        if search is not None and search.thread.is_alive():
            if eof and search.time_limit is not None and not search.hold:
                left = search.start + search.time_limit - time.perf_counter()
                wait(search.thread.join, max(left, 0.0) + EOF_GRACE)
            search.request_stop("interrupted" if status == SIGINT_STATUS else
                                "end of input" if eof else "quit")
            wait(search.thread.join, 2.0)
        with self._out_lock:
            try:
                self.out.flush()
            except (OSError, ValueError):
                pass
        alive = [t for t in threading.enumerate()
                 if t is not threading.main_thread() and t.is_alive() and t.name.startswith("tsume-usi")]
        if alive:
            # A numba slice or the first compile is still running: nothing left to say,
            # and interpreter shutdown beside a busy thread could wait for it.
            os._exit(status)
        return status

    def handle(self, line):
        tokens = line.split()
        cmd = tokens[0]
        handler = getattr(self, "cmd_" + cmd, None) if cmd.isidentifier() else None
        if handler is None:
            self.note(f"ignored: unknown command: {line}")
            return None
        return handler(tokens[1:], line)

    # ------------------------------------------------------------ commands
    def cmd_usi(self, args, line):
        self.send(f"id name {ENGINE_NAME} {_version()}")
        self.send(f"id author {ENGINE_AUTHOR}")
        for name, (kind, default, lo, hi) in OPTIONS.items():
            if kind == "spin":
                self.send(f"option name {name} type spin default {default} min {lo} max {hi}")
            else:
                self.send(f"option name {name} type check default {str(default).lower()}")
        self.send("usiok")

    def cmd_isready(self, args, line):
        def ready():
            self.wait_warm()
            if self._warm_error is not None:
                self.note(f"warm-up failed: {type(self._warm_error).__name__}: {self._warm_error}")
            elif self.search is None:
                try:
                    self.get_solver()
                except Exception as exc:   # noqa: BLE001 - the search will say it again
                    self.note(f"hash table: {type(exc).__name__}: {exc}")
            self.send("readyok")
        if self._warm.is_alive() or self.search is None:
            # Answer from a helper so that quit/stop are still read meanwhile.
            helper = threading.Thread(target=ready, name="tsume-usi-ready", daemon=True)
            self._ready_threads = [t for t in self._ready_threads if t.is_alive()] + [helper]
            helper.start()
        else:
            ready()

    def cmd_setoption(self, args, line):
        lowered = [a.lower() for a in args]
        if not args or lowered[0] != "name" or len(args) < 2:
            self.note(f"ignored: expected 'setoption name <id> [value <x>]': {line}")
            return
        if "value" in lowered[1:]:
            v = lowered.index("value", 1)
            name, value = " ".join(args[1:v]), " ".join(args[v + 1:])
        else:
            name, value = " ".join(args[1:]), None
        canonical = {n.lower(): n for n in OPTIONS}.get(name.lower())
        if canonical is None:
            if name.lower() not in _QUIET_OPTIONS:
                self.note(f"ignored: unknown option {name}")
            return
        kind, _, lo, hi = OPTIONS[canonical]
        if kind == "check":
            if value is None or value.lower() not in ("true", "false"):
                self.note(f"ignored: {canonical} takes true or false, not {value!r}")
                return
            self.options[canonical] = value.lower() == "true"
            return
        try:
            number = int(value)
        except (TypeError, ValueError):
            self.note(f"ignored: {canonical} takes an integer, not {value!r}")
            return
        if not lo <= number <= hi:
            clamped = min(max(number, lo), hi)
            self.note(f"{canonical} {number} out of range {lo}..{hi}: using {clamped}")
            number = clamped
        self.options[canonical] = number

    def cmd_usinewgame(self, args, line):
        pass

    def cmd_ponderhit(self, args, line):
        search = self.search
        if search is not None and search.hold:
            search.hold = False
            search.released.set()

    def cmd_gameover(self, args, line):
        search = self.search
        if search is not None:
            search.request_stop()

    def cmd_stop(self, args, line):
        search = self.search
        if search is not None:
            search.request_stop()

    def cmd_quit(self, args, line):
        return "quit"

    def cmd_position(self, args, line):
        from .errors import TsumeError
        from .position import split_sfen
        self._start = None
        self.position = None
        try:
            start, moves = split_sfen(line)
        except TsumeError as exc:
            self.note(f"error: bad position ({exc}); no position set")
            return
        self._start = (start, moves)
        self._build()

    def _build(self):
        """self.position from the `position` command under the current options;
        None (with an info string) when it cannot be built."""
        from .errors import TsumeError
        from .formats.sfen import play_usi_moves
        self.wait_warm()
        start, moves = self._start
        rest = bool(self.options["DefenderHoldsRest"])
        self._built_with = rest
        pos = start.copy()
        try:
            if rest:
                # 玉方残り駒全部 for the side that defends at the end of the moves.
                defender = 1 - (pos.side_to_move ^ (len(moves) & 1))
                pos.set_hand(defender, pos.remaining_pieces(1 - defender))
            play_usi_moves(pos, moves)
        except TsumeError as exc:
            self.note(f"error: {exc}; no position set")
            self._start = None
            self.position = None
            return
        self.position = pos

    def _current_position(self):
        """The position to search, rebuilt if DefenderHoldsRest changed since `position`."""
        if self._start is not None and self._built_with != bool(self.options["DefenderHoldsRest"]):
            self._build()
        return self.position

    def _check_problem(self, pos):
        """None when pos can be searched, else the reason it is no mate problem."""
        from .errors import PositionError
        from .validate import box_pieces, validate
        try:
            validate(pos, box_warning=False)
        except PositionError as exc:
            if not (pos.is_check() and "side to move" in str(exc)):
                return str(exc)
            self.note("the side to move (attacker) is in check: only checks that parry it are tried")
        defender = 1 - pos.side_to_move
        if not int(pos.hands[defender]) and not self.options["DefenderHoldsRest"]:
            box = sum(box_pieces(pos).values())
            if box:
                self.note(f"the defender holds no pieces and {box} are in no hand and not on the "
                          "board; setoption name DefenderHoldsRest value true gives them to the defender")
        return None

    def cmd_go(self, args, line):
        if self.search is not None:
            self.note("ignored: a search is running (send stop first): " + line)
            return
        lowered = [a.lower() for a in args]
        if "mate" in lowered:
            self._go_mate(lowered, line)
        else:
            self._go_plain(lowered, line)

    def _go_mate(self, args, line):
        i = args.index("mate")
        limit = None
        if i + 1 < len(args) and args[i + 1] != "infinite":
            try:
                ms = int(args[i + 1])
            except ValueError:
                self.note(f"ignored: go mate takes milliseconds or 'infinite': {line}")
                return
            limit = ms / 1000 if ms > 0 else None
        nodes = int(self.options["MateNodes"]) or None
        pos = self._current_position()
        if pos is None:
            self.note("no position: send 'position' first")
            self._start_search(_Search(self, True, None))
            return
        reason = self._check_problem(pos)
        if reason is not None:
            self.note(f"not a mate problem: {reason}")
            self.send("checkmate nomate")
            return
        self._start_search(_Search(self, True, pos.copy(), time_limit=limit, nodes=nodes))

    def _go_plain(self, args, line):
        values = {}
        hold = False
        i = 0
        while i < len(args):
            a = args[i]
            if a in ("infinite", "ponder"):
                hold = True
                i += 1
            elif a in ("btime", "wtime", "byoyomi", "binc", "winc", "movetime", "nodes", "depth") \
                    and i + 1 < len(args):
                try:
                    values[a] = int(args[i + 1])
                except ValueError:
                    self.note(f"ignored: bad number after {a}")
                i += 2
            else:
                # A GUI waits for bestmove: answer anyway.
                self.note(f"ignored: unknown go parameter {a}")
                i += 1
        pos = self._current_position()
        if pos is None or self._check_problem(pos) is not None:
            self.note("no usable position: resign")
            self._start_search(_Search(self, False, None, hold=hold))
            return
        seconds = PLAIN_GO_SECONDS
        own = values.get("btime" if pos.side_to_move == 0 else "wtime")
        if values.get("movetime"):
            seconds = min(seconds, values["movetime"] / 2000)
        if values.get("byoyomi"):
            seconds = min(seconds, values["byoyomi"] / 2000)
        elif own is not None:
            inc = values.get("binc" if pos.side_to_move == 0 else "winc", 0)
            seconds = min(seconds, (own + inc) / 20000)
        seconds = max(seconds, 0.05)
        nodes = max(10_000, int(seconds * PLAIN_GO_NPS))
        if "nodes" in values:
            nodes = max(1, min(nodes, values["nodes"]))
        self._start_search(_Search(self, False, pos.copy(), time_limit=seconds, nodes=nodes, hold=hold))

    def _start_search(self, search):
        with self._search_lock:
            self.search = search
            self._last_search = weakref.ref(search)
        search.thread.start()

    def search_finished(self, search):
        with self._search_lock:
            if self.search is search:
                self.search = None


def run(inp=None, out=None):
    """Run the engine on stdin/stdout (or the given binary streams); returns the exit
    status (0, or SIGINT_STATUS after SIGINT)."""
    return Engine(inp, out).run()


def main(argv=None):
    """Console script ``tsume-usi``."""
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] in ("-h", "--help"):
        print("tsume-usi: a USI mate engine (go mate -> checkmate ...). Register this program "
              "in a shogi GUI; it speaks USI on stdin/stdout.")
        return 0
    sys.exit(run())


if __name__ == "__main__":
    main()
