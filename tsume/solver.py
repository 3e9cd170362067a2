"""Public solving API: ``solve(position, ...) -> Result``.

Runs the df-pn search (dfpn.py) in slices of nodes, so that time limits and Ctrl-C are
honoured between slices, then reads a mating line out of the transposition table and
replays it before reporting ``mate``. Limits give ``unknown``, never ``nomate``.
"""
import os
import random
import threading
import time
from dataclasses import dataclass, field

import numpy as np

from . import movegen, notation
from .dfpn import (LINE_HAND, LINE_LEN, PENDING_PATHS, STOP_DEPTH, MAX_PLY, dfpn_search,
                   extract_line, new_workspace, probe, replays_to_mate, store, workspace_views)
from .pieces import USI_LETTER, held_pieces
from .tt import CLUSTER, INF, NO_LIMIT, new_table, tt_grow

DEFAULT_HASH_MB = 256
SLICE_NODES = 200_000
# A problem starts in the table's first FIRST_CLUSTERS clusters (295 KB) and moves to
# GROWTH times as many whenever its nodes reach the slots it has (tt.py, Solver.grow):
# short searches stay where the caches and the TLB reach. 1024 clusters fit the 2 MB
# L2 cache with room to spare; from 8192 (2.4 MB, which did not), in-process: yo_mate3/
# 5/7 4%/4%/2% faster, tanuki_generated 8%, yo_mate11 unchanged; 256 was no better.
FIRST_CLUSTERS = 1024
GROWTH = 8
# A problem's searches stop adding the depth term to new defender nodes' first proof
# numbers (dfpn.DEPTH_CAP) once its nodes reach this (looked at between slices): the
# term keeps short problems off long forcing lines, and cost long proofs about a fifth
# of their time. Proof only, 将棋図巧 + 将棋無双 at 60 s, same salts (bench/ab.py), on
# the 199 both settle: 0.808 at 250K (100K 0.824, 1M 0.92, 4M 0.90); yo_mate9/11
# unchanged (their largest problem takes 222K nodes). 4M, not 250K: on few-piece
# positions (bare kings with large hands) the switch sent searches down long drop
# lines; 111 random ones that take over 250K nodes, 10 s each: 334 s and 82 settled at
# 4M against 510 s and 75 at 250K, 4M faster on 81 and slower on none (2026-12-05).
DEPTH_TERM_NODES = 4_000_000
# The nodes the line walk (Solver._mating_line_slow) gives to proving one position
# again when the table lost its proof: REPROVE_NODES_MIN unless the caller gives more;
# solve() gives what its search took, up to REPROVE_NODES.
REPROVE_NODES_MIN = 100_000
REPROVE_NODES = 10_000_000


@dataclass(slots=True)      # (slots: made in 0.9 µs instead of 1.5, for every problem)
class Result:
    """What solve() found. Field names follow the JSON schema of the CLI (README)."""
    status: str                     # mate | nomate | unknown | error
    length: int | None = None       # plies of the main line, None unless mate
    moves: list = field(default_factory=list)   # USI strings of the main line
    komaamari: bool = False         # pieces left in the attacker's hand at the end
    leftover: dict = field(default_factory=dict)   # those pieces, USI letter -> count
    yozume: list = field(default_factory=list)     # {ply, move, kind, length}
    henka: list = field(default_factory=list)      # 変同: {ply, moves}
    strict_length: int | None = None   # counting every interposition (無駄合 included)
    mudaai: str | None = None       # "not counted" | "counted" | "not evaluated (budget)"
    exact: bool = False             # length proven shortest, line chosen by the rules
    complete: bool = False          # 完全作: mate, exact, no 余詰, no 駒余り, all checked
    nodes: int = 0
    seconds: float = 0.0
    reason: str | None = None       # why unknown (node limit, time limit, interrupted)


