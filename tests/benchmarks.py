"""The benchmark sets the tests read (found as bench/sets.py says) and the one skip
message, naming the command that un-skips it."""

from __future__ import annotations

import pytest

from bench.sets import absent, bench_dir

PAPER = bench_dir("paper")
SCALE = bench_dir("scale")
needs_paper = pytest.mark.skipif(not (PAPER / "expected.json").is_file(), reason=absent("paper"))
needs_scale = pytest.mark.skipif(not (SCALE / "expected.json").is_file(), reason=absent("scale"))

__all__ = ["PAPER", "SCALE", "absent", "needs_paper", "needs_scale"]
