"""The position as three small numpy arrays, the form every numba kernel takes.

``board``  int8[81]   piece code per square (see pieces.py)
``hands``  int64[2]   packed hand of Black and of White (see pieces.HAND_SHIFT)
``state``  int64[10]  side to move, board Zobrist key (side included, hands excluded),
                      Black king square, White king square (-1 when absent), then
                      square sets (see squareset.py): Black's pieces, White's pieces,
                      the sliders of both (lance, bishop, rook, horse, dragon)

The board key leaves the hands out on purpose: the transposition table stores the
attacker's hand beside the key so that hand superiority can be used on lookup.

movegen.fill_state computes ``state`` from a board; position.Position wraps the three.
This module imports nothing, so that the Position class (and ``import tsume``) can use
the layout without loading numba.
"""

SIDE, KEY, KING_SQ = 0, 1, 2   # state[KING_SQ + colour] is that colour's king square
OCCUPIED = 4                   # state[OCCUPIED + 2 * colour + word]: that colour's pieces
SLIDERS = 8                    # state[SLIDERS + word]: the sliders of both colours
STATE_SIZE = 10
