"""The prover's front end and the checker's own re-implementation (checker/model.py)
must give the same NS, name for name (docs/naming.md: byte-for-byte agreement)."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings

from prover.errors import SerError, StateBoundError
from prover.frontend.load import load_model, load_source
from tests.benchmarks import PAPER, absent

from .strategies import PRELUDES, PROGRAMS

model = pytest.importorskip("checker.semantics")

BENCH = PAPER
NAMES = sorted(
    p.name for p in BENCH.glob("*.*") if p.suffix in (".ser", ".json") and p.name != "expected.json"
)


def _checker_ns(kind: str, text: str) -> tuple[object, ...]:
    ns = model.explore(model.semantics(kind, text))
    return (ns.initial, set(ns.requests), set(ns.responses), set(ns.transitions))


def _prover_ns(kind: str, text: str) -> tuple[object, ...]:
    ns = load_source(text, kind, state_bound=20_000, ns="closure").ns
    return (
        ns.initial_global,
        {(r.request, r.local) for r in ns.requests},
        {(r.local, r.response) for r in ns.responses},
        {(t.from_local, t.from_global, t.to_local, t.to_global) for t in ns.transitions},
    )


@pytest.mark.skipif(not NAMES, reason=absent("paper"))
@pytest.mark.parametrize("name", NAMES)
def test_same_ns_on_benchmarks(name: str) -> None:
    m = load_model(BENCH / name, ns="closure")
    kind = "ser" if m.kind == "ser" else "ns-json"
    assert _prover_ns(kind, m.source) == _checker_ns(kind, m.source)


@settings(
    max_examples=int(os.environ.get("SER_HYPOTHESIS_EXAMPLES", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(PRELUDES, PROGRAMS)
def test_same_ns_on_random_programs(prelude: str, requests: list[tuple[str, str]]) -> None:
    src = prelude + "\n".join(f"request {name} {{ {body} }}" for name, body in requests)
    try:
        mine = _prover_ns("ser", src)
    except StateBoundError:
        return  # the two front ends bound compilation differently
    except SerError:
        # Any other model error (division by zero, overflow, exit) is one for both.
        with pytest.raises(model.ModelError):
            _checker_ns("ser", src)
        return
    try:
        theirs = _checker_ns("ser", src)
    except model.ModelError as exc:
        assert "exceeds" in str(exc) or "explores more" in str(exc), str(exc)
        return
    assert mine == theirs
