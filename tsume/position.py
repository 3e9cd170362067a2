"""The Position class: a small Python API over the three arrays of state.py.

Moves go in and out as USI strings (or the integers of move.py). Position stands above
what it uses: movegen.py for the moves, notation.py for move text, the format codecs
(formats/sfen.py, kif.py, csa.py) for SFEN, KIF and CSA; none of those imports this
module, they take the arrays or any object with the queries below. They are imported
inside the methods so that ``import tsume`` loads neither numba nor the formats
package (whose read_problems imports this module).

``split_sfen`` and ``parse_sfen`` are the SFEN readers that return a Position.
"""
import numpy as np

from . import pieces as P
from .errors import PositionError
from .state import KEY, KING_SQ, SIDE, STATE_SIZE


class Position:
    """A shogi position. Moves in and out are USI strings; internals are arrays."""

    __slots__ = ("board", "hands", "state")

    def __init__(self, board, hands, side):
        self.board = np.asarray(board, dtype=np.int8).copy()
        self.hands = np.asarray(hands, dtype=np.int64).copy()
        self.state = np.zeros(STATE_SIZE, dtype=np.int64)
        _engine().fill_state(self.board, side, self.state)

    # ------------------------------------------------------------ construction
    @classmethod
    def from_sfen(cls, text):
        """Parse ``board side hands [ply] [moves ...]`` (optionally prefixed by
        ``sfen`` or ``position sfen``); moves after ``moves`` are played."""
        return parse_sfen(text)

    @classmethod
    def empty(cls, side=P.BLACK):
        return cls(np.zeros(81, dtype=np.int8), np.zeros(2, dtype=np.int64), side)

    def copy(self):
        other = Position.__new__(Position)
        other.board = self.board.copy()
        other.hands = self.hands.copy()
        other.state = self.state.copy()
        return other

    # ------------------------------------------------------------ queries
    @property
    def side_to_move(self):
        return int(self.state[SIDE])

    def piece_at(self, sq):
        return int(self.board[sq])

    def king_square(self, colour):
        sq = int(self.state[KING_SQ + colour])
        return None if sq < 0 else sq

    def hand(self, colour):
        """{kind: count} for the seven hand kinds."""
        return P.unpack_hand(int(self.hands[colour]))

    def set_hand(self, colour, counts):
        self.hands[colour] = P.pack_hand(counts)

    def key(self):
        """Full position key (board, side and both hands): equal positions, equal keys."""
        mask = (1 << 64) - 1
        mixed = (int(self.hands[0]) * int(P.HAND_MIX[0])) ^ (int(self.hands[1]) * int(P.HAND_MIX[1]))
        return int(self.state[KEY]) ^ (mixed & mask)

    def piece_counts(self):
        """{base kind: pieces of that kind on the board and in both hands}."""
        counts = {k: 0 for k in P.TOTAL}
        for sq in range(81):
            p = int(self.board[sq])
            if p:
                counts[P.base_kind(P.piece_kind(p))] += 1
        for colour in (P.BLACK, P.WHITE):
            for k, n in self.hand(colour).items():
                counts[k] += n
        return counts

    def remaining_pieces(self, attacker):
        """The defender's hand under 玉方残り駒全部: every piece not on the board and not in
        the attacker's hand (SPEC §2.2). Raises PositionError if a kind is over-used."""
        on_board = {k: 0 for k in P.TOTAL}
        for sq in range(81):
            p = int(self.board[sq])
            if p:
                on_board[P.base_kind(P.piece_kind(p))] += 1
        attacker_hand = self.hand(attacker)
        rest = {}
        for k in P.HAND_KINDS:
            n = P.TOTAL[k] - on_board[k] - attacker_hand[k]
            if n < 0:
                raise PositionError(f"too many {P.USI_LETTER[k]}: {P.TOTAL[k] - n} of at most {P.TOTAL[k]}")
            rest[k] = n
        return rest

    def __eq__(self, other):
        return (isinstance(other, Position) and np.array_equal(self.board, other.board)
                and np.array_equal(self.hands, other.hands) and self.side_to_move == other.side_to_move)

    def __hash__(self):
        return self.key()

    def __repr__(self):
        return f"Position.from_sfen({self.sfen()!r})"

    # ------------------------------------------------------------ writers
    def sfen(self, ply=1):
        from .formats.sfen import write_sfen
        return write_sfen(self, ply)

    def to_kif(self, **kwargs):
        from .formats.kif import write_kif
        return write_kif(self, **kwargs)

    def to_csa(self, **kwargs):
        from .formats.csa import write_csa
        return write_csa(self, **kwargs)

    # ------------------------------------------------------------ moves (numba)
    def legal_moves(self):
        """Every legal move of the side to move, as USI strings."""
        from . import movegen, notation
        return [notation.move_to_usi(m) for m in movegen.legal_moves_of(self)]

    def check_moves(self):
        """Every legal move of the side to move that gives check (USI strings)."""
        from . import movegen, notation
        return [notation.move_to_usi(m) for m in movegen.check_moves_of(self)]

    def is_check(self):
        """Is the side to move in check?"""
        return _engine().is_in_check(self)

    def is_mate(self):
        movegen = _engine()
        return movegen.is_in_check(self) and not movegen.legal_moves_of(self)

    def push_usi(self, usi):
        """Play a legal move given in USI; raises ValueError for an illegal or malformed one.
        Returns the integer move."""
        from . import movegen, notation
        move = notation.usi_to_move(usi)
        if move not in movegen.legal_moves_of(self):
            raise ValueError(f"illegal move {usi} in {self.sfen()}")
        movegen.push(self, move)
        return move

    def push(self, move):
        """Play an integer move without a legality check (the caller knows it is legal)."""
        _engine().push(self, move)


_movegen = None     # the movegen module, once imported (see _engine)


def _engine():
    """The compiled move generator (movegen), imported on first use: importing this
    module stays light (no numba). Kept here, as an import statement in a method costs
    a microsecond each time, and the answer's minimax pushes moves by the hundred
    thousand."""
    global _movegen
    if _movegen is None:
        from . import movegen
        _movegen = movegen
    return _movegen


# ---------------------------------------------------------------- SFEN in
_sfen_module = None  # formats/sfen.py, once imported (see _sfen)


def _sfen():
    """The SFEN codec, imported on first use (as _engine: a batch reads SFEN by the
    million, and an import statement costs a microsecond a call)."""
    global _sfen_module
    if _sfen_module is None:
        from .formats import sfen
        _sfen_module = sfen
    return _sfen_module


def split_sfen(text):
    """(start Position, [USI moves]) from any form formats/sfen.py accepts; the moves are
    not played. Raises FormatError on malformed text."""
    board, hands, side, moves = _sfen().sfen_to_arrays(text)
    return Position(board, hands, side), moves


def parse_sfen(text, play_moves=True):
    """Position from any accepted form. Raises FormatError on malformed text; moves
    after ``moves`` are replayed (legality checked) unless play_moves is false."""
    pos, moves = split_sfen(text)
    if play_moves and moves:
        _sfen().play_usi_moves(pos, moves)
    return pos
