"""The run's report (report.py, issue #47): the summary's columns and flags, the text
table, reading a saved run, `tsume report`, and the HTML page as headless Chromium
builds it (skipped where Chromium is not installed)."""
import json
import os
import shutil
import subprocess
from html.parser import HTMLParser

import pytest

from tsume.report import published, read_records, summary_row, text_report
from tsume.result import record

from test_cli import PROBLEMS, S3_SFEN, run

NOMATE_SFEN = "8k/9/9/9/9/9/9/9/9 b P 1"
CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)


def _rec(source="a.sfen:1", status="mate", length=3, **extra):
    rec = record(source)
    rec.update(status=status, sfen=S3_SFEN, error=None, seconds=0.25,
               length=length if status == "mate" else None,
               strict_length=length if status == "mate" else None,
               moves=["P*1b", "1a1b", "L*1c"][:length or 0] if status == "mate" else [],
               exact=True, complete=status == "mate")
    rec.update(extra)
    return rec


def test_published_length_from_the_sakui_or_a_tsv_column():
    assert published(_rec(sakui={"moves": ["P*1b"] * 5, "length": 5, "matches": False,
                                 "hayazume": True})) == 5
    assert published(_rec(metadata={"fields": ["7", "tanuki-7-0072", "note"]})) == 7
    assert published(_rec(metadata={"expected": "nomate"})) == "不詰"
    assert published(_rec(metadata={"moves": ["P*1b", "1a1b", "L*1c"]})) == 3
    assert published(_rec(metadata={"fields": ["not1"]})) is None
    assert published(_rec()) is None


def test_flags_of_a_row():
    row = summary_row(_rec(metadata={"fields": ["5"]}, id="t-1"))
    assert (row.id, row.published, row.ours, row.verdict) == ("t-1", 5, 3, "詰み")
    assert row.flags == ("完全作", "早詰")
    flawed = _rec(complete=False, komaamari=True, leftover={"P": 1}, exact=False,
                  henka=[{"ply": 2, "moves": ["1a1b", "1a2b"]}],
                  yozume=[{"ply": 1, "move": "L*1c", "kind": "yozume", "length": 3},
                          {"ply": 1, "move": "N*2c", "kind": "unchecked", "length": None}])
    assert summary_row(flawed).flags == ("余詰", "駒余り", "変同", "余詰未確認", "手数未確定")
    assert summary_row(_rec(status="nomate", metadata={"fields": ["3"]})).flags == ("結果相違",)
    assert summary_row(_rec(status="unknown", reason="time limit")).verdict == "不明 (time limit)"


def test_text_report_is_an_aligned_table_with_totals():
    records = [_rec("problems/s3.sfen:1", id="s3"),
               _rec("tanuki.tsv:2", metadata={"fields": ["5", "x"]}),
               _rec("b.sfen:1", status="nomate"), record("bad.sfen:1", error="bad SFEN")]
    lines = text_report(records).splitlines()
    assert lines[0].split() == ["id", "published", "ours", "strict", "verdict", "flags", "time"]
    assert lines[1].split() == ["s3", "-", "3", "3", "詰み", "完全作", "0.25"]
    assert lines[2].split()[:6] == ["tanuki.tsv:2", "5", "3", "3", "詰み", "完全作"]
    assert lines[4].split()[-3:] == ["エラー", "-", "-"]
    # Columns line up, wide characters counting two.
    from tsume.notation import display_width
    starts = {display_width(line[:line.index("詰み" if "詰み" in line else "不詰")])
              for line in lines[1:4]}
    assert len(starts) == 1
    assert lines[-1] == ("4 problems: 詰み 2, 不詰 1, エラー 1; 完全作 2, 早詰 1; 0.75 s")


def test_read_records_from_jsonl_and_json():
    good = json.dumps(_rec())
    records, errors = read_records(f"{good}\n\nnot json\n{json.dumps({'status': 'x'})}\n", "r.jsonl")
    assert len(records) == 1 and records[0]["moves"] == ["P*1b", "1a1b", "L*1c"]
    assert errors[0].startswith("r.jsonl:3: not JSON")
    assert errors[1] == "r.jsonl:4: not a tsume record (status 'x')"
    records, errors = read_records(f"[{good}, {good}]", "r.json")
    assert len(records) == 2 and not errors
    # A record missing keys (an older run) gets their defaults.
    records, _ = read_records(json.dumps({"source": "x", "status": "nomate"}))
    assert records[0]["yozume"] == [] and records[0]["sfen"] is None


