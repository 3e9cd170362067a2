"""Command-line interface: ``tsume solve`` and ``tsume show``.

Error policy (README "Exit codes"): every bad input gives exactly one line
``SOURCE: MESSAGE`` on stderr and never a traceback; the other inputs are still processed.
Exit code 0 = every input was read (whatever the verdicts), 2 = some input was invalid or
unreadable, 1 = internal failure (a bug, or a problem whose worker died twice: it wins over
2); 4 = standard output cannot be written, 141 = its reader went away (both end the run);
130 / 143 = SIGINT / SIGTERM.

This module reads the inputs and writes the records; batch.py runs the problems (worker
processes, a Dask cluster, input order, --output/--resume). Only click and the light
modules are imported at module level so that ``tsume --help`` stays fast; the readers,
the numba move generator and the solver are imported inside the commands.
"""
import errno
import json
import math
import os
import re
import sys
import time
from dataclasses import dataclass, field

import click

from . import batch
from .batch import describe as _describe
from .render import checkmate_line, flaw_lines, summary_line, verdict_lines
from .limits import ANSWER_LEVELS, MAX_NODES, MAX_THREADS, TREE_MAX_MOVES, available_cores
from .result import RECORD_KEYS

PROBLEM_SUFFIXES = (".sfen", ".txt", ".tsv", ".kif", ".kifu", ".bod", ".csa")
OUTPUT_FORMATS = ("text", "json", "jsonl", "kif", "usi", "svg", "html")
OUT_DIR_FORMATS = ("kif", "svg", "html", "json", "jsonl")   # --out-dir: files a viewer opens
JSON_KEYS = RECORD_KEYS
EXIT_OK, EXIT_INTERNAL, EXIT_BAD_INPUT, EXIT_NOT_COMPLETE, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
EXIT_OUTPUT = 4            # standard output cannot be written (a full disk)
EXIT_TERMINATED = 143      # SIGTERM (128 + 15)
EXIT_BROKEN_PIPE = 141     # its reader went away: the status of a death by SIGPIPE (128 + 13)
MAX_MESSAGE = 240          # characters of one stderr message (a 1 MB bad line stays one short line)
# (Node budgets larger than limits.MAX_NODES count as that, rather than overflow int64.)
# A table larger than any machine's memory: refused even where the free memory cannot be
# read (check_table_size then lets anything through, and the size would overflow later).
MAX_HASH_MB = 1 << 24


# ---------------------------------------------------------------- helpers
def _version():
    """tsume.__version__, else the version in a source checkout's pyproject.toml, else the
    installed distribution's metadata."""
    import tsume
    if getattr(tsume, "__version__", None):
        return tsume.__version__
    pyproject = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(tsume.__file__))),
                             "pyproject.toml")
    try:
        with open(pyproject, encoding="utf-8") as f:
            m = re.search(r'^version\s*=\s*"([^"]+)"', f.read(), re.M)
        if m:
            return m.group(1)
    except OSError:
        pass
    try:
        from importlib.metadata import version
        return version("tsume")
    except Exception:   # noqa: BLE001 - any metadata failure just means "unknown"
        return "unknown"


def _one_line(text, limit=MAX_MESSAGE):
    """Collapse whitespace and control characters; cut to ``limit`` characters."""
    text = re.sub(r"[\s\x00-\x1f\x7f]+", " ", str(text)).strip()
    return text if len(text) <= limit else text[:limit - 1] + "…"


class _OutputError(Exception):
    """Standard output cannot be written: the run ends (main says why). Not an OSError,
    which click would take for a closed pipe and end with status 1."""

    def __init__(self, cause):
        super().__init__(cause)
        self.cause = cause


def _write(text, nl=True):
    """Write (and flush, as click.echo does) to standard output."""
    try:
        click.echo(text, nl=nl)
    except OSError as exc:
        raise _OutputError(exc) from exc


@dataclass
class _Item:
    """One problem to process: a ``tsume.formats.Problem`` or a stand-in for an input that
    could not be read at all (missing path, unreadable file, reader crash)."""
    source: str
    position: object = None
    metadata: dict = field(default_factory=dict)
    error: str = None
    warnings: list = field(default_factory=list)
    internal: bool = False       # the error is our bug, not bad input
    columns: list = None         # a TSV's column names, from its `#` header (batch.header_columns)