class Solver:
    """Holds the table and work arrays of one search, so that PV extraction and
    follow-up searches reuse what the main search learned."""

    def __init__(self, hash_mb=DEFAULT_HASH_MB, seed=None):
        """`seed` fixes the sequence of per-problem salts (see new_problem), which
        decide where entries land in the table and so the order of equal choices:
        the same seed repeats a search node for node."""
        self.hash_mb = hash_mb
        self.full_table = new_table(hash_mb)
        self.total_clusters = len(self.full_table[0]) // CLUSTER
        self.use_clusters(FIRST_CLUSTERS)     # sets self.clusters and self.table
        self.work = new_workspace()          # the search's work arrays, in one buffer
        views = workspace_views(self.work)
        self.pending = views[0]
        self._line_moves = views[-2]
        self._line_end = views[-1][LINE_LEN:LINE_HAND + 1]
        # [stop flag, rule-mode unknown futility, salt of the last search that stored a
        # path-dependent disproof (see dfpn.py), salt of a namespace nothing was stored
        # in yet (set by new_problem, cleared by the first search or store), read the
        # mating line when the root is proven (search's `line`), no depth term in first
        # proof numbers (set by search, see DEPTH_TERM_NODES)]
        self.control = np.zeros(6, dtype=np.int64)
        self.nodes = 0
        self.salt = 0
        self._rng = random.Random(seed)

    def reseed(self, seed):
        """Start the sequence of salts again from `seed` (see __init__): two solvers
        reseeded alike search the next problems alike."""
        self._rng.seed(seed)

    def use_clusters(self, clusters):
        """Search in the first `clusters` clusters of the table (all, if it has fewer):
        self.table holds views of them, which every kernel call is given."""
        self.clusters = min(clusters, self.total_clusters)
        size = self.clusters * CLUSTER
        self.table = tuple(array[:size] for array in self.full_table)

    def grow(self):
        """Move to GROWTH times as many clusters (or all), taking every entry along."""
        old = self.clusters
        new = min(old * GROWTH, self.total_clusters)
        tt_grow(*self.full_table, old, new)
        self.use_clusters(new)

    def new_problem(self):
        """Forget the previous problem without clearing memory: a fresh salt makes every
        old entry a stranger to the new keys, and replacement recycles their slots."""
        # (A Python int, which numba takes as an int64 like np.int64 but makes in a
        # fraction of the time: a 3-ply problem's whole solve is about 25 µs.)
        self.salt = self._rng.getrandbits(62) | 1
        self.nodes = 0
        if self.clusters > FIRST_CLUSTERS:
            self.use_clusters(FIRST_CLUSTERS)
        control = self.control
        control[0] = 0
        control[3] = self.salt

    def stop(self):
        """Ask a running search to stop (safe from another thread)."""
        self.control[0] = 1

    def search(self, pos, max_nodes, deadline=None, max_depth=NO_LIMIT, salt=None, rule=False,
               line=False):
        """df-pn from pos (attacker to move) until proven, disproven or out of budget,
        for a mate within max_depth plies. Returns (pn, dn, stop reason or None,
        length: of the proof, or the depth a disproof holds to). With `line`, a proof
        leaves a mating line for found_line (read by the search before it returns,
        while what it needs is in the caches). A search in another
        namespace (`salt`) also uses the proofs and disproofs of the main one. With
        rule=True (RULE_D2) futile interpositions are no defence (dfpn_search; `salt`
        must then name a namespace of rule-mode searches only), or with RULE_KEEP
        those of a wider rule (dfpn.py)."""
        salt = self.salt if salt is None else salt
        self.control[4] = line
        spent = 0
        while True:
            budget = min(SLICE_NODES, max_nodes - spent) if max_nodes is not None else SLICE_NODES
            if budget <= 0:
                return 1, 1, "node limit", -1
            if self.clusters < self.total_clusters:
                # The slice ends where the table grows: when the nodes reach its slots.
                if self.nodes >= self.clusters * CLUSTER:
                    self.grow()
                budget = min(budget, self.clusters * CLUSTER - self.nodes)
            self.control[5] = self.nodes >= DEPTH_TERM_NODES
            pn, dn, n, stop, length = dfpn_search(pos.board, pos.hands, pos.state, *self.table, salt,
                                                  self.salt, int(rule), max_depth, budget, self.control,
                                                  self.work)
            spent += n
            self.nodes += n
            if pn == 0 or dn == 0:
                return pn, dn, None, length
            if stop == STOP_DEPTH:
                return pn, dn, "depth limit", -1
            if self.control[0]:
                return pn, dn, "interrupted", -1
            if deadline is not None and time.perf_counter() >= deadline:
                return pn, dn, "time limit", -1
            if n == 0:
                return pn, dn, "no progress", -1

    def pending_paths(self):
        """After a rule-mode search: the USI paths (from its root) to the interpositions
        whose futility was not known, as many as were kept."""
        kept = min(int(self.control[1]), PENDING_PATHS)
        return [_to_usi(self.pending[k, 1:1 + self.pending[k, 0]])
                for k in range(kept)]

    def probe(self, pos, attacker, salt=None):
        out = np.zeros(4, dtype=np.int64)
        found = probe(*self.table, self.salt if salt is None else salt, pos.board, pos.hands,
                      pos.state, attacker, out)
        return found, out

    def store(self, pos, attacker, proven, length=NO_LIMIT, salt=None):
        """Record in the main namespace (or `salt`'s) a result settled outside the
        search: proven (mate within `length` plies, a true bound) or disproven (no mate
        at all), for the attacker's hand of pos."""
        pn, dn = (0, INF) if proven else (INF, 0)
        self.control[3] = 0          # the namespace is no longer empty
        # A large effort: these are read by later searches that cannot redo them (the
        # rule mode), so a cluster full of the searches' own results keeps them.
        store(*self.table, self.salt if salt is None else salt, pos.board, pos.hands,
              pos.state, attacker, pn, dn, length if proven else NO_LIMIT, 1 << 24)

    def proven(self, pos, attacker, max_nodes=100_000, within=NO_LIMIT, deadline=None):
        """A bound on the mate length if pos is proven mate for the attacker within
        `within` plies, searching a little (depth-limited) if the table lost it; None
        if it is not proven."""
        found, out = self.probe(pos, attacker)
        if found and out[0] == 0 and out[2] <= within:
            return int(out[2])
        if pos.side_to_move == attacker:
            pn, _, _, length = self.search(pos, max_nodes, deadline, max_depth=within)
            return int(length) if pn == 0 else None
        # Defender to move: proven when every reply is.
        worst = 0
        for move in movegen.legal_moves_of(pos):
            child = pos.copy()
            child.push(move)
            sub = self.proven(child, attacker, max_nodes, within - 1, deadline)
            if sub is None:
                return None
            worst = max(worst, sub + 1)
        return worst

    def mating_line(self, pos, max_plies=MAX_PLY):
        """A mating line (USI strings) read from the table, or None; see proof_moves."""
        moves, _ = self.proof_moves(pos, max_plies)
        return None if moves is None else _to_usi(moves)

    def found_line(self):
        """The mating line of the proof that the last search found (read with search's
        `line`, or its root's mate in three), as (moves, attacker's packed hand at the
        end); its length is the proven length. (None, None) if it left none. Made of
        generated moves ending where the defender has no reply, it is mate by
        construction, like extract_line's."""
        n, end_hand = self._line_end.tolist()
        if n == 0:
            return None, None
        # (A list of Python ints: a copy, since the next search overwrites the array.)
        return self._line_moves[:n].tolist(), end_hand

    def proof_moves(self, pos, max_plies=MAX_PLY, length=NO_LIMIT, deadline=None,
                    reprove_nodes=REPROVE_NODES_MIN):
        """The integer moves of a mating line read from the table (numba), falling back
        to the Python walk, which re-proves what the table lost, when the fast path
        cannot finish; (None, None) if there is no line. `length`: the proven mate
        length, if known (it shortens the read). The second value is the attacker's
        packed hand at the end of a line of the fast path, which is mate by
        construction (extract_line); None for the slow path's line, which the caller
        replays."""
        buf = np.empty(max_plies + 1, dtype=np.int32)
        n, end_hand = extract_line(pos.board, pos.hands, pos.state, *self.table, self.salt, buf,
                                   max_plies, length)
        if n >= 0:
            return buf[:n], int(end_hand)
        line = self._mating_line_slow(pos, max_plies, deadline, reprove_nodes)
        return (None, None) if line is None else (_to_moves(line)[:len(line)], None)

    def _mating_line_slow(self, pos, max_plies, deadline=None,
                          reprove_nodes=REPROVE_NODES_MIN):
        """A line that mates against every defence: the attacker takes the child with the
        shortest known mate, the defender the reply with the longest, every choice
        within the plies left of the root's proven length. That bound falls by one at
        every ply, so the walk cannot go round a cycle, which the table's lengths alone
        allow once entries were replaced (a child's best remaining proof can then be
        longer than the one its parent's length came from). What the table lost is
        proven again within the bound, with up to reprove_nodes nodes a position
        (solve() gives what its search took: see there)."""
        attacker = pos.side_to_move
        bound = self.proven(pos, attacker, max(1_000_000, reprove_nodes), max_plies,
                             deadline)
        if bound is None:
            return None
        line = []
        cur = pos.copy()
        searched_at = -1
        while True:
            left = bound - len(line)          # plies within which cur is a proven mate
            attacking = cur.side_to_move == attacker
            moves = movegen.check_moves_of(cur) if attacking else movegen.legal_moves_of(cur)
            if not moves:
                return line if not attacking else None
            if left <= 0:
                return None
            scored = []
            for move in moves:
                child = cur.copy()
                child.push(move)
                if attacking:
                    found, out = self.probe(child, attacker)
                    if found and out[0] == 0 and out[2] <= left - 1:
                        scored.append((int(out[2]), move))
                else:
                    length = self.proven(child, attacker, reprove_nodes, left - 1, deadline)
                    if length is None:
                        return None
                    scored.append((-length, move))
            if not scored:
                # The table dropped the proof of this node: prove it again within the bound
                # (once: the proof just stored names a child that qualifies).
                if searched_at == len(line):
                    return None
                searched_at = len(line)
                pn, _, _, _ = self.search(cur, max(1_000_000, reprove_nodes), deadline,
                                         max_depth=left)
                if pn != 0:
                    return None
                continue
            scored.sort()
            move = scored[0][1]
            line.append(notation.move_to_usi(move))
            cur.push(move)


