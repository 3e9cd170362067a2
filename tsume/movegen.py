"""Move generation, compiled with numba: do/undo, attack tests, attacker checks,
defender evasions, full legal moves.

Every kernel takes the position arrays (board int8[81], hands int64[2], state int64[10];
see state.py) and writes integer moves (see move.py) into a caller-owned int32
buffer, returning the new count.

Nothing the search calls allocates, and those kernels are compiled with _nrt=False:
without it numba counts references on every array passed to a compiled call (an atomic
increment and decrement each), which was a quarter of the search's time on yo_mate11.
Such a kernel cannot allocate (numba refuses to compile it), so buffers come from the
caller (dfpn.new_workspace). tests/test_kernels.py keeps the search free of them.
"""
import numpy as np
from numba import njit

from .move import (DROP_BASE, PROMOTE_FLAG, is_promotion, make_drop, make_move, move_from,
                   move_to)
from .pieces import (DIRECTION_TO, HAND_MASK, HAND_SHIFT, OPPOSITE, SLIDE_MASK, STEP, STEP_MASK,
                     ZOBRIST_BOARD, ZOBRIST_SIDE, held_pieces)
from .squareset import (BETWEEN, CHECK_ZONE, CONTACT_ZONE, KING_NEAR, LINES, PROMOTION_ZONE,
                        STEP_ATTACKS, bit_of, contains, pop_square, single_square, with_square,
                        word_of)
from .state import KEY, KING_SQ, OCCUPIED, SIDE, SLIDERS, STATE_SIZE

MAX_MOVES = 1024          # shogi's maximum is 593 legal moves; the rest is scratch room
_PAWN, _LANCE, _KNIGHT, _SILVER, _BISHOP, _ROOK, _GOLD, _KING = 1, 2, 3, 4, 5, 6, 7, 8
# Typed constants for arguments of other compiled functions: with a Python literal
# numba compiles the callee once per value (see dfpn.py).
_0 = np.int64(0)
_ALL = np.int64(-1)      # a square set holding every square
_YES, _NO = np.bool_(True), np.bool_(False)
# The `limit` of evasions: the first reply only (is it mate?), or every reply.
FIRST_REPLY, EVERY_REPLY = np.int64(1), np.int64(MAX_MOVES)


# ---------------------------------------------------------------- small helpers
@njit(cache=True, inline="always")
def _rel_rank(sq, colour):
    """1..9, 1 being the far rank for that colour (rank 1 for Black, rank 9 for White)."""
    r = sq % 9 + 1
    return r if colour == 0 else 10 - r


@njit(cache=True, inline="always")
def _dead_ranks(kind):
    if kind == _PAWN or kind == _LANCE:
        return 1
    if kind == _KNIGHT:
        return 2
    return 0


@njit(cache=True, inline="always")
def _forward(colour):
    return 0 if colour == 0 else 1


@njit(cache=True, inline="always")
def hand_count(hand, kind):
    return (hand >> HAND_SHIFT[kind]) & HAND_MASK[kind]


# ---------------------------------------------------------------- position set-up
@njit(cache=True, _nrt=False)
def fill_state(board, side, state):
    """state from the board: side, Zobrist key, king squares (compiled: a Python loop
    over the squares cost more than solving a short problem)."""
    state[SIDE] = side
    state[KING_SQ] = -1
    state[KING_SQ + 1] = -1
    for i in range(OCCUPIED, STATE_SIZE):
        state[i] = 0
    key = np.int64(0)
    for sq in range(81):
        p = board[sq]
        if p:
            key ^= ZOBRIST_BOARD[p, sq]
            if p & 15 == _KING:
                state[KING_SQ + (p >> 4)] = sq
            state[OCCUPIED + 2 * (p >> 4) + word_of(sq)] |= bit_of(sq)
            if SLIDE_MASK[p] != 0:
                state[SLIDERS + word_of(sq)] |= bit_of(sq)
    if side == 1:                      # White to move
        key ^= ZOBRIST_SIDE
    state[KEY] = key


# ---------------------------------------------------------------- do / undo
@njit(cache=True, inline="always")
def key_after(board, hands, state, move):
    """(board key, sum of both hands) after move, without playing it: what do_move
    leaves in state[KEY] (it uses this) and in hands[0] + hands[1] (the table's key is
    made of both, see dfpn.table_key). Lets the search prefetch a child's entry."""
    to = move_to(move)
    frm = move_from(move)
    side = state[SIDE]
    key = state[KEY] ^ ZOBRIST_SIDE
    hand_sum = hands[0] + hands[1]
    if frm > DROP_BASE:
        kind = frm - DROP_BASE
        key ^= ZOBRIST_BOARD[kind | (side << 4), to]
        hand_sum -= 1 << HAND_SHIFT[kind]
    else:
        piece = np.int64(board[frm])
        key ^= ZOBRIST_BOARD[piece, frm]
        captured = np.int64(board[to])
        if captured != 0:
            key ^= ZOBRIST_BOARD[captured, to]
            ck = captured & 15
            if ck > _KING:
                ck -= 8
            hand_sum += 1 << HAND_SHIFT[ck]
        if is_promotion(move):
            piece += 8
        key ^= ZOBRIST_BOARD[piece, to]
    return key, hand_sum


@njit(cache=True, _nrt=False)
def do_move(board, hands, state, move):
    """Play move; returns the captured piece code (0 if none) for undo_move."""
    to = move_to(move)
    frm = move_from(move)
    side = state[SIDE]
    key, _ = key_after(board, hands, state, move)
    captured = 0
    to_w = word_of(to)
    to_bit = bit_of(to)
    own = OCCUPIED + 2 * side
    if frm > DROP_BASE:
        kind = frm - DROP_BASE
        piece = kind | (side << 4)
        hands[side] -= 1 << HAND_SHIFT[kind]
    else:
        piece = np.int64(board[frm])
        board[frm] = 0
        state[own + word_of(frm)] ^= bit_of(frm)
        if SLIDE_MASK[piece] != 0:
            state[SLIDERS + word_of(frm)] ^= bit_of(frm)
        captured = np.int64(board[to])
        if captured != 0:
            state[OCCUPIED + 2 * (1 - side) + to_w] ^= to_bit
            if SLIDE_MASK[captured] != 0:
                state[SLIDERS + to_w] ^= to_bit
            ck = captured & 15
            if ck > _KING:
                ck -= 8
            hands[side] += 1 << HAND_SHIFT[ck]
        if is_promotion(move):
            piece += 8
        if piece & 15 == _KING:
            state[KING_SQ + side] = to
    board[to] = piece
    state[own + to_w] |= to_bit
    if SLIDE_MASK[piece] != 0:
        state[SLIDERS + to_w] |= to_bit
    state[KEY] = key
    state[SIDE] = 1 - side
    return captured


