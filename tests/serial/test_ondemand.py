"""The serial automaton built on demand (prover/serial/ondemand.py) against the one built
from the whole network system: the same answer for every multiset, and the explicit
search on per-variable steps against the search on the NS: the same verdicts."""

from __future__ import annotations

import itertools

from hypothesis import HealthCheck, given, settings

from prover.engines.explicit import find_counterexample
from prover.errors import SerError
from prover.frontend.load import load_source
from prover.serial.automaton import build_serial_automaton
from prover.serial.membership import SerialMembership, make_multiset
from prover.serial.ondemand import SerialOnDemand
from tests.frontend.strategies import PRELUDES, PROGRAMS

# d1 of the paper's set: a state seen inside a request's run alone is no state a serial
# execution has reached yet (the first on-demand automaton took it for one).
D1 = """request foo { while (STOP == 1) { yield };
  if (X == 0) { X := 1 } else { if (X == 1) { X := 2 } else { X := 0 } }; yield;
  while (STOP == 1) { yield };
  if (X == 0) { X := 1 } else { if (X == 1) { X := 2 } else { X := 0 } };
  if (?) { STOP := 1; X } else { 0 } }"""


def _agree(source: str, most: int = 3, larger_first: bool = False) -> int:
    try:
        model = load_source(source, "ser", state_bound=2_000)
    except SerError:
        return 0
    assert model.steps is not None
    full = SerialMembership(build_serial_automaton(model.ns))
    lazy = SerialOnDemand(model.steps)
    pairs = sorted({(r.request, v) for r in model.ns.requests
                    for loc in model.ns.local_states for v in model.ns.responses_of.get(loc, ())})
    asked = 0
    sizes = range(most, 0, -1) if larger_first else range(1, most + 1)
    for n in sizes:  # smaller first: most answers extend an earlier one's walk by an edge
        for bag in itertools.combinations_with_replacement(pairs[:6], n):
            ms = make_multiset(bag)
            assert lazy.is_serial(ms) == full.is_serial(ms), (source, ms)
            asked += 1
    return asked


def test_a_state_inside_a_solo_run_is_no_serial_state() -> None:
    assert _agree(D1, 4) > 10
    model = load_source(D1, "ser")
    assert model.steps is not None
    assert SerialOnDemand(model.steps).is_serial(make_multiset([("foo", "0")] * 3))


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(PRELUDES, PROGRAMS)
def test_on_demand_membership_agrees(prelude: str, reqs: list[tuple[str, str]]) -> None:
    source = prelude + "\n".join(f"request {n} {{ {body} }}" for n, body in reqs)
    _agree(source)
    _agree(source, larger_first=True)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(PRELUDES, PROGRAMS)
def test_search_on_steps_agrees_with_search_on_the_ns(prelude: str,
                                                      reqs: list[tuple[str, str]]) -> None:
    source = prelude + "\n".join(f"request {n} {{ {body} }}" for n, body in reqs)
    try:
        model = load_source(source, "ser", state_bound=2_000)
    except SerError:
        return
    assert model.steps is not None
    on_ns = find_counterexample(model.ns, max_requests=3, initial_states=5_000,
                                max_states=5_000)
    on_steps = find_counterexample(model.steps, max_requests=3, initial_states=5_000,
                                   max_states=5_000)
    if on_ns.complete and on_steps.complete:
        assert (on_ns.counterexample is None) == (on_steps.counterexample is None), source
    for res in (on_ns, on_steps):
        if res.counterexample is not None and on_ns.complete and on_steps.complete:
            assert res.counterexample.requests == min(
                r.counterexample.requests for r in (on_ns, on_steps)
                if r.counterexample is not None), source


def test_a_capped_oracle_says_so_now_and_later() -> None:
    """`max_work`: the runs alone may visit that many pairs in all; past it SoloTooLarge,
    also at the next question (its levels are partial), never a wrong answer."""
    import pytest

    from prover.serial.ondemand import SoloTooLarge

    steps = load_source("request r { x := ?(0..9); X := (X + x) % 50; x }", "ser",
                        lazy=True).steps
    assert steps is not None
    oracle = SerialOnDemand(steps, None, max_work=30)
    for _ in range(2):
        with pytest.raises(SoloTooLarge):
            oracle.membership(3)
    free = SerialOnDemand(steps)
    assert free.membership(2).is_serial(make_multiset([("r", "1"), ("r", "2")]))
