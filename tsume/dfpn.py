"""df-pn search (Nagai 2002) with the 1+ε threshold trick, compiled with numba.

OR nodes: the attacker to move, children = checking moves. AND nodes: the defender to
move, children = every legal reply. pn/dn of a node are read from its children, which
live in per-ply frame arrays while the node is on the search path, and in the
transposition table (tt.py) otherwise. The recursion of the textbook MID() is an
explicit stack (frame arrays indexed by ply), so deep problems cannot overflow any
stack, and the search stops cleanly at a node or depth limit or when a stop flag is
raised from another thread (control[CTRL_STOP] != 0), leaving the position as it was.

Repetition (SPEC §1.6): a child that repeats a position of the current path is a
failure for the attacker *on this path only*; so is the attacker back on a board of the
path with no piece it did not hold there (a mate from there would have needed no
loop). A disproof that depends on one is never written to the table as the position's
result (the GHI problem), so a disproof found there is path-independent. It is stored
under a key of the set of the path's positions (_path_key, _path_hash), where only a
search that comes back to it with the same positions on its path finds it: without
that, such a search derived it again every time, which kept 無双73 (no mate as
transcribed) unsolved after 350M nodes. Proofs never depend on repetitions.
"""
from collections import namedtuple

import numpy as np
from numba import njit
from numba.extending import register_jitable

from .move import DROP_BASE, PROMOTE_FLAG, is_drop, is_promotion, move_from, move_to
from .movegen import (EVERY_REPLY, FIRST_REPLY, MAX_MOVES, attacked, check_moves, do_move,
                      emit_moves, evasions, hand_count, key_after, mate_in_one, quick_mate_in_one,
                      sole_checker, undo_move)
from .pieces import BISHOP, DIRECTION_TO, HAND_MASK, HAND_SHIFT, HAND_MIX, PAWN, ROOK, STEP
from .state import KEY, KING_SQ, SIDE
from .tt import (INF, LOOK_DN, LOOK_HAND, LOOK_LEN, LOOK_PN, LOOK_SIZE, NO_LIMIT, hand_covers,
                 tt_lookup, tt_prefetch, tt_store)

MAX_PLY = 2048
# A new defender node with at most this many replies gets a 2-ply check (every reply
# allows a mate in one?), with quick_mate_in_one (set tests before playing a check
# out; it can miss a mate, never invent one). More replies cost more than they save.
# The root gets a mate-in-3 check once per search (_root_mate_in_three): its checks by
# number of replies, fewest first, until one has every reply mated in one.
FIXED_DEPTH_REPLIES = 1
# The root's mate in three counts each check's replies only up to COUNT_UPTO (more
# sort as that many, in generation order): a short problem's mating check mostly has
# few replies, and the count then stops before the long tail of interpositions.
COUNT_UPTO = np.int64(3)
# A new defender node's first proof number is its number of replies plus one for
# every 2**DEPTH_SHIFT plies of depth, at most DEPTH_CAP: a line of forcing checks with
# single replies then no longer looks as cheap as a short mate, which the search used
# to prove only after a long mate down such a line. Long proofs pay for it too, so a
# problem whose searches have taken many nodes turns it off (CTRL_NO_DEPTH_TERM, see
# solver.DEPTH_TERM_NODES). The measured trade-offs: bench/MEASUREMENTS.md.
DEPTH_SHIFT = 3
DEPTH_CAP = 2
# The `rule` argument of dfpn_search: plain shogi rules; 無駄合 by rule D2 (_futility:
# the checker takes the interposed piece, which goes back to the defender, and still
# mates); or by the wider RULE_KEEP, where the attacker keeps the piece it took, so
# that more interpositions are futile and mates are no longer (bench/reasons.py). An
# interposition of unknown futility is a defence under RULE_D2, which keeps its proofs
# sound, and futile under RULE_KEEP, which keeps its disproofs sound (a proof there
# holds only if none was met: control[CTRL_UNKNOWN_FUTILITY] == 0). RULE_D2_DISPROVE is D2
# with an interposition of unknown futility taken as futile: the defender has at most the
# defences it has under D2, so a disproof there says no mate within the depth by D2
# whatever is still unknown (mudaai.py: a shorter mate ruled out in one search).
RULE_PLAIN, RULE_D2, RULE_KEEP, RULE_D2_DISPROVE = 0, 1, 2, 3
# mudaai.py also stores each futility it settles under the position right after the
# interposition (futility_salt): every interposition on one square leaves the same
# board once the checker takes it, so the post-capture entries _futility reads share
# one table cluster and evict each other, while the positions after the interpositions
# differ. Bits 32-39 differ from those of the other namespaces (solver.NAMESPACES), whose
# counters live in bits 40 and up; checker and square go in bits 41-54, since one
# board after two different interpositions (against two sliders) is possible.
FUTILITY_NAMESPACE = np.int64(0x6C6C_13F0) << 32
KEEP_FUTILITY_NAMESPACE = np.int64(0x6C6C_13E1) << 32
STOP_NONE, STOP_NODES, STOP_FLAG, STOP_DEPTH = 0, 1, 2, 3
# The slots of `control`, the int64 array through which the caller steers a search
# and the search answers back (Solver.control):
CTRL_STOP = 0              # caller, any thread: != 0 stops the search at its next node
CTRL_UNKNOWN_FUTILITY = 1  # search: interpositions of unknown futility met (rule mode)
CTRL_PATH_SALT = 2         # search: the namespace that stored path-dependent disproofs
CTRL_FRESH_SALT = 3        # caller: a namespace nothing was stored in yet (0: none)
CTRL_WANT_LINE = 4         # caller: != 0 reads the mating line when the root is proven
CTRL_NO_DEPTH_TERM = 5     # caller: != 0 drops the depth term of first proof numbers
CTRL_COUNT_CHECKS = 6      # caller: != 0 (a search that expects no mate): a new attacker
                           # node's first dn is its number of checks (_evaluate_child)
CTRL_VARIANT = 7           # caller: != 0 for a helper thread's search (see _search)
CTRL_ROOT_MOVE = 8         # caller: != 0 (a check of the root): the root stands for that
                           # check alone (see _search); with CTRL_COUNT_CHECKS, the 余詰
                           # check's question, non-promotions wait (_chain_promotions)
CTRL_DEFENDER_ROOT = 9     # caller: != 0: the root is a defender node (the defender to
                           # move, in check): is he mated?
CONTROL_SIZE = 10
# The rows of the per-ply `frames` array (one column per ply of the search path).
(F_NMOVES, F_THPN, F_THDN, F_BEST, F_CAPTURED, F_PATH, F_TKEY, F_START_NODES, F_CHECKER,
 F_ANCESTORS, F_PHAND) = range(11)
FRAME_ROWS = 11
# Where a search that proved its root leaves a mating line: the moves in the
# workspace's `line_moves`, and in the last work array (`small`) their number (0: none)
# and the attacker's hand at the line's end (Solver.found_line reads them). The root's
# mate in three writes it; else, when the caller asks (CTRL_WANT_LINE), the search reads
# it out of the table before returning (_read_line).
LINE_LEN, LINE_HAND = 89, 90
_FULL_MIX = HAND_MIX[0]
# Constants handed to other compiled functions are typed values, not Python literals:
# numba compiles a callee once per literal argument value it is called with, which
# had cost seconds of first-run compile time (the same function compiled up to five
# times).
_0, _1, _2 = np.int64(0), np.int64(1), np.int64(2)
_NO_LIMIT = np.int64(NO_LIMIT)
_YES, _NO = np.bool_(True), np.bool_(False)
_PATH_MASK = np.int64(4095)
_PATH_MIX = np.int64(0x1D8E4E27C47D124F)   # odd: mixing is one-to-one
# splitmix64's finalizer in int64 arithmetic (masks make the right shifts logical)
_SPLIT1 = np.int64(-0x40A7B892E31B1A47)    # 0xBF58476D1CE4E5B9
_SPLIT2 = np.int64(-0x6B2FB644ECCEEE15)    # 0x94D049BB133111EB
_LOW34, _LOW37, _LOW33 = np.int64((1 << 34) - 1), np.int64((1 << 37) - 1), np.int64((1 << 33) - 1)


@njit(cache=True, inline="always")
def table_key(state, hands, salt):
    """Key for the table: board key mixed with the sum of both hands (see tt.py), and
    a per-problem salt so that a reused table needs no clearing between problems."""
    return state[KEY] ^ ((hands[0] + hands[1]) * _FULL_MIX) ^ salt