@njit(cache=True, _nrt=False)
def undo_move(board, hands, state, move, captured):
    to = move_to(move)
    frm = move_from(move)
    side = 1 - state[SIDE]
    piece = np.int64(board[to])
    key = state[KEY] ^ ZOBRIST_SIDE ^ ZOBRIST_BOARD[piece, to]
    to_w = word_of(to)
    to_bit = bit_of(to)
    own = OCCUPIED + 2 * side
    state[own + to_w] ^= to_bit
    if SLIDE_MASK[piece] != 0:
        state[SLIDERS + to_w] ^= to_bit
    if frm > DROP_BASE:
        hands[side] += 1 << HAND_SHIFT[frm - DROP_BASE]
        board[to] = 0
    else:
        board[to] = captured
        if captured != 0:
            key ^= ZOBRIST_BOARD[captured, to]
            state[OCCUPIED + 2 * (1 - side) + to_w] |= to_bit
            if SLIDE_MASK[captured] != 0:
                state[SLIDERS + to_w] |= to_bit
            ck = captured & 15
            if ck > _KING:
                ck -= 8
            hands[side] -= 1 << HAND_SHIFT[ck]
        if is_promotion(move):
            piece -= 8
        board[frm] = piece
        state[own + word_of(frm)] |= bit_of(frm)
        if SLIDE_MASK[piece] != 0:
            state[SLIDERS + word_of(frm)] |= bit_of(frm)
        key ^= ZOBRIST_BOARD[piece, frm]
        if piece & 15 == _KING:
            state[KING_SQ + side] = frm
    state[KEY] = key
    state[SIDE] = side


# ---------------------------------------------------------------- attacks
# A piece attacks a square next to it (or a knight's jump away) by a step of its
# STEP_MASK, and any square further along a line by a slide of its SLIDE_MASK: the
# neighbours are read off the board, the sliders come from the square sets in state.
@njit(cache=True, inline="always")
def _occupied(state, w):
    return state[OCCUPIED + w] | state[OCCUPIED + 2 + w]


@njit(cache=True, inline="always")
def _slides_to(board, s, sq, occ_lo, occ_hi):
    """Does the slider on s reach sq (on one of its lines) with nothing in between?"""
    return (SLIDE_MASK[board[s]] >> DIRECTION_TO[s, sq]) & 1 == 1 and \
        BETWEEN[s, sq, 0] & occ_lo == 0 and BETWEEN[s, sq, 1] & occ_hi == 0


@njit(cache=True, inline="always")
def _sliders_on_lines(state, sq, colour):
    """`colour`'s sliders standing on one of sq's lines, as a set (whether anything
    stands between, or the slider moves that way, is for the caller to test)."""
    return (state[SLIDERS] & state[OCCUPIED + 2 * colour] & LINES[sq, 0],
            state[SLIDERS + 1] & state[OCCUPIED + 2 * colour + 1] & LINES[sq, 1])


@njit(cache=True, inline="always")
def _sliders_reaching(board, state, sq, colour):
    """`colour`'s sliders that reach sq (nothing in between), as a set."""
    out_lo = np.int64(0)
    out_hi = np.int64(0)
    lo, hi = _sliders_on_lines(state, sq, colour)
    if lo | hi:
        occ_lo = _occupied(state, 0)
        occ_hi = _occupied(state, 1)
        while lo | hi:
            s, lo, hi = pop_square(lo, hi)
            if _slides_to(board, s, sq, occ_lo, occ_hi):
                out_lo, out_hi = with_square(out_lo, out_hi, s)
    return out_lo, out_hi


@njit(cache=True, inline="always")
def _slider_attacks_through(board, state, sq, colour, gone):
    """Does a slider of `colour` reach sq, square `gone` counted as empty? (Where a
    king could step: a square behind it on a slider's line is attacked; no need to
    take the king off the board and put it back.)"""
    lo, hi = _sliders_on_lines(state, sq, colour)
    if lo | hi:
        g_lo, g_hi = with_square(_0, _0, gone)
        occ_lo = _occupied(state, 0) & ~g_lo
        occ_hi = _occupied(state, 1) & ~g_hi
        while lo | hi:
            s, lo, hi = pop_square(lo, hi)
            if _slides_to(board, s, sq, occ_lo, occ_hi):
                return True
    return False


@njit(cache=True, inline="always")
def _slider_attacks(board, state, sq, colour):
    """Does a slider of `colour` reach sq?"""
    lo, hi = _sliders_reaching(board, state, sq, colour)
    return (lo | hi) != 0


@njit(cache=True, inline="always")
def _steppers_to(board, state, sq, colour):
    """`colour`'s pieces that attack sq by a step or a knight's jump, as a set: only
    the few pieces next to sq (or a jump away) are looked at, not every neighbour."""
    lo = state[OCCUPIED + 2 * colour] & CONTACT_ZONE[sq, 0]
    hi = state[OCCUPIED + 2 * colour + 1] & CONTACT_ZONE[sq, 1]
    out_lo = np.int64(0)
    out_hi = np.int64(0)
    while lo | hi:
        s, lo, hi = pop_square(lo, hi)
        if (STEP_MASK[board[s]] >> DIRECTION_TO[s, sq]) & 1:
            out_lo, out_hi = with_square(out_lo, out_hi, s)
    return out_lo, out_hi


@njit(cache=True, _nrt=False)
def attacked(board, state, sq, colour):
    """Is square sq attacked by a piece of `colour`? (The hottest test of the search.)"""
    lo, hi = _steppers_to(board, state, sq, colour)
    if lo | hi:
        return True
    return _slider_attacks(board, state, sq, colour)


@njit(cache=True, _nrt=False)
def attackers_to(board, state, sq, colour):
    """The squares of `colour`'s pieces that attack sq, as a square set (lo, hi)."""
    out_lo, out_hi = _steppers_to(board, state, sq, colour)
    lo, hi = _sliders_reaching(board, state, sq, colour)
    return out_lo | lo, out_hi | hi


@njit(cache=True, _nrt=False)
def find_attackers(board, state, sq, colour, out):
    """Squares of `colour`'s pieces that attack sq, written to out; returns the count."""
    lo, hi = attackers_to(board, state, sq, colour)
    n = 0
    while lo | hi:
        out[n], lo, hi = pop_square(lo, hi)
        n += 1
    return n


@njit(cache=True, _nrt=False)
def sole_checker(board, state, ksq, colour):
    """Square of the one piece of `colour` that attacks ksq; -1 if none or several."""
    lo, hi = attackers_to(board, state, ksq, colour)
    return single_square(lo, hi)


@njit(cache=True, _nrt=False)
def in_check(board, state, colour):
    k = state[KING_SQ + colour]
    return k >= 0 and attacked(board, state, k, 1 - colour)


@njit(cache=True, inline="always")
def _lift(board, state, sq):
    """Take the piece off sq (board and square sets) and return it; _put puts it back.
    For "where could the king step": a square behind it on a slider's line is attacked."""
    p = board[sq]
    board[sq] = 0
    state[OCCUPIED + 2 * (p >> 4) + word_of(sq)] ^= bit_of(sq)
    return p


