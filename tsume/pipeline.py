"""``solve(position, limits) -> Result``: from a position to the composer's answer.

The phases run in turn on one Solver (one table) and draw from one Budget
(limits.py), so that ``--time-limit`` and ``--nodes`` bound the whole problem:

1. proof    df-pn from the position; a verified mating line (any length) or a
            disproof (``nomate``); limits give ``unknown``, never ``nomate``;
2. length   the shortest forced mate and the main line by the tsume rules
            (answer.AnswerFinder: 変同, 駒余り, the last move's other mates);
3. 無駄合   the length and line when futile interpositions are not counted
            (mudaai.rule_answer);
4. 余詰     every other check along the line that also mates (AnswerFinder.yozume);
5. result   the line replayed once more, the pieces left in hand, 完全作;
6. tree     only when asked (Limits.tree): every other defender reply along the line
            with its refutation, recursively (tree.py).

A phase that runs out of budget leaves the answer "not exact", never wrong: the
verified line of an earlier phase is reported, and ``reason`` / ``mudaai`` /
``yozume`` say what was cut.
"""
import dataclasses
import gc
import time

import numpy as np

from . import movegen, notation
from .answer import REPROVE_NODES as LINE_REPROVE_NODES
from .answer import AnswerFinder, OutOfBudget, line_of_length, stored_proof_length
from .dfpn import CTRL_STOP, replays_to_mate
from .lines import (leftover_after, leftover_of_hand, mate_at_once_first, skipped_mate,
                    to_moves, to_usi, usi_rows, verify_mating_line)
from .limits import MAX_NODES, UNLIMITED, Budget
from .mudaai import rule_answer
from .result import Result
from .solver import (DEFAULT_HASH_MB, MAX_PLY, NO_LIMIT, REPROVE_NODES, REPROVE_NODES_MIN,
                     shared_solver)
from .tree import solution_tree

# Node cap of one length question of the answer (AnswerFinder.query_nodes).
QUERY_NODES = 20_000_000
# Attacker nodes the strict answer's line read may still visit past the deadline, when
# the proof line is shorter than the proven bound or skips a mate at once: table reads
# only, no search (図巧11 reads its 49-ply line in some 25, 8 ms in all).
LATE_LINE_STEPS = 200


def solve(position, limits=None, *, hash_mb=DEFAULT_HASH_MB, solver=None, progress=None,
          threads=1, **options):
    """Prove mate or no mate for the side to move; returns a Result (README "JSON
    schema"). `limits` is a limits.Limits; its fields may also be given as keywords
    (time_limit=, nodes=, answer=, yozume=, yozume_nodes=, mudaai=). `solver`: a
    Solver to use (its table is reused), else one shared per thread and hash_mb.
    `threads`: how many threads a long search uses (solver.py; the verdict is the same
    with any number, node counts are not).
    `progress(phase, nodes, seconds)` is told how the solve goes: at the start of each
    phase (proof, length, mudaai, yozume), after every slice of a search, and with
    phase "done" when the solve ends, however it ends."""
    limits = _limits(limits, options) if options else (limits or UNLIMITED)
    if limits.time_limit is not None and not _warm:
        # A time limit is for the search, not for loading the compiled code once per
        # process (~1 s from numba's cache, 40-60 s to compile after installing): the
        # first problem of a run would spend its time on that and end unknown, late.
        warm_up()
    start = time.perf_counter()
    # A proof without limits has nothing to account for: its Budget is made only if the
    # answer follows (a 3-ply problem's solve is a few µs).
    budget = (Budget(limits, start, progress)
              if progress is not None or limits.answer or limits.time_limit is not None
              or limits.nodes is not None else None)
    solver = solver or shared_solver(hash_mb)
    solver.threads = threads
    solver.new_problem(budget)
    # The kernels leave the position as they found it, so without the answer (which
    # plays moves on it) the caller's own position serves.
    pos = position.copy() if limits.answer else position
    if progress is None:
        result = _phases(solver, pos, limits, budget)
    else:
        try:
            result = _phases(solver, pos, limits, budget)
        finally:
            progress("done", solver.nodes, time.perf_counter() - start)
    result.nodes = solver.nodes
    result.seconds = time.perf_counter() - start
    return result