class _Run:
    """Exit status bookkeeping and the stderr channel."""

    def __init__(self, quiet=False):
        self.quiet = quiet
        self.bad_input = False
        self.internal = False
        self.interrupted = None     # the signal that stopped the run

    def error(self, source, message, internal=False):
        if internal:
            self.internal = True
        else:
            self.bad_input = True
        click.echo(f"{_one_line(source, 400)}: {_one_line(message)}", err=True)

    def warn(self, source, message):
        if not self.quiet:
            click.echo(f"{_one_line(source, 400)}: warning: {_one_line(message)}", err=True)

    def report(self, item):
        """Print the item's warnings; its error line if any. True if the item is usable."""
        for w in item.warnings or ():
            self.warn(item.source, w)
        if item.error is not None or item.position is None:
            self.error(item.source, item.error or "no position", internal=item.internal)
            return False
        return True

    @property
    def exit_code(self):
        if self.interrupted:
            return {2: EXIT_INTERRUPTED, 15: EXIT_TERMINATED}.get(self.interrupted,
                                                                  128 + self.interrupted)
        if self.internal:
            return EXIT_INTERNAL
        return EXIT_BAD_INPUT if self.bad_input else EXIT_OK


def _from_problem(problem, columns=None):
    # The readers report their own crashes as "internal error…" messages: a bug (exit 1),
    # not bad input (exit 2).
    return _Item(source=problem.source, position=problem.position,
                 metadata=dict(problem.metadata or {}), error=problem.error,
                 warnings=list(problem.warnings or ()),
                 internal="internal error" in (problem.error or ""), columns=columns)


def _expand(path):
    """(file, None) pairs for ``path``: the path itself if it is a file, else the problem
    files of the directory tree (sorted, hidden entries skipped), with (directory, error)
    for each directory of the tree that cannot be read. None if it does not exist."""
    if os.path.isdir(path):
        found = []

        def unreadable(exc):
            # os.walk skips what it cannot list: its problems would be lost without a word.
            found.append((exc.filename or path, f"cannot read: {exc.strerror or _describe(exc)}"))

        for root, dirs, files in os.walk(path, onerror=unreadable):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            found.extend((os.path.join(root, f), None) for f in files
                         if not f.startswith(".") and f.lower().endswith(PROBLEM_SUFFIXES))
        return sorted(found, key=lambda entry: entry[0])
    if os.path.exists(path):
        return [(path, None)]
    return None


def _read_source(target, label, defender_hand):
    """Problems of one file (a Path) or of stdin (``-``); never raises."""
    from .formats import read_problems
    count, columns = 0, None
    try:
        problems = iter(read_problems(target, defender_hand=defender_hand))
        while True:
            try:
                problem = next(problems)
            except StopIteration:
                break
            count += 1
            if count == 1 and target != "-" and (problem.metadata or {}).get("fields"):
                columns = batch.header_columns(target)     # (names the TSV's id column)
            yield _from_problem(problem, columns)
    except OSError as exc:
        yield _Item(source=label, error=f"cannot read: {exc.strerror or _describe(exc)}")
        return
    except (KeyboardInterrupt, GeneratorExit):
        raise
    except Exception as exc:    # noqa: BLE001 - a reader bug: report it, go on with the rest
        yield _Item(source=label, error=f"internal error: {_describe(exc)}", internal=True)
        return
    if count == 0:
        yield _Item(source=label, error="no problem found")


def _items(paths, defender_hand, before_stdin=None):
    """Every problem of every path, in order; errors become items too. ``before_stdin``
    is called before standard input is read (it is read to its end, which may wait)."""
    from pathlib import Path
    for path in paths:
        if path == "-":
            if before_stdin is not None:
                before_stdin()
            yield from _read_source("-", "-", defender_hand)
            continue
        files = _expand(path)
        if files is None:
            yield _Item(source=path, error="no such file or directory")
        elif not files:
            yield _Item(source=path, error="no problem files ({}) in this directory"
                        .format(" ".join(PROBLEM_SUFFIXES)))
        else:
            for f, error in files:
                if error:
                    yield _Item(source=f, error=error)
                else:
                    yield from _read_source(Path(f), f, defender_hand)


def _board_text(position):
    """The BOD diagram (hands and board) of write_kif, without comment lines."""
    from .formats.kif import write_kif
    text = write_kif(position)
    return "\n".join(line for line in text.splitlines() if not line.startswith("#")).strip("\n")


# ---------------------------------------------------------------- records
def _json_default(obj):
    """yozume entries and numpy scalars from the solver: make them JSON."""
    if hasattr(obj, "item"):
        return obj.item()
    if hasattr(obj, "__dict__"):
        return vars(obj)
    return str(obj)


