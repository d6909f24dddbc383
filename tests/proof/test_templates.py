"""The serial-walk template engine."""

from __future__ import annotations

import pytest
from proof_helpers import BENCH, needs_bench
from test_state_equation import _check

from prover.engines.portfolio import attempt_proof
from prover.frontend.load import load_model


@needs_bench
@pytest.mark.parametrize("name", ["c2.ser", "g7.ser", "g5.ser", "a5.ser"])
def test_serial_walk_proves_its_class(name: str) -> None:
    m = load_model(BENCH / name)
    att = attempt_proof(m, budget_s=30, engines=("serial-walk",))
    assert att.outcome is not None, att.reason
    assert att.outcome.engine == "serial-walk"
    _check(m, att.outcome.proof)


@needs_bench
@pytest.mark.parametrize("name", ["b1.json", "d4.ser", "e1.ser"])
def test_serial_walk_not_applicable(name: str) -> None:
    m = load_model(BENCH / name)
    att = attempt_proof(m, budget_s=30, engines=("serial-walk",))
    assert att.outcome is None
    assert "serial-walk: not applicable" in att.reason


@needs_bench
@pytest.mark.parametrize("name", ["a2.ser", "c1.ser", "f7.ser", "g6.ser"])
def test_serial_walk_never_proves_non_serializable(name: str) -> None:
    m = load_model(BENCH / name)
    assert attempt_proof(m, budget_s=10, engines=("serial-walk",)).outcome is None
