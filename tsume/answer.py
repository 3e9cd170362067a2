"""The strict answer's questions (SPEC §2.3, §2.5): the exact mate length, the main
line chosen by the tsume rules, 駒余り, 変同 and the 余詰 check. The pipeline
(pipeline.py) asks them in turn; the 無駄合 rule's are in mudaai.py.

Everything here asks the df-pn engine small questions ("is there a mate within d
plies from here?") through Solver.search with a depth limit. Those searches share one
table namespace of their own (solver.DEPTH_NAMESPACE: proofs there carry their
length, depth-bounded disproofs their depth), apart from the main proof's namespace,
which the 余詰 check uses. A question that runs out of budget raises OutOfBudget,
which makes the answer "not exact" rather than wrong: the pipeline then reports the
verified line it already has.
"""
import time

from . import movegen, notation
from .limits import MAX_NODES, YOZUME_GROWTH
from .solver import DEPTH_NAMESPACE, namespace

# Nodes the out-of-budget fallback may still spend to read a line as long as the
# shortest mate proven, re-proving what the table lost on the way (line_of_length).
REPROVE_NODES = 5_000_000
# Node caps of mated_within's passes over a defender's replies (None: the query budget).
_WIDENING = (10_000, 200_000, None)


# Node caps per defender reply of the 余詰 check's first passes over all the
# alternatives (AnswerFinder.yozume); the last pass is the caller's budget a reply.
_YOZUME_PASSES = (2_000, 20_000)


class _Alternative:
    """Another check at an attacker turn of the main line, as the 余詰 check asks it:
    the main-line position it is played from, the positions after its replies that no
    proof is known for yet (`open`; None: not asked yet), and what the asking found:
    `mates` None (open), True (every reply is mated; `length`: the plies of that proof
    from `before`, the check included) or False (a reply escapes: a 紛れ)."""

    __slots__ = ("ply", "before", "move", "open", "mates", "length", "main_keys")

    def __init__(self, ply, pos, move, main_keys):
        self.ply, self.move, self.main_keys = ply, move, main_keys
        self.before = pos.copy()
        self.open = self.mates = self.length = None

    def unsettled(self):
        return self.mates is None

    def after(self):
        """The position after the check."""
        after = self.before.copy()
        after.push(self.move)
        return after

    def replies(self):
        """{reply: the position after it} of the check."""
        after = self.after()
        out = {}
        for reply in movegen.legal_moves_of(after):
            child = after.copy()
            child.push(reply)
            out[reply] = child
        return out


class OutOfBudget(Exception):
    """A depth-limited question could not be settled within the node budget."""


def display_order(move):
    """Order in which equal attacker choices are tried: USI order, a promotion before
    the same move unpromoted (the usual way to show a move that mates either way)."""
    usi = notation.move_to_usi(move)
    return (usi.rstrip("+"), not usi.endswith("+"))


def stored_proof_length(solver, pos, attacker, salt):
    """Shortest proof of pos stored in namespace `salt` or in the main one, None if
    neither has one (an upper bound of the mate length only)."""
    best = None
    for s in (salt, solver.salt):
        length = solver.proof_length(pos, attacker, salt=s)
        if length is not None and (best is None or length < best):
            best = length
    return best


