"""Progress on stderr for a command's long work (the guide: progress on work longer than a
second): on a terminal one line, rewritten; elsewhere (a CI log, a pipe) a line every
LOG_EVERY seconds once the work has taken that long. It never changes what the work
decides."""

from __future__ import annotations

import sys
import time

LOG_EVERY = 10.0  # seconds between two progress lines when stderr is not a terminal


class Progress:
    """Progress on stderr once the run exceeds 1 s (a terminal) or LOG_EVERY s (a log)."""

    def __init__(self, label: str, *, enabled: bool = True) -> None:
        self.label = label
        self.start = time.monotonic()
        self.last = 0.0
        self.shown = False
        self.enabled = enabled
        self.tty = enabled and sys.stderr.isatty()

    def __call__(self, msg: str) -> None:
        now = time.monotonic()
        if self.enabled and not self.tty and now - max(self.start, self.last) >= LOG_EVERY:
            self.last = now
            sys.stderr.write(f"{self.label}: {msg} ({now - self.start:.0f} s)\n")
            sys.stderr.flush()
        if not self.tty:
            return
        if now - self.start < 1.0 or now - self.last < 0.2:
            return
        self.last = now
        self.shown = True
        sys.stderr.write(f"\r\x1b[K{self.label}: {msg} ({now - self.start:.0f} s)")
        sys.stderr.flush()

    def clear(self) -> None:
        if self.shown or self.tty:  # the model's child process may have written
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()
