"""Batches: what a batch costs on a Dask cluster against local worker processes, and
(sections 2 and 3) the proof-only throughput of a batch against cshogi's DfPn.

    python bench/batch.py cluster [--limit N] [--answer length] [--hash 256] [--rounds 1] [--state FILE]
    python bench/batch.py proof [--count 2000] [--repeat 5] [--block 200] [--sets yo_mate3,yo_mate5]
    python bench/batch.py cli [--sets yo_mate3] [--limit N] [--rounds 1]
    python bench/batch.py             # every section, with its defaults

Section 1, ``cluster``: every row of ../shared/problems/yo_mate*.tsv (about 50,000;
``--limit N`` keeps the first N of each set) solved by ``tsume solve --answer length
-f jsonl``, once with ``--jobs 2`` and once with ``--scheduler`` against a 2-worker Dask
``LocalCluster`` started here (loopback only, one thread a worker, the scheduler in this
process). Prints each run's throughput (problems/s, the command's wall time: the local
run includes starting its workers, the cluster's workers are warmed up first, as
``tsume warmup`` or a first batch leaves them), the ratio cluster/local (issue #46:
>= 0.9), each worker's peak resident memory (sampled every 0.2 s; target: within
--hash + 200 MB), and whether the two runs agree on every verdict and length. With
``--rounds R`` the two alternate R times (the machine is shared: its load moves). Each
set (or part of ``--part-rows N`` rows) is a run of each, one after the other;
``--state FILE`` keeps the finished runs, so that a long run stopped is resumed by the
same command.

Sections 2 (``proof``: solve_many and a batch worker's chunk in one process) and 3
(``cli``: the ``tsume solve --answer proof`` command, serial and --jobs 2) are described
in their functions' docstrings.

Each section is a function registered with ``@section(name)``; a new one is added as a
function of its own below the others, with nothing else to edit.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "problems"
sys.path.insert(0, str(ROOT))

SECTIONS = {}       # name -> (add its arguments to a parser, run it with the parsed args)


def section(name, arguments=lambda parser: None):
    def register(run):
        SECTIONS[name] = (arguments, run)
        return run
    return register


def yo_mate_files(limit, directory, part_rows=None):
    """The yo_mate sets as TSV files (their header kept), the first `limit` rows of each
    when given; [(name, path, rows)]. With `part_rows`, each set is cut into files of
    that many rows (the last shorter), named SET.N."""
    found = []
    for path in sorted(SHARED.glob("yo_mate*.tsv"), key=lambda p: int(p.stem[7:])):
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        header = [ln for ln in lines[:1] if ln.startswith("#")]
        body = [ln for ln in lines if ln.strip() and not ln.startswith("#")]
        body = body[:limit] if limit else body
        step = part_rows or len(body)
        for k in range(0, len(body), step):
            name = path.stem if step >= len(body) else f"{path.stem}.{k // step + 1}"
            out = Path(directory) / f"{name}.tsv"
            out.write_text("".join(header + body[k:k + step]), encoding="utf-8")
            found.append((name, out, len(body[k:k + step])))
    return found


class PeakMemory:
    """Samples the resident memory of some processes every `interval` seconds in a
    thread; ``peaks``: pid -> largest RSS seen (bytes)."""

    def __init__(self, pids, interval=0.2):
        self.pids, self.interval = pids, interval
        self.peaks = {}
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        import psutil
        while not self.stopped.wait(self.interval):
            for pid in self.pids():
                try:
                    rss = psutil.Process(pid).memory_info().rss
                except psutil.Error:
                    continue
                self.peaks[pid] = max(self.peaks.get(pid, 0), rss)

    def stop(self):
        self.stopped.set()
        self.thread.join()
        return self.peaks


def local_workers(parent):
    """The --jobs worker processes of the tsume process `parent`."""
    import psutil
    try:
        children = psutil.Process(parent).children()
    except psutil.Error:
        return []
    found = []
    for child in children:
        try:
            if any("spawn_main" in part for part in child.cmdline()):
                found.append(child.pid)
        except psutil.Error:
            pass
    return found


def run_tsume(args, files, workers):
    """Run `tsume solve ARGS FILES`; (seconds, steady seconds, records, peak RSS per
    worker in MB): the command's wall time, and the time from its first record to its
    last, which leaves out the workers' start (numba's cache loaded, a table made).
    `workers(pid)` lists the worker processes to watch."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "tsume", "solve", *args, *map(str, files)],
                                stdout=subprocess.PIPE, stderr=err, env=env)
        memory = PeakMemory(lambda: workers(proc.pid))
        lines, first = [], None
        for line in proc.stdout:
            lines.append(line)
            if first is None:
                first = time.perf_counter()
        last = time.perf_counter()
        proc.wait()
        seconds = time.perf_counter() - start
        peaks = memory.stop()
        if proc.returncode != 0:
            err.seek(0)
            sys.exit(f"tsume {' '.join(args)} failed ({proc.returncode}): "
                     f"{err.read().decode()[-2000:]}")
    records = [json.loads(line) for line in lines]
    return (seconds, last - first, records,
            sorted((p / 2 ** 20 for p in peaks.values()), reverse=True))