def _dumps(rec, **kwargs):
    return json.dumps(rec, ensure_ascii=False, default=_json_default, **kwargs)


# ---------------------------------------------------------------- commands
_DEFENDER_HAND_HELP = (
    "Defender's pieces in hand. 'rest': always all pieces not on the board and not in the "
    "attacker's hand (玉方残り駒全部); 'literal': exactly what the file lists; 'auto' "
    "(default): 'rest' when the file gives the defender nothing (SFEN without lower-case "
    "hand letters, KIF line absent / なし / 残り全部, CSA without P- hand or with P-00AL), "
    "else 'literal'.")


class _Group(click.Group):
    def list_commands(self, ctx):
        return ["solve", "show", "report", "usi", "warmup"]     # in this order, not alphabetical


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True,
              callback=lambda ctx, param, value: _print_version(ctx, value),
              help="Show the version and exit.")
def cli():
    """tsume: a tsume-shogi (詰将棋) solver.

    Reads problems as SFEN, KIF/BOD or CSA and answers 詰み (mate, with the main line),
    不詰 (no mate) or 不明 (unknown, budget exhausted). Run 'tsume COMMAND --help' for the
    options of a command.

    \b
    Examples:
      tsume solve problems/s3.sfen
      tsume solve --format json problems/
      tsume show problems/s3.kif
    """


def _print_version(ctx, value):
    if value and not ctx.resilient_parsing:
        click.echo(f"tsume {_version()}")
        ctx.exit(EXIT_OK)


_input_help = ("PATHS are files (any of .sfen .txt .tsv .kif .kifu .bod .csa, read by content), "
               "directories (searched recursively for those extensions, in sorted order) or "
               "'-' for standard input (a pipe: FIFOs and devices given as paths are refused). "
               "Each input is read up to 64 MB.")


@cli.command(help=f"""Solve the problems in PATHS.

{_input_help}

\b
Output (--format), one record per problem, in input order (see --unordered):
  text   per problem: source, board diagram, verdict line
         (詰み 3手: ▲１二歩　△同玉　▲１三香 / 不詰 / 不明 (unknown: reason))
  json   one JSON array at the end, one object per problem with the keys
         {" ".join(JSON_KEYS[:7])}
         {" ".join(JSON_KEYS[7:14])}
         {" ".join(JSON_KEYS[14:])}
  jsonl  one JSON object per line, written as soon as the problem (and those
         before it) is done
  kif    a KIF record (board, main line and its 変化) per problem, blank-line separated
  usi    'SOURCE<TAB>checkmate MOVES' / 'checkmate nomate' / 'checkmate timeout'
         / 'error MESSAGE'
  svg    the board picture per problem, the answer under it (SVG documents one
         after another: use --out-dir for a file each)
  html   one self-contained page at the end: a summary table, and per problem its
         board, main line (stepped through) and verdict (see 'tsume report')

Every bad input gives one line 'SOURCE: MESSAGE' on stderr; the others are still solved.
Exit status: 0 all inputs read (whatever the verdicts), 2 some input invalid (or bad
usage), 1 internal error (or a problem whose worker died twice), 3 see --strict, 4
output cannot be written, 141 output pipe closed, 130 interrupted (SIGINT), 143
terminated (SIGTERM).""")
@click.argument("paths", nargs=-1, required=True, metavar="PATHS...")
@click.option("--format", "-f", "fmt", type=click.Choice(OUTPUT_FORMATS), default="text",
              show_default=True, help="Output format (see above).")
@click.option("--defender-hand", type=click.Choice(("auto", "rest", "literal")), default="auto",
              show_default=True, help=_DEFENDER_HAND_HELP)
@click.option("--answer", type=click.Choice(ANSWER_LEVELS), default="full", show_default=True,
              help="What each answer includes: 'proof' a verified mate of any length; "
              "'length' the shortest length and its main line by the tsume rules, every "
              "interposition counted, without the 無駄合 analysis and the 余詰 check; 'full' "
              "with those too.")
@click.option("--time-limit", type=click.FloatRange(min=0, min_open=True), default=None,
              callback=lambda ctx, param, value: _finite(value), metavar="SECONDS",
              help="Time budget per problem, a positive finite number (default: none).")
@click.option("--nodes", type=click.IntRange(min=1), default=None, metavar="N",
              callback=lambda ctx, param, value: _at_most_max_nodes(value),
              help="Node budget per problem (default: none; more than 10^18 counts as 10^18).")
