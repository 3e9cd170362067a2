"""Reading problem files: format detection, the defender-hand policy, validation.

``read_problems(path_or_text)`` yields one ``Problem`` per problem found (SFEN lines,
KIF/BOD diagrams, CSA records) and never raises for bad content: whatever cannot be
read or is not a valid problem comes back as a Problem whose ``error`` says why.

The format readers (sfen.py, kif.py, csa.py) yield ``Parsed`` records (common.py): the
position's arrays exactly as written plus what is needed to finish it; ``_finish`` then
makes the Position, applies the defender-hand policy (SPEC §2.2), validates (validate.py)
and replays move lists. The readers and writers sit below position.py (Position.from_sfen
and .to_kif use them), this module above it.
"""
import os
import re
import stat
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from .. import pieces as P
from ..errors import FormatError, TsumeError
from ..position import Position
from .common import Parsed

POLICIES = ("auto", "rest", "literal")
# One input (a file or stdin) is read up to this size: a problem file is kilobytes, and
# /dev/zero or a runaway pipe must not take all memory.
MAX_INPUT_BYTES = 64 * 1024 * 1024


@dataclass
class Problem:
    source: str                 # "path:line", "path#N" (CSA record N), "-:line", "<text>:line"
    position: Position | None   # None when error is set
    metadata: dict              # title, author, moves (作意, USI), header, format, fields
    error: str | None = None    # one line, without the source prefix
    warnings: list[str] = field(default_factory=list)


# ---------------------------------------------------------------- input
def _load(path_or_text, encoding):
    """(source name, text, extension hint). Raises FormatError for unreadable input."""
    if isinstance(path_or_text, bytes):
        return "<text>", _decode(path_or_text, encoding), ""
    if isinstance(path_or_text, Path):
        return str(path_or_text), _read_file(path_or_text, encoding), path_or_text.suffix.lower()
    text = str(path_or_text)
    if text == "-":
        stream = getattr(sys.stdin, "buffer", None)
        data = (stream if stream is not None else sys.stdin).read(MAX_INPUT_BYTES + 1)
        if len(data) > MAX_INPUT_BYTES:
            raise FormatError(f"larger than {MAX_INPUT_BYTES >> 20} MB, the limit of one input")
        return "-", data if isinstance(data, str) else _decode(data, encoding), ""
    if "\n" not in text:
        if _exists(text):
            return text, _read_file(Path(text), encoding), Path(text).suffix.lower()
        if _meant_as_path(text):
            raise FormatError(f"no such file: {text[:80]}")
    return "<text>", text, ""


def _meant_as_path(text):
    """A one-line string that names a file rather than holding a problem."""
    from .sfen import looks_like_sfen
    text = text.strip()
    if not text or looks_like_sfen(text) or len(text) > 300:
        return False
    suffix = os.path.splitext(text)[1].lower()
    return suffix in _SFEN_HINT | _KIF_HINT | {".csa"} or (os.sep in text and " " not in text)


def _exists(text):
    try:
        return os.path.exists(text)
    except (OSError, ValueError):     # NUL bytes, names too long, ...
        return False


def _read_file(path, encoding):
    try:
        # Opening a FIFO would wait for a writer, and a device may never end (a
        # directory fails at open() with its own message).
        mode = os.stat(path).st_mode
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            raise FormatError("not a regular file")
        with open(path, "rb") as f:
            data = f.read(MAX_INPUT_BYTES + 1)
    except OSError as e:
        raise FormatError(f"cannot read file: {e.strerror or e}") from None
    if len(data) > MAX_INPUT_BYTES:
        raise FormatError(f"larger than {MAX_INPUT_BYTES >> 20} MB, the limit of one input")
    return _decode(data, encoding)


def _decode(data, encoding):
    """UTF-8 (BOM or not) first, then CP932: Shift_JIS bytes are almost never valid
    UTF-8, whereas UTF-8 bytes often decode as (wrong) CP932."""
    candidates = [encoding] if encoding else ["utf-8-sig", "cp932"]
    for enc in candidates:
        try:
            return data.decode(enc)
        except (UnicodeDecodeError, LookupError):
            continue
    raise FormatError("cannot decode the input as " + (encoding or "UTF-8 or Shift_JIS (CP932)"))


# ---------------------------------------------------------------- detection
_KIF_MARK = re.compile(r"^\s*\+-{5,}\+?\s*$|^(?:先手|後手|上手|下手)の持ち?駒|^手合割[：:]|^手数-+指手"
                       r"|^\s*\|.*\|", re.M)
_CSA_MARK = re.compile(r"^(?:P[1-9][ +\-]|PI|P[+\-](?:\d\d[A-Z]{2})|V[0-9]\.[0-9]|'CSA)", re.M)
_SFEN_HINT = {".sfen", ".tsv", ".usi", ".txt"}
_KIF_HINT = {".kif", ".kifu", ".bod", ".ki2"}


def detect_format(text, hint=""):
    """'kif', 'csa', 'sfen' or None, judged by content (the extension breaks ties).
    A file whose first line is SFEN is SFEN whatever its note columns say."""
    content = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    if content and _looks_sfen(content[0]):
        return "sfen"
    body = "\n".join(content)
    if _KIF_MARK.search(body):
        return "kif"
    if _CSA_MARK.search(body):
        return "csa"
    if any(_looks_sfen(ln) for ln in content):
        return "sfen"
    if hint in _KIF_HINT:
        return "kif"
    if hint == ".csa":
        return "csa"
    if hint in _SFEN_HINT or len(content) == 1:
        return "sfen"
    return None


def _looks_sfen(line):
    from .sfen import looks_like_sfen
    return looks_like_sfen(line)


