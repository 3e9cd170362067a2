"""無駄合 (futile interpositions, SPEC §2.4, rule D2) and the length under that rule.

An interposition (a drop or a board move onto a square between the king and a slider
that checks it from two or more squares away) is futile when the checking piece can
take the interposed piece and, with that piece handed back to the defender, the
position is still a forced mate. Futility never changes *whether* there is a mate, so
the test is a plain mate-existence question for the df-pn engine (FutilityRule), whose
answers are written to the main table.

The length under the rule comes from the engine's rule mode (dfpn_search rule=True):
futile interpositions are no defence there, read from what FutilityRule settled. The
interpositions along the lines found are settled first; one met in the search whose
futility is still unknown counts as a real defence, which keeps every proof sound
(the defender only gains options), and the engine counts them: a "no shorter mate"
answer is exact only when none was met.
"""
import time
from typing import NamedTuple

import numpy as np

from . import movegen, notation
from . import pieces as P
from .answer import display_order, line_of_length, stored_proof_length
from .dfpn import RULE_D2_DISPROVE, futility_salt
from .lines import interpositions, interposes, verify_mating_line
from .solver import DISPROVE_NAMESPACE, RULE_NAMESPACE, namespace

# Up to this many plies the rule's length is settled by one disproof in the engine when
# nothing shorter exists, else comes from a Python minimax over the proven tree (exact
# and quick there); beyond, from the engine's rule mode.
SHORT_BOUND = 13
# A futility question left open is asked again up to this many times, each with four
# times the budget of the last (50K nodes per reply, then 200K, 800K, 3.2M), all
# within the analysis's own budget.
RETRIES = 3
# A futility question's first pass over the defender's replies gives each this many
# nodes at most (_defender_mated).
FIRST_PASS_NODES = 5_000


class RuleBudgetExceeded(Exception):
    """A futility question or the rule's minimax ran out of its budget or time."""


class RuleLength(NamedTuple):
    """What rule_answer found: the mate length by the rule; the line when it is
    shorter than the strict bound it was given (None: none shorter found); settled:
    no mate by the rule two plies shorter exists (so `length` is the shortest), every
    futility question that disproof met being settled."""
    length: int
    line: list | None
    settled: bool


