"""無駄合 (futile interpositions, SPEC §2.4, rule D2) and the length under that rule.

An interposition (a drop or a board move onto a square between the king and a slider
that checks it from two or more squares away) is futile when the checking piece can
take the interposed piece and, with that piece handed back to the defender, the
position is still a forced mate. Futility never changes *whether* there is a mate, so
the test is a plain mate-existence question for the df-pn engine.

The rule length is then a minimax over the proven tree in which futile interpositions
are not defences: a defender whose only replies are futile is mated. It is computed
by a memoised, bounded search over proven nodes; when the bound is hit, the caller
keeps the strict answer and says so.
"""
import time

import numpy as np

from . import movegen, notation
from .answer import display_order
from . import pieces as P


class RuleBudgetExceeded(Exception):
    pass


class FutilityRule:
    def __init__(self, solver, attacker, max_positions=20_000, query_nodes=50_000, deadline=None):
        self.solver = solver
        self.attacker = attacker
        self.max_positions = max_positions
        self.query_nodes = query_nodes
        self.deadline = deadline
        self.undecided = False      # some question was left open: the length may not be minimal
        self._futile = {}
        self._or = {}
        self._and = {}
        self.visited = 0

    # ------------------------------------------------------------ mate existence
    def _attacker_mates(self, pos):
        """Attacker to move: True/False for a forced mate (any length), None if the
        budget did not settle it."""
        if self.deadline is not None and time.perf_counter() >= self.deadline:
            raise RuleBudgetExceeded
        pn, dn, _, _ = self.solver.search(pos, self.query_nodes, deadline=self.deadline)
        if pn == 0:
            return True
        if dn == 0:
            return False
        return None

    def _defender_mated(self, pos):
        """Defender to move: True/False, None if undecided (one escape is enough for
        False, so an undecided reply does not stop the others from being tried)."""
        verdict = True
        for move in movegen.legal_moves_of(pos):
            child = pos.copy()
            child.push(move)
            mates = self._attacker_mates(child)
            if mates is False:
                return False
            if mates is None:
                verdict = None
        return verdict

    # ------------------------------------------------------------ futility
    def is_futile(self, pos, reply):
        """pos: defender to move, in check; reply: one of its moves (int)."""
        if not interposes(pos, reply):
            return False
        king = pos.king_square(pos.side_to_move)
        out = np.empty(16, dtype=np.int64)
        movegen.find_attackers(pos.board, king, 1 - pos.side_to_move, out)
        checker = int(out[0])
        to = notation.move_to(reply)
        key = (pos.key(), reply)
        if key in self._futile:
            return self._futile[key]
        after = pos.copy()
        after.push(reply)
        futile = False
        for capture in movegen.legal_moves_of(after):
            if notation.is_drop(capture) or notation.move_from(capture) != checker \
                    or notation.move_to(capture) != to:
                continue
            taken = P.base_kind(P.piece_kind(after.piece_at(to)))
            back = after.copy()
            back.push(capture)
            # Hand the captured piece back to the defender.
            hands = [back.hand(P.BLACK), back.hand(P.WHITE)]
            hands[self.attacker][taken] -= 1
            hands[1 - self.attacker][taken] += 1
            back.set_hand(self.attacker, hands[self.attacker])
            back.set_hand(1 - self.attacker, hands[1 - self.attacker])
            mated = self._defender_mated(back) if back.is_check() else False
            if mated is None:
                self.undecided = True       # kept as a real defence, and said so
            elif mated:
                futile = True
                break
        self._futile[key] = futile
        return futile

    # ------------------------------------------------------------ rule minimax
    def _count(self):
        self.visited += 1
        if self.visited > self.max_positions:
            raise RuleBudgetExceeded

    def value_or(self, pos, limit):
        """Attacker to move, proven: (rule length, line) with length <= limit, or None."""
        key = pos.key()
        cached = self._or.get(key)
        if cached is not None and (cached[0] is None and cached[2] >= limit or
                                   cached[0] is not None and cached[0] <= limit):
            return None if cached[0] is None else (cached[0], cached[1])
        self._count()
        best = None
        for move in sorted(movegen.check_moves_of(pos), key=display_order):
            if best is not None and best[0] == 1:
                break
            child = pos.copy()
            child.push(move)
            bound = (best[0] - 2) if best is not None else limit - 1
            if bound < 0:
                break
            sub = self.value_and(child, bound)
            if sub is not None:
                best = (sub[0] + 1, [notation.move_to_usi(move)] + sub[1])
        self._or[key] = (None, None, limit) if best is None else (best[0], best[1], limit)
        return best

    def value_and(self, pos, limit):
        """Defender to move: (rule length, line) if mated within limit by the rule, else
        None. Futility is asked only of an interposition that would otherwise hold out
        beyond the limit (the expensive question, asked last)."""
        key = pos.key()
        cached = self._and.get(key)
        if cached is not None and (cached[0] is None and cached[2] >= limit or
                                   cached[0] is not None and cached[0] <= limit):
            return None if cached[0] is None else (cached[0], cached[1])
        self._count()
        replies = sorted(movegen.legal_moves_of(pos), key=notation.move_to_usi)
        # Replies that are not interpositions first: they fail cheaply.
        replies.sort(key=lambda m: interposes(pos, m))
        worst = (0, [])
        for move in replies:
            sub = None
            if limit >= 2:
                child = pos.copy()
                child.push(move)
                sub = self.value_or(child, limit - 1)
            if sub is None:
                if interposes(pos, move) and self.is_futile(pos, move):
                    continue                 # not a defence under the rule
                worst = None
                break
            if sub[0] + 1 > worst[0]:
                worst = (sub[0] + 1, [notation.move_to_usi(move)] + sub[1])
        self._and[key] = (None, None, limit) if worst is None else (worst[0], worst[1], limit)
        return worst


def interposes(pos, reply):
    """Is reply (defender to move, in check) a move onto the line between the king and
    a single slider checking it from two or more squares away?"""
    king = pos.king_square(pos.side_to_move)
    out = np.empty(16, dtype=np.int64)
    if movegen.find_attackers(pos.board, king, 1 - pos.side_to_move, out) != 1:
        return False
    checker = int(out[0])
    d = P.DIRECTION_TO[king, checker]
    if d >= 8 or P.STEP[king, d] == checker:
        return False
    to = notation.move_to(reply)
    return (notation.move_from(reply) != king and P.DIRECTION_TO[king, to] == d
            and P.DIRECTION_TO[to, checker] == d)


def only_interpositions_left(pos):
    """Defender to move and in check, with no reply but interpositions (the shape of a
    line that ends by the 無駄合 rule)."""
    replies = movegen.legal_moves_of(pos)
    return pos.is_check() and bool(replies) and all(interposes(pos, m) for m in replies)


def rule_answer(solver, root, strict_length, max_positions=20_000, deadline=None):
    """(length, line, settled) of the shortest mate by the 無駄合 rule when it is
    shorter than strict_length; (strict_length, None, settled) when there is none;
    None when the bounded search gave up. Lengths are tried from 1 upwards, so the
    first line found is the shortest; settled is False when a futility question stayed
    open (the interposition then counted as a real defence)."""
    rule = FutilityRule(solver, root.side_to_move, max_positions=max_positions, deadline=deadline)
    try:
        for limit in range(1, strict_length - 1, 2):
            found = rule.value_or(root.copy(), limit)
            if found is not None:
                return found[0], found[1], not rule.undecided
    except RuleBudgetExceeded:
        return None
    return strict_length, None, not rule.undecided