# ---------------------------------------------------------------- policy
def apply_defender_hand(position, rest_colours, policy):
    """Set the defender's hand per SPEC §2.2; returns warnings. The attacker is the side
    to move. Raises PositionError ("too many X") when the remainder would be negative."""
    if policy not in POLICIES:
        raise ValueError(f"defender_hand must be one of {POLICIES}, not {policy!r}")
    attacker = position.side_to_move
    defender = 1 - attacker
    if attacker in rest_colours:
        raise FormatError("'all remaining pieces' given for the attacker's hand "
                          f"({'先手' if attacker == P.BLACK else '後手'} is to move)")
    listed = bool(int(position.hands[defender]))
    if defender in rest_colours or policy == "rest" or (policy == "auto" and not listed):
        rest = position.remaining_pieces(attacker)
        warnings = []
        if listed and position.hand(defender) != rest:
            warnings.append("the defender's hand as written was replaced by the remaining pieces")
        position.set_hand(defender, rest)
        return warnings
    return []


# ---------------------------------------------------------------- main entry
def read_problems(path_or_text, defender_hand="auto", *, encoding=None) -> Iterator[Problem]:
    """Yield every problem in a file ("-" = stdin) or in a text. Never raises for bad
    content; see Problem.error. Raises ValueError only for a bad defender_hand value."""
    if defender_hand not in POLICIES:
        raise ValueError(f"defender_hand must be one of {POLICIES}, not {defender_hand!r}")
    try:
        name, text, hint = _load(path_or_text, encoding)
    except FormatError as e:
        yield Problem(_display_name(path_or_text), None, _base_metadata(None), error=_one_line(str(e)))
        return
    if not any(ln.strip() and not ln.lstrip().startswith("#") for ln in text.splitlines()):
        yield Problem(name, None, _base_metadata(None), error="no problem found")
        return
    fmt = detect_format(text, hint)
    if fmt is None:
        first = next((ln.strip() for ln in text.splitlines()
                      if ln.strip() and not ln.lstrip().startswith("#")), "")
        msg = ("no problem found" if not first else
               f"unrecognised input (not SFEN, KIF/BOD or CSA): {first[:40]!r}")
        yield Problem(name + ":1" if first else name, None, _base_metadata(None), error=msg)
        return
    found = False
    for parsed in _parse(fmt, text):
        found = True
        yield _finish(name, fmt, parsed, defender_hand)
    if not found:
        yield Problem(name, None, _base_metadata(fmt), error="no problem found")


def _base_metadata(fmt):
    return {"format": fmt, "title": None, "author": None, "header": {}}


def _display_name(path_or_text):
    if isinstance(path_or_text, Path):
        return str(path_or_text)
    if isinstance(path_or_text, str) and "\n" not in path_or_text and len(path_or_text) < 300:
        return path_or_text
    return "<text>"


def _parse(fmt, text):
    """The reader's Parsed records; a reader crash on odd input becomes an error record."""
    if fmt == "sfen":
        from .sfen import read_sfen_lines
        for lineno, sfen_text, fields in read_sfen_lines(text):
            yield _sfen_parsed(lineno, sfen_text, fields)
        return
    if fmt == "kif":
        from .kif import parse_kif as reader
    else:
        from .csa import parse_csa as reader
    try:
        yield from reader(text)
    except TsumeError as e:
        yield Parsed(f":{getattr(e, 'line', None) or 1}", error=_one_line(str(e)))
    except Exception as e:   # a reader bug must not take down a whole batch
        yield Parsed(":1", error=_one_line(f"internal error while reading: {type(e).__name__}: {e}"))


def _sfen_parsed(lineno, sfen_text, fields):
    from .sfen import sfen_to_arrays
    parsed = Parsed(f":{lineno}", metadata={"fields": fields} if fields else {})
    try:
        board, hands, side, parsed.history = sfen_to_arrays(sfen_text)
        parsed.arrays = (board, hands, side)
    except TsumeError as e:
        parsed.error = _one_line(str(e))
    return parsed


def _finish(name, fmt, parsed, policy):
    metadata = _base_metadata(fmt)
    metadata.update(parsed.metadata)
    source = name + parsed.where
    warnings = list(parsed.warnings)
    if parsed.error is not None or parsed.arrays is None:
        return Problem(source, None, metadata, error=parsed.error or "no position", warnings=warnings)
    pos = Position(*parsed.arrays)
    try:
        warnings += apply_defender_hand(pos, parsed.rest_colours, policy)
        from ..validate import validate
        warnings += validate(pos, box_warning=policy == "auto")
        if parsed.history:
            from .sfen import play_usi_moves
            play_usi_moves(pos, parsed.history)
            warnings += validate(pos, box_warning=False)
        if parsed.solution is not None:
            moves, warning = parsed.solution(pos.copy())
            metadata["moves"] = moves
            if warning:
                warnings.append(warning)
        if parsed.tree is not None:
            tree, warning = parsed.tree(pos.copy())
            metadata["tree"] = tree
            if warning:
                warnings.append(warning)
    except TsumeError as e:
        return Problem(source, None, metadata, error=_one_line(str(e)), warnings=warnings)
    except Exception as e:   # never let one bad problem stop the others
        return Problem(source, None, metadata, warnings=warnings,
                       error=_one_line(f"internal error: {type(e).__name__}: {e}"))
    return Problem(source, pos, metadata, warnings=warnings)


def _one_line(message):
    return " ".join(part.strip() for part in str(message).splitlines()).strip() or "error"


__all__ = ["Problem", "read_problems", "detect_format", "apply_defender_hand", "POLICIES",
           "MAX_INPUT_BYTES"]
