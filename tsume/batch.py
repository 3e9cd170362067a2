"""Batches: many problems solved here, in --jobs worker processes or on a Dask
cluster, with records that line up with the input and output that can be resumed.

The CLI reads the problems and writes the records (cli.py); this module runs them:

* ``Batch`` numbers the problems as they are read, hands them to a backend in chunks
  (sized to about ``chunk_seconds`` of solving, so a worker's round trip is paid once
  per chunk, not per problem; and to a share of the problems read so far, so that a
  batch whose problems grow harder, as sets sorted by length do, does not end on one
  worker with one huge chunk), at most ``capacity`` chunks ahead, and delivers the
  records in input order (``Reorder``) or as they finish;
* backends: ``Serial`` (this process), ``LocalPool`` (``--jobs N``: N single-process
  pools of the standard library, so a dead worker names the chunk it was solving, which
  is retried; a fresh pool takes its place) and ``DaskPool`` (``--scheduler``: a running
  Dask scheduler, which retries the tasks of a dead worker itself);
* ``solve_chunk`` is what every backend runs: plain data in and out; a proof-only chunk
  (``--answer proof``, no time limit) is proven many problems to a compiled call
  (pipeline.solve_many), every other one problem at a time (pipeline.solve);
* ``RecordFile``: ``--output FILE`` (whole JSONL lines, flushed) and ``--resume``;
* ``Signals``: SIGINT and SIGTERM raise ``Interrupted`` in the main thread, never in the
  middle of writing a record.

Imports nothing of the engine at module level (the CLI imports this for ``--help``).
"""
import contextlib
import json
import os
import re
import signal
import threading
import time
import uuid

from .result import STATUSES, record

# Problems handed to a --jobs pool per worker before one is done: one running, the next
# queued behind it so the worker never waits for the main process.
IN_FLIGHT_PER_JOB = 2
# Seconds of solving a chunk aims at: long enough that a worker's round trip (a fraction
# of a millisecond for a local pool, several for Dask) is small beside it, short enough
# that the last chunks balance and an interrupted run loses little.
LOCAL_CHUNK_SECONDS = 0.2
DASK_CHUNK_SECONDS = 1.0
MAX_CHUNK = 256
# The same for proof-only batches (proof_only), whose chunk is proven many problems to a
# compiled call (pipeline.solve_many; bulk.CHUNK a call): a 3-ply proof is ~10 µs, so a
# chunk of MAX_CHUNK would be ~3 ms of solving, its round trip no longer small beside it.
PROOF_MAX_CHUNK = 1024
# A chunk holds at most this share of the problems read so far, per chunk in flight.
CHUNK_SHARE = 0.5
# Weight of the latest chunks' mean solve time in the running estimate.
ESTIMATE_WEIGHT = 0.3
# Finished records held back for input order while an earlier problem is still being
# solved; past this, no more problems are read until it is done.
ORDER_WINDOW = 4096
# A record that another run need not redo: a verdict, or a budget that ran out.
FINAL_STATUSES = ("mate", "nomate", "unknown")
NOT_FINAL_REASONS = ("interrupted",)
HEADER_BYTES = 1 << 16      # a TSV's `#` header lines are looked for in its first 64 KB
DASK_CONNECT_SECONDS = 20


def describe(exc):
    message = str(exc)
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


# ---------------------------------------------------------------- records
def header_columns(path):
    """The column names of a TSV file's ``#`` header (the last ``#`` line with a TAB
    before the first problem line), each cut to its first word (``mate_length (as
    stated)`` -> ``mate_length``); None when there is none or it cannot be read."""
    try:
        with open(path, "rb") as f:
            data = f.read(HEADER_BYTES)
    except OSError:
        return None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("cp932", errors="replace")
    header = None
    for line in text.splitlines():
        if not line.strip():
            continue
        if not line.lstrip().startswith("#"):
            break
        if "\t" in line:
            header = line
    if header is None:
        return None
    cells = header.lstrip().lstrip("#").split("\t")
    return [_column_name(cell) for cell in cells]


def _column_name(cell):
    match = re.match(r"\s*([^\s(（;:,]+)", cell)
    return match.group(1) if match else ""


def _is_id_column(name):
    name = name.lower()
    return name == "id" or name.endswith("_id")


