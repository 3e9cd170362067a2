"""What a solve found (``Result``) and the record a problem gets in the CLI's output.

``Result``'s fields are listed here once; the JSON record (README "JSON schema") is
the problem's own fields around them (``RECORD_KEYS``), and every renderer reads the
record. Imports nothing of the engine, so the CLI can name the keys without loading
numba.
"""
from dataclasses import dataclass, field, fields

STATUSES = ("mate", "nomate", "unknown", "error")
# 余詰 check entries' kinds (Result.yozume[i]["kind"]): another mate (余詰), one whose
# line comes back to the main line (迂回), another mate at the last move, not settled.
YOZUME_KINDS = ("yozume", "ukai", "last-move", "unchecked")


@dataclass(slots=True)      # (slots: made in 0.9 µs instead of 1.5, for every problem)
class Result:
    """What solve() found."""
    status: str                     # mate | nomate | unknown | error
    length: int | None = None       # plies of the main line, None unless mate
    strict_length: int | None = None   # counting every interposition (無駄合 included)
    moves: list = field(default_factory=list)   # USI strings of the main line
    komaamari: bool = False         # pieces left in the attacker's hand at the end
    leftover: dict = field(default_factory=dict)   # those pieces, USI letter -> count
    yozume: list = field(default_factory=list)     # {ply, move, kind, length}
    henka: list = field(default_factory=list)      # 変同: {ply, moves}
    mudaai: str | None = None       # "not counted" | "counted" | "not evaluated (budget)"
                                    # | "not fully evaluated (budget)"
    exact: bool = False             # length proven shortest, line chosen by the rules
    complete: bool = False          # 完全作: mate, exact, no 余詰, no 駒余り, all checked
    nodes: int = 0
    seconds: float = 0.0
    reason: str | None = None       # why unknown (node limit, time limit, interrupted)
    # (Fields below were added after the first ones; kept last so that positional
    # construction of the ones above stays valid.)
    strict_moves: list = field(default_factory=list)  # the line counting every interposition:
                                    # it ends in checkmate (what USI `go mate` answers)
    tree: dict | None = None        # the solution tree (tree.py), only when asked

    def fields(self):
        """The fields as plain data, JSON-ready (copies; numpy numbers made Python's)."""
        out = {name: _plain(getattr(self, name)) for name in RESULT_KEYS}
        out["seconds"] = round(out["seconds"], 4)
        return out


_ATOMIC = frozenset((str, int, float, bool, type(None)))   # plain already: kept as they are


def _plain(value):
    # (Exact types first: a batch makes a record per problem, and a line's moves are
    # strings; a numpy number is made Python's.)
    if type(value) in _ATOMIC:
        return value
    if isinstance(value, dict):
        return {k: v if type(v) in _ATOMIC else _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [v if type(v) in _ATOMIC else _plain(v) for v in value]
    return value.item() if hasattr(value, "item") else value


RESULT_KEYS = tuple(f.name for f in fields(Result))
# The record of one problem: its name and where it came from, what was found, and the
# problem's own extras (the main line in Japanese, the comparison with the author's
# line, what the file says about it, the error of a problem that could not be read or
# solved).
RECORD_KEYS = ("id", "source", "sfen") + RESULT_KEYS + ("kifu", "sakui", "metadata", "error")


def record(source, sfen=None, result=None, kifu="", sakui=None, error=None, problem_id=None,
           metadata=None):
    """The JSON object of one problem; without a result, an `error` record. Its id is
    the source unless `problem_id` names it."""
    rec = {"id": source if problem_id is None else problem_id, "source": source, "sfen": sfen}
    if result is None:
        # (A batch makes every record this way before its fields come in.)
        rec.update((k, v.copy() if isinstance(v, (list, dict)) else v)
                   for k, v in _ERROR_FIELDS.items())
    else:
        rec.update(result.fields())
    rec.update(kifu=kifu, sakui=sakui, metadata=dict(metadata or {}), error=error)
    return rec


_ERROR_FIELDS = Result(status="error").fields()     # (copied into each record: see record)