def solve_many(positions, limits=None, *, hash_mb=DEFAULT_HASH_MB, solver=None, threads=1,
               **options):
    """solve() of each position (same arguments), as a list of Results in their order.
    Proof only (answer=False) and with no time limit, the proofs run many to a compiled
    call (bulk.prove_many), each searched as solve() searches it, so that a short
    problem no longer pays a Python call, numba's dispatch and a clock of its own; the
    Results are solve()'s but for `seconds`, each call's time shared out by nodes. A
    stop request (Solver.stop) ends the batch: the problem being searched and those
    after it are unknown, "interrupted". The positions are left as they were."""
    limits = _limits(limits, options) if options else (limits or UNLIMITED)
    if limits.answer or limits.time_limit is not None:
        # The answer's phases are Python's, and so is the clock: nothing to batch.
        return [solve(position, limits, hash_mb=hash_mb, solver=solver, threads=threads)
                for position in positions]
    positions = list(positions)
    if not positions:
        return []
    solver = solver or shared_solver(hash_mb)
    solver.threads = threads        # (the kernel's own proofs take one; a problem it hands
                                    # back goes on in threads, see _take_over)
    # Each Result brings a few lists and dicts, which would wake the cyclic collector
    # every hundred-odd problems to walk the young objects (and now and then every
    # object of numba's): as much as the search of a short problem. None of them
    # makes a cycle, so it waits until the batch is done.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _prove_many(positions, limits, solver)
    finally:
        if collecting:
            gc.enable()


def _prove_many(positions, limits, solver):
    """solve_many's proof-only path: chunks of positions stacked for the kernel, its
    rows made Results, and a problem it hands back settled by the ordinary path from
    where the kernel left it (bulk.py)."""
    from . import bulk      # (here: its kernel is compiled or loaded on first use only)
    max_nodes = limits.nodes if limits.nodes is not None else MAX_NODES
    control, work, table = solver.control, solver.work, solver.full_table
    control[CTRL_STOP] = 0
    chunk = min(bulk.CHUNK, len(positions))
    out = np.empty((chunk, bulk.OUT_SIZE), dtype=np.int64)
    lines = np.zeros((chunk, bulk.LINE_PLIES), dtype=np.int32)   # (read past a line's end)
    reasons = bulk.REASONS
    results = []
    for lo in range(0, len(positions), chunk):
        part = positions[lo:lo + chunk]
        boards = np.concatenate([p.board for p in part]).reshape(len(part), -1)
        hands = np.concatenate([p.hands for p in part]).reshape(len(part), -1)
        states = np.concatenate([p.state for p in part]).reshape(len(part), -1)
        salts = solver.new_salts(len(part))
        i = 0
        while i < len(part):
            started = time.perf_counter()
            nxt, handoff = bulk.prove_many(boards, hands, states, *table, salts, i, max_nodes,
                                           bulk.HANDOFF_NODES, bulk.CALL_NODES, control, work,
                                           out, lines)
            end = nxt + (handoff != bulk.HANDOFF_NONE)
            share = (time.perf_counter() - started) / max(1, int(out[i:end, bulk.O_NODES].sum()))
            rows = out[i:end].tolist()
            # (Every line's text at once, as wide as the longest: a numpy slice, tolist
            # and to_usi per problem cost a short problem a tenth of its time.)
            found = usi_rows(lines[i:nxt, :max(out[i:nxt, bulk.O_LINE].max(initial=0), 1)])
            for k in range(nxt - i):
                pn, dn, nodes, _, plies, hand, reason, _ = rows[k]     # (bulk.O_*)
                if pn == 0:
                    leftover = leftover_of_hand(hand)
                    line = found[k][:plies]     # (strict_moves too, as _settle gives it)
                    results.append(Result("mate", plies, plies, line, bool(leftover), leftover,
                                          [], [], None, False, False, nodes, nodes * share,
                                          None, line))
                elif dn == 0:
                    results.append(Result("nomate", None, None, [], False, {}, [], [], None,
                                          False, False, nodes, nodes * share))
                else:
                    results.append(Result("unknown", None, None, [], False, {}, [], [], None,
                                          False, False, nodes, nodes * share, reasons[reason]))
            if handoff != bulk.HANDOFF_NONE:
                results.append(_take_over(solver, part[nxt], rows[-1], int(salts[nxt]),
                                          handoff == bulk.HANDOFF_SEARCH, limits))
                results[-1].seconds += rows[-1][bulk.O_NODES] * share
                nxt += 1
            i = nxt
            if control[CTRL_STOP]:
                results += [Result("unknown", reason="interrupted")
                            for _ in range(len(results), len(positions))]
                return results
    return results


