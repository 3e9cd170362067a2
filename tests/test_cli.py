"""The command-line interface: help, output formats, the sample problems, error handling.

The solver may answer ``unknown`` (stub) or ``mate``; the tests accept any verdict but
check that whatever is reported is self-consistent.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from tsume.cli import JSON_KEYS, cli
from tsume.position import Position

ROOT = Path(__file__).resolve().parents[1]
PROBLEMS = ROOT / "problems"
S3_SFEN = "8k/9/9/7+R1/9/9/9/9/9 b LPr2b4g4s4n3l17p 1"
MUDAAI_SFEN = "8k/6G1p/9/9/9/9/9/9/4R4 b r2b3g4s4n4l17p 1"

# Every sample: source -> explicit SFEN the readers must produce.
SAMPLES = {
    "komaamari.sfen:1": "7k1/8s/8+P/9/7n1/9/9/9/9 b RSr2b4g2s3n4l17p 1",
    "marken-foo-3te-01.kif:1": "9/4k4/9/4S4/9/9/9/9/9 b GS2r2b3g2s4n4l18p 1",
    "mudaai.csa:2": MUDAAI_SFEN,
    "s3.csa:1": S3_SFEN,
    "s3.kif:1": S3_SFEN,
    "s3.sfen:1": S3_SFEN,
    "tanuki.tsv:2": "9/7Sk/1+R7/9/9/9/9/9/9 b r2b4g3s4n4l18p 1",
    "tanuki.tsv:3": "9/8k/9/7RG/9/9/9/9/9 b r2b3g4s4n4l18p 1",
    "tanuki.tsv:4": "9/9/8k/7R1/7G1/9/9/9/9 b r2b3g4s4n4l18p 1",
    "zukou-002.sfen:1": "9/9/3B3G1/6+p1n/7+p1/7k1/5BL1p/7G1/7+R+r b N2P2g4s2n3l13p 1",
}
# 作意 move lists carried by the sample files themselves.
SAMPLE_MOVES = {
    "s3.kif:1": ["P*1b", "1a1b", "L*1c"],
    "s3.csa:1": ["P*1b", "1a1b", "L*1c"],
    "mudaai.csa:2": ["5i5a+"],
    "marken-foo-3te-01.kif:1": ["S*5c", "5b4a", "G*4b"],
}
# ... which end in mate only once futile interpositions (無駄合) are set aside: the
# defender's remaining legal moves are all drops between the slider and the king.
FUTILE_END = {"mudaai.csa:2": {"2a", "3a", "4a"}}
VERDICT_PREFIXES = ("完全作", "詰み ", "不詰", "不明 / unknown")


def run(*args, input=None):
    """Invoke the CLI in-process; stdout and stderr kept apart (click 8.1 and 8.2+)."""
    try:
        runner = CliRunner(mix_stderr=False)
    except TypeError:
        runner = CliRunner()
    result = runner.invoke(cli, [str(a) for a in args], input=input, catch_exceptions=True)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def run_module(*args, input=None, cwd=ROOT):
    """``python -m tsume ARGS`` in a subprocess (the real streams, real exit code)."""
    env = dict(os.environ)
    env.pop("TSUME_DEBUG", None)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "tsume", *map(str, args)], input=input,
                          capture_output=True, cwd=cwd, env=env, timeout=600)


def rel(source):
    """'problems/s3.kif:1' style source -> 's3.kif:1'."""
    return Path(source).name if ":" not in source else (
        Path(source.rsplit(":", 1)[0]).name + ":" + source.rsplit(":", 1)[1])


def check_record(rec):
    """A JSON object of `solve`: exact keys, and a self-consistent answer."""
    assert tuple(rec) == JSON_KEYS
    assert rec["status"] in ("mate", "nomate", "unknown", "error")
    assert isinstance(rec["moves"], list) and isinstance(rec["yozume"], list)
    assert isinstance(rec["komaamari"], bool) and isinstance(rec["nodes"], int)
    solver_time = rec["seconds"]                 # a number; its value is not checked
    assert isinstance(solver_time, (int, float)) and isinstance(rec["kifu"], str)
    if rec["status"] == "error":
        assert rec["error"] and rec["moves"] == [] and rec["length"] is None
        return
    assert rec["error"] is None
    assert Position.from_sfen(rec["sfen"]).sfen() == rec["sfen"]
    if rec["status"] == "mate":
        assert rec["length"] == len(rec["moves"]) and rec["length"] % 2 == 1
        pos = Position.from_sfen(rec["sfen"])
        for i, m in enumerate(rec["moves"]):
            if i % 2 == 0:
                assert m in pos.check_moves(), (rec["source"], i, m)
            pos.push_usi(m)
        if rec["length"] == rec["strict_length"]:
            assert pos.is_mate()
        else:                                    # ends by the 無駄合 rule
            from tsume.lines import only_interpositions_left
            assert rec["length"] < rec["strict_length"]
            assert pos.is_mate() or only_interpositions_left(pos)
        assert rec["kifu"].startswith("▲") or rec["kifu"].startswith("△")
        assert rec["kifu"].count("　") == rec["length"] - 1
    else:
        assert rec["length"] is None and rec["moves"] == [] and rec["kifu"] == ""


# ---------------------------------------------------------------- help and version
@pytest.mark.parametrize("args", [["--help"], ["solve", "--help"], ["show", "--help"], ["-h"]])
def test_help(args):
    result = run(*args)
    assert result.exit_code == 0
    assert "Usage:" in result.stdout
    if "solve" in args:
        for word in ("--format", "--defender-hand", "--time-limit", "--nodes", "--hash", "jsonl"):
            assert word in result.stdout
    if "solve" in args or "show" in args:
        from tsume.formats import MAX_INPUT_BYTES
        assert f"up to {MAX_INPUT_BYTES >> 20} MB" in " ".join(result.stdout.split())


def test_version():
    result = run("--version")
    assert result.exit_code == 0
    assert result.stdout.startswith("tsume ") and len(result.stdout.split()) == 2


def test_python_dash_m_and_light_import():
    proc = run_module("--help")
    assert proc.returncode == 0 and b"solve" in proc.stdout and b"show" in proc.stdout
    # --help must not pay for numba: the CLI module imports only click at load time.
    probe = subprocess.run([sys.executable, "-c",
                            "import sys, tsume.cli; print('numba' in sys.modules)"],
                           capture_output=True, text=True, cwd=ROOT,
                           env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert probe.stdout.strip() == "False", probe.stderr


def test_no_paths_is_usage_error():
    result = run("solve")
    assert result.exit_code == 2


# ---------------------------------------------------------------- the sample set
def test_show_samples():
    result = run("show", PROBLEMS)
    assert result.exit_code == 0, result.stderr
    assert "Traceback" not in result.stdout
    blocks = result.stdout.strip().split("\n\n")
    seen = {}
    for block in blocks:
        lines = block.splitlines()
        sfen = [ln[5:] for ln in lines if ln.startswith("sfen ")]
        assert len(sfen) == 1, block
        assert any(ln.startswith("+---") for ln in lines)
        seen[rel(lines[0])] = sfen[0]
    assert seen == SAMPLES


def test_samples_carry_their_solutions():
    """The 作意 move lists in the sample files are read and replay to mate."""
    from tsume.formats import read_problems
    found = {}
    for path in sorted(PROBLEMS.iterdir()):
        if path.suffix in (".kif", ".csa", ".sfen", ".tsv"):
            for problem in read_problems(path):
                assert problem.error is None, (problem.source, problem.error)
                assert problem.warnings == [], (problem.source, problem.warnings)
                if problem.metadata.get("moves"):
                    found[rel(problem.source)] = problem.metadata["moves"]
                    pos = problem.position.copy()
                    for m in problem.metadata["moves"]:
                        pos.push_usi(m)
                    futile = FUTILE_END.get(rel(problem.source))
                    if futile is None:
                        assert pos.is_mate(), problem.source
                    else:
                        replies = pos.legal_moves()
                        assert pos.is_check() and replies
                        assert all(m[1] == "*" and m[2:] in futile for m in replies), replies
    assert found == SAMPLE_MOVES


def test_solve_text():
    result = run("solve", PROBLEMS / "s3.sfen", PROBLEMS / "s3.csa")
    assert result.exit_code == 0, result.stderr
    blocks = result.stdout.strip().split("\n\n")
    assert len(blocks) == 2
    for block, name in zip(blocks, ("s3.sfen:1", "s3.csa:1")):
        lines = block.splitlines()
        assert rel(lines[0]) == name
        assert "|" in block and "v玉" in block and "先手の持駒：香　歩" in block
        assert "▲１二歩　△同玉　▲１三香　まで3手詰" in lines
        assert "USI: P*1b 1a1b L*1c" in lines
        assert "完全作 / complete: mate in 3" in lines


def test_strict_exit_code_and_jobs(tmp_path):
    """--strict: 3 when a problem is not a complete work (S-komaamari with a pawn added
    that stays in hand); --jobs 2 answers the same as one process."""
    (tmp_path / "flawed.sfen").write_text("8k/6G2/9/9/9/9/9/9/7R1 b P 1\n", encoding="utf-8")
    assert run("solve", "--strict", PROBLEMS / "s3.sfen").exit_code == 0
    result = run("solve", "--strict", "-f", "jsonl", tmp_path / "flawed.sfen")
    assert result.exit_code == 3, result.stderr
    rec = json.loads(result.stdout)
    assert rec["komaamari"] and rec["leftover"] == {"P": 1} and not rec["complete"]
    one = run("solve", "-f", "json", "--no-yozume", PROBLEMS)
    two = run("solve", "-f", "json", "--no-yozume", "--jobs", "2", PROBLEMS)
    assert one.exit_code == two.exit_code == 0, two.stderr
    key = lambda r: r["source"]
    strip = lambda recs: [{k: v for k, v in r.items() if k not in ("nodes", "seconds")}
                          for r in sorted(recs, key=key)]
    assert strip(json.loads(one.stdout)) == strip(json.loads(two.stdout))


def test_solve_json_all_samples():
    result = run("solve", "--format", "json", "--nodes", "200000", PROBLEMS)
    assert result.exit_code == 0, result.stderr
    records = json.loads(result.stdout)
    assert isinstance(records, list) and len(records) == len(SAMPLES)
    assert {rel(r["source"]): r["sfen"] for r in records} == SAMPLES
    for rec in records:
        check_record(rec)
        assert rec["status"] != "error"
    # Directory order is sorted.
    assert [r["source"] for r in records] == sorted(r["source"] for r in records)


def test_solve_jsonl():
    result = run("solve", "-f", "jsonl", "--time-limit", "30", PROBLEMS / "tanuki.tsv",
                 PROBLEMS / "s3.kif")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 4
    records = [json.loads(line) for line in lines]
    assert [rel(r["source"]) for r in records] == ["tanuki.tsv:2", "tanuki.tsv:3",
                                                   "tanuki.tsv:4", "s3.kif:1"]
    for rec in records:
        check_record(rec)


def test_solve_usi():
    result = run("solve", "-f", "usi", PROBLEMS / "s3.sfen", PROBLEMS / "mudaai.csa")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 2
    for line, name in zip(lines, ("s3.sfen:1", "mudaai.csa:2")):
        source, answer = line.split("\t")
        assert rel(source) == name
        assert answer.startswith("checkmate ")
        assert answer in ("checkmate nomate", "checkmate timeout") or answer.split()[1:]


def test_solve_kif_reads_back(tmp_path):
    result = run("solve", "-f", "kif", PROBLEMS / "s3.csa")
    assert result.exit_code == 0, result.stderr
    out = tmp_path / "s3-answer.kifu"
    out.write_text(result.stdout, encoding="utf-8")
    assert "後手の持駒：飛　角二　金四　銀四　桂四　香三　歩十七" in result.stdout
    shown = run("show", out)
    assert shown.exit_code == 0, shown.stderr
    assert f"sfen {S3_SFEN}" in shown.stdout.splitlines()
    rec = json.loads(run("solve", "-f", "jsonl", PROBLEMS / "s3.csa").stdout)
    if rec["moves"]:     # the main line went into the KIF and is read back as its 作意
        assert f"作意 ({rec['length']}手)：{rec['kifu']}" in shown.stdout.splitlines()
    else:
        assert "作意" not in shown.stdout
    # Two problems -> two KIF records, both readable.
    result = run("solve", "-f", "kif", PROBLEMS / "s3.sfen", PROBLEMS / "mudaai.csa")
    both = tmp_path / "both.kifu"
    both.write_text(result.stdout, encoding="utf-8")
    shown = run("show", both)
    assert shown.exit_code == 0, shown.stderr
    sfens = [ln[5:] for ln in shown.stdout.splitlines() if ln.startswith("sfen ")]
    assert sfens == [S3_SFEN, MUDAAI_SFEN]


def test_stdin():
    result = run("solve", "-f", "jsonl", "-", input="8k/9/9/7+R1/9/9/9/9/9 b LP 1\n")
    assert result.exit_code == 0, result.stderr
    rec = json.loads(result.stdout)
    check_record(rec)
    assert rec["source"] == "-:1" and rec["sfen"] == S3_SFEN


def test_defender_hand_policies(tmp_path):
    literal = run("show", "--defender-hand", "literal", PROBLEMS / "s3.sfen")
    assert literal.exit_code == 0
    assert "sfen 8k/9/9/7+R1/9/9/9/9/9 b LP 1" in literal.stdout.splitlines()
    partial = tmp_path / "partial.sfen"
    partial.write_text("8k/9/9/7+R1/9/9/9/9/9 b LPg 1\n")
    auto = run("show", partial)
    assert auto.exit_code == 0
    assert "sfen 8k/9/9/7+R1/9/9/9/9/9 b LPg 1" in auto.stdout.splitlines()
    assert auto.stderr.count(": warning: ") == 1      # pieces left in the box
    assert run("show", "-q", partial).stderr == ""
    rest = run("show", "--defender-hand", "rest", partial)
    assert f"sfen {S3_SFEN}" in rest.stdout.splitlines()


# ---------------------------------------------------------------- errors
S3_KIF = (PROBLEMS / "s3.kif").read_bytes().decode("cp932").replace("\r\n", "\n")
S3_CSA = (PROBLEMS / "s3.csa").read_text(encoding="utf-8")
S3_LINE = "8k/9/9/7+R1/9/9/9/9/9 b LP 1\n"

BROKEN = {
    "truncated.sfen": "8k/9/9/7+R1/9/9 b LP 1\n",
    "truncated.kifu": "\n".join(S3_KIF.splitlines()[:9]) + "\n",
    "truncated.csa": S3_CSA[:S3_CSA.index("P5") + 7],
    "too_many_rooks.sfen": "8k/9/9/7+R1/9/9/9/9/9 b 2RLP 1\n",
    "bad_kanji.kifu": S3_KIF.replace("龍", "猫"),
    "nifu.sfen": "8k/9/9/7+R1/9/9/7P1/7P1/9 b LP 1\n",
    "dead_pawn.sfen": "7Pk/9/9/7+R1/9/9/9/9/9 b LP 1\n",
    "dead_knight_white.sfen": "8k/9/9/7+R1/9/9/9/9/7n1 b LP 1\n",
    "garbage.kif": bytes(range(256)) * 8,
    "empty.sfen": "",
    "huge_line.sfen": "8k/9/9/7+R1/9/9/9/9/" + "9" * 1_000_000 + " b LP 1\n",
    "bad_hand.kifu": S3_KIF.replace("先手の持駒：香　歩", "先手の持駒：香　猫"),
    "unknown_token.csa": S3_CSA.replace("+RY", "+XX"),
    "short_row.csa": S3_CSA.replace("P5 *  *  *  *  *  *  *  *  * ", "P5 *  *  * "),
    "missing_king.sfen": "9/9/9/7+R1/9/9/9/9/9 b LP 1\n",
    "two_kings.sfen": "7kk/9/9/7+R1/9/9/9/9/9 b LP 1\n",
    "defender_in_check.sfen": "8k/9/9/8R/9/9/9/9/9 b LP 1\n",
    "attacker_in_check.sfen": "8k/9/9/7+R1/9/9/9/9/r7K b LP 1\n",
    "bad_side.sfen": "8k/9/9/7+R1/9/9/9/9/9 x LP 1\n",
    "bad_hand_count.sfen": "8k/9/9/7+R1/9/9/9/9/9 b L19P 1\n",
    "promoted_gold.sfen": "8k/9/9/7+G1/9/9/9/9/9 b LP 1\n",
    "illegal_move.sfen": "8k/9/9/7+R1/9/9/9/9/9 b LP 1 moves 1a2a\n",
    "short_rank.kifu": S3_KIF.replace("| ・ ・ ・ ・ ・ ・ ・ 龍 ・|四", "| ・ ・ ・ 龍 ・|四"),
    "rest_for_attacker.kifu": S3_KIF.replace("先手の持駒：香　歩", "先手の持駒：残り全部"),
    "prose.txt": "hello world, this is not a problem\n",
    "latin1.kifu": S3_KIF.encode("utf-8").replace("龍".encode(), b"\xe9\xe9\xe9"),
    # Numbers past int()'s 4,300-digit limit.
    "huge_hand_count.sfen": "8k/9/9/7+R1/9/9/9/9/9 b " + "1" * 5000 + "P 1\n",
    "huge_move_number.kifu": S3_KIF.replace("\n   1 ", "\n" + "1" * 5000 + " "),
}


def write_broken(tmp_path):
    """(paths to pass, [paths expected in one error line each])."""
    bad = []
    for name, content in BROKEN.items():
        path = tmp_path / name
        path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
        bad.append(path)
    mixed = tmp_path / "mixed_dir"
    (mixed / "sub").mkdir(parents=True)
    (mixed / "sub" / "bad.sfen").write_text("8k/9/9/7+R1/9/9/9/9/9 b LP x\n")
    (mixed / "good.sfen").write_text(S3_LINE)
    (mixed / "notes.md").write_text("not a problem file: skipped\n")
    empty_dir = tmp_path / "empty_dir"
    empty_dir.mkdir()
    missing = tmp_path / "does_not_exist.sfen"
    fifo = tmp_path / "fifo.sfen"       # would block the run if it were opened
    os.mkfifo(fifo)
    devices = [Path("/dev/zero")] if os.path.exists("/dev/zero") else []    # endless
    args = bad + [empty_dir, missing, fifo, *devices, mixed]
    return args, bad + [empty_dir, missing, fifo, *devices, mixed / "sub" / "bad.sfen"]


def test_broken_inputs_one_line_each(tmp_path):
    args, bad = write_broken(tmp_path)
    assert len(bad) >= 20
    proc = run_module("solve", "--format", "json", "--nodes", "20000",
                      *args[:len(args) // 2], PROBLEMS / "s3.sfen", *args[len(args) // 2:])
    stdout, stderr = proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8")
    assert "Traceback" not in stdout and "Traceback" not in stderr
    assert proc.returncode == 2, stderr
    errors = [ln for ln in stderr.splitlines() if ": warning: " not in ln]
    assert len(errors) == len(bad), stderr
    for path in bad:
        mine = [ln for ln in errors if ln.startswith(str(path))
                and ln[len(str(path))] in ":#"]
        assert len(mine) == 1, (path, stderr)
        assert len(mine[0]) < 600 and "internal error" not in mine[0], mine[0]
        message = mine[0][len(str(path)):].lstrip(":#0123456789").strip()
        assert message, mine[0]
    records = json.loads(stdout)
    by_status = {}
    for rec in records:
        check_record(rec)
        by_status.setdefault(rec["status"] == "error", []).append(rec)
    assert len(by_status[True]) == len(bad)
    good = by_status[False]
    assert sorted(rel(r["source"]) for r in good) == ["good.sfen:1", "s3.sfen:1"]
    assert all(r["sfen"] == S3_SFEN for r in good)


def test_broken_inputs_show_and_jsonl(tmp_path):
    args, bad = write_broken(tmp_path)
    shown = run("show", PROBLEMS / "s3.kif", *args)
    assert shown.exit_code == 2
    assert len([ln for ln in shown.stderr.splitlines() if ": warning: " not in ln]) == len(bad)
    assert shown.stdout.count("\nsfen ") == 2
    streamed = run("solve", "-f", "jsonl", *args[:-1], PROBLEMS / "s3.sfen")
    assert streamed.exit_code == 2
    records = [json.loads(line) for line in streamed.stdout.splitlines()]
    assert len(records) == len(args)
    assert [r["status"] == "error" for r in records] == [True] * (len(args) - 1) + [False]


def test_huge_numbers_cost_only_their_problem(tmp_path):
    """A count or move number past int()'s digit limit is that problem's error, with its
    line; the problems after it in the same file are still read (show and solve)."""
    sfen = tmp_path / "huge.sfen"
    sfen.write_text(BROKEN["huge_hand_count.sfen"] + S3_LINE, encoding="utf-8")
    kif = tmp_path / "huge.kifu"
    kif.write_text(BROKEN["huge_move_number.kifu"] + "\n" + S3_KIF, encoding="utf-8")
    lineno = 1 + next(i for i, ln in enumerate(BROKEN["huge_move_number.kifu"].splitlines())
                      if ln.startswith("1" * 5000))
    shown = run("show", sfen, kif)
    assert shown.exit_code == 2, shown.stderr
    assert shown.stderr.splitlines() == [
        f"{sfen}:1: bad count 11111 in SFEN hands",
        f"{kif}:1: line {lineno}: move number 111111111111… is too long"]
    assert [ln[5:] for ln in shown.stdout.splitlines() if ln.startswith("sfen ")] == [S3_SFEN] * 2
    solved = run("solve", "-f", "jsonl", sfen, kif)
    assert solved.exit_code == 2, solved.stderr
    records = [json.loads(line) for line in solved.stdout.splitlines()]
    assert sorted((rel(r["source"]), r["status"] == "error") for r in records) == [
        ("huge.kifu:1", True), ("huge.kifu:26", False), ("huge.sfen:1", True), ("huge.sfen:2", False)]


def test_unreadable_directory_is_reported(tmp_path, monkeypatch):
    """A directory that cannot be read (chmod 000 for a user; root reads anyway, so the
    error is injected) gives one line and exit 2; the rest of the tree is still read."""
    top = tmp_path / "top"
    for sub in ("a", "locked", "z"):
        (top / sub).mkdir(parents=True)
        (top / sub / "p.sfen").write_text(S3_LINE)
    locked, scandir = str(top / "locked"), os.scandir

    def failing_scandir(path="."):
        if os.fspath(path) == locked:
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return scandir(path)

    monkeypatch.setattr(os, "scandir", failing_scandir)
    result = run("show", top)
    assert result.exit_code == 2
    assert result.stderr == f"{locked}: cannot read: Permission denied\n"
    assert [ln for ln in result.stdout.splitlines() if ln.startswith(str(top))] == [
        f"{top / 'a' / 'p.sfen'}:1", f"{top / 'z' / 'p.sfen'}:1"]
    only = run("solve", "-f", "jsonl", top / "locked")
    assert only.exit_code == 2 and only.stderr == f"{locked}: cannot read: Permission denied\n"
    assert json.loads(only.stdout)["source"] == locked


def test_unreadable_file_is_reported(tmp_path, monkeypatch):
    """The same for a file (the error injected for root): one line, the rest still read."""
    import tsume.formats
    for sub in ("a", "b"):
        (tmp_path / sub).mkdir()
        (tmp_path / sub / "p.sfen").write_text(S3_LINE)
    unreadable = str(tmp_path / "a" / "p.sfen")

    def failing_open(file, *args, **kwargs):
        if os.fspath(file) == unreadable:
            raise PermissionError(13, "Permission denied", os.fspath(file))
        return open(file, *args, **kwargs)

    monkeypatch.setattr(tsume.formats, "open", failing_open, raising=False)
    result = run("show", tmp_path)
    assert result.exit_code == 2
    assert result.stderr == f"{unreadable}: cannot read file: Permission denied\n"
    assert result.stdout.count("\nsfen ") == 1


def test_special_files_and_size_limit(tmp_path, monkeypatch):
    """A FIFO would block the whole run (and /dev/zero fill the memory): a path that is not
    a regular file is refused at once, and an input past MAX_INPUT_BYTES (stdin too) is
    refused after reading no more than that."""
    import tsume.formats
    fifo = tmp_path / "p.sfen"
    os.mkfifo(fifo)
    proc = run_module("solve", "-f", "usi", fifo, "/dev/zero", PROBLEMS / "s3.sfen")
    assert proc.returncode == 2
    assert proc.stderr.decode().splitlines() == [f"{fifo}: not a regular file",
                                                 "/dev/zero: not a regular file"]
    assert proc.stdout.decode().endswith("\tcheckmate P*1b 1a1b L*1c\n")
    (tmp_path / "d").mkdir()
    os.mkfifo(tmp_path / "d" / "q.kif")
    result = run("show", tmp_path / "d")
    assert result.exit_code == 2
    assert result.stderr == f"{tmp_path / 'd' / 'q.kif'}: not a regular file\n"

    big = tmp_path / "big.sfen"
    big.write_text(S3_LINE * 100)
    monkeypatch.setattr(tsume.formats, "MAX_INPUT_BYTES", len(S3_LINE) * 100 - 1)
    result = run("show", big, "-", input=S3_LINE * 100)
    assert result.exit_code == 2
    limit = f"larger than {(len(S3_LINE) * 100 - 1) >> 20} MB, the limit of one input"
    assert result.stderr.splitlines() == [f"{big}: {limit}", f"-: {limit}"]
    monkeypatch.setattr(tsume.formats, "MAX_INPUT_BYTES", len(S3_LINE) * 100)
    result = run("show", big, "-", input=S3_LINE * 100)
    assert result.exit_code == 0 and result.stdout.count("\nsfen ") == 200


@pytest.mark.parametrize("jobs,files", [("1", 2), ("2", 2), ("2", 1)])
def test_answers_stream_before_the_last_input_is_read(jobs, files):
    """Problems are solved as they are read: the answers to the files come while stdin,
    the last input, is still open (with --jobs too, also when one problem is held back
    to see whether a worker is worth starting)."""
    import select
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("TSUME_DEBUG", None)
    proc = subprocess.Popen([sys.executable, "-m", "tsume", "solve", "-j", jobs, "-f", "usi",
                             *[PROBLEMS / "s3.sfen", PROBLEMS / "s3.csa"][:files], "-"],
                            cwd=ROOT, env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)     # its workers go with it on failure
    try:
        # Raw reads: both answers may come in one write, and a buffered readline would
        # take the second into its buffer, where select() does not see it.
        early = b""
        while early.count(b"\n") < files and select.select([proc.stdout], [], [], 300)[0]:
            chunk = os.read(proc.stdout.fileno(), 1 << 16)
            if not chunk:
                break
            early += chunk
        lines = early.decode().splitlines()
        assert sorted(rel(ln.split("\t")[0]) for ln in lines) == ["s3.csa:1", "s3.sfen:1"][-files:]
        out, err = proc.communicate(S3_LINE.encode(), timeout=300)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, 9)
        proc.wait()
    assert proc.returncode == 0, err
    assert out.decode() == "-:1\tcheckmate P*1b 1a1b L*1c\n"


def test_hash_that_cannot_be_had_is_a_usage_error(tmp_path, monkeypatch):
    """A table too large for the memory (each --jobs worker has its own) fails every
    problem with MemoryError, and a huge size with OverflowError: one usage line and exit 2
    instead, before any input is read (the missing path gets no line)."""
    import tsume.tt
    from tsume.cli import MAX_HASH_MB
    monkeypatch.setattr(tsume.tt, "available_bytes", lambda: 1000 * 1024 * 1024)
    missing = tmp_path / "missing.sfen"
    for args, message in [
            (["--hash", "2000"], "--hash 2000: a 2000 MB hash table does not fit in the memory "
                                "available (1000 MB free, 200 MB kept for the rest); at most 798 MB"),
            (["--hash", "600", "--jobs", "2"],
             "--hash 600 with --jobs 2: 2 tables do not fit in the memory available (1000 MB "
             "free, 200 MB kept for each process); at most --hash 298"),
            (["--hash", "1", "--jobs", "5"], "--hash 1 with --jobs 5: 5 tables do not fit in the "
             "memory available (1000 MB free, 200 MB kept for each process); use fewer --jobs"),
            (["--hash", "99999999999999999999"],
             f"--hash 99999999999999999999: at most {MAX_HASH_MB} MB")]:
        result = run("solve", *args, missing, PROBLEMS / "s3.sfen")
        assert (result.exit_code, result.stderr, result.stdout) == (2, f"tsume: {message}\n", "")
    monkeypatch.setattr(tsume.tt, "available_bytes", lambda: None)    # unknown: no check
    assert run("solve", "--hash", str(MAX_HASH_MB + 1), PROBLEMS / "s3.sfen").exit_code == 2
    monkeypatch.setattr(tsume.tt, "available_bytes", lambda: 1000 * 1024 * 1024)
    result = run("solve", "-f", "usi", "--hash", "256", "--jobs", "2", PROBLEMS / "s3.sfen")
    assert result.exit_code == 0 and result.stdout.endswith("\tcheckmate P*1b 1a1b L*1c\n")


def test_huge_node_budgets_are_clamped(monkeypatch):
    """--nodes and --yozume-nodes reach the compiled search as int64: past MAX_NODES they
    count as MAX_NODES (no OverflowError), and the solve goes through."""
    from tsume.limits import MAX_NODES
    huge = "9" * 20
    result = run("solve", "-f", "jsonl", "--nodes", huge, "--yozume-nodes", huge, PROBLEMS / "s3.sfen")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["complete"]
    import tsume.pipeline
    from tsume.result import Result
    seen = {}

    def recording(position, **kwargs):
        seen.update(kwargs)
        return Result(status="unknown", reason="test")

    monkeypatch.setattr(tsume.pipeline, "solve", recording)
    assert run("solve", "--nodes", huge, "--yozume-nodes", huge, PROBLEMS / "s3.sfen").exit_code == 0
    assert seen["nodes"] == seen["yozume_nodes"] == MAX_NODES < 2 ** 63
    assert run("solve", "--nodes", "0", PROBLEMS / "s3.sfen").exit_code == 2


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e999", "0"])
def test_time_limit_must_be_finite(value):
    """nan and inf passed FloatRange and meant no limit at all."""
    result = run("solve", "--time-limit", value, PROBLEMS / "s3.sfen")
    assert result.exit_code == 2 and result.stdout == ""
    assert "Invalid value for '--time-limit'" in result.stderr


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("args", [["solve"], ["solve", "-f", "json"], ["show"]])
def test_full_disk(args):
    """A full disk is one line and exit 4, not "internal error: OSError" and exit 1."""
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "tsume", *args, PROBLEMS / "s3.sfen",
                               PROBLEMS / "s3.csa"], stdout=full, stderr=subprocess.PIPE,
                              cwd=ROOT, timeout=600)
    assert proc.returncode == 4
    assert proc.stderr.decode() == "tsume: cannot write output: No space left on device\n"


@pytest.mark.parametrize("args", [["solve", "-f", "jsonl"], ["solve", "-j", "2", "-f", "usi"],
                                  ["show"]])
def test_closed_pipe_ends_quietly(args):
    """A reader that went away (tsume solve ... | head -1) ends the run like SIGPIPE would:
    status 141, nothing on stderr (no "Exception ignored" from the exit-time flush)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = subprocess.run([sys.executable, "-m", "tsume", *args, PROBLEMS / "s3.sfen",
                               PROBLEMS], stdout=write_end, stderr=subprocess.PIPE,
                              cwd=ROOT, timeout=600)
    finally:
        os.close(write_end)
    assert (proc.returncode, proc.stderr) == (141, b"")


