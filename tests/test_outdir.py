"""--out-dir and --encoding (outdir.py, issue #47): one file per problem, named by its id,
KIF in cp932 with CRLF for Kifu for Windows."""
import json
from pathlib import Path

import pytest

from tsume.outdir import OutDir, encode_kif, safe_name, source_name

from test_cli import PROBLEMS, run, run_module


@pytest.mark.parametrize("source, name", [
    ("problems/s3.kif:1", "s3"), ("tanuki.tsv:3", "tanuki_3"), ("-:2", "stdin_2"),
    ("x/y.csa#2", "y_2"), ("C:\\b\\q.kifu:1", "q"), ("a/CON.sfen:1", "_CON"),
    ("a/.hidden.sfen:4", "hidden_4")])
def test_names_from_sources(source, name):
    assert source_name(source) == name


def test_names_are_safe_and_unique(tmp_path):
    assert safe_name("../../etc/passwd") == "etc_passwd"
    assert safe_name("詰将棋 第1番") == "詰将棋_第1番"
    out = OutDir(tmp_path / "new" / "dir")
    names = [out.name_for(r) for r in ({"id": "A"}, {"id": "a"}, {"source": "a.sfen:1"},
                                       {"source": "x/a.kif:1"}, {"id": "a/b"})]
    assert names == ["A", "a-2", "a-3", "a-4", "a_b"]


def test_cp932_kif_has_crlf():
    data, lossy = encode_kif("後手の持駒：なし\n▲１二歩　△同玉\n", "cp932")
    assert not lossy and data.decode("cp932") == "後手の持駒：なし\r\n▲１二歩　△同玉\r\n"
    data, lossy = encode_kif("作品名：😀\n", "cp932")
    assert lossy and data.decode("cp932") == "作品名：?\r\n"
    assert encode_kif("玉\n", "utf-8") == ("玉\n".encode(), False)


def test_solve_out_dir_writes_a_file_per_problem(tmp_path):
    out = tmp_path / "kif"
    result = run("solve", "-f", "kif", "--encoding", "cp932", "--out-dir", out,
                 PROBLEMS / "s3.kif", PROBLEMS / "tanuki.tsv")
    assert result.exit_code == 0, result.stderr
    # Named by the record's id: the KIF's title, the TSV's id column.
    names = ["S3_SPEC_2.7.kif", "tanuki-1-0001.kif", "tanuki-3-0001.kif", "tanuki-5-0001.kif"]
    assert result.stdout.splitlines() == [str(out / n) for n in names]
    text = (out / names[0]).read_bytes().decode("cp932")
    assert "\r\n" in text and "\n" not in text.replace("\r\n", "")
    assert "後手の持駒：" in text and "まで3手で詰み" in text
    result = run("solve", "-f", "json", "--out-dir", tmp_path / "json", PROBLEMS / "s3.sfen")
    written = Path(result.stdout.strip())        # (no title: its id is its source)
    assert written == tmp_path / "json" / "s3.json"
    assert json.loads(written.read_text())["moves"] == ["P*1b", "1a1b", "L*1c"]


def test_out_dir_usage_errors(tmp_path):
    result = run("solve", "--out-dir", tmp_path, PROBLEMS / "s3.sfen")
    assert result.exit_code == 2 and "--out-dir writes kif" in result.stderr
    result = run("solve", "-f", "svg", "--encoding", "cp932", PROBLEMS / "s3.sfen")
    assert result.exit_code == 2 and "for kif output only" in result.stderr
    result = run("show", "--out-dir", tmp_path, PROBLEMS / "s3.sfen")
    assert result.exit_code == 2 and "--format svg" in result.stderr
    (tmp_path / "file").write_text("")
    done = run_module("solve", "-f", "svg", "--out-dir", tmp_path / "file" / "x", PROBLEMS / "s3.sfen")
    assert done.returncode == 4
    assert done.stderr.decode().startswith("tsume: cannot write output: ")
