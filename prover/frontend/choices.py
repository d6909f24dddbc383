"""The front end's choices and their defaults, apart from the code that uses them: the
command line reads them for its help text without importing the compiler."""

from __future__ import annotations

from typing import Literal

DEFAULT_STATE_BOUND = 100_000
"""Local × global states a Ser program's network system may have (--state-bound)."""

NsChoice = Literal["reachable", "closure"]
NS_CHOICES: tuple[NsChoice, ...] = ("reachable", "closure")
DEFAULT_NS: NsChoice = "reachable"
