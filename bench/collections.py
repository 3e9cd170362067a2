"""Solve 将棋図巧, 将棋無双 and the long problems; compare our lengths with the published
ones, our times with cshogi's DfPn/OslDfPn run on the same problems with the same time
limit, and both with the KomoringHeights results recorded in the problem files.

    python bench/collections.py [--sets zuko,musou,long,hard] [--ids 1-20] [--time-limit 60]
                                [--hash 4096] [--jobs 1] [--threads 1[,2...]] [--seed 0]
                                [--no-peers] [--no-answer]
                                [--peer-mem 4096] [--out bench/results/collections.md]

Sets (TSV files in ../shared/problems, `sfen<TAB>length<TAB>id<TAB>note`): ``zuko``
将棋図巧 1-100, ``musou`` 将棋無双 1-100, ``long`` the long problems (ミクロコスモス 1525
plies and others), ``hard`` the three hard bare-king disproofs of edge_cases.tsv
(kh-issue4-a, kh-issue4-b, kh-issue6-hadaka: 不詰, which KomoringHeights proves only
with a large table; not in the default sets). ``--ids`` picks problems by number
(図巧/無双 number, row number in long.tsv or among the three), e.g. ``--ids 1-10,98``.

Table, one row per problem: our verdict; our length (無駄合 rule: futile interpositions
not counted) and strict length (every interposition counted); exact = length proven
shortest (when "no", the length is that of the proof line: the exact-length analysis ran
out of its node budget, and with --no-answer it is skipped); the published length and
whether ours equals it; 無駄合 = the rule's analysis: settled, open (its minimality
rests on a futility question the budget left open) or budget (not done); seconds = total wall time of our solve(), i.e. the proof search,
which the time limit bounds, plus the analysis that follows a proof, which gets its own
node budget and, with a time limit, that much time again (shown as "analysis s"); nodes; peak RSS of our process so
far; cshogi's DfPn and OslDfPn: verdict, length of their PV (not proven shortest),
seconds ("not proven" = search returned False, never read as no-mate; "timeout" =
killed at the limit); KH's length and seconds from the note column (``kh=N (Xs)``;
``N?`` = KH stopped at its limit with a mate not proven shortest; KH ran elsewhere with
other limits, so its seconds are a rough indication only).

Summary, one line per set: solved counts of each solver; how many of our lengths (and
how many of those exact) and of KH's equal the published length; how many of our solves
took more than 1.5x the time limit; against KH's recorded seconds (a rough guide: run
elsewhere, with other limits), over the problems both prove mate, total and median
seconds, ours (with the analysis; proof alone in brackets) and KH's, and on how many
ours took less; per cshogi solver, over the problems both solved,
total and median seconds, ours and theirs, and the ratio of totals ours/peer (< 1: ours
is faster), also for our proof search alone, since the peers only prove.

Each problem is searched with salts of its own, drawn from its id and ``--seed``, so that
a run repeats another's searches (as bench/ab.py does); another seed, other salts.
``--threads 1,2`` (several counts) solves every problem once per count, in turn (the
first count first on one problem, the second on the next, ...), each with the same
salts and a table cleared of the previous run's entries (not timed): the counts then
differ by their threads only, neither by the salts (which move a long search's time by
2x either way) nor by the machine's drift between runs.
The table and the summary are the first count's; the summary adds a line per other
count: over the problems both settle, the verdicts (and the exact lengths) that differ,
total seconds and their ratio (issue #48's check: two threads against one), the median
of the per-problem ratios, and the same over the problems that take the first count a
second or more.

The report is rewritten after every problem to --out: markdown, or TSV if the name ends
in .tsv. Not timed: loading the numba cache and touching every page of our table (a
fresh 4 GB table costs ~10 s of kernel time on first touch, which would otherwise fall
on the first problem). With --jobs 1 (default) our solver runs in this process and
reuses its table from problem to problem; with --jobs N each problem gets a fresh
process and table (and pays that set-up), (hash + peer-mem + ~0.7 GB) x jobs must fit in
24 GB, and timings are only comparable with jobs <= CPU cores. cshogi's search holds
the GIL, so a threading.Timer cannot call stop() during it: each cshogi search runs in
a child process that is killed at the time limit, its address space capped at
--peer-mem MB (DfPn's table grows by ~50 MB/s; a search that hits the cap is reported
as "crashed"). The RSS column is therefore ours alone.
"""
import argparse
import os
import re
import resource
import statistics
import sys
import time
import zlib
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import get_context
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "problems"
COLLECTIONS = {"zuko": "zuko.tsv", "musou": "musou.tsv", "long": "long.tsv",
               "hard": "edge_cases.tsv"}
