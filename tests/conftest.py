"""Hypothesis runs derandomized by default, so the suite's outcome and running time do
not depend on the draw (a random draw once produced an automaton whose serial set took
~40 s). `HYPOTHESIS_PROFILE=explore` draws fresh random examples, for finding bugs."""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("fixed", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fixed"))