def problem_id(item):
    """The TSV's id column when its header names one, else the title, else the source."""
    columns, fields = getattr(item, "columns", None), item.metadata.get("fields")
    if columns and fields:
        for name, value in zip(columns[1:], fields):
            if _is_id_column(name) and value:
                return value
    return item.metadata.get("title") or item.source


def record_metadata(item):
    """The record's `metadata`: title and author, the TSV's named columns (but the id's)
    by name, and unnamed ones as `fields`."""
    meta = {key: item.metadata[key] for key in ("title", "author") if item.metadata.get(key)}
    fields = list(item.metadata.get("fields") or ())
    columns = getattr(item, "columns", None) or []
    names = columns[1:1 + len(fields)]
    id_taken = False
    for name, value in zip(names, fields):
        if _is_id_column(name) and not id_taken:
            id_taken = True
        elif name and name not in meta:
            meta[name] = value
        else:
            meta.setdefault("fields", []).append(value)
    if len(fields) > len(names):
        meta.setdefault("fields", []).extend(fields[len(names):])
    return meta


def input_record(item, sfen=None, error=None):
    """The record of a problem without a result: one that could not be read, or (with
    `error`) one whose solve failed."""
    return record(item.source, sfen=sfen, error=error or item.error,
                  problem_id=problem_id(item), metadata=record_metadata(item))


def problem_record(item, sfen, outcome):
    """The record of a solved problem; `outcome` is solve_chunk's: the fields, or the
    error message of a solve that failed."""
    if isinstance(outcome, str):
        return input_record(item, sfen, outcome)
    rec = input_record(item, sfen)
    rec.update(outcome)
    rec["sakui"] = _sakui(item, rec)
    return rec


def _sakui(item, rec):
    """Compare with the author's line (作意) when the file carries one."""
    sakui = item.metadata.get("moves")
    if not sakui or rec["status"] != "mate":
        return None
    from .sakui import compare
    return compare(item.position, rec, sakui)


def is_final(rec):
    """Need a resumed run not redo this record's problem? Errors (a dead worker, a bug, an
    input that may have been fixed) and interrupted solves are redone."""
    return (isinstance(rec, dict) and rec.get("status") in FINAL_STATUSES
            and rec.get("reason") not in NOT_FINAL_REASONS)


# ---------------------------------------------------------------- the workers' side
def proof_only(limits):
    """Do these limits (solve_chunk's) let a chunk's problems be proven together, many
    to a compiled call (pipeline.solve_many): the proof alone, with no clock to read
    between problems (no time limit)."""
    return limits.get("answer") in ("proof", False) and limits.get("time_limit") is None


def solve_chunk(problems, limits):
    """Solve [(index, sfen), ...] with `limits` (a dict: hash_mb, Limits' fields and
    solve()'s progress hook); [(index, fields or error message), ...]. Runs in this
    process, a --jobs worker or a Dask worker, so it takes and returns plain data.
    Proof only (proof_only), a chunk's problems are read first and the valid ones proven
    together by pipeline.solve_many; otherwise each is solved in turn by
    pipeline.solve. Either way each problem has its own fields or error."""
    if len(problems) > 1 and proof_only(limits):
        return _prove_chunk(problems, limits)
    return [(index, _solve_one(sfen, limits)) for index, sfen in problems]


def _solve_one(sfen, limits):
    from . import pipeline
    from .position import Position
    try:
        position = Position.from_sfen(sfen)
        return _fields(position, pipeline.solve(position, **limits))
    except Exception as exc:    # noqa: BLE001 - one problem's bug must not stop the others
        return f"internal error: {describe(exc)}"


def _fields(position, result):
    from . import notation
    if result.status not in STATUSES[:3]:
        raise ValueError(f"solver returned status {result.status!r}: {result.reason}")
    fields = result.fields()
    if fields["moves"]:
        fields["kifu"] = notation.line_to_japanese(position, fields["moves"])
    return fields


def _prove_chunk(problems, limits):
    """solve_chunk's proof-only path: each SFEN read on its own (one that cannot be read
    is that problem's error), the others proven by one solve_many, whose Results are
    solve()'s but for `seconds`. Should solve_many itself fail, the chunk is solved one
    problem at a time, so that the failure is the record of the problem that causes it."""
    from . import pipeline
    from .position import Position
    out, valid = [], []
    for index, sfen in problems:
        try:
            valid.append((index, sfen, Position.from_sfen(sfen)))
        except Exception as exc:    # noqa: BLE001 - as _solve_one
            out.append((index, f"internal error: {describe(exc)}"))
    # (No progress hook: the status line of a long solve is solve()'s alone.)
    options = {key: value for key, value in limits.items() if key != "progress"}
    try:
        results = pipeline.solve_many([position for _, _, position in valid], **options)
    except Exception:           # noqa: BLE001 - a bug: each problem has its own record
        return out + [(index, _solve_one(sfen, limits)) for index, sfen, _ in valid]
    for (index, _, position), result in zip(valid, results):
        try:
            out.append((index, _fields(position, result)))
        except Exception as exc:    # noqa: BLE001 - as _solve_one
            out.append((index, f"internal error: {describe(exc)}"))
    return out


