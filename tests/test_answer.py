"""The composer's answer: exact length, main line by the tsume rules, 駒余り, 変同, 余詰."""

import time
from pathlib import Path

import pytest

from oracle import OutOfTime, cshogi_mates_within, cshogi_skipped_mates, proposer
from test_dfpn import _rows, assert_line_mates_under_cshogi
from tsume import notation
from tsume.position import Position
from tsume.pipeline import solve
from tsume.solver import Solver

cshogi = pytest.importorskip("cshogi")


def _explained(result, recorded):
    """Where our main line leaves the recorded (generator's) line, the recorded move must
    be one we report as equivalent: a 変同 reply, a last-move alternative or a 余詰."""
    for i, (ours, theirs) in enumerate(zip(result.moves, recorded)):
        if ours == theirs:
            continue
        ply = i + 1
        same = [h["moves"] for h in result.henka if h["ply"] == ply]
        alternatives = [y["move"] for y in result.yozume if y["ply"] == ply]
        return (same and theirs in same[0]) or theirs in alternatives
    return True


def test_tanuki_main_lines_equal_the_recorded_solutions():
    """Every problem: the recorded length, and the recorded line wherever the rules make
    it unique; differences must be 変同 / last-move alternatives / reported 余詰. The
    generator counts every interposition, so where our 無駄合 rule finds a shorter mate
    the recorded length must be our strict length and our line must end with the
    defender mated or holding nothing but interpositions."""
    from tsume.lines import only_interpositions_left
    rows = _rows("tanuki_generated.tsv")
    differing, shortened, open_rule = 0, [], []
    for cols in rows:
        recorded = cols[3].split()
        result = solve(Position.from_sfen(cols[0]), yozume=False)
        assert result.status == "mate", cols[2]
        if not result.exact:
            # A mate shorter by the rule whose own minimality stayed open: the strict
            # length below is still checked.
            assert result.mudaai == "not fully evaluated (budget)", (cols[2], result)
            assert result.length < result.strict_length, (cols[2], result)
            open_rule.append(cols[2])
        assert result.strict_length == int(cols[1]) == len(recorded), (cols[2], result)
        if result.length < result.strict_length:
            end = Position.from_sfen(cols[0])
            for usi in result.moves:
                end.push_usi(usi)
            assert end.is_mate() or only_interpositions_left(end), (cols[2], result.moves)
            shortened.append(cols[2])
            continue
        assert result.length == len(recorded)
        assert not result.komaamari, cols[2]          # the generator ensured no pieces left
        if result.moves != recorded:
            differing += 1
            if not _explained(result, recorded):
                # An attacker choice: the recorded move must then be a reported 余詰.
                full = solve(Position.from_sfen(cols[0]), yozume=True, yozume_nodes=50_000)
                assert _explained(full, recorded), (cols[2], full.moves, recorded, full.yozume)
    assert differing < len(rows) // 5
    assert 20 < len(shortened) < 150, shortened
    # A question left open only in the pass that found the line does not count (11
    # before that distinction), and one left open below it is settled by a search that
    # takes every unsettled interposition as futile (tanuki-9-0565 before that).
    assert not open_rule, open_rule


def test_marken_foo_lengths():
    """Composers' lengths (four of them rely on 無駄合). 3te-09 is the exception: by
    rule D2 its last interposition is not futile (KomoringHeights also says 5)."""
    d2_differs = {"marken-foo-3te-09": 5}
    for cols in _rows("marken_foo_kif.tsv"):
        result = solve(Position.from_sfen(cols[0]), yozume=False)
        assert result.status == "mate" and result.exact
        assert result.length == d2_differs.get(cols[2], int(cols[1])), cols[2]
        if result.length == result.strict_length:
            assert_line_mates_under_cshogi(cols[0], result.moves)


@pytest.mark.parametrize("pid,length,strict", [
    ("shtsume-issue15-A1", 1, 7), ("shtsume-issue15-B1", 1, 11),
    ("sugyan-solver-issue1", 5, 7), ("sugyan-solver-issue5", 5, 7), ("sugyan-shogi-issue23", 5, 7),
])
def test_futile_interpositions_from_bug_reports(pid, length, strict):
    cols = next(c for c in _rows("edge_cases.tsv") if c[2] == pid)
    result = solve(Position.from_sfen(cols[0]), yozume=False)
    assert (result.length, result.strict_length) == (length, strict)


def test_spec_s3_is_a_complete_work():
    result = solve(Position.from_sfen("8k/9/9/7+R1/9/9/9/9/9 b LP 1".replace(" LP", " LPr2b4g4s4n3l17p")))
    assert result.moves == ["P*1b", "1a1b", "L*1c"]
    assert result.exact and not result.komaamari and result.yozume == [] and result.complete


def test_spec_komaamari_rule_picks_the_empty_hand_defence():
    result = solve(Position.from_sfen("7k1/8s/8+P/9/7n1/9/9/9/9 b RSr2b4g2s3n4l17p 1"))
    assert result.moves == ["R*2b", "2a3a", "S*4b"]
    assert not result.komaamari


def test_komaamari_is_reported_with_the_pieces():
    # 1手詰 by the 龍, with a pawn in hand that can never be used.
    result = solve(Position.from_sfen("8k/6G2/9/9/9/9/9/9/7R1 b Pr2b3g4s4n4l17p 1"), yozume=False)
    assert result.status == "mate" and result.length == 1
    assert result.komaamari and result.leftover == {"P": 1}