def test_missing_path_is_not_a_usage_error(tmp_path):
    missing = tmp_path / "nope.kif"
    result = run("solve", "-f", "jsonl", missing)
    assert result.exit_code == 2
    assert result.stderr == f"{missing}: no such file or directory\n"
    rec = json.loads(result.stdout)
    assert rec["status"] == "error" and rec["source"] == str(missing) and rec["sfen"] is None


def test_internal_error_is_contained(monkeypatch):
    import tsume.pipeline
    from tsume.result import Result

    calls = []

    def exploding(position, **kwargs):
        calls.append(position.sfen())
        if len(calls) == 1:
            raise RuntimeError("boom\nsecond line")
        return Result(status="unknown", reason="test")

    monkeypatch.setattr(tsume.pipeline, "solve", exploding)
    result = run("solve", "-f", "jsonl", PROBLEMS / "s3.sfen", PROBLEMS / "s3.csa")
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"{PROBLEMS / 's3.sfen'}:1: internal error: RuntimeError: boom second line"]
    first, second = (json.loads(line) for line in result.stdout.splitlines())
    assert first["status"] == "error" and first["error"].startswith("internal error")
    assert first["sfen"] == S3_SFEN
    assert second["status"] == "unknown"


def test_first_run_says_it_compiles(monkeypatch):
    """A cold numba cache makes the first solve compile for ~30 s: stderr says so once,
    before solving, to a terminal (not with -q, not to a script, never on stdout); a
    warm cache says nothing."""
    import tsume.cli
    import tsume.solver

    run("solve", "-f", "usi", PROBLEMS / "s3.sfen")     # compiles it if nothing did yet
    assert tsume.solver.search_is_compiled()
    monkeypatch.setattr(tsume.cli, "_stderr_is_terminal", lambda: True)
    assert run("solve", "-f", "usi", PROBLEMS / "s3.sfen").stderr == ""
    monkeypatch.setattr(tsume.solver, "search_is_compiled", lambda: False)
    result = run("solve", "-f", "usi", PROBLEMS / "s3.sfen")
    assert result.exit_code == 0
    assert result.stderr.splitlines() == [
        "tsume: first run: compiling the solver for this machine (about 40-60 s, once)"]
    assert result.stdout.strip().endswith("checkmate P*1b 1a1b L*1c")
    assert run("solve", "-q", "-f", "usi", PROBLEMS / "s3.sfen").stderr == ""
    monkeypatch.setattr(tsume.cli, "_stderr_is_terminal", lambda: False)
    assert run("solve", "-f", "usi", PROBLEMS / "s3.sfen").stderr == ""