_warm_lock = threading.Lock()
_warm = set()               # what this process has loaded: "solve", and "bulk" (solve_many's)


def solve_chunk_warm(problems, limits):
    """solve_chunk on a long-lived worker (Dask): the compiled code is loaded once per
    process, before its first problem, so no problem's time includes it (solve_many's
    kernel too, before the first proof-only chunk); the worker's profiler is switched off
    then (_quiet_profiler)."""
    need = "bulk" if proof_only(limits) and len(problems) > 1 else "solve"
    if need not in _warm:
        with _warm_lock:
            if need not in _warm:
                if not _warm:
                    _quiet_profiler()
                from .pipeline import warm_up
                warm_up(bulk=need == "bulk")
                _warm.update(("solve", need))
    return solve_chunk(problems, limits)


def _quiet_profiler():
    """On a Dask worker, switch off Dask's statistical profiler. It samples the running
    task's Python stack every 10 ms and keeps the last 1,000 seconds of samples as trees
    of frames: the answer's deep and varied stacks (answer.py's recursion) made those
    trees ~165,000 dicts, ~170 MB a worker after a few thousand problems, beyond the
    worker's --hash + 200 MB (bench/MEASUREMENTS.md, 2026-12-06), and the sampling takes
    the GIL from the solve. (Its Profile page in the dashboard then stays empty.) Done
    in the worker's event loop, which owns the callbacks; nothing if this is no Dask
    worker or its internals differ."""
    try:
        from distributed import get_worker, profile
        worker = get_worker()
    except Exception:           # noqa: BLE001 - not on a Dask worker
        return

    def stop():
        with contextlib.suppress(Exception):
            for name in ("profile", "profile-cycle"):
                callback = worker.periodic_callbacks.pop(name, None)
                if callback is not None:
                    callback.stop()
            worker.profile_history.clear()
            worker.profile_keys_history.clear()
            worker.profile_keys.clear()
            worker.profile_recent = profile.create()

    with contextlib.suppress(Exception):
        worker.loop.add_callback(stop)