@njit(cache=True, inline="always")
def _put(board, state, sq, p):
    board[sq] = p
    state[OCCUPIED + 2 * (p >> 4) + word_of(sq)] |= bit_of(sq)


@njit(cache=True, _nrt=False)
def piece_attacks_from(board, state, piece, frm, target, vacated):
    """Would `piece` standing on frm attack target? `vacated` is treated as empty
    (the square the piece left), so this can be asked before the move is made."""
    d = DIRECTION_TO[frm, target]
    if d < 0:
        return False
    if d >= 8:
        return (STEP_MASK[piece] >> d) & 1 == 1
    if STEP[frm, d] == target:
        return ((STEP_MASK[piece] | SLIDE_MASK[piece]) >> d) & 1 == 1
    if (SLIDE_MASK[piece] >> d) & 1 == 0:
        return False
    gone_lo, gone_hi = with_square(_0, _0, vacated)
    occ_lo = _occupied(state, 0) & ~gone_lo
    occ_hi = _occupied(state, 1) & ~gone_hi
    return BETWEEN[frm, target, 0] & occ_lo == 0 and BETWEEN[frm, target, 1] & occ_hi == 0


# ---------------------------------------------------------------- pawn-drop mate
@njit(cache=True, inline="always")
def _steps_near(board, state, ksq, colour):
    """The squares that `colour`'s pieces around ksq attack by a step, as a set: with
    the slider test, what decides the flight squares of a king on ksq. One table read
    per nearby piece instead of reading every neighbour of every flight square."""
    lo = state[OCCUPIED + 2 * colour] & KING_NEAR[ksq, 0]
    hi = state[OCCUPIED + 2 * colour + 1] & KING_NEAR[ksq, 1]
    out_lo = np.int64(0)
    out_hi = np.int64(0)
    while lo | hi:
        s, lo, hi = pop_square(lo, hi)
        p = board[s]
        out_lo |= STEP_ATTACKS[p, s, 0]
        out_hi |= STEP_ATTACKS[p, s, 1]
    return out_lo, out_hi


@njit(cache=True, inline="always")
def _safe_flights(board, state, ksq, colour, first_only):
    """The squares next to ksq to which colour's king there can step without being
    attacked, as a set (with first_only, at most one of them). ksq counts as empty, so
    that a square behind the king on a checking slider's line counts as attacked.
    Set tests first: only the squares no enemy piece nearby guards by a step
    are asked about sliders."""
    enemy = 1 - colour
    lo = STEP_ATTACKS[_KING, ksq, 0] & ~state[OCCUPIED + 2 * colour]
    hi = STEP_ATTACKS[_KING, ksq, 1] & ~state[OCCUPIED + 2 * colour + 1]
    out_lo = np.int64(0)
    out_hi = np.int64(0)
    if lo | hi:
        guard_lo, guard_hi = _steps_near(board, state, ksq, enemy)
        lo &= ~guard_lo
        hi &= ~guard_hi
        if lo | hi:
            for d in range(8):       # (in direction order: the search's move order)
                t = STEP[ksq, d]
                if t >= 0 and contains(lo, hi, t) and \
                        not _slider_attacks_through(board, state, t, enemy, ksq):
                    out_lo, out_hi = with_square(out_lo, out_hi, t)
                    if first_only:
                        break
    return out_lo, out_hi


@njit(cache=True, _nrt=False)
def _king_steps(board, state, ksq, colour, out, n, first_only):
    """Append the king's safe steps to out, in direction order; returns the new count."""
    lo, hi = _safe_flights(board, state, ksq, colour, first_only)
    if lo | hi:
        for d in range(8):
            t = STEP[ksq, d]
            if t >= 0 and contains(lo, hi, t):
                out[n] = make_move(ksq, t)
                n += 1
    return n


@njit(cache=True, _nrt=False)
def _pawn_check_escapes(board, hands, state, pawn_sq):
    """The side to move is in check from a pawn just dropped on pawn_sq. Can it get out?
    A pawn's check is a contact check: only a king move or a capture of the pawn helps,
    so no drop (and no recursion into drops) is involved."""
    side = state[SIDE]
    enemy = 1 - side
    ksq = state[KING_SQ + side]
    lo, hi = _safe_flights(board, state, ksq, side, _YES)
    if lo | hi:
        return True
    # Captures of the pawn by other pieces, unless pinned against the king.
    lo, hi = attackers_to(board, state, pawn_sq, side)
    while lo | hi:
        s, lo, hi = pop_square(lo, hi)
        if s == ksq:
            continue
        m = np.int32(make_move(s, pawn_sq))
        cap = do_move(board, hands, state, m)
        ok = not attacked(board, state, ksq, enemy)
        undo_move(board, hands, state, m, cap)
        if ok:
            return True
    return False


@njit(cache=True, _nrt=False)
def _pawn_drop_mates(board, hands, state, to):
    """Would dropping a pawn of the side to move on `to` be 打ち歩詰め?"""
    side = state[SIDE]
    eking = state[KING_SQ + 1 - side]
    if eking < 0 or STEP[to, _forward(side)] != eking:
        return False
    move = np.int32(make_drop(_PAWN, to))      # a move is int32 everywhere
    cap = do_move(board, hands, state, move)
    mates = not _pawn_check_escapes(board, hands, state, to)
    undo_move(board, hands, state, move, cap)
    return mates


# ---------------------------------------------------------------- emitting moves
@njit(cache=True, inline="always")
def emit_moves(out, n, frm, to, piece, colour):
    """Append the moves of `piece` from frm to to: promoting and/or not, as allowed."""
    kind = piece & 15
    base = make_move(frm, to)
    if kind <= _ROOK:
        if _rel_rank(frm, colour) <= 3 or _rel_rank(to, colour) <= 3:
            out[n] = base | PROMOTE_FLAG
            n += 1
            if _rel_rank(to, colour) > _dead_ranks(kind):
                out[n] = base
                n += 1
            return n
    out[n] = base
    return n + 1