@click.option("--hash", "hash_mb", type=click.IntRange(min=1), default=256, show_default=True,
              metavar="MB", help="Transposition table size in MB, per job (per Dask worker "
              "with --scheduler). Tables that do not fit in the free memory (--hash times "
              "--jobs) are a usage error.")
@click.option("--yozume/--no-yozume", default=True, show_default=True,
              help="Check every other check along the main line for 余詰 (--answer full).")
@click.option("--yozume-nodes", type=click.IntRange(min=1), default=None,
              callback=lambda ctx, param, value: _at_most_max_nodes(value), metavar="N",
              help="Node budget of the 余詰 check, per alternative and reply (more than "
              "10^18 counts as 10^18). Default: 100000, then on past it (four times more a "
              "pass) until the check has taken as many nodes as the problem before it, or "
              "the time limit.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=1, show_default=True,
              help="Solve in N worker processes; a problem whose worker dies is retried once.")
@click.option("--threads", type=click.IntRange(min=1, max=MAX_THREADS), default=None, metavar="N",
              help="Threads of a long search, sharing its table (default: the cores this "
              "process may use; 1 with --jobs or --scheduler). Verdicts do not depend on it.")
@click.option("--scheduler", metavar="ADDRESS", default=None,
              help="Solve on a Dask cluster: the address of a running 'dask scheduler' "
              "(tcp://HOST:PORT). Needs pip install 'tsume[cluster]'.")
@click.option("--unordered", is_flag=True,
              help="Print the records as the problems finish, not in input order.")
@click.option("--output", "-o", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Write the records to FILE as JSONL (one whole line each, flushed) "
              "instead of standard output.")
@click.option("--resume", is_flag=True,
              help="With --output: skip the problems whose record in FILE is final, append "
              "the others' and rewrite FILE in input order at the end.")
@click.option("--strict", is_flag=True,
              help="Exit with 3 when any problem is not a complete work (完全作).")
@click.option("--tree", "tree", is_flag=True,
              help="Also compute the solution tree (every other defender reply with its "
              "refutation, 変化) and give it in the JSON key 'tree' (the kif format always "
              "writes it).")
@click.option("--tree-depth", type=click.IntRange(min=0), default=None, metavar="N",
              help="Levels of 変化 in the solution tree: 0 the main line alone, 1 every other "
              "reply at its defender turns, 2 their own, and so on (default: every level "
              f"until the tree holds {TREE_MAX_MOVES} moves; the first level is always "
              "complete).")
@click.option("--quiet", "-q", is_flag=True, help="Do not print warnings (errors still go to stderr).")
@click.option("--out-dir", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="Write one file per problem into DIR, named by its id, in the --format "
              "(kif, svg, html, json/jsonl: .json), and print each file's path.")
@click.option("--encoding", type=click.Choice(("utf-8", "cp932"), case_sensitive=False),
              default="utf-8", show_default=True,
              help="KIF output's encoding: utf-8 (files .kifu) or cp932 (files .kif, CRLF, "
              "as Kifu for Windows reads).")
