"""A run's report: a summary table of every problem (text or one HTML page) built from
the records of a run (result.record, as ``--format jsonl`` writes them).

A renderer: it reads records (and the positions their SFEN and moves give), never the
search. Each row says the problem's id, the length published for it (the file's 作意, or
the expected-length column of a TSV), ours, the strict length (無駄合 counted), the
verdict, its flags (完全作, 余詰, 駒余り, 変同, 早詰, ...) and the time. The HTML page adds,
per problem, the board picture (svg.py), the main line with a step-through of its
positions and the verdict's lines (render.verdict_lines); it is one self-contained file
(inline CSS, SVG and a little JavaScript; nothing is fetched).

Records may carry ``id`` (the problem's name) and ``metadata`` (what the reader kept:
``moves`` of a 作意, a TSV's columns); without them the source names the problem.
"""
import json
from html import escape
from typing import NamedTuple

from .render import summary_line, verdict_lines
from .result import STATUSES, record

VERDICTS = {"mate": "詰み", "nomate": "不詰", "unknown": "不明", "error": "エラー"}
# The flags in the order the table shows them.
FLAGS = ("完全作", "余詰", "駒余り", "変同", "早詰", "手数相違", "結果相違", "作意相違",
         "余詰未確認", "手数未確定")
# Positions shown in one problem's step-through: a picture is some 10 KB, and a line of
# a thousand plies would make a page of megabytes; the moves past it are listed only.
MAX_STEP_PLIES = 200
# Metadata keys that may hold a TSV's expected result, in the order they are read.
_EXPECTED_KEYS = ("expected", "mate_length", "length")


class Row(NamedTuple):
    """One problem's line of the summary."""
    id: str
    source: str
    published: object       # int (plies), "不詰", "詰" (mate, length not given) or None
    ours: int | None
    strict: int | None
    verdict: str
    flags: tuple
    seconds: float | None


# ---------------------------------------------------------------- records in
def read_records(text, name="-"):
    """(records, errors) from the text of a JSONL run (one JSON object per line; blank
    lines skipped) or of a JSON array (``--format json``). An error is ``name:line:
    message``; each record is completed with the keys an older or partial record lacks."""
    records, errors = [], []
    stripped = text.lstrip("\ufeff \t\r\n")
    if stripped.startswith("["):
        try:
            items = json.loads(stripped)
        except ValueError as exc:
            return [], [f"{name}: not a JSON array: {exc}"]
        numbered = [(i + 1, item) for i, item in enumerate(items)]
        where = "item"
    else:
        numbered = []
        for lineno, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                numbered.append((lineno, json.loads(line.lstrip("\ufeff"))))
            except ValueError as exc:
                errors.append(f"{name}:{lineno}: not JSON: {exc}")
        where = "line"
    for n, item in numbered:
        problem = _complete(item)
        if isinstance(problem, str):
            errors.append(f"{name}:{n}: {problem}" if where == "line" else
                          f"{name}: item {n}: {problem}")
        else:
            records.append(problem)
    return records, errors


def _complete(item):
    """The record with every key of result.record (defaults where absent), or why not."""
    if not isinstance(item, dict):
        return "not a JSON object"
    if item.get("status") not in STATUSES:
        return f"not a tsume record (status {item.get('status')!r})"
    rec = record(str(item.get("source") or "?"))
    rec.update(item)
    for key in ("moves", "yozume", "henka"):
        if not isinstance(rec.get(key), list):
            rec[key] = []
    if not isinstance(rec.get("leftover"), dict):
        rec["leftover"] = {}
    return rec


# ---------------------------------------------------------------- the summary
def problem_id(rec):
    """The problem's name: the record's id, else its source."""
    return str(rec.get("id") or rec.get("source") or "?")


def published(rec):
    """The result published for the problem: the file's 作意 length, else a TSV's
    expected column (an odd number of plies, ``nomate`` or ``mate``); None if neither."""
    sakui = rec.get("sakui")
    if isinstance(sakui, dict) and isinstance(sakui.get("length"), int):
        return sakui["length"]
    meta = rec.get("metadata")
    meta = meta if isinstance(meta, dict) else {}
    if isinstance(meta.get("moves"), list) and meta["moves"]:
        return len(meta["moves"])
    values = [meta.get(k) for k in _EXPECTED_KEYS]
    fields = meta.get("fields")
    if isinstance(fields, list) and fields:
        values.append(fields[0])             # the TSV layout: sfen, expected, id, ...
    for value in values:
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
        text = str(value or "").strip().lower()
        if text.isdigit() and int(text) > 0:
            return int(text)
        if text in ("nomate", "不詰"):
            return "不詰"
        if text in ("mate", "詰"):
            return "詰"
    return None