def test_page_of_a_long_line_pictures_its_first_plies():
    """Past MAX_STEP_PLIES the moves are listed without pictures (a page stays small);
    a record whose moves do not replay says where."""
    from tsume.report import MAX_STEP_PLIES, html_report
    shuffle = ["5i5h", "5a5b", "5h5i", "5b5a"] * ((MAX_STEP_PLIES + 20) // 4)
    rec = _rec(sfen="4k4/9/9/9/9/9/9/9/4K4 b - 1", moves=shuffle, status="unknown")
    page = html_report([rec, _rec(moves=["P*1b", "1a1b", "1b1a"])])
    first, second = page.split('<section class="problem" id="p2"')
    assert first.count("<figure") == MAX_STEP_PLIES + 1
    assert first.count('<li class="more">') == len(shuffle) - MAX_STEP_PLIES
    assert f"positions shown up to ply {MAX_STEP_PLIES}" in first
    assert second.count("<figure") == 3 and "3手目 1b1a cannot be played" in second


def test_report_command(tmp_path):
    jsonl = tmp_path / "run.jsonl"
    jsonl.write_text(run("solve", "-f", "jsonl", PROBLEMS / "tanuki.tsv").stdout + "oops\n")
    result = run("report", jsonl)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"{jsonl}:4: not JSON")
    lines = result.stdout.splitlines()
    assert len(lines) == 5 and lines[-1].startswith("3 problems: 詰み 3")
    result = run("report", "-f", "html", jsonl)
    assert result.stdout.count('<section class="problem"') == 3
    assert run("report", tmp_path / "none.jsonl").exit_code == 2


class _Dom(HTMLParser):
    """A small element tree of an HTML document: (tag, attrs, children, text)."""
    VOID = {"meta", "link", "br", "hr", "img", "input", "wbr", "source", "col", "area", "base"}

    def __init__(self, text):
        super().__init__()
        self.root = ("#root", {}, [], [])
        self.stack = [self.root]
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        node = (tag, dict(attrs), [], [])
        self.stack[-1][2].append(node)
        if tag not in self.VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag, attrs):
        self.stack[-1][2].append((tag, dict(attrs), [], []))

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, 0, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                break

    def handle_data(self, data):
        self.stack[-1][3].append(data)


def _all(node, pred):
    out = [node] if pred(node) else []
    for child in node[2]:
        out += _all(child, pred)
    return out


def _text(node):
    return "".join(node[3]) + "".join(_text(c) for c in node[2])


def _has_class(name):
    return lambda n: name in (n[1].get("class") or "").split()


def _chromium_dom(page, fragment=""):
    profile = page.parent / "profile"
    done = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         f"--user-data-dir={profile}", "--dump-dom", page.as_uri() + fragment],
        capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    return _Dom(done.stdout.decode("utf-8")).root


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
def test_html_report_in_headless_chromium(tmp_path):
    """The page of a small run, as a browser builds it (scripts run): every problem has
    its section with its verdict, and every problem with a position shows its board
    (one picture of 81 squares visible, the step-through's others hidden)."""
    problems = f"{S3_SFEN}\n{NOMATE_SFEN}\nnot a position\n"
    result = run("solve", "-f", "html", PROBLEMS / "tanuki.tsv", "-", input=problems)
    assert result.exit_code == 2           # (the bad line)
    page = tmp_path / "run.html"
    page.write_text(result.stdout, encoding="utf-8")
    verdicts = {"p1": "完全作", "p2": "完全作", "p3": "完全作", "p4": "完全作",
                "p5": "不詰", "p6": "エラー"}
    dom = _chromium_dom(page, "#p4-2")
    rows = _all(dom, lambda n: n[0] == "tr" and n[1].get("class", "").startswith("v-"))
    assert len(rows) == 6
    sections = _all(dom, lambda n: n[0] == "section")
    assert [s[1]["id"] for s in sections] == list(verdicts)
    for section in sections:
        key = section[1]["id"]
        verdict = _all(section, _has_class("verdict"))
        assert verdict and _text(verdict[0]).startswith(verdicts[key]), key
        figures = _all(section, lambda n: n[0] == "figure")
        shown = [f for f in figures if "hidden" not in f[1]]
        if key == "p6":                    # unreadable: no board to show
            assert not figures
            continue
        assert len(shown) == 1, key
        squares = _all(shown[0], lambda n: n[0] == "rect" and "sq" in n[1].get("class", "").split())
        assert len(squares) == 81
        pieces = _all(shown[0], _has_class("piece"))
        assert pieces, key
        # #p4-2 opened problem 4 (s3) at its second ply: the king took on １二.
        want = "2" if key == "p4" else "0"
        assert shown[0][1]["data-ply"] == want, key
    s3 = sections[3]
    assert len(_all(s3, lambda n: n[0] == "figure")) == 4
    current = _all(s3, _has_class("current"))
    assert [_text(b) for b in current] == ["△同玉"]
    assert "エラー" in _text(sections[5])
