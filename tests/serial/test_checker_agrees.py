"""The independent checker (checker/obligations.py) accepts every component of S as
written by `serial_set_to_json`, on all 47 benchmarks (cross-implementation check)."""

from __future__ import annotations

import pytest
from sls_helpers import BENCH_DIR, benchmark_names, load_automaton, needs_bench

from prover.serial.parikh import compute_serial_set, serial_set_to_json


@needs_bench
@pytest.mark.parametrize("name", benchmark_names())
def test_checker_accepts_components(name: str) -> None:
    try:
        from checker.linear_sets import check_component
        from checker.semantics import explore, semantics
        from checker.serial_model import make_model
    except ImportError:  # pragma: no cover - checker not there
        pytest.skip("checker not available")
    path = BENCH_DIR / name
    kind = "ser" if path.suffix == ".ser" else "ns-json"
    m = make_model(explore(semantics(kind, path.read_text())))
    s = compute_serial_set(load_automaton(name))
    for i, comp in enumerate(serial_set_to_json(s)["components"]):  # type: ignore[arg-type]
        check_component(m, i, comp)
