"""The record of a problem has one list of keys (tsume.result), which the README's
schema table, the CLI's output and Result follow."""
import re
from dataclasses import fields
from pathlib import Path

from tsume.result import RECORD_KEYS, RESULT_KEYS, Result, record

README = Path(__file__).resolve().parents[1] / "README.md"


def test_the_readme_schema_lists_the_record_keys_in_order():
    text = README.read_text(encoding="utf-8")
    table = text[text.index("## JSON schema"):text.index("## Exit codes")]
    assert tuple(re.findall(r"^\| `(\w+)` \|", table, re.M)) == RECORD_KEYS


def test_a_record_holds_every_result_field_as_plain_data():
    import numpy as np
    result = Result(status="mate", length=3, moves=["P*1b", "1a1b", "L*1c"],
                    nodes=np.int64(7), yozume=[{"ply": 1, "move": "L*1c", "kind": "unchecked",
                                                "length": None}])
    rec = record("x.sfen:1", "sfen", result)
    assert tuple(rec) == RECORD_KEYS
    assert RESULT_KEYS == tuple(f.name for f in fields(Result))
    assert type(rec["nodes"]) is int and rec["nodes"] == 7
    rec["yozume"][0]["kind"] = "yozume"          # a copy: the result is untouched
    assert result.yozume[0]["kind"] == "unchecked"
    assert record("bad.sfen", error="no position")["status"] == "error"
