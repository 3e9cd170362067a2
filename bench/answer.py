"""What the composer's answer costs on top of a proof: ours at each answer level
against cshogi's DfPn / OslDfPn (and KomoringHeights, when given), in one process.

    python bench/answer.py [--set tanuki_generated] [--count N] [--time-limit 10]
                           [--solvers DfPn,OslDfPn,proof,length,noyozume,default]
                           [--repeat 1] [--peer-nodes 10000000] [--hash 256]
                           [--kh PATH [--kh-hash 256] [--kh-level MinLength]]
                           [--warm 20] [--slowest 5] [--out FILE] [--per-problem TSV]

Sets: ``--set`` names files of ../shared/problems (``tanuki_generated``, ``yo_mate3``,
...; ``tanuki`` is short for tanuki_generated), comma-separated, each with an optional
``:count`` (``yo_mate3:200,yo_mate7:100``); ``--count`` is the default count (all rows
when not given). A row whose SFEN our Position.from_sfen or validate() rejects
(tanuki_generated has 174 with 二歩) is skipped and counted; the count is of valid rows.

Solvers, each timed with perf_counter around its own call only (parsing, cshogi.Board
and the copy of our Position are outside the timer):
  DfPn, OslDfPn  cshogi's searchers: search() and, when it finds a mate, get_pv(); one
                 searcher of each reused over the set (a search starts a new table
                 generation), stopped by --peer-nodes (they hold the GIL, so no clock can
                 stop them; the node limit keeps a pathological problem from hanging the run)
  proof          ours, solve(pos, answer=False): a verified mating line, no answer
  length         ours, solve(pos, answer="length"): the shortest forced mate counting every
                 interposition and its main line by the rules; no 無駄合, no 余詰
  noyozume       ours, solve(pos, yozume=False): the answer with 無駄合, without 余詰
  default        ours, solve(pos): the full answer (無駄合 and 余詰)
  KH             with --kh PATH: a KomoringHeights binary over USI (Threads 1, USI_Hash
                 --kh-hash, PostSearchLevel --kh-level, PvInterval 0), `go mate <limit ms>`;
                 its table is cleared before every problem (`isready`: the engine's
                 Search::clear() re-inits its table; `usinewgame` is ignored by it); its
                 time is the one it reports itself (`info ... time` of its last result
                 line, whole milliseconds, taken before it reads its PV), the wall time from
                 `go` to `checkmate` is shown beside it
All of ours run on one shared Solver of --hash MB whose pages are touched before any
timing, after tsume.pipeline.warm_up(); each gets --time-limit seconds a problem
(through Limits, so every level makes its Budget). Problems are interleaved: every
problem is solved by every solver before the next, the solvers' order rotating by one
from problem to problem so that none always runs on caches the others emptied. With
--repeat R each problem is solved R times by each (in turn) and the fastest counts.
Before a set is timed, its first --warm problems are solved once by every solver,
untimed: the warm-up problem does not reach every code path (the answer's, a table's
growth), and the first problem to reach one would pay its load.

Printed per set, as a markdown table: per solver, solved (ours: status mate; peers: a
mate found), total seconds, p50 / p99 / max milliseconds (over every problem of the
set, an unsolved one at the time it took), the ratio of totals to DfPn over the
problems both solved (and to KH with --kh), and for ours with the answer: how many
answers are exact, how many carry `unchecked` 余詰 entries (and how many entries), how
many left 無駄合 not (fully) evaluated. Then issue #45's targets against the numbers,
and the --slowest problems of ours' default answer with every solver's milliseconds;
--per-problem appends each problem's times to a TSV.
Only the ratios of one run mean much: the machine is shared.
"""
import os
import sys

# `python bench/answer.py` puts bench/ first on sys.path, where bench/collections.py
# would shadow the standard library's collections for any module imported after this.
_HERE = os.path.dirname(os.path.abspath(__file__))
if sys.path and os.path.abspath(sys.path[0] or os.curdir) == _HERE:
    del sys.path[0]
ROOT = os.path.dirname(_HERE)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import argparse  # noqa: E402
import gc  # noqa: E402
import math  # noqa: E402
import queue  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import cshogi  # noqa: E402

from tsume.errors import TsumeError  # noqa: E402
from tsume.pipeline import solve, warm_up  # noqa: E402
from tsume.position import Position  # noqa: E402
from tsume.solver import shared_solver  # noqa: E402
from tsume.validate import validate  # noqa: E402