@click.pass_context
def solve(ctx, paths, fmt, defender_hand, answer, time_limit, nodes, hash_mb, yozume,
          yozume_nodes, jobs, threads, scheduler, unordered, output, resume, strict, tree,
          tree_depth, quiet, out_dir, encoding):
    encoding = encoding.lower()
    error = (_usage_error(ctx, fmt, output, resume, scheduler, jobs, hash_mb)
             or _output_usage_error(fmt, out_dir, encoding))
    if error:
        click.echo(f"tsume: {error}", err=True)
        ctx.exit(EXIT_BAD_INPUT)
    if output is not None:
        fmt = "jsonl"
    run = _Run(quiet)
    if threads is None:
        threads = 1 if jobs > 1 or scheduler is not None else available_cores()
    limits = {"time_limit": time_limit, "nodes": nodes, "hash_mb": hash_mb, "answer": answer,
              "yozume": yozume, "yozume_nodes": yozume_nodes, "threads": threads}
    if tree or fmt == "kif":        # (the tree costs searches: only when it is shown)
        limits.update(tree=True, tree_depth=tree_depth)
    out = _out_dir(out_dir) if out_dir else None
    records = [] if fmt == "json" and out is None else None
    pages = []                      # --format html: the records, as the page reads them
    counts = {}
    progress = _Progress(enabled=_stderr_is_terminal())
    if progress.enabled and jobs == 1 and scheduler is None:
        from .progress import StatusLine
        limits["progress"] = StatusLine()   # a long problem's phase, nodes and time
    state = {"first": True, "incomplete": False}
    signals = batch.Signals()
    try:
        sink = batch.RecordFile(output, resume) if output is not None else None
    except OSError as exc:
        click.echo(f"tsume: cannot write {_one_line(output, 200)}: "
                   f"{exc.strerror or _describe(exc)}", err=True)
        ctx.exit(EXIT_OUTPUT)

    def finish(item, rec):
        if rec["status"] == "error" and item.position is not None:
            run.error(item.source, rec["error"], internal=True)   # its solve failed
        counts[rec["status"]] = counts.get(rec["status"], 0) + 1
        state["incomplete"] |= not rec["complete"]
        with signals.deferred():        # a record is written whole, whatever the signal
            if records is not None:
                records.append(rec)
            elif sink is not None:
                try:
                    sink.write(_dumps(rec))
                except OSError as exc:
                    raise _OutputError(exc) from exc
            elif fmt == "html" and out is None:
                pages.append(_with_metadata(item, rec))
            elif out is not None:
                _write_file(out, fmt, item, rec, encoding)
            else:
                _emit(fmt, item, rec, state["first"], encoding)
            state["first"] = False
        progress.done(rec)

    def read(before_stdin=None):
        """The problems, as they are read (a problem is solved before the next file is
        read); the bad ones are reported on the way."""
        notice = not quiet and progress.enabled and scheduler is None
        for item in _items(paths, defender_hand, before_stdin):
            if item.warnings or item.error is not None or item.position is None:
                progress.clear()
            if run.report(item) and notice:
                notice = False
                from .solver import search_is_compiled
                if not search_is_compiled():
                    # Otherwise the first run sits silent through the compilation. (Only
                    # for a person at a terminal: a script reads one line per bad input.)
                    click.echo("tsume: first run: compiling the solver for this machine "
                               "(about 40-60 s, once)", err=True)
            yield item

    job = None
    try:
        with signals:
            backend = _backend(ctx, scheduler, jobs, limits, run)
            job = batch.Batch(backend, finish, ordered=not unordered,
                              skip=sink.skip if sink is not None and sink.resumed else None)
            job.run(read)
            if sink is not None and sink.resumed:
                with signals.deferred():
                    sink.compact()
    except KeyboardInterrupt as exc:
        run.interrupted = getattr(exc, "signum", None) or 2
        progress.clear()
        with signals:               # (told again now, the process ends at once)
            if job is not None:
                job.flush()
        click.echo("tsume: interrupted" if run.interrupted == 2 else "tsume: terminated",
                   err=True)
    except _OutputError:
        progress.clear()            # main's message gets a line of its own
        raise
    finally:
        if sink is not None:
            sink.close()
    progress.close(counts)
    if records is not None:
        _write(_dumps(records, indent=2))
    if fmt == "html" and out is None:
        from .report import html_report
        _write(html_report(pages), nl=False)
    code = run.exit_code
    if code == EXIT_OK and strict and (state["incomplete"] or (sink is not None and sink.incomplete)):
        code = EXIT_NOT_COMPLETE
    ctx.exit(code)


def _usage_error(ctx, fmt, output, resume, scheduler, jobs, hash_mb):
    """Why these options cannot go together (one line), or None."""
    from click.core import ParameterSource
    if resume and output is None:
        return "--resume needs --output FILE (the records to resume)"
    if output is not None and fmt != "jsonl" and ctx.get_parameter_source("fmt") != ParameterSource.DEFAULT:
        return f"--output writes JSONL records: --format {fmt} cannot go with it"
    if scheduler is not None:
        if jobs > 1:
            return "--jobs and --scheduler cannot go together: the cluster's workers do the jobs"
        from importlib.util import find_spec
        if find_spec("distributed") is None:
            return "--scheduler needs Dask: pip install 'tsume[cluster]'"
        # The tables are the workers': only the size itself is checked here.
        return f"--hash {hash_mb}: at most {MAX_HASH_MB} MB" if hash_mb > MAX_HASH_MB else None
    return _table_error(hash_mb, jobs)


def _backend(ctx, scheduler, jobs, limits, run):
    """Where the problems are solved: here, in --jobs processes, or on a Dask cluster."""
    if scheduler is not None:
        try:
            return batch.DaskPool(scheduler, limits,
                                  warn=lambda message: run.warn("tsume", message))
        except batch.ClusterError as exc:
            click.echo(f"tsume: {_one_line(exc)}", err=True)
            ctx.exit(EXIT_BAD_INPUT)
    return batch.LocalPool(jobs, limits) if jobs > 1 else batch.Serial(limits)


