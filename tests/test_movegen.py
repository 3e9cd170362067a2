"""The numba move generator against independent generators (cshogi, python-shogi).

Whole move sets are compared, on random tsume-style positions, on every position along
the tanuki_generated solutions, and on a sample of full-board game positions.
"""
import random

import numpy as np
import pytest

cshogi = pytest.importorskip("cshogi")

from oracle import cshogi_board, cshogi_checks, cshogi_legal, python_shogi_legal  # noqa: E402
from randpos import random_position  # noqa: E402
from tsume.perft import tsume_perft  # noqa: E402
from shared_data import rows  # noqa: E402
from tsume.position import Position  # noqa: E402
from tsume import movegen, pieces as P  # noqa: E402
from tsume.move import move_from, move_to  # noqa: E402



def _rows(name, limit=None, seed=5):
    return rows(name, limit, seed)


def _compare(pos, board, mismatches, checks=True):
    ours, theirs = set(pos.legal_moves()), cshogi_legal(board)
    if ours != theirs:
        mismatches.append(("legal", pos.sfen(), sorted(ours - theirs), sorted(theirs - ours)))
    if checks:
        ours_c, theirs_c = set(pos.check_moves()), cshogi_checks(board)
        if ours_c != theirs_c:
            mismatches.append(("checks", pos.sfen(), sorted(ours_c - theirs_c), sorted(theirs_c - ours_c)))
        return ours_c
    return ours


def test_random_tsume_positions_match_cshogi():
    """2,000 random positions, and the defender's replies after up to 4 checks of each."""
    rng = random.Random(20261129)
    mismatches, compared = [], 0
    for _ in range(2000):
        pos = random_position(rng)
        checks = _compare(pos, cshogi_board(pos.sfen()), mismatches)
        compared += 1
        for usi in sorted(checks)[:4]:
            after = pos.copy()
            after.push_usi(usi)
            assert after.is_check()
            _compare(after, cshogi_board(after.sfen()), mismatches, checks=False)
            compared += 1
    assert compared > 5000
    assert mismatches == []


def test_moves_onto_a_square_are_the_legal_moves_there():
    """movegen.moves_onto (the Japanese text's rivals) generates the moves onto one
    square by itself: on every square of random positions and of the defender's
    replies after a check, it equals the legal moves (checked against cshogi above)
    that end there."""
    rng = random.Random(20261206)
    buf = movegen._buffer()
    compared = 0
    for _ in range(300):
        pos = random_position(rng)
        positions = [pos]
        for usi in sorted(pos.check_moves())[:2]:
            after = pos.copy()
            after.push_usi(usi)
            positions.append(after)
        for p in positions:
            legal = movegen.legal_moves_of(p)
            for to in range(81):
                n = movegen.moves_onto(p.board, p.hands, p.state, np.int64(to), buf)
                assert sorted(buf[:n].tolist()) == sorted(m for m in legal if m & 127 == to), \
                    (p.sfen(), to)
                compared += 1
    assert compared > 40_000


def _squares_between(a, b):
    """The squares strictly between a and b on a rank, file or diagonal, by stepping
    (not the move generator's tables); empty unless two or more squares apart."""
    (fa, ra), (fb, rb) = divmod(a, 9), divmod(b, 9)
    df, dr = fb - fa, rb - ra
    if not (df == 0 or dr == 0 or abs(df) == abs(dr)):
        return set()
    sf, sr = (df > 0) - (df < 0), (dr > 0) - (dr < 0)
    return {(fa + sf * k) * 9 + ra + sr * k for k in range(1, max(abs(df), abs(dr)))}