def test_spec_mudaai_example_is_one_ply_strict_seven():
    result = solve(Position.from_sfen("8k/6G1p/9/9/9/9/9/9/4R4 b r2b3g4s4n4l17p 1"))
    assert (result.length, result.strict_length, result.moves) == (1, 7, ["5i5a+"])
    assert result.complete and not result.komaamari


def test_yozume_is_found_where_two_first_moves_mate():
    """tanuki-7-0079: the recorded S*2c and another first move both mate in 7
    (cshogi's DfPn proves both after the first move)."""
    row = next(c for c in _rows("tanuki_generated.tsv") if c[2] == "tanuki-7-0079")
    result = solve(Position.from_sfen(row[0]), yozume_nodes=50_000)
    first_moves = {result.moves[0]} | {y["move"] for y in result.yozume if y["ply"] == 1 and y["kind"] == "yozume"}
    assert {"S*1e", "S*2c"} <= first_moves
    assert not result.complete
    for first in ("S*1e", "S*2c"):
        board = cshogi.Board(row[0])
        board.push_usi(first)
        for reply in [m for m in board.legal_moves if board.is_legal(m)]:
            board.push(reply)
            assert cshogi.DfPn().search(board), (first, cshogi.move_to_usi(reply))
            board.pop()


def test_a_tight_budget_leaves_only_the_hard_alternatives_unchecked():
    """tanuki-3-0193 has ten other first moves that mate (some in 5, some in 19) and
    four whose refutation or mate takes millions of nodes, the first of them before
    most of the easy ones in move order. The 余詰 check asks all the alternatives in
    widening passes, so a problem budget of 300,000 nodes finds every 余詰 that 3M
    find; the hard ones are left unchecked."""
    row = next(c for c in _rows("tanuki_generated.tsv") if c[2] == "tanuki-3-0193")
    pos = Position.from_sfen(row[0])

    def kinds(result):
        return {y["move"]: y["kind"] for y in result.yozume}
    wide, tight = kinds(solve(pos, nodes=3_000_000)), kinds(solve(pos, nodes=300_000))
    flaws = {move for move, kind in wide.items() if kind == "yozume"}
    assert len(flaws) >= 8
    assert {move for move, kind in tight.items() if kind == "yozume"} == flaws
    assert "unchecked" in tight.values()


def test_sound_problem_has_no_yozume_report():
    for sfen in ["8k/9/9/7+R1/9/9/9/9/9 b LPr2b4g4s4n3l17p 1",
                 "9/7Sk/1+R7/9/9/9/9/9/9 b r2b4g3s4n4l18p 1"]:
        result = solve(Position.from_sfen(sfen))
        assert [y for y in result.yozume if y["kind"] == "yozume"] == []


def test_last_move_alternatives_are_information_not_flaws():
    # 1手詰 with two mating moves: both listed, the work is still complete if nothing else.
    result = solve(Position.from_sfen("8k/9/7G1/9/9/9/9/9/9 b G2r2b2g4s4n4l18p 1"))
    assert result.status == "mate" and result.length == 1
    assert all(y["kind"] == "last-move" for y in result.yozume)


def test_kif_answer_reads_back_in_python_shogi():
    """The KIF file of an answer (diagram + numbered moves + 詰み) parses in an
    independent reader with the same moves."""
    shogi_kif = pytest.importorskip("shogi.KIF")
    from tsume.formats.kif import write_kif
    pos = Position.from_sfen("7k1/8s/8+P/9/7n1/9/9/9/9 b RSr2b4g2s3n4l17p 1")
    result = solve(pos, yozume=False)
    parsed = shogi_kif.Parser.parse_str(write_kif(pos, moves=result.moves))[0]
    assert parsed["moves"] == result.moves == ["R*2b", "2a3a", "S*4b"]


@pytest.mark.parametrize("pid", ["zukou-002", "zukou-005"])
def test_short_classics_have_their_published_length(pid):
    """将棋図巧 2 and 5 (21 plies each), proven shortest, by the 無駄合 rule too (図巧2's
    rule minimality stayed open after 10M nodes before no_mate_within)."""
    cols = next(c for c in _rows("zuko.tsv") if c[2] == pid)
    result = solve(Position.from_sfen(cols[0]), yozume=False)   # node-bounded: deterministic
    assert result.status == "mate" and result.exact
    assert result.mudaai == "not counted"
    assert result.length == result.strict_length == int(cols[1]) == 21
    assert_line_mates_under_cshogi(cols[0], result.moves)
    # The length itself, checked by a proof tree cshogi walks against every defence.
    solver = Solver(hash_mb=64)
    solver.new_problem()
    propose = proposer(solver, Position.from_sfen(cols[0]).side_to_move)
    assert cshogi_mates_within(cols[0], 21, propose)
    assert not cshogi_mates_within(cols[0], 19, propose)


