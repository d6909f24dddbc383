"""Differential testing on random small network systems: the counterexample search and
the proof portfolio never both succeed, and every proof certificate passes the checker."""

from __future__ import annotations

import json
import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from proof_helpers import assert_checker_accepts

from prover.engines.explicit import find_counterexample
from prover.engines.portfolio import attempt_proof
from prover.frontend.load import LoadedModel, load_source
from tests.strategies import ser_programs

GLOBALS = ["g0", "g1", "g2"]
LOCALS = ["a", "b", "c", "d"]
REQUESTS = ["r", "s"]
VALUES = ["0", "1"]


@st.composite
def ns_json(draw: st.DrawFn) -> str:
    requests = draw(
        st.lists(st.tuples(st.sampled_from(REQUESTS), st.sampled_from(LOCALS[:2])),
                 min_size=1, max_size=3, unique=True)
    )
    responses = draw(
        st.lists(st.tuples(st.sampled_from(LOCALS), st.sampled_from(VALUES)),
                 min_size=1, max_size=4, unique=True)
    )
    transitions = draw(
        st.lists(
            st.tuples(st.sampled_from(LOCALS), st.sampled_from(GLOBALS),
                      st.sampled_from(LOCALS), st.sampled_from(GLOBALS)),
            min_size=2, max_size=10, unique=True,
        )
    )
    doc = {
        "initial_global": "g0",
        "requests": [list(r) for r in requests],
        "responses": [list(r) for r in responses],
        "transitions": [list(t) for t in transitions],
    }
    return json.dumps(doc)


def _never_both(m: LoadedModel) -> None:
    """The proof portfolio and the counterexample search never both succeed, and every
    proof the portfolio finds is accepted by the trusted checker."""
    att = attempt_proof(m, budget_s=5)
    cex = find_counterexample(m.ns, deadline=time.monotonic() + 2, max_requests=6)
    if att.outcome is None:
        return
    assert cex.counterexample is None, "proved a model with a counterexample"
    assert_checker_accepts(m, att.outcome.proof, "t")


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
)
@given(ns_json())
def test_never_both_and_certificates_check(text: str) -> None:
    _never_both(load_source(text, "ns-json", "random.json"))


# ---- random Ser programs ------------------------------------------------------------

@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
)
@given(ser_programs(with_locals=True, results=["X", "y", "1", "Y"]))
def test_random_ser_programs(text: str) -> None:
    _never_both(load_source(text, "ser", "random.ser"))
