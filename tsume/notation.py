"""Move text: USI strings <-> integer moves. (Japanese and KIF move text live here too.)"""
from . import pieces as P

DROP_BASE = 81          # a drop's "from" field is DROP_BASE + kind
PROMOTE_FLAG = 1 << 14


def move_to(move):
    return move & 127


def move_from(move):
    return (move >> 7) & 127


def is_drop(move):
    return move_from(move) > DROP_BASE


def is_promotion(move):
    return bool(move & PROMOTE_FLAG)


def drop_kind(move):
    return move_from(move) - DROP_BASE


def make_move(frm, to, promote=False):
    return to | (frm << 7) | (PROMOTE_FLAG if promote else 0)


def make_drop(kind, to):
    return to | ((DROP_BASE + kind) << 7)


def square_to_usi(sq):
    return f"{P.square_file(sq)}{'abcdefghi'[P.square_rank(sq) - 1]}"


def usi_to_square(text):
    if len(text) != 2 or text[0] not in "123456789" or text[1] not in "abcdefghi":
        raise ValueError(f"bad USI square {text!r}")
    return P.square(int(text[0]), "abcdefghi".index(text[1]) + 1)


def move_to_usi(move):
    to = square_to_usi(move_to(move))
    if is_drop(move):
        return f"{P.USI_LETTER[drop_kind(move)]}*{to}"
    return square_to_usi(move_from(move)) + to + ("+" if is_promotion(move) else "")


def usi_to_move(text):
    """Integer move from USI text (syntax only; legality is the caller's business)."""
    if len(text) == 4 and text[1] == "*":
        kind = P.LETTER_KIND.get(text[0])
        if kind is None or kind == P.KING:
            raise ValueError(f"bad USI drop {text!r}")
        return make_drop(kind, usi_to_square(text[2:]))
    if len(text) in (4, 5) and (len(text) == 4 or text[4] == "+"):
        return make_move(usi_to_square(text[0:2]), usi_to_square(text[2:4]), len(text) == 5)
    raise ValueError(f"bad USI move {text!r}")