def _take_over(solver, pos, row, salt, searching, limits):
    """The Result of a problem bulk.prove_many handed back (its `row`): the search goes
    on (`searching`) or its line is read, by the ordinary path (_settle)."""
    from .bulk import O_CLUSTERS, O_DN, O_LENGTH, O_NODES, O_PN
    started = time.perf_counter()
    solver.resume_problem(salt, row[O_NODES], row[O_CLUSTERS], Budget(limits))
    if searching:
        pn, dn, reason, length = solver.search(pos, None, line=True)
    else:
        pn, dn, reason, length = row[O_PN], row[O_DN], None, row[O_LENGTH]
    result, _ = _settle(solver, pos, pn, dn, reason, length)
    result.nodes = solver.nodes
    result.seconds = time.perf_counter() - started
    return result


def _phases(solver, pos, limits, budget):
    result, proof_length = _prove(solver, pos)
    if result.status == "mate" and limits.answer:
        _answer(solver, pos, result, proof_length, limits, budget)
        if limits.tree:
            _tree(solver, pos, result, limits, budget)
    return result


_KEYWORDS = {}   # keyword options -> their Limits: a short problem's solve is a few
                 # µs, and a Limits takes one to hash and more to make


def _limits(limits, options):
    """The Limits of solve()'s `limits` and keyword options."""
    if limits is not None:
        return dataclasses.replace(limits, **options)     # (both given: seldom)
    key = tuple(options.items())
    found = _KEYWORDS.get(key)
    if found is None:
        if len(_KEYWORDS) >= 256:
            _KEYWORDS.clear()
        found = _KEYWORDS[key] = dataclasses.replace(UNLIMITED, **options)
    return found


# ---------------------------------------------------------------- 1. proof
def _prove(solver, pos):
    """The proof phase: (a Result with a verified line of any length, nomate or
    unknown; the proof's mate length bound, or -1)."""
    pn, dn, reason, proof_length = solver.search(pos, None, line=True)
    return _settle(solver, pos, pn, dn, reason, proof_length)


def _settle(solver, pos, pn, dn, reason, proof_length):
    """_prove's result from its search's outcome (solve_many's path for a problem
    its kernel hands back, with the solver as the search left it)."""
    if dn == 0:
        return Result(status="nomate"), -1
    if pn != 0:
        return Result(status="unknown", reason=reason), -1
    # Kept as integers until the end: a short problem's solve() is mostly this
    # Python bookkeeping, not the search.
    moves, end_hand = solver.found_line()
    if moves is None:
        known = int(proof_length) if proof_length >= 0 else NO_LIMIT
        # A hard problem's positions take more to prove again than a short one's.
        moves, end_hand = solver.proof_moves(
            pos, length=known,
            reprove_nodes=min(max(REPROVE_NODES_MIN, solver.nodes), REPROVE_NODES))
    # A line of the table walk in Python (end_hand None) is replayed before it is
    # reported; the compiled read's line is mate by construction.
    if moves is None or (end_hand is None and not replays_to_mate(
            pos.board, pos.hands, pos.state, moves, len(moves))):
        return Result(status="unknown", reason="proof found but no verified line"), -1
    leftover = (leftover_of_hand(end_hand) if end_hand is not None
                else leftover_after(pos, moves, len(moves)))
    n = len(moves)      # (positional: a short problem's solve is a few µs)
    line = to_usi(moves)        # (a proof line counts every interposition: strict_moves too)
    return Result("mate", n, n, line, bool(leftover), leftover, [], [], None, False, False,
                  0, 0.0, None, line), int(proof_length)