SHARED = Path(ROOT).parent / "shared" / "problems"
ALIASES = {"tanuki": "tanuki_generated"}
OURS = {"proof": {"answer": False}, "length": {"answer": "length"},
        "noyozume": {"yozume": False}, "default": {}}
PEERS = {"DfPn": cshogi.DfPn, "OslDfPn": cshogi.OslDfPn}
LABELS = {"DfPn": "cshogi DfPn", "OslDfPn": "cshogi OslDfPn", "proof": "ours answer=False",
          "length": 'ours answer="length"', "noyozume": "ours yozume=False",
          "default": "ours default", "KH": "KomoringHeights"}
# Issue #45's targets (what later work aims at; printed against this run's numbers).
TARGETS = ("tanuki_generated: default ≤ 50× DfPn (totals) and default p99 ≤ 50 ms; "
           "yo_mate7 (first 1,000): yozume=False < 1× KH MinLength, default ≤ 100× DfPn")


# ---------------------------------------------------------------- problems
def load_set(name, count):
    """(problems, skipped, rows read): the first `count` valid rows (all when None) as
    (id, length, sfen); rows our reader or validate() rejects are skipped."""
    path = SHARED / f"{ALIASES.get(name, name)}.tsv"
    if not path.exists():
        sys.exit(f"answer.py: {path}: not found")
    problems, skipped, read = [], 0, 0
    with path.open(encoding="utf-8") as f:
        for line in f:
            if count is not None and len(problems) >= count:
                break
            if not line.strip() or line.startswith("#"):
                continue
            read += 1
            cols = line.rstrip("\n").split("\t")
            sfen = cols[0]
            try:
                validate(Position.from_sfen(sfen))
            except (TsumeError, ValueError):
                skipped += 1
                continue
            length = int(cols[1]) if len(cols) > 1 and cols[1].isdigit() else None
            pid = cols[2] if len(cols) > 2 and cols[2] else f"{path.stem}#{read}"
            problems.append((pid, length, sfen))
    return problems, skipped, read


# ---------------------------------------------------------------- runs
class Run:
    """One solver's outcome on one problem."""
    __slots__ = ("solved", "seconds", "length", "exact", "unchecked", "mudaai_open", "wall",
                 "status")

    def __init__(self, solved, seconds, length=None, exact=None, unchecked=(),
                 mudaai_open=False, wall=None, status=""):
        self.solved, self.seconds, self.length, self.exact = solved, seconds, length, exact
        self.unchecked, self.mudaai_open, self.wall = unchecked, mudaai_open, wall
        self.status = status


def ours(options, solver, time_limit):
    def run(problem):
        pos = problem["pos"].copy()             # (outside the timer)
        start = time.perf_counter()
        result = solve(pos, solver=solver, time_limit=time_limit, **options)
        seconds = time.perf_counter() - start
        answer = options.get("answer", True)
        return Run(result.status == "mate", seconds, result.length,
                   result.exact if answer else None,
                   [y.get("budget") or "?" for y in result.yozume if y["kind"] == "unchecked"],
                   (result.mudaai or "").endswith("(budget)"),
                   status=result.status if result.status != "unknown"
                   else f"unknown ({result.reason})")
    return run


def peer(cls, max_nodes):
    searcher = cls()
    searcher.set_max_search_node(max_nodes)
    searcher.set_max_depth(1024)

    def run(problem):
        board = problem["board"]
        start = time.perf_counter()
        found = searcher.search(board)
        pv = searcher.get_pv(board) if found else None
        seconds = time.perf_counter() - start
        return Run(bool(found), seconds, len(pv) if found else None,
                   status="mate" if found else f"not found ({searcher.searched_node:,} nodes)")
    return run


