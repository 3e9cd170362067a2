"""Independent move generators (cshogi, python-shogi) used as oracles in tests and bench."""
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


def python_shogi_legal(sfen):
    import shogi
    return {m.usi() for m in shogi.Board(sfen).legal_moves}
