"""The status line of a long solve on a terminal: what phase the problem is in, the
nodes so far, their rate and the time, rewritten in place about once a second.

``StatusLine`` is the callable that pipeline.solve's ``progress`` hook takes: it is
called at every phase and after every search slice (several times a second), writes at
most once per ``interval``, nothing during a problem's first ``interval`` (a short
problem leaves no trace), and blanks its line when the problem is done. The CLI gives
one only when standard error is a terminal.
"""
import sys
import unicodedata

LABELS = {"proof": "proof", "length": "length", "mudaai": "無駄合", "yozume": "余詰"}


def _width(text):
    return sum(2 if unicodedata.east_asian_width(ch) in "FW" else 1 for ch in text)


def rate_text(nodes, seconds):
    """``850k nodes/s``, ``1.2M nodes/s``."""
    rate = nodes / seconds if seconds > 0 else 0.0
    if rate >= 1e6:
        return f"{rate / 1e6:.1f}M nodes/s"
    if rate >= 1e3:
        return f"{rate / 1e3:.0f}k nodes/s"
    return f"{rate:.0f} nodes/s"


class StatusLine:
    """One problem's status on one line of `stream` (see the module)."""

    def __init__(self, stream=None, interval=1.0, min_width=48):
        self.stream = stream if stream is not None else sys.stderr
        self.interval = interval
        # The line also covers whatever the batch's own progress line left there.
        self.min_width = min_width
        self.shown = 0                  # columns written on the line, 0: none
        self.next_at = interval         # seconds into the problem of the next write

    @staticmethod
    def text(phase, nodes, seconds):
        return (f"{LABELS.get(phase, phase)}: {nodes:,} nodes, {rate_text(nodes, seconds)}, "
                f"{seconds:.0f} s")

    def __call__(self, phase, nodes, seconds):
        if phase == "done":
            self.clear()
            self.next_at = self.interval
            return
        if seconds < self.next_at:
            return
        self.next_at = seconds + self.interval
        line = self.text(phase, nodes, seconds)
        width = _width(line)
        pad = max(self.shown, self.min_width) - width
        self._write("\r" + line + " " * max(pad, 0))
        self.shown = max(width, self.shown, self.min_width)

    def clear(self):
        """Blank the line (the cursor back at its start), if anything was written."""
        if self.shown:
            self._write("\r" + " " * self.shown + "\r")
            self.shown = 0

    def _write(self, text):
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):   # a courtesy: a closed stderr stops nothing
            pass