def flags(rec, pub=None):
    """The flags of a record (FLAGS order); `pub`: its published result (published())."""
    status, found = rec["status"], set()
    if status == "mate":
        kinds = [y.get("kind") for y in rec["yozume"] if isinstance(y, dict)]
        if rec.get("complete"):
            found.add("完全作")
        if "yozume" in kinds:
            found.add("余詰")
        if "unchecked" in kinds:
            found.add("余詰未確認")
        if rec.get("komaamari"):
            found.add("駒余り")
        if rec["henka"]:
            found.add("変同")
        if not rec.get("exact"):
            found.add("手数未確定")
        sakui = rec.get("sakui")
        if isinstance(sakui, dict) and sakui.get("moves") and not sakui.get("matches"):
            found.add("作意相違")
    length = rec.get("length") if status == "mate" else None
    if isinstance(pub, int) and isinstance(length, int):
        if length < pub:
            found.add("早詰")
        elif length > pub:
            found.add("手数相違")
    if (pub == "不詰" and status == "mate") or (pub not in (None, "不詰") and status == "nomate"):
        found.add("結果相違")
    if "早詰" in found:
        found.discard("作意相違")          # (the one that says why)
    return tuple(f for f in FLAGS if f in found)


def verdict(rec):
    """詰み / 不詰 / 不明 (reason) / エラー."""
    text = VERDICTS.get(rec["status"], rec["status"])
    if rec["status"] == "unknown" and rec.get("reason"):
        text += f" ({rec['reason']})"
    return text


def summary_row(rec):
    pub = published(rec)
    mate = rec["status"] == "mate"
    seconds = rec.get("seconds")
    return Row(problem_id(rec), str(rec.get("source") or ""), pub,
               rec.get("length") if mate else None, rec.get("strict_length") if mate else None,
               verdict(rec), flags(rec, pub),
               float(seconds) if isinstance(seconds, (int, float)) and rec["status"] != "error" else None)


def totals(rows):
    """The totals line: counts per verdict and per flag, the total time."""
    counts = {}
    for row in rows:
        key = row.verdict.split(" ")[0]
        counts[key] = counts.get(key, 0) + 1
    parts = [f"{v} {counts[v]}" for v in VERDICTS.values() if counts.get(v)]
    flagged = [f"{f} {n}" for f in FLAGS if (n := sum(f in row.flags for row in rows))]
    seconds = sum(row.seconds or 0.0 for row in rows)
    text = f"{len(rows)} problem{'s' if len(rows) != 1 else ''}: " + (", ".join(parts) or "none")
    if flagged:
        text += "; " + ", ".join(flagged)
    return text + f"; {seconds:.2f} s"


def _cell(value, none="-"):
    """A cell's text; `none` for nothing (an ASCII hyphen in the text table: a dash is
    of ambiguous width, two columns on some CJK terminals)."""
    if value is None:
        return none
    return str(value)


HEADERS = ("id", "published", "ours", "strict", "verdict", "flags", "time")


def text_report(records):
    """The summary as an aligned text table (wide characters count two columns) and a
    totals line."""
    from .notation import display_width
    rows = [summary_row(rec) for rec in records]
    table = [HEADERS] + [(row.id, _cell(row.published), _cell(row.ours), _cell(row.strict),
                          row.verdict, " ".join(row.flags) or "-",
                          "-" if row.seconds is None else f"{row.seconds:.2f}")
                         for row in rows]
    widths = [max(display_width(line[i]) for line in table) for i in range(len(HEADERS))]
    right = {1, 2, 3, 6}           # numbers line up on the right
    out = []
    for line in table:
        cells = []
        for i, cell in enumerate(line):
            pad = " " * (widths[i] - display_width(cell))
            cells.append(pad + cell if i in right else cell + pad)
        out.append("  ".join(cells).rstrip())
    out.append(totals(rows))
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- the page
_CSS = """
body { font-family: 'Hiragino Sans', 'Yu Gothic', Meiryo, 'Noto Sans CJK JP', 'Noto Sans JP',
  IPAexGothic, IPAGothic, sans-serif; margin: 1.5em; color: #222; background: #fdfcf8; }
h1 { font-size: 1.5em; margin: 0 0 .3em; }
h2 { font-size: 1.2em; border-bottom: 1px solid #ccc; padding-bottom: .2em; margin-top: 2em; }
h2 small { font-weight: normal; color: #777; font-size: .75em; margin-left: .6em; }
table.summary { border-collapse: collapse; font-size: .92em; }
table.summary th, table.summary td { border: 1px solid #ccc; padding: .25em .6em; }
table.summary th { background: #eee; }
table.summary td.num { text-align: right; font-variant-numeric: tabular-nums; }
.flag { display: inline-block; border-radius: .3em; padding: 0 .35em; margin: 0 .15em;
  font-size: .88em; background: #fde2b8; }
.flag.ok { background: #cdebd0; }
.v-mate { color: #145a1e; } .v-nomate { color: #555; } .v-unknown, .v-error { color: #a01818; }
.problem .verdict { font-size: 1.1em; font-weight: bold; }
.stepper { display: flex; flex-wrap: wrap; gap: 1.2em; align-items: flex-start; }
.stepper figure { margin: 0; }
.stepper figure svg { max-width: 100%; height: auto; display: block; }
.stepper figcaption { font-size: .95em; margin-top: .2em; min-height: 1.3em; }
.controls { margin: .4em 0; }
.controls button { font-size: 1em; min-width: 2.4em; }
.controls .ply { margin-left: .6em; font-variant-numeric: tabular-nums; }
ol.line { list-style: none; padding: 0; margin: .3em 0; max-width: 34em; line-height: 1.9; }
ol.line li { display: inline; }
ol.line button { font: inherit; border: 1px solid transparent; background: none;
  padding: 0 .15em; cursor: pointer; }
ol.line button.current { border-color: #c77b00; background: #fde2b8; }
ol.line .more { color: #777; }
ul.flaws { margin: .4em 0; padding-left: 1.3em; }
.error { color: #a01818; }
"""