# ---------------------------------------------------------------- 2-5. the answer
def _answer(solver, root, result, upper, limits, budget):
    """Phases 2-5 on a root proven mate within `upper` plies: fills `result` in place
    with the answer. Its line changes only to another verified one."""
    spent = solver.nodes
    budget.enter("length", spent)
    finder = AnswerFinder(solver, root, QUERY_NODES, budget.analysis_nodes(spent),
                          budget.deadline,
                          budget.length_until(limits.mudaai or limits.yozume or limits.tree))
    moves, length, exact = strict_answer(finder, root, result.moves, upper)
    strict = moves
    mudaai = "not counted" if limits.mudaai else "counted"
    if limits.mudaai:
        budget.enter("mudaai", solver.nodes)
        bound = length if exact else (finder.bound or upper)
        rule = rule_answer(solver, root, bound, moves,
                           deadline=budget.rule_until(limits.yozume),
                           total_nodes=budget.rule_nodes(solver.nodes,
                                                         finder.stop_at - solver.nodes))
        if rule is None:
            mudaai = "not evaluated (budget)"
        else:
            # A shorter line by the rule is exact when the rule's analysis proved
            # nothing shorter; the strict line stays exact when the strict analysis
            # settled it, or the rule's did (no shorter mate by the rule, so none
            # strictly).
            if rule.line is not None:
                moves, exact = rule.line, rule.settled
                finder.henka, finder.last_move_alternatives = [], []
            elif rule.settled and rule.length == len(moves):
                exact = True
            if not rule.settled:
                mudaai = "not fully evaluated (budget)"
    if not verify_mating_line(root, moves, rule=limits.mudaai):
        return                                  # (never expected: the proof line stays)
    yozume = [dict(ply=a["ply"], move=a["move"], kind="last-move", length=len(moves),
                   line=[a["move"]], budget=None)
              for a in finder.last_move_alternatives]
    if limits.yozume:
        budget.enter("yozume", solver.nodes)
        yozume = finder.yozume(moves, *budget.yozume_nodes(limits.yozume_nodes, solver.nodes)) \
            + yozume
    result.moves, result.length, result.strict_length = list(moves), len(moves), len(strict)
    result.strict_moves = list(strict)
    result.exact, result.mudaai = exact, mudaai
    result.henka, result.yozume = finder.henka, yozume
    result.leftover = leftover_after(root, to_moves(moves), len(moves))
    result.komaamari = bool(result.leftover)
    result.complete = (limits.yozume and result.exact and not result.komaamari
                       and all(y["kind"] in ("last-move", "ukai") for y in result.yozume))


def _tree(solver, root, result, limits, budget):
    """Phase 6: the solution tree of the main line, under the 無駄合 rule when the line
    was found under it, within the rest of the problem's budget."""
    rule = result.mudaai in ("not counted", "not fully evaluated (budget)")
    result.tree = solution_tree(solver, root, result.moves, rule=rule, depth=limits.tree_depth,
                                deadline=budget.deadline,
                                total_nodes=budget.tree_nodes(solver.nodes))


