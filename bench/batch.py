"""Batches: what a batch costs on a Dask cluster against local worker processes, and
(section 2) the proof-only throughput of a batch against cshogi's DfPn.

    python bench/batch.py cluster [--limit N] [--answer length] [--hash 256] [--rounds 1]
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
``--rounds R`` the two alternate R times (the machine is shared: its load moves).

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


def yo_mate_files(limit, directory):
    """The yo_mate sets as TSV files (their header kept), the first `limit` rows of each
    when given; [(name, path, rows)]."""
    found = []
    for path in sorted(SHARED.glob("yo_mate*.tsv"), key=lambda p: int(p.stem[7:])):
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        header = [ln for ln in lines[:1] if ln.startswith("#")]
        body = [ln for ln in lines if ln.strip() and not ln.startswith("#")]
        body = body[:limit] if limit else body
        out = Path(directory) / path.name
        out.write_text("".join(header + body), encoding="utf-8")
        found.append((path.stem, out, len(body)))
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


@section("cluster", _cluster_arguments)
def cluster_throughput(args):
    """Section 1: local --jobs 2 against a 2-worker Dask cluster (see the docstring)."""
    import logging

    from distributed import Client, LocalCluster

    from tsume.pipeline import warm_up
    with tempfile.TemporaryDirectory() as tmp, \
            LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                         dashboard_address=None, silence_logs=logging.ERROR) as cluster, \
            Client(cluster, set_as_default=False) as client:
        sets = yo_mate_files(args.limit, tmp)
        files = [path for _, path, _ in sets]
        total = sum(n for _, _, n in sets)
        print(f"{total} problems ({', '.join(f'{name} {n}' for name, _, n in sets)}), "
              f"--answer {args.answer}, --hash {args.hash}, 2 workers, "
              f"{os.cpu_count()} cores", flush=True)
        client.run(warm_up)
        common = ["-f", "jsonl", "--answer", args.answer, "--hash", str(args.hash)]
        if args.time_limit:
            common += ["--time-limit", str(args.time_limit)]
        dask_pids = _once(lambda: list(client.run(os.getpid).values()))
        totals = {(name, kind): 0.0 for name in ("local", "cluster") for kind in ("wall", "steady")}
        peaks = {"local": [], "cluster": []}
        results = {}
        for round_ in range(args.rounds):
            for name, extra, workers in (("local", ["--jobs", "2"], local_workers),
                                         ("cluster", ["--scheduler", cluster.scheduler_address],
                                          dask_pids)):
                seconds, steady, records, peak = run_tsume(common + extra, files, workers)
                totals[name, "wall"] += seconds
                totals[name, "steady"] += steady
                peaks[name] = [max(a, b) for a, b in zip(peaks[name], peak)] or peak
                results[name] = {r["source"]: (r["status"], r["length"]) for r in records}
                print(f"  round {round_ + 1} {name:7s} {seconds:8.1f} s "
                      f"({steady:.1f} s first to last record)  "
                      f"{len(records) / seconds:7.1f} problems/s  peak RSS per worker "
                      + " ".join(f"{mb:.0f}" for mb in peak) + " MB", flush=True)
        for kind, what in (("wall", "wall time"), ("steady", "first to last record")):
            local_rate = args.rounds * total / totals["local", kind]
            cluster_rate = args.rounds * total / totals["cluster", kind]
            print(f"{what}: local --jobs 2 {local_rate:.1f} problems/s, cluster "
                  f"{cluster_rate:.1f} problems/s, ratio cluster/local "
                  f"{cluster_rate / local_rate:.3f} (target >= 0.9)")
        differ = sum(results["local"][s] != results["cluster"].get(s) for s in results["local"])
        for name in ("local", "cluster"):
            worst = max(peaks[name])
            print(f"peak RSS per worker, {name}: {' '.join(f'{mb:.0f}' for mb in peaks[name])} MB "
                  f"(--hash + 200 = {args.hash + 200} MB: "
                  f"{'within' if worst <= args.hash + 200 else 'OVER'})")
        print(f"records that differ (verdict or length): {differ} of {total}")


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
# (proof_throughput: a compiled batch path against cshogi DfPn on yo_mate3 and yo_mate5,
# in one process; registered with @section like the one above.)


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