@njit(cache=True, _nrt=False)
def _pawn_files(board, state, colour):
    """Bit f set when `colour` has an unpromoted pawn on file f+1 (for 二歩). Only the
    colour's own pieces are looked at, not all 81 squares."""
    files = 0
    pawn = _PAWN | (colour << 4)
    lo = state[OCCUPIED + 2 * colour]
    hi = state[OCCUPIED + 2 * colour + 1]
    while lo | hi:
        sq, lo, hi = pop_square(lo, hi)
        if board[sq] == pawn:
            files |= 1 << (sq // 9)
    return files


@njit(cache=True, _nrt=False)
def _drop_allowed(board, kind, colour, to, pawn_files):
    if board[to] != 0 or _rel_rank(to, colour) <= _dead_ranks(kind):
        return False
    if kind == _PAWN and (pawn_files >> (to // 9)) & 1:
        return False
    return True


@njit(cache=True, inline="always")
def _piece_moves(board, c, frm, p, out, n, zone_lo, zone_hi):
    """Every move of colour c's piece p standing on frm (no king captures) to a square
    of the zone (a square set; -1, -1 for the whole board)."""
    steps = STEP_MASK[p]
    slides = SLIDE_MASK[p]
    for d in range(12):
        if (steps >> d) & 1:
            to = STEP[frm, d]
            if to >= 0 and contains(zone_lo, zone_hi, to):
                q = board[to]
                if q == 0 or ((q >> 4) != c and (q & 15) != _KING):
                    n = emit_moves(out, n, frm, to, p, c)
    for d in range(8):
        if (slides >> d) & 1:
            to = STEP[frm, d]
            while to >= 0:
                q = board[to]
                if q == 0:
                    if contains(zone_lo, zone_hi, to):
                        n = emit_moves(out, n, frm, to, p, c)
                else:
                    if (q >> 4) != c and (q & 15) != _KING and contains(zone_lo, zone_hi, to):
                        n = emit_moves(out, n, frm, to, p, c)
                    break
                to = STEP[to, d]
    return n


@njit(cache=True, _nrt=False)
def pseudo_moves(board, hands, state, out, n):
    """All moves of the side to move that obey piece movement, promotion, drop rules
    (dead pieces, 二歩) but not yet king safety or 打ち歩詰め."""
    c = state[SIDE]
    for frm in range(81):
        p = board[frm]
        if p == 0 or (p >> 4) != c:
            continue
        n = _piece_moves(board, c, frm, p, out, n, _ALL, _ALL)
    hand = hands[c]
    if hand != 0:
        pf = _pawn_files(board, state, c)
        for kind in range(1, 8):
            if hand_count(hand, kind) == 0:
                continue
            for to in range(81):
                if _drop_allowed(board, kind, c, to, pf):
                    out[n] = make_drop(kind, to)
                    n += 1
    return n


@njit(cache=True, _nrt=False)
def _is_legal_after(board, hands, state, move, colour):
    """Make the move, test that colour's king is safe and the move is not 打ち歩詰め."""
    to = move_to(move)
    frm = move_from(move)
    if frm == DROP_BASE + _PAWN and _pawn_drop_mates(board, hands, state, to):
        return False
    if state[KING_SQ + colour] < 0:
        return True
    cap = do_move(board, hands, state, move)
    ok = not attacked(board, state, state[KING_SQ + colour], 1 - colour)
    undo_move(board, hands, state, move, cap)
    return ok


@njit(cache=True, inline="always")
def _keep_legal(board, hands, state, out, n):
    """Keep the legal ones of the side to move's pseudo-legal moves out[:n], in order;
    returns their count."""
    c = state[SIDE]
    k = 0
    for i in range(n):
        m = out[i]
        if _is_legal_after(board, hands, state, m, c):
            out[k] = m
            k += 1
    return k


@njit(cache=True, _nrt=False)
def legal_moves(board, hands, state, out):
    """All legal moves of the side to move; returns the count."""
    return _keep_legal(board, hands, state, out, pseudo_moves(board, hands, state, out, _0))


# ---------------------------------------------------------------- attacker: checks
@njit(cache=True, _nrt=False)
def _shields(board, state, ksq, colour, slider_colour):
    """The pieces of `colour` that stand alone between ksq and a slider of
    `slider_colour` aiming at it, as a square set (lo, hi): our pieces that shield the
    enemy king from our slider (moving them discovers a check), or our pieces pinned
    to our own king by an enemy slider."""
    out_lo = np.int64(0)
    out_hi = np.int64(0)
    lo, hi = _sliders_on_lines(state, ksq, slider_colour)
    if lo | hi:
        occ_lo = _occupied(state, 0)
        occ_hi = _occupied(state, 1)
        while lo | hi:
            s, lo, hi = pop_square(lo, hi)
            if (SLIDE_MASK[board[s]] >> DIRECTION_TO[s, ksq]) & 1 == 0:
                continue
            t = single_square(BETWEEN[s, ksq, 0] & occ_lo, BETWEEN[s, ksq, 1] & occ_hi)
            if t >= 0 and (board[t] >> 4) == colour:
                out_lo, out_hi = with_square(out_lo, out_hi, t)
    return out_lo, out_hi


@njit(cache=True, inline="always")
def _step_checks(p, frm, c, ksq, own_lo, own_hi, out, n):
    """Append the checks of colour c's stepping piece p on frm (one that is neither
    pinned nor shielding the enemy king from a slider of ours): the squares it steps to
    from which it, promoted or not, attacks the king on ksq, found as square sets (a
    piece q on t attacks ksq when t is among the squares the same piece of the other
    colour attacks from ksq: every piece is symmetric left to right)."""
    kind = p & 15
    reach_lo = STEP_ATTACKS[p, frm, 0] & ~own_lo
    reach_hi = STEP_ATTACKS[p, frm, 1] & ~own_hi
    plain_lo = reach_lo & STEP_ATTACKS[p ^ 16, ksq, 0]
    plain_hi = reach_hi & STEP_ATTACKS[p ^ 16, ksq, 1]
    prom_lo = np.int64(0)
    prom_hi = np.int64(0)
    if kind <= _ROOK:
        q = (p + 8) ^ 16
        prom_lo = reach_lo & STEP_ATTACKS[q, ksq, 0]
        prom_hi = reach_hi & STEP_ATTACKS[q, ksq, 1]
        if _rel_rank(frm, c) > 3:
            prom_lo &= PROMOTION_ZONE[c, 0]
            prom_hi &= PROMOTION_ZONE[c, 1]
    lo = plain_lo | prom_lo
    hi = plain_hi | prom_hi
    if (lo | hi) == 0:
        return n
    dead = _dead_ranks(kind)
    steps = STEP_MASK[p]
    for d in range(12):       # (in direction order: the search's move order)
        to = STEP[frm, d]
        if (steps >> d) & 1 == 0 or to < 0 or not contains(lo, hi, to):
            continue
        base = make_move(frm, to)
        if contains(prom_lo, prom_hi, to):
            out[n] = base | PROMOTE_FLAG
            n += 1
        if contains(plain_lo, plain_hi, to) and _rel_rank(to, c) > dead:
            out[n] = base
            n += 1
    return n


@njit(cache=True, inline="always")
def _slider_checks(board, state, p, frm, c, ksq, zone_lo, zone_hi, out, n):
    """Append the direct checks of colour c's slider p on frm (neither pinned nor
    shielding the enemy king): only the squares of the zone on its lines are looked at,
    instead of walking every ray to its end."""
    occ_lo = _occupied(state, 0)
    occ_hi = _occupied(state, 1)
    ks_lo, ks_hi = with_square(_0, _0, ksq)
    lo = LINES[frm, 0] & zone_lo & ~(state[OCCUPIED + 2 * c] | ks_lo)
    hi = LINES[frm, 1] & zone_hi & ~(state[OCCUPIED + 2 * c + 1] | ks_hi)
    steps = STEP_MASK[p]
    slides = SLIDE_MASK[p]
    while lo | hi:
        to, lo, hi = pop_square(lo, hi)
        d = DIRECTION_TO[frm, to]
        if (slides >> d) & 1:
            if BETWEEN[frm, to, 0] & occ_lo or BETWEEN[frm, to, 1] & occ_hi:
                continue
        elif (steps >> d) & 1 == 0 or STEP[frm, d] != to:
            continue
        start = n
        n = emit_moves(out, n, frm, to, p, c)
        k = start
        for i in range(start, n):
            m = out[i]
            piece = p + 8 if is_promotion(m) else p
            if piece_attacks_from(board, state, piece, to, ksq, frm):
                out[k] = m
                k += 1
        n = k
    return n


@njit(cache=True, _nrt=False)
def _checks(board, hands, state, out, contact_only):
    """check_moves; with contact_only, a direct check from a distance (a slider's, not
    a discovered one) is left out: mate_in_one uses it when the enemy can always block
    such a check with a drop."""
    c = state[SIDE]
    e = 1 - c
    ksq = state[KING_SQ + e]
    if ksq < 0:
        return 0
    own_king = state[KING_SQ + c]
    # Legality of our moves. With our king in check, every candidate is played out.
    # Otherwise only a king move or a move of a piece pinned to our king can be
    # illegal, and a pinned piece only when it leaves the line of its pin.
    own_checked = own_king >= 0 and attacked(board, state, own_king, e)
    pin_lo, pin_hi = _shields(board, state, own_king, c, e) if own_king >= 0 else (_0, _0)
    n = 0
    # Our pieces that stand between the enemy king and one of our sliders: moving them
    # off that ray discovers a check.
    disc_lo, disc_hi = _shields(board, state, ksq, c, c)
    kfile = ksq // 9
    krank = ksq % 9
    zone_lo = CONTACT_ZONE[ksq, 0] if contact_only else CHECK_ZONE[ksq, 0]
    zone_hi = CONTACT_ZONE[ksq, 1] if contact_only else CHECK_ZONE[ksq, 1]
    # Board moves.
    own_lo = state[OCCUPIED + 2 * c]
    own_hi = state[OCCUPIED + 2 * c + 1]
    while own_lo | own_hi:
        frm, own_lo, own_hi = pop_square(own_lo, own_hi)
        p = board[frm]
        dd = -1
        if contains(disc_lo, disc_hi, frm):
            dd = DIRECTION_TO[ksq, frm]
        elif SLIDE_MASK[p] == 0 and (abs(frm // 9 - kfile) > 2 or abs(frm % 9 - krank) > 4):
            continue    # a stepping piece this far away cannot check with one move
        pin = -1                          # -1: legal; 0-7: pinned along it; 99: play out
        if own_checked or frm == own_king:
            pin = 99
        elif contains(pin_lo, pin_hi, frm):
            pin = DIRECTION_TO[own_king, frm]
        if dd < 0 and pin < 0:
            if SLIDE_MASK[p] == 0:
                n = _step_checks(p, frm, c, ksq, state[OCCUPIED + 2 * c],
                                 state[OCCUPIED + 2 * c + 1], out, n)
            else:
                n = _slider_checks(board, state, p, frm, c, ksq, zone_lo, zone_hi, out, n)
            continue
        start = n
        # A direct check can only come from the king's lines or knight squares; a piece
        # that discovers a check checks from anywhere off its line.
        to_lo, to_hi = (_ALL, _ALL) if dd >= 0 else (zone_lo, zone_hi)
        n = _piece_moves(board, c, frm, p, out, n, to_lo, to_hi)
        # Keep only the candidates that check (and are legal).
        k = start
        for i in range(start, n):
            m = out[i]
            to = move_to(m)
            gives = dd >= 0 and DIRECTION_TO[ksq, to] != dd
            if not gives:
                piece = p + 8 if is_promotion(m) else p
                gives = piece_attacks_from(board, state, piece, to, ksq, frm)
            if gives and pin >= 0 and DIRECTION_TO[own_king, to] != pin:
                gives = _is_legal_after(board, hands, state, m, c)
            if gives:
                out[k] = m
                k += 1
        n = k
    # Drops: for each kind in hand, the empty squares from which it would attack the king.
    hand = hands[c]
    if hand != 0:
        pf = _pawn_files(board, state, c)
        for kind in range(1, 8):
            if hand_count(hand, kind) == 0:
                continue
            piece = kind | (c << 4)
            for d in range(12):
                od = OPPOSITE[d]
                if (SLIDE_MASK[piece] >> od) & 1:
                    t = STEP[ksq, d]
                    while t >= 0 and board[t] == 0:
                        if _drop_allowed(board, kind, c, t, pf):
                            m = np.int32(make_drop(kind, t))
                            if not own_checked or _is_legal_after(board, hands, state, m, c):
                                out[n] = m
                                n += 1
                        t = STEP[t, d] if not contact_only else -1
                elif (STEP_MASK[piece] >> od) & 1:
                    t = STEP[ksq, d]
                    if t >= 0 and _drop_allowed(board, kind, c, t, pf):
                        m = np.int32(make_drop(kind, t))
                        if kind == _PAWN and _pawn_drop_mates(board, hands, state, t):
                            continue
                        if not own_checked or _is_legal_after(board, hands, state, m, c):
                            out[n] = m
                            n += 1
    return n


@njit(cache=True, inline="always")
def check_moves(board, hands, state, out):
    """Every legal move of the side to move that checks the enemy king; returns the count.
    Direct checks, discovered checks, and drops (no 二歩, dead pieces or 打ち歩詰め)."""
    return _checks(board, hands, state, out, _NO)


# ---------------------------------------------------------------- defender: evasions
@njit(cache=True, _nrt=False)
def _moves_to(board, state, colour, target, out, n):
    """Board moves (not king) of `colour` whose destination is target."""
    lo, hi = attackers_to(board, state, target, colour)
    while lo | hi:
        t, lo, hi = pop_square(lo, hi)
        p = board[t]
        if (p & 15) != _KING:
            n = emit_moves(out, n, t, target, p, colour)
    return n


@njit(cache=True, inline="always")
def _pinned_away(board, ksq, frm, to, colour):
    """Would moving colour's piece from frm to `to` open a line from an enemy slider to
    its king on ksq? (frm pinned, and `to` off the pin line.) A non-king move while in
    check by one piece that captures or blocks it can expose the king in no other way."""
    d = DIRECTION_TO[ksq, frm]
    if d < 0 or d >= 8 or DIRECTION_TO[ksq, to] == d:
        return False
    t = STEP[ksq, d]
    while t != frm:
        if board[t] != 0:
            return False            # something else already shields the king
        t = STEP[t, d]
    t = STEP[frm, d]
    while t >= 0:
        p = board[t]
        if p != 0:
            return (p >> 4) != colour and (SLIDE_MASK[p] >> OPPOSITE[d]) & 1 == 1
        t = STEP[t, d]
    return False


@njit(cache=True, _nrt=False)
def _safe_moves_to(board, hands, state, target, ksq, out, n, limit):
    """Append the board moves (not king) of the side to move onto target that leave its
    king at ksq safe, until out holds `limit` moves; returns the new count. The side
    to move is in check by one piece and target is that piece's square or a square
    between it and the king, so a move is safe unless its piece is pinned (no need to
    play it out)."""
    c = state[SIDE]
    start = n
    n = _moves_to(board, state, c, target, out, n)
    k = start
    for j in range(start, n):
        m = out[j]
        ok = not _pinned_away(board, ksq, move_from(m), target, c)
        if ok:
            out[k] = m
            k += 1
            if k >= limit:
                break
    return k


@njit(cache=True, _nrt=False)
def evasions(board, hands, state, out, limit):
    """Legal replies of the side to move, which is in check; returns the count. Stops
    once it has `limit` of them: FIRST_REPLY for a fast "is it mate?", EVERY_REPLY for
    all (a count at the limit means "at least that many")."""
    c = state[SIDE]
    ksq = state[KING_SQ + c]
    n = _king_steps(board, state, ksq, c, out, _0, limit == 1)
    if n >= limit:
        return n
    csq = sole_checker(board, state, ksq, 1 - c)
    if csq < 0:
        return n                      # double check: only the king can move
    # Capture the checker, or interpose on the squares between it and the king.
    n = _safe_moves_to(board, hands, state, csq, ksq, out, n, limit)
    if n >= limit:
        return n
    d = DIRECTION_TO[ksq, csq]
    if d >= 8 or STEP[ksq, d] == csq:
        return n                      # knight or contact check: nothing goes between
    t = STEP[ksq, d]
    while t != csq:
        n = _safe_moves_to(board, hands, state, t, ksq, out, n, limit)
        if n >= limit:
            return n
        t = STEP[t, d]
    # Drop interpositions (pieces of every kind the defender holds).
    hand = hands[c]
    if hand != 0:
        pf = _pawn_files(board, state, c)
        for kind in range(1, 8):
            if hand_count(hand, kind) == 0:
                continue
            t = STEP[ksq, d]
            while t != csq:
                if _drop_allowed(board, kind, c, t, pf):
                    if not (kind == _PAWN and _pawn_drop_mates(board, hands, state, t)):
                        out[n] = make_drop(kind, t)
                        n += 1
                        if n >= limit:
                            return n
                t = STEP[t, d]
    return n


@njit(cache=True, inline="always")
def _mates(board, hands, state, m, reply):
    """Play the check m: is the enemy left without a legal reply?"""
    cap = do_move(board, hands, state, m)
    escapes = evasions(board, hands, state, reply, FIRST_REPLY)
    undo_move(board, hands, state, m, cap)
    return escapes == 0


@njit(cache=True, _nrt=False)
def mate_in_one(board, hands, state, out):
    """A checking move after which the enemy has no legal reply, or -1.
    out needs 2 * MAX_MOVES room (the second half holds the replies).
    quick_mate_in_one first: it settles every check it looks at, most by set tests
    without playing them; only the checks it does not look at are then played (the
    root's mate in three and depth-limited searches use this: faster than playing
    every check)."""
    found = quick_mate_in_one(board, hands, state, out)
    if found >= 0:
        return found
    c = state[SIDE]
    ksq = state[KING_SQ + 1 - c]
    if ksq < 0:
        return np.int32(-1)
    own_king = state[KING_SQ + c]
    # (With our own king in check it looked at nothing.)
    settled = not (own_king >= 0 and attacked(board, state, own_king, 1 - c))
    # A single check from a distance is blocked by dropping a gold, silver, bishop or
    # rook between (no 二歩 or dead-piece rule applies to them): with one of those in
    # the enemy's hand, only contact checks and discovered checks can mate.
    enemy_hand = hands[1 - c]
    blockable = (hand_count(enemy_hand, _SILVER) + hand_count(enemy_hand, _GOLD)
                 + hand_count(enemy_hand, _BISHOP) + hand_count(enemy_hand, _ROOK)) > 0
    if settled and blockable:
        # Then every check quick_mate_in_one does not look at is a discovered one: with
        # no piece of ours shielding the king from a slider of ours, none is left.
        disc_lo, disc_hi = _shields(board, state, ksq, c, c)
        if (disc_lo | disc_hi) == 0:
            return np.int32(-1)
    n = _checks(board, hands, state, out, blockable)
    reply = out[MAX_MOVES:]
    for i in range(n):
        m = out[i]
        if settled and _settled_by_quick(board, state, m, ksq):
            continue
        if _mates(board, hands, state, m, reply):
            return m
    return np.int32(-1)        # (the type of a move, as m: one compiled do_move)


@njit(cache=True, inline="always")
def _settled_by_quick(board, state, m, ksq):
    """Did quick_mate_in_one decide whether check m mates (our king not in check)? It
    looks at every check that lands next to the king or a knight's jump from it and
    attacks it from there: drops (a checking pawn drop never mates: 打ち歩詰め is not
    generated) and board moves other than the king's. Left to play out: checks from
    a distance and discovered checks."""
    to = move_to(m)
    frm = move_from(m)
    if frm > DROP_BASE:
        if frm - DROP_BASE == _PAWN:
            return True
    elif (board[frm] & 15) == _KING:
        return False
    d = DIRECTION_TO[ksq, to]
    if d < 0 or STEP[ksq, d] != to:
        return False
    if frm > DROP_BASE:
        return True
    p = board[frm]
    piece = p + 8 if is_promotion(m) else p
    return piece_attacks_from(board, state, piece, to, ksq, frm)


# ---------------------------------------------------------------- quick mate in one
@njit(cache=True, inline="always")
def _covered_near(board, state, ksq, colour):
    """The king's eight neighbours that `colour` attacks with ksq counted as empty (a
    slider's line through the king covers the square behind it), as a set."""
    guard_lo, guard_hi = _steps_near(board, state, ksq, colour)
    lo = STEP_ATTACKS[_KING, ksq, 0]
    hi = STEP_ATTACKS[_KING, ksq, 1]
    out_lo = lo & guard_lo
    out_hi = hi & guard_hi
    lo &= ~guard_lo
    hi &= ~guard_hi
    while lo | hi:
        t, lo, hi = pop_square(lo, hi)
        if _slider_attacks_through(board, state, t, colour, ksq):
            out_lo, out_hi = with_square(out_lo, out_hi, t)
    return out_lo, out_hi


@njit(cache=True, inline="always")
def _attacks_near(board, piece, sq, ksq, vacated):
    """The squares `piece` on sq would attack within two steps (all that can touch a
    king next to sq), ksq and `vacated` counted as empty, as a set."""
    lo = STEP_ATTACKS[piece, sq, 0]
    hi = STEP_ATTACKS[piece, sq, 1]
    slides = SLIDE_MASK[piece]
    if slides:
        for d in range(8):
            if (slides >> d) & 1:
                s = STEP[sq, d]
                if s >= 0:
                    lo, hi = with_square(lo, hi, s)
                    if board[s] == 0 or s == ksq or s == vacated:
                        s2 = STEP[s, d]
                        if s2 >= 0:
                            lo, hi = with_square(lo, hi, s2)
    return lo, hi


@njit(cache=True, _nrt=False)
def quick_mate_in_one(board, hands, state, out):
    """A mate in one by a check the king cannot answer by stepping or capturing, found
    by set tests before any move is played; -1 if none is found. It only looks at
    drops and moves to the king's neighbours and knight squares (no pawn drop, no
    discovered check, not while our own king is in check), so unlike mate_in_one it
    can miss a mate: the search's fixed-depth checks use it, where a miss costs nodes,
    never a verdict. Every move it returns has been played out and mates, and every
    check it passes over does not: mate_in_one plays out only the others
    (_settled_by_quick says which it looks at; keep the two in step).
    out needs 2 * MAX_MOVES room."""
    c = state[SIDE]
    e = 1 - c
    ksq = state[KING_SQ + e]
    own_king = state[KING_SQ + c]
    if ksq < 0 or (own_king >= 0 and attacked(board, state, own_king, e)):
        return np.int32(-1)
    reply = out[MAX_MOVES:]
    cov_lo, cov_hi = _covered_near(board, state, ksq, c)
    # The king's flights now. A check must cover all of them (a drop or a move can only
    # take squares away from this set, except the square a moving piece leaves).
    fl_lo = np.int64(0)
    fl_hi = np.int64(0)
    for d in range(8):
        t = STEP[ksq, d]
        if t >= 0 and (board[t] == 0 or (board[t] >> 4) != e) and not contains(cov_lo, cov_hi, t):
            fl_lo, fl_hi = with_square(fl_lo, fl_hi, t)
    # Drops (a pawn's mate would be 打ち歩詰め).
    hand = hands[c]
    if hand != 0:
        for kind in range(2, 8):
            if hand_count(hand, kind) == 0:
                continue
            piece = kind | (c << 4)
            reach = STEP_MASK[piece] | SLIDE_MASK[piece]
            for d in range(12):
                t = STEP[ksq, d]
                if t < 0 or (reach >> OPPOSITE[d]) & 1 == 0 or \
                        not _drop_allowed(board, kind, c, t, _0):   # (no pawn: no 二歩)
                    continue
                if d < 8 and not contains(cov_lo, cov_hi, t):
                    continue                         # the king takes it
                a_lo, a_hi = _attacks_near(board, piece, t, ksq, -1)
                a_lo, a_hi = with_square(a_lo, a_hi, t)
                if (fl_lo & ~a_lo) | (fl_hi & ~a_hi):
                    continue                         # a flight is left
                m = np.int32(make_drop(kind, t))
                if _mates(board, hands, state, m, reply):
                    return m
    # Board moves onto the same squares, by the pieces that attack them.
    pin_lo, pin_hi = _shields(board, state, own_king, c, e) if own_king >= 0 else (_0, _0)
    own_sliders_lo = state[SLIDERS] & state[OCCUPIED + 2 * c]
    own_sliders_hi = state[SLIDERS + 1] & state[OCCUPIED + 2 * c + 1]
    knight = _KNIGHT | (c << 4)
    for d in range(12):
        t = STEP[ksq, d]
        if t < 0 or (board[t] != 0 and (board[t] >> 4) == c):
            continue
        adjacent = d < 8
        if adjacent and not contains(cov_lo, cov_hi, t):
            continue             # nothing of ours reaches t
        if not adjacent and (STEP_MASK[knight] >> OPPOSITE[d]) & 1 == 0:
            continue             # a knight there would not check
        if adjacent:
            mv_lo, mv_hi = attackers_to(board, state, t, c)
        else:
            # Only a knight checks from a knight's square: our knights a jump from it.
            mv_lo = np.int64(0)
            mv_hi = np.int64(0)
            kn_lo = state[OCCUPIED + 2 * c] & STEP_ATTACKS[knight ^ 16, t, 0]
            kn_hi = state[OCCUPIED + 2 * c + 1] & STEP_ATTACKS[knight ^ 16, t, 1]
            while kn_lo | kn_hi:
                s, kn_lo, kn_hi = pop_square(kn_lo, kn_hi)
                if board[s] == knight:
                    mv_lo, mv_hi = with_square(mv_lo, mv_hi, s)
        several = single_square(mv_lo, mv_hi) < 0
        while mv_lo | mv_hi:
            frm, mv_lo, mv_hi = pop_square(mv_lo, mv_hi)
            p = board[frm]
            if (p & 15) == _KING:
                continue
            if contains(pin_lo, pin_hi, frm) and \
                    DIRECTION_TO[own_king, t] != DIRECTION_TO[own_king, frm]:
                continue
            if adjacent and not several:
                # Does anything else guard t once the king has taken on it?
                king = _lift(board, state, ksq)
                mover = _lift(board, state, frm)
                guarded = attacked(board, state, t, c)
                _put(board, state, frm, mover)
                _put(board, state, ksq, king)
                if not guarded:
                    continue
            # Flights are only known when no slider of ours stands on a line through
            # frm (leaving frm could open its line).
            flights_known = ((LINES[frm, 0] & own_sliders_lo)
                             | (LINES[frm, 1] & own_sliders_hi)) == 0
            f_lo, f_hi = fl_lo, fl_hi
            dk = DIRECTION_TO[ksq, frm]
            if flights_known and 0 <= dk < 8 and STEP[ksq, dk] == frm \
                    and not contains(cov_lo, cov_hi, frm):
                f_lo, f_hi = with_square(f_lo, f_hi, frm)   # the square it leaves
            n = emit_moves(out, _0, frm, t, p, c)
            for i in range(n):
                m = out[i]
                piece = p + 8 if is_promotion(m) else p
                if not piece_attacks_from(board, state, piece, t, ksq, frm):
                    continue
                if flights_known:
                    a_lo, a_hi = _attacks_near(board, piece, t, ksq, frm)
                    a_lo, a_hi = with_square(a_lo, a_hi, t)
                    if (f_lo & ~a_lo) | (f_hi & ~a_hi):
                        continue
                if _mates(board, hands, state, m, reply):
                    return m
    return np.int32(-1)


@njit(cache=True, _nrt=False)
def all_moves(board, hands, state, out):
    """Legal moves of the side to move, whether it is in check or not."""
    if in_check(board, state, state[SIDE]):
        return evasions(board, hands, state, out, EVERY_REPLY)
    return legal_moves(board, hands, state, out)


@njit(cache=True, _nrt=False)
def moves_onto(board, hands, state, to, out):
    """The legal moves of the side to move onto square `to`, into out; returns the
    count (the rivals a move's Japanese text names itself apart from). Generated for
    that square only: an attacker with a full hand has hundreds of drops elsewhere."""
    c = state[SIDE]
    target = board[to]
    if target != 0 and ((target >> 4) == c or (target & 15) == _KING):
        return 0                            # (as all_moves: no king is ever taken)
    n = _moves_to(board, state, c, to, out, _0)        # (its king's step below)
    ksq = state[KING_SQ + c]
    if ksq >= 0:
        d = DIRECTION_TO[ksq, to]
        if 0 <= d < 8 and STEP[ksq, d] == to:
            out[n] = make_move(ksq, to)
            n += 1
    if target == 0 and hands[c] != 0:
        pf = _pawn_files(board, state, c)
        for kind in range(1, 8):
            if hand_count(hands[c], kind) > 0 and _drop_allowed(board, kind, c, to, pf):
                out[n] = make_drop(kind, to)
                n += 1
    return _keep_legal(board, hands, state, out, n)


@njit(cache=True, _nrt=False)
def interposing(board, state, moves, n, flags):
    """Which of moves[:n] of the side to move, in check, interpose: land between its
    king and a single slider checking it from two or more squares away (the moves the
    無駄合 rule asks about; lines.interpositions). flags[i] <- whether moves[i] does;
    returns how many do."""
    for i in range(n):
        flags[i] = False
    c = state[SIDE]
    ksq = state[KING_SQ + c]
    csq = sole_checker(board, state, ksq, 1 - c)
    if csq < 0:
        return 0                        # no check, or a double check
    d = DIRECTION_TO[ksq, csq]
    if d >= 8 or STEP[ksq, d] == csq:
        return 0                        # a knight's or a contact check
    k = 0
    for i in range(n):
        to = move_to(moves[i])
        if move_from(moves[i]) != ksq and DIRECTION_TO[ksq, to] == d and \
                DIRECTION_TO[to, csq] == d:
            flags[i] = True
            k += 1
    return k


@njit(cache=True, _nrt=False)
def defence_left(board, hands, state, out, flags):
    """The side to move, in check: what its replies are, for the 無駄合 rule's minimax
    (mudaai.FutilityRule.value_and) at a node with no ply left. -1: a reply that does
    not interpose (see interposing), so the defence holds whatever futility says; 0: no
    reply (mate); 1: every reply interposes, so their futility decides. `out` and
    `flags`: room for the replies."""
    n = evasions(board, hands, state, out, EVERY_REPLY)
    if n == 0:
        return 0
    return 1 if interposing(board, state, out, n, flags) == n else -1


@njit(cache=True)
def line_rivals(board, hands, state, line, n, rivals, pieces, counts, scratch):
    """For each move i of line[:n], played in turn: the legal moves onto its destination
    (rivals[i, :counts[i]], at most rivals.shape[1] kept) and the piece each moves
    (pieces[i, k]: the piece on its source square, 0 for a drop). One call for a whole
    line's Japanese text. Returns the index of the first move that is not legal
    there (n: every one is); the position is restored."""
    caps = np.empty(max(n, 1), dtype=np.int64)
    width = rivals.shape[1]
    played = 0
    bad = n
    for i in range(n):
        m = line[i]
        k = moves_onto(board, hands, state, np.int64(move_to(m)), scratch)
        found = False
        for j in range(k):
            r = scratch[j]
            found |= r == m
            if j < width:
                rivals[i, j] = r
                f = move_from(r)
                pieces[i, j] = board[f] if f < DROP_BASE else 0
        counts[i] = min(k, width)
        if not found:
            bad = i
            break
        caps[i] = do_move(board, hands, state, m)
        played += 1
    for i in range(played - 1, -1, -1):
        undo_move(board, hands, state, line[i], caps[i])
    return bad


@njit(cache=True)
def hands_after(board, hands, state, line, n, out):
    """Both hands after line[:n] (moves known to be legal) into out; the position is
    restored. One call instead of a Python push per move."""
    caps = np.empty(n + 1, dtype=np.int64)
    for i in range(n):
        caps[i] = do_move(board, hands, state, line[i])
    out[0] = hands[0]
    out[1] = hands[1]
    for i in range(n - 1, -1, -1):
        undo_move(board, hands, state, line[i], caps[i])


# ---------------------------------------------------------------- Python-facing wrappers
def _buffer():
    return np.empty(2 * MAX_MOVES, dtype=np.int32)


def _flags():
    return np.empty(2 * MAX_MOVES, dtype=np.bool_)


def legal_moves_of(pos):
    buf = _buffer()
    n = all_moves(pos.board, pos.hands, pos.state, buf)
    return buf[:n].tolist()         # (Python ints, a tenth of the time of int() each)


def legal_moves_to(pos, to):
    """The legal moves of the side to move onto square `to` (see moves_onto)."""
    buf = _buffer()
    return buf[:moves_onto(pos.board, pos.hands, pos.state, np.int64(to), buf)].tolist()


def line_rivals_of(pos, moves):
    """([legal moves onto each move's destination], [the pieces they move, 0 for a
    drop], the index of the first illegal move or len(moves)) for a line of int moves
    from pos (see line_rivals)."""
    n = len(moves)
    rivals = np.empty((n, _RIVALS), dtype=np.int32)
    pieces = np.empty((n, _RIVALS), dtype=np.int8)
    counts = np.empty(n, dtype=np.int64)
    line = np.array(moves or [0], dtype=np.int32)
    bad = int(line_rivals(pos.board, pos.hands, pos.state, line, n, rivals, pieces, counts,
                          _buffer()))
    used = counts[:bad].tolist()
    width = max(used, default=0)
    rows, kinds = rivals[:bad, :width].tolist(), pieces[:bad, :width].tolist()
    return [r[:k] for r, k in zip(rows, used)], [p[:k] for p, k in zip(kinds, used)], bad


_RIVALS = 128     # room for the legal moves onto one square (at most about fifty)


def defence_left_of(pos):
    """defence_left for a Position (defender to move, in check)."""
    return int(defence_left(pos.board, pos.hands, pos.state, _buffer(), _flags()))


def interposing_of(pos, moves):
    """The moves (ints) of `moves` that interpose (see interposing), as a set."""
    if not moves:
        return set()
    flags = _flags()
    if not interposing(pos.board, pos.state, np.array(moves, dtype=np.int32), len(moves), flags):
        return set()
    return {m for m, f in zip(moves, flags[:len(moves)].tolist()) if f}


def check_moves_of(pos):
    buf = _buffer()
    n = check_moves(pos.board, pos.hands, pos.state, buf)
    return buf[:n].tolist()


def mate_in_one_of(pos):
    """A check that mates at once (an int move), or None."""
    move = int(mate_in_one(pos.board, pos.hands, pos.state, _buffer()))
    return None if move < 0 else move


def is_in_check(pos):
    return bool(in_check(pos.board, pos.state, pos.side_to_move))


def push(pos, move):
    do_move(pos.board, pos.hands, pos.state, np.int32(move))


def hand_after_moves(pos, moves, n, colour):
    """{kind: count} of the pieces in colour's hand after the first n integer moves
    (legal) of `moves` from pos; kinds it holds none of are left out."""
    out = np.empty(2, dtype=np.int64)
    hands_after(pos.board, pos.hands, pos.state, moves, n, out)
    packed = int(out[colour])
    return held_pieces(packed)