def line_of_length(root, length, proof_length, defences, max_steps=5_000, reprove=None,
                   confirm=None, deadline=None):
    """The longest mating line of at most `length` plies (a proven bound of the root's
    mate) that can be read from stored proofs, if it claims nothing false; else None.
    proof_length(pos) is the shortest stored proof of pos (None if none): an upper
    bound of its value only. defences(pos) are the defender's replies that count (USI
    order). The attacker plays the check with the shortest proof (display order among
    equals); the defender tries replies by longest proof first, backtracking (branch
    and bound on those bounds) while a longer line may exist, and stopping at one of
    `length` plies. The line ends where the defender has no reply that counts. An
    explicit stack, so lines of any length fit; max_steps bounds the attacker nodes
    visited. reprove(pos, plies), if given, is asked for a reply whose proof the table
    lost (or never stored: a drop proven like its twin): its mate length within
    `plies`, or None.

    A line shorter than the root's proven bound (`length`, or one more than its first
    check's proof) may be one where the defender left his longest defence, its proof
    unreadable, for a reply that loses sooner: it would claim a mate shorter than the
    shortest. Such a line is returned only if confirm(plies) proves a mate within its
    length (without confirm, never). Past `deadline` the walk stops as if out of steps."""
    floor = length
    best_line = None
    moves, stack = [], []
    pos, steps = root.copy(), 0
    while True:
        steps += 1
        if steps % 16 == 0 and deadline is not None and time.perf_counter() >= deadline:
            steps = max_steps + 1      # (a walk has no budget of its own: the problem's)
        if steps <= max_steps and len(moves) < length:
            best = None
            # A mate at once is the shortest whatever the table says (a stored proof
            # is an upper bound only, and a mate in one is often not stored at all).
            mates_now = movegen.mate_in_one_of(pos) is not None
            for move in sorted(movegen.check_moves_of(pos), key=display_order):
                child = pos.copy()
                child.push(move)
                if mates_now:
                    if child.is_mate():
                        best = (0, move, child)
                        break
                    continue
                bound = proof_length(child)
                if bound is not None and (best is None or bound < best[0]):
                    best = (bound, move, child)
            if best is not None:
                if not moves:
                    floor = min(length, best[0] + 1)
                moves.append(notation.move_to_usi(best[1]))
                candidates = []
                for move in defences(best[2]):
                    child = best[2].copy()
                    child.push(move)
                    # A reply the attacker mates at once holds out one ply (the
                    # defender's longest resistance is chosen on these bounds).
                    bound = 1 if movegen.mate_in_one_of(child) is not None else proof_length(child)
                    if bound is None and reprove is not None:
                        bound = reprove(child, length - len(moves) - 1)
                    if bound is None:
                        candidates = None       # a reply without a proof: not readable
                        break
                    candidates.append((-bound, notation.move_to_usi(move), child))
                # Bounds read from different proofs need not agree (a table that
                # dropped an entry keeps a longer proof): a line past `length` is
                # not taken.
                if candidates == [] and len(moves) <= length:
                    if best_line is None or len(moves) > len(best_line):
                        best_line = list(moves)
                        if len(best_line) >= length:
                            return best_line
                elif candidates:
                    candidates.sort(key=lambda c: c[0])
                    stack.append([candidates, 0, len(moves)])
        # Next defender choice: the top frame's next candidate that may still give a
        # longer line than the best one, else backtrack.
        while stack:
            frame = stack[-1]
            if frame[1] < len(frame[0]):
                bound, usi, child = frame[0][frame[1]]
                frame[1] += 1
                if best_line is not None and frame[2] + 1 - bound <= len(best_line):
                    frame[1] = len(frame[0])    # sorted by bound: none further can
                    continue
                del moves[frame[2]:]
                moves.append(usi)
                pos = child
                break
            stack.pop()
        else:
            break
    if best_line is None or len(best_line) >= floor:
        return best_line
    return best_line if confirm is not None and confirm(len(best_line)) else None


def _hand_is_empty(pos, colour):
    return int(pos.hands[colour]) == 0


def _never_empties(pos, attacker, plies):
    """Can no line of `plies` more plies from pos end with the attacker's hand empty?
    He drops at most one piece a move and captures only add to his hand, so a hand of
    more pieces than he has moves left cannot be emptied: the 駒余り preference among
    equal lines has nothing to choose there, and their lines need not be read."""
    moves = (plies + 1) // 2 if pos.side_to_move == attacker else plies // 2
    return sum(pos.hand(attacker).values()) > moves


