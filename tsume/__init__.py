"""tsume: a tsume-shogi (詰将棋) solver with a numba-compiled df-pn search.

    from tsume import Position, read_problems, solve
"""
from .errors import FormatError, PositionError, TsumeError
from .limits import Limits
from .position import Position
from .result import Result

__version__ = "0.1.0"


def read_problems(path_or_text, defender_hand="auto", **kwargs):
    """Yield the problems of a file, a directory-free path, '-' (stdin) or a text."""
    from .formats import read_problems as _read
    return _read(path_or_text, defender_hand, **kwargs)


def solve(position, limits=None, **kwargs):
    """Prove mate or no mate and find the composer's answer; see tsume.pipeline.solve."""
    from .pipeline import solve as _solve
    return _solve(position, limits, **kwargs)


__all__ = ["Position", "read_problems", "solve", "Limits", "Result", "FormatError",
           "PositionError", "TsumeError", "__version__"]