def _finite(seconds):
    # FloatRange lets nan and inf through, and either would mean "no limit".
    if seconds is not None and not math.isfinite(seconds):
        raise click.BadParameter(f"{seconds} is not a finite number of seconds.")
    return seconds


def _at_most_max_nodes(nodes):
    return None if nodes is None else min(nodes, MAX_NODES)


def _table_error(hash_mb, jobs):
    """Why a table of hash_mb MB in each of `jobs` processes cannot be had (one line), or
    None. Checked before any input is read: too large a table would fail every problem."""
    if hash_mb > MAX_HASH_MB:
        return f"--hash {hash_mb}: at most {MAX_HASH_MB} MB"
    from . import tt
    try:
        tt.check_table_size(hash_mb)
    except tt.TableSizeError as exc:
        return f"--hash {hash_mb}: {exc}"
    free = tt.available_bytes()
    mb = 1024 * 1024
    # Each worker is a process of its own: its table and what it needs beside it.
    if jobs > 1 and free is not None and jobs * (tt.table_bytes(hash_mb) + tt.RESERVE_MB * mb) > free:
        fits = free // jobs // mb - tt.RESERVE_MB - 2
        return (f"--hash {hash_mb} with --jobs {jobs}: {jobs} tables do not fit in the memory "
                f"available ({free // mb} MB free, {tt.RESERVE_MB} MB kept for each process); "
                + (f"at most --hash {fits}" if fits >= 1 else "use fewer --jobs"))
    return None


def _stderr_is_terminal():
    return sys.stderr.isatty()


class _Progress:
    """Problems done, solved and rate on one stderr line, when it is a terminal (problems
    are read as they are solved, so there is no total to count down); a summary line at
    the end (counts per status, total time)."""

    def __init__(self, enabled):
        self.enabled = enabled
        self.count = self.solved = self.shown = 0
        self.start_time = time.perf_counter()

    def done(self, rec):
        self.count += 1
        self.solved += rec["status"] in ("mate", "nomate")
        if self.enabled and self.count > 1:
            elapsed = time.perf_counter() - self.start_time
            rate = self.count / elapsed if elapsed > 0 else 0.0
            line = f"{self.count} done, {self.solved} solved, {rate:.1f}/s"
            click.echo(f"\r{line} ", err=True, nl=False)
            self.shown = len(line) + 1

    def clear(self):
        """Blank the progress line, so that a message printed next starts a clean line."""
        if self.shown:
            click.echo("\r" + " " * self.shown + "\r", err=True, nl=False)
            self.shown = 0

    def close(self, counts):
        """`counts`: the records written, per status."""
        total = sum(counts.values())
        if not self.enabled or total < 2:
            return
        text = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
        self.clear()
        click.echo(f"{total} problems: {text}; "
                   f"{time.perf_counter() - self.start_time:.1f} s", err=True)


def _emit(fmt, item, rec, first, encoding="utf-8"):
    """Write one finished problem in the streaming formats (json and html wait for the
    end)."""
    if fmt == "jsonl":
        _write(_dumps(rec))
    elif fmt == "text":
        lines = [] if first else [""]
        lines.append(item.source)
        if rec["status"] != "error" or item.position is not None:
            try:
                lines.append(_board_text(item.position))
            except Exception:   # noqa: BLE001 - the diagram is a courtesy; the verdict matters
                pass
        lines.extend(verdict_lines(rec, item.position))
        _write("\n".join(lines))
    elif fmt == "usi":
        answer = checkmate_line(rec)
        if rec["status"] == "error":
            answer += " " + _one_line(rec["error"] or "")
        _write(f"{item.source}\t{answer}")
    elif fmt == "kif":
        text = ("" if first else "\n") + _kif_text(item, rec)
        if encoding != "utf-8":
            from .outdir import encode_kif
            text = encode_kif(text, encoding)[0]
        _write(text, nl=False)
    elif fmt == "svg":
        if item.position is not None:
            _write(_svg_text(item, rec), nl=False)


def _svg_text(item, rec=None):
    """The board picture of a problem; under it the answer (solve) or the title and the
    file's 作意 (show)."""
    from .report import caption
    from .svg import board_svg
    lines = [*_title_lines(item), *(caption(rec) if rec is not None else _solution_lines(item))]
    return board_svg(item.position, caption=lines, title=item.source)


def _with_metadata(item, rec):
    """The record with what the report reads beside it (the 作意, a TSV's columns)."""
    return rec if "metadata" in rec else {**rec, "metadata": item.metadata}


