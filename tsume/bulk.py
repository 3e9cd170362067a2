"""Many proofs in one compiled call: the proof-only path of pipeline.solve_many.

A short problem's proof is a few microseconds of search, and called one by one from
Python each problem also pays the call, numba's dispatch (every array argument is
type-checked and unpacked) and the Python around it. ``prove_many`` takes the
positions stacked (boards int8[N, 81], hands int64[N, 2], states int64[N, STATE_SIZE])
and searches them in one call, each exactly as Solver.search would: a salt of its own
(``salts[i]``, fresh as Solver.new_problem's, so no problem sees another's entries:
tt.py's generations), the same slices of nodes, starting in the table's first
FIRST_CLUSTERS clusters and growing as Solver.grow does. Per problem it writes a row
of ``out`` (O_* columns) and the mating line into ``lines[i]``.

What it does not finish it hands back, returning at that problem with the table and
the workspace as the search left them, so that the Python side goes on with the
ordinary path (pipeline._settle) where the kernel stopped, with no search repeated:
a problem still unsettled after ``handoff`` nodes (the Solver's slices then go on,
between which Python sees the time and Ctrl-C), or a proof whose line is longer than
``lines`` holds or was not read.

Compiled on first use only (solve_many imports this module): its cache holds its own
copy of the search, which the plain solve path does not need.
"""
import numpy as np
from numba import njit

from .dfpn import (CTRL_COUNT_CHECKS, CTRL_DEFENDER_ROOT, CTRL_NO_DEPTH_TERM, CTRL_FRESH_SALT,
                   CTRL_ROOT_MOVE, CTRL_STOP, CTRL_UNKNOWN_FUTILITY, CTRL_WANT_LINE, LINE_HAND,
                   LINE_LEN, STOP_DEPTH, _carve, _search)
from .solver import DEPTH_TERM_NODES, FIRST_CLUSTERS, GROWTH, SLICE_NODES
from .tt import CLUSTER, NO_LIMIT, tt_grow

# The columns of `out`, one row per problem.
O_PN, O_DN = 0, 1        # the root's numbers: pn 0 proven, dn 0 disproven
O_NODES = 2              # nodes searched
O_LENGTH = 3             # the proof's mate length bound (or a disproof's depth), else -1
O_LINE = 4               # plies of the mating line in lines[i]
O_HAND = 5               # the attacker's packed hand at the line's end
O_REASON = 6             # why unsettled: one of REASONS' indices (0: settled)
O_CLUSTERS = 7           # the table clusters the search ended in (see Solver.use_clusters)
OUT_SIZE = 8
# O_REASON's codes, the reasons Solver.search gives.
REASONS = (None, "node limit", "depth limit", "no progress", "interrupted")
R_NODES, R_DEPTH, R_NO_PROGRESS, R_INTERRUPTED = 1, 2, 3, 4
# prove_many's second return value: why it stopped at the problem it returns.
HANDOFF_NONE = 0         # that problem is not begun (or there is none left)
HANDOFF_SEARCH = 1       # unsettled after `handoff` nodes: its search goes on in Python
HANDOFF_LINE = 2         # proven, its line not in `lines` (too long, or not read)

# solve_many's use of it: problems stacked per call, the plies a row of `lines` holds,
# the nodes after which a problem goes on in Python (where the time and Ctrl-C are
# seen between slices, as in solve()), and the nodes after which a call returns.
CHUNK = 512
LINE_PLIES = 64
HANDOFF_NODES = SLICE_NODES
CALL_NODES = SLICE_NODES

# Typed values, not literals: _search called with a literal 0 was compiled a second
# time for it (dfpn.py's note), which cost the kernel's first use about 20 s more.
_0 = np.int64(0)
_NO_LIMIT = np.int64(NO_LIMIT)


@njit(cache=True, _nrt=False)
def prove_many(boards, hands, states, keys, thands, vals, salts, start, max_nodes, handoff,
               call_nodes, control, work, out, lines):
    """Prove problems start, start + 1, ... (see the module's note); `keys, thands, vals`
    are the whole table (Solver.full_table). Each problem may take `max_nodes` nodes.
    Returns (the first problem not finished, HANDOFF_*): the kernel stops at a problem
    it hands back, and after the problem that brings this call's nodes to
    `call_nodes`. The positions are left as they were."""
    total = keys.shape[0] // CLUSTER
    first = min(FIRST_CLUSTERS, total)
    # (Carved once: dfpn_search would carve them at every slice.)
    (pending, work_moves, work_pn, work_dn, work_hand, work_len, work_rep, work_next, work_wait,
     frames, move_bufs, on_path, line_moves, small) = _carve(work)
    width = lines.shape[1]
    spent = _0
    for i in range(start, boards.shape[0]):
        board, hand, state = boards[i], hands[i], states[i]
        salt = salts[i]
        row = out[i]
        # Solver.new_problem and Solver.search's set-up, for a problem begun afresh.
        control[CTRL_FRESH_SALT] = salt
        control[CTRL_WANT_LINE] = 1
        control[CTRL_UNKNOWN_FUTILITY] = 0
        control[CTRL_ROOT_MOVE] = 0
        control[CTRL_DEFENDER_ROOT] = 0
        clusters = first
        nodes = _0
        pn = dn = np.int64(1)
        length = np.int64(-1)
        reason = 0
        handed = False
        while True:
            # Solver.search's slices, without the clock: the same boundaries, so the
            # same search node for node.
            budget = min(SLICE_NODES, max_nodes - nodes)
            if budget <= 0:
                reason = R_NODES
                break
            if clusters < total:
                if nodes >= clusters * CLUSTER:
                    grown = min(clusters * GROWTH, total)
                    tt_grow(keys, thands, vals, clusters, grown)
                    clusters = grown
                budget = min(budget, clusters * CLUSTER - nodes)
            control[CTRL_NO_DEPTH_TERM] = nodes >= DEPTH_TERM_NODES
            control[CTRL_COUNT_CHECKS] = 0
            size = clusters * CLUSTER
            pn, dn, n, stop, length = _search(board, hand, state, keys[:size], thands[:size],
                                              vals[:size], salt, salt, _0, _NO_LIMIT, budget,
                                              control, pending, work_moves, work_pn, work_dn,
                                              work_hand, work_len, work_rep, work_next, work_wait,
                                              frames, move_bufs, on_path, line_moves, small)
            nodes += n
            if pn == 0 or dn == 0:
                break
            length = -1
            if stop == STOP_DEPTH:
                reason = R_DEPTH
                break
            if control[CTRL_STOP] != 0:
                reason = R_INTERRUPTED
                break
            if n == 0:
                reason = R_NO_PROGRESS
                break
            if nodes >= handoff:
                handed = True
                break
        spent += nodes
        row[O_PN] = pn
        row[O_DN] = dn
        row[O_NODES] = nodes
        row[O_LENGTH] = length
        row[O_REASON] = reason
        row[O_CLUSTERS] = clusters
        row[O_LINE] = 0
        if handed:
            return i, HANDOFF_SEARCH
        if pn == 0:
            plies = small[LINE_LEN]
            if plies == 0 or plies > width:
                return i, HANDOFF_LINE
            for k in range(plies):
                lines[i, k] = line_moves[k]
            row[O_LINE] = plies
            row[O_HAND] = small[LINE_HAND]
        if spent >= call_nodes or reason == R_INTERRUPTED:
            return i + 1, HANDOFF_NONE
    return boards.shape[0], HANDOFF_NONE