class KomoringHeights:
    """A KomoringHeights binary driven over USI (see the module docstring)."""

    def __init__(self, path, hash_mb, level, time_limit):
        self.limit_ms = max(1, int(time_limit * 1000))
        self.process = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, text=True, bufsize=1,
                                        cwd=os.path.dirname(os.path.abspath(path)))
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.send("usi")
        options = self.wait("usiok", 30)
        for name in ("USI_Hash", "Threads", "PostSearchLevel", "PvInterval"):
            if not any(f"name {name} " in line for line in options):
                sys.exit(f"answer.py: {path}: no USI option {name} (not KomoringHeights?)")
        for name, value in (("USI_Hash", hash_mb), ("Threads", 1), ("PostSearchLevel", level),
                            ("PvInterval", 0)):
            self.send(f"setoption name {name} value {value}")
        self.send("isready")
        self.wait("readyok", 120)

    def _read(self):
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def send(self, text):
        self.process.stdin.write(text + "\n")
        self.process.stdin.flush()

    def wait(self, prefix, timeout):
        """The lines up to and including the first that starts with `prefix`."""
        got, deadline = [], time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                raise TimeoutError(f"KomoringHeights: no {prefix!r} in {timeout} s") from None
            if line is None:
                raise RuntimeError("KomoringHeights exited")
            got.append(line)
            if line.startswith(prefix):
                return got

    def __call__(self, problem):
        self.send("isready")              # clears its table (Search::clear -> Init -> Resize)
        self.wait("readyok", 120)
        self.send("usinewgame")
        self.send(f"position sfen {problem['sfen']}")
        start = time.perf_counter()
        self.send(f"go mate {self.limit_ms}")
        lines = self.wait("checkmate", self.limit_ms / 1000 + 60)
        wall = time.perf_counter() - start
        own = None
        for line in lines:
            tokens = line.split()
            if tokens and tokens[0] == "info" and "time" in tokens:
                i = tokens.index("time")
                if i + 1 < len(tokens) and tokens[i + 1].isdigit():
                    own = int(tokens[i + 1]) / 1000
        verdict = lines[-1].split()[1:]
        solved = bool(verdict) and verdict[0] not in ("nomate", "timeout", "notimplemented")
        return Run(solved, own if own is not None else wall, len(verdict) if solved else None,
                   wall=wall, status="mate" if solved else " ".join(verdict))

    def close(self):
        try:
            self.send("quit")
            self.process.wait(10)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait()


# ---------------------------------------------------------------- report
def percentile(values, q):
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def ratio(runs, base):
    both = [i for i in range(len(runs)) if runs[i].solved and base[i].solved]
    mine, theirs = sum(runs[i].seconds for i in both), sum(base[i].seconds for i in both)
    return (mine / theirs if theirs > 0 else float("inf")), len(both)


