"""What one problem may spend, and the account it draws from.

``Limits`` is what the caller asked for (``--time-limit``, ``--nodes``, which parts of
the answer): one immutable value, handed down unchanged. ``Budget`` is one problem's
running account, opened when its solve starts: a deadline and a node ceiling that
every phase (proof, length, 無駄合, 余詰, line) draws from, so that the limits bound
the whole problem, not each phase. Invariants:

* ``deadline`` is ``start + time_limit`` (None: no time limit) and never moves;
* ``node_limit`` counts the problem's nodes from its first search (``Solver.nodes``),
  None when there is no node limit;
* every search clamps its own limits to the account (``clamp``), so no phase
  reaches past the deadline or node limit, whatever share it was given; a search
  stops after the node it is expanding, so the nodes may pass the limit by one
  expansion's children (at most movegen.MAX_MOVES) for each of its threads (each
  thread has its share of the nodes left, Solver.search), and the time by a fraction
  of a second (Solver.search shrinks its slices near the deadline).

Without limits, the answer's phases still stop somewhere: the ``ANALYSIS_*`` and
``RULE_*`` defaults below size them from what the proof took, and the 余詰 check's
widening passes stop at ``YOZUME_SHARE`` times the nodes the problem took before it.
"""
import math
import os
import time
from dataclasses import dataclass

# Node counts reach the compiled search as int64: a limit is at most this (the CLI
# takes a larger one as this; no search comes near it).
MAX_NODES = 10 ** 18
# Search threads one solve may use (CLI --threads, USI Threads): more than any machine
# here has cores; each thread beyond the first has work arrays of its own.
MAX_THREADS = 256
# Without a node limit, the answer's questions (length, main line) may take this
# many nodes, or ANALYSIS_PER_PROOF times the proof's, whichever is more ...
ANALYSIS_NODES = 20_000_000
ANALYSIS_PER_PROOF = 10
# ... and the 無駄合 rule's questions twice what the problem took so far, within
# these bounds: enough for the classics, and a short problem does not wait long on
# interposition questions it cannot settle. With a time limit they take the most,
# bounded by their share of the time (RULE_TIME_SHARE): a length found cheaply must
# not leave the rule less to work with.
RULE_NODES_MIN = 10_000_000
RULE_NODES_MAX = 20_000_000
# Without a node limit but with a time limit, the shortest length's questions may go
# on past their node share until this fraction of the time left for the answer, or,
# when no phase but reading the line follows them (--answer length), this one.
LENGTH_TIME_SHARE = 0.5
LENGTH_ALONE_TIME_SHARE = 0.9
# With a time limit and no node limit, when the 余詰 check comes after it, the 無駄合
# rule's questions stop at this fraction of the time left, so that the check has time
# for every other check along the line: most take a few thousand nodes each, and on
# 図巧/無双 at 30 s the rule used to take all the time left.
RULE_TIME_SHARE = 0.5
# Nodes per defender reply of the 余詰 check's last pass over the alternative checks
# (Limits.yozume_nodes, the CLI's --yozume-nodes). Unless a cap is given, a problem
# goes on past it, each pass YOZUME_GROWTH times the last, until a verdict for every
# alternative, YOZUME_SHARE times the nodes the problem took before the check, or the
# time limit if any: classics left alternatives open with time unused, and a share of
# their own work (not the whole time) keeps a short problem whose one alternative takes
# millions of nodes to refute from paying for it (bench/MEASUREMENTS.md). The share is
# in nodes, so a run without a time limit gets the same answer as one with a time
# limit it does not reach.
YOZUME_NODES = 100_000
YOZUME_GROWTH = 4
YOZUME_SHARE = 1
# Without a node limit, the solution tree (tree.py, only when asked) may take this many
# nodes, or TREE_PER_PROOF times the proof's, whichever is more.
TREE_NODES = 20_000_000
TREE_PER_PROOF = 2
# Moves in the solution tree past which the 変化 of 変化 are not expanded (the first
# level, every reply at the main line's own defender turns, is always complete).
TREE_MAX_MOVES = 1000
# What a problem's answer includes (Limits.answer, the CLI's --answer): a verified mate
# of any length; the shortest length and its line by the tsume rules, every
# interposition counted and no 余詰 check (what a dataset of mate-in-N labels needs);
# or that with 無駄合 and 余詰 too.
ANSWER_LEVELS = ("proof", "length", "full")