HARD_DISPROOFS = ("kh-issue4-a", "kh-issue4-b", "kh-issue6-hadaka")
PEERS = ("DfPn", "OslDfPn")
MEMORY_LIMIT_MB = 24 * 1024
OVERHEAD_MB = 700            # per process besides the table: Python, numba, cshogi
OVER_FACTOR = 1.5            # "took much longer than the limit"

COLUMNS = ["id", "verdict", "length", "strict", "exact", "無駄合", "published", "match", "seconds",
           "analysis s", "nodes", "peak RSS MB",
           "DfPn", "DfPn len", "DfPn s", "OslDfPn", "OslDfPn len", "OslDfPn s",
           "KH", "KH s"]


# ------------------------------------------------------------------ problem files
def parse_kh(note):
    """The KomoringHeights part of a note: dict(verdict, length, seconds, minimal) or None.
    Forms: kh=69 (14.3s) | kh=29 (at 15s limit, not proven minimal) | kh=nomate (4.2s)
    | kh=timeout (120.1s limit 120s) | kh=timeout (30.0s)."""
    m = re.search(r"kh=(\d+|nomate|timeout) \(([^)]*)\)", note)
    if not m:
        return None
    what, inner = m.groups()
    secs = re.search(r"(\d+(?:\.\d+)?)s", inner)
    kh = dict(verdict="mate" if what.isdigit() else what, length=int(what) if what.isdigit() else None,
              seconds=float(secs.group(1)) if secs else None,
              minimal=what.isdigit() and "not proven minimal" not in inner)
    return kh


def parse_ids(text):
    wanted = set()
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        lo, _, hi = part.partition("-")
        wanted.update(range(int(lo), int(hi or lo) + 1))
    return wanted


def load(name, ids=None):
    """Problems of one collection: dicts with set, num (1-based row = problem number),
    id, sfen, published (int, "nomate" or None), kh (parse_kh)."""
    problems = []
    with (SHARED / COLLECTIONS[name]).open(encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("\t") for line in f if line.strip() and not line.startswith("#")]
    if name == "hard":
        rows = [row for row in rows if len(row) > 2 and row[2] in HARD_DISPROOFS]
    for num, row in enumerate(rows, 1):
        if ids and num not in ids:
            continue
        row += [""] * (4 - len(row))
        problems.append(dict(set=name, num=num, id=row[2] or f"{name}-{num}", sfen=row[0],
                             published=(int(row[1]) if row[1].strip().isdigit() else
                                        "nomate" if row[1].strip() == "nomate" else None),
                             kh=parse_kh(row[3])))
    return problems


# ------------------------------------------------------------------ solving
_warm = False
_analysis = [0.0]


def _setup(hash_mb):
    """Once per process, not timed: load the numba cache, allocate our table and touch
    every page of it, and hook a timer on the answer analysis. Touching a fresh 4 GB
    table costs ~10 s of kernel time here (huge pages zeroed on first use); left to the
    first solve() it would eat that problem's time limit (the limit is checked between
    slices of nodes, so the first slice overshoots it)."""
    global _warm
    if _warm:
        return
    import tsume.pipeline
    from tsume.pipeline import solve
    from tsume.position import Position
    from tsume.solver import shared_solver
    # Instrumentation only: solve() looks up the answer phases (pipeline._answer) at
    # call time, so this wrapper sees each call and adds its wall time to _analysis.
    original = tsume.pipeline._answer

    def timed_answer(*args, **kwargs):
        t = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            _analysis[0] += time.perf_counter() - t
    tsume.pipeline._answer = timed_answer
    for array in shared_solver(hash_mb).full_table:     # the Solver solve() will reuse
        array.fill(0)
    solve(Position.from_sfen("8k/9/9/7+R1/9/9/9/9/9 b LP 1"), hash_mb=hash_mb)
    _warm = True


def peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024      # Linux: KiB


def run_ours(sfen, time_limit, hash_mb, answer, threads=1, seed=0, clear=False):
    """Our solve of one problem, its salts drawn from `seed`; with `clear`, the part of
    the table it used is emptied afterwards (not timed), so that the next run with the
    same salts finds none of its entries."""
    from tsume.pipeline import solve
    from tsume.position import Position
    from tsume.solver import shared_solver
    from tsume.tt import CLUSTER
    solver = shared_solver(hash_mb)
    solver.reseed(seed)
    row = {}
    _analysis[0] = 0.0
    t = time.perf_counter()
    try:
        r = solve(Position.from_sfen(sfen), time_limit=time_limit, solver=solver,
                  answer=answer, yozume=False, threads=threads)
    except Exception as exc:                                    # noqa: BLE001
        row.update(verdict=f"error: {type(exc).__name__}: {exc}"[:80])
        r = None
    row["seconds"] = time.perf_counter() - t
    if clear:
        used = solver.clusters * CLUSTER      # (grown, never shrunk, within a problem)
        for array in solver.full_table:
            array[:used] = 0
    row["analysis s"] = _analysis[0]
    if r is not None:
        row["verdict"] = r.status if r.status != "unknown" else f"unknown ({r.reason})"
        row["mate"] = r.status == "mate"
        row["nomate"] = r.status == "nomate"
        row["nodes"] = r.nodes
        if r.status == "mate":
            row.update(length=r.length, strict=r.strict_length, exact=r.exact, mudaai=r.mudaai)
    row["peak RSS MB"] = peak_rss_mb()
    return row


_peer_ctx = None


def _peer_context():
    """cshogi's search() holds the GIL, so a threading.Timer cannot stop it (its stop()
    is never reached): each peer search runs in a child process that is killed at the
    time limit. A fork server preloaded with cshogi keeps the start-up to milliseconds."""
    global _peer_ctx
    if _peer_ctx is None:
        _peer_ctx = get_context("forkserver")
        _peer_ctx.set_forkserver_preload(["cshogi"])
    return _peer_ctx


def _peer_child(conn, cls_name, sfen, mem_mb):
    if mem_mb:
        resource.setrlimit(resource.RLIMIT_AS, (mem_mb << 20, mem_mb << 20))
    import cshogi
    try:
        board = cshogi.Board(sfen)
        solver = getattr(cshogi, cls_name)()
        solver.set_max_search_node(10 ** 9)
        solver.set_max_depth(2048)
        conn.send(("started",))
        t = time.perf_counter()
        found = bool(solver.search(board))
        seconds = time.perf_counter() - t
        length = len(solver.get_pv(board)) if found else None
        conn.send(("done", found, length, seconds, solver.searched_node))
    except BaseException as exc:                                # noqa: BLE001
        conn.send(("error", f"{type(exc).__name__}: {exc}"))


def _vm_hwm_mb(pid):
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def run_peer(cls_name, sfen, time_limit, mem_mb):
    """cshogi's DfPn or OslDfPn in a child process, killed after time_limit seconds of
    search. verdict: mate | not proven (search returned False: never a disproof, cshogi
    has a known bug there) | timeout | crashed (e.g. over the --peer-mem cap) | error."""
    ctx = _peer_context()
    receiver, sender = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_peer_child, args=(sender, cls_name, sfen, mem_mb), daemon=True)
    proc.start()
    sender.close()
    out = dict(verdict="crashed", mate=False, length=None, seconds=None, rss=None)
    try:
        if not receiver.poll(60) or receiver.recv()[0] != "started":
            raise EOFError
        t = time.perf_counter()
        if receiver.poll(time_limit):
            msg = receiver.recv()
            if msg[0] == "done":
                _, found, length, seconds, _nodes = msg
                out.update(verdict="mate" if found else "not proven", mate=found, length=length,
                           seconds=seconds)
            else:
                out.update(verdict=f"error: {msg[1]}"[:60], seconds=time.perf_counter() - t)
        else:
            out.update(verdict="timeout", seconds=time.perf_counter() - t)
    except (EOFError, OSError):
        pass
    out["rss"] = _vm_hwm_mb(proc.pid)
    if proc.is_alive():
        proc.kill()
    proc.join()
    if out["verdict"] == "crashed":     # std::bad_alloc at the --peer-mem cap ends here
        out["verdict"] = f"crashed (exit {proc.exitcode}{f', cap {mem_mb} MB' if mem_mb else ''})"
    receiver.close()
    return out


