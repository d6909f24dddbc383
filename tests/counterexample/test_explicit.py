"""The explicit search: minimal counterexamples, agreement with a naive search, no
refutation of serializable models, the e2 family."""

from __future__ import annotations

import time

import pytest

from prover.engines import replay
from prover.engines.explicit import find_counterexample, search
from prover.frontend.load import load_model
from prover.serial.automaton import build_serial_automaton
from prover.serial.membership import SerialMembership

from .conftest import BENCH, EXAMPLES, a2_ns, bench_names, expected, needs_bench
from .naive import naive_min_requests


def test_a2_by_hand_needs_two_requests() -> None:
    ns = a2_ns()
    res = search(ns)
    cex = res.counterexample
    assert cex is not None and cex.requests == 2 and cex.minimal
    assert cex.completed == ((("main", "0"), 1), (("main", "1"), 1))
    assert replay(ns, cex.events) == cex.completed
    # With one request there is nothing to find.
    assert search(ns, max_requests=1).counterexample is None


def test_a2_with_concurrency_one_finds_nothing() -> None:
    # Both mains must be between their two steps at once.
    res = search(a2_ns(), max_inflight=1, max_requests=6)
    assert res.counterexample is None and res.complete


@pytest.mark.parametrize("i", [3, 4])
def test_e2_family_minimum(i: int) -> None:
    ns = load_model(EXAMPLES / f"e2-i{i}.ser").ns
    cex = search(ns).counterexample
    assert cex is not None
    assert cex.requests == 2 * i + 1 and cex.minimal  # 2i flips and one main
    assert dict(cex.completed)[("main", "100")] == 1


@pytest.mark.parametrize("i", [5, 6, 8])
def test_e2_family_refuted_fast(i: int) -> None:
    ns = load_model(EXAMPLES / f"e2-i{i}.ser").ns
    start = time.monotonic()
    res = find_counterexample(ns, deadline=start + 5)
    assert res.counterexample is not None
    assert res.counterexample.requests == 2 * i + 1


@needs_bench
@pytest.mark.parametrize("name", sorted(expected()))
def test_agrees_with_naive_search(name: str) -> None:
    """Same least number of requests (or none) as an unreduced search, ≤ 4 requests."""
    ns = load_model(BENCH / name).ns
    want = naive_min_requests(ns, 4)
    got = search(ns, max_requests=4).counterexample
    assert (got.requests if got else None) == want


@needs_bench
@pytest.mark.parametrize("name", bench_names("not_serializable"))
def test_non_serializable_refuted(name: str) -> None:
    ns = load_model(BENCH / name).ns
    res = find_counterexample(ns, deadline=time.monotonic() + 5)
    cex = res.counterexample
    assert cex is not None, res
    assert replay(ns, cex.events) == cex.completed
    assert not SerialMembership(build_serial_automaton(ns)).is_serial(cex.completed)
    assert cex.minimal


@needs_bench
@pytest.mark.parametrize("name", bench_names("serializable"))
def test_serializable_never_refuted(name: str) -> None:
    ns = load_model(BENCH / name).ns
    res = find_counterexample(ns, deadline=time.monotonic() + 0.3, initial_states=5_000)
    assert res.counterexample is None