def test_the_independent_tree_check_agrees_with_the_recorded_lengths():
    """cshogi_mates_within (cshogi walks the tree, our engine only proposes checks), the
    check bench/verify_lengths.py runs on the collections, on recorded shortest mates:
    a mate within the recorded length, none within two plies less."""
    rows = [c for c in _rows("tanuki_generated.tsv") if int(c[1]) >= 9][:40]
    assert len(rows) == 40
    for cols in rows:
        solver = Solver(hash_mb=16)
        solver.new_problem()
        propose = proposer(solver, Position.from_sfen(cols[0]).side_to_move)
        assert cshogi_mates_within(cols[0], int(cols[1]), propose), cols[2]
        assert not cshogi_mates_within(cols[0], int(cols[1]) - 2, propose), cols[2]

    # A proposer out of nodes is undecided, never "no mate": with 10 nodes its searches
    # stop before they prove anything, and the check must say so.
    cols = rows[-1]
    solver = Solver(hash_mb=16)
    solver.new_problem()
    starved = proposer(solver, Position.from_sfen(cols[0]).side_to_move, nodes=10)
    with pytest.raises(OutOfTime):
        cshogi_mates_within(cols[0], int(cols[1]), starved)


def test_mated_within_agrees_with_a_full_cshogi_minimax(monkeypatch):
    """AnswerFinder.mated_within (a defender node: is he mated within d plies?) gives
    each reply a small budget first and a larger one to those still open. With a first
    cap of 0 nodes (every reply left open) and a second of 1, its verdict on every
    check of 5-ply tanuki problems, within 4 and 2 plies, must be that of a full
    minimax in cshogi (every check tried, every reply, cshogi's mate test); so must
    check_mates_within's (the same question asked of the check, its replies searched
    as one defender node)."""
    from oracle import every_check
    from tsume import answer, movegen, notation
    monkeypatch.setattr(answer, "_WIDENING", (0, 1, None))

    def oracle_mated_within(sfen, plies):
        board = cshogi.Board(sfen)
        replies = [cshogi.move_to_usi(m) for m in board.legal_moves if board.is_legal(m)]
        if not replies:
            return board.is_check()
        for usi in replies:
            board.push_usi(usi)
            after = board.sfen()
            board.pop()
            if plies < 2 or not cshogi_mates_within(after, plies - 1, every_check):
                return False
        return True

    rows = [c for c in _rows("tanuki_generated.tsv") if c[1] == "5"][:6]
    assert len(rows) == 6
    verdicts = set()
    for cols in rows:
        root = Position.from_sfen(cols[0])
        solver = Solver(hash_mb=16, seed=0)
        solver.new_problem()
        finder = answer.AnswerFinder(solver, root)
        other = Solver(hash_mb=16, seed=1)
        other.new_problem()
        by_check = answer.AnswerFinder(other, root)
        for move in movegen.check_moves_of(root):
            child = root.copy()
            child.push(move)
            for plies in (4, 2):
                ours = finder.mated_within(child, plies)
                assert ours == oracle_mated_within(child.sfen(), plies), \
                    (cols[2], notation.move_to_usi(move), plies)
                assert by_check.check_mates_within(root, move, plies + 1) == ours, \
                    (cols[2], notation.move_to_usi(move), plies)
                verdicts.add(ours)
    assert verdicts == {True, False}


def test_exact_length_starts_from_the_proof_bound_not_the_proof_line():
    """A proof line can be shorter than the shortest forced mate: its defender may pick a
    reply that loses sooner. Counting down from that line's length would 'prove' it
    exact; the analysis must start from the proof's own length bound."""
    from tsume import movegen, notation
    from tsume.answer import AnswerFinder
    from tsume.pipeline import strict_answer
    for cols in _rows("tanuki_generated.tsv"):
        if cols[1] != "7":
            continue
        root = Position.from_sfen(cols[0])
        best = solve(root, mudaai=False, yozume=False)
        first = root.copy()
        first.push_usi(best.moves[0])
        for reply in movegen.legal_moves_of(first):
            after = first.copy()
            after.push(reply)
            quick = solve(after, answer=False)
            if quick.status == "mate" and quick.length < best.length - 3:
                break
        else:
            continue
        short_line = [best.moves[0], notation.move_to_usi(reply)] + quick.moves
        solver = Solver(hash_mb=16)
        solver.new_problem()
        pn, _, _, upper = solver.search(root, 2_000_000)
        assert pn == 0
        moves, _, _ = strict_answer(AnswerFinder(solver, root), root, short_line, int(upper))
        assert len(moves) == best.length == 7, cols[2]
        # With no budget for the analysis, the answer is still a line as long as the
        # proven bound, read from the proofs, not the short line.
        moves, _, exact = strict_answer(AnswerFinder(solver, root, total_nodes=0), root,
                                        short_line, int(upper))
        assert not exact and len(moves) == 7, (cols[2], moves)
        assert_line_mates_under_cshogi(cols[0], moves)
        return
    pytest.skip("no tanuki 7-ply row with a quickly lost defence")