def test_interpositions_and_the_minimax_leaf_test_follow_the_rule_s_definition():
    """movegen.interposing (lines.interpositions) and movegen.defence_left (the 無駄合
    minimax's leaf test) against the definition stepped out here: a reply other than a
    king move that lands between the king and its only checker. After every check of
    random positions and of composed and game positions of the shared sets."""
    from tsume.lines import interpositions
    rng = random.Random(20261207)
    positions = [random_position(rng) for _ in range(400)]
    positions += [Position.from_sfen(row[0]) for name in ("tanuki_generated.tsv", "yo_mate7.tsv")
                  for row in _rows(name, 150)]
    out = np.empty(16, dtype=np.int64)
    seen = {-1: 0, 0: 0, 1: 0}
    for pos in positions:
        for move in movegen.check_moves_of(pos):
            after = pos.copy()
            after.push(move)
            replies = movegen.legal_moves_of(after)
            king = after.king_square(after.side_to_move)
            checkers = movegen.find_attackers(after.board, after.state, king,
                                              1 - after.side_to_move, out)
            line = _squares_between(king, int(out[0])) if checkers == 1 else set()
            want = {m for m in replies if move_from(m) != king and move_to(m) in line}
            assert interpositions(after, replies) == want, after.sfen()
            left = 0 if not replies else 1 if want == set(replies) else -1
            assert movegen.defence_left_of(after) == left, (after.sfen(), left)
            seen[left] += 1
    assert min(seen.values()) > 20, seen


def test_attacker_with_pinned_pieces_matches_cshogi():
    """Checks of an attacker whose own king stands among the pieces: its pinned pieces
    may only check along their pin, its king only to safe squares, and with its king
    in check (by the defender's last move) a check must also answer that check."""
    from tsume.movegen import _shields
    rng = random.Random(20261201)
    mismatches, pinned, in_check = [], 0, 0
    for _ in range(3000):
        pos = random_position(rng, attacker_king_near=True)
        own, side = pos.king_square(pos.side_to_move), pos.side_to_move
        pinned += any(_shields(pos.board, pos.state, own, side, 1 - side))
        in_check += pos.is_check()
        _compare(pos, cshogi_board(pos.sfen()), mismatches)
    assert pinned > 200 and in_check > 200, (pinned, in_check)
    assert mismatches == []


def _mates_in_one(board):
    """USI of the checks after which the defender has no legal move (cshogi)."""
    mates = set()
    for usi in cshogi_checks(board):
        board.push_usi(usi)
        if not cshogi_legal(board):
            mates.add(usi)
        board.pop()
    return mates


def test_mate_in_one_agrees_with_cshogi():
    """When the defender holds a piece it may drop anywhere, mate_in_one only tries the
    checks no drop can block (touching, knight's, double): it must still find a mate
    exactly when one exists. Random positions with a random defender hand (most hold
    a gold, silver, bishop or rook), half with the attacker's king among the pieces
    (pins, checks to answer), and the positions after a check and a reply (the 2-ply
    check's use). quick_mate_in_one, which the search uses, may miss a mate but never
    returns a move that does not mate."""
    from tsume.movegen import _buffer, mate_in_one, quick_mate_in_one
    from tsume.notation import move_to_usi
    rng = random.Random(20261202)
    wrong, with_mate, blockable, compared, quick_found = [], 0, 0, 0, 0

    def compare(pos):
        nonlocal with_mate, blockable, compared, quick_found
        mates = _mates_in_one(cshogi_board(pos.sfen()))
        found = int(mate_in_one(pos.board, pos.hands, pos.state, _buffer()))
        if (found >= 0) != bool(mates) or (found >= 0 and move_to_usi(found) not in mates):
            wrong.append((pos.sfen(), found, sorted(mates)))
        # The search's quick test may miss a mate, but what it finds must be one.
        quick = int(quick_mate_in_one(pos.board, pos.hands, pos.state, _buffer()))
        if quick >= 0 and move_to_usi(quick) not in mates:
            wrong.append(("quick", pos.sfen(), quick, sorted(mates)))
        quick_found += quick >= 0
        with_mate += bool(mates)
        hand = pos.hand(1 - pos.side_to_move)
        blockable += any(hand.get(k) for k in (P.SILVER, P.GOLD, P.BISHOP, P.ROOK))
        compared += 1

    # Mates by a distant drop only, where the defender has nothing (or only a pawn that
    # 二歩 keeps out) to block with; one where a gold in hand blocks; a mate by a
    # piece that shields the king from a lance and steps along that line to touch it;
    # a double check by a bishop that leaves a rook's line and checks from a distance,
    # with a gold in hand (the one kind of check quick_mate_in_one leaves to mate_in_one
    # there: a discovered one); and a rook that moves to mate from a distance.
    for sfen in ("k8/pp7/9/9/9/9/9/9/8K b R 1", "k8/pp7/9/9/9/9/9/9/8K b Rp 1",
                 "k8/pp7/9/9/9/9/9/9/8K b Rg 1", "8k/9/8G/9/9/9/9/9/8L b g 1",
                 "7nk/9/9/9/8B/9/9/9/8R b g 1", "k8/pp7/9/9/9/9/9/9/7R1 b - 1"):
        compare(Position.from_sfen(sfen))
    assert with_mate == 5 and wrong == [], wrong
    for k in range(3000):
        pos = random_position(rng, attacker_king_near=k % 2 == 1)   # pins, checks to answer
        compare(pos)
        for usi in sorted(pos.check_moves())[:3]:
            after = pos.copy()
            after.push_usi(usi)
            for reply in sorted(after.legal_moves())[:2]:
                deeper = after.copy()
                deeper.push_usi(reply)
                if not deeper.is_check():
                    compare(deeper)
    assert compared > 15000 and with_mate > 1000 and blockable > 15000, (compared, with_mate, blockable)
    assert wrong == []
    assert quick_found > 0.95 * with_mate, (quick_found, with_mate)     # it misses few


