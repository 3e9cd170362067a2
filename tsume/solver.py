"""The engine's front: one Solver holds a transposition table and the search's work
arrays, runs the compiled df-pn (dfpn.py) in slices of nodes, reads and writes the
table for the floors above, and reads mating lines out of it.

Every search of a problem draws from that problem's Budget (limits.py, set by
new_problem): the slices stop at its deadline and node limit whatever a caller asks,
so a limit bounds the whole problem. Between slices a stop request and the time are
looked at; slices shrink near the deadline, so that a search overruns it by a
fraction of a second at most.

With `threads` > 1 a long search is searched by that many threads at once, one table
between them (tt.py says why a lookup is safe while another thread writes): the
caller's thread, slice by slice as above, and helpers (_Crew) with their own work
arrays and copy of the position, whose search takes the last of equally good children
where the caller's takes the first (dfpn.CTRL_VARIANT), so that they part ways and
each finds what the others settled. A result is the caller's own search's: when a
helper settles the root, the caller's next slice reads it from the table (and the
line with it).
"""
import os
import random
import threading
import time
from typing import NamedTuple

import numpy as np

from . import movegen, notation
from .dfpn import (CONTROL_SIZE, CTRL_COUNT_CHECKS, CTRL_DEFENDER_ROOT, CTRL_FRESH_SALT,
                   CTRL_NO_DEPTH_TERM, CTRL_PATH_SALT, CTRL_ROOT_MOVE, CTRL_STOP,
                   CTRL_UNKNOWN_FUTILITY, CTRL_VARIANT, CTRL_WANT_LINE, FUTILITY_NAMESPACE,
                   KEEP_FUTILITY_NAMESPACE, LINE_HAND, LINE_LEN, MAX_PLY, PENDING_PATHS,
                   STOP_DEPTH, dfpn_search, extract_line, new_workspace, probe, store,
                   workspace_views)
from .limits import Budget
from .lines import to_moves, to_usi
from .tt import CLUSTER, ENTRY_BYTES, INF, LOOK_DN, LOOK_HAND, LOOK_LEN, LOOK_PN, LOOK_SIZE, \
    NO_LIMIT, Table, check_table_size, new_table, populate, tt_grow

DEFAULT_HASH_MB = 256
# Nodes of one slice of a search: between slices the time and stop requests are
# looked at (a slice takes well under a second).
SLICE_NODES = 200_000
# With a deadline, a slice is cut to the nodes the last slices' speed fits in the time
# left, or in DEADLINE_SLICE seconds if that is less (a machine that slows down mid-slice
# then overruns by a fraction of that), but to no fewer than MIN_SLICE_NODES.
MIN_SLICE_NODES = 4_096
DEADLINE_SLICE = 0.2
# A problem starts in the table's first FIRST_CLUSTERS clusters (295 KB, within the L2
# cache) and moves to GROWTH times as many whenever its nodes reach the slots it has
# (tt.py, Solver.grow): short searches stay where the caches and the TLB reach.
FIRST_CLUSTERS = 1024
GROWTH = 8
# The next growth's memory is faulted in ahead of the search (Solver._populate_ahead)
# from this size on: below it, a thread costs more than the faults it saves.
POPULATE_MIN_BYTES = 8 << 20
# A problem's searches stop adding the depth term to new defender nodes' first proof
# numbers (dfpn.DEPTH_CAP) once its nodes reach this (looked at between slices): the
# term keeps short problems off long forcing lines and costs long proofs time. Not
# earlier: on few-piece positions (bare kings, large hands) the switch sent searches
# down long drop lines. The measurements: bench/MEASUREMENTS.md.
DEPTH_TERM_NODES = 4_000_000
# With threads > 1, a search runs on the caller's thread alone until it has taken this
# many nodes; then the helper threads join it (_Crew). Most of the answer's searches
# are shorter than that, and starting the helpers costs a thread start each.
PARALLEL_AFTER = 100_000
# The nodes the line walk (Solver._mating_line_slow) gives to proving one position
# again when the table lost its proof: REPROVE_NODES_MIN unless the caller gives more;
# solve() gives what its search took, up to REPROVE_NODES.
REPROVE_NODES_MIN = 100_000
REPROVE_NODES = 10_000_000

