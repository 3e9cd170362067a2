"""The run's report (report.py, issue #47): the summary's columns and flags, the text
table, reading a saved run, `tsume report`, and the HTML page as headless Chromium
builds it (skipped where Chromium is not installed)."""
import json

from tsume.report import published, read_records, summary_row, text_report
from tsume.result import record

from test_cli import S3_SFEN


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
    assert lines[1].split() == ["s3", "—", "3", "3", "詰み", "完全作", "0.25"]
    assert lines[2].split()[:6] == ["tanuki.tsv:2", "5", "3", "3", "詰み", "完全作"]
    assert lines[4].split()[-3:] == ["エラー", "—", "—"]
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
