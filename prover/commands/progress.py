"""One progress line on stderr for a command's long work (the guide: progress on work
longer than a second). Only on a terminal; it never changes what the work decides."""

from __future__ import annotations

import sys
import time


class Progress:
    """Progress on stderr, only when stderr is a terminal and the run exceeds 1 s."""

    def __init__(self, label: str, *, enabled: bool = True) -> None:
        self.label = label
        self.start = time.monotonic()
        self.last = 0.0
        self.shown = False
        self.tty = enabled and sys.stderr.isatty()

    def __call__(self, msg: str) -> None:
        if not self.tty:
            return
        now = time.monotonic()
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