# The table namespaces of one problem. A search's salt is the problem's salt (whose
# low bits name its generation in the table, tt.py) xor a namespace in bits 32 and up:
# bits 32-39 tell the kinds apart; a kind's fresh namespaces count in bits 40 and up
# (namespace()), and the futility kinds put a checker and square in bits 41-54
# (dfpn.futility_salt), which never meets the others' bits 32-39.
DEPTH_NAMESPACE = np.int64(0x5A5A_1234) << 32      # answer.py: depth-limited questions
RULE_NAMESPACE = np.int64(0x3C3C_5678) << 32       # mudaai.py: the rule-mode searches
DISPROVE_NAMESPACE = np.int64(0x2D2D_9ABC) << 32   # mudaai.py: no_mate_within's
NAMESPACES = (DEPTH_NAMESPACE, RULE_NAMESPACE, DISPROVE_NAMESPACE, FUTILITY_NAMESPACE,
              KEEP_FUTILITY_NAMESPACE)


def namespace(salt, kind, counter=0):
    """The salt of namespace `kind` (one of NAMESPACES), its `counter`-th fresh one."""
    return salt ^ kind ^ (np.int64(counter) << 40)


_NO_BUDGET = Budget(start=0.0)     # a problem begun without one (direct Solver use)


class Entry(NamedTuple):
    """A table entry as probe() reads it (tt.tt_lookup's record)."""
    pn: int
    dn: int
    length: int     # proof: mate within this many plies; disproof: the depth it holds to
    hand: int       # the attacker's proof or disproof hand