class FutilityRule:
    def __init__(self, solver, attacker, query_nodes=50_000, deadline=None, max_positions=20_000,
                 keep_piece=False):
        self.solver = solver
        # The wider rule of dfpn.RULE_KEEP: the attacker keeps the piece it took.
        self.keep_piece = keep_piece
        self.max_positions = max_positions     # of the Python minimax (short problems)
        self.visited = 0
        self._or = {}
        self._and = {}
        self.attacker = attacker
        self.query_nodes = query_nodes
        self.deadline = deadline
        self.undecided = False      # some question was left open: the length may not be minimal
        self._futile = {}
        self._mated_after = {}      # position after a capture -> _defender_mated's answer
        self._open = set()          # futility questions the budget left undecided
        self._retried = {}          # ... and how often asked again, with larger budgets
        self.retries = 0            # questions asked again, in all
        self.stop_at = None         # node count (solver.nodes) where every question stops
        # A shallow pass of the minimax asks each futility question with its first pass
        # only (FIRST_PASS_NODES a reply); what that leaves open is kept apart (a real
        # defence in that pass, asked in full if the pass finds nothing).
        self.shallow = False
        self.shallow_open = set()
        self._disprove_searches = 0  # (no_mate_within's namespaces)

    # ------------------------------------------------------------ mate existence
    def _defender_mated(self, pos):
        """Defender to move, in check: a mate length bound if every reply is mated,
        False if one escapes, None if undecided. Its replies are searched as one
        defender node (Solver.search's `defender`), so that the nodes go where the node
        is nearest a verdict, mostly one reply's escape: first FIRST_PASS_NODES for
        each reply, then the query budget for each reply not yet mated (the table
        keeps what the first pass learned). A settled answer is written to the main
        table, where the engine's rule mode reads it."""
        open_replies = []
        for move in movegen.legal_moves_of(pos):
            child = pos.copy()
            child.push(move)
            open_replies.append(child)
        for cap in (FIRST_PASS_NODES, None):
            if self.deadline is not None and time.perf_counter() >= self.deadline:
                raise RuleBudgetExceeded
            budget = min(self.query_nodes, cap or self.query_nodes) * max(1, len(open_replies))
            if self.stop_at is not None:
                left = self.stop_at - self.solver.nodes
                if left <= 0:
                    raise RuleBudgetExceeded
                budget = min(budget, left)
            # A question the first pass leaves open is mostly a reply that escapes
            # after a long chase (a disproof): asked on as one that expects no mate.
            pn, dn, _, length = self.solver.search(pos, budget, deadline=self.deadline,
                                                   defender=True, expect_no_mate=cap is None)
            if dn == 0:
                self.solver.store(pos, self.attacker, proven=False)
                return False
            if pn == 0:
                self.solver.store(pos, self.attacker, proven=True, length=int(length))
                return int(length)
            if FIRST_PASS_NODES >= self.query_nodes or self.shallow:
                break
            open_replies = [child for child in open_replies
                            if self.solver.proof_length(child, self.attacker) is None]
        return None

    # ------------------------------------------------------------ futility
    def is_futile(self, pos, reply):
        """pos: defender to move, in check; reply: one of its moves (int)."""
        key = (pos.key(), reply)
        if key in self._futile:
            return self._futile[key]
        if self.shallow and key in self.shallow_open:
            return False
        if not interposes(pos, reply):
            return False
        king = pos.king_square(pos.side_to_move)
        out = np.empty(16, dtype=np.int64)
        movegen.find_attackers(pos.board, pos.state, king, 1 - pos.side_to_move, out)
        checker = int(out[0])
        to = notation.move_to(reply)
        after = pos.copy()
        after.push(reply)
        futile = unknown = False
        for capture in movegen.legal_moves_of(after):
            if notation.is_drop(capture) or notation.move_from(capture) != checker \
                    or notation.move_to(capture) != to:
                continue
            taken = P.base_kind(P.piece_kind(after.piece_at(to)))
            back = after.copy()
            back.push(capture)
            if not self.keep_piece:
                # Hand the captured piece back to the defender.
                hands = [back.hand(P.BLACK), back.hand(P.WHITE)]
                hands[self.attacker][taken] -= 1
                hands[1 - self.attacker][taken] += 1
                back.set_hand(self.attacker, hands[self.attacker])
                back.set_hand(1 - self.attacker, hands[1 - self.attacker])
            # Drops of any kind on one square come back to one position (the piece
            # is handed back): its answer is asked once.
            back_key = back.key()
            mated = self._mated_after.get(back_key)
            if mated is None:
                mated = self._defender_mated(back) if back.is_check() else False
                if mated is not None:
                    self._mated_after[back_key] = mated
            if mated is None:
                unknown = True
            elif mated is not False:
                futile = True
                break
        if unknown and not futile:
            if self.shallow:
                # Open at the first pass' budget: no answer yet, nothing stored.
                self.shallow_open.add(key)
                return False
            self.undecided = True           # kept as a real defence, and said so
            self._open.add(key)
        self._futile[key] = futile
        if futile or key not in self._open:
            # For the engine's rule mode too (dfpn._futility), under the position after
            # the interposition, whose entry outlives the post-capture ones.
            self.solver.store(after, self.attacker, proven=futile,
                              salt=futility_salt(self.solver.salt, not self.keep_piece, checker, to))
        return futile

    def settled_count(self):
        """How many futility questions have an answer (futile or not) so far."""
        return len(self._futile) - len(self._open)

    def is_open(self, pos, reply):
        """Was this futility question asked and left undecided by its budget?"""
        return (pos.key(), reply) in self._open

    def no_mate_within(self, root, depth, query_nodes=2_000_000, max_nodes=None):
        """Is it proven that there is no mate by the rule within `depth` plies? Asked
        of the engine's RULE_D2_DISPROVE, where an interposition of unknown futility
        counts as futile: its disproof holds whatever is still unknown. A proof there
        that took some as futile is no answer: they are settled (settle_proof: until
        one is a real defence, then on while they cost less than the search did) and
        the question asked again (in a fresh namespace, as what was assumed may have
        changed) until it is disproven, or nothing more can be settled. The
        interpositions asked about are the few that a shorter mate would need, where a
        disproof under D2 meets thousands whose futility it needs (図巧2: settled in
        0.5 s, where the latter had left it open after 10M nodes). Within
        self.stop_at, if set, and max_nodes more nodes."""
        if depth < 1:
            return True
        solver = self.solver
        saved = self.stop_at
        if max_nodes is not None:
            own = solver.nodes + max_nodes
            self.stop_at = own if saved is None else min(saved, own)
        try:
            while True:
                left = query_nodes if self.stop_at is None else min(
                    query_nodes, self.stop_at - solver.nodes)
                if left <= 0 or (self.deadline is not None
                                 and time.perf_counter() >= self.deadline):
                    return False
                # A namespace of its own each time: the proofs of an earlier one may
                # rest on what has been settled since.
                self._disprove_searches += 1
                salt = namespace(solver.salt, DISPROVE_NAMESPACE, self._disprove_searches)
                before = solver.nodes
                pn, dn, _, _ = solver.search(root, left, deadline=self.deadline,
                                             max_depth=depth, salt=salt, rule=RULE_D2_DISPROVE)
                if dn == 0:
                    return True
                if pn != 0 or solver.unknown_futility == 0:
                    return False            # the budget, or a mate that assumed nothing
                holds, progress = self.settle_proof(root, salt, depth, solver.nodes - before)
                if holds or not progress:
                    return False            # a mate by the rule, or nothing more settled
        except RuleBudgetExceeded:
            pass
        finally:
            self.stop_at = saved
        return False

    def settle_proof(self, root, salt, plies, allowance=0):
        """Read the proof of a mate of root within `plies` from namespace `salt` (a
        search that took interpositions of unknown futility as futile) and the main
        one, and settle the interpositions it took as futile without knowing. Returns
        (does every one of them turn out futile, was anything settled that was not
        before). The first is False also when the proof cannot be read.
        One real defence breaks the proof; the next search reads it from the table and
        looks for another mate, where it may meet the others again. So the questions
        are asked cheapest first (each with its first pass only, then the rest in
        full, one left open before last: its retry costs four times more), and once
        one breaks the proof the others only while they have cost less than
        `allowance` nodes since (the search that found the proof: about what the next
        one costs). A short problem's search costs a few hundred nodes and a question
        up to thousands times more; a long one's search can cost more than all its
        questions."""
        assumed, readable = self._assumed_futile(root, salt, plies)
        solver = self.solver
        progress = False
        broken_at = None            # solver.nodes when a real defence broke the proof

        def enough():
            return broken_at is not None and solver.nodes - broken_at >= allowance

        pending = []
        saved = self.shallow, set(self.shallow_open)
        self.shallow = True
        self.shallow_open.clear()
        try:
            for pos, reply in assumed:
                if enough():
                    break
                key = (pos.key(), reply)
                if key in self._open:
                    pending.append((pos, reply))      # asked in full before: retried below
                    continue
                futile = self.is_futile(pos, reply)
                if key in self.shallow_open:
                    pending.append((pos, reply))
                    continue
                progress = True
                if not futile and broken_at is None:
                    broken_at = solver.nodes
        finally:
            self.shallow = saved[0]
            self.shallow_open.clear()
            self.shallow_open.update(saved[1])
        holds = readable and broken_at is None
        pending.sort(key=lambda entry: (entry[0].key(), entry[1]) in self._open)
        for pos, reply in pending:
            if enough():
                break
            progress |= self.settle(pos, reply)
            if self.is_open(pos, reply):
                holds = False       # still not known: another may break the proof
            elif not self.is_futile(pos, reply):
                holds = False       # a real defence
                if broken_at is None:
                    broken_at = solver.nodes
        return holds, progress

    def _assumed_futile(self, root, salt, plies):
        """The interpositions (pos, reply) that the proof of a mate of root within
        `plies` (namespace `salt`, and the main one) took as futile without knowing
        (never asked, or left open), in the order met; and whether the proof could be
        read whole. Asks nothing."""
        solver, attacker = self.solver, self.attacker
        verified, unreadable = set(), set()
        assumed, seen = [], set()

        def attacker_node(pos, left):
            key = (pos.key(), left)
            if key in verified:
                return True
            if key in unreadable:
                return False
            # A plain proof assumes nothing; the leaf checks of the search store an
            # attacker node proven by a mate in one, or three, without its children.
            plain = solver.proof_length(pos, attacker)
            if plain is not None and plain <= left:
                return True
            proven = []
            for move in movegen.check_moves_of(pos):
                child = pos.copy()
                child.push(move)
                if left >= 1 and child.is_mate():
                    return True         # (check_moves has no pawn-drop mate)
                length = stored_proof_length(solver, child, attacker, salt)
                if length is not None and length <= left - 1:
                    proven.append((length, child))
            # The shortest stored proof first; another where the table lost part of one.
            for _, child in sorted(proven, key=lambda entry: entry[0]):
                plain = solver.proof_length(child, attacker)   # a plain proof assumes nothing
                if (plain is not None and plain <= left - 1) or defender_node(child, left - 1):
                    verified.add(key)
                    return True
            unreadable.add(key)
            return False

        def defender_node(pos, left):
            for reply in movegen.legal_moves_of(pos):
                if interposes(pos, reply):
                    key = (pos.key(), reply)
                    if key not in self._futile or key in self._open:
                        # The search knew nothing of it, so took it as futile.
                        if key not in seen:
                            seen.add(key)
                            assumed.append((pos, reply))
                        continue
                    if self._futile[key]:
                        continue                    # futile: no defence
                child = pos.copy()
                child.push(reply)
                if not attacker_node(child, left - 1):
                    return False
            return True

        readable = attacker_node(root, plies)
        return assumed, readable

    # ------------------------------------------------------------ rule minimax
    def _count(self):
        self.visited += 1
        if self.visited > self.max_positions or (
                self.deadline is not None and time.perf_counter() >= self.deadline):
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

    def shallow_value_or(self, root, limit):
        """value_or(root, limit), its futility questions asked first with their first
        pass only: a line found so rests only on settled questions (an open one counts
        as a real defence), and most lines are found without the questions that take
        a long search to leave open. Asked in full only when that pass finds none and
        left some open."""
        self.shallow = True
        self.shallow_open.clear()
        try:
            found = self.value_or(root.copy(), limit)
        finally:
            self.shallow = False
        if found is not None or not self.shallow_open:
            return found
        # The values the shallow pass cached rest on its open questions.
        self._or.clear()
        self._and.clear()
        self.shallow_open.clear()
        return self.value_or(root.copy(), limit)

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
        if limit < 2 and movegen.defence_left_of(pos) < 0:
            # No ply left for a reply to be mated in: one that is no interposition
            # holds out (most nodes of the minimax end here: one compiled call).
            self._and[key] = (None, None, limit)
            return None
        replies = movegen.legal_moves_of(pos)
        interposing = interpositions(pos, replies)
        # Replies that are not interpositions first: they fail cheaply.
        replies.sort(key=notation.move_to_usi)
        replies.sort(key=lambda m: m in interposing)
        worst = (0, [])
        for move in replies:
            sub = None
            if limit >= 2:
                child = pos.copy()
                child.push(move)
                sub = self.value_or(child, limit - 1)
            if sub is None:
                if move in interposing and self.is_futile(pos, move):
                    continue                 # not a defence under the rule
                worst = None
                break
            if sub[0] + 1 > worst[0]:
                worst = (sub[0] + 1, [notation.move_to_usi(move)] + sub[1])
        self._and[key] = (None, None, limit) if worst is None else (worst[0], worst[1], limit)
        return worst

    def settle_line(self, root, line):
        """Settle the futility of every interposition open to the defender along a
        line (written to the table for the engine). Returns how many were futile."""
        count = 0
        cur = root.copy()
        for ply, usi in enumerate(line):
            if ply % 2 == 1:
                for reply in movegen.legal_moves_of(cur):
                    if interposes(cur, reply) and self.is_futile(cur, reply):
                        count += 1
            cur.push_usi(usi)
        return count

    def settle_paths(self, root, paths):
        """Settle the interpositions at the ends of these paths (from root, the
        interposition last). Returns how many were not settled before."""
        fresh = 0
        for path in paths:
            cur = root.copy()
            for usi in path[:-1]:
                cur.push_usi(usi)
            fresh += self.settle(cur, notation.usi_to_move(path[-1]))
        return fresh

    def settle(self, pos, reply):
        """Ask whether reply (pos: defender to move) is futile; a question left open
        before is asked again with four times the last budget, up to RETRIES times (a
        question one search leaves open, another may meet at every turn: 図巧18 has
        one that takes 211K nodes). Returns whether it was not settled before."""
        key = (pos.key(), reply)
        tries = self._retried.get(key, 0)
        if key in self._open and tries < RETRIES:
            self._retried[key] = tries + 1
            self.retries += 1
            self._open.discard(key)
            del self._futile[key]
            saved, self.query_nodes = self.query_nodes, self.query_nodes * 4 ** (tries + 1)
            try:
                self.is_futile(pos, reply)
            finally:
                self.query_nodes = saved
            return key not in self._open
        if key not in self._futile:
            self.is_futile(pos, reply)
            return True
        return False

    # ------------------------------------------------------------ line
    def line(self, root, salt, length, reprove, confirm):
        """The longest line up to `length` plies read from the proofs of the rule
        namespace and the main one, ending where only futile interpositions are left
        (see answer.line_of_length, which calls reprove(pos, plies) for a reply whose
        proof is not in the table and confirm(plies) for a line shorter than the
        proven bound); None when none can be read."""
        def defences(pos):
            return [m for m in sorted(movegen.legal_moves_of(pos), key=notation.move_to_usi)
                    if not self.is_futile(pos, m)]
        return line_of_length(root, length,
                              lambda pos: stored_proof_length(self.solver, pos, self.attacker, salt),
                              defences, reprove=reprove, confirm=confirm, deadline=self.deadline)


