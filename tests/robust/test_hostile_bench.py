"""Issue 39, item 8: every case of bench/bench_hostile.py, at a short --timeout, ends with
an exit code its promise allows, without a traceback, under the memory cap. (How long
each takes is the bench's table, not a test's assertion.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.bench_hostile import CASES, MEMORY_LIMIT_KB, Case, run_case


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_each_hostile_input_keeps_the_promise(case: Case, tmp_path: Path) -> None:
    row = run_case(case, tmp_path, 3.0)
    assert row.code in case.codes, row.message
    assert not row.traceback, row.message
    assert row.peak_kb < MEMORY_LIMIT_KB