def test_a_line_read_past_the_deadline_is_never_shorter_than_the_mate():
    """The proof line's defender may give up early, so a line no longer than the
    shortest mate proven is read from the proofs even when the deadline has passed
    before the read begins (the shortest length's question may take the time up to it,
    and a walk that stopped there left the proof line: 将棋図巧4 came out as 25 plies,
    a mate in 39). 図巧11 mates in 49; a reply at ply 2 that is mated at once stands for
    the proof line here."""
    import time
    from tsume import movegen
    from tsume.answer import AnswerFinder
    from tsume.pipeline import strict_answer
    cols = next(c for c in _rows("zuko.tsv") if c[2] == "zukou-011")
    root = Position.from_sfen(cols[0])
    solver = Solver(hash_mb=16, seed=0)
    solver.new_problem()
    pn, _, _, upper = solver.search(root, 1_000_000)
    assert pn == 0 and int(upper) == int(cols[1]) == 49

    def after(pos, usi_or_move):
        child = pos.copy()
        child.push_usi(usi_or_move) if isinstance(usi_or_move, str) else child.push(usi_or_move)
        return child

    check = solver.mating_line(root)[0]
    first = after(root, check)
    short_line = next(([check, notation.move_to_usi(reply), notation.move_to_usi(mate)]
                       for reply in movegen.legal_moves_of(first)
                       for mate in movegen.check_moves_of(after(first, reply))
                       if after(after(first, reply), mate).is_mate()), None)
    assert short_line, "no reply at ply 2 is mated at once: pick another problem"
    finder = AnswerFinder(solver, root, deadline=time.perf_counter())
    moves, length, exact = strict_answer(finder, root, short_line, int(upper))
    assert length is None and not exact
    assert len(moves) == 49, moves
    assert_line_mates_under_cshogi(cols[0], moves)


def test_out_of_budget_analysis_reports_the_shortest_mate_it_found():
    """When the proof's line is longer than the shortest mate (図巧94: 31 against 23) and
    the analysis finds a shorter mate but cannot prove that nothing shorter exists, the
    answer is the shorter line (read from the depth-limited proofs), not the proof's,
    and not exact. (Any of the three problems will do: the first whose proof is long.)"""
    from tsume.answer import AnswerFinder
    from tsume.pipeline import strict_answer
    for pid in ("zukou-094", "zukou-040", "zukou-034"):
        cols = next(c for c in _rows("zuko.tsv") if c[2] == pid)
        root = Position.from_sfen(cols[0])
        solver = Solver(hash_mb=64)
        solver.new_problem()
        pn, _, _, upper = solver.search(root, 5_000_000)
        assert pn == 0
        if int(upper) > int(cols[1]):
            break
    else:
        pytest.fail("each proof already has the shortest length: pick other problems")
    proof_line = solver.mating_line(root)
    moves, _, exact = strict_answer(AnswerFinder(solver, root, total_nodes=300_000), root,
                                    proof_line, int(upper))
    assert not exact
    assert len(moves) == int(cols[1]) < int(upper)
    assert_line_mates_under_cshogi(cols[0], moves)


def test_rule_mode_settles_a_futile_interposition_inside_a_classic():
    """図巧18: strictly 25 plies, the lance drop ▲4五角 △3四香 being one futile
    interposition; the published 作意 (23) does not count it. Beyond the Python
    minimax's reach, the engine's rule mode finds the 23 and proves nothing shorter
    (every futility question its last disproof met settled)."""
    cols = next(c for c in _rows("zuko.tsv") if c[2] == "zukou-018")
    # A table of its own: settling takes ~5M of the analysis's 10M nodes, and a table
    # shared with the earlier tests' leftovers made that margin vary from run to run.
    # A fixed salt: which futility questions the rule search meets depends on it, and
    # with a rare one (seen once in CI; none in about 200 seeded salts) one is left
    # open, an honest "not fully evaluated (budget)" that this test is not about.
    result = solve(Position.from_sfen(cols[0]), yozume=False, solver=Solver(hash_mb=256, seed=0))
    assert result.status == "mate" and result.exact
    assert (result.length, result.strict_length) == (int(cols[1]), 25) == (23, 25)
    assert result.mudaai == "not counted"
    assert_line_mates_under_cshogi(cols[0], result.moves)
    # The rule's line is read from upper bounds: a reply with a mate at once (▲2二龍
    # at ply 21 once) must not be taken for a longer defence.
    assert not cshogi_skipped_mates(cols[0], result.moves)
    assert not cshogi_skipped_mates(cols[0], result.strict_moves)


def test_wider_rule_takes_unsettled_interpositions_as_futile():
    """The rule modes read an interposition whose futility is not settled in opposite
    ways: RULE_D2 as a defence (its proofs hold), RULE_KEEP, the wider rule of
    bench/reasons.py, as futile (its disproofs hold). sugyan-solver-issue1 is 5 plies
    by rule D2 and 7 counting its futile interposition; on a fresh table nothing is
    settled."""
    import numpy as np
    from tsume.dfpn import RULE_D2, RULE_D2_DISPROVE, RULE_KEEP
    cols = next(c for c in _rows("edge_cases.tsv") if c[2] == "sugyan-solver-issue1")
    pos = Position.from_sfen(cols[0])
    solver = Solver(hash_mb=16, seed=0)
    solver.new_problem()

    def search(namespace, depth, rule):
        pn, dn, _, length = solver.search(pos, 1_000_000, max_depth=depth, rule=rule,
                                          salt=solver.salt ^ (np.int64(namespace) << 40))
        return pn, dn, length, solver.unknown_futility

    pn, dn, _, unsettled = search(1, 3, RULE_KEEP)
    assert dn == 0                          # no mate in 3 even so
    pn, _, length, unsettled = search(2, 5, RULE_KEEP)
    assert pn == 0 and length == 5 and unsettled > 0
    pn, dn, _, unsettled = search(3, 5, RULE_D2)
    assert pn != 0 and unsettled > 0        # the same interpositions held as defences
    # D2 with the unsettled ones taken as futile: disproofs that hold for D2.
    pn, dn, _, unsettled = search(4, 3, RULE_D2_DISPROVE)
    assert dn == 0
    pn, _, length, unsettled = search(5, 5, RULE_D2_DISPROVE)
    assert pn == 0 and length == 5 and unsettled > 0


