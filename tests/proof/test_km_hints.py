"""Consecution hints of proofs on a restricted NS (the invariant relative to I_KM, and
I_KM's own): renumbered into their conjunction, grouped per transition, and accepted by
the checker."""

from __future__ import annotations

from typing import Any

import pytest

from prover.frontend.load import load_source
from prover.smt.formula import PlaceVar, cmp, conj, const
from prover.smt.invariant import lift_hints
from tests.proof.proof_helpers import assert_checker_accepts
from tests.reachable.test_reachable import LOCK, SEMAPHORE


def test_lift_hints_renumbers_by_first_position_and_drops_unknown_conjuncts() -> None:
    from prover.petri.net import Place

    a, b, c = (cmp(">=", PlaceVar(Place("global", None, g)), const(0)) for g in "abc")
    whole = conj([b, a, b])  # a conjunct listed twice counts at its first position
    assert lift_hints([(3, (0,), (0, 1))], [a, b], whole) == [(3, (1,), (0, 1))]
    assert lift_hints([(3, (0,), (2,))], [a, b, c], whole) == []


@pytest.mark.parametrize("engine", ["state-equation", "pdr"])
@pytest.mark.parametrize("src", [LOCK, SEMAPHORE])
def test_restricted_proof_with_hints_is_accepted(src: str, engine: str, monkeypatch: Any
                                                 ) -> None:  # fmt: skip
    from prover.engines import portfolio

    monkeypatch.setattr(portfolio, "KM_HINTS_FROM", 0)
    m = load_source(src, "ser", "t.ser", ns="reachable")
    outcome = portfolio.find_proof(m, budget_s=60, engines=(engine,))
    assert outcome is not None and outcome.engine == engine
    inv = outcome.proof["invariant"]
    assert inv["hints"], "every transition that moves a conjunct gets a hint"
    keys = [repr(h["transition"]) for h in inv["hints"]]
    assert len(keys) == len(set(keys)), "one entry per transition"
    n = len(inv["formula"]["and"])
    assert all(0 <= i < n for h in inv["hints"] for c in h["checks"]
               for i in c["prove"] + c["from"])
    assert_checker_accepts(m, outcome.proof, outcome.engine)


def test_no_hints_below_the_threshold() -> None:
    m = load_source(LOCK, "ser", "t.ser", ns="reachable")
    from prover.engines.portfolio import find_proof

    outcome = find_proof(m, budget_s=60, engines=("state-equation",))
    assert outcome is not None
    assert "hints" not in outcome.proof["invariant"]