def _cluster_arguments(parser):
    parser.add_argument("--limit", type=int, default=None,
                        help="the first N rows of each yo_mate set (default: all)")
    parser.add_argument("--answer", default="length", choices=("proof", "length", "full"))
    parser.add_argument("--hash", type=int, default=256, help="MB per worker")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--time-limit", type=float, default=None)
    parser.add_argument("--part-rows", type=int, default=None, metavar="N",
                        help="cut each set into runs of N rows, local and cluster "
                        "alternating run by run (the machine's load moves)")
    parser.add_argument("--state", default=None, metavar="FILE",
                        help="keep each finished run in FILE (JSON) and skip it when run "
                        "again with the same FILE: a long run stopped is resumed")


@section("cluster", _cluster_arguments)
def cluster_throughput(args):
    """Section 1: local --jobs 2 against a 2-worker Dask cluster (see the docstring). Each
    set (or part) is one run of each (local first, then the cluster, set after set), so the two
    share the machine's changing load; the rates are the totals' over the sets. With
    --state FILE each finished run is kept there, and a run stopped (Ctrl-C, a kill) is
    resumed by the same command: the runs in FILE are not redone."""
    import logging

    from distributed import Client, LocalCluster

    from tsume.pipeline import warm_up
    state = {}
    if args.state and os.path.exists(args.state):
        with open(args.state, encoding="utf-8") as f:
            state = json.load(f)
    settings = {"limit": args.limit, "answer": args.answer, "hash": args.hash,
                "time_limit": args.time_limit, "part_rows": args.part_rows}
    if state.setdefault("settings", settings) != settings:
        sys.exit(f"{args.state} holds runs with other settings: {state['settings']}")
    runs = state.setdefault("runs", {})

    def save():
        if args.state:
            tmp = f"{args.state}.tmp"
            with open(tmp, "w", encoding="utf-8") as f:
                json.dump(state, f)
            os.replace(tmp, args.state)

    with tempfile.TemporaryDirectory() as tmp, \
            LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                         dashboard_address=None, silence_logs=logging.ERROR) as cluster, \
            Client(cluster, set_as_default=False) as client:
        sets = yo_mate_files(args.limit, tmp, args.part_rows)
        total = sum(n for _, _, n in sets)
        print(f"{total} problems ({', '.join(f'{name} {n}' for name, _, n in sets)}), "
              f"--answer {args.answer}, --hash {args.hash}, 2 workers, "
              f"{os.cpu_count()} cores" + (f"; {len(runs)} runs done in {args.state}"
                                           if runs else ""), flush=True)
        client.run(warm_up, bulk=args.answer == "proof")
        common = ["-f", "jsonl", "--answer", args.answer, "--hash", str(args.hash)]
        if args.time_limit:
            common += ["--time-limit", str(args.time_limit)]
        dask_pids = _once(lambda: list(client.run(os.getpid).values()))
        for round_ in range(args.rounds):
            for set_name, path, rows in sets:
                for name, extra, workers in (("local", ["--jobs", "2"], local_workers),
                                             ("cluster", ["--scheduler", cluster.scheduler_address],
                                              dask_pids)):
                    key = f"{round_ + 1} {set_name} {name}"
                    if key in runs:
                        continue
                    seconds, steady, records, peak = run_tsume(common + extra, [path], workers)
                    runs[key] = {"seconds": seconds, "steady": steady, "peak": peak,
                                 "records": len(records),
                                 "verdicts": {r["source"].rsplit("/", 1)[-1]: [r["status"], r["length"]]
                                              for r in records}}
                    save()
                    print(f"  round {round_ + 1} {set_name:9s} {name:7s} {seconds:8.1f} s "
                          f"({steady:.1f} s first to last record)  "
                          f"{len(records) / seconds:7.1f} problems/s  peak RSS per worker "
                          + " ".join(f"{mb:.0f}" for mb in peak) + " MB", flush=True)
    done = [key for key in runs if key.endswith(" local")]
    _cluster_summary(runs, args.hash, args.rounds * len(sets) == len(done))