@dataclass(frozen=True, slots=True)
class Limits:
    """What a problem's solve may spend and compute (the CLI's options)."""
    time_limit: float | None = None  # seconds for the whole problem, proof and answer
    nodes: int | None = None         # nodes for the whole problem
    answer: bool = True              # the composer's answer; False: any verified mate;
                                     # or a level of ANSWER_LEVELS (see __post_init__)
    yozume: bool = True              # check every other check along the line (余詰)
    yozume_nodes: int | None = None  # per alternative and defender reply; None:
                                     # YOZUME_NODES, then widening within a share
    mudaai: bool = True              # futile interpositions are not counted (無駄合)
    tree: bool = False               # the solution tree with its 変化 (tree.py)
    tree_depth: int | None = None    # levels of 変化 in it (None: TREE_MAX_MOVES decides)

    def __post_init__(self):
        if isinstance(self.answer, str):
            # A level is stored as the fields it stands for, so the pipeline reads only
            # booleans: "length" turns 無駄合 and 余詰 off whatever they were given as.
            if self.answer not in ANSWER_LEVELS:
                raise ValueError(f"answer must be one of {ANSWER_LEVELS}, not {self.answer!r}")
            if self.answer == "length":
                object.__setattr__(self, "yozume", False)
                object.__setattr__(self, "mudaai", False)
            object.__setattr__(self, "answer", self.answer != "proof")
        if self.time_limit is not None and not (self.time_limit > 0 and math.isfinite(self.time_limit)):
            raise ValueError(f"time limit must be a positive number of seconds, not {self.time_limit}")
        for name in ("nodes", "yozume_nodes"):
            value = getattr(self, name)
            if value is not None and not 0 < value <= MAX_NODES:
                raise ValueError(f"{name} must be from 1 to {MAX_NODES}, not {value}")
        if self.tree_depth is not None and self.tree_depth < 0:
            raise ValueError(f"tree depth must be 0 or more, not {self.tree_depth}")

    @property
    def level(self):
        """The answer level these limits ask for (ANSWER_LEVELS; "full" also without 余詰)."""
        if not self.answer:
            return "proof"
        return "length" if not (self.yozume or self.mudaai) else "full"


class Budget:
    """One problem's account: see the module's invariants."""

    __slots__ = ("start", "deadline", "node_limit", "bounded", "progress", "phase")

    def __init__(self, limits=None, start=None, progress=None):
        self.start = time.perf_counter() if start is None else start
        time_limit = limits.time_limit if limits is not None else None
        self.deadline = None if time_limit is None else self.start + time_limit
        self.node_limit = limits.nodes if limits is not None else None
        self.bounded = self.deadline is not None or self.node_limit is not None
        # progress(phase, nodes, seconds): told how the problem goes, when a phase starts
        # and after every slice of a search (a terminal's status line); None: nobody is.
        self.progress = progress
        self.phase = "proof"

    def enter(self, phase, nodes):
        """A phase of the answer starts (length, mudaai, yozume), the problem having
        taken `nodes` so far."""
        self.phase = phase
        if self.progress is not None:
            self.progress(phase, nodes, time.perf_counter() - self.start)

    def expired(self):
        """Has the deadline passed?"""
        return self.deadline is not None and time.perf_counter() >= self.deadline

    def nodes_left(self, spent):
        """Nodes the problem may still take after `spent` (None: no limit)."""
        return None if self.node_limit is None else max(0, self.node_limit - spent)

    def clamp(self, max_nodes, deadline, spent):
        """(max_nodes, deadline) of one search, within the problem's account."""
        left = self.nodes_left(spent)
        if left is not None:
            max_nodes = left if max_nodes is None else min(max_nodes, left)
        if self.deadline is not None:
            deadline = self.deadline if deadline is None else min(deadline, self.deadline)
        return max_nodes, deadline

    # ---------------------------------------------------------------- the answer's shares
    def analysis_nodes(self, spent):
        """Nodes of the answer's length and line questions, the proof having taken
        `spent`: what the limit leaves, else the default share."""
        left = self.nodes_left(spent)
        return left if left is not None else max(ANALYSIS_NODES, ANALYSIS_PER_PROOF * spent)

    def rule_nodes(self, spent, analysis_left):
        """Nodes of the 無駄合 rule's questions. With a node limit, what the length
        questions left of it; without, a share of its own (else the rule went unasked
        where the strict length used all of its share): with a time limit the most,
        else one sized by `spent`."""
        if self.deadline is not None:
            nodes = RULE_NODES_MAX
        else:
            nodes = min(RULE_NODES_MAX, max(RULE_NODES_MIN, 2 * spent))
        return nodes if self.node_limit is None else min(nodes, max(0, analysis_left))

    def rule_until(self, yozume_follows):
        """Until when the 無駄合 rule's questions may go: the deadline, or with the 余詰
        check after them (and no node limit) a share of the time left (None: no
        time limit)."""
        if self.deadline is None or self.node_limit is not None or not yozume_follows:
            return self.deadline
        now = time.perf_counter()
        return now + max(0.0, self.deadline - now) * RULE_TIME_SHARE

    def yozume_nodes(self, cap, spent):
        """(nodes a reply of the 余詰 check's last pass, the node count up to which
        passes may go on past it, or None), the problem having taken `spent`: the cap
        given, else YOZUME_NODES and on until YOZUME_SHARE times `spent` more (or the
        deadline)."""
        if cap is not None:
            return cap, None
        return YOZUME_NODES, spent + YOZUME_SHARE * spent

    def tree_nodes(self, spent):
        """Nodes of the solution tree's questions, the problem having taken `spent`:
        what the limit leaves, else the default share."""
        left = self.nodes_left(spent)
        return left if left is not None else max(TREE_NODES, TREE_PER_PROOF * spent)

    def length_until(self, phases_follow):
        """Until when the shortest length's questions may go past their node share
        (None: never; only with a time limit and no node limit); `phases_follow`: the
        無駄合 rule, the 余詰 check or the tree come after them (else only the line
        is left to read)."""
        if self.deadline is None or self.node_limit is not None:
            return None
        now = time.perf_counter()
        share = LENGTH_TIME_SHARE if phases_follow else LENGTH_ALONE_TIME_SHARE
        return now + max(0.0, self.deadline - now) * share


UNLIMITED = Limits()


def available_cores():
    """The cores this process may run on (its CPU affinity, else the machine's count):
    the default number of search threads (CLI --threads, USI Threads)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)