def _replay_and_compare(rows):
    mismatches, compared = [], 0
    for cols in rows:
        pos, board = Position.from_sfen(cols[0]), cshogi_board(cols[0])
        line = cols[3].split() if len(cols) > 3 else []
        for i in range(len(line) + 1):
            _compare(pos, board, mismatches, checks=(i % 2 == 0))
            compared += 1
            if i < len(line):
                pos.push_usi(line[i])
                board.push_usi(line[i])
    return compared, mismatches


def test_tanuki_solution_lines_match_cshogi():
    compared, mismatches = _replay_and_compare(_rows("tanuki_generated.tsv"))
    assert compared > 10000
    assert mismatches == []


@pytest.mark.parametrize("name", ["yo_mate3.tsv", "yo_mate7.tsv", "yo_mate11.tsv"])
def test_game_positions_match_cshogi(name):
    compared, mismatches = _replay_and_compare(_rows(name, limit=150))
    assert mismatches == []


def _side_not_to_move_in_check(pos):
    from tsume.movegen import attacked
    king = pos.king_square(1 - pos.side_to_move)
    return king is not None and attacked(pos.board, pos.state, king, pos.side_to_move)


def test_edge_case_positions_match_cshogi_and_python_shogi():
    compared = 0
    for cols in _rows("edge_cases.tsv"):
        pos = Position.from_sfen(cols[0])
        if _side_not_to_move_in_check(pos):
            continue       # not a legal position: the oracles would list king captures
        ours = set(pos.legal_moves())
        assert ours == cshogi_legal(cshogi_board(cols[0])), cols[2]
        assert ours == python_shogi_legal(cols[0]), cols[2]
        compared += 1
    assert compared >= 20


def test_shtsume_issue6_position_as_transcribed_has_the_defender_in_check():
    """The BOD of shtsume issue #6 has the 8a rook already checking the king on 6a with
    Black to move, so it is an invalid problem (SPEC §3.4), not a mate-in-1."""
    row = next(c for c in _rows("edge_cases.tsv") if c[2] == "shtsume-issue6-bod")
    assert _side_not_to_move_in_check(Position.from_sfen(row[0]))


def test_uchifuzume_is_not_generated_but_pawn_push_mate_is():
    pos = Position.from_sfen("8k/6S2/7G1/9/9/9/9/9/9 b P2r2b3g3s4n4l17p 1")
    assert "P*1b" not in pos.check_moves()
    assert "P*1b" not in pos.legal_moves()
    pos = Position.from_sfen("8k/6S2/7GP/9/9/9/9/9/9 b 2r2b3g3s4n4l17p 1")
    assert {"1c1b", "1c1b+"} <= set(pos.check_moves())
    pos.push_usi("1c1b+")
    assert pos.is_mate()