def _output_usage_error(fmt, out_dir, encoding):
    if out_dir is not None and fmt not in OUT_DIR_FORMATS:
        return f"--out-dir writes {', '.join(OUT_DIR_FORMATS)} files, not {fmt}"
    if encoding != "utf-8" and fmt != "kif":
        return f"--encoding {encoding} is for kif output only"
    return None


def _out_dir(path):
    from .outdir import OutDir
    try:
        return OutDir(path)
    except OSError as exc:
        raise _OutputError(OSError(exc.errno, f"{path}: {exc.strerror or exc}")) from exc


def _write_file(out, fmt, item, rec, encoding="utf-8"):
    """--out-dir: the problem's file (nothing for a problem without a board, whose
    error line said why); its path goes to standard output. `rec` None: the picture
    of a problem read, not solved (show)."""
    from .outdir import SUFFIXES, encode_kif, kif_suffix
    drawn = item.position is not None and (fmt != "kif" or rec["status"] != "error")
    if fmt not in ("json", "jsonl") and not drawn:
        return
    name = out.name_for(rec or {"source": item.source})
    if fmt == "kif":
        data, suffix = encode_kif(_kif_text(item, rec), encoding)[0], kif_suffix(encoding)
    elif fmt == "svg":
        data, suffix = _svg_text(item, rec), SUFFIXES[fmt]
    elif fmt == "html":
        from .report import html_report, problem_id
        data = html_report([_with_metadata(item, rec)], title=problem_id(rec))
        suffix = SUFFIXES[fmt]
    else:
        data, suffix = _dumps(rec, indent=2) + "\n", SUFFIXES[fmt]
    try:
        path = out.write(name, suffix, data)
    except OSError as exc:
        raise _OutputError(exc) from exc
    _write(path)


def _kif_text(item, rec):
    """A KIF record; for a problem that could not be read, its two comment lines only."""
    head = f"# {_one_line(item.source, 400)}\n# 結果：{_one_line(summary_line(rec), 300)}\n"
    if item.position is None:
        return head
    from .formats.kif import write_kif
    title = item.metadata.get("title") or None
    body = write_kif(item.position, moves=rec["moves"] or None, title=title, tree=rec.get("tree"))
    head += "".join(f"# {_one_line(line, 400)}\n" for line in flaw_lines(rec, item.position))
    return head + body + ("" if body.endswith("\n") else "\n")


@cli.command(help=f"""Print how the problems in PATHS were read: the source, the board
diagram (BOD) and the SFEN with the defender's hand written out. Use it to check that a
file was understood as intended. With --format svg: the board picture instead (SVG
documents one after another, or a file each with --out-dir).

{_input_help}

Errors and exit status as for 'tsume solve'.""")
@click.argument("paths", nargs=-1, required=True, metavar="PATHS...")
@click.option("--defender-hand", type=click.Choice(("auto", "rest", "literal")), default="auto",
              show_default=True, help=_DEFENDER_HAND_HELP)
@click.option("--format", "-f", "fmt", type=click.Choice(("text", "svg")), default="text",
              show_default=True, help="text: the diagram as text; svg: the board picture.")
@click.option("--out-dir", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="With --format svg: write one .svg per problem into DIR, named by its "
              "id, and print each file's path.")
@click.option("--quiet", "-q", is_flag=True, help="Do not print warnings.")
@click.pass_context
def show(ctx, paths, defender_hand, fmt, out_dir, quiet):
    if out_dir is not None and fmt != "svg":
        click.echo("tsume: --out-dir writes svg files: add --format svg", err=True)
        ctx.exit(EXIT_BAD_INPUT)
    run = _Run(quiet)
    first = True
    out = _out_dir(out_dir) if out_dir else None
    try:
        for item in _items(paths, defender_hand):
            if not run.report(item):
                continue
            try:
                if fmt == "svg":
                    text = _svg_text(item)
                else:
                    lines = [item.source, *_title_lines(item), _board_text(item.position),
                             "sfen " + item.position.sfen(), *_solution_lines(item)]
            except KeyboardInterrupt:
                raise
            except Exception as exc:    # noqa: BLE001
                run.error(item.source, f"internal error: {_describe(exc)}", internal=True)
                continue
            if out is not None:
                _write_file(out, fmt, item, None)
            elif fmt == "svg":
                _write(text, nl=False)
            else:
                _write(("" if first else "\n") + "\n".join(lines))
            first = False
    except KeyboardInterrupt:
        run.interrupted = True
        click.echo("tsume: interrupted", err=True)
    ctx.exit(run.exit_code)