def _to_moves(line):
    """USI strings -> int32 array for the compiled kernels (never empty: a zero-length
    line is passed with its length 0)."""
    return np.array([notation.usi_to_move(u) for u in line] or [0], dtype=np.int32)


_LEFTOVER = {}   # packed hand -> {USI letter: count}, for the hands seen last


def _leftover(packed):
    """{USI letter: count} of the pieces of a packed hand: a copy of a cached dict (most
    short problems end with pieces in hand, and unpacking one costs microseconds)."""
    out = _LEFTOVER.get(packed)
    if out is None:
        if len(_LEFTOVER) >= 4096:
            _LEFTOVER.clear()
        out = _LEFTOVER[packed] = {USI_LETTER[k]: n for k, n in held_pieces(packed).items()}
    return dict(out)


_USI = {}   # integer move -> USI text: at most ~14,000 moves exist, and a short
            # problem's solve() spent 0.4 µs writing its 3 moves each time


def _to_usi(moves):
    """USI strings of moves: an int array or a list of ints (tolist: plain ints
    convert faster)."""
    known = _USI
    out = []
    for m in (moves if isinstance(moves, list) else moves.tolist()):
        text = known.get(m)
        if text is None:
            text = known[m] = notation.move_to_usi(m)
        out.append(text)
    return out