def test_settle_proof_reads_proofs_whose_last_checks_the_leaf_tests_found():
    """FutilityRule.settle_proof reads a rule-mode proof back from the table. The
    search proves an attacker node by its mate-in-one leaf test, or reads it from the
    main namespace, without any entry for the mated position; the reader must take such
    a node as read (a plain proof, or a check that mates), not as a lost proof. 図巧71
    within its published 39 plies by bench/reasons.py's wider rule: the fourth proof
    ends in such a node. Read as lost, it came back as "nothing settled, the proof
    does not hold" with no question left open, and reasons.py stopped there
    (undecided after 1 s)."""
    import numpy as np
    from tsume.dfpn import RULE_KEEP
    from tsume.mudaai import FutilityRule
    cols = next(c for c in _rows("zuko.tsv") if c[2] == "zukou-071")
    pos = Position.from_sfen(cols[0])
    solver = Solver(hash_mb=256, seed=0)
    solver.new_problem()
    rule = FutilityRule(solver, pos.side_to_move, query_nodes=400_000, keep_piece=True)
    for namespace in range(1, 5):
        salt = solver.salt ^ (np.int64(namespace) << 40)
        pn, _, _, _ = solver.search(pos, 5_000_000, max_depth=int(cols[1]), salt=salt,
                                    rule=RULE_KEEP)
        assert pn == 0 and solver.unknown_futility > 0     # a proof that assumed some futility
        holds, progress = rule.settle_proof(pos, salt, int(cols[1]))
        # Read, it settles something new or stops at a question left open.
        assert progress or holds or rule._open, namespace


def test_no_mate_within_settles_what_a_shorter_mate_would_need():
    """FutilityRule.no_mate_within: sugyan-solver-issue1 mates in 5 by rule D2 (7
    counting its futile interposition). No mate within 3 is proven; within 5 there is
    one, which the questions it settles confirm (so no disproof), and within 7 too."""
    from tsume.mudaai import FutilityRule
    cols = next(c for c in _rows("edge_cases.tsv") if c[2] == "sugyan-solver-issue1")
    pos = Position.from_sfen(cols[0])
    solver = Solver(hash_mb=16, seed=0)
    solver.new_problem()
    rule = FutilityRule(solver, pos.side_to_move)
    assert rule.no_mate_within(pos, 3, max_nodes=5_000_000)
    assert not rule.no_mate_within(pos, 5, max_nodes=5_000_000)
    assert rule.settled_count() > 0
    assert not rule.no_mate_within(pos, 7, max_nodes=5_000_000)


def test_a_rule_proof_is_settled_only_until_one_interposition_holds_out():
    """FutilityRule.settle_proof: a mate that the rule's disproof found by taking
    interpositions of unknown futility as futile breaks at the first of them that is a
    real defence, and the next search reads that one from the table and looks for
    another mate. So when that search was cheap, its questions are asked until one
    holds out, not all of them (each can be a long search); when it cost more than the
    questions, all. yo-mate7-0000088 (7 plies,
    strict and by the rule): its first such mate within 5 plies rests on several;
    after one holds out, some are left unasked, and no mate within 5 by the rule is
    still proven."""
    from tsume.dfpn import RULE_D2_DISPROVE
    from tsume.mudaai import FutilityRule
    from tsume.solver import DISPROVE_NAMESPACE, namespace
    cols = next(c for c in _rows("yo_mate7.tsv") if c[2] == "yo-mate7-0000088")
    pos = Position.from_sfen(cols[0])
    solver = Solver(hash_mb=16, seed=0)
    solver.new_problem()
    rule = FutilityRule(solver, pos.side_to_move)
    # (Counter 0: no_mate_within's own searches below take fresh namespaces from 1.)
    salt = namespace(solver.salt, DISPROVE_NAMESPACE)
    pn, _, _, _ = solver.search(pos, 2_000_000, max_depth=5, salt=salt, rule=RULE_D2_DISPROVE)
    assert pn == 0 and solver.unknown_futility > 0
    assumed, readable = rule._assumed_futile(pos, salt, 5)
    assert readable and len(assumed) >= 2
    holds, progress = rule.settle_proof(pos, salt, 5)
    assert not holds and progress
    keys = [(p.key(), reply) for p, reply in assumed]
    real = [k for k in keys if k in rule._futile and not rule._futile[k] and k not in rule._open]
    assert len(real) == 1
    assert any(k not in rule._futile for k in keys)      # never asked
    # Where the search cost more than the questions, every one is asked.
    eager = FutilityRule(solver, pos.side_to_move)
    eager.settle_proof(pos, salt, 5, allowance=10**12)
    assert all(k in eager._futile for k in keys)
    assert rule.no_mate_within(pos, 5, max_nodes=5_000_000)