def test_pawn_drop_check_that_is_not_mate_is_generated():
    pos = Position.from_sfen("8k/9/9/7+R1/9/9/9/9/9 b LPr2b4g4s4n3l17p 1")
    assert "P*1b" in pos.check_moves()


def test_nifu_and_dead_piece_drops_are_excluded_for_both_sides():
    pos = Position.from_sfen("8k/9/9/9/9/9/9/8P/9 b PLN2r2b4g4s3n3l16p 1")
    moves = pos.legal_moves()
    assert not [m for m in moves if m.startswith("P*1")]            # 二歩 on file 1
    assert not [m for m in moves if m[:2] in ("P*", "L*") and m[3] == "a"]
    assert not [m for m in moves if m.startswith("N*") and m[3] in "ab"]
    # Defender interposing along rank 1: no pawn on the file of its own pawn (3b).
    pos = Position.from_sfen("k7R/6p2/9/9/9/9/9/9/9 w r2b4g4s4n4l17p 1")
    replies = set(pos.legal_moves())
    assert "P*3a" not in replies and {"P*4a", "L*3a", "N*3a"} <= replies
    # Along White's last rank: no pawn, lance or knight drop there.
    pos = Position.from_sfen("9/9/9/9/9/9/9/9/k7R w r2b4g4s4n4l18p 1")
    replies = set(pos.legal_moves())
    assert not [m for m in replies if m[0] in "PLN" and m[1] == "*"]
    assert {"S*5i", "G*5i", "B*5i", "R*5i"} <= replies


@pytest.mark.parametrize("sfen", [
    "8k/9/9/7+R1/9/9/9/9/9 b LPr2b4g4s4n3l17p 1",
    "9/9/3B3G1/6+p1n/7+p1/7k1/5BL1p/7G1/7+R+r b N2P2g4s2n3l13p 1",
    "7k1/8s/8+P/9/7n1/9/9/9/9 b RSr2b4g2s3n4l17p 1",
    "3g1n1l1/2p1g1r2/5k2S/4p1N+R1/3+p5/7N1/B8/9/9 b 2GSNb2s3l15p 1",
])
def test_tsume_perft_matches_cshogi(sfen):
    def cshogi_perft(board, depth, ply=0):
        if depth == 0:
            return 1
        total = 0
        for m in [m for m in board.legal_moves if board.is_legal(m)]:
            board.push(m)
            if ply % 2 == 1 or board.is_check():
                total += cshogi_perft(board, depth - 1, ply + 1)
            board.pop()
        return total
    pos = Position.from_sfen(sfen)
    for depth in (1, 2, 3):
        assert tsume_perft(pos.board, pos.hands, pos.state, depth) == cshogi_perft(cshogi_board(sfen), depth)
    # The search left the position as it was, square sets included.
    assert pos.sfen() == Position.from_sfen(sfen).sfen()
    assert (pos.state == Position.from_sfen(sfen).state).all()


def test_do_undo_restores_position_and_key():
    import numpy as np
    from tsume.movegen import key_after
    from tsume.notation import usi_to_move
    rng = random.Random(7)
    for _ in range(300):
        pos = random_position(rng)
        before = (pos.board.copy(), pos.hands.copy(), pos.state.copy())
        for usi in pos.legal_moves():
            after = pos.copy()
            after.push_usi(usi)
            # The key the search prefetches with is the key the move leads to.
            key, hand_sum = key_after(pos.board, pos.hands, pos.state, np.int32(usi_to_move(usi)))
            assert (key, hand_sum) == (after.state[1], after.hands[0] + after.hands[1])
            # Incremental key, king squares and square sets equal those recomputed
            # from scratch.
            assert (Position.from_sfen(after.sfen()).state == after.state).all()
        assert (pos.board == before[0]).all() and (pos.hands == before[1]).all() and (pos.state == before[2]).all()