@njit(cache=True, _nrt=False)
def hand_union(a, b):
    """Per-kind maximum of two packed hands."""
    out = np.int64(0)
    for k in range(1, 8):
        x = (a >> HAND_SHIFT[k]) & HAND_MASK[k]
        y = (b >> HAND_SHIFT[k]) & HAND_MASK[k]
        out |= max(x, y) << HAND_SHIFT[k]
    return out


@njit(cache=True, _nrt=False)
def interposition_guard(board, hands, state, attacker):
    """Proof pieces an AND node needs whatever its children need: where the defender can
    interpose against the check but holds no piece of a kind, every piece of that kind
    in the attacker's hand is part of the proof (with fewer, the defender would hold
    one and could drop it)."""
    defender = 1 - attacker
    ksq = state[KING_SQ + defender]
    csq = sole_checker(board, state, ksq, attacker)
    if csq < 0:
        return np.int64(0)        # double check (or none): nothing to interpose
    d = DIRECTION_TO[ksq, csq]
    if d >= 8 or STEP[ksq, d] == csq:
        return np.int64(0)        # contact or knight check: nothing can be dropped between
    out = np.int64(0)
    dh = hands[defender]
    ah = hands[attacker]
    for k in range(1, 8):
        if (dh >> HAND_SHIFT[k]) & HAND_MASK[k] == 0:
            out |= ah & (HAND_MASK[k] << HAND_SHIFT[k])
    return out


@njit(cache=True, inline="always")
def _hand_kind(piece):
    """The kind a captured piece goes into the hand as (promotion dropped)."""
    k = piece & 15
    return k - 8 if k > 8 else k


@njit(cache=True, _nrt=False)
def _proof_hand_before(move, child_proof, captured):
    """Proof pieces before an attacker move, from those of the position after it."""
    frm = move_from(move)
    if frm > DROP_BASE:
        return child_proof + (np.int64(1) << HAND_SHIFT[frm - DROP_BASE])
    if captured != 0:
        k = _hand_kind(captured)
        if (child_proof >> HAND_SHIFT[k]) & HAND_MASK[k] > 0:
            return child_proof - (np.int64(1) << HAND_SHIFT[k])
    return child_proof


@njit(cache=True, _nrt=False)
def _disproof_hand(board, hands, attacker, or_node, moves, child_hands, child_dn, child_rep,
                   child_len, n, length):
    """Disproof pieces (反証駒) of a disproven node: the largest attacker hand for which
    the disproof still holds (the table then also disproves every hand it holds, not
    just the hand of this position), from those of its children, with the position
    as it is at this node. A larger attacker hand means a smaller defender hand, since
    the two share the pieces off the board.
    OR node (every check disproven): more pieces of a kind the attacker already holds
    give it no new check, but one piece of a kind it lacks would give new drops; and
    each check's child must stay disproven (a drop used one piece, a capture added one).
    AND node: the reply that disproves it, whose child's pieces hold."""
    ah = hands[attacker]
    dh = hands[1 - attacker]
    if or_node:
        out = np.int64(0)
        for k in range(1, 8):
            if hand_count(ah, k):
                out |= (hand_count(ah, k) + hand_count(dh, k)) << HAND_SHIFT[k]
        for i in range(n):
            m = moves[i]
            d = child_hands[i]
            frm = move_from(m)
            if frm > DROP_BASE:
                d += np.int64(1) << HAND_SHIFT[frm - DROP_BASE]
            elif board[move_to(m)] != 0:
                d -= np.int64(1) << HAND_SHIFT[_hand_kind(board[move_to(m)])]
            out = _hand_min(out, d)
        return out
    best = -1
    for i in range(n):
        if child_dn[i] == 0 and not child_rep[i] and (
                best < 0 or (child_len[best] < length and child_len[i] >= length)):
            best = i
    # (No disproof pieces exceed the pieces off the board, so when the reply is a drop
    # the child's already leave the defender the piece it drops.)
    return child_hands[best] if best >= 0 else ah


@njit(cache=True, _nrt=False)
def _hand_min(a, b):
    """Per-kind minimum of two packed hands."""
    out = np.int64(0)
    for k in range(1, 8):
        out |= min(hand_count(a, k), hand_count(b, k)) << HAND_SHIFT[k]
    return out


@njit(cache=True, _nrt=False)
def _chain_drops(moves, n, nxt, wait, last):
    """Delayed expansion of interposing drops (AND nodes): the drops on one square form
    a chain in which only the first is searched; the next one waits until the one
    before it is proven, so a king with many pieces to interpose does not spread the
    search over all of them at once. Usually the first proof carries over to the rest
    through the table (the interposed piece is captured and the proof pieces do not
    need it)."""
    last[:] = -1
    for i in range(n):
        nxt[i] = -1
        wait[i] = False
        m = moves[i]
        if is_drop(m):
            to = move_to(m)
            if last[to] >= 0:
                nxt[last[to]] = i
                wait[i] = True
            last[to] = i


@njit(cache=True, _nrt=False)
def _chain_promotions(board, moves, n, nxt, wait, delay):
    """Delayed expansion of non-promotions (OR nodes), with `delay` (the 余詰 check's
    question of one alternative: CTRL_ROOT_MOVE with CTRL_COUNT_CHECKS): a pawn, bishop
    or rook move that could promote waits unpromoted until the promotion is disproven,
    so the two are not refuted side by side (their refutations are mostly one). Only
    there, where nearly every answer is no: a classic's key move is often such a
    non-promotion, and so is the mate that makes an interposition futile; either would
    wait for a long disproof of the promotion (bench/MEASUREMENTS.md)."""
    for i in range(n):
        nxt[i] = -1
        wait[i] = False
    if not delay:
        return
    for i in range(1, n):
        m = moves[i]
        if not is_drop(m) and not is_promotion(m) and moves[i - 1] == (m | PROMOTE_FLAG):
            kind = board[move_from(m)] & 15
            if kind == PAWN or kind == BISHOP or kind == ROOK:
                nxt[i - 1] = i
                wait[i] = True


@njit(cache=True, _nrt=False)
def _first_guess(replies, n):
    """pn of a new defender node: its number of replies, the drops on one square
    counted once (they are searched one after another, see _chain_drops)."""
    seen = np.int64(0)
    seen_hi = np.int64(0)
    count = 0
    for i in range(n):
        m = replies[i]
        if is_drop(m):
            to = move_to(m)
            if to < 64:
                bit = np.int64(1) << to
                if seen & bit:
                    continue
                seen |= bit
            else:
                bit = np.int64(1) << (to - 64)
                if seen_hi & bit:
                    continue
                seen_hi |= bit
        count += 1
    return count


@njit(cache=True, inline="always")
def _lookup(keys, thands, vals, key, salt, known_salt, hand, remaining, look):
    """tt_lookup, falling back on a proof or disproof of the `known_salt` namespace
    (its running numbers are not wanted) when this namespace has no final result."""
    found = tt_lookup(keys, thands, vals, key, hand, remaining, look)
    if known_salt == salt or (found and (look[LOOK_PN] == 0 or look[LOOK_DN] == 0)):
        return found
    if tt_lookup(keys, thands, vals, key ^ salt ^ known_salt, hand, remaining, look) and (
            look[LOOK_PN] == 0 or look[LOOK_DN] == 0):
        return True
    return found and tt_lookup(keys, thands, vals, key, hand, remaining, look)


@njit(cache=True, inline="always")
def _path_hash(full_key):
    """A path position's share of the path's key (the XOR of the shares of its
    positions). Position keys are Zobrist keys, linear under XOR: the XOR of a path's
    raw keys is that of its moves, so paths through other positions (the same attacker
    moves in another order around the same replies) shared it, and a disproof that
    rested on a repetition of one was read on the other: wrong 不詰 once the search went
    deep enough into cycles (umanoko, a 353-ply mate, with 5 salts in 150). Mixing each
    key first (splitmix64's finalizer) leaves the XOR a key of the set of positions."""
    x = full_key
    x ^= (x >> 30) & _LOW34
    x *= _SPLIT1
    x ^= (x >> 27) & _LOW37
    x *= _SPLIT2
    x ^= (x >> 31) & _LOW33
    return x


@njit(cache=True, inline="always")
def _path_key(key, path_before):
    """Table key of a result that holds only below the positions of one path (a
    disproof resting on a repetition of one of them): the position's key mixed with
    the XOR of their _path_hash."""
    return key ^ (path_before * _PATH_MIX)