def test_rule_mode_reads_settled_futility_even_when_the_table_lost_the_capture():
    """What FutilityRule settles, the engine's rule mode must read even after the
    post-capture entries are gone: every interposition on one square leaves the same
    board once the checker takes it, so those entries share one cluster and evict one
    another, and a settled futility read as unknown is a defence under RULE_D2.
    sugyan-solver-issue1 after 2d1c 1b1c N*2e 1c1b: 4d1d mates by the rule, every
    interposition on 1c futile. The table keeps only the settled verdicts."""
    import numpy as np
    from tsume.dfpn import RULE_D2, futility_salt, table_key
    from tsume import movegen
    from tsume.lines import interposes
    from tsume.mudaai import FutilityRule
    cols = next(c for c in _rows("edge_cases.tsv") if c[2] == "sugyan-solver-issue1")
    before = Position.from_sfen(cols[0])
    for usi in "2d1c 1b1c N*2e 1c1b".split():
        before.push_usi(usi)
    after_check = before.copy()
    after_check.push_usi("4d1d")
    solver = Solver(hash_mb=16, seed=0)
    solver.new_problem()
    rule = FutilityRule(solver, before.side_to_move)
    interpositions = [m for m in movegen.legal_moves_of(after_check) if interposes(after_check, m)]
    assert len(interpositions) == 7           # R, B, G, S, N, L, P dropped on 1c
    assert all(rule.is_futile(after_check, m) for m in interpositions)
    verdicts = []
    for m in interpositions:
        after = after_check.copy()
        after.push(m)
        salt = futility_salt(solver.salt, True, notation.usi_to_square("1d"), notation.move_to(m))
        verdicts.append(table_key(after.state, after.hands, salt))
    keys, _, vals = solver.table
    kept = np.isin(keys, verdicts) & (vals[:, 2] != 0) & (vals[:, 0] == 0)
    assert kept.sum() == 7                     # each stored as futile (proven)
    vals[~kept, 2] = 0                         # every other entry lost
    pn, dn, _, length = solver.search(before, 100_000, max_depth=1, rule=RULE_D2)
    assert pn == 0 and length == 1 and solver.unknown_futility == 0


def _rule_rows(name, keep, count):
    """(row, position, its solve(yozume=False) Result) of the first `count` rows of
    `name` whose Result `keep` accepts; fails if the file has fewer."""
    found = 0
    for cols in _rows(name):
        pos = Position.from_sfen(cols[0])
        result = solve(pos, yozume=False)
        if keep(result):
            yield cols, pos, result
            found += 1
            if found == count:
                return
    assert found == count


def _fresh_rule(pos, seed):
    """A FutilityRule on a solver of its own, nothing settled yet."""
    from tsume.mudaai import FutilityRule
    solver = Solver(hash_mb=16, seed=seed)
    solver.new_problem()
    return FutilityRule(solver, pos.side_to_move)


def _shortened_by_the_rule(result):
    return result.exact and result.length < result.strict_length


def test_rule_mode_disproofs_agree_with_the_python_minimax():
    """The engine's rule-mode cuts near the horizon (a king move or a capture of the
    checker is a defence under every rule) must never disprove a mate the rule allows.
    On tanuki rows that the 無駄合 rule shortens, the length comes from the Python
    minimax (short problems), independent of those cuts: the engine must find no
    "no mate within" that length, and prove none shorter."""
    rows = _rule_rows("tanuki_generated.tsv", _shortened_by_the_rule, 30)
    for seed, (cols, pos, result) in enumerate(rows):
        rule = _fresh_rule(pos, seed)
        assert not rule.no_mate_within(pos, result.length, max_nodes=2_000_000), cols[2]
        assert rule.no_mate_within(pos, result.length - 2, max_nodes=2_000_000), cols[2]


def test_a_short_length_settled_by_the_rules_disproof_stands_in_the_python_minimax():
    """Short problems settle the length by the rule with one disproof in the engine
    (no mate within two plies less, every interposition of unknown futility taken as
    futile) before any minimax. Where that leaves the strict length standing, the
    Python minimax, which asks every futility question itself and shares none of the
    engine's cuts, must find no line by the rule within two plies less either (it may
    leave a question open, never find a shorter mate). yo_mate7 rows: game positions,
    where the rule shortens one line in three."""
    def standing(result):
        return (result.exact and result.mudaai == "not counted"
                and result.length == result.strict_length)
    for seed, (cols, pos, result) in enumerate(_rule_rows("yo_mate7.tsv", standing, 20)):
        rule = _fresh_rule(pos, seed)
        assert rule.value_or(pos.copy(), result.length - 2) is None, cols[2]


def test_the_minimax_shallow_pass_finds_the_rules_length():
    """The short problems' minimax asks each length first with every futility question
    cut to its first pass (an open one is a defence there) and asks in full only when
    that finds no line. On tanuki rows that the rule shortens, both ways give the same
    shortest length by the rule, lengths tried from 1 upwards."""
    rows = _rule_rows("tanuki_generated.tsv", _shortened_by_the_rule, 20)
    for seed, (cols, pos, result) in enumerate(rows):
        found = []
        for shallow in (True, False):
            rule = _fresh_rule(pos, seed)
            ask = rule.shallow_value_or if shallow else lambda p, n: rule.value_or(p.copy(), n)
            found.append(next((line[0] for line in (ask(pos, n) for n in range(1, len(
                result.strict_moves), 2)) if line is not None), None))
        assert found == [result.length, result.length], cols[2]