# Step-through: every position of a line is a figure of its own, all but one hidden;
# the buttons and the move list show another. #pN-K in the address opens problem N
# at ply K.
_JS = """
(function () {
  function setUp(st) {
    var figs = st.querySelectorAll('figure.pos');
    var moves = st.querySelectorAll('ol.line button');
    var label = st.querySelector('.ply');
    var cur = 0;
    function show(n) {
      n = Math.max(0, Math.min(figs.length - 1, n));
      figs[cur].hidden = true;
      figs[n].hidden = false;
      for (var i = 0; i < moves.length; i++) {
        moves[i].classList.toggle('current', i + 1 === n);
      }
      cur = n;
      st.setAttribute('data-ply', n);
      if (label) { label.textContent = n + ' / ' + (figs.length - 1); }
    }
    st.addEventListener('click', function (e) {
      var b = e.target.closest('button');
      if (!b) { return; }
      var step = b.getAttribute('data-step');
      if (step === 'first') { show(0); }
      else if (step === 'prev') { show(cur - 1); }
      else if (step === 'next') { show(cur + 1); }
      else if (step === 'last') { show(figs.length - 1); }
      else if (b.hasAttribute('data-ply')) { show(+b.getAttribute('data-ply')); }
    });
    st.addEventListener('keydown', function (e) {
      if (e.key === 'ArrowLeft') { show(cur - 1); e.preventDefault(); }
      if (e.key === 'ArrowRight') { show(cur + 1); e.preventDefault(); }
    });
    st.showPly = show;
  }
  var steppers = document.querySelectorAll('.stepper');
  for (var i = 0; i < steppers.length; i++) { setUp(steppers[i]); }
  var m = /^#(p[0-9]+)-([0-9]+)$/.exec(location.hash);
  if (m) {
    var section = document.getElementById(m[1]);
    var st = section && section.querySelector('.stepper');
    if (st) { st.showPly(+m[2]); section.scrollIntoView(); }
  }
})();
"""


def _e(text):
    return escape(str(text), quote=True)


def _flag_html(row):
    return "".join(f'<span class="flag{" ok" if f == "完全作" else ""}">{_e(f)}</span>'
                   for f in row.flags)


def _table_html(rows):
    out = ['<table class="summary">', "<thead><tr><th>#</th>"
           + "".join(f"<th>{h}</th>" for h in HEADERS) + "</tr></thead>", "<tbody>"]
    for n, (row, status) in enumerate(rows, 1):
        out.append(
            f'<tr class="v-{_e(status)}"><td class="num">{n}</td>'
            f'<td><a href="#p{n}">{_e(row.id)}</a></td>'
            f'<td class="num">{_e(_cell(row.published, "—"))}</td>'
            f'<td class="num">{_e(_cell(row.ours, "—"))}</td>'
            f'<td class="num">{_e(_cell(row.strict, "—"))}</td>'
            f'<td class="verdict v-{_e(status)}">{_e(row.verdict)}</td><td>{_flag_html(row)}</td>'
            f'<td class="num">{"—" if row.seconds is None else f"{row.seconds:.2f}"}</td></tr>')
    out += ["</tbody>", "</table>"]
    return "\n".join(out)