class Solver:
    """Holds the table and work arrays of one search, so that PV extraction and
    follow-up searches reuse what the main search learned."""

    def __init__(self, hash_mb=DEFAULT_HASH_MB, seed=None):
        """`seed` fixes the sequence of per-problem salts (see new_problem), which
        decide where entries land in the table and so the order of equal choices:
        the same seed repeats a search node for node. Raises tt.TableSizeError when
        the table does not fit in the memory available."""
        check_table_size(hash_mb)
        self.hash_mb = hash_mb
        self.full_table = new_table(hash_mb)
        self.total_clusters = len(self.full_table.keys) // CLUSTER
        self.use_clusters(FIRST_CLUSTERS)     # sets self.clusters and self.table
        self.work = new_workspace()          # the search's work arrays, in one buffer
        views = workspace_views(self.work)
        self.pending = views.pending
        self._line_moves = views.line_moves
        self._line_end = views.small[LINE_LEN:LINE_HAND + 1]
        # Steers the compiled search (dfpn.CTRL_*); its stop slot is written from any
        # thread (stop()).
        self.control = np.zeros(CONTROL_SIZE, dtype=np.int64)
        self.nodes = 0
        self.salt = 0
        self.budget = _NO_BUDGET
        self._nps = None                     # nodes per second of the last long slice
        self._rng = random.Random(seed)
        self.threads = 1                     # threads a long search uses (see the module)
        self._helpers = []                   # their _Helper states, made on first use
        self._stop_asked = False
        self._populated = 0                  # clusters faulted in ahead of the search so far
        self._populating = None              # the thread doing it (_populate_ahead)

    def reseed(self, seed):
        """Start the sequence of salts again from `seed` (see __init__): two solvers
        reseeded alike search the next problems alike."""
        self._rng.seed(seed)

    def use_clusters(self, clusters):
        """Search in the first `clusters` clusters of the table (all, if it has fewer):
        self.table holds views of them, which every kernel call is given."""
        self.clusters = min(clusters, self.total_clusters)
        size = self.clusters * CLUSTER
        self.table = Table(*(array[:size] for array in self.full_table))

    def grow(self):
        """Move to GROWTH times as many clusters (or all), taking every entry along."""
        old = self.clusters
        new = min(old * GROWTH, self.total_clusters)
        tt_grow(*self.full_table, old, new)
        self.use_clusters(new)
        self._populate_ahead()

    def _populate_ahead(self):
        """Have the clusters of the next growth faulted in on a thread of its own while
        the search goes on in the present ones: else the next grow() pays for that
        memory inside the search, the other cores idle. Once per range in this
        Solver's life; the memory is the table's own (checked when it was made)."""
        lo = self.clusters
        hi = min(lo * GROWTH, self.total_clusters)
        if hi <= self._populated or (hi - lo) * CLUSTER * ENTRY_BYTES < POPULATE_MIN_BYTES:
            return
        if self._populating is not None and self._populating.is_alive():
            return                   # (the next grow asks again)
        self._populated = hi
        self._populating = threading.Thread(
            target=populate, args=(self.full_table, lo * CLUSTER, hi * CLUSTER),
            name="tsume-table-populate", daemon=True)
        self._populating.start()

    def new_problem(self, budget=None):
        """Start a problem that draws from `budget` (limits.Budget; default: none), and
        forget the previous one without clearing memory: a fresh salt makes every old
        entry a stranger to the new keys, and replacement recycles their slots."""
        # (A Python int, which numba takes as an int64 like np.int64 but makes in a
        # fraction of the time.)
        self.salt = self._rng.getrandbits(62) | 1
        self.nodes = 0
        self.budget = budget if budget is not None else _NO_BUDGET
        if self.clusters > FIRST_CLUSTERS:
            self.use_clusters(FIRST_CLUSTERS)
        control = self.control
        control[CTRL_STOP] = 0
        control[CTRL_FRESH_SALT] = self.salt
        self._stop_asked = False

    def new_salts(self, n):
        """The salts of the next n problems, drawn as new_problem draws them, for a batch
        (bulk.prove_many) that starts each problem itself: with one seed, its problems
        are searched as solve() one by one would search them."""
        # CPython's getrandbits(62) is two 32-bit words of the generator, the low one
        # first, the high one shifted right by 2; so is each salt here, cut from one draw
        # of 64n bits: n draws cost as much as a short problem's Python (tests/test_bulk.py
        # checks the salts against solve()'s).
        words = np.frombuffer(self._rng.getrandbits(64 * n).to_bytes(8 * n, "little"),
                              dtype=np.uint32).astype(np.int64)
        return words[0::2] | ((words[1::2] >> 2) << 32) | 1

    def resume_problem(self, salt, nodes, clusters, budget=None):
        """Take over a problem that bulk.prove_many began and handed back: its salt, the
        nodes it took and the table clusters its search ended in (the control and work
        arrays are already as the search left them)."""
        self.salt = salt
        self.nodes = nodes
        self.budget = budget if budget is not None else _NO_BUDGET
        self.use_clusters(clusters)

    def stop(self):
        """Ask a running search to stop (safe from another thread)."""
        self._stop_asked = True
        self.control[CTRL_STOP] = 1
        for helper in self._helpers:
            helper.control[CTRL_STOP] = 1

    @property
    def stopped(self):
        """Was a stop asked for since the problem began?"""
        return bool(self.control[CTRL_STOP])

    def search(self, pos, max_nodes, deadline=None, max_depth=NO_LIMIT, salt=None, rule=False,
               line=False, expect_no_mate=False, only=None, defender=False):
        """df-pn from pos (attacker to move) until proven, disproven or out of budget,
        for a mate within max_depth plies. Returns (pn, dn, stop reason or None,
        length: of the proof, or the depth a disproof holds to). `max_nodes` and
        `deadline` (None: none) are this search's own; the problem's budget bounds
        them. With `line`, a proof leaves a mating line for found_line (read by the
        search before it returns, while what it needs is in the caches). A search in
        another namespace (`salt`) also uses the proofs and disproofs of the main one.
        With rule=True (RULE_D2) futile interpositions are no defence (dfpn_search;
        `salt` must then name a namespace of rule-mode searches only), or with
        RULE_KEEP those of a wider rule (dfpn.py); unknown_futility then counts the
        interpositions of unknown futility this search met. `expect_no_mate` (a
        question whose answer is mostly no: another check than the author's, a shorter
        mate) gives a new attacker node its number of checks as first disproof number
        (CTRL_COUNT_CHECKS): disproofs take far fewer nodes, proofs somewhat more time.
        `only` (a check of pos, as an int) asks whether that check mates: its replies
        are searched as one defender node (CTRL_ROOT_MOVE), and pos itself gets no
        entry (nor a line: read the check's from the table); with expect_no_mate too (the
        余詰 check's question), a non-promotion is searched only once its promotion has
        failed (dfpn._chain_promotions). With `defender`, pos is a
        defender node (the defender to move, in check; not in rule mode): is he mated
        whatever he plays? Its replies are searched as one node (CTRL_DEFENDER_ROOT)."""
        salt = self.salt if salt is None else salt
        control = self.control
        control[CTRL_WANT_LINE] = line
        control[CTRL_COUNT_CHECKS] = expect_no_mate
        control[CTRL_ROOT_MOVE] = 0 if only is None else only
        control[CTRL_DEFENDER_ROOT] = defender
        control[CTRL_UNKNOWN_FUTILITY] = 0
        account = self.budget           # the problem's (limits.Budget)
        if account.bounded:
            max_nodes, deadline = account.clamp(max_nodes, deadline, self.nodes)
        # Helper threads join a plain search once it has taken PARALLEL_AFTER nodes.
        return self._slices(pos, max_nodes, deadline, max_depth, salt, rule,
                            self.threads > 1 and not rule)

    def _slices(self, pos, max_nodes, deadline, max_depth, salt, rule, parallel):
        """search()'s loop of slices, with helper threads (a _Crew) when `parallel`."""
        control = self.control
        account = self.budget
        progress = account.progress
        spent = 0
        crew = None
        try:
            while True:
                if crew is not None and crew.running and (
                        (self.clusters < self.total_clusters
                         and self.nodes >= self.clusters * CLUSTER)
                        or (max_nodes is not None and max_nodes - spent - crew.outstanding() <= 0)):
                    # The table is to grow (not while others use it), or the caller's share
                    # of the node limit is spent: the helpers stop here.
                    extra = crew.pause()
                    spent += extra
                    self.nodes += extra
                room = max_nodes - spent if max_nodes is not None else None
                if room is not None and room <= 0:
                    return 1, 1, "node limit", -1
                grow_room = None
                if self.clusters < self.total_clusters:
                    # The slice ends where the table grows: when the nodes reach its slots.
                    # (Growing first touches new memory, which can take a good part of a
                    # second: the clock is read after it.)
                    if self.nodes >= self.clusters * CLUSTER:
                        self.grow()
                    grow_room = self.clusters * CLUSTER - self.nodes
                control[CTRL_NO_DEPTH_TERM] = self.nodes >= DEPTH_TERM_NODES
                if parallel and spent >= PARALLEL_AFTER:
                    if crew is None:
                        crew = _Crew(self, pos, salt, max_depth)
                    if not crew.running and (room is None
                                             or room >= MIN_SLICE_NODES * self.threads):
                        crew.start(room, grow_room)
                # `budget`: this slice's nodes (the caller's thread's share, with helpers)
                budget = SLICE_NODES
                if room is not None:
                    budget = min(budget, room - (crew.outstanding() if crew is not None else 0))
                if grow_room is not None:
                    helpers = crew.running if crew is not None else 0
                    budget = min(budget, grow_room // (1 + helpers))
                budget = max(1, budget)
                if deadline is not None:
                    now = time.perf_counter()
                    if now >= deadline:
                        return 1, 1, "time limit", -1
                    if self._nps is not None:
                        budget = min(budget, max(MIN_SLICE_NODES, int(
                            self._nps * min(deadline - now, DEADLINE_SLICE))))
                started = time.perf_counter() if deadline is not None else None
                pn, dn, n, stop, length = dfpn_search(pos.board, pos.hands, pos.state, *self.table,
                                                      salt, self.salt, int(rule), max_depth, budget,
                                                      control, self.work)
                if started is not None and n >= MIN_SLICE_NODES:
                    elapsed = time.perf_counter() - started
                    if elapsed > 0:
                        self._nps = n / elapsed         # (one thread's speed)
                if crew is not None:
                    n += crew.take_nodes()
                    if crew.settled and not self._stop_asked:
                        # A helper settled the root and stopped this slice: the next one
                        # reads the result from the table (and the line with it).
                        control[CTRL_STOP] = 0
                        n = max(n, 1)
                spent += n
                self.nodes += n
                if progress is not None:
                    progress(account.phase, self.nodes, time.perf_counter() - account.start)
                if pn == 0 or dn == 0:
                    return pn, dn, None, length
                if stop == STOP_DEPTH:
                    return pn, dn, "depth limit", -1
                if control[CTRL_STOP] and (crew is None or self._stop_asked):
                    # (With a crew, only a stop asked for: a helper that settles the root
                    # also stops the caller's slice, see above.)
                    return pn, dn, "interrupted", -1
                if deadline is not None and time.perf_counter() >= deadline:
                    return pn, dn, "time limit", -1
                if n == 0:
                    return pn, dn, "no progress", -1
        finally:
            if crew is not None:
                self.nodes += crew.end()

    @property
    def unknown_futility(self):
        """After a rule-mode search: how many interpositions of unknown futility it met
        (a rule proof holds only if none; see dfpn.RULE_KEEP)."""
        return int(self.control[CTRL_UNKNOWN_FUTILITY])

    def pending_paths(self):
        """After a rule-mode search: the USI paths (from its root) to the interpositions
        whose futility was not known, as many as were kept."""
        kept = min(self.unknown_futility, PENDING_PATHS)
        return [to_usi(self.pending[k, 1:1 + self.pending[k, 0]])
                for k in range(kept)]

    def probe(self, pos, attacker, salt=None):
        """The table's entry for pos (main namespace, or `salt`'s), or None."""
        out = np.zeros(LOOK_SIZE, dtype=np.int64)
        if not probe(*self.table, self.salt if salt is None else salt, pos.board, pos.hands,
                     pos.state, attacker, out):
            return None
        return Entry(int(out[LOOK_PN]), int(out[LOOK_DN]), int(out[LOOK_LEN]), int(out[LOOK_HAND]))

    def proof_length(self, pos, attacker, salt=None):
        """The stored proof's mate length bound of pos (main namespace, or `salt`'s),
        None if no proof is stored."""
        entry = self.probe(pos, attacker, salt)
        return entry.length if entry is not None and entry.pn == 0 else None

    def store(self, pos, attacker, proven, length=NO_LIMIT, salt=None):
        """Record in the main namespace (or `salt`'s) a result settled outside the
        search: proven (mate within `length` plies, a true bound) or disproven (no mate
        at all), for the attacker's hand of pos."""
        pn, dn = (0, INF) if proven else (INF, 0)
        self.control[CTRL_FRESH_SALT] = 0          # the namespace is no longer empty
        # A large effort: these are read by later searches that cannot redo them (the
        # rule mode), so a cluster full of the searches' own results keeps them.
        store(*self.table, self.salt if salt is None else salt, pos.board, pos.hands,
              pos.state, attacker, pn, dn, length if proven else NO_LIMIT, 1 << 24)

    def proven(self, pos, attacker, max_nodes=100_000, within=NO_LIMIT, deadline=None):
        """A bound on the mate length if pos is proven mate for the attacker within
        `within` plies, searching a little (depth-limited) if the table lost it; None
        if it is not proven."""
        length = self.proof_length(pos, attacker)
        if length is not None and length <= within:
            return length
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
        return None if moves is None else to_usi(moves)

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
        return (None, None) if line is None else (to_moves(line)[:len(line)], None)

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
                    length = self.proof_length(child, attacker)
                    if length is not None and length <= left - 1:
                        scored.append((length, move))
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


class _Helper:
    """A helper thread's own search state (_Crew): work arrays, control and position."""

    def __init__(self):
        self.work = new_workspace()
        self.control = np.zeros(CONTROL_SIZE, dtype=np.int64)
        self.control[CTRL_VARIANT] = 1
        self.board = self.hands = self.state = None
        self.nodes = 0              # searched in this solver's crews, in all
        self.base = 0               # ... when the current run started


class _Crew:
    """The helper threads of one search (Solver.threads - 1 of them): each searches the
    same root in slices of its own, with its own work arrays, control and copy of the
    position, until the search ends, pauses (the table grows) or one settles the root.
    Their nodes count as the search's (take_nodes)."""

    def __init__(self, solver, pos, salt, max_depth):
        self.solver, self.pos, self.salt, self.max_depth = solver, pos, salt, max_depth
        while len(solver._helpers) < solver.threads - 1:
            solver._helpers.append(_Helper())
        self.helpers = solver._helpers[:solver.threads - 1]
        self.taken = sum(helper.nodes for helper in self.helpers)
        self.threads = []
        self.settled = False
        self.allowance = None       # nodes each helper may take since start()
        self.reserved = 0           # ... all of them, under a node limit
        self.run_taken = 0          # helper nodes taken since start()

    @property
    def running(self):
        """How many helper threads were started and not yet paused."""
        return len(self.threads)

    def start(self, room, grow_room):
        """Start the helpers (the caller's search is between two slices). `room`: the
        search's nodes left (None: no limit), `grow_room`: the nodes until the table
        grows (None: it will not); each thread's share of the less is its allowance."""
        solver, pos, control = self.solver, self.pos, self.solver.control
        threads = len(self.helpers) + 1
        limits = [r // threads for r in (room, grow_room) if r is not None]
        self.allowance = max(1, min(limits)) if limits else None
        # What the node limit keeps for the helpers until they pause (outstanding).
        self.reserved = self.allowance * len(self.helpers) if room is not None else 0
        self.run_taken = 0
        for helper in self.helpers:
            if helper.board is None or helper.board.shape != pos.board.shape:
                helper.board, helper.hands, helper.state = (pos.board.copy(), pos.hands.copy(),
                                                            pos.state.copy())
            else:
                helper.board[:] = pos.board
                helper.hands[:] = pos.hands
                helper.state[:] = pos.state
            mine = helper.control
            mine[CTRL_STOP] = int(solver._stop_asked)
            mine[CTRL_UNKNOWN_FUTILITY] = 0
            mine[CTRL_FRESH_SALT] = 0           # the caller's search has stored in it
            mine[CTRL_WANT_LINE] = 0
            mine[CTRL_NO_DEPTH_TERM] = control[CTRL_NO_DEPTH_TERM]
            mine[CTRL_COUNT_CHECKS] = control[CTRL_COUNT_CHECKS]
            mine[CTRL_ROOT_MOVE] = control[CTRL_ROOT_MOVE]
            mine[CTRL_DEFENDER_ROOT] = control[CTRL_DEFENDER_ROOT]
            if control[CTRL_PATH_SALT] == self.salt:
                mine[CTRL_PATH_SALT] = self.salt
            helper.base = helper.nodes
        self.threads = [threading.Thread(target=self._run, args=(helper,), daemon=True)
                        for helper in self.helpers]
        for thread in self.threads:
            thread.start()

    def outstanding(self):
        """Nodes the running helpers may still take under the node limit."""
        return max(0, self.reserved - self.run_taken) if self.threads else 0

    def _run(self, helper):
        solver = self.solver
        table = solver.table        # (the table does not grow while helpers run)
        while not helper.control[CTRL_STOP]:
            budget = SLICE_NODES if self.allowance is None else min(
                SLICE_NODES, self.allowance - (helper.nodes - helper.base))
            if budget <= 0:
                return
            pn, dn, n, _, _ = dfpn_search(helper.board, helper.hands, helper.state, *table,
                                          self.salt, solver.salt, 0, self.max_depth, budget,
                                          helper.control, helper.work)
            helper.nodes += n
            if pn == 0 or dn == 0:
                self.settled = True
                solver.control[CTRL_STOP] = 1     # the caller's slice ends: it reads it
                return
            if n == 0:
                return

    def take_nodes(self):
        """The helpers' nodes since the last call."""
        total = sum(helper.nodes for helper in self.helpers)
        fresh, self.taken = total - self.taken, total
        self.run_taken += fresh
        return fresh

    def pause(self):
        """Stop the helpers and wait for them (start() sets them going again); returns
        their nodes not yet taken."""
        for helper in self.helpers:
            helper.control[CTRL_STOP] = 1
        for thread in self.threads:
            thread.join()
        self.threads = []
        control = self.solver.control
        for helper in self.helpers:
            if helper.control[CTRL_PATH_SALT] == self.salt:
                control[CTRL_PATH_SALT] = self.salt
        return self.take_nodes()

    def end(self):
        """Stop the helpers for good; returns their nodes not yet taken."""
        extra = self.pause()
        if self.settled and not self.solver._stop_asked:
            self.solver.control[CTRL_STOP] = 0
        return extra


def search_is_compiled():
    """Is the compiled search in numba's cache on disk? Not on the first run after
    installing (or after an edit of dfpn.py): the first solve then compiles it, about
    40-60 s. Reads a numba internal; another numba layout counts as compiled (no notice)."""
    try:
        return os.path.exists(dfpn_search._cache._cache_file._index_path)
    except AttributeError:
        return True


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