def test_a_line_read_from_the_proofs_is_never_shorter_than_the_mate():
    """When the defender's longest defences cannot be read to the end (the table lost
    the proofs below them), the read must not fall back on a reply that loses sooner:
    that line would claim a mate shorter than the shortest (図巧23 once came out as a
    27-ply line, not exact, for a 31-ply mate). Here every defence that lasts three
    plies or more loses its proofs one ply down; only short lines stay readable, and
    the read for the proven bound gives none unless a mate within the shorter line's
    length is proven."""
    from tsume import movegen
    from tsume.answer import line_of_length, stored_proof_length

    def extend(pos, move):
        child = pos.copy()
        child.push(move)
        return child

    def replies(pos):
        return sorted(movegen.legal_moves_of(pos), key=notation.move_to_usi)

    tried = 0
    for cols in _rows("tanuki_generated.tsv"):
        if cols[1] != "7":
            continue
        root = Position.from_sfen(cols[0])
        attacker = root.side_to_move
        solver = Solver(hash_mb=16)
        solver.new_problem()
        pn, _, _, upper = solver.search(root, 2_000_000, max_depth=7)
        assert pn == 0 and int(upper) == 7, cols[2]

        def stored(pos):
            return stored_proof_length(solver, pos, attacker, solver.salt)
        assert len(line_of_length(root, 7, stored, replies)) == 7, cols[2]
        forgotten = set()
        for check in movegen.check_moves_of(root):
            first = extend(root, check)
            for reply in movegen.legal_moves_of(first):
                second = extend(first, reply)
                bound = stored(second)
                if bound is not None and bound >= 3:
                    forgotten.update(extend(second, c) for c in movegen.check_moves_of(second))

        def forgetful(pos):
            return None if pos in forgotten else stored(pos)
        if line_of_length(root, 3, forgetful, replies) is None:
            continue                    # no short line to fall back on here
        tried += 1
        assert line_of_length(root, 7, forgetful, replies) is None, cols[2]
        # A shorter line is given only when a mate within its length is proven.
        asked = []
        assert line_of_length(root, 7, forgetful, replies,
                              confirm=lambda plies: asked.append(plies)) is None, cols[2]
        assert asked and asked[0] < 7
        short = line_of_length(root, 7, forgetful, replies, confirm=lambda plies: True)
        assert len(short) == asked[0]
        if tried == 5:
            return
    assert tried, "no tanuki 7-ply row with a quickly lost defence"


def test_a_line_read_out_of_budget_plays_every_mate_at_once():
    """A proof line is any mate; df-pn's often lets the defender give up early and then
    takes the long way home (a mate at once left for a longer one). When the analysis
    runs out of budget before the length is settled, the line reported must still be a
    minimax line as far as it can be read: at no attacker turn but the last does a check
    mate at once that the line does not play (musou-001 and six classics once printed
    such lines), and it never claims fewer plies than the shortest forced mate."""
    from tsume.answer import AnswerFinder
    from tsume.lines import mate_at_once_first, skipped_mate, verify_mating_line
    from tsume.pipeline import strict_answer
    solver = Solver(hash_mb=64, seed=0)
    tried = 0
    for cols in _rows("yo_mate9.tsv"):
        root = Position.from_sfen(cols[0])
        solver.new_problem()
        pn, _, _, upper = solver.search(root, 2_000_000, line=True)
        proof_line = solver.mating_line(root)
        if pn != 0 or skipped_mate(root, proof_line) is None:
            continue            # (most proof lines of this set skip one)
        assert cshogi_skipped_mates(cols[0], proof_line)   # (the two checks agree)
        # The last resort, when no line can be read: the proof line ended at its first
        # mate at once.
        ended = mate_at_once_first(root, proof_line)
        assert verify_mating_line(root, ended) and not cshogi_skipped_mates(cols[0], ended)
        assert len(ended) < len(proof_line)
        tried += 1
        for nodes in (1, 1_000):        # none at all; some of the length's questions
            moves, _, exact = strict_answer(AnswerFinder(solver, root, total_nodes=nodes),
                                            root, proof_line, int(upper))
            assert verify_mating_line(root, moves), cols[0]
            assert not cshogi_skipped_mates(cols[0], moves), (cols[0], moves)
            assert len(moves) >= int(cols[1]) and (not exact or len(moves) == int(cols[1]))
        if tried == 8:
            return
    pytest.fail("no yo_mate9 proof line skips a mate at once: pick another set")


def test_the_rule_analysis_goes_on_past_its_query_budget():
    """図巧18 mates in 23 by the 無駄合 rule, 25 counting every interposition. Settling
    23 takes the rule-mode search millions of nodes; given 5,000 a query, it must go on
    where it stopped (doubling the query budget while the analysis has nodes left)
    rather than give up with the length open."""
    from tsume.mudaai import rule_answer
    from tsume.lines import verify_mating_line
    cols = next(c for c in _rows("zuko.tsv") if c[2] == "zukou-018")
    root = Position.from_sfen(cols[0])
    solver = Solver(hash_mb=64, seed=0)
    strict = solve(root, solver=solver, mudaai=False, yozume=False)
    assert strict.status == "mate" and strict.exact and strict.length == 25
    found = rule_answer(solver, root, strict.length, list(strict.moves),
                        query_nodes=5_000, total_nodes=10_000_000)
    assert found is not None
    length, line, settled = found
    assert length == int(cols[1]) == 23 and settled
    assert verify_mating_line(root, line, rule=True)


