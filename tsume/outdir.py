"""``--out-dir``: one file per problem, named by its id, for a viewer to open.

A problem is named by its record's ``id`` when it has one, else by its source's file
name and line (``problems/s3.kif:1`` → ``s3``, ``tanuki.tsv:3`` → ``tanuki_3``: see
source_name). A name keeps letters, digits, ``.``, ``-`` and ``_`` (anything else
becomes ``_``) and is made unique within the run (``-2``, ``-3``, …, compared without
case, as Windows and macOS file systems do). A file of the same name from an earlier
run is replaced.

KIF files: UTF-8 as ``.kifu`` (the default), or with ``encoding="cp932"`` as ``.kif``
with CRLF line ends, what Kifu for Windows and other older KIF programs read.
"""
import os
import re

ENCODINGS = ("utf-8", "cp932")
SUFFIXES = {"svg": ".svg", "html": ".html", "json": ".json", "jsonl": ".json"}
MAX_NAME = 80       # characters of a name, before its suffix
# The problem files' suffixes, left out of the names made from them.
PROBLEM_SUFFIXES = ("sfen", "txt", "tsv", "kif", "kifu", "bod", "csa")


def safe_name(text, limit=MAX_NAME):
    """A file name made of `text` (see the module); never empty, hidden or one of the
    device names Windows reserves."""
    name = re.sub(r"[^\w.\-]+", "_", str(text)).strip("._") or "problem"
    name = name[:limit].rstrip("._") or "problem"
    if re.fullmatch(r"(?i)(con|prn|aux|nul|com\d|lpt\d)(\..*)?", name):
        name = "_" + name
    return name


def source_name(source):
    """The name of a problem without an id, from its source: the file's name without
    directory and suffix, and the line (or record) number unless it is the first
    (``problems/s3.kif:1`` → ``s3``, ``tanuki.tsv:3`` → ``tanuki_3``; standard input
    is ``stdin``)."""
    source = str(source or "")
    path, sep, where = source.rpartition(":") if ":" in source else source.rpartition("#")
    if not sep:
        path, where = source, ""
    base = re.split(r"[\\/]", path)[-1]
    base = {"-": "stdin", "<text>": "text"}.get(base, base)
    stem, dot, suffix = base.rpartition(".")
    if dot and stem and suffix.lower() in PROBLEM_SUFFIXES:
        base = stem
    return safe_name(f"{base}_{where}" if where not in ("", "1") else base)


def kif_suffix(encoding):
    return ".kif" if encoding == "cp932" else ".kifu"


def encode_kif(text, encoding):
    """(bytes, whether characters had to be replaced) of a KIF text in `encoding`;
    cp932 gets CRLF line ends."""
    if encoding != "cp932":
        return text.encode("utf-8"), False
    text = text.replace("\r\n", "\n").replace("\n", "\r\n")
    try:
        return text.encode("cp932"), False
    except UnicodeEncodeError:
        return text.encode("cp932", errors="replace"), True


class OutDir:
    """The directory and the names given so far in this run."""

    def __init__(self, path):
        self.path = path
        self.used = set()
        os.makedirs(path, exist_ok=True)

    def unique(self, name):
        """`name`, or `name-2`, `name-3`, ... : one no other problem of the run has."""
        candidate, n = name, 1
        while candidate.lower() in self.used:
            n += 1
            candidate = f"{name}-{n}"
        self.used.add(candidate.lower())
        return candidate

    def name_for(self, rec):
        """The file name (without suffix) of a record: its id, else its source's (a
        record whose id is only its source gets the shorter name made from the source)."""
        ident = rec.get("id")
        if ident and ident != rec.get("source"):
            return self.unique(safe_name(ident))
        return self.unique(source_name(rec.get("source")))

    def write(self, name, suffix, data):
        """Write `data` (str: UTF-8, or bytes) as name+suffix; returns the path. An
        OSError names the file in its message."""
        path = os.path.join(self.path, name + suffix)
        if isinstance(data, str):
            data = data.encode("utf-8")
        try:
            with open(path, "wb") as f:
                f.write(data)
        except OSError as exc:
            raise OSError(exc.errno, f"{path}: {exc.strerror or exc}") from exc
        return path