def _cluster_summary(runs, hash_mb, whole):
    """Rates, the ratio, memory and agreement over the runs kept (both kinds of each)."""
    pairs = [key[:-len(" local")] for key in runs
             if key.endswith(" local") and key[:-len(" local")] + " cluster" in runs]
    if not whole:
        print(f"(not every set was run: totals over {len(pairs)} pairs of runs)")
    count = sum(runs[f"{p} local"]["records"] for p in pairs)
    for kind, what in (("seconds", "wall time"), ("steady", "first to last record")):
        local = sum(runs[f"{p} local"][kind] for p in pairs)
        cluster = sum(runs[f"{p} cluster"][kind] for p in pairs)
        print(f"{what}: local --jobs 2 {count / local:.1f} problems/s ({local:.0f} s), "
              f"cluster {count / cluster:.1f} problems/s ({cluster:.0f} s), ratio "
              f"cluster/local {local / cluster:.3f} (target >= 0.9)")
    for name in ("local", "cluster"):
        peaks = [0.0, 0.0]
        for p in pairs:
            for k, mb in enumerate(runs[f"{p} {name}"]["peak"][:2]):
                peaks[k] = max(peaks[k], mb)
        print(f"peak RSS per worker, {name}: {' '.join(f'{mb:.0f}' for mb in peaks)} MB "
              f"(--hash + 200 = {hash_mb + 200} MB: "
              f"{'within' if max(peaks) <= hash_mb + 200 else 'OVER'})")
    differ = sum(verdict != runs[f"{p} cluster"]["verdicts"].get(source)
                 for p in pairs for source, verdict in runs[f"{p} local"]["verdicts"].items())
    print(f"records that differ (verdict or length): {differ} of {count}")


def _once(lister):
    """The Dask workers' pids, asked once (a worker restarted meanwhile is not followed),
    as a function of the tsume process like local_workers."""
    found = []

    def pids(parent):
        if not found:
            found.extend(lister())
        return found
    return pids


# ---------------------------------------------------------------- 2. proof-only throughput
def _sfens(name, count=None):
    path = SHARED / f"{name}.tsv"
    found = [line.split("\t")[0] for line in path.open(encoding="utf-8")
             if line.strip() and not line.startswith("#")]
    return found[:count] if count else found


def _dfpn():
    """cshogi's DfPn as bench/floor.py and bench/peers.py drive it: one searcher reused,
    search and get_pv per position; mates found."""
    import cshogi
    dfpn = cshogi.DfPn()
    dfpn.set_max_search_node(10 ** 7)
    dfpn.set_max_depth(1024)

    def peer(boards):
        mates = 0
        for board in boards:
            if dfpn.search(board):
                dfpn.get_pv(board)
                mates += 1
        return mates
    return peer


def _proof_arguments(parser):
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--block", type=int, default=200)
    parser.add_argument("--sets", default="yo_mate3,yo_mate5")