def _local_worker_init(parent):
    """A --jobs worker: Ctrl-C is the main process's to handle (it ends the workers), and
    a worker whose parent is gone (SIGKILL) exits rather than wait forever."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch():
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="tsume-parent-watch", daemon=True).start()


# ---------------------------------------------------------------- backends
class Task:
    """One problem on its way: its place in the input, the item read, its SFEN, and how
    many workers died while it was in their chunk."""
    __slots__ = ("index", "item", "sfen", "deaths")

    def __init__(self, index, item, sfen, deaths=0):
        self.index, self.item, self.sfen, self.deaths = index, item, sfen, deaths


def _outcomes(chunk, results):
    by_index = dict(results)
    return [(task, by_index.get(task.index, "internal error: no result from the worker"))
            for task in chunk]


def max_chunk(limits):
    """The largest chunk a backend takes for problems solved with `limits`."""
    return PROOF_MAX_CHUNK if proof_only(limits) else MAX_CHUNK


class Serial:
    """Solve in this process: one problem at a time, or proof only (proof_only) a chunk
    at a time, proven together. A Ctrl-C raises Interrupted between two compiled calls
    (solve()'s slices, solve_many's calls, each a fraction of a second), which ends the
    batch; the records of the chunk it stops are not delivered."""
    capacity = 1
    chunk_seconds = LOCAL_CHUNK_SECONDS

    def __init__(self, limits):
        self.limits = limits
        self.done = []
        # (One problem at a time when each is solved in turn: a chunk would only hold
        # back its records, and lose them to a Ctrl-C.)
        self.max_chunk = PROOF_MAX_CHUNK if proof_only(limits) else 1

    @property
    def in_flight(self):
        return len(self.done)

    def submit(self, chunk):
        self.done += _outcomes(chunk, solve_chunk([(t.index, t.sfen) for t in chunk], self.limits))

    def collect(self, block):
        done, self.done = self.done, []
        return done

    def close(self, kill=False):
        pass


class LocalPool:
    """``--jobs N``: N worker processes (spawned: the numba runtime does not fork well),
    each in a ProcessPoolExecutor of its own, so that a worker that dies breaks only its
    own pool and the chunk it was running is known: the oldest of that pool's. That chunk's
    problems are retried one by one; a problem whose worker dies again is an error record;
    the chunk queued behind it is resubmitted as it was. A fresh pool replaces the broken
    one. The first chunk is held until a second comes: a lone problem is solved in this
    process, which a worker's start-up would only delay."""
    chunk_seconds = LOCAL_CHUNK_SECONDS
    work = staticmethod(solve_chunk)       # what a worker runs (a module-level function)

    def __init__(self, jobs, limits):
        self.jobs, self.limits = jobs, limits
        self.max_chunk = max_chunk(limits)
        self.capacity = IN_FLIGHT_PER_JOB * jobs
        self.pools = [None] * jobs
        self.queues = [[] for _ in range(jobs)]     # per pool: its futures, oldest first
        self.chunks = {}                            # future -> (pool index, chunk)
        self.held = None
        self.started = False
        self.ready = []                             # (task, outcome) not yet collected
        self.unsent = set()                         # futures of chunks a broken pool refused

    @property
    def in_flight(self):
        return len(self.chunks) + (self.held is not None) + bool(self.ready)

    def submit(self, chunk):
        if not self.started and self.held is None:
            self.held = chunk
            return
        if self.held is not None:
            held, self.held = self.held, None
            self.started = True
            self._submit(held)
        self._submit(chunk)

    def _submit(self, chunk, avoid=None):
        import concurrent.futures as cf
        import multiprocessing
        slots = sorted(range(self.jobs), key=lambda k: (k == avoid, len(self.queues[k]), k))
        k = slots[0]
        if self.pools[k] is None:
            self.pools[k] = cf.ProcessPoolExecutor(
                max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                initializer=_local_worker_init, initargs=(os.getpid(),))
        try:
            future = self.pools[k].submit(self.work, [(t.index, t.sfen) for t in chunk],
                                          self.limits)
        except cf.process.BrokenProcessPool as exc:
            # Its worker died while idle: the chunk never ran there, and goes with the
            # pool's others to a fresh one, uncharged.
            future = cf.Future()
            future.set_exception(exc)
            self.unsent.add(future)
        self.queues[k].append(future)
        self.chunks[future] = (k, chunk)

    def collect(self, block):
        import concurrent.futures as cf
        if self.held is not None and block:
            # The input ended (or stdin is next) with one chunk: solve it here.
            held, self.held = self.held, None
            self.ready += _outcomes(held, solve_chunk([(t.index, t.sfen) for t in held],
                                                      self.limits))
        if block and not self.ready and self.chunks:
            cf.wait(list(self.chunks), return_when=cf.FIRST_COMPLETED)
        broken = set()
        for future in [f for f in self.chunks if f.done()]:
            k, chunk = self.chunks[future]
            if isinstance(future.exception(), cf.process.BrokenProcessPool):
                broken.add(k)
                continue
            del self.chunks[future]
            self.queues[k].remove(future)
            self.ready += _outcomes(chunk, future.result())
        for k in broken:
            self._replace(k)
        done, self.ready = self.ready, []
        return done

    def _replace(self, k):
        """Pool k's worker died: retry what it held, in a fresh pool."""
        import concurrent.futures as cf
        pool, queue = self.pools[k], self.queues[k]
        cf.wait(queue)          # (a broken pool fails all of its futures at once)
        cause = _death_cause(pool)
        self.pools[k], self.queues[k] = None, []
        pool.shutdown(wait=False, cancel_futures=True)
        running = True
        for future in queue:
            _, chunk = self.chunks.pop(future)
            if not isinstance(future.exception(), cf.process.BrokenProcessPool):
                self.ready += _outcomes(chunk, future.result())
                continue
            if not running or future in self.unsent:
                self.unsent.discard(future)
                self._submit(chunk)             # queued behind the dead one: innocent
                continue
            running = False
            for task in chunk:
                task.deaths += 1
                if task.deaths >= 2:
                    self.ready.append((task, f"worker process died while solving it, "
                                             f"twice ({cause})"))
                else:
                    self._submit([task], avoid=k)

    def close(self, kill=False):
        """End the pools; with `kill` (an interrupt, an error) their workers at once."""
        processes, managers = [], []
        for pool in self.pools:
            if pool is None:
                continue
            if kill:
                processes += list((getattr(pool, "_processes", None) or {}).values())
            # (Taken before shutdown, which forgets it.)
            managers.append(getattr(pool, "_executor_manager_thread", None))
            pool.shutdown(wait=not kill, cancel_futures=True)
        _end_processes(processes)
        # A killed pool's manager thread winds down by itself; it is waited for here
        # because at exit Python 3.11 wakes each such thread through a pipe that the
        # thread may be closing at that moment ("Bad file descriptor" printed after our
        # last line).
        for thread in managers:
            if thread is not None:
                thread.join(5.0)
        self.pools = [None] * self.jobs