def run_problem(problem, time_limit, hash_mb, peers, answer, peer_mem=0, threads=(1,), seed=0):
    """One problem, ours (once per count of `threads`, in turn: see the module's note)
    then the peers; returns the problem dict with the results: "ours" the first
    count's, "threads" {count: result} the others'."""
    _setup(hash_mb)
    out = dict(problem)
    salts = zlib.crc32(f"{seed}:{problem['set']}:{problem['id']}".encode())
    turn = problem["num"] % len(threads)
    runs = {n: run_ours(problem["sfen"], time_limit, hash_mb, answer, n, salts,
                        clear=len(threads) > 1)
            for n in threads[turn:] + threads[:turn]}
    out["ours"] = runs[threads[0]]
    out["threads"] = {n: runs[n] for n in threads[1:]}
    out["peers"] = ({name: run_peer(name, problem["sfen"], time_limit, peer_mem) for name in PEERS}
                    if peers else {})
    return out


# ------------------------------------------------------------------ reporting
def _f(x, digits=2):
    return "-" if x is None else f"{x:.{digits}f}"


def table_row(p):
    o, kh = p["ours"], p["kh"]
    match = "-"
    if p["published"] == "nomate":
        match = "yes" if o.get("nomate") else "no" if o.get("mate") else "-"
    elif o.get("mate") and p["published"] is not None:
        match = "yes" if o["length"] == p["published"] else "no"
    if kh is None:
        kh_len, kh_s = "-", "-"
    elif kh["verdict"] == "mate":
        kh_len, kh_s = f"{kh['length']}{'' if kh['minimal'] else '?'}", _f(kh["seconds"], 1)
    else:
        kh_len, kh_s = kh["verdict"], _f(kh["seconds"], 1)
    row = {
        "id": p["id"], "verdict": o["verdict"], "length": o.get("length", "-"),
        "strict": o.get("strict", "-"), "exact": ("yes" if o.get("exact") else "no") if o.get("mate") else "-",
        "無駄合": _RULE_STATUS.get(o.get("mudaai"), "-") if o.get("mate") else "-",
        "published": p["published"] if p["published"] is not None else "-", "match": match,
        "seconds": _f(o["seconds"]), "analysis s": _f(o["analysis s"]) if o.get("mate") else "-",
        "nodes": f"{o['nodes']:,}" if "nodes" in o else "-", "peak RSS MB": f"{o['peak RSS MB']:.0f}",
        "KH": kh_len, "KH s": kh_s,
    }
    for name in PEERS:
        q = p["peers"].get(name)
        row[name] = q["verdict"] if q else "-"
        row[f"{name} len"] = q["length"] if q and q["length"] is not None else "-"
        row[f"{name} s"] = _f(q["seconds"]) if q else "-"
    return [str(row[c]) for c in COLUMNS]


# Result.mudaai, shortened for the table.
_RULE_STATUS = {"not counted": "settled", "not fully evaluated (budget)": "open",
                "not evaluated (budget)": "budget", "counted": "off"}


def _settled(o):
    return o.get("mate") or o.get("nomate")