@section("proof", _proof_arguments)
def proof_throughput(args):
    """Section 2: proof-only throughput in one process against cshogi's DfPn.

    On the first --count rows of each set, cut into blocks of --block problems; --repeat
    times each block is solved by each in turn (their order rotating) and each one's
    fastest time per block counts (on a shared machine a block's best mostly misses the
    other processes' bursts). The positions (ours, cshogi Boards) are made before any
    timing. Printed per set: µs per problem and the ratio to DfPn (< 1: ours faster) of
    solve() one by one; pipeline.solve_many (the batch's proofs: Results with the line,
    answer=False, default 256 MB table; issue #46's target < 1); its kernel alone
    (bulk.prove_many on the block stacked beforehand, no Results); and batch.solve_chunk,
    what a batch's worker runs for a proof-only chunk: SFEN text in, each record's fields
    (the line in Japanese too) out. (It replaces bench/bulk.py, which measured the
    first three.)"""
    import cshogi
    import numpy as np

    from tsume import batch
    from tsume import bulk as B
    from tsume import pipeline
    from tsume.limits import MAX_NODES
    from tsume.position import Position
    from tsume.solver import shared_solver
    pipeline.warm_up(bulk=True)
    solver = shared_solver()
    limits = {"time_limit": None, "nodes": None, "hash_mb": 256, "answer": "proof",
              "yozume": True, "yozume_nodes": None}

    def stacked(positions):
        return (np.stack([p.board for p in positions]), np.stack([p.hands for p in positions]),
                np.stack([p.state for p in positions]),
                np.empty((len(positions), B.OUT_SIZE), dtype=np.int64),
                np.empty((len(positions), B.LINE_PLIES), dtype=np.int32))

    def kernel(block):
        boards, hands, states, out, lines = block
        salts = solver.new_salts(len(boards))
        i = 0
        while i < len(boards):      # (a problem handed back is skipped: none here is)
            i, handoff = B.prove_many(boards, hands, states, *solver.full_table, salts, i,
                                      MAX_NODES, B.HANDOFF_NODES, B.CALL_NODES,
                                      solver.control, solver.work, out, lines)
            i += handoff != B.HANDOFF_NONE
        return int((out[:, B.O_PN] == 0).sum())

    runs = {"cshogi.DfPn": _dfpn(),
            "solve() one by one": lambda ps: sum(pipeline.solve(p, answer=False).status == "mate"
                                                 for p in ps),
            "solve_many": lambda ps: sum(r.status == "mate"
                                         for r in pipeline.solve_many(ps, answer=False)),
            "its kernel alone": kernel,
            "batch.solve_chunk": lambda problems: sum(
                isinstance(f, dict) and f["status"] == "mate"
                for _, f in batch.solve_chunk(problems, limits))}
    names = list(runs)
    for name in args.sets.split(","):
        sfens = _sfens(name, args.count)
        blocks = [sfens[k:k + args.block] for k in range(0, len(sfens), args.block)]
        positions = [[Position.from_sfen(s) for s in b] for b in blocks]
        items = {"cshogi.DfPn": [[cshogi.Board(s) for s in b] for b in blocks],
                 "solve() one by one": positions, "solve_many": positions,
                 "its kernel alone": [stacked(b) for b in positions],
                 "batch.solve_chunk": [list(enumerate(b)) for b in blocks]}
        best = {key: [float("inf")] * len(blocks) for key in names}
        mates = {key: 0 for key in names}
        for r in range(args.repeat):
            for b in range(len(blocks)):
                turn = (r + b) % len(names)
                for key in names[turn:] + names[:turn]:
                    start = time.perf_counter()
                    found = runs[key](items[key][b])
                    best[key][b] = min(best[key][b], time.perf_counter() - start)
                    if r == 0:
                        mates[key] += found
        print(f"{name}: {len(sfens)} problems in blocks of {args.block}, best of "
              f"{args.repeat}; mates: " + ", ".join(f"{k} {mates[k]}" for k in names), flush=True)
        total = {key: sum(best[key]) for key in names}
        for key in names:
            print(f"  {key:20s} {total[key] / len(sfens) * 1e6:8.2f} µs/problem   "
                  f"ours/DfPn {total[key] / total['cshogi.DfPn']:5.2f}", flush=True)


