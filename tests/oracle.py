"""Independent move generators (cshogi, python-shogi) used as oracles in tests and bench."""
import time

import cshogi


def cshogi_board(sfen):
    return cshogi.Board(sfen)


def cshogi_legal(board):
    """cshogi's legal moves as USI, minus the moves its own is_legal() rejects
    (cshogi 1.1.0 lists an illegal king recapture along a slider's x-ray)."""
    return {cshogi.move_to_usi(m) for m in board.legal_moves if board.is_legal(m)}


def cshogi_checks(board):
    out = set()
    for m in board.legal_moves:
        if not board.is_legal(m):
            continue
        board.push(m)
        if board.is_check():
            out.add(cshogi.move_to_usi(m))
        board.pop()
    return out


def cshogi_skipped_mates(sfen, line):
    """The attacker turns of `line` (USI, from sfen), the last aside, where some check
    mates at once (cshogi: no legal reply left) and the line goes on: [(ply, check)]
    with ply 1-based. A minimax line has none."""
    board = cshogi.Board(sfen)
    skipped = []
    for ply, usi in enumerate(line[:-1]):
        if ply % 2 == 0:
            for check in sorted(cshogi_checks(board)):
                board.push_usi(check)
                mated = not cshogi_legal(board)
                board.pop()
                if mated:
                    skipped.append((ply + 1, check))
                    break
        board.push_usi(usi)
    return skipped


def every_check(board, plies):
    """A propose() for cshogi_mates_within that names every check cshogi finds: the
    tree is then decided by cshogi alone (a full minimax)."""
    return sorted(cshogi_checks(board))


def python_shogi_legal(sfen):
    import shogi
    return {m.usi() for m in shogi.Board(sfen).legal_moves}


def cshogi_mates_within(sfen, plies, propose):
    """Does the side to move mate within `plies` against every defence? Decided by
    cshogi alone: it generates every move, and a defender without a legal reply in
    check is mated. propose(board, plies) only names the checks worth trying first
    (USI strings, any order): a bad proposal can make the answer False, never True.
    A plain minimax bounded by depth (no path rules are needed: the tree is finite),
    with what was shown at each position and depth remembered."""
    board = cshogi.Board(sfen)
    mated_by, not_shown = {}, {}

    def key():
        return " ".join(board.sfen().split()[:3])

    def attacker_mates(plies):
        if plies < 1:
            return False
        k = key()
        if mated_by.get(k, plies + 1) <= plies:
            return True
        if not_shown.get(k, -1) >= plies:
            return False
        checks = cshogi_checks(board)
        shown = False
        for usi in propose(board, plies):
            if usi not in checks:
                continue
            board.push_usi(usi)
            shown = defender_mated(plies - 1)
            board.pop()
            if shown:
                break
        if shown:
            mated_by[k] = min(mated_by.get(k, plies), plies)
        else:
            not_shown[k] = max(not_shown.get(k, plies), plies)
        return shown

    def defender_mated(plies):
        replies = cshogi_legal(board)
        if not replies:
            return board.is_check()
        for usi in sorted(replies):
            board.push_usi(usi)
            held = not attacker_mates(plies - 1)
            board.pop()
            if held:
                return False
        return True

    return attacker_mates(plies)


class OutOfTime(Exception):
    """The proposer's time or node budget ran out: the tree is undecided."""


def proposer(solver, attacker, nodes=2_000_000, deadline=None):
    """A propose(board, plies) for cshogi_mates_within from our engine: the checks whose
    proof stored in `solver`'s table fits in the plies left, shortest first; when none
    does, a search within those plies first (once). Raises OutOfTime past `deadline`
    or when that search stops at its node budget."""
    from tsume import movegen, notation
    from tsume.position import Position

    def propose(board, plies):
        if deadline is not None and time.perf_counter() > deadline:
            raise OutOfTime
        pos = Position.from_sfen(board.sfen())
        for searched in (False, True):
            found = []
            for move in movegen.check_moves_of(pos):
                child = pos.copy()
                child.push(move)
                length = solver.proof_length(child, attacker)
                if length is not None and length <= plies - 1:
                    found.append((length, notation.move_to_usi(move)))
            if found or searched:
                break
            pn, dn = solver.search(pos, nodes, deadline, max_depth=plies)[:2]
            if pn != 0 and dn != 0:
                # The search stopped at its budget: no proposal is not "no mate".
                raise OutOfTime
        return [usi for _, usi in sorted(found)]
    return propose
