"""Is a position a well-formed mating problem? (SPEC §3.4)

``validate(position)`` raises PositionError with a one-line message for positions no
solver should be given, and returns a list of warnings for odd but usable ones.

Roles: the side to move is the attacker, the other side the defender (SPEC §2.1).

Rejected:
* more pieces of a kind than a full set holds (promoted pieces count as their base kind,
  at most 2 kings);
* no defender king, or two kings of one colour;
* 二歩 (two unpromoted pawns of one colour on a file), for either side;
* a dead piece on the board (Black P/L on rank 1, N on ranks 1-2; White mirrored);
* the defender in check: the attacker could capture the king;
* the attacker's own king in check. Such positions are legal shogi (YaneuraOu's mate
  sets contain some, see shared/problems/yo_attacker_in_check.tsv), but then the first
  move must parry the check, which is not a tsume problem. Policy: reject them with
  "side to move (attacker) is in check".

Warned: the defender's hand is non-empty yet some pieces are left in the box
(the hand is not 玉方残り駒全部, SPEC §2.2).
"""
import numpy as np

from . import pieces as P
from .errors import PositionError
from .movegen import attacked

COLOUR_NAME = ("Black", "White")
_SQUARES = np.arange(81)
_RANK = _SQUARES % 9 + 1
_FILE = _SQUARES // 9 + 1
# _REL_RANK[colour, sq]: rank counted from the far side the colour moves towards.
_REL_RANK = np.stack([_RANK, 10 - _RANK])


def _square_name(sq):
    return f"{P.square_file(sq)}{P.KANJI_NUMERALS[P.square_rank(sq)]}"


def _piece_name(kind, colour):
    return f"{COLOUR_NAME[colour]} {P.BOARD_KANJI[kind]}"


def piece_totals(position):
    """{base kind: pieces on the board and in both hands} (vectorised: validation runs
    on every row of large problem files)."""
    board = position.board.astype(np.int64)
    kinds = board[board != 0] & 15
    base = np.where(kinds > P.KING, kinds - P.PROMOTED, kinds)
    on_board = np.bincount(base, minlength=16)
    hands = [position.hand(c) for c in (P.BLACK, P.WHITE)]
    return {k: int(on_board[k]) + hands[0].get(k, 0) + hands[1].get(k, 0) for k in P.TOTAL}


def box_pieces(position, totals=None):
    """{kind: pieces in neither the board nor a hand}; negative = over-used."""
    totals = totals or piece_totals(position)
    return {k: P.TOTAL[k] - totals[k] for k in P.HAND_KINDS}


def validate(position, *, box_warning=True):
    """Warnings for a usable problem; PositionError for one that must be rejected."""
    attacker = position.side_to_move
    defender = 1 - attacker
    board = position.board

    totals = piece_totals(position)
    for kind, n in totals.items():
        if n > P.TOTAL[kind]:
            raise PositionError(f"too many {P.USI_LETTER[kind]} ({P.BOARD_KANJI[kind]}): "
                                f"{n} of at most {P.TOTAL[kind]}")

    codes = board.astype(np.int64)
    kinds, colours = codes & 15, codes >> 4
    dead = (codes != 0) & (_REL_RANK[colours, _SQUARES] <= P.DEAD_RANKS[colours, kinds])
    if dead.any():
        sq = int(np.flatnonzero(dead)[0])
        raise PositionError(f"dead piece: {_piece_name(int(kinds[sq]), int(colours[sq]))} on "
                            f"{_square_name(sq)} could never move")
    for colour in (P.BLACK, P.WHITE):
        pawns = (kinds == P.PAWN) & (colours == colour) & (codes != 0)
        per_file = np.bincount(_FILE[pawns], minlength=10)
        if (per_file > 1).any():
            raise PositionError(f"二歩 (nifu): two unpromoted {COLOUR_NAME[colour]} pawns on "
                                f"file {int(np.argmax(per_file > 1))}")
    kings = [np.flatnonzero((kinds == P.KING) & (colours == c)) for c in (P.BLACK, P.WHITE)]
    for colour in (P.BLACK, P.WHITE):
        if len(kings[colour]) > 1:
            raise PositionError(f"{COLOUR_NAME[colour]} has {len(kings[colour])} kings")
    if not len(kings[defender]):
        raise PositionError(f"no defender king: {COLOUR_NAME[attacker]} is to move, "
                            f"so {COLOUR_NAME[defender]} needs a king")

    if attacked(position.board, position.state, int(kings[defender][0]), attacker):
        raise PositionError(f"the defender ({COLOUR_NAME[defender]}) is already in check "
                            f"with the attacker to move")
    if len(kings[attacker]) and attacked(position.board, position.state, int(kings[attacker][0]),
                                         defender):
        raise PositionError(f"side to move (attacker, {COLOUR_NAME[attacker]}) is in check")

    warnings = []
    if box_warning and int(position.hands[defender]):
        box = {k: n for k, n in box_pieces(position, totals).items() if n}
        if box:
            warnings.append("pieces left in the box: " + hand_text(box)
                            + " (the defender's hand is not all the remaining pieces)")
    return warnings


def hand_text(counts):
    """'2G P' style summary of {kind: n}, in SFEN hand order."""
    return " ".join((f"{counts[k]}" if counts[k] > 1 else "") + P.USI_LETTER[k]
                    for k in P.SFEN_HAND_ORDER if counts.get(k))