def _steps(rec, name):
    """[(move text or None, svg)] for the start and each position of the line (up to
    MAX_STEP_PLIES), the Japanese text of every move, and why the line stopped early
    (a record whose moves do not replay), if it did."""
    from .notation import move_to_japanese, usi_to_square
    from .position import Position
    from .svg import board_svg
    pos = Position.from_sfen(rec["sfen"])
    steps = [(None, board_svg(pos, title=f"{name} 開始局面"))]
    texts, prev = [], None
    for ply, usi in enumerate(rec["moves"], 1):
        try:
            text = move_to_japanese(pos, usi, prev)
            pos.push_usi(usi)
        except ValueError:
            return steps, texts, f"{ply}手目 {usi} cannot be played"
        prev = usi_to_square(usi[2:4])
        texts.append(text)
        if ply <= MAX_STEP_PLIES:
            steps.append((text, board_svg(pos, last_move=usi, title=f"{name} {ply}手目 {text}")))
    return steps, texts, None


def _problem_html(n, rec, row):
    status = rec["status"]
    out = [f'<section class="problem" id="p{n}" data-status="{_e(status)}">',
           f"<h2>{n}. {_e(row.id)}"
           + (f"<small>{_e(row.source)}</small>" if row.source != row.id else "") + "</h2>"]
    lines = verdict_lines(rec)
    main = [line for line in lines
            if not line.startswith("USI: ") and not (rec.get("kifu") and line.startswith(rec["kifu"]))]
    headline = next((line for line in main if line.startswith(("完全作", "詰み", "不詰", "不明", "エラー"))),
                    verdict(rec))
    out.append(f'<p class="verdict v-{_e(status)}">{_e(headline)}</p>')
    if rec.get("sfen"):
        try:
            steps, texts, broken = _steps(rec, row.id)
        except Exception as exc:      # noqa: BLE001 - a bad record spoils its picture only
            out.append(f'<p class="error">no picture: {_e(exc)}</p>')
            steps = None
        if steps:
            last = len(steps) - 1
            out.append(f'<div class="stepper" tabindex="0" data-ply="0" data-plies="{last}">')
            out.append('<div class="boards">')
            for ply, (text, svg) in enumerate(steps):
                caption = "開始局面" if ply == 0 else f"{ply}手目 {text}"
                out.append(f'<figure class="pos" data-ply="{ply}"{" hidden" if ply else ""}>'
                           f"{svg}<figcaption>{_e(caption)}</figcaption></figure>")
            out.append("</div>")
            if texts:
                out.append('<div class="moves"><div class="controls">'
                           '<button type="button" data-step="first" title="開始局面">|◀</button>'
                           '<button type="button" data-step="prev" title="一手戻る">◀</button>'
                           '<button type="button" data-step="next" title="一手進む">▶</button>'
                           '<button type="button" data-step="last" title="最終局面">▶|</button>'
                           f'<span class="ply">0 / {last}</span></div>')
                items = []
                for ply, text in enumerate(texts, 1):
                    if ply <= last:
                        items.append(f'<li><button type="button" data-ply="{ply}">{_e(text)}</button></li>')
                    else:
                        items.append(f'<li class="more">{_e(text)}</li>')
                if status == "mate":
                    items.append(f'<li class="end">まで{len(texts)}手詰</li>')
                out.append('<ol class="line">' + " ".join(items) + "</ol>")
                if len(texts) > last and not broken:
                    out.append(f'<p class="more">図は{last}手目まで / positions shown up to ply {last}</p>')
                if broken:
                    out.append(f'<p class="error">{_e(broken)}</p>')
                out.append("</div>")
            out.append("</div>")
    rest = [line for line in main if line != headline]
    if rest:
        out.append('<ul class="flaws">' + "".join(f"<li>{_e(line)}</li>" for line in rest) + "</ul>")
    out.append("</section>")
    return "\n".join(out)


def html_report(records, title="tsume report"):
    """One self-contained HTML page: the summary table, then every problem with its
    board, its main line stepped through and its verdict's lines."""
    rows = [summary_row(rec) for rec in records]
    out = ["<!DOCTYPE html>", '<html lang="ja">', "<head>", '<meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<title>{_e(title)}</title>", f"<style>{_CSS}</style>", "</head>", "<body>",
           f"<h1>{_e(title)}</h1>", f'<p class="totals">{_e(totals(rows))}</p>',
           _table_html([(row, rec["status"]) for row, rec in zip(rows, records)])]
    for n, (rec, row) in enumerate(zip(records, rows), 1):
        out.append(_problem_html(n, rec, row))
    out += [f"<script>{_JS}</script>", "</body>", "</html>"]
    return "\n".join(out) + "\n"


def caption(rec):
    """The lines written under a problem's picture: the main line with its length, and
    the verdict (render.summary_line)."""
    lines = []
    if rec["status"] == "mate" and rec.get("kifu"):
        lines.append(f"{rec['kifu']}　まで{rec['length']}手詰")
    lines.append(summary_line(rec))
    return lines