def strict_answer(finder, root, proof_line, upper):
    """Phase 2: (line, length proven shortest or None, exact) counting every
    interposition. `upper` is the proof's length bound (from the search, not the
    proof line's length: the proof line's defender may give up early, so it can be
    below the shortest forced mate). Out of budget, a line as long as the shortest
    mate proven so far when the proofs give one, else the proof line; exact only when
    the shortest length is settled and the line has it (the choices among lines,
    駒余り and 変同, are then left unmade)."""
    solver = finder.solver
    length = None
    try:
        length = finder.exact_length(upper)
        moves, _ = finder.line(root, length)
        return moves, length, True
    except OutOfBudget:
        pass
    moves = list(proof_line)

    def proof_length(pos):
        return stored_proof_length(solver, pos, finder.attacker, finder.salt)

    def replies(pos):
        return sorted(movegen.legal_moves_of(pos), key=notation.move_to_usi)

    # The shortest mate proven: by this analysis, or stored by an earlier one.
    bound = min(b for b in (finder.bound, upper, proof_length(root)) if b is not None)
    if bound != len(moves) or skipped_mate(root, moves) is not None:
        # The proof line may be longer than that mate, or shorter (its defender may
        # give up early): read one from the proofs of the analysis and of the main
        # search, as long as a proven bound and no longer than this one.
        reprove = finder.reprover(LINE_REPROVE_NODES)
        other = line_of_length(root, bound, proof_length, replies, reprove=reprove,
                               confirm=lambda plies: reprove(root, plies) is not None,
                               deadline=finder.deadline)
        if other is None and (len(moves) < bound or skipped_mate(root, moves) is not None):
            # A proof line shorter than the bound may be one whose defender gave up
            # early: it would claim a mate shorter than the shortest. The read above
            # stops at the deadline, which the length question may have taken up to
            # (図巧4 came out as its 25-ply proof line, a mate in 39); the table alone
            # (no search) still gives a line as long as the bound, in a few steps,
            # and one that plays a mate at once where the proof line passes it by.
            other = line_of_length(root, bound, proof_length, replies, max_steps=LATE_LINE_STEPS)
        if other is not None and verify_mating_line(root, other):
            moves = other
    # A line that could not be read goes the proof's way, which may leave a mate at
    # once for a longer one: it ends there (the defender's replies before it are then
    # not proven longest either; the line is not exact).
    moves = mate_at_once_first(root, moves)
    finder.henka, finder.last_move_alternatives = [], []
    return moves, length, length is not None and length == len(moves)


# ---------------------------------------------------------------- warm-up
_warm = False   # warm_up() has run in this process


def warm_up(bulk=False):
    """Load every compiled function that solve() may call, or compile it on the first
    run after installing: a function is loaded from numba's cache when first called,
    10-30 ms each, which would otherwise fall on the first problem that needs it (the
    table-walk fallback of proof_moves, for instance, only some problems use). Solves
    a 3-ply problem on a tiny table, with the tsume answer, that fallback and the table
    read (extract_line: solve's own search reads its line itself), writes its line in
    Japanese (every batch record's kifu) and validates it (every problem read is).
    With `bulk`, also solve_many's batch kernel (bulk.py), for a process that will
    solve batches: its cache holds a copy of the whole search of its own, so it adds a
    load (about a quarter of the rest) and, on the first run, a compile of its own;
    left out by default (the USI engine never uses it). solve() with a time limit
    calls it first if nothing has, so that the limit does not count it."""
    global _warm
    from .position import Position
    from .solver import Solver
    from .validate import validate
    pos = Position.from_sfen("8k/9/9/7+R1/9/9/9/9/9 b LPr2b4g4s4n3l17p 1")
    validate(pos)
    solver = Solver(1)
    notation.line_to_japanese(pos, solve(pos, solver=solver).moves)   # (every record's)
    solver._mating_line_slow(pos, MAX_PLY)
    solver.proof_moves(pos)       # (the table read the answer analysis uses)
    solver.grow()          # (a table this small is all in use: nothing moves)
    if bulk:
        solve_many([pos], answer=False, solver=solver)
    _warm = True