def report(name, problems, skipped, read, results, args):
    out = []
    n = len(problems)
    lengths = sorted({p[1] for p in problems if p[1] is not None})
    out.append(f"### {name}: {n} problems (rows read {read}, invalid skipped {skipped}; "
               f"lengths {', '.join(map(str, lengths)) or '?'})")
    out.append("")
    kh = "KH" in results
    head = ["solver", "solved", "total s", "p50 ms", "p99 ms", "max ms", "÷ DfPn (both)"]
    if kh:
        head.append("÷ KH (both)")
    head += ["exact", "unchecked 余詰: problems/entries (budget)", "無駄合 not evaluated"]
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "---|" * len(head))
    summary = {}
    for key, runs in results.items():
        seconds = [r.seconds for r in runs]
        total = sum(seconds)
        row = [LABELS[key], f"{sum(r.solved for r in runs)}/{n}", f"{total:.3f}",
               f"{statistics.median(seconds) * 1e3:.3f}", f"{percentile(seconds, 0.99) * 1e3:.3f}",
               f"{max(seconds) * 1e3:.1f}"]
        r_dfpn = r_kh = None
        if "DfPn" in results and key != "DfPn":
            r_dfpn, both = ratio(runs, results["DfPn"])
            row.append(f"{r_dfpn:.2f} ({both})")
        else:
            row.append("")
        if kh:
            if key != "KH":
                r_kh, both = ratio(runs, results["KH"])
                row.append(f"{r_kh:.2f} ({both})")
            else:
                walls = sum(r.wall for r in runs)
                row.append(f"own {total:.3f} s, wall {walls:.3f} s")
        if key in OURS and key != "proof":
            budgets = {}
            for r in runs:
                for b in r.unchecked:
                    budgets[b] = budgets.get(b, 0) + 1
            row += [str(sum(bool(r.exact) for r in runs)),
                    f"{sum(bool(r.unchecked) for r in runs)}/{sum(budgets.values())}"
                    + (" (" + ", ".join(f"{b} {c}" for b, c in sorted(budgets.items())) + ")"
                       if budgets else ""),
                    str(sum(r.mudaai_open for r in runs))]
        else:
            row += ["", "", ""]
        out.append("| " + " | ".join(row) + " |")
        summary[key] = dict(total=total, p99=percentile(seconds, 0.99), dfpn=r_dfpn, kh=r_kh)
    out.append("")

    # Issue #45's targets, as this run measures them.
    notes = []
    if "default" in summary and summary["default"]["dfpn"] is not None:
        notes.append(f"default ÷ DfPn {summary['default']['dfpn']:.1f}")
    if "default" in summary:
        notes.append(f"default p99 {summary['default']['p99'] * 1e3:.1f} ms")
    if "noyozume" in summary and summary["noyozume"]["kh"] is not None:
        notes.append(f"yozume=False ÷ KH {summary['noyozume']['kh']:.2f}")
    if notes:
        out.append(f"Targets (issue #45: {TARGETS}): here {'; '.join(notes)}.")
        out.append("")

    # Disagreements worth a look.
    odd = []
    if "DfPn" in results:
        for key, runs in results.items():
            missed = [problems[i][0] for i in range(n)
                      if results["DfPn"][i].solved and not runs[i].solved]
            if missed:
                odd.append(f"{LABELS[key]} did not solve {len(missed)} that DfPn solved: "
                           + ", ".join(missed[:5]) + (" ..." if len(missed) > 5 else ""))
    for key in OURS:
        if key in results:
            over = [r.seconds for r in results[key] if r.seconds >= args.time_limit]
            if over:
                odd.append(f"{LABELS[key]} reached the {args.time_limit:g} s limit on {len(over)}, "
                           f"the longest ending at {max(over):.2f} s")
    if kh and "length" in results:
        both = [i for i in range(n) if results["KH"][i].solved and results["length"][i].solved]
        differ = [problems[i][0] for i in both
                  if results["KH"][i].length != results["length"][i].length]
        odd.append(f"KH's length equals ours answer=\"length\" on {len(both) - len(differ)} of "
                   f"{len(both)}" + (": not on " + ", ".join(differ[:5]) if differ else ""))
    if odd:
        out += [f"- {line}" for line in odd] + [""]

    slow_key = next((k for k in ("default", "noyozume", "length", "proof") if k in results), None)
    if args.slowest and slow_key:
        order = sorted(range(n), key=lambda i: -results[slow_key][i].seconds)[:args.slowest]
        keys = list(results)
        out.append(f"Slowest {len(order)} for {LABELS[slow_key]} (ms):")
        out.append("")
        out.append("| id | length | " + " | ".join(keys) + " | notes |")
        out.append("|" + "---|" * (len(keys) + 3))
        for i in order:
            notes = []
            r = results[slow_key][i]
            if r.unchecked:
                notes.append(f"{len(r.unchecked)} unchecked ({', '.join(sorted(set(r.unchecked)))})")
            if r.exact is False:
                notes.append("not exact")
            if r.mudaai_open:
                notes.append("無駄合 not evaluated")
            if r.status != "mate":
                notes.append(r.status)
            cells = [f"{results[k][i].seconds * 1e3:.1f}" + ("" if results[k][i].solved else "*")
                     for k in keys]
            out.append(f"| {problems[i][0]} | {problems[i][1]} | " + " | ".join(cells)
                       + f" | {', '.join(notes)} |")
        out.append("")
        out.append("(* not solved)")
        out.append("")
    return "\n".join(out)


def write_per_problem(path, name, problems, results):
    """Append one TSV row per problem and solver: set, id, length, solver, solved,
    seconds, length found, exact, unchecked entries, status."""
    with open(path, "a", encoding="utf-8") as f:
        for i, (pid, length, _) in enumerate(problems):
            for key, runs in results.items():
                r = runs[i]
                f.write(f"{name}\t{pid}\t{length}\t{key}\t{int(r.solved)}\t{r.seconds:.6f}\t"
                        f"{r.length}\t{r.exact}\t{len(r.unchecked)}\t{r.status}\n")


