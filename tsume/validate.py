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
from numba import njit

from . import pieces as P
from .errors import PositionError
from .movegen import attacked

COLOUR_NAME = ("Black", "White")


def _square_name(sq):
    return f"{P.square_file(sq)}{P.KANJI_NUMERALS[P.square_rank(sq)]}"


def _piece_name(kind, colour):
    return f"{COLOUR_NAME[colour]} {P.BOARD_KANJI[kind]}"


# _board_survey's answer: one int array (one compiled call, one tolist), in named slots.
_COUNT = 0          # [_COUNT + base kind]: that kind's pieces on the board (kinds 1..8)
_DEAD = 9           # the first square (in square order) holding a dead piece, or -1
_NIFU = 10          # [_NIFU + colour]: the first file holding two of its unpromoted pawns, or 0
_KINGS = 12         # [_KINGS + colour]: its kings on the board
_KING_SQ = 14       # [_KING_SQ + colour]: the first of them, or -1
_SURVEY_SIZE = 16


@njit(cache=True)
def _board_survey(board):
    """One pass over the board, compiled (validation runs on every row of large problem
    files, where a Python pass cost about as much as the search of a short problem);
    see the slots above."""
    out = np.zeros(_SURVEY_SIZE, dtype=np.int64)
    out[_DEAD] = -1
    out[_KING_SQ] = out[_KING_SQ + 1] = -1
    pawns = np.zeros((2, 10), dtype=np.int64)
    for sq in range(81):
        p = board[sq]
        if p == 0:
            continue
        kind, colour = p & 15, p >> 4
        out[_COUNT + (kind - P.PROMOTED if kind > P.KING else kind)] += 1
        dead = P.DEAD_RANKS[colour, kind]
        if out[_DEAD] < 0 and dead and (sq % 9 + 1 if colour == P.BLACK else 9 - sq % 9) <= dead:
            out[_DEAD] = sq
        if kind == P.PAWN:
            f = sq // 9 + 1
            pawns[colour, f] += 1
            # (The squares go file by file: the first file to hold two is the lowest.)
            if pawns[colour, f] == 2 and out[_NIFU + colour] == 0:
                out[_NIFU + colour] = f
        elif kind == P.KING:
            if out[_KINGS + colour] == 0:
                out[_KING_SQ + colour] = sq
            out[_KINGS + colour] += 1
    return out


def _survey(position):
    """_board_survey's slots as a list, and {base kind: pieces on the board}."""
    facts = _board_survey(position.board).tolist()
    return facts, {k: facts[_COUNT + k] for k in P.TOTAL}


def piece_totals(position, on_board=None):
    """{base kind: pieces on the board and in both hands}."""
    on_board = on_board or _survey(position)[1]
    hands = [position.hand(c) for c in (P.BLACK, P.WHITE)]
    return {k: on_board[k] + hands[0].get(k, 0) + hands[1].get(k, 0) for k in P.TOTAL}


def box_pieces(position, totals=None):
    """{kind: pieces in neither the board nor a hand}; negative = over-used."""
    totals = totals or piece_totals(position)
    return {k: P.TOTAL[k] - totals[k] for k in P.HAND_KINDS}


def validate(position, *, box_warning=True):
    """Warnings for a usable problem; PositionError for one that must be rejected."""
    attacker = position.side_to_move
    defender = 1 - attacker
    board = position.board
    facts, on_board = _survey(position)

    totals = piece_totals(position, on_board)
    for kind, n in totals.items():
        if n > P.TOTAL[kind]:
            raise PositionError(f"too many {P.USI_LETTER[kind]} ({P.BOARD_KANJI[kind]}): "
                                f"{n} of at most {P.TOTAL[kind]}")
    dead = facts[_DEAD]
    if dead >= 0:
        p = int(board[dead])
        raise PositionError(f"dead piece: {_piece_name(p & 15, p >> 4)} on "
                            f"{_square_name(dead)} could never move")
    for colour in (P.BLACK, P.WHITE):
        if facts[_NIFU + colour]:
            raise PositionError(f"二歩 (nifu): two unpromoted {COLOUR_NAME[colour]} pawns on "
                                f"file {facts[_NIFU + colour]}")
    for colour in (P.BLACK, P.WHITE):
        if facts[_KINGS + colour] > 1:
            raise PositionError(f"{COLOUR_NAME[colour]} has {facts[_KINGS + colour]} kings")
    if not facts[_KINGS + defender]:
        raise PositionError(f"no defender king: {COLOUR_NAME[attacker]} is to move, "
                            f"so {COLOUR_NAME[defender]} needs a king")

    if attacked(position.board, position.state, facts[_KING_SQ + defender], attacker):
        raise PositionError(f"the defender ({COLOUR_NAME[defender]}) is already in check "
                            f"with the attacker to move")
    if facts[_KINGS + attacker] and attacked(position.board, position.state,
                                             facts[_KING_SQ + attacker], defender):
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