def test_the_shortest_length_goes_on_past_the_node_budget_until_its_time():
    """With a time limit, the root's "mate within d plies?" question may go past the
    analysis's node budget until length_until (half the analysis's time in solve()):
    nothing else can be asked before it is answered. 図巧18 mates in 25 counting every
    interposition; settling that no mate within 23 exists takes far more than 1,000
    nodes. Afterwards the questions that follow get the budget it found."""
    import time
    from tsume.answer import AnswerFinder, OutOfBudget
    cols = next(c for c in _rows("zuko.tsv") if c[2] == "zukou-018")
    root = Position.from_sfen(cols[0])
    solver = Solver(hash_mb=64, seed=0)
    solver.new_problem()
    with pytest.raises(OutOfBudget):
        AnswerFinder(solver, root, query_nodes=1_000, total_nodes=1_000).exact_length(25)
    far = time.perf_counter() + 600
    finder = AnswerFinder(solver, root, query_nodes=1_000, total_nodes=1_000,
                          deadline=far, length_until=far)
    assert finder.exact_length(25) == 25
    assert finder.stop_at - solver.nodes == 1_000 and finder.query_nodes == 1_000


def test_random_positions_agree_with_a_full_cshogi_minimax():
    """Verdicts and shortest lengths on random tsume-style positions (tests/randpos.py:
    pins, 双玉, promoted pieces, random hands), against cshogi alone wherever a full
    minimax is cheap: every check tried, every reply, cshogi's mate test. A mate claim
    replays under cshogi; a shortest length of at most 5 plies is a mate there within
    that length and none within two plies less; a no-mate claim has no mate within 3
    plies there, and cshogi's DfPn finds none either. The problem files hold composed
    or game positions; these are neither, so the engine meets shapes no file has."""
    import random
    from collections import Counter
    from oracle import every_check
    from randpos import random_position
    from tsume.movegen import check_moves_of

    rng = random.Random(2026)
    solver = Solver(hash_mb=16)
    seen = Counter()
    while seen["tried"] < 1000:
        pos = random_position(rng, max_pieces=rng.randint(4, 14),
                              attacker_king_near=rng.random() < 0.3)
        if not check_moves_of(pos):
            continue
        seen["tried"] += 1
        sfen = pos.sfen()
        result = solve(pos, nodes=20_000, solver=solver, yozume=False, mudaai=False)
        seen[result.status] += 1
        if result.status == "mate":
            assert_line_mates_under_cshogi(sfen, result.moves)
            if result.exact and result.length <= 5:
                seen["short mates"] += 1
                assert cshogi_mates_within(sfen, result.length, every_check), sfen
                assert not cshogi_mates_within(sfen, result.length - 2, every_check), sfen
        elif result.status == "nomate":
            assert not cshogi_mates_within(sfen, 3, every_check), sfen
            dfpn = cshogi.DfPn()
            dfpn.set_max_search_node(20_000)
            assert not dfpn.search(cshogi.Board(sfen)), sfen
    # Enough of each kind that the checks above were exercised (about 120 and 360 of
    # the 1,000; most of the rest are unknown at 20K nodes: random hands are large).
    assert seen["short mates"] >= 80 and seen["nomate"] >= 250, seen


def test_without_a_time_limit_the_yozume_check_widens_too():
    """The check's share is in nodes, so a solve() with no limit widens its passes as
    one with a time limit does: 図巧2 (problems/zukou-002.sfen), a complete work one of
    whose other checks (P*1f at ply 3) takes more than the 100,000 nodes a reply of the
    last fixed pass to refute, is judged complete with nothing left unchecked."""
    sfen = (Path(__file__).resolve().parents[1] / "problems" / "zukou-002.sfen").read_text()
    result = solve(Position.from_sfen(sfen.strip()), solver=Solver(hash_mb=256, seed=0))
    assert result.status == "mate" and result.exact
    assert [y for y in result.yozume if y["kind"] == "unchecked"] == []
    assert result.complete


def test_the_yozume_check_widens_its_passes_up_to_a_node_count():
    """Given a node count to go up to (solve() gives one unless a cap is given:
    limits.Budget.yozume_nodes), the 余詰 check does not stop at the last pass's nodes a
    reply: the passes go on, each YOZUME_GROWTH times wider. tanuki-7-0079's alternatives,
    asked with a last pass of 200 nodes a reply, leave two open; widened, all settle
    (one more 余詰, the other a 紛れ), those settled before keep their verdicts, and
    every 余詰 line found replays as a mate under cshogi."""
    from tsume.answer import AnswerFinder
    cols = next(c for c in _rows("tanuki_generated.tsv") if c[2] == "tanuki-7-0079")
    root = Position.from_sfen(cols[0])
    line = solve(root, yozume=False).moves

    def check(widen):
        solver = Solver(hash_mb=64, seed=0)
        solver.new_problem()
        finder = AnswerFinder(solver, root, deadline=time.perf_counter() + 120)
        found = finder.yozume(line, 200, solver.nodes + 50_000_000 if widen else None)
        return {(y["ply"], y["move"]): y for y in found}
    capped, widened = check(False), check(True)
    assert "nodes" in {y["budget"] for y in capped.values() if y["kind"] == "unchecked"}
    assert "unchecked" not in {y["kind"] for y in widened.values()}
    assert any(entry["line"] for entry in widened.values())
    assert set(widened) <= set(capped)      # (none disproven there is listed here)
    for key, entry in capped.items():
        if entry["kind"] != "unchecked":
            assert widened[key]["kind"] == entry["kind"], key
    for (ply, _), entry in widened.items():
        if entry["line"]:
            board = cshogi.Board(cols[0])
            for usi in line[:ply - 1]:
                board.push_usi(usi)
            assert_line_mates_under_cshogi(board.sfen(), entry["line"])