@njit(cache=True, inline="always")
def _path_disproof(keys, thands, vals, key, path_before, hand, remaining, look):
    """Is the position disproven below these path positions, with this very hand?"""
    return tt_lookup(keys, thands, vals, _path_key(key, path_before), hand, remaining, look) \
        and look[LOOK_DN] == 0 and look[LOOK_HAND] == hand


@register_jitable
def futility_salt(known_salt, hand_back, checker, to):
    """The namespace where a settled futility of the interposition on `to` against the
    slider on `checker` is stored for the position after it (see FUTILITY_NAMESPACE):
    proven = futile, disproven = a real defence."""
    ns = FUTILITY_NAMESPACE if hand_back else KEEP_FUTILITY_NAMESPACE
    return known_salt ^ ns ^ (np.int64(checker << 7 | to) << 41)


@njit(cache=True, _nrt=False)
def _futility(board, hands, state, keys, thands, vals, known_salt, checker, to, attacker,
              hand_back, scratch, look):
    """Rule mode (無駄合, SPEC §2.4 rule D2). The defender has just interposed on `to`
    against the slider on `checker`; attacker to move. The interposition is futile when
    the checker can take the piece and, with that piece handed back to the defender
    (not under RULE_KEEP: hand_back False), the position is a forced mate. Mate or not
    is read from the `known_salt` namespace (the main search's, where mudaai.py stores
    what it settles), first as the verdict stored for this position (futility_salt),
    then per capture: 1 futile, 0 a real defence, -1 not known there. The position is
    left as it was."""
    defender = 1 - attacker
    if tt_lookup(keys, thands, vals, table_key(state, hands, futility_salt(known_salt, hand_back,
                                                                           checker, to)),
                 hands[attacker], _NO_LIMIT, look):
        if look[LOOK_PN] == 0:
            return 1
        if look[LOOK_DN] == 0:
            return 0
    n = emit_moves(scratch, 0, checker, to, board[checker], attacker)
    status = 0
    unknown = False
    for i in range(n):
        m = scratch[i]
        cap = do_move(board, hands, state, m)
        if (state[KING_SQ + attacker] >= 0 and attacked(board, state, state[KING_SQ + attacker], defender)) \
                or not attacked(board, state, state[KING_SQ + defender], attacker):
            # Illegal, or no longer a check (e.g. a lance that promoted): not futile.
            undo_move(board, hands, state, m, cap)
            continue
        k = cap & 15
        if k > 8:
            k -= 8
        piece = (np.int64(1) << HAND_SHIFT[k]) if hand_back else _0
        hands[attacker] -= piece
        hands[defender] += piece
        found = tt_lookup(keys, thands, vals, table_key(state, hands, known_salt), hands[attacker],
                          _NO_LIMIT, look)
        hands[attacker] += piece
        hands[defender] -= piece
        undo_move(board, hands, state, m, cap)
        if found and look[LOOK_PN] == 0:
            status = 1
            break
        if not (found and look[LOOK_DN] == 0):
            unknown = True
    if status == 0 and unknown:
        status = -1
    return status


@njit(cache=True, _nrt=False)
def _distant_checker(board, state, attacker):
    """The square of the attacker's piece checking the defender's king from a distance
    along a line (the only check the 無駄合 rule lets an interposition be futile
    against), or -1: no check, a double check, or one from next to the king or a
    knight's jump away."""
    ksq = state[KING_SQ + 1 - attacker]
    csq = sole_checker(board, state, ksq, attacker)
    if csq < 0:
        return -1
    d = DIRECTION_TO[ksq, csq]
    if d >= 8 or STEP[ksq, d] == csq:
        return -1
    return csq


@njit(cache=True, inline="always")
def _plain_reply(state, attacker, reply, checker):
    """Is reply (of the defender, in check by the distant `checker`, or -1) a defence
    under any 無駄合 rule: a king move, a capture of the checker, or any reply to a
    check no piece can interpose against?"""
    return checker < 0 or move_from(reply) == state[KING_SQ + 1 - attacker] \
        or move_to(reply) == checker


@njit(cache=True, _nrt=False)
def _any_plain_reply(state, attacker, replies, n, checker):
    """Is one of replies[:n] a _plain_reply?"""
    for j in range(n):
        if _plain_reply(state, attacker, replies[j], checker):
            return True
    return False


@njit(cache=True, _nrt=False)
def _plain_reply_escapes(board, hands, state, attacker, replies, n, buf):
    """Rule mode, a defender node with two plies left (replies[:n]): is there a
    _plain_reply after which every check of the attacker leaves the defender a
    _plain_reply too? Then no rule mates within the two plies (a mate by the rule
    leaves the defender nothing but interpositions, and a plain reply never counts as
    futile). Whatever futility the table knows or not. buf: 2 * MAX_MOVES of room.
    Leaves the position as it was."""
    checker = _distant_checker(board, state, attacker)
    for j in range(n):
        reply = replies[j]
        if not _plain_reply(state, attacker, reply, checker):
            continue
        cap = do_move(board, hands, state, reply)
        escapes = True
        nc = check_moves(board, hands, state, buf)
        answers = buf[MAX_MOVES:]
        for i in range(nc):
            c = buf[i]
            cap_c = do_move(board, hands, state, c)
            ne = evasions(board, hands, state, answers, EVERY_REPLY)
            plain = _any_plain_reply(state, attacker, answers, ne,
                                     _distant_checker(board, state, attacker))
            undo_move(board, hands, state, c, cap_c)
            if not plain:
                escapes = False
                break
        undo_move(board, hands, state, reply, cap)
        if escapes:
            return True
    return False


@njit(cache=True, _nrt=False)
def _replies_all_mated(board, hands, state, keys, thands, vals, generation, salt, attacker, replies,
                       n, buf, quick):
    """Fixed-depth check at a new defender node (the king in check, its replies in
    replies[:n]): does every reply allow a mate in one? Returns the proof pieces of
    the node if so (a mate in two more plies), else -1. The mates found are stored as
    the search would have stored them (the mated position, the mate in one, with their
    proof pieces), so the line can be read back from the table. With `quick` the mates
    are looked for with quick_mate_in_one: it may miss one, so a -1 then proves
    nothing. On success replies[n] holds the first reply's mate (for the root's line).
    The king's steps are asked last: a capture or an interposition escapes a mate in one
    more often, and most calls end at the first reply that escapes."""
    proof = np.int64(0)
    first = np.int32(-1)
    ksq = state[KING_SQ + 1 - attacker]
    for k in range(2 * n):
        j = k % n
        e = replies[j]
        if (move_from(e) == ksq) != (k >= n):
            continue              # (first pass: the other replies; second: the king's)
        cap_e = do_move(board, hands, state, e)
        mate = quick_mate_in_one(board, hands, state, buf) if quick else \
            mate_in_one(board, hands, state, buf)
        if mate < 0:
            undo_move(board, hands, state, e, cap_e)
            return np.int64(-1)
        if j == 0:
            first = mate
        taken = 0 if is_drop(mate) else board[move_to(mate)]
        cap_m = do_move(board, hands, state, mate)
        mated_hand = interposition_guard(board, hands, state, attacker)
        tt_store(keys, thands, vals, generation, table_key(state, hands, salt), mated_hand,
                 _0, INF, _1, _0)
        undo_move(board, hands, state, mate, cap_m)
        mate_hand = _proof_hand_before(mate, mated_hand, taken)
        tt_store(keys, thands, vals, generation, table_key(state, hands, salt), mate_hand,
                 _0, INF, _1, _1)
        proof = hand_union(proof, mate_hand)
        undo_move(board, hands, state, e, cap_e)
    replies[n] = first
    # (The node's own need, asked only now: most calls end at a reply that escapes.)
    return hand_union(proof, interposition_guard(board, hands, state, attacker))


@njit(cache=True, _nrt=False)
def _mated_after_check(board, hands, state, keys, thands, vals, generation, salt, attacker, check,
                       replies, ne, buf, line, small):
    """With the check played and its ne replies in `replies`: does every reply allow a
    mate in one? If so, store the check's position as proven (mate in two more plies)
    and write the line (see _root_mate_in_three). Leaves the position as it was."""
    proof = _replies_all_mated(board, hands, state, keys, thands, vals, generation, salt,
                               attacker, replies, ne, buf, _NO)
    if proof < 0:
        return False
    tt_store(keys, thands, vals, generation, table_key(state, hands, salt), proof, _0, INF,
             1 + 2 * ne, _2)
    reply = replies[0]
    mate = replies[ne]           # (left there by _replies_all_mated)
    cap_e = do_move(board, hands, state, reply)
    cap_m = do_move(board, hands, state, mate)
    small[LINE_HAND] = hands[attacker]
    undo_move(board, hands, state, mate, cap_m)
    undo_move(board, hands, state, reply, cap_e)
    small[LINE_LEN] = 3
    line[0] = check
    line[1] = reply
    line[2] = mate
    return True


