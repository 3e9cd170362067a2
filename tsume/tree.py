"""The solution tree (解図): the main line and, at each of its defender turns, every
other reply with its refutation (変化), recursively, within a depth and a size.

The tree is made of lines, each a dict (README "JSON schema", key ``tree``):

  ply         the ply of its first move (1 for the main line; a 変化 starts at a
              defender turn, an even ply);
  moves       the line in USI: the main line, or a defender reply and its refutation
              (the attacker's shortest mate, the defender's longest resistance: the
              same rules as the main line, answer.AnswerFinder.line, and the 無駄合
              rule, mudaai.rule_answer, when the main line was found under it);
  length      plies of `moves`; None when the reply's refutation was not found
              (`end` says why);
  kind        "main" for the main line; for a 変化, how its reply compares with the
              line's own reply at that ply: "shorter", "equal" (変同), "komaamari" (as
              long, but the attacker ends with pieces in hand, so the defender does not
              choose it), "longer" (変長: the line's reply is not the longest), "mudaai"
              (a futile interposition), None when not analysed;
  end         how the line ends: "mate" (checkmate), "mudaai" (以下無駄合: the defender
              has nothing but futile interpositions left), "budget" (not analysed);
  cut         [{ply, why}]: defender turns of this line whose other replies are not
              listed, why being "depth" (--tree-depth), "size" (TREE_MAX_MOVES) or
              "budget";
  variations  the 変化 of this line, by ply, then in USI order of their reply.

Lines rather than one node per move: a long work's main line would nest a thousand
levels deep, past what JSON encoders and Python's recursion take.

The questions are AnswerFinder's on the problem's own solver (its table keeps what the
answer proved) within the tree's share of the problem's budget (limits.Budget
.tree_nodes and the deadline). A reply whose refutation runs out of budget is listed
with `end: "budget"`; a turn not expanded is in `cut`; nothing is guessed.
"""
import time
from collections import deque

from . import movegen, notation
from .answer import AnswerFinder, OutOfBudget
from .dfpn import MAX_PLY
from .limits import TREE_MAX_MOVES
from .lines import interposes, only_interpositions_left, verify_mating_line
from .mudaai import FutilityRule, RuleBudgetExceeded, rule_answer

# Node cap of one question of the tree (a refutation that needs more is left out).
TREE_QUERY_NODES = 1_000_000
# Node cap of the 無駄合 rule's analysis of one refutation.
TREE_RULE_NODES = 4_000_000
# Refutations up to this many plies are found by asking for each length in turn; a
# longer one from an upper bound downwards.
_SHORT = 5

KINDS = ("main", "shorter", "equal", "komaamari", "longer", "mudaai")
ENDS = ("mate", "mudaai", "budget")
CUTS = ("depth", "size", "budget")


def new_line(ply, moves, kind, end, length="auto"):
    """One line of the tree (see the module's note)."""
    return {"ply": ply, "moves": list(moves),
            "length": len(moves) if length == "auto" else length,
            "kind": kind, "end": end, "cut": [], "variations": []}


def line_end(pos, moves):
    """How a line from pos ends: "mate", "mudaai" (only interpositions left, which the
    line's own search proved futile) or None (neither: not a finished line)."""
    cur = pos.copy()
    for usi in moves:
        cur.push_usi(usi)
    if cur.is_mate():
        return "mate"
    if only_interpositions_left(cur):
        return "mudaai"
    return None


def walk(tree):
    """Every line of a tree, the main line first, depth first (no recursion)."""
    todo = [tree]
    while todo:
        line = todo.pop()
        yield line
        todo.extend(reversed(line["variations"]))


def tree_size(tree):
    """Moves in a tree."""
    return sum(len(line["moves"]) for line in walk(tree))


def solution_tree(solver, root, moves, rule=True, depth=None, deadline=None,
                  total_nodes=20_000_000, max_moves=TREE_MAX_MOVES):
    """The tree of the main line `moves` (USI, a verified line from root) on `solver`:
    every level-1 変化, then the 変化 of 変化 level by level while depth (None: any)
    and max_moves allow. `rule`: the main line was found under the 無駄合 rule."""
    return _Builder(solver, root, rule, depth, deadline, total_nodes, max_moves).build(moves)