@cli.command(help="""Summarise a saved run: RUN is what 'tsume solve --format jsonl' (or json)
wrote, a file or '-' for standard input. Prints a table (id, published length, ours,
strict length, verdict, flags, time) with a totals line, or with --format html the
page 'tsume solve --format html' writes.

A line that is not a record gives one line 'RUN:LINE: MESSAGE' on stderr (exit status
2); the others are still reported.""")
@click.argument("run_path", metavar="RUN")
@click.option("--format", "-f", "fmt", type=click.Choice(("text", "html")), default="text",
              show_default=True, help="text: an aligned table; html: one self-contained page.")
@click.pass_context
def report(ctx, run_path, fmt):
    from .report import html_report, read_records, text_report
    try:
        if run_path == "-":
            data = sys.stdin.buffer.read()
        elif not os.path.isfile(run_path):
            raise OSError(errno.ENOENT, "no such file" if not os.path.exists(run_path)
                          else "not a regular file")
        else:
            with open(run_path, "rb") as f:
                data = f.read()
        text = data.decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8"
        click.echo(f"{_one_line(run_path, 400)}: cannot read: {_one_line(reason)}", err=True)
        ctx.exit(EXIT_BAD_INPUT)
    records, errors = read_records(text, run_path)
    for message in errors:
        click.echo(_one_line(message, 400), err=True)
    _write(html_report(records) if fmt == "html" else text_report(records), nl=False)
    ctx.exit(EXIT_BAD_INPUT if errors else EXIT_OK)


@cli.command(help="""Run as a USI engine for shogi GUIs (将棋所, ShogiGUI, ShogiHome, Electron
Shogi): answers 'go mate' with 'checkmate ...' on standard output. See README "USI engine".""")
@click.pass_context
def usi(ctx):
    from .usi import run
    ctx.exit(run())


@cli.command(help="""Load the solver's compiled code, or compile it on the first run after
installing (about 40-60 s on 2 cores), and say how long it took. Run it once on a new
machine, such as each node of a Dask cluster, before its first batch.""")
@click.pass_context
def warmup(ctx):
    from .pipeline import warm_up
    from .solver import search_is_compiled
    cached = search_is_compiled()
    start = time.perf_counter()
    warm_up(bulk=True)      # (and the kernel of proof-only batches, --answer proof)
    took = time.perf_counter() - start
    click.echo(f"tsume: {'loaded the compiled solver' if cached else 'compiled the solver'} "
               f"in {took:.1f} s")
    ctx.exit(EXIT_OK)


def _title_lines(item):
    return [f"{label}：{_one_line(item.metadata[key], 200)}"
            for key, label in (("title", "作品名"), ("author", "作者")) if item.metadata.get(key)]


def _solution_lines(item):
    """The file's own move list (作意), if any, in Japanese notation."""
    moves = item.metadata.get("moves")
    if not moves:
        return []
    try:
        from .notation import line_to_japanese
        text = line_to_japanese(item.position, moves)
    except ValueError as exc:
        text = f"{' '.join(moves)}  (not playable: {_one_line(exc, 120)})"
    return [f"作意 ({len(moves)}手)：{text}"]


def main(argv=None):
    """Console-script entry point. No traceback ever reaches the user unless
    TSUME_DEBUG is set."""
    _guard_stdout()
    try:
        cli.main(args=argv, prog_name="tsume")
    except SystemExit:
        raise
    except _OutputError as exc:
        _stdout_to_devnull()
        if exc.cause.errno == errno.EPIPE:
            sys.exit(EXIT_BROKEN_PIPE)      # silently, like a tool that SIGPIPE ends
        reason = exc.cause.strerror or _describe(exc.cause)
        click.echo(f"tsume: cannot write output: {_one_line(reason)}", err=True)
        sys.exit(EXIT_OUTPUT)
    except Exception as exc:    # noqa: BLE001
        if os.environ.get("TSUME_DEBUG"):
            raise
        click.echo(f"tsume: internal error: {_one_line(_describe(exc))}", err=True)
        sys.exit(EXIT_INTERNAL)


def _stdout_to_devnull():
    """Python flushes stdout again at exit, and what could not be written would fail
    again with "Exception ignored ...": let it go to /dev/null."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


def _guard_stdout():
    """A terminal that cannot show Japanese gets escapes, not a UnicodeEncodeError."""
    for stream in (sys.stdout, sys.stderr):
        enc = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
        if enc and enc not in ("utf8", "utf_8") and hasattr(stream, "reconfigure"):
            try:
                stream.reconfigure(errors="backslashreplace")
            except Exception:   # noqa: BLE001
                pass