@njit(cache=True, inline="always")
def _tried_check(board, hands, state, keys, thands, vals, generation, salt, attacker, check,
                 replies, ne, buf, line, small, guess):
    """_mated_after_check of the root's check `check`, played, with its ne replies; if
    it fails and `guess`, the check's position is stored with the first numbers the
    root's expansion would give it (_evaluate_child: its replies as _first_guess counts
    them, dn 1), which the 2-ply check that just failed would not have changed."""
    if _mated_after_check(board, hands, state, keys, thands, vals, generation, salt, attacker,
                          check, replies, ne, buf, line, small):
        return True
    if guess:
        tt_store(keys, thands, vals, generation, table_key(state, hands, salt), hands[attacker],
                 _first_guess(replies, ne), _1, _1, _0)
    return False


@njit(cache=True, _nrt=False)
def _root_mate_in_three(board, hands, state, keys, thands, vals, generation, salt, known_salt,
                        attacker, moves, n, counts, replies, buf, look, fresh, line, small,
                        guess):
    """The root's 2-ply check: is there a check after which every reply allows a mate in
    one? The checks are tried by their number of replies (up to COUNT_UPTO), fewest
    first, and the first that succeeds is stored in the table. Returns its index, or
    that of a check that mates at once, or -1. A check with one reply is tried as soon
    as its replies are counted, while it is still played (two in three yo_mate3 mates
    begin with one), and once one succeeds the checks not counted yet are only asked
    whether they mate at once. Checks already in the table are left to the search;
    with `fresh` (nothing stored in this namespace yet, and no other to read) the table
    is not looked at: every lookup would be a cache miss that finds nothing. With
    `guess` (more than two plies left below the root's checks, so that the 2-ply check
    does not decide them), a check that fails is stored with the first numbers the
    root's expansion would give it (_tried_check): the expansion then reads them
    instead of generating its replies again and repeating the 2-ply check that has just
    failed. `counts` is scratch room for n numbers. On success line[0..2] <- the check,
    its first reply, that reply's mate, and small[LINE_LEN], small[LINE_HAND] <- 3, the
    attacker's hand after them: a mating line made of generated moves (mate by
    construction), so the caller need not read one out of the table. The position is
    left as it was."""
    # Counted from the first drop on, round to the board moves: a short mate more
    # often begins with a drop, and the first check with one reply that mates ends
    # the count.
    start = 0
    while start < n and not is_drop(moves[start]):
        start += 1
    counted = 0              # checks whose replies are counted so far
    best = -1                # the check proven
    while best < 0:
        while counted < n and best < 0:
            i = (start + counted) % n
            counted += 1
            cap = do_move(board, hands, state, moves[i])
            if not fresh and _lookup(keys, thands, vals, table_key(state, hands, salt), salt,
                                     known_salt, hands[attacker], _NO_LIMIT, look):
                counts[i] = MAX_MOVES
            else:
                counts[i] = evasions(board, hands, state, replies, COUNT_UPTO)
                if counts[i] == 0:
                    undo_move(board, hands, state, moves[i], cap)
                    return i               # a mate in one: the search proves it at once
                if counts[i] == 1:
                    # (Its one reply is in `replies` already: tried here and now.)
                    counts[i] = MAX_MOVES
                    if _tried_check(board, hands, state, keys, thands, vals, generation, salt,
                                    attacker, moves[i], replies, 1, buf, line, small, guess):
                        best = i
            undo_move(board, hands, state, moves[i], cap)
        if best < 0:
            # Every check counted and none with one reply mates: the fewest replies next.
            for i in range(n):
                if counts[i] < MAX_MOVES and (best < 0 or counts[i] < counts[best]):
                    best = i
            if best < 0:
                return -1
            j = best
            counts[j] = MAX_MOVES
            cap = do_move(board, hands, state, moves[j])
            ne = evasions(board, hands, state, replies, EVERY_REPLY)
            if not _tried_check(board, hands, state, keys, thands, vals, generation, salt,
                                attacker, moves[j], replies, ne, buf, line, small, guess):
                best = -1
            undo_move(board, hands, state, moves[j], cap)
    # The checks not counted yet are only asked whether they mate at once.
    for c in range(counted, n):
        i = (start + c) % n
        cap = do_move(board, hands, state, moves[i])
        mate = evasions(board, hands, state, replies, FIRST_REPLY) == 0
        undo_move(board, hands, state, moves[i], cap)
        if mate:
            return i
    return best


@njit(cache=True, inline="always")
def _keep_only(moves, n, move):
    """moves[:n] cut to `move` alone: 1 if it is among them (now moves[0]), else 0."""
    for i in range(n):
        if moves[i] == move:
            moves[0] = move
            return 1
    return 0