def _death_cause(pool):
    """How a broken single-worker pool's process ended ("killed by SIGKILL"); reads the
    executor's process table, which the standard library does not make public."""
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        # Its pipe closes as it exits, a moment before it can be waited for (and the
        # pool's own thread may be the one that waits for it).
        code, deadline = process.exitcode, time.monotonic() + 1.0
        while code is None and time.monotonic() < deadline:
            time.sleep(0.02)
            code = process.exitcode
        if code is not None and code < 0:
            try:
                return f"killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"killed by signal {-code}"
        if code is not None:
            return f"exit status {code}"
    return "the worker process ended abruptly"


def _end_processes(processes, grace=2.0):
    for process in processes:
        with contextlib.suppress(Exception):
            process.terminate()
    deadline = time.monotonic() + grace
    for process in processes:
        with contextlib.suppress(Exception):
            process.join(max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                process.kill()
                process.join(1.0)


class ClusterError(Exception):
    """The Dask backend cannot start: the extra is not installed, or the scheduler cannot
    be reached (one line for the user)."""


class DaskPool:
    """``--scheduler ADDRESS``: chunks are Dask tasks on a running scheduler's workers.
    Each worker solves with its own table (hash_mb in the limits) and loads the compiled
    code once (solve_chunk_warm). A worker that dies while running a task makes the
    scheduler run it elsewhere (up to its ``allowed-failures``); a chunk that still fails
    is retried one problem at a time, and a lone problem that fails is an error record."""
    chunk_seconds = DASK_CHUNK_SECONDS

    def __init__(self, address, limits, warn=None):
        self.max_chunk = max_chunk(limits)
        try:
            from dask.distributed import Client, as_completed
        except ImportError:
            raise ClusterError("--scheduler needs Dask: pip install 'tsume[cluster]'") from None
        self.limits = limits
        try:
            self.client = Client(address, timeout=DASK_CONNECT_SECONDS, set_as_default=False)
        except Exception as exc:    # noqa: BLE001 - OSError, TimeoutError, a bad address...
            raise ClusterError(f"cannot reach the Dask scheduler at {address}: "
                               f"{describe(exc)}") from None
        self.done = as_completed([], loop=self.client.loop, with_results=False)
        self.chunks = {}            # future -> chunk
        self.ready = []
        self.prefix = f"tsume-solve-{uuid.uuid4().hex[:12]}"
        self.count = 0
        self.capacity = 2
        self.checked = 0.0
        self.warn = warn
        self._check_workers()

    def _check_workers(self):
        """Keep about two chunks per worker thread in flight (workers may come and go)."""
        now = time.monotonic()
        if now - self.checked < 5.0:
            return
        self.checked = now
        threads = self.client.nthreads()
        self.capacity = max(2, 2 * sum(threads.values()))
        if self.warn is not None:
            if not threads:
                self.warn("no Dask worker is connected to the scheduler yet: waiting for one")
            elif any(n > 1 for n in threads.values()):
                self.warn("some Dask workers run several threads: start them with "
                          "--nthreads 1 (one table per worker process)")
            self.warn = None

    @property
    def in_flight(self):
        return len(self.chunks) + bool(self.ready)

    def submit(self, chunk):
        self.count += 1
        future = self.client.submit(solve_chunk_warm, [(t.index, t.sfen) for t in chunk],
                                    self.limits, key=f"{self.prefix}-{self.count}",
                                    pure=False, retries=1)
        self.chunks[future] = chunk
        self.done.add(future)
        self._check_workers()

    def collect(self, block):
        if not self.ready and self.chunks:
            for future in self.done.next_batch(block=block):
                chunk = self.chunks.pop(future)
                if future.status == "finished":
                    self.ready += _outcomes(chunk, future.result())
                elif len(chunk) > 1:
                    for task in chunk:
                        self.submit([task])
                else:
                    exc = future.exception() if future.status == "error" else None
                    self.ready.append((chunk[0], "worker failed while solving it "
                                                 f"({describe(exc) if exc else future.status})"))
                future.release()
        done, self.ready = self.ready, []
        return done

    def close(self, kill=False):
        with contextlib.suppress(Exception):
            if kill and self.chunks:
                self.client.cancel(list(self.chunks), force=True)
        with contextlib.suppress(Exception):
            self.client.close(timeout=5)


# ---------------------------------------------------------------- the batch
class Reorder:
    """Deliver records in input order: a record waits until those before it are out."""

    def __init__(self, deliver):
        self.deliver = deliver
        self.next = 0
        self.held = {}

    def put(self, index, item, rec):
        if index != self.next:
            self.held[index] = (item, rec)
            return
        self.deliver(item, rec)
        self.next += 1
        while self.next in self.held:
            self.deliver(*self.held.pop(self.next))
            self.next += 1

    def flush(self):
        """An interrupted run: what is finished goes out, still in input order."""
        for index in sorted(self.held):
            self.deliver(*self.held.pop(index))


class Batch:
    """Problems in, records out: see the module's docstring. ``deliver(item, rec)`` gets
    each record; ``skip(item, sfen)`` (resume; sfen None for an input that could not be
    read) leaves a problem out altogether."""

    def __init__(self, backend, deliver, ordered=True, skip=None):
        self.backend = backend
        self.deliver = deliver
        self.order = Reorder(deliver) if ordered else None
        self.skip = skip
        self.count = 0
        self.chunk = []
        self.seconds = None         # running estimate of a problem's solve time

    def run(self, read):
        """Solve what ``read(before_stdin)`` yields (see cli._items); the backend is
        closed at the end, its workers ended at once if the run is cut short."""
        try:
            for item in read(self.settle):
                self._add(item)
                self._collect(block=False)
                while (self.backend.in_flight >= self.backend.capacity
                       or (self.order is not None and len(self.order.held) >= ORDER_WINDOW)):
                    if not self.backend.in_flight:
                        self._submit()      # the problem the records wait for is here
                    self._collect(block=True)
            self.settle()
        except BaseException:
            self.backend.close(kill=True)
            raise
        self.backend.close()

    def flush(self):
        """After an interrupt: deliver the finished records still held for order."""
        if self.order is not None:
            self.order.flush()

    def settle(self):
        """Answer everything handed out: at the end, and before stdin is read (which
        waits for its writer)."""
        self._submit()
        while self.backend.in_flight:
            self._collect(block=True)

    def _add(self, item):
        usable = item.error is None and item.position is not None
        sfen = item.position.sfen() if usable else None
        if self.skip is not None and self.skip(item, sfen):
            return
        if not usable:
            self._finish(self._number(), item, input_record(item))
            return
        self.chunk.append(Task(self._number(), item, sfen))
        if len(self.chunk) >= self._chunk_size():
            self._submit()

    def _number(self):
        self.count += 1
        return self.count - 1

    def _chunk_size(self):
        if self.seconds is None:
            return 1
        share = int(CHUNK_SHARE * self.count / self.backend.capacity)
        return max(1, min(self.backend.max_chunk, share,
                          int(self.backend.chunk_seconds / max(self.seconds, 1e-6))))

    def _submit(self):
        if self.chunk:
            chunk, self.chunk = self.chunk, []
            self.backend.submit(chunk)

    def _collect(self, block):
        done = self.backend.collect(block)
        times = [float(o.get("seconds") or 0.0) for _, o in done if isinstance(o, dict)]
        if times:
            mean = sum(times) / len(times)
            self.seconds = mean if self.seconds is None else (
                self.seconds + ESTIMATE_WEIGHT * (mean - self.seconds))
        for task, outcome in done:
            self._finish(task.index, task.item, problem_record(task.item, task.sfen, outcome))

    def _finish(self, index, item, rec):
        if self.order is None:
            self.deliver(item, rec)
        else:
            self.order.put(index, item, rec)


# ---------------------------------------------------------------- --output / --resume
class RecordFile:
    """``--output FILE``: one JSON record a line, each written whole and flushed, so a
    killed run leaves whole lines (and at most a torn last one, from a kill in the middle
    of a write). With ``resume``, the records already in FILE are read first: a torn last
    line is cut off, and the problems whose record is final (is_final, same SFEN) are
    skipped; the rest are appended. ``compact`` then rewrites FILE with the newest record
    of each problem, in input order."""

    def __init__(self, path, resume=False):
        self.path = path
        self.done = {}              # source -> (sfen, complete) of its newest final record
        self.sources = []           # every problem read this run, in input order
        self.incomplete = 0         # final records skipped that are not complete works
        self.resumed = resume and os.path.exists(path)
        if self.resumed:
            self._load()
        self.file = open(path, "a" if self.resumed else "w", encoding="utf-8")

    def _load(self):
        with open(self.path, "rb") as f:
            data = f.read()
        end = data.rfind(b"\n") + 1
        if end < len(data):
            # A torn last line: its problem is redone, and the next record starts a line.
            with open(self.path, "r+b") as f:
                f.truncate(end)
        for line in data[:end].splitlines():
            rec = _parse(line)
            if rec is None or not isinstance(rec.get("source"), str):
                continue
            if is_final(rec):
                self.done[rec["source"]] = (rec.get("sfen"), bool(rec.get("complete")))
            else:
                self.done.pop(rec["source"], None)

    def skip(self, item, sfen):
        """Is this problem's record already in FILE (a resumed run)? Notes its place
        either way; an input that could not be read (sfen None) is read again."""
        self.sources.append(item.source)
        found = self.done.get(item.source)
        if sfen is not None and found is not None and found[0] == sfen:
            self.incomplete += not found[1]
            return True
        return False

    def write(self, line):
        self.file.write(line + "\n")
        self.file.flush()

    def close(self):
        self.file.close()

    def compact(self):
        """Rewrite FILE as this run's problems in input order, each with its newest
        record (then the records of problems not read this run, as they were), through a
        temporary file renamed over it: a kill meanwhile leaves FILE as it was."""
        self.file.close()
        newest, others = {}, []
        with open(self.path, "rb") as f:
            for line in f:
                rec = _parse(line)
                if rec is None or not isinstance(rec.get("source"), str):
                    continue
                if rec["source"] not in newest:
                    others.append(rec["source"])
                newest[rec["source"]] = line.rstrip(b"\n")
        read = set(self.sources)
        tmp = f"{self.path}.tmp{os.getpid()}"
        try:
            with open(tmp, "wb") as out:
                for source in self.sources + [s for s in others if s not in read]:
                    if source in newest:
                        out.write(newest[source] + b"\n")
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, self.path)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def _parse(line):
    try:
        rec = json.loads(line)
    except ValueError:
        return None
    return rec if isinstance(rec, dict) else None


