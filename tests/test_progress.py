"""The status line of a long solve (progress.py, issue #47): the pipeline's progress hook,
the throttled line, and the CLI showing it on a terminal only."""
import io

from tsume import pipeline
from tsume.position import Position
from tsume.progress import StatusLine

from test_cli import PROBLEMS, S3_SFEN, run


def test_status_line_throttles_and_clears():
    stream = io.StringIO()
    line = StatusLine(stream, interval=1.0, min_width=0)
    line("proof", 1000, 0.3)
    line("proof", 5000, 0.9)
    assert stream.getvalue() == ""                 # the first second says nothing
    line("length", 2_000_000, 1.2)
    line("length", 2_100_000, 1.6)
    line("yozume", 3_500_000, 2.5)
    text = stream.getvalue()
    assert text.count("\r") == 2
    assert "length: 2,000,000 nodes, 1.7M nodes/s, 1 s" in text and "余詰: 3,500,000" in text
    line("done", 3_600_000, 2.6)
    assert stream.getvalue().endswith("\r" + " " * line_width(text) + "\r")
    line("proof", 10, 0.5)                         # the next problem starts afresh
    assert stream.getvalue().endswith("\r")


def line_width(text):
    from tsume.notation import display_width
    return max(display_width(part) for part in text.split("\r"))


def test_the_pipeline_reports_its_phases():
    calls = []
    pos = Position.from_sfen(S3_SFEN)
    result = pipeline.solve(pos, progress=lambda *a: calls.append(a), hash_mb=16)
    assert result.status == "mate"
    phases = [c[0] for c in calls]
    assert phases[0] == "proof" and phases[-1] == "done" and phases.count("done") == 1
    assert [p for p in ("length", "mudaai", "yozume") if p in phases] == ["length", "mudaai", "yozume"]
    assert [c[1] for c in calls] == sorted(c[1] for c in calls)     # nodes only grow
    assert calls[-1][1] == result.nodes


def test_cli_shows_the_status_line_on_a_terminal_only(monkeypatch):
    import tsume.cli
    import tsume.progress

    class Eager(StatusLine):
        def __init__(self, stream=None):
            super().__init__(stream, interval=0.0)

    monkeypatch.setattr(tsume.progress, "StatusLine", Eager)
    result = run("solve", PROBLEMS / "s3.sfen")
    assert "nodes/s" not in result.stderr
    monkeypatch.setattr(tsume.cli, "_stderr_is_terminal", lambda: True)
    result = run("solve", PROBLEMS / "s3.sfen")
    assert result.exit_code == 0
    assert "\rproof: " in result.stderr and "nodes/s" in result.stderr
    assert result.stderr.rstrip(" ").endswith("\r")          # cleared at the end
