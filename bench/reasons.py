"""Why our answer differs from the published 作意 length, problem by problem.

    python bench/reasons.py [--results bench/results/collections.md[,...]] [--time-limit 60]
                            [--nodes 50000000] [--query-nodes 50000] [--hash 1024]
                            [--out bench/results/reasons.md]

Reads the tables that bench/collections.py wrote (markdown, with the answer analysis
on; its default --out is this script's default --results) and, for
every problem whose verdict or length is not the published one, gives it a class and
the evidence for it:

* shorter, `strict` (every interposition counted) also below the published length:
  **shorter mate** (早詰): the attacker mates sooner against every defence whatever is
  made of interpositions, a flaw of the work or a transcription error.
* shorter only by our 無駄合 rule (strict length >= published): **無駄合 rule**.
* longer: the engine searches for a mate within the published length by a rule wider
  than ours (dfpn.RULE_KEEP): an interposition is futile when the checker can take it
  and still force mate, keeping the piece it took (rule D2 hands it back to the
  defender first, SPEC §2.4). The readings of 無駄合 where the checker takes the
  interposed piece all ask at least that much, so none of them gives a shorter mate.
  - No such mate (a proof, not a limit): **longer defence**: under any of those
    readings the defender lasts longer than the 作意 (変長 of the work, or a
    transcription error; a reading where another piece takes is not covered).
  - Such a mate: **interposition reading**: the published length needs some
    interposition to be futile that rule D2 counts as a defence (or, when our length
    is not exact, our analysis may have missed a shorter line).
  - Neither within the limits: **undecided** (the evidence says whether a search found
    such a mate with the interpositions it could not settle taken as futile).
  This wider rule is wider than any reading in use (a piece the attacker took and then
  mates with is not futile by any of them), so only its disproofs say much.
* no mate (proven), or no verdict within the limits: said as such.

Those searches run on a table of their own, each problem in a fresh namespace, within
--time-limit seconds and --nodes nodes; each futility question they ask gets
--query-nodes nodes, and up to 64 times as many when it is asked again (mudaai.RETRIES).
"""
import argparse
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "problems"
FILES = {"zukou": "zuko.tsv", "musou": "musou.tsv"}

import numpy as np  # noqa: E402

from tsume.dfpn import RULE_KEEP  # noqa: E402
from tsume.mudaai import FutilityRule, RuleBudgetExceeded  # noqa: E402
from tsume.position import Position  # noqa: E402
from tsume.pipeline import warm_up  # noqa: E402
from tsume.solver import Solver  # noqa: E402