class _Builder:
    def __init__(self, solver, root, rule, depth, deadline, total_nodes, max_moves):
        self.solver = solver
        self.root = root.copy()
        self.attacker = root.side_to_move
        self.rule = rule
        self.depth = depth
        self.deadline = deadline
        self.max_moves = max_moves
        self.finder = AnswerFinder(solver, root, TREE_QUERY_NODES, total_nodes, deadline)
        self.futility = FutilityRule(solver, self.attacker, deadline=deadline) if rule else None
        self.size = 0
        self._refutations = {}      # position key -> refutation: transpositions share it

    def spent(self):
        return (self.solver.nodes >= self.finder.stop_at
                or (self.deadline is not None and time.perf_counter() >= self.deadline))

    def build(self, moves):
        tree = new_line(1, moves, "main", line_end(self.root, moves))
        self.size = len(moves)
        queue = deque([(tree, self.root, 1)])
        while queue:
            line, start, level = queue.popleft()
            pos = start.copy()
            for j, usi in enumerate(line["moves"]):
                if j >= 1 and (line["ply"] + j) % 2 == 0:
                    for variation in self._turn(line, j, pos, level):
                        queue.append((variation, pos.copy(), level + 1))
                pos.push_usi(usi)
            if line is tree and tree["end"] == "mudaai":
                # Where the main line stops by the rule, the defender still has replies
                # (the futile interpositions): they are listed too, each with the
                # capture that refutes it. (A 変化 that stops there is not expanded
                # further: the rule has said all there is.)
                for variation in self._turn(line, len(line["moves"]), pos, level):
                    queue.append((variation, pos.copy(), level + 1))
        return tree

    def _turn(self, line, j, pos, level):
        """The other replies at line's defender turn `j` (index in its moves), from pos;
        returns the new variations that were analysed (to be expanded in turn)."""
        ply = line["ply"] + j
        own = line["moves"][j] if j < len(line["moves"]) else None    # (None: the line's end)
        others = [m for m in sorted(movegen.legal_moves_of(pos), key=notation.move_to_usi)
                  if notation.move_to_usi(m) != own]
        if not others:
            return []
        why = None
        if self.depth is not None and level > self.depth:
            why = "depth"
        elif level > 1 and self.size >= self.max_moves:
            why = "size"
        elif level > 1 and self.spent():
            why = "budget"
        if why:
            line["cut"].append({"ply": ply, "why": why})
            return []
        own_length = len(line["moves"]) - j
        own_empty = None
        made = []
        for move in others:
            usi = notation.move_to_usi(move)
            try:
                if self.spent():
                    raise OutOfBudget
                child = pos.copy()
                child.push(move)
                futile = self.rule and interposes(pos, move) and self._is_futile(pos, move)
                moves = [usi] + self._refutation(child, own_length - 1)
                end = line_end(pos, moves)
                if end is None:
                    raise OutOfBudget       # (never expected: refutations are verified)
            except OutOfBudget:
                variation = new_line(ply, [usi], None, "budget", length=None)
            else:
                if futile:
                    kind = "mudaai"
                elif len(moves) != own_length:
                    kind = "shorter" if len(moves) < own_length else "longer"
                else:
                    if own_empty is None:
                        own_empty = self._ends_empty(pos, line["moves"][j:])
                    kind = ("komaamari" if own_empty and not self._ends_empty(pos, moves)
                            else "equal")
                variation = new_line(ply, moves, kind, end)
                made.append(variation)
            line["variations"].append(variation)
            self.size += len(variation["moves"])
        line["variations"].sort(key=lambda v: v["ply"])     # (stable: USI order within a ply)
        return made

    def _is_futile(self, pos, move):
        try:
            return self.futility.is_futile(pos, move)
        except RuleBudgetExceeded:
            raise OutOfBudget from None

    def _ends_empty(self, pos, moves):
        cur = pos.copy()
        for usi in moves:
            cur.push_usi(usi)
        return int(cur.hands[self.attacker]) == 0

    def _refutation(self, pos, bound):
        """The refutation line from pos (attacker to move, after a defender reply): the
        shortest mate (by the rule when the tree is under it) and the defender's
        longest resistance. `bound`: the length of the line's own reply's refutation,
        which a longer one (変長) may pass. Raises OutOfBudget."""
        key = pos.key()
        found = self._refutations.get(key)
        if found is not None:
            return found
        value = self._value(pos, bound)
        moves, _ = self.finder.line(pos, value, record=False)
        if self.rule and value >= 3:
            left = self.finder.stop_at - self.solver.nodes
            if left <= 0:
                raise OutOfBudget
            shorter = rule_answer(self.solver, pos, value, moves, query_nodes=TREE_QUERY_NODES,
                                  total_nodes=min(left, TREE_RULE_NODES), deadline=self.deadline)
            if shorter is None:
                raise OutOfBudget           # its length by the rule is not known
            if shorter.line is not None:
                moves = shorter.line
        if not verify_mating_line(pos, moves, rule=self.rule):
            raise OutOfBudget
        self._refutations[key] = moves
        return moves

    def _value(self, pos, bound):
        """The exact strict mate length from pos (attacker to move)."""
        ask = self.finder.mate_within
        depth = 1
        while depth <= _SHORT:
            if ask(pos, depth) is not None:
                return depth
            depth += 2
        top = ask(pos, bound) if bound >= depth else None
        if top is None:
            top = ask(pos, MAX_PLY)         # longer than the line's own reply (変長)
            if top is None:
                raise OutOfBudget           # (no mate: never expected below a proven root)
        while top - 2 >= depth:
            shorter = ask(pos, top - 2)
            if shorter is None:
                break
            top = shorter
        return top