# ---------------------------------------------------------------- signals
class Interrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM reached the main process: the run stops (exit 128 + signum)."""

    def __init__(self, signum=signal.SIGINT):
        super().__init__(signum)
        self.signum = signum


class Signals:
    """While active (a context manager, in the main thread), SIGINT and SIGTERM raise
    Interrupted; inside ``deferred()`` (a record being written) the signal waits until
    the write is done, so output holds whole records. A second signal while the run winds
    down ends the process at once."""

    def __init__(self):
        self.saved = {}
        self.deferring = 0
        self.pending = None
        self.fired = None

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            for signum in (signal.SIGINT, signal.SIGTERM):
                self.saved[signum] = signal.signal(signum, self._handle)
        return self

    def __exit__(self, *exc):
        for signum, handler in self.saved.items():
            signal.signal(signum, handler)
        self.saved = {}
        return False

    def _handle(self, signum, frame):
        if self.deferring:
            self.pending = signum
            return
        self._fire(signum)

    def _fire(self, signum):
        if self.fired is None:
            self.fired = signum
            raise Interrupted(signum)
        # Told again while stopping: end now, with the workers (the records written so
        # far are whole: this runs between writes).
        import multiprocessing
        _end_processes(multiprocessing.active_children(), grace=0.5)
        os._exit(128 + signum)

    @contextlib.contextmanager
    def deferred(self):
        self.deferring += 1
        try:
            yield
        finally:
            self.deferring -= 1
            if not self.deferring and self.pending is not None:
                signum, self.pending = self.pending, None
                self._fire(signum)