def threads_summary(done, first, count):
    """`count` threads against `first` over the problems both settle (run_problem)."""
    both = [(p["ours"], p["threads"][count]) for p in done
            if count in p.get("threads", {}) and _settled(p["ours"]) and _settled(p["threads"][count])]
    if not both:
        return f"{count} threads vs {first}: none both settled"
    differ = sum(a["verdict"] != b["verdict"] for a, b in both)
    exact = [(a, b) for a, b in both if a.get("exact") and b.get("exact")]
    lengths = (f", exact lengths differ on {sum(a['length'] != b['length'] for a, b in exact)} of "
               f"{len(exact)}" if exact else "")
    parts = []
    for label, pairs in (("", both), (f"; {first} thread(s) >= 1 s", [(a, b) for a, b in both
                                                                    if a["seconds"] >= 1])):
        if not pairs:
            continue
        ta, tb = sum(a["seconds"] for a, _ in pairs), sum(b["seconds"] for _, b in pairs)
        median = statistics.median(b["seconds"] / max(a["seconds"], 1e-9) for a, b in pairs)
        parts.append(f"{label}{' ' if label else ''}({len(pairs)}) total {tb:.1f}s against "
                     f"{ta:.1f}s = {tb / max(ta, 1e-9):.3f}, median {median:.2f}")
    return (f"{count} threads vs {first} ({len(both)} both settle, verdicts differ on "
            f"{differ}{lengths}): " + "".join(parts))


def summary(name, done, time_limit, peers, threads=(1,)):
    n = len(done)
    ours_solved = [p for p in done if p["ours"].get("mate")]
    kh = [p["kh"] for p in done if p["kh"]]
    kh_solved = sum(k["verdict"] == "mate" for k in kh)
    ours_eq = sum(p["ours"]["length"] == p["published"] for p in ours_solved)
    exact_eq = sum(p["ours"]["length"] == p["published"] and p["ours"].get("exact") for p in ours_solved)
    strict_eq = sum(p["ours"]["length"] != p["published"] and p["ours"]["strict"] == p["published"]
                    for p in ours_solved)
    kh_eq = sum(k["verdict"] == "mate" and k["length"] == p["published"]
                for p in done for k in [p["kh"]] if k)
    nomate = sum(p["ours"].get("nomate", False) for p in done)
    over = sum(p["ours"]["seconds"] > OVER_FACTOR * time_limit for p in done)
    parts = [f"{name} ({n}): solved tsume {len(ours_solved)}"
             + (f" (+{nomate} nomate)" if nomate else "")]
    if peers:
        parts[0] += "".join(f", {peer} {sum(p['peers'][peer]['mate'] for p in done)}" for peer in PEERS)
    parts[0] += f", KH {kh_solved}/{len(kh)}"
    parts.append(f"= published: tsume {ours_eq} (exact {exact_eq}"
                 + (f"; {strict_eq} more by strict length" if strict_eq else "") + f"), KH {kh_eq}")
    parts.append(f"> {OVER_FACTOR:g}x limit: {over}")
    # KH's seconds come from the problem file (another run, other limits): a rough
    # comparison, over the problems both prove mate.
    with_kh = [p for p in ours_solved
               if p["kh"] and p["kh"]["verdict"] == "mate" and p["kh"]["seconds"] is not None]
    if with_kh:
        ours_s = [p["ours"]["seconds"] for p in with_kh]
        proof_s = [p["ours"]["seconds"] - p["ours"]["analysis s"] for p in with_kh]
        kh_s = [p["kh"]["seconds"] for p in with_kh]
        parts.append(f"vs KH ({len(with_kh)} both mate): total ours {sum(ours_s):.0f}s "
                     f"(proof {sum(proof_s):.0f}s) / KH {sum(kh_s):.0f}s, median "
                     f"{statistics.median(ours_s):.2f}s / {statistics.median(kh_s):.2f}s, ours "
                     f"faster on {sum(o < k for o, k in zip(ours_s, kh_s))}")
    if peers:
        for peer in PEERS:
            both = [p for p in done if p["ours"].get("mate") and p["peers"][peer]["mate"]]
            if not both:
                parts.append(f"vs {peer}: none both solved")
                continue
            ours_s = [p["ours"]["seconds"] for p in both]
            proof_s = [p["ours"]["seconds"] - p["ours"]["analysis s"] for p in both]
            peer_s = [p["peers"][peer]["seconds"] for p in both]
            text = (f"vs {peer} ({len(both)} both): total ours {sum(ours_s):.2f}s / {peer} {sum(peer_s):.2f}s, "
                    f"median {statistics.median(ours_s):.3f}s / {statistics.median(peer_s):.3f}s, "
                    f"ours/peer {sum(ours_s) / max(sum(peer_s), 1e-9):.2f}")
            if any(p["ours"]["analysis s"] for p in both):
                text += (f" (proof only: total {sum(proof_s):.2f}s, median {statistics.median(proof_s):.3f}s, "
                         f"ours/peer {sum(proof_s) / max(sum(peer_s), 1e-9):.2f})")
            parts.append(text)
    parts += [threads_summary(done, threads[0], count) for count in threads[1:]]
    return " | ".join(parts)