def verify_mating_line(pos, line, rule=False):
    """Replay: every attacker move a legal check, every defender move legal, the end
    mate. With rule=True the end may instead leave the defender only interpositions on
    the line of a distant slider check (無駄合; their futility was proven by the search)."""
    if replays_to_mate(pos.board, pos.hands, pos.state, _to_moves(line), len(line)):
        return True
    if not rule or len(line) % 2 == 0:
        return False
    cur = pos.copy()
    for usi in line:
        legal = cur.check_moves() if cur.side_to_move == pos.side_to_move else cur.legal_moves()
        if usi not in legal:
            return False
        cur.push_usi(usi)
    from .mudaai import only_interpositions_left
    return only_interpositions_left(cur)


def search_is_compiled():
    """Is the compiled search in numba's cache on disk? Not on the first run after
    installing (or after an edit of dfpn.py): the first solve then compiles it, about
    40-60 s. Reads a numba internal; another numba layout counts as compiled (no notice)."""
    try:
        return os.path.exists(dfpn_search._cache._cache_file._index_path)
    except AttributeError:
        return True


def warm_up():
    """Load every compiled function that solve() may call, or compile it on the first
    run after installing: a function is loaded from numba's cache when first called,
    10-30 ms each, which would otherwise fall on the first problem that needs it (the
    table-walk fallback of proof_moves, for instance, only some problems use). Solves
    a 3-ply problem on a tiny table, with the tsume answer, that fallback and the table
    read (extract_line: solve's own search reads its line itself)."""
    from .formats.sfen import parse_sfen
    pos = parse_sfen("8k/9/9/7+R1/9/9/9/9/9 b LPr2b4g4s4n3l17p 1")
    solver = Solver(1)
    solve(pos, solver=solver, answer=True, yozume=True)
    solver._mating_line_slow(pos, MAX_PLY)
    solver.proof_moves(pos)       # (the table read the answer analysis uses)
    solver.grow()          # (a table this small is all in use: nothing moves)


_shared_solvers = {}