@njit(cache=True, inline="always")
def _evaluate_child(board, hands, state, keys, thands, vals, salt, known_salt, attacker,
                    or_node, child_remaining, frames, on_path, ply, i, m, scratch, buf, look,
                    work_pn, work_dn, work_hand, work_len, work_rep, rule, checker,
                    path_before, path_results, depth_cap, count_checks):
    """First values of child i (move m) of the node at `ply`: a repetition of the path
    (or the attacker back on a board of it with no more pieces than then),
    the table's entry (or a final result of the `known_salt` namespace), a disproof
    that holds below this path's positions (path_before: see _path_key; looked for
    only when path_results says this namespace has stored some), a depth cut,
    the answer of the 2-ply check of a new defender node (a mate found when it has a
    forced reply or is a child of the root; mate or no mate when it has two plies
    left), or a first guess (defender: its number of replies, attacker: 1/1). Rule mode
    (checker >= 0: the square of a distant slider checking the king of this AND node):
    a futile interposition is no defence, so it counts as proven at once (length -1:
    it adds no plies); one whose futility is not known counts as a real defence.
    Returns that futility (1, 0, -1: unknown; 0 outside rule mode). Leaves the
    position as it was."""
    generation = np.int32(salt & 0x3FFFFFFF)     # (not a parameter: numba takes at most 30)
    path = frames[F_PATH]
    cap = do_move(board, hands, state, m)
    ck = table_key(state, hands, salt)
    ah = hands[attacker]
    full = ck ^ (ah * HAND_MIX[1])
    rep = False
    if on_path[full & _PATH_MASK] > 0:      # else no position of the path has this key
        j = ply - 1
        while j >= 0:
            if path[j] == full:
                rep = True
                break
            j -= 2
    if not or_node and not rep and not rule and on_path[_PATH_MASK + 1 + (ck & _PATH_MASK)] > 0:
        # The attacker back on a board of the path, to move again, holding no piece it
        # did not hold there: whatever mates from here mated from there, so a shortest
        # mate never goes round this loop. A failure on this path, like a repetition
        # (same keys: the hands' sum is fixed by the board). It saves many nodes on
        # long game positions; the same test for the defender's turn saved nothing more.
        # (Not in rule mode: futility there depends on the defender's hand.)
        j = ply - 1
        while j >= 0:
            if frames[F_TKEY, j] == ck and hand_covers(frames[F_PHAND, j], ah):
                rep = True
                break
            j -= 2
    work_rep[ply, i] = rep
    work_hand[ply, i] = ah
    work_len[ply, i] = 0
    futile = 0
    # (Even where the interposition repeats a position of the path: a futile one is no
    # defence there either, and RULE_KEEP's disproofs hold only if every one that may
    # be futile is taken as futile.)
    if checker >= 0:
        to = move_to(m)
        ksq = state[KING_SQ + 1 - attacker]
        d = DIRECTION_TO[ksq, checker]
        if to != ksq and DIRECTION_TO[ksq, to] == d and DIRECTION_TO[to, checker] == d:
            futile = _futility(board, hands, state, keys, thands, vals, known_salt, checker, to,
                               attacker, rule != RULE_KEEP, scratch, look)
    if futile == 1 or (futile < 0 and rule >= RULE_KEEP):
        work_pn[ply, i] = 0
        work_dn[ply, i] = INF
        work_len[ply, i] = -1
        work_rep[ply, i] = False
    elif rep:
        work_pn[ply, i] = INF
        work_dn[ply, i] = 0
        work_len[ply, i] = NO_LIMIT
    elif not or_node and child_remaining < 1:
        # The attacker would have no ply left: no mate within the limit.
        work_pn[ply, i] = INF
        work_dn[ply, i] = 0
        work_len[ply, i] = child_remaining
    elif _lookup(keys, thands, vals, ck, salt, known_salt, ah, child_remaining, look) and (
            look[LOOK_PN] == 0 or look[LOOK_DN] == 0 or not (path_results and _path_disproof(
                keys, thands, vals, ck, path_before, ah, child_remaining, look[LOOK_SIZE:]))):
        work_pn[ply, i] = look[LOOK_PN]
        work_dn[ply, i] = look[LOOK_DN]
        work_len[ply, i] = look[LOOK_LEN]
        if look[LOOK_PN] == 0 or look[LOOK_DN] == 0:
            work_hand[ply, i] = look[LOOK_HAND]
    elif path_results and _path_disproof(keys, thands, vals, ck, path_before, ah, child_remaining,
                                         look):
        # Disproven before on this very path (a repetition of it): as good as a
        # repetition found now.
        work_pn[ply, i] = INF
        work_dn[ply, i] = 0
        work_len[ply, i] = look[LOOK_LEN]
        work_rep[ply, i] = True
    elif or_node:
        # Child is a defender node: its number of replies is the first guess.
        ne = evasions(board, hands, state, scratch, EVERY_REPLY)
        # At the horizon a reply that no rule calls futile (_plain_reply) escapes in
        # rule mode too (図巧30's rule question within 15 plies: over 2M nodes when
        # every such node was expanded, 1M after).
        if ne > 0 and child_remaining < 2 and (not rule or _any_plain_reply(
                state, attacker, scratch, ne, _distant_checker(board, state, attacker))):
            # Not mate now, and no ply left to mate later. (In rule mode only when some
            # reply is not an interposition: else they may all be futile, and the node
            # must be expanded.)
            work_pn[ply, i] = INF
            work_dn[ply, i] = 0
            work_len[ply, i] = child_remaining
        elif ne == 0:
            ph = interposition_guard(board, hands, state, attacker)
            work_pn[ply, i] = 0
            work_dn[ply, i] = INF
            work_hand[ply, i] = ph
            tt_store(keys, thands, vals, generation, ck, ph, _0, INF, _1, _0)
        else:
            # Two plies left (a depth-limited search near its horizon): the 2-ply check
            # decides the node either way, for less than expanding it would cost.
            # (Not in rule mode: there a reply without a mate in one may still be mated
            # in one by the rule, by a check that leaves only futile interpositions;
            # _plain_reply_escapes asks what can be asked.)
            horizon = child_remaining == 2 and not rule
            proof = np.int64(-1)
            if (ne <= FIXED_DEPTH_REPLIES or horizon) and child_remaining >= 2 \
                    and not rule:
                proof = _replies_all_mated(board, hands, state, keys, thands, vals, generation,
                                           salt, attacker, scratch, ne, buf, not horizon)
            if proof >= 0:
                work_pn[ply, i] = 0
                work_dn[ply, i] = INF
                work_hand[ply, i] = proof
                work_len[ply, i] = 2
                tt_store(keys, thands, vals, generation, ck, proof, _0, INF, 1 + 2 * ne, _2)
            elif horizon or (rule and child_remaining == 2 and _plain_reply_escapes(
                    board, hands, state, attacker, scratch, ne, buf)):
                # A reply with no mate in one: no mate within the two plies left. (In
                # rule mode, a reply that escapes a mate by any rule: see above.)
                work_pn[ply, i] = INF
                work_dn[ply, i] = 0
                work_len[ply, i] = child_remaining
                tt_store(keys, thands, vals, generation, ck, ah, INF, _0, _1, child_remaining)
            else:
                work_pn[ply, i] = _first_guess(scratch, ne) + min(ply >> DEPTH_SHIFT, depth_cap)
                work_dn[ply, i] = 1
    elif not count_checks:
        work_pn[ply, i] = 1
        work_dn[ply, i] = 1
    else:
        # Child is an attacker node, in a search that expects no mate (count_checks,
        # CTRL_COUNT_CHECKS): its number of checks is the first disproof number (an AND
        # node then tries first the reply that leaves the fewest checks, and learns
        # that without expanding every reply), and none is a disproof. (Generating
        # the checks of every new attacker node costs proofs more than it saves them:
        # most of those nodes are expanded anyway.)
        nc = check_moves(board, hands, state, buf)
        if nc == 0:
            dh = ah if rule else _disproof_hand(board, hands, attacker, _YES, buf, work_hand[ply],
                                               work_dn[ply], work_rep[ply], work_len[ply], _0,
                                               _NO_LIMIT)
            work_pn[ply, i] = INF
            work_dn[ply, i] = 0
            work_len[ply, i] = NO_LIMIT
            work_hand[ply, i] = dh
            tt_store(keys, thands, vals, generation, ck, dh, INF, _0, _1, _NO_LIMIT)
        else:
            work_pn[ply, i] = 1
            work_dn[ply, i] = nc
    undo_move(board, hands, state, m, cap)
    return futile


@njit(cache=True, _nrt=False)
def _evaluate_joined_child(board, hands, state, keys, thands, vals, salt, known_salt,
                           attacker, or_node, child_remaining, frames, on_path, ply, i, m, scratch,
                           buf, look, work_pn, work_dn, work_hand, work_len, work_rep, rule,
                           checker, path_before, path_results, depth_cap, count_checks):
    """_evaluate_child for a drop that joins its chain (rare): a call of its own, so
    that dfpn_search holds one inlined copy of _evaluate_child, not two (each copy
    costs seconds of first-run compile time)."""
    return _evaluate_child(board, hands, state, keys, thands, vals, salt, known_salt,
                           attacker, or_node, child_remaining, frames, on_path, ply, i, m, scratch,
                           buf, look, work_pn, work_dn, work_hand, work_len, work_rep, rule,
                           checker, path_before, path_results, depth_cap, count_checks)


@njit(cache=True, inline="always")
def _note_unknown(control, pending, work_moves, best, ply, m):
    """Rule mode: count an interposition of unknown futility and keep its path (the
    moves from the root, the interposition last) while `pending` has room, so that
    the caller can settle it and search again."""
    k = control[CTRL_UNKNOWN_FUTILITY]
    control[CTRL_UNKNOWN_FUTILITY] = k + 1
    if k < pending.shape[0] and ply + 2 <= pending.shape[1]:
        pending[k, 0] = ply + 1
        for p in range(ply):
            pending[k, p + 1] = work_moves[p, best[p]]
        pending[k, ply + 1] = m


@njit(cache=True, _nrt=False, nogil=True)
def dfpn_search(board, hands, state, keys, thands, vals, salt, known_salt, rule, max_depth,
                max_nodes, control, work):
    """The search (_search) with its work arrays carved out of one buffer, `work`
    (new_workspace): a call from Python pays for every array it passes (numba checks
    each one's type and unpacks it), ~0.3 µs of a 3-ply problem's ~10 µs call with the
    14 passed one by one. It releases the GIL (nogil): a Solver's helper threads run it
    beside the caller's (solver._Crew), each with its own work arrays and control."""
    return _search(board, hands, state, keys, thands, vals, salt, known_salt, rule, max_depth,
                   max_nodes, control, *_carve(work))


