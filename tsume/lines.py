"""Mating lines between the engine and the answer: integer moves to and from USI text,
the attacker's hand at a line's end, and the replay that every reported line passes.

A line is *verified* when it replays legally from its position with every attacker
move a check and ends in mate; under the 無駄合 rule it may instead end where the
defender, in check from a distant slider, has nothing but interpositions on that
line (their futility was proven by the search that chose the line).
"""
import numpy as np

from . import movegen, notation
from . import pieces as P
from .dfpn import replays_to_mate

_USI = {}   # integer move -> USI text: at most ~14,000 moves exist, and a short
            # problem's solve would spend more writing its moves than searching them


def to_usi(moves):
    """USI strings of moves: an int array or a list of ints."""
    known = _USI
    out = []
    for m in (moves if isinstance(moves, list) else moves.tolist()):
        text = known.get(m)
        if text is None:
            text = known[m] = notation.move_to_usi(m)
        out.append(text)
    return out


# The same texts by move (the encoding's 15 bits, move.py), for whole arrays of lines
# at once: a None is a move not seen yet.
_USI_BY_MOVE = np.full(1 << 15, None, dtype=object)


def usi_rows(moves):
    """USI strings of a 2-D int array of moves, as one list per row (solve_many: one
    numpy lookup for a batch's lines costs less than to_usi on each)."""
    texts = _USI_BY_MOVE[moves]
    unseen = texts == None      # noqa: E711 (elementwise, on an object array)
    if unseen.any():
        for move in np.unique(moves[unseen]).tolist():
            _USI_BY_MOVE[move] = to_usi([move])[0]
        texts = _USI_BY_MOVE[moves]
    return texts.tolist()


def to_moves(line):
    """USI strings -> int32 array for the compiled kernels (never empty: a zero-length
    line is passed with its length 0)."""
    return np.array([notation.usi_to_move(u) for u in line] or [0], dtype=np.int32)


_LEFTOVER = {}   # packed hand -> {USI letter: count}, for the hands seen last


def leftover_of_hand(packed):
    """{USI letter: count} of the pieces of a packed hand (a copy of a cached dict:
    most short problems end with pieces in hand, and unpacking one costs microseconds)."""
    out = _LEFTOVER.get(packed)
    if out is None:
        if len(_LEFTOVER) >= 4096:
            _LEFTOVER.clear()
        out = _LEFTOVER[packed] = {P.USI_LETTER[k]: n for k, n in P.held_pieces(packed).items()}
    return dict(out)


def leftover_after(pos, moves, n):
    """{USI letter: count} of the attacker's hand after the first n integer moves."""
    left = movegen.hand_after_moves(pos, moves, n, pos.side_to_move)
    return {P.USI_LETTER[k]: c for k, c in left.items()}


def interposes(pos, reply):
    """Is reply (defender to move, in check) a move onto the line between the king and
    a single slider checking it from two or more squares away?"""
    return reply in interpositions(pos, (reply,))


def interpositions(pos, replies):
    """The replies (ints; defender to move, in check) that interpose (see interposes),
    as a set (movegen.interposing: the checker is found once for them all)."""
    return movegen.interposing_of(pos, list(replies))


def only_interpositions_left(pos):
    """Defender to move and in check, with no reply but interpositions (the shape of a
    line that ends by the 無駄合 rule)."""
    return movegen.is_in_check(pos) and movegen.defence_left_of(pos) == 1


def skipped_mate(pos, line):
    """The first attacker turn (0-based ply) of `line` (USI) from pos, the last one
    aside, where a mate at once exists: a line that goes on from there is no minimax
    line. None if there is none."""
    cur = pos.copy()
    for ply, usi in enumerate(line[:-1]):
        if ply % 2 == 0 and movegen.mate_in_one_of(cur) is not None:
            return ply
        cur.push_usi(usi)
    return None


def mate_at_once_first(pos, line):
    """`line` (USI, a mating line from pos) cut at its first skipped mate (see
    skipped_mate) and ended there by that mate; the line itself if it skips none."""
    ply = skipped_mate(pos, line)
    if ply is None:
        return list(line)
    cur = pos.copy()
    for usi in line[:ply]:
        cur.push_usi(usi)
    return list(line[:ply]) + [notation.move_to_usi(movegen.mate_in_one_of(cur))]


def verify_mating_line(pos, line, rule=False):
    """Replay `line` (USI strings) from pos: every attacker move a legal check, every
    defender move legal, the end mate; with rule=True the end may instead leave the
    defender only interpositions (see the module's note)."""
    if replays_to_mate(pos.board, pos.hands, pos.state, to_moves(line), len(line)):
        return True
    if not rule or len(line) % 2 == 0:
        return False
    cur = pos.copy()
    attacker = pos.side_to_move
    for usi in line:
        move = notation.usi_to_move(usi)
        legal = movegen.check_moves_of(cur) if cur.side_to_move == attacker else movegen.legal_moves_of(cur)
        if move not in legal:
            return False
        cur.push(move)
    return only_interpositions_left(cur)