def rule_answer(solver, root, bound, strict_line, query_nodes=2_000_000,
                total_nodes=20_000_000, deadline=None):
    """The mate by the 無駄合 rule (a RuleLength), given `bound`, a proven strict mate
    length bound (which bounds the rule's length too) and the strict line to start
    from; None when the budget ran out before any answer."""
    rule = FutilityRule(solver, root.side_to_move, deadline=deadline)
    if bound <= SHORT_BOUND:
        # Short problems. Most often nothing shorter than the bound exists even with
        # every interposition of unknown futility taken as futile: one compiled
        # disproof settles it. Else a plain minimax over the proven tree, lengths
        # tried from 1 upwards, so that the first line found is the shortest.
        try:
            if rule.no_mate_within(root, bound - 2, query_nodes, total_nodes):
                return RuleLength(bound, None, True)
            known = rule.settled_count()
            for limit in range(1, bound - 1, 2):
                # Only the passes that found nothing say the length is the shortest:
                # a question left open in the pass that finds a line (counted as a
                # real defence there) cannot make a shorter one.
                open_below = rule.undecided
                found = rule.shallow_value_or(root, limit)
                if found is not None:
                    return RuleLength(found[0], found[1], not open_below or rule.no_mate_within(
                        root, found[0] - 2, query_nodes, total_nodes))
            # That disproof is asked again only if the minimax settled something since:
            # else it would only ask its open questions again with larger budgets.
            return RuleLength(bound, None, not rule.undecided or (
                rule.settled_count() != known and rule.no_mate_within(
                    root, bound - 2, query_nodes, total_nodes)))
        except RuleBudgetExceeded:
            pass                        # too big for it: the engine's rule mode below
    stop_at = solver.nodes + total_nodes
    rule.stop_at = stop_at
    fresh = 0
    salt = namespace(solver.salt, RULE_NAMESPACE)
    length, line, settled, answered = bound, None, False, False
    # What the searches in the current namespace met: interpositions of unknown
    # futility (a search that ran out of its query budget is continued there, so a
    # disproof may rest on what an earlier call met), and the paths to them.
    met_unknown, paths = False, []
    search_nodes = query_nodes
    try:
        rule.settle_line(root, strict_line)
        while True:
            if length < 3:
                settled = answered = True       # nothing shorter than one ply
                break
            left = stop_at - solver.nodes
            if left <= 0:
                break
            before = solver.nodes
            pn, dn, _, found = solver.search(root, min(search_nodes, left), deadline=deadline,
                                             max_depth=length - 2, salt=salt, rule=True)
            met_unknown |= solver.unknown_futility != 0
            paths += solver.pending_paths()
            if dn == 0:
                answered = True
                if not met_unknown:
                    # Every interposition this disproof met had its futility settled
                    # (what stayed undecided elsewhere does not matter to it).
                    settled = True
                    break
                # The disproof counted some interpositions of unknown futility as real
                # defences. Often a search that takes every such one as futile finds
                # no mate either, which settles it at once; else settle them and ask
                # again in a fresh namespace, where a disproof cannot rest on what was
                # assumed here.
                known = rule.settled_count()
                if rule.no_mate_within(root, length - 2, query_nodes):
                    settled = True
                    break
                # (What no_mate_within settled may allow a shorter mate: ask again.)
                if not rule.settle_paths(root, paths) and rule.settled_count() == known:
                    break           # nothing new could be settled
                fresh += 1          # a namespace never used before (not a toggle back)
                salt = namespace(solver.salt, RULE_NAMESPACE, fresh)
                met_unknown, paths = False, []
                continue
            if pn != 0:
                # Out of its query budget. The search that takes unsettled
                # interpositions as futile may still prove that nothing shorter
                # exists; else, while the analysis has nodes left, both go on with
                # twice the budget (this search where it stopped: the table kept it).
                if rule.no_mate_within(root, length - 2, search_nodes):
                    answered = settled = True
                    break
                if solver.nodes == before or (deadline is not None
                                              and time.perf_counter() >= deadline):
                    break
                search_nodes *= 2
                continue
            proven = [int(found)]

            def within(pos, plies):
                # The mate length by the rule within `plies`, from a search in this
                # namespace (a proof the read needs and the table lost), or None.
                nonlocal met_unknown
                pn, _, _, length = solver.search(pos, min(query_nodes, max(0, stop_at - solver.nodes)),
                                                 deadline=deadline, max_depth=plies, salt=salt,
                                                 rule=True)
                # (Its disproofs stay in the namespace too: count what they met.)
                met_unknown |= solver.unknown_futility != 0
                return int(length) if pn == 0 else None

            def confirm(plies):
                # A line shorter than the proof counts once a mate within its length
                # is proven (its defender may have left a longer defence unread).
                length = within(root, plies)
                if length is not None:
                    proven.append(length)
                return length is not None
            new_line = rule.line(root, salt, int(found), within, confirm)
            if new_line is None or not verify_mating_line(root, new_line, rule=True):
                break
            answered = True
            # The next question counts down from the proven bound, not from the line,
            # which may be longer than the bound (bounds read from different proofs).
            length, line = min(proven), new_line
            if rule.settle_line(root, new_line):
                # New futile interpositions: what the rule namespace disproved may no
                # longer hold, so continue in a fresh one (its proofs stay true).
                fresh += 1
                salt = namespace(solver.salt, RULE_NAMESPACE, fresh)
                met_unknown, paths = False, []
    except RuleBudgetExceeded:
        pass
    if not answered:
        return None
    if line is None:
        return RuleLength(length, None, settled)
    return RuleLength(len(line), line, settled and len(line) == length)