def shared_solver(hash_mb=DEFAULT_HASH_MB):
    """One Solver per table size and thread, reused across problems: allocating and
    touching a large table for every problem would cost more than solving most."""
    key = (hash_mb, threading.get_ident())
    solver = _shared_solvers.get(key)
    if solver is None:
        _shared_solvers.clear()          # keep at most one table alive
        solver = _shared_solvers[key] = Solver(hash_mb)
    return solver


def solve(position, time_limit=None, nodes=None, hash_mb=DEFAULT_HASH_MB, solver=None,
          answer=True, yozume=True, yozume_nodes=100_000, mudaai=True):
    """Prove mate or no mate for the side to move. Returns a Result (see README).

    With answer=True a proven mate is turned into the tsume answer (answer.py): exact
    length, main line by the rules, 駒余り, 変同, and with yozume=True the 余詰 check
    (each alternative check gets up to yozume_nodes nodes per defender reply). The
    length analysis has its own budget: what `nodes` leaves (else max(20M, 10x the
    proof's nodes), and the 無駄合 analysis up to 20M more) and, with a time limit,
    that much time again; when it runs out the verified proof line is reported with
    exact=False."""
    start = time.perf_counter()
    deadline = start + time_limit if time_limit else None
    solver = solver or shared_solver(hash_mb)
    solver.new_problem()
    # The kernels leave the position as they found it, so without the analysis (which
    # plays moves on it) the caller's own position serves.
    pos = position.copy() if answer else position
    pn, dn, reason, proof_length = solver.search(pos, nodes, deadline, line=True)
    if dn == 0:
        result = Result(status="nomate")
    elif pn != 0:
        result = Result(status="unknown", reason=reason)
    else:
        # Kept as integers until the end: a short problem's solve() is mostly this
        # Python bookkeeping, not the search.
        moves, end_hand = solver.found_line()
        if moves is None:
            known = int(proof_length) if proof_length >= 0 else NO_LIMIT
            # A hard problem's positions take more to prove again than a short one's
            # (a random bare-king mate of 45 plies, proven in 686K nodes, had a reply
            # that 100K did not prove again, and was reported unknown).
            moves, end_hand = solver.proof_moves(
                pos, length=known, deadline=deadline,
                reprove_nodes=min(max(REPROVE_NODES_MIN, solver.nodes), REPROVE_NODES))
        # A line of the table walk in Python (end_hand None) is replayed before it is
        # reported; the compiled read's line is mate by construction.
        if moves is None or (end_hand is None and not replays_to_mate(
                pos.board, pos.hands, pos.state, moves, len(moves))):
            result = Result(status="unknown", reason="proof found but no verified line")
        else:
            result = Result(status="mate", length=len(moves), moves=_to_usi(moves))
            if answer:
                from .answer import find_answer     # (answer.py imports this module)
                spent = solver.nodes
                # The analysis gets its own budget: nodes (what --nodes leaves, else
                # generous) and, with a time limit, that much time again.
                budget = max(20_000_000, 10 * spent) if nodes is None else max(0, nodes - spent)
                now = time.perf_counter()
                found = find_answer(solver, pos, result.moves, int(proof_length),
                                    yozume_nodes=yozume_nodes, check_yozume=yozume,
                                    total_nodes=budget, mudaai=mudaai,
                                    rule_budget_of_its_own=nodes is None,
                                    deadline=(now + time_limit) if time_limit else None,
                                    # With a time limit and no node limit, the shortest
                                    # length may take up to half the analysis's time.
                                    length_until=(now + time_limit / 2)
                                    if time_limit and nodes is None else None)
                if verify_mating_line(pos, found.moves, rule=mudaai):
                    result.moves, result.length, result.exact = found.moves, found.length, found.exact
                    result.henka, result.yozume = found.henka, found.yozume
                    result.strict_length, result.mudaai = found.strict_length, found.mudaai
                    moves = _to_moves(found.moves)
                    end_hand = None
            if end_hand is None:
                leftover = movegen.hand_after_moves(pos, moves, result.length, pos.side_to_move)
                result.leftover = {USI_LETTER[k]: n for k, n in leftover.items()}
            else:
                result.leftover = _leftover(end_hand)
            result.komaamari = bool(result.leftover)
            if result.strict_length is None:
                result.strict_length = result.length
            result.complete = (answer and yozume and result.exact and not result.komaamari
                               and all(y["kind"] in ("last-move", "ukai") for y in result.yozume))
    result.nodes = solver.nodes
    result.seconds = time.perf_counter() - start
    return result
