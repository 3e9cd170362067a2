"""Public solving API: ``solve(position, ...) -> Result``.

Stub until the df-pn engine lands: answers ``unknown`` honestly."""
import time
from dataclasses import dataclass, field


@dataclass
class Result:
    status: str                     # mate | nomate | unknown | error
    length: int | None = None       # plies, None unless mate
    moves: list = field(default_factory=list)   # USI strings of the main line
    komaamari: bool = False
    yozume: list = field(default_factory=list)
    nodes: int = 0
    seconds: float = 0.0
    reason: str | None = None       # why unknown (node limit, time limit, interrupted)


def solve(position, time_limit=None, nodes=None, hash_mb=256):
    start = time.perf_counter()
    return Result(status="unknown", reason="solver not implemented yet",
                  seconds=time.perf_counter() - start)