# ---------------------------------------------------------------- 3. the CLI, proof only
def _cli_arguments(parser):
    parser.add_argument("--sets", default="yo_mate3")
    parser.add_argument("--limit", type=int, default=None,
                        help="the first N rows of each set (default: all)")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--hash", type=int, default=256)


@section("cli", _cli_arguments)
def cli_throughput(args):
    """Section 3: ``tsume solve --answer proof -f jsonl`` over whole sets, in this
    process (Serial) and with --jobs 2, against cshogi's DfPn.

    The command's wall time (Python's start, numba's cache loaded, reading and checking
    each problem, the records written as JSON) and its time from the first record to the
    last; DfPn's time in this process over the same rows: each SFEN made a Board, search
    and get_pv (the problems read beforehand). Rates in problems/s; ratio = our time /
    DfPn's (> 1: ours slower). --rounds R alternates the runs R times (best counts)."""
    names = args.sets.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        sets = [entry for entry in yo_mate_files(args.limit, tmp) if entry[0] in names]
        files = [path for _, path, _ in sets]
        total = sum(n for _, _, n in sets)
        sfens = [s for name, _, _ in sets for s in _sfens(name, args.limit)]
        print(f"{total} problems ({', '.join(f'{name} {n}' for name, _, n in sets)}), "
              f"--answer proof, --hash {args.hash}, {os.cpu_count()} cores", flush=True)
        import cshogi
        peer = _dfpn()
        common = ["-f", "jsonl", "--answer", "proof", "--hash", str(args.hash)]
        best = {"DfPn": (float("inf"), 0.0), "serial": (float("inf"), 0.0),
                "--jobs 2": (float("inf"), 0.0)}
        statuses = {}
        for _ in range(args.rounds):
            start = time.perf_counter()
            mates = peer(cshogi.Board(s) for s in sfens)
            seconds = time.perf_counter() - start
            best["DfPn"] = min(best["DfPn"], (seconds, seconds))
            print(f"  {'DfPn':9s} {seconds:6.2f} s {total / seconds:8.0f} problems/s", flush=True)
            for label, extra in (("serial", []), ("--jobs 2", ["--jobs", "2"])):
                seconds, steady, records, _ = run_tsume(common + extra, files, local_workers)
                statuses[label] = [(r["status"], r["length"]) for r in records]
                best[label] = min(best[label], (seconds, steady))
                print(f"  {label:9s} {seconds:6.2f} s ({steady:.2f} s first to last record) "
                      f"{total / seconds:8.0f} problems/s", flush=True)
        dfpn_seconds = best["DfPn"][0]
        print(f"DfPn: {dfpn_seconds:.2f} s, {total / dfpn_seconds:.0f} problems/s "
              f"({mates} mates)")
        for label in ("serial", "--jobs 2"):
            seconds, steady = best[label]
            print(f"tsume solve --answer proof {label}: {seconds:.2f} s "
                  f"({total / seconds:.0f} problems/s; first to last record {steady:.2f} s, "
                  f"{total / steady:.0f}/s), ours/DfPn {seconds / dfpn_seconds:.1f} "
                  f"(steady {steady / dfpn_seconds:.1f}); mates "
                  f"{sum(s == 'mate' for s, _ in statuses[label])}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="section")
    for name, (arguments, run) in SECTIONS.items():
        arguments(commands.add_parser(name, help=(run.__doc__ or "").split("\n")[0]))
    args = parser.parse_args()
    if args.section is not None:
        SECTIONS[args.section][1](args)
        return
    for name, (arguments, run) in SECTIONS.items():
        sub = argparse.ArgumentParser()
        arguments(sub)
        print(f"== {name}", flush=True)
        run(sub.parse_args([]))


if __name__ == "__main__":
    main()
