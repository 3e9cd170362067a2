"""--out-dir and --encoding (outdir.py, issue #47): one file per problem, named by its id,
KIF in cp932 with CRLF for Kifu for Windows."""
import pytest

from tsume.outdir import OutDir, encode_kif, safe_name, source_name


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
