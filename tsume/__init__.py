"""tsume: a tsume-shogi (詰将棋) solver with a numba-compiled df-pn search.

    from tsume import Position, read_problems, solve
"""
from .errors import FormatError, PositionError, TsumeError
from .position import Position

__version__ = "0.1.0"


def read_problems(path_or_text, defender_hand="auto", **kwargs):
    """Yield the problems of a file, a directory-free path, '-' (stdin) or a text."""
    from .formats import read_problems as _read
    return _read(path_or_text, defender_hand, **kwargs)


def solve(position, **kwargs):
    """Prove mate or no mate; see tsume.solver.solve."""
    from .solver import solve as _solve
    return _solve(position, **kwargs)


__all__ = ["Position", "read_problems", "solve", "FormatError", "PositionError", "TsumeError",
           "__version__"]
