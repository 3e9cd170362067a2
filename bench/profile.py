"""Where the search spends its time, per compiled function, with Linux `perf`.

    python bench/profile.py [--set yo_mate11] [--count 300] [--repeat 2] [--hash 256] [--bulk]

perf sees numba's code as anonymous memory. This script compiles the kernels afresh
(an empty temporary numba cache, about 40 s) so that numba still holds their object
code, reads every function's offset and size from it (`nm`), writes the perf map file
(/tmp/perf-PID.map) naming them, then attaches `perf record` to itself while it solves
the set and prints `perf report` by function. Functions inlined into others
(inline="always", or by LLVM) count as their caller. Needs `perf` and `nm` on PATH and
perf_event_paranoid <= 2; samples user-space only. With --bulk the set is proved by
pipeline.solve_many (its batch kernel, bulk.py) instead of solve() one by one.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "problems"
# Before numba is imported: kernels loaded from a cache have no object code left to read.
os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="tsume-profile-")
sys.path.insert(0, str(ROOT))

from numba.core.registry import CPUDispatcher  # noqa: E402

from tsume import bulk, dfpn, movegen, tt  # noqa: E402
from tsume.position import Position  # noqa: E402
from tsume.pipeline import solve, solve_many, warm_up  # noqa: E402
from tsume.solver import shared_solver  # noqa: E402


def _symbols():
    """(address, size, name) of every compiled function of the kernel modules' libraries."""
    out = []
    with tempfile.NamedTemporaryFile(suffix=".o") as obj:
        for module in (bulk, dfpn, movegen, tt):
            for attr, value in vars(module).items():
                if not isinstance(value, CPUDispatcher):
                    continue
                for cres in value.overloads.values():
                    library = cres.library
                    obj.seek(0)
                    obj.truncate()
                    obj.write(library._get_compiled_object())
                    obj.flush()
                    listing = subprocess.run(["nm", "-S", "--defined-only", obj.name],
                                             capture_output=True, text=True, check=True).stdout
                    entries = [(int(p[0], 16), int(p[1], 16), p[3]) for p in
                               (line.split() for line in listing.splitlines())
                               if len(p) == 4 and p[2] in "tTwW"]
                    own = cres.fndesc.llvm_func_name
                    offset = next((e[0] for e in entries if e[2] == own), None)
                    if offset is None:
                        continue
                    base = library.get_pointer_to_function(own) - offset
                    for start, size, mangled in entries:
                        match = re.search(r"tsume\d+(\w+?)\d+(\w+?)B\d", mangled)
                        name = f"{match.group(1)}.{match.group(2)}" if match else mangled[:40]
                        out.append((base + start, size, name))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", default="yo_mate11", help="a TSV of ../shared/problems (SFEN first)")
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=2, help="times the set is solved under perf")
    ap.add_argument("--hash", type=int, default=256)
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--bulk", action="store_true", help="solve_many instead of solve()")
    args = ap.parse_args()

    rows = [line.split("\t") for line in (SHARED / f"{args.set}.tsv").open(encoding="utf-8")
            if not line.startswith("#")][:args.count]
    positions = [Position.from_sfen(r[0]) for r in rows]
    print("compiling (empty numba cache) ...", file=sys.stderr, flush=True)
    # Every kernel a solve may call (warm_up), not only those a short problem needs:
    # else one compiled on first use (tt_grow, for a problem that outgrows its first
    # clusters) lands in the profile, with the garbage collection of the compiler.
    warm_up(bulk=args.bulk)
    solve(Position.from_sfen("8k/9/9/7+R1/9/9/9/9/9 b LP 1"), hash_mb=args.hash)
    for array in shared_solver(args.hash).full_table:
        array.fill(0)                 # first-touch page faults outside the profile
    symbols = _symbols()
    with open(f"/tmp/perf-{os.getpid()}.map", "w") as f:
        for address, size, name in symbols:
            f.write(f"{address:x} {size:x} {name}\n")
    data = Path(tempfile.mkdtemp(prefix="tsume-perf-")) / "perf.data"
    recorder = subprocess.Popen(["perf", "record", "-q", "-o", str(data), "-p", str(os.getpid())],
                                stderr=subprocess.DEVNULL)
    time.sleep(1.0)                   # let perf attach
    start = time.perf_counter()
    nodes = 0
    for _ in range(args.repeat):
        if args.bulk:
            nodes += sum(r.nodes for r in solve_many(positions, answer=False, hash_mb=args.hash))
            continue
        for pos in positions:
            nodes += solve(pos, answer=False, hash_mb=args.hash).nodes
    elapsed = time.perf_counter() - start
    recorder.send_signal(2)
    recorder.wait()
    print(f"{args.set} x{len(positions)} x{args.repeat}: {elapsed:.2f} s, {nodes:,} nodes, "
          f"{len(symbols)} compiled symbols mapped")
    report = subprocess.run(["perf", "report", "-i", str(data), "--no-children", "--sort", "sym",
                             "--stdio"], capture_output=True, text=True).stdout
    lines = [line for line in report.splitlines() if "%" in line and not line.startswith("#")]
    print("\n".join(lines[:args.top]))
    shutil.rmtree(data.parent, ignore_errors=True)
    shutil.rmtree(os.environ["NUMBA_CACHE_DIR"], ignore_errors=True)   # only this run's


if __name__ == "__main__":
    main()