class AnswerFinder:
    """Answers questions about one problem, sharing the solver's table."""

    def __init__(self, solver, root, query_nodes=2_000_000, total_nodes=50_000_000, deadline=None,
                 length_until=None):
        self.solver = solver
        self.root = root.copy()
        self.attacker = root.side_to_move
        self.salt = namespace(solver.salt, DEPTH_NAMESPACE)
        self.query_nodes = query_nodes
        self.stop_at = solver.nodes + total_nodes
        self.deadline = deadline
        # Until when the shortest length's questions may go past the node budget
        # (_root_mate_within); None: never.
        self.length_until = length_until
        self._memo = {}
        self.bound = None       # shortest mate length proven so far (exact_length)
        self.henka = []         # 変同 met by line(): {ply, moves}
        self.last_move_alternatives = []   # other mates at the last move: {ply, move}

    # ------------------------------------------------------------ questions
    def _budget(self):
        left = self.stop_at - self.solver.nodes
        if left <= 0:
            raise OutOfBudget
        return min(self.query_nodes, left)

    def mate_within(self, pos, depth, cap=None, expect_no_mate=False):
        """Attacker to move: can he force mate within `depth` plies? Returns the proof
        length when yes, None when no; raises OutOfBudget when undecided (within `cap`
        nodes when given, else the query budget). `expect_no_mate`: Solver.search's."""
        if depth < 1:
            return None
        if self.deadline is not None and time.perf_counter() >= self.deadline:
            raise OutOfBudget
        budget = self._budget() if cap is None else min(cap, self._budget())
        pn, dn, _, length = self.solver.search(pos, budget, deadline=self.deadline,
                                               max_depth=depth, salt=self.salt,
                                               expect_no_mate=expect_no_mate)
        if pn == 0:
            return int(length)
        if dn == 0:
            return None
        raise OutOfBudget

    def mated_within(self, pos, depth):
        """Defender to move: is he mated within `depth` plies whatever he plays?
        One reply that holds out settles it, and it is seldom the first in move order:
        every reply first gets a small budget, then those still open a larger one
        (the table keeps what each pass learned), so that a hard reply does not use
        up the budget before an easy escape is looked at."""
        replies = movegen.legal_moves_of(pos)
        if not replies:
            return True
        if depth < 2:
            return False
        open_replies = []
        for move in replies:
            child = pos.copy()
            child.push(move)
            open_replies.append(child)
        for cap in _WIDENING:
            still_open = []
            for child in open_replies:
                try:
                    if self.mate_within(child, depth - 1, cap) is None:
                        return False
                except OutOfBudget:
                    if cap is None:
                        raise
                    still_open.append(child)
            open_replies = still_open
            if not open_replies:
                break
        return True

    def check_mates_within(self, pos, check, depth):
        """Attacker to move: does `check` force mate within `depth` plies (the check
        included)? mated_within of the position after it, its replies searched as one
        defender node (Solver.search's `only`), so the nodes go where the check is
        nearest a verdict: a small budget for each reply first, then larger ones (the
        table keeps what each pass learned); raises OutOfBudget when undecided."""
        after = pos.copy()
        after.push(check)
        if depth < 3:
            return self.mated_within(after, depth - 1)
        replies = max(1, len(movegen.legal_moves_of(after)))
        for cap in _WIDENING:
            if self.deadline is not None and time.perf_counter() >= self.deadline:
                raise OutOfBudget
            left = self.stop_at - self.solver.nodes
            if left <= 0:
                raise OutOfBudget
            budget = min(left, (self.query_nodes if cap is None else cap) * replies)
            if budget == 0:
                continue
            pn, dn, _, _ = self.solver.search(pos, budget, deadline=self.deadline,
                                              max_depth=depth, salt=self.salt, only=check)
            if pn == 0:
                return True
            if dn == 0:
                return False
        raise OutOfBudget

    def reprover(self, total_nodes):
        """reprove(pos, plies) for line_of_length once the analysis's node budget is
        spent (its deadline still holds): a search within `plies` (in the analysis namespace, where its proof stays
        readable) with up to total_nodes nodes in all; the proof length, or None."""
        stop_at = self.solver.nodes + total_nodes

        def reprove(pos, plies):
            left = stop_at - self.solver.nodes
            if left <= 0 or plies < 1 or (self.deadline is not None
                                          and time.perf_counter() >= self.deadline):
                return None
            pn, _, _, length = self.solver.search(pos, min(left, self.query_nodes),
                                                  deadline=self.deadline, max_depth=plies,
                                                  salt=self.salt)
            return int(length) if pn == 0 else None
        return reprove

    # ------------------------------------------------------------ length
    def exact_length(self, upper):
        """Shortest forced mate, starting from a proven upper bound (odd plies)."""
        length = self.bound = upper
        while length >= 3:
            shorter = self._root_mate_within(length - 2)
            if shorter is None:
                break
            length = self.bound = shorter
        return length

    def _root_mate_within(self, depth):
        """mate_within at the root. Nothing else can be asked before it is answered,
        so with length_until (a time before the deadline) a question that runs out of
        budget goes on with twice the query budget, past the analysis's node budget
        (the table keeps what it read), until that time. Such a question leaves the
        node budget it found to the questions after it (the line still has to be read).
        Asked as a question whose answer is mostly no: the proof's bound is most often
        the shortest already, and the last question is always a disproof, the costly
        kind (bench/MEASUREMENTS.md)."""
        saved = self.query_nodes, self.deadline, self.stop_at
        left_before = max(0, self.stop_at - self.solver.nodes)
        extended = False
        try:
            while True:
                before = self.solver.nodes
                try:
                    return self.mate_within(self.root, depth, expect_no_mate=True)
                except OutOfBudget:
                    if (self.length_until is None or self.solver.nodes == before
                            or time.perf_counter() >= self.length_until):
                        raise
                    extended = True
                    self.query_nodes *= 2
                    self.stop_at = self.solver.nodes + self.query_nodes
                    self.deadline = (self.length_until if saved[1] is None
                                     else min(saved[1], self.length_until))
        finally:
            self.query_nodes, self.deadline, self.stop_at = saved
            if extended:
                self.stop_at = self.solver.nodes + left_before

    # ------------------------------------------------------------ main line
    def line(self, pos, value, start_ply=0, record=True):
        """The main line from `pos` (attacker to move, exact value `value` plies):
        the attacker's first check (USI order) that keeps the value, the defender's
        longest reply, preferring one after which the attacker ends with an empty hand
        (駒余り rule). Returns (moves, final position)."""
        moves = []
        cur = pos.copy()
        n = value
        while n > 0:
            ply = start_ply + len(moves)
            checks = sorted(movegen.check_moves_of(cur), key=display_order)
            chosen = None
            if n == 1:
                mates = []
                for move in checks:
                    child = cur.copy()
                    child.push(move)
                    if self.mated_within(child, 0):
                        mates.append((not _hand_is_empty(child, self.attacker), notation.move_to_usi(move), move))
                if not mates:
                    raise OutOfBudget          # the value was not right: give up honestly
                mates.sort()
                chosen = mates[0][2]
                if record:
                    for _, usi, _ in mates[1:]:
                        self.last_move_alternatives.append({"ply": ply + 1, "move": usi})
            else:
                # With a hand that cannot be emptied, the first check that keeps the
                # value is the one shown: the others need not be asked.
                first_only = _never_empties(cur, self.attacker, n)
                candidates = []
                for move in checks:
                    if self.check_mates_within(cur, move, n):
                        child = cur.copy()
                        child.push(move)
                        candidates.append((move, child))
                        if first_only:
                            break
                if not candidates:
                    raise OutOfBudget
                chosen = candidates[0][0]
                if len(candidates) > 1:
                    # Equal-length attacker choices (余詰, reported by the 余詰 check): show
                    # one whose line ends with the hand empty, if any.
                    for move, child in candidates:
                        if _hand_is_empty(self._defender_line_end(child, n - 1, ply + 1), self.attacker):
                            chosen = move
                            break
            moves.append(notation.move_to_usi(chosen))
            cur.push(chosen)
            if n == 1:
                break
            pick, tied = self._longest_reply(cur, n - 1, ply + 1, all_ties=record)
            if record and len(tied) > 1:
                self.henka.append({"ply": ply + 2, "moves": [notation.move_to_usi(m) for m in tied]})
            moves.append(notation.move_to_usi(pick[0]))
            cur = pick[1]
            n -= 2
        return moves, cur

    def _sub_line(self, pos, value, ply):
        key = (pos.key(), value)
        if key not in self._memo:
            self._memo[key] = self.line(pos, value, ply, record=False)
        return self._memo[key]

    def _defender_line_end(self, pos, value, ply):
        """Final position of the main line from a defender node of exact value `value`."""
        pick, _ = self._longest_reply(pos, value, ply)
        return self._sub_line(pick[1], value - 1, ply + 1)[1]

    def _longest_reply(self, cur, value, ply, all_ties=False):
        """Defender to move at `ply`, exact value `value`: the replies that hold out
        longest (value - 1 plies exactly); among them the first (USI order) after which
        the attacker ends with an empty hand (駒余り rule).
        Returns ((move, child), the moves tied with it: every one with all_ties (変同
        is reported from them), else those read before the pick)."""
        # With a hand that cannot be emptied the first longest reply is the pick: the
        # others are asked only for the ties.
        never_empties = _never_empties(cur, self.attacker, value)
        longest = []
        for move in sorted(movegen.legal_moves_of(cur), key=notation.move_to_usi):
            child = cur.copy()
            child.push(move)
            # The child's value is at most value - 1; it is exactly that unless a
            # mate within value - 3 exists.
            if self.mate_within(child, value - 3) is None:
                longest.append((move, child))
                if never_empties and not all_ties:
                    break
        if not longest:
            raise OutOfBudget
        if len(longest) == 1:
            return longest[0], [longest[0][0]]
        if never_empties:
            return longest[0], [move for move, _ in longest]
        ends = []
        for _, child in longest:
            ends.append(_hand_is_empty(self._sub_line(child, value - 1, ply + 1)[1],
                                       self.attacker))
            if ends[-1] and not all_ties:
                break               # (the first that ends empty is the pick)
        best_end = max(ends)
        tied = [mv for (mv, _), e in zip(longest, ends) if e == best_end]
        return longest[ends.index(best_end)], tied

    # ------------------------------------------------------------ 余詰
    def yozume(self, line, nodes_per_try, widen_until=None):
        """Other checks that also mate, at every attacker turn but the last: entries
        {ply, move, kind, length, line, budget}. kind: yozume, ukai (its line comes back
        to a main-line position), unchecked. line: a mating line (USI) from the
        alternative, read from its proof (the defender's longest reply found, then the
        table's line), None when unchecked; budget: what left it unchecked ("time": the
        deadline, "nodes": the node budget), else None.
        One escaping reply settles an alternative (a 紛れ), and most have one that a few
        thousand nodes find. So the alternatives of the whole line are asked together,
        in passes of widening budgets (_YOZUME_PASSES, then `nodes_per_try` a reply,
        then YOZUME_GROWTH times more at each pass while the solver's node count is
        below `widen_until`, if given): every alternative's easy answer comes before any
        hard one takes the time left, where one hard alternative early in a long line
        would leave the hundreds after it unchecked at the deadline."""
        alternatives = []
        cur = self.root.copy()
        keys_after = []
        replay = self.root.copy()
        for usi in line:
            keys_after.append(replay.key())
            replay.push_usi(usi)
        for ply, usi in enumerate(line[:-1]):
            if ply % 2 == 0:
                main_keys = set(keys_after[ply:])
                for move in sorted(movegen.check_moves_of(cur), key=notation.move_to_usi):
                    if notation.move_to_usi(move) != usi:
                        alternatives.append(_Alternative(ply + 1, cur, move, main_keys))
            cur.push_usi(usi)
        budget = "nodes"
        passes = sorted({min(nodes_per_try, n) for n in _YOZUME_PASSES} | {nodes_per_try})
        until = None                    # (the first passes: no node ceiling)
        while passes:
            nodes = passes.pop(0)
            before = self.solver.nodes
            for alternative in alternatives:
                if until is not None and self.solver.nodes >= until:
                    break
                if alternative.unsettled() and not self._ask(alternative, nodes, until):
                    budget = "time"
                    break
            if budget == "time" or not any(a.unsettled() for a in alternatives):
                break
            # (A pass that searched nothing met the problem's node limit: none follows.)
            if not passes and widen_until is not None and before < self.solver.nodes < widen_until:
                until = widen_until
                passes.append(min(nodes * YOZUME_GROWTH, MAX_NODES))
        found = []
        for alternative in alternatives:
            if alternative.mates is False:
                continue
            entry = (self._mating_entry(alternative) if not alternative.unsettled() else
                     {"kind": "unchecked", "length": None, "line": None, "budget": budget})
            entry.update(ply=alternative.ply, move=notation.move_to_usi(alternative.move))
            found.append(entry)
        return found

    def _ask(self, alternative, nodes, until=None):
        """One pass over an alternative with `nodes` for each reply not yet mated (and
        at most up to the solver's node count `until`): its replies searched as one
        defender node (Solver.search's `only`), so that df-pn spends the nodes where
        the alternative is nearest a verdict (mostly one reply's escape), and a later
        pass goes on from what the table keeps; False when the deadline stops it."""
        if alternative.open is None:
            if self.deadline is not None and time.perf_counter() >= self.deadline:
                return False
            alternative.open = list(alternative.replies().values())
        budget = min(MAX_NODES, nodes * max(1, len(alternative.open)))
        if until is not None:
            budget = min(budget, until - self.solver.nodes)
        pn, dn, reason, length = self.solver.search(
            alternative.before, budget, deadline=self.deadline,
            expect_no_mate=True, only=alternative.move)
        if dn == 0:
            alternative.mates = False           # 紛れ: the defender escapes this check
        elif pn == 0:
            alternative.mates, alternative.length = True, int(length)
        else:
            alternative.open = [child for child in alternative.open
                                if self.solver.proof_length(child, self.attacker) is None]
        return reason != "time limit"

    def _mating_entry(self, alternative):
        """The entry of an alternative every reply of which is mated (or with none)."""
        first = notation.move_to_usi(alternative.move)
        after = alternative.after()
        replies = alternative.replies()
        if not replies:
            return {"kind": "yozume", "length": 1, "line": [first], "budget": None}
        # The reply the proof holds out longest against (the proof's length says how
        # long; a reply whose entry the table lost counts as short).
        lengths = {reply: self.solver.proof_length(child, self.attacker) or 0
                   for reply, child in replies.items()}
        longest = max(lengths, key=lengths.get)
        # 迂回: does the alternative's own line come back to the main line?
        child = replies[longest]
        seen = [after.key(), child.key()]
        sub = self.solver.mating_line(child) or []
        cur = child.copy()
        for u in sub:
            cur.push_usi(u)
            seen.append(cur.key())
        kind = "ukai" if any(k in alternative.main_keys for k in seen) else "yozume"
        # The line shown for it: the longest reply found and the table's line after it
        # (None if the table lost it: the proof stands, its line is not at hand).
        line = [first, notation.move_to_usi(longest)] + list(sub) if sub else None
        return {"kind": kind, "length": alternative.length, "line": line, "budget": None}
