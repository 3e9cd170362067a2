"""What the format readers share: the record each of them yields.

Below position.py, like the readers themselves: a reader gives the start position as
arrays, and read_problems (formats/__init__.py) makes the Position.
"""
from dataclasses import dataclass, field
from typing import Callable


@dataclass
class Parsed:
    """One problem as a format reader understood it, before policy and validation."""
    where: str                          # ":line" or "#record", appended to the source name
    arrays: tuple | None = None         # (board, hands, side) of the start, hands as written
    metadata: dict = field(default_factory=dict)
    rest_colours: tuple = ()            # colours whose hand the file gives as "the rest"
    history: list = field(default_factory=list)   # USI moves leading to the problem (SFEN)
    # 作意: callable(position) -> (USI moves, warning or None); None when the file has no moves
    solution: Callable | None = None
    # The moves with their variations (変化) as a solution tree (tree.py's shape):
    # callable(position) -> (tree, warning or None); None when the file has no moves
    tree: Callable | None = None
    warnings: list = field(default_factory=list)
    error: str | None = None            # set by the reader when it could not build a position
