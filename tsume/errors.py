"""Exceptions with messages meant for users (one line, no traceback)."""


class TsumeError(Exception):
    """Base class of errors that the CLI reports as one line."""


class PositionError(TsumeError, ValueError):
    """A position that is not a valid problem (SPEC §3.4)."""


class FormatError(TsumeError, ValueError):
    """Input text that cannot be read as a problem; ``line`` is 1-based when known."""

    def __init__(self, message, line=None):
        super().__init__(message)
        self.line = line