def write_report(path, results, args, elapsed, final):
    sets = [s for s in args.sets if results.get(s)]
    lines_sum = [summary(s, sorted(results[s], key=lambda p: p["num"]), args.time_limit, not args.no_peers,
                         args.threads)
                 for s in sets]
    settings = (f"time limit {args.time_limit:g}s, hash {args.hash} MB, jobs {args.jobs}, "
                f"threads {','.join(map(str, args.threads))}, seed {args.seed}, "
                f"peers {'off' if args.no_peers else 'on'}, answer {'off' if args.no_answer else 'on'}, "
                f"wall {elapsed:.0f}s{'' if final else ' (incomplete)'}")
    if path.suffix == ".tsv":
        out = [f"# bench/collections.py: {settings}", "\t".join(["set"] + COLUMNS)]
        for s in sets:
            out += ["\t".join([s] + table_row(p)) for p in sorted(results[s], key=lambda p: p["num"])]
        out += [f"# {line}" for line in lines_sum]
    else:
        out = ["# Collections: tsume vs published lengths, cshogi and KomoringHeights", "",
               f"`bench/collections.py` — {settings}.", "",
               "length: 無駄合 not counted; strict: every interposition counted; exact: length "
               "proven shortest; 無駄合: the rule's analysis settled (no shorter mate by the rule), "
               "open (a futility question left open) or out of budget. seconds: our total wall time (proof + analysis). DfPn/OslDfPn "
               "len: their PV, not proven shortest. KH: from the problem file (`N?` = not proven "
               "shortest), run elsewhere with other limits.", "", "## Summary", ""]
        out += [f"- {line}" for line in lines_sum]
        for s in sets:
            out += ["", f"## {s}", "", "| " + " | ".join(COLUMNS) + " |",
                    "|" + "|".join("---" for _ in COLUMNS) + "|"]
            out += ["| " + " | ".join(table_row(p)) + " |" for p in sorted(results[s], key=lambda p: p["num"])]
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text("\n".join(out) + "\n", encoding="utf-8")
    tmp.replace(path)
    return lines_sum


def progress(p):
    o = p["ours"]
    peers = " ".join(f"{k}={v['verdict']}/{_f(v['seconds'])}s/{_f(v['rss'], 0)}MB"
                     for k, v in p["peers"].items())
    kh = p["kh"]
    kh_txt = "-" if not kh else f"{kh['length'] if kh['length'] else kh['verdict']}/{_f(kh['seconds'], 1)}s"
    print(f"{p['id']:16} {o['verdict']:24} len={o.get('length', '-')}/{o.get('strict', '-')}"
          f"{'' if o.get('exact') or not o.get('mate') else '(not exact)'} pub={p['published']} "
          f"{o['seconds']:.2f}s (analysis {o['analysis s']:.2f}s) {o.get('nodes', 0):,} nodes "
          f"{o['peak RSS MB']:.0f}MB | {peers} | KH {kh_txt}"
          + "".join(f" | {n} threads: {q['verdict']} {q['seconds']:.2f}s {q.get('nodes', 0):,} nodes"
                    for n, q in p.get("threads", {}).items()), flush=True)


# ------------------------------------------------------------------ main
def available_mb():
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) // 1024
    except OSError:
        pass
    return None


def _counts(text):
    counts = tuple(int(part) for part in text.split(",") if part.strip())
    if not counts or min(counts) < 1 or len(set(counts)) != len(counts):
        raise argparse.ArgumentTypeError(f"thread counts, distinct and at least 1: {text!r}")
    return counts