@njit(cache=True, _nrt=False)
def _search(board, hands, state, keys, thands, vals, salt, known_salt, rule, max_depth,
            max_nodes, control, pending, work_moves, work_pn, work_dn, work_hand, work_len,
            work_rep, work_next, work_wait, frames, move_bufs, on_path, line_moves, small):
    """Search from the position (attacker to move) for a mate within max_depth plies
    (NO_LIMIT: any length). Proofs and disproofs stored under `known_salt` (another
    namespace of the same problem, e.g. the main search's when this one is
    depth-limited; pass `salt` for none) are used where no entry of this one is found:
    they hold whatever the namespace. With `rule` (RULE_D2) futile interpositions are not
    defences (無駄合, see _futility; control[CTRL_UNKNOWN_FUTILITY] counts those whose
    futility was not known, and `pending` keeps the paths to the first of them): a proof is then a
    mate by that rule and its length counts no futile interposition, so such a search
    needs a namespace of its own; so does RULE_KEEP, the same with a wider rule.
    Returns (root pn, root dn, nodes, stop reason, length): length is the proof's mate
    length, or for a disproof the depth it holds to.
    The table keeps everything learned, so a call that stopped at max_nodes can simply
    be called again to continue (control[CTRL_PATH_SALT] remembers whether this namespace
    has stored path-dependent disproofs, see the module's note on repetition).
    A call that proves the root leaves a mating line in the workspace when
    control[CTRL_WANT_LINE] asks for one (see LINE_LEN); control[CTRL_NO_DEPTH_TERM] != 0
    turns off the depth term of first proof numbers (DEPTH_CAP).

    Depth: a proof is stored with its length and used only where that many plies
    remain; a disproof caused by the depth limit is stored with the depth it holds to
    (work_len carries the same for children in the frames)."""
    # (A defender root: the defender to move, so the AND nodes are the even plies.)
    defender_root = control[CTRL_DEFENDER_ROOT] != 0
    attacker = state[SIDE] ^ 1 if defender_root else state[SIDE]
    generation = np.int32(salt & 0x3FFFFFFF)   # entries of this problem (see tt.py)
    # Every buffer comes from the caller (new_workspace): this kernel and all it calls
    # are compiled without numba's reference counting (see movegen.py), so none of
    # them may allocate.
    scratch = move_bufs[0]
    mate_buf = move_bufs[1]      # the 2-ply check's own
    look = small[:2 * LOOK_SIZE]    # (look[LOOK_SIZE:] for a second lookup that keeps the first)
    last_drop = small[2 * LOOK_SIZE:LINE_LEN]
    small[LINE_LEN] = 0
    # Per-ply frames. Each is written at a ply before it is read there, so none is
    # cleared between calls.
    nmoves = frames[F_NMOVES]
    thpn = frames[F_THPN]
    thdn = frames[F_THDN]
    best = frames[F_BEST]
    captured = frames[F_CAPTURED]
    path = frames[F_PATH]
    tkey = frames[F_TKEY]
    start_nodes = frames[F_START_NODES]
    checker = frames[F_CHECKER]      # rule mode: distant slider checker
    ancestors = frames[F_ANCESTORS]  # the path's positions up to this ply as one key (_path_hash)
    phand = frames[F_PHAND]          # the attacker's hand at each ply
    nodes = np.int64(0)
    stop = STOP_NONE
    root_pn = np.int64(1)
    root_dn = np.int64(1)
    root_len = np.int64(-1)

    ply = _0
    thpn[0] = INF - 1
    thdn[0] = INF - 1
    tkey[0] = table_key(state, hands, salt)
    path[0] = tkey[0] ^ (hands[attacker] * HAND_MIX[1])
    ancestors[0] = _path_hash(path[0])
    # Has this namespace stored any disproof under a path key? (Until it has, children
    # need not be looked up there.)
    path_results = control[CTRL_PATH_SALT] == salt
    # Nothing stored in this namespace yet (the caller's word, control[CTRL_FRESH_SALT] ==
    # salt, for its first call after new_problem) and no other namespace to read: lookups
    # before the first store can only miss.
    fresh = (control[CTRL_FRESH_SALT] != 0 and control[CTRL_FRESH_SALT] == salt
             and known_salt == salt)
    control[CTRL_FRESH_SALT] = 0
    # The depth term of a new defender node's first proof number (DEPTH_CAP), unless
    # the caller turned it off (CTRL_NO_DEPTH_TERM: a long search, see
    # solver.DEPTH_TERM_NODES).
    depth_cap = np.int64(0) if control[CTRL_NO_DEPTH_TERM] != 0 else np.int64(DEPTH_CAP)
    count_checks = control[CTRL_COUNT_CHECKS] != 0
    # A helper thread's search (solver.py) takes the last of equally good children, the
    # main one the first: threads on one root then part ways wherever the numbers tie,
    # and each finds in the shared table what the other settled.
    variant = control[CTRL_VARIANT] != 0
    # A root that stands for one of its checks (control[CTRL_ROOT_MOVE]: the 余詰 check
    # asks whether another check than the author's mates, answer.py) searches that
    # check's replies as one defender node. Its results are not the position's, so it
    # is not stored; nor is it a position of the path (keys 0), as if the replies
    # were roots: a line through it again is no repetition. (A path-dependent disproof
    # that a plain search from the same root stored below it still counts the root as
    # on the path: at worst a detour back to it, a 迂回, then goes unreported.)
    only = control[CTRL_ROOT_MOVE]
    if only != 0:
        tkey[0] = _0
        path[0] = _0
    # How many positions of the path fall in each slot (first half: by position key,
    # second half: by board key): a repetition test scans the path only when its slot
    # is taken, not at every child of a long line. All zero between calls (every
    # increment is undone on the way back), so not cleared: 32 KB, the whole L1.
    on_path[path[0] & _PATH_MASK] += 1
    on_path[_PATH_MASK + 1 + (tkey[0] & _PATH_MASK)] += 1
    phand[0] = hands[attacker]
    expand = True
    while True:
        if expand:
            # ---- expand the node at `ply`: generate children, give each a value
            expand = False
            start_nodes[ply] = nodes
            or_node = (ply % 2 == 0) != defender_root
            moves = work_moves[ply]
            if or_node:
                n = check_moves(board, hands, state, moves)
                if ply == 0 and only != 0:
                    n = _keep_only(moves, n, only)
            else:
                n = evasions(board, hands, state, moves, EVERY_REPLY)
            nmoves[ply] = n
            child_remaining = max_depth - ply - 1
            if not or_node:
                _chain_drops(moves, n, work_next[ply], work_wait[ply], last_drop)
                checker[ply] = _distant_checker(board, state, attacker) if rule else -1
            if ply == 0 and or_node and max_depth >= 3 and not rule:
                # (work_len's row is scratch here: the children's values overwrite it.)
                j = _root_mate_in_three(board, hands, state, keys, thands, vals, generation, salt,
                                        known_salt, attacker, moves, n, work_len[0], scratch,
                                        mate_buf, look, fresh, line_moves, small,
                                        max_depth > 3)
                if j > 0:
                    # The proven check first: the expansion below then stops at it.
                    m = moves[j]
                    moves[j] = moves[0]
                    moves[0] = m
            if or_node:
                _chain_promotions(board, moves, n, work_next[ply], work_wait[ply],
                                  count_checks and only != 0)
            for i in range(n):
                if work_wait[ply, i]:
                    work_pn[ply, i] = 1           # placeholders until it joins
                    work_dn[ply, i] = 1
                    work_len[ply, i] = 0
                    work_rep[ply, i] = False
                    continue
                if i + 1 < n:
                    # The next child's table entry is most likely not in the caches:
                    # start loading it while this child is evaluated.
                    next_key, next_hands = key_after(board, hands, state, moves[i + 1])
                    tt_prefetch(keys, next_key ^ (next_hands * _FULL_MIX) ^ salt)
                if _evaluate_child(board, hands, state, keys, thands, vals, salt,
                                   known_salt, attacker, or_node, child_remaining, frames, on_path,
                                   ply, i, moves[i], scratch, mate_buf, look, work_pn, work_dn, work_hand,
                                   work_len, work_rep, rule, -1 if or_node else checker[ply],
                                   ancestors[ply], path_results, depth_cap, count_checks) < 0:
                    _note_unknown(control, pending, work_moves, best, ply, moves[i])
                nodes += 1
                # A child that already settles this node ends the expansion: a mate in
                # one at an OR node (no shorter proof exists), a disproven reply at an
                # AND node. The siblings are never looked at.
                if (work_pn[ply, i] == 0) if or_node else (work_dn[ply, i] == 0):
                    nmoves[ply] = i + 1
                    break

        # ---- the node's own numbers from its children
        n = nmoves[ply]
        or_node = (ply % 2 == 0) != defender_root
        pn = np.int64(INF) if or_node else np.int64(0)
        dn = np.int64(0) if or_node else np.int64(INF)
        b = -1
        second = np.int64(INF)
        for i in range(n):
            if work_wait[ply, i]:
                continue          # a delayed move, not searched yet
            j = work_next[ply, i]
            if j >= 0 and ((work_dn[ply, i] == 0) if or_node else (work_pn[ply, i] == 0)):
                # Its chain predecessor is settled against the side to move here (a
                # drop on that square proven, a promotion disproven): the next joins.
                # (Only a defender node has a distant checker: checker[ply] means
                # nothing at an attacker node.)
                work_next[ply, i] = -1
                work_wait[ply, j] = False
                if _evaluate_joined_child(board, hands, state, keys, thands, vals, salt,
                                          known_salt, attacker, or_node, max_depth - ply - 1,
                                          frames, on_path, ply, np.int64(j), work_moves[ply, j],
                                          scratch, mate_buf, look, work_pn, work_dn, work_hand,
                                          work_len, work_rep, rule,
                                          -1 if or_node else checker[ply], ancestors[ply],
                                          path_results, depth_cap, count_checks) < 0:
                    _note_unknown(control, pending, work_moves, best, ply, work_moves[ply, j])
                nodes += 1
            cp = work_pn[ply, i]
            cd = work_dn[ply, i]
            if or_node:
                dn = min(dn + cd, INF)
                if cp < pn or (variant and cp == pn and cp < INF):
                    second = pn
                    pn = cp
                    b = i
                elif cp < second:
                    second = cp
            else:
                pn = min(pn + cp, INF)
                if cd < dn or (variant and cd == dn and cd < INF):
                    second = dn
                    dn = cd
                    b = i
                elif cd < second:
                    second = cd
        if pn > 0 and dn > 0:
            # Unsettled: kept below INF - 1, the largest threshold, so that the node can
            # always be searched again. (Sums can grow without bound where the graph
            # has cycles; a node stuck at the largest threshold was never entered
            # again, and a root that depended on it made no progress at all.)
            pn = min(pn, INF - 2)
            dn = min(dn, INF - 2)

        if (nodes >= max_nodes or control[CTRL_STOP] != 0) and stop == STOP_NONE:
            stop = STOP_NODES if nodes >= max_nodes else STOP_FLAG

        if pn >= thpn[ply] or dn >= thdn[ply] or pn == 0 or dn == 0 or stop != STOP_NONE:
            # ---- leave the node: store it, hand its numbers to the parent
            proof_hand = hands[attacker]
            length = np.int64(0)
            rep_dep = False
            remaining = max_depth - ply
            if pn == 0:
                if or_node:
                    # proven by the child with the shortest known mate among proven ones
                    bl = np.int64(1) << 40
                    for i in range(n):
                        if work_pn[ply, i] == 0 and work_len[ply, i] < bl:
                            bl = work_len[ply, i]
                            b = i
                    m = work_moves[ply, b]
                    cap_piece = 0
                    to = move_to(m)
                    if not is_drop(m):
                        cap_piece = board[to]
                    proof_hand = _proof_hand_before(m, work_hand[ply, b], cap_piece)
                    length = work_len[ply, b] + 1
                else:
                    proof_hand = interposition_guard(board, hands, state, attacker)
                    for i in range(n):
                        proof_hand = hand_union(proof_hand, work_hand[ply, i])
                        length = max(length, work_len[ply, i] + 1)
            elif dn == 0:
                # Disproof: path-dependent if it rests on a repetition; depth-bounded
                # if it rests on a depth cut (then it holds for `remaining` plies).
                length = NO_LIMIT
                if or_node:
                    for i in range(n):
                        if work_rep[ply, i]:
                            rep_dep = True
                        # (A child's depth bound holds whether or not it also rests on
                        # the path: a disproof found on this path within a depth limit
                        # is no disproof at every depth.)
                        if work_len[ply, i] < NO_LIMIT:
                            length = remaining
                else:
                    rep_dep = True
                    length = remaining
                    for i in range(n):
                        if work_dn[ply, i] == 0 and not work_rep[ply, i]:
                            rep_dep = False
                            if work_len[ply, i] >= NO_LIMIT:
                                length = NO_LIMIT
                if not rule:
                    # (In rule mode a larger hand could make the disproving reply a
                    # futile interposition, so only the hand itself is stored.)
                    proof_hand = _disproof_hand(board, hands, attacker, or_node, work_moves[ply],
                                                work_hand[ply], work_dn[ply], work_rep[ply],
                                                work_len[ply], n, length)
            if ply == 0 and only != 0:
                pass                # (not the position's result: see `only` above)
            elif not rep_dep:
                tt_store(keys, thands, vals, generation, tkey[ply], proof_hand, pn, dn,
                         nodes - start_nodes[ply] + 1, length)
            elif ply > 0:
                # True for this path's positions only: stored under a key that includes
                # them, so that coming back the same way does not search it again.
                tt_store(keys, thands, vals, generation, _path_key(tkey[ply], ancestors[ply - 1]),
                         hands[attacker], pn, dn, nodes - start_nodes[ply] + 1, length)
                path_results = True
                control[CTRL_PATH_SALT] = salt
            if ply == 0:
                root_pn = pn
                root_dn = dn
                root_len = length if (pn == 0 or dn == 0) else -1
                on_path[path[0] & _PATH_MASK] -= 1
                on_path[_PATH_MASK + 1 + (tkey[0] & _PATH_MASK)] -= 1
                break
            # back to the parent
            on_path[path[ply] & _PATH_MASK] -= 1
            on_path[_PATH_MASK + 1 + (tkey[ply] & _PATH_MASK)] -= 1
            ply -= 1
            pb = best[ply]
            undo_move(board, hands, state, work_moves[ply, pb], captured[ply])
            work_pn[ply, pb] = pn
            work_dn[ply, pb] = dn
            work_rep[ply, pb] = rep_dep
            work_len[ply, pb] = length
            if pn == 0 or dn == 0:
                work_hand[ply, pb] = proof_hand
            continue

        # ---- descend into the most promising child
        if ply + 1 >= MAX_PLY - 1:
            stop = STOP_DEPTH
            continue
        best[ply] = b
        if or_node:
            child_thpn = min(thpn[ply], second + second // 4 + 1)
            child_thdn = thdn[ply] - dn + work_dn[ply, b]
        else:
            child_thdn = min(thdn[ply], second + second // 4 + 1)
            child_thpn = thpn[ply] - pn + work_pn[ply, b]
        m = work_moves[ply, b]
        captured[ply] = do_move(board, hands, state, m)
        nodes += 1
        ply += 1
        thpn[ply] = min(child_thpn, INF - 1)
        thdn[ply] = min(child_thdn, INF - 1)
        tkey[ply] = table_key(state, hands, salt)
        path[ply] = tkey[ply] ^ (hands[attacker] * HAND_MIX[1])
        ancestors[ply] = ancestors[ply - 1] ^ _path_hash(path[ply])
        on_path[path[ply] & _PATH_MASK] += 1
        on_path[_PATH_MASK + 1 + (tkey[ply] & _PATH_MASK)] += 1
        phand[ply] = hands[attacker]
        expand = True
    if root_pn != 0 or small[LINE_LEN] != root_len:
        # The root's mate in three is not what proved the root (a mate in one was
        # found after it), or nothing did.
        small[LINE_LEN] = 0
        if root_pn == 0 and control[CTRL_WANT_LINE] != 0 and only == 0 and not defender_root:
            # Read here, not in a call of its own: the entries and the code it needs are
            # still in the caches (on tanuki_generated that was a fifth of solve's
            # time). (The frames, moves and lookup words are free now: scratch.)
            n, end_hand = _read_line(board, hands, state, keys, thands, vals, salt,
                                     line_moves, MAX_PLY - 1, root_len, move_bufs[0], look,
                                     frames[F_NMOVES], frames[F_THPN])
            small[LINE_LEN] = max(n, 0)
            small[LINE_HAND] = end_hand
    return root_pn, root_dn, nodes, stop, root_len


@njit(cache=True, _nrt=False)
def probe(keys, thands, vals, salt, board, hands, state, attacker, out):
    """Table values of the current position: out <- pn, dn, length, hand."""
    return tt_lookup(keys, thands, vals, table_key(state, hands, salt), hands[attacker], _NO_LIMIT, out)


# The work arrays of _search, in the order of its last parameters (the names are
# its parameters'): paths to interpositions of unknown futility (rule mode), the
# children of every ply (moves, pn, dn, hand, length, repetition, drop chain), the
# per-ply frames (F_*), two move buffers, the path's key-slot counters (kept zero by
# the search), a mating line and a few scratch words (lookups, the drop chain's last
# drops, LINE_LEN and LINE_HAND). Each starts on a 64-byte boundary of the one buffer.
PENDING_PATHS = 1024     # rule mode: paths to interpositions of unknown futility kept
_WORK = (("pending", np.int32, (PENDING_PATHS, MAX_PLY + 1)),
         ("work_moves", np.int32, (MAX_PLY, MAX_MOVES)),
         ("work_pn", np.int64, (MAX_PLY, MAX_MOVES)),
         ("work_dn", np.int64, (MAX_PLY, MAX_MOVES)),
         ("work_hand", np.int64, (MAX_PLY, MAX_MOVES)),
         ("work_len", np.int64, (MAX_PLY, MAX_MOVES)),
         ("work_rep", np.bool_, (MAX_PLY, MAX_MOVES)),
         ("work_next", np.int32, (MAX_PLY, MAX_MOVES)),
         ("work_wait", np.bool_, (MAX_PLY, MAX_MOVES)),
         ("frames", np.int64, (FRAME_ROWS, MAX_PLY)),
         ("move_bufs", np.int32, (2, 2 * MAX_MOVES)),
         ("on_path", np.int32, (2 * (_PATH_MASK + 1),)),
         ("line_moves", np.int32, (MAX_PLY,)),
         ("small", np.int64, (LINE_HAND + 1,)))
Workspace = namedtuple("Workspace", [name for name, _, _ in _WORK])


def _work_layout():
    starts, ends, at = [], [], 0
    for _, dtype, shape in _WORK:
        at = (at + 63) // 64 * 64
        starts.append(at)
        at += int(np.prod(shape)) * np.dtype(dtype).itemsize
        ends.append(at)
    return tuple(starts), tuple(ends), at


_START, _END, _WORK_BYTES = _work_layout()
(_S0, _S1, _S2, _S3, _S4, _S5, _S6, _S7, _S8, _S9, _S10, _S11, _S12, _S13) = _START
(_E0, _E1, _E2, _E3, _E4, _E5, _E6, _E7, _E8, _E9, _E10, _E11, _E12, _E13) = _END
_SHAPES = tuple(shape for _, _, shape in _WORK)     # (_carve reads the shapes from _WORK)


@njit(cache=True, inline="always")
def _carve(work):
    """Views of the work arrays in `work` (see _WORK; no copy, no allocation)."""
    return (work[_S0:_E0].view(np.int32).reshape(_SHAPES[0]),
            work[_S1:_E1].view(np.int32).reshape(_SHAPES[1]),
            work[_S2:_E2].view(np.int64).reshape(_SHAPES[2]),
            work[_S3:_E3].view(np.int64).reshape(_SHAPES[3]),
            work[_S4:_E4].view(np.int64).reshape(_SHAPES[4]),
            work[_S5:_E5].view(np.int64).reshape(_SHAPES[5]),
            work[_S6:_E6].view(np.bool_).reshape(_SHAPES[6]),
            work[_S7:_E7].view(np.int32).reshape(_SHAPES[7]),
            work[_S8:_E8].view(np.bool_).reshape(_SHAPES[8]),
            work[_S9:_E9].view(np.int64).reshape(_SHAPES[9]),
            work[_S10:_E10].view(np.int32).reshape(_SHAPES[10]),
            work[_S11:_E11].view(np.int32),
            work[_S12:_E12].view(np.int32),
            work[_S13:_E13].view(np.int64))


def new_workspace():
    """The one buffer of dfpn_search's work arrays, zeroed (the pending paths and the
    path's slot counters must start at zero)."""
    return np.zeros(_WORK_BYTES, dtype=np.uint8)


def workspace_views(work):
    """The work arrays of `work` as a Workspace of numpy views (the caller reads the
    pending paths and the mating line from them)."""
    return Workspace(*(work[start:end].view(dtype).reshape(shape)
                       for (_, dtype, shape), start, end in zip(_WORK, _START, _END)))


@njit(cache=True)
def extract_line(board, hands, state, keys, thands, vals, salt, line, max_len, length):
    """Read a mating line out of the table into `line` (see _read_line, which this
    gives its scratch arrays)."""
    return _read_line(board, hands, state, keys, thands, vals, salt, line, max_len, length,
                      np.empty(2 * MAX_MOVES, dtype=np.int32), np.empty(4, dtype=np.int64),
                      np.empty(max_len + 1, dtype=np.int64), np.empty(max_len + 1, dtype=np.int64))


@njit(cache=True, _nrt=False)
def _read_line(board, hands, state, keys, thands, vals, salt, line, max_len, length, moves,
               look, caps, path):
    """Read a mating line out of the table: the attacker plays the proven check with the
    shortest stored mate, the defender the reply with the longest. Returns the number
    of plies written to `line`, or -(ply + 1) when the table lacks a proof needed at
    that ply (the caller then re-proves from there), and the attacker's hand at the end
    of the line. The position is restored.
    The line is made of generated moves (checks, legal replies) and ends where the
    defender has none, so it replays to mate by construction. `length` is the root's
    proven mate length, or NO_LIMIT if not known: a child that reaches the length its
    parent was chosen for (one less) is taken without looking at its siblings.
    Scratch: `moves` (2 * MAX_MOVES), `look` (4), `caps` and `path` (max_len + 1)."""
    attacker = state[SIDE]
    n = 0
    result = -1
    expect = np.int64(length)      # the stored length of the node at ply n
    while True:
        path[n] = table_key(state, hands, salt) ^ (hands[attacker] * HAND_MIX[1])
        for j in range(n - 2, -1, -2):
            if path[j] == path[n]:
                result = -(n + 1)
                break
        if result != -1:
            break
        attacking = state[SIDE] == attacker
        if attacking:
            nm = check_moves(board, hands, state, moves)
        else:
            nm = evasions(board, hands, state, moves, EVERY_REPLY)
        if nm == 0:
            result = n if not attacking else -(n + 1)
            break
        if n >= max_len:
            result = -(n + 1)
            break
        chosen = -1
        chosen_len = np.int64(0)
        for i in range(nm):
            m = moves[i]
            cap = do_move(board, hands, state, m)
            ok = tt_lookup(keys, thands, vals, table_key(state, hands, salt), hands[attacker], _NO_LIMIT, look)
            undo_move(board, hands, state, m, cap)
            proven = ok and look[LOOK_PN] == 0
            if attacking:
                if proven and (chosen < 0 or look[LOOK_LEN] < chosen_len):
                    chosen = i
                    chosen_len = look[LOOK_LEN]
                    if expect < _NO_LIMIT and chosen_len <= expect - 1:
                        break             # no sibling can be shorter
            else:
                if not proven:
                    chosen = -2
                    break
                if chosen < 0 or look[LOOK_LEN] > chosen_len:
                    chosen = i
                    chosen_len = look[LOOK_LEN]
                    if chosen_len >= expect - 1:
                        break             # no sibling can be longer
        if chosen < 0:
            result = -(n + 1)
            break
        expect = chosen_len
        line[n] = moves[chosen]
        caps[n] = do_move(board, hands, state, moves[chosen])
        n += 1
    end_hand = hands[attacker]
    for j in range(n - 1, -1, -1):
        undo_move(board, hands, state, line[j], caps[j])
    return result, end_hand


@njit(cache=True)
def replays_to_mate(board, hands, state, line, n):
    """Is `line` legal from here with every attacker move a check and the end mate?
    The position is restored."""
    attacker = state[SIDE]
    moves = np.empty(2 * MAX_MOVES, dtype=np.int32)
    caps = np.empty(n + 1, dtype=np.int64)
    ok = True
    done = 0
    for i in range(n):
        if state[SIDE] == attacker:
            nm = check_moves(board, hands, state, moves)
        else:
            nm = evasions(board, hands, state, moves, EVERY_REPLY)
        found = False
        for j in range(nm):
            if moves[j] == line[i]:
                found = True
                break
        if not found:
            ok = False
            break
        caps[i] = do_move(board, hands, state, line[i])
        done += 1
    if ok:
        ok = state[SIDE] != attacker and evasions(board, hands, state, moves, FIRST_REPLY) == 0
    for j in range(done - 1, -1, -1):
        undo_move(board, hands, state, line[j], caps[j])
    return ok


@njit(cache=True, _nrt=False)
def store(keys, thands, vals, salt, board, hands, state, attacker, pn, dn, length, amount):
    """Write a result settled outside the search (e.g. by mudaai.py) for the current
    position; the attacker's hand is the proof or disproof hand, `amount` the effort
    it stands for (what decides which entries a full cluster keeps)."""
    tt_store(keys, thands, vals, np.int32(salt & 0x3FFFFFFF), table_key(state, hands, salt),
             hands[attacker], pn, dn, amount, length)