def result_rows(path):
    """The problem rows of a collections.py markdown report, as dicts by column name."""
    lines = [line for line in Path(path).read_text(encoding="utf-8").splitlines()
             if line.startswith("| ")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    return [dict(zip(header, (c.strip() for c in line.strip("|").split("|"))))
            for line in lines[1:] if not line.startswith("| id ")]


def problem_sfens():
    sfens = {}
    for name in FILES.values():
        path = SHARED / name
        if path.exists():
            for line in path.open(encoding="utf-8"):
                if not line.startswith("#") and line.strip():
                    row = line.rstrip("\n").split("\t")
                    sfens[row[2]] = row[0]
    return sfens


def mate_within_keep_rule(solver, sfen, plies, time_limit, max_nodes, query_nodes):
    """Is there a mate within `plies` plies when an interposition is futile as soon as
    the checker can take it and still force mate, keeping the piece (dfpn.RULE_KEEP)?
    The engine takes interpositions of unknown futility as futile there, so its
    disproof is final. Its proof is read back from the table (settle_proof), settling
    the futility of each interposition it took as futile; if one is not, the search
    runs again in a fresh namespace, where what was settled is known. Returns (True /
    False / None for the limits, whether a proof was found with unsettled
    interpositions taken as futile)."""
    solver.new_problem()
    root = Position.from_sfen(sfen)
    deadline = time.perf_counter() + time_limit
    rule = FutilityRule(solver, root.side_to_move, query_nodes=query_nodes, deadline=deadline,
                        keep_piece=True)
    rule.stop_at = solver.nodes + max_nodes
    assumed = False
    try:
        for fresh in range(1, 1 << 20):
            left = rule.stop_at - solver.nodes
            if left <= 0 or time.perf_counter() >= deadline:
                break
            salt = solver.salt ^ (np.int64(fresh) << 40)
            before = solver.nodes
            pn, dn, _, _ = solver.search(root, left, deadline, max_depth=plies, salt=salt,
                                         rule=RULE_KEEP)
            if dn == 0:
                return False, assumed
            if pn != 0:
                break
            if solver.unknown_futility == 0:
                return True, assumed
            assumed = True
            retries = rule.retries
            # (The search's cost as the allowance: settle_proof asks on after a real
            # defence while that is cheaper than searching again.)
            holds, progress = rule.settle_proof(root, salt, plies, solver.nodes - before)
            if holds:
                return True, assumed
            if not progress and rule.retries == retries:
                break                    # the same proof would be found again
    except RuleBudgetExceeded:
        pass
    return None, assumed


def classify(row, sfen, time_limit, max_nodes, query_nodes, solver):
    """(class, evidence) for a row whose verdict or length differs from the published."""
    verdict, published = row["verdict"], int(row["published"])
    if verdict == "nomate":
        return "no mate", "proven 不詰 as transcribed"
    if verdict != "mate":
        return "no verdict", verdict
    length, strict, exact = int(row["length"]), int(row["strict"]), row["exact"] == "yes"
    if length < published:
        if strict < published:
            return "shorter mate", f"mate in {strict} even counting every interposition"
        return "無駄合 rule", f"{strict} counting every interposition; rule D2 finds a futile one"
    t = time.perf_counter()
    found, assumed = mate_within_keep_rule(solver, sfen, published, time_limit, max_nodes,
                                           query_nodes)
    spent = f"{time.perf_counter() - t:.1f} s"
    if found is False:
        return "longer defence", (f"no mate within {published} plies even by the wider "
                                  f"rule (proven, {spent})")
    if found is None:
        if assumed:
            return "undecided", (
                f"a mate within {published} plies if the unsettled interpositions are futile; "
                f"they were not all settled within the limits ({spent})")
        return "undecided", f"wider rule, {published} plies: limit reached ({spent})"
    note = "" if exact else "; our length is not proven shortest"
    return "interposition reading", (f"mate within {published} plies by the wider rule "
                                     f"(proven, {spent}){note}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", default=str(ROOT / "bench" / "results" / "collections.md"),
                    help="comma-separated collections.py reports")
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--nodes", type=int, default=50_000_000, help="per problem")
    ap.add_argument("--query-nodes", type=int, default=50_000,
                    help="first budget of each futility question")
    ap.add_argument("--hash", type=int, default=1024)
    ap.add_argument("--ids", default=None, help="comma-separated problem ids (default: all)")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "reasons.md"))
    args = ap.parse_args()
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    warm_up()
    solver = Solver(args.hash, seed=0)
    sfens = problem_sfens()
    wanted = set(args.ids.split(",")) if args.ids else None
    out = ["# Where our answer differs from the published 作意", "",
           f"`bench/reasons.py` from {args.results}; wider-rule searches: {args.time_limit:g} s, "
           f"{args.nodes:,} nodes, questions from {args.query_nodes:,} nodes, {args.hash} MB. "
           "Classes: see the script's docstring.", "",
           "| id | verdict | length | strict | exact | published | KH | class | evidence |",
           "|---|---|---|---|---|---|---|---|---|"]
    counts = {}
    for path in args.results.split(","):
        for row in result_rows(path):
            if row["match"] == "yes" or not row["published"].isdigit() \
                    or row["id"] not in sfens or (wanted and row["id"] not in wanted):
                continue
            kind, evidence = classify(row, sfens[row["id"]], args.time_limit, args.nodes,
                                      args.query_nodes, solver)
            counts[kind] = counts.get(kind, 0) + 1
            out.append(f"| {row['id']} | {row['verdict']} | {row['length']} | {row['strict']} | "
                       f"{row['exact']} | {row['published']} | {row['KH']} | {kind} | {evidence} |")
            print(out[-1], flush=True)
            Path(args.out).write_text("\n".join(out + ["", summary(counts)]) + "\n",
                                      encoding="utf-8")
    print(summary(counts))


def summary(counts):
    ranked = sorted(counts.items(), key=lambda kv: -kv[1])
    return "Summary: " + ", ".join(f"{k} {v}" for k, v in ranked)


if __name__ == "__main__":
    main()