def main():
    ap = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    ap.add_argument("--sets", default="zuko,musou,long", help="comma-separated: zuko,musou,long,hard")
    ap.add_argument("--ids", default=None, help="problem numbers, e.g. 1-20,98 (row number in long, or among hard)")
    ap.add_argument("--time-limit", type=float, default=60.0, help="seconds per problem and solver")
    ap.add_argument("--hash", type=int, default=4096, help="our table size in MB")
    ap.add_argument("--jobs", type=int, default=1, help="problems in parallel, one process each")
    ap.add_argument("--threads", type=_counts, default=(1,),
                    help="our search threads (solve(threads=)); several, e.g. 1,2: each problem "
                         "solved with each in turn, the same salts (see the module's note)")
    ap.add_argument("--seed", type=int, default=0, help="draws the problems' salts (see the module's note)")
    ap.add_argument("--no-peers", action="store_true", help="skip cshogi DfPn/OslDfPn")
    ap.add_argument("--peer-mem", type=int, default=4096,
                    help="address-space cap of each cshogi search in MB (0: none)")
    ap.add_argument("--no-answer", action="store_true", help="proof only: no exact length / 無駄合 analysis")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "collections.md"),
                    help="report file (.md, or .tsv)")
    args = ap.parse_args()
    args.sets = [s.strip() for s in args.sets.split(",") if s.strip()]
    unknown = [s for s in args.sets if s not in COLLECTIONS]
    if unknown:
        ap.error(f"unknown set(s) {', '.join(unknown)}; choose from {', '.join(COLLECTIONS)}")
    if args.jobs < 1:
        ap.error("--jobs must be at least 1")
    need = args.jobs * (args.hash + OVERHEAD_MB + (0 if args.no_peers else args.peer_mem))
    if need > MEMORY_LIMIT_MB:
        ap.error(f"--jobs {args.jobs} x (--hash + --peer-mem + ~{OVERHEAD_MB}) MB = {need} MB "
                 f"exceeds {MEMORY_LIMIT_MB} MB")
    avail = available_mb()
    if avail is not None and need > avail:
        print(f"warning: about {need} MB needed, {avail} MB available now", file=sys.stderr)
    if args.jobs > (os.cpu_count() or 1):
        print(f"warning: --jobs {args.jobs} > {os.cpu_count()} CPUs: timings will be inflated",
              file=sys.stderr)
    ids = parse_ids(args.ids) if args.ids else None
    problems = [p for s in args.sets for p in load(s, ids)]
    out = Path(args.out)
    print(f"{len(problems)} problems, time limit {args.time_limit:g}s, hash {args.hash} MB, "
          f"jobs {args.jobs} -> {out}", flush=True)

    results = {s: [] for s in args.sets}
    start = time.perf_counter()
    task = (args.time_limit, args.hash, not args.no_peers, not args.no_answer, args.peer_mem,
            args.threads, args.seed)
    try:
        if args.jobs == 1:
            _setup(args.hash)
            for p in problems:
                done = run_problem(p, *task)
                results[p["set"]].append(done)
                progress(done)
                write_report(out, results, args, time.perf_counter() - start, final=False)
        else:
            ctx = get_context("spawn")
            with ProcessPoolExecutor(args.jobs, mp_context=ctx, max_tasks_per_child=1) as pool:
                futures = [pool.submit(run_problem, p, *task) for p in problems]
                try:
                    for fut in as_completed(futures):
                        done = fut.result()
                        results[done["set"]].append(done)
                        progress(done)
                        write_report(out, results, args, time.perf_counter() - start, final=False)
                except BaseException:
                    for fut in futures:
                        fut.cancel()
                    raise
    except KeyboardInterrupt:
        print("interrupted: writing what was done", file=sys.stderr)
    lines = write_report(out, results, args, time.perf_counter() - start,
                         final=sum(map(len, results.values())) == len(problems))
    print()
    for line in lines:
        print(line)
    print(f"wall {time.perf_counter() - start:.0f}s; table in {out}")


if __name__ == "__main__":
    main()