# ---------------------------------------------------------------- main
def make_problem(sfen):
    return {"sfen": sfen, "pos": Position.from_sfen(sfen), "board": cshogi.Board(sfen)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--set", default="tanuki_generated",
                    help="comma-separated set names, each with an optional :count")
    ap.add_argument("--count", type=int, default=None, help="valid rows per set (default all)")
    ap.add_argument("--time-limit", type=float, default=10.0, help="seconds per problem (ours, KH)")
    ap.add_argument("--solvers", default="DfPn,OslDfPn,proof,length,noyozume,default",
                    help="comma-separated: DfPn, OslDfPn, proof, length, noyozume, default")
    ap.add_argument("--repeat", type=int, default=1, help="runs per problem and solver; fastest counts")
    ap.add_argument("--peer-nodes", type=int, default=10_000_000, help="cshogi searchers' node limit")
    ap.add_argument("--hash", type=int, default=256, help="our table in MB")
    ap.add_argument("--kh", metavar="PATH", help="a KomoringHeights binary (USI)")
    ap.add_argument("--kh-hash", type=int, default=256, help="KH's USI_Hash in MB")
    ap.add_argument("--kh-level", default="MinLength", help="KH's PostSearchLevel")
    ap.add_argument("--warm", type=int, default=20,
                    help="first problems of each set solved once by all, untimed, before timing")
    ap.add_argument("--slowest", type=int, default=5, help="problems listed (0: none)")
    ap.add_argument("--out", help="also write the report to this file")
    ap.add_argument("--per-problem", metavar="TSV",
                    help="append every problem's times to this TSV (set, id, length, solver, "
                         "solved, seconds, length found, exact, unchecked, status)")
    args = ap.parse_args()

    keys = [k.strip() for k in args.solvers.split(",") if k.strip()]
    unknown = [k for k in keys if k not in OURS and k not in PEERS]
    if unknown:
        sys.exit(f"answer.py: unknown solvers {unknown}")
    sets = []
    for item in args.set.split(","):
        name, _, count = item.partition(":")
        sets.append((name, int(count) if count else args.count))

    # Every compiled function loaded, and every page of our table touched (first-touch
    # page faults would fall on the first problems only), before anything is timed.
    warm_up()
    solver = shared_solver(args.hash)
    for array in solver.full_table:
        array.fill(0)
    runners = {}
    for key in keys:
        runners[key] = (peer(PEERS[key], args.peer_nodes) if key in PEERS
                        else ours(OURS[key], solver, args.time_limit))
    engine = None
    if args.kh:
        engine = KomoringHeights(args.kh, args.kh_hash, args.kh_level, args.time_limit)
        runners["KH"] = engine
    # What is alive now (numba's objects, the table) is left out of the collector's
    # full passes, which would otherwise fall inside some timed call.
    gc.collect()
    gc.freeze()

    text = [f"`python bench/answer.py {' '.join(sys.argv[1:])}`: time limit {args.time_limit:g} s "
            f"a problem (ours{', KH' if engine else ''}), cshogi node limit {args.peer_nodes:,}, "
            f"our table {args.hash} MB" + (f", KH USI_Hash {args.kh_hash} MB, PostSearchLevel "
                                           f"{args.kh_level}" if engine else "")
            + f", best of {args.repeat}, {args.warm} untimed warm-up problems a set; load average at start "
            f"{os.getloadavg()[0]:.2f}", ""]
    print("\n".join(text), flush=True)
    try:
        for name, count in sets:
            problems, skipped, read = load_set(name, count)
            names = list(runners)
            results = {key: [] for key in names}
            # An untimed pass over the set's first problems: code paths that the warm-up
            # problem does not reach (the answer's, a table's growth) load on first use.
            for pid, length, sfen in problems[:args.warm]:
                problem = make_problem(sfen)
                for key in names:
                    runners[key](problem)
            gc.collect()
            began = time.perf_counter()
            for i, (pid, length, sfen) in enumerate(problems):
                problem = make_problem(sfen)
                best = {}
                for _ in range(args.repeat):
                    for k in range(len(names)):
                        key = names[(i + k) % len(names)]
                        run = runners[key](problem)
                        if key not in best or run.seconds < best[key].seconds:
                            best[key] = run
                for key in names:
                    results[key].append(best[key])
                if (i + 1) % 100 == 0:
                    print(f"  ({name}: {i + 1}/{len(problems)}, {time.perf_counter() - began:.0f} s)",
                          file=sys.stderr, flush=True)
            if args.per_problem:
                write_per_problem(args.per_problem, name, problems, results)
            section = report(name, problems, skipped, read, results, args)
            print(section, flush=True)
            text.append(section)
    finally:
        if engine is not None:
            engine.close()
    text.append(f"Load average at the end {os.getloadavg()[0]:.2f}.")
    print(text[-1])
    if args.out:
        Path(args.out).write_text("\n".join(text) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
