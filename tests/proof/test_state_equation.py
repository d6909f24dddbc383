"""The state-equation engine and the portfolio on small models and a quick benchmark
subset; every certificate produced goes through the checker."""

from __future__ import annotations

import time

import pytest
from proof_helpers import BENCH, assert_checker_accepts, needs_bench, prepare

from prover.certificate.write import dump_certificate, make_certificate, producer
from prover.engines.portfolio import attempt_proof, find_proof
from prover.engines.state_equation import live_structure, prove_state_equation
from prover.frontend.load import load_model, load_source
from prover.smt.formula import conj
from prover.smt.invariant import Invariant, self_check


def _check(model: object, proof: dict[str, object]) -> str:
    return assert_checker_accepts(model, proof)


QUICK = ["a4.ser", "b1.json", "c2.ser", "e1.ser", "f4.ser", "g5.ser", "g7.ser"]


@needs_bench
@pytest.mark.parametrize("name", QUICK)
def test_quick_benchmarks_proved_and_checked(name: str) -> None:
    m = load_model(BENCH / name)
    out = find_proof(m, budget_s=30)
    assert out is not None
    # the lock-style ones (a4, c2, e1, g5, g7) are proved first by the locked-walk template
    assert out.engine in ("state-equation", "locked-walk")
    _check(m, out.proof)


@needs_bench
def test_deterministic_bytes() -> None:
    m = load_model(BENCH / "c2.ser")
    texts = []
    for _ in range(2):
        out = find_proof(m, budget_s=30)
        assert out is not None
        cert = make_certificate(m, "serializable", "proof", out.proof, producer(out.engine))
        texts.append(dump_certificate(cert))
    assert texts[0] == texts[1]


@needs_bench
def test_deterministic_after_other_work() -> None:
    """Each engine uses its own z3 context: what the process proved before does not
    change the certificate (f1 used to differ after other z3 work)."""
    m = load_model(BENCH / "f1.ser")
    first = find_proof(m, budget_s=30)
    for other in ("c2.ser", "g7.ser"):
        find_proof(load_model(BENCH / other), budget_s=30)
    again = find_proof(m, budget_s=30)
    assert first is not None and again is not None
    assert first.proof == again.proof


@needs_bench
@pytest.mark.parametrize("name", ["a2.ser", "a6.ser", "d5.ser", "f7.ser"])
def test_not_serializable_never_proved(name: str) -> None:
    m = load_model(BENCH / name)
    att = attempt_proof(m, budget_s=10)
    assert att.outcome is None
    assert "state-equation" in att.reason


@needs_bench
def test_budget_zero_is_unknown_with_reason() -> None:
    m = load_model(BENCH / "g2.ser")
    att = attempt_proof(m, budget_s=0)
    assert att.outcome is None
    assert "state-equation" in att.reason and "budget" in att.reason


SRC_TRAP = """
request main {
  if (X == 0) { X := 1; 1 } else { X := 0; 2 }
}
"""


@needs_bench
def test_self_check_rejects_weakened_invariants() -> None:
    """Dropping refinement lemmas from a proof that needed them makes the refutation fail;
    dropping the state equation rows breaks consecution or refutation: the self-check
    must notice."""
    m = load_model(BENCH / "f4.ser")
    prep = prepare(m.ns)
    res = prove_state_equation(prep.net, prep.target, deadline=time.monotonic() + 30)
    assert res.invariant is not None and res.stats.traps > 0
    inv = res.invariant
    assert self_check(prep.net, inv, prep.target).ok
    parts = inv.formula.args  # type: ignore[union-attr]
    weakened = Invariant(inv.aux, inv.initial_aux, conj(parts[: len(parts) // 2]), inv.updates)
    assert not self_check(prep.net, weakened, prep.target).ok
    no_updates = Invariant(inv.aux, inv.initial_aux, inv.formula, ())
    assert not self_check(prep.net, no_updates, prep.target).ok


def test_dead_transitions_get_no_counter() -> None:
    src = """
request main { if (X == 5) { Y := 1 } else { 0 }; 0 }
request other { X := 1 }
"""
    m = load_source(src, "ser")
    prep = prepare(m.ns)
    markable, live = live_structure(prep.net)
    assert len(live) < len(prep.net.transitions)
    out = find_proof(m, budget_s=30, net=prep.net, serial_set=prep.serial_set, target=prep.target)
    assert out is not None
    assert len(out.proof["invariant"]["aux"]) <= len(live)  # type: ignore[index]
    _check(m, out.proof)


def test_trap_model() -> None:
    m = load_source(SRC_TRAP, "ser")
    out = find_proof(m, budget_s=30)
    assert out is not None  # serial: responses alternate 1, 2, 1, ... (atomic requests)
    _check(m, out.proof)


# Random NS on which the state equation (with every refinement) admits a spurious
# marking in the target; PDR on top of the state-equation invariant proves them.
PDR_CASES = [
    '{"initial_global": "g0", "requests": [["s", "a"]], "responses": [["b", "1"]], '
    '"transitions": [["c", "g2", "c", "g2"], ["d", "g0", "d", "g0"], ["a", "g0", "c", "g0"], '
    '["a", "g1", "c", "g0"], ["c", "g2", "a", "g1"], ["a", "g0", "b", "g2"]]}',
    '{"initial_global": "g0", "requests": [["s", "b"], ["r", "b"], ["s", "a"]], "responses": '
    '[["a", "1"], ["c", "0"], ["d", "1"], ["b", "0"]], "transitions": [["a", "g1", "c", "g2"], '
    '["a", "g1", "a", "g0"], ["a", "g0", "d", "g1"], ["b", "g1", "a", "g2"], '
    '["c", "g2", "a", "g0"], ["b", "g1", "b", "g1"], ["b", "g1", "d", "g1"], '
    '["d", "g1", "d", "g1"], ["c", "g2", "a", "g1"], ["a", "g1", "b", "g0"]]}',
]


@pytest.mark.parametrize("text", PDR_CASES)
def test_pdr_proves_what_the_state_equation_cannot(text: str) -> None:
    m = load_source(text, "ns-json", "pdr.json")
    se = attempt_proof(m, budget_s=10, engines=("state-equation",))
    assert se.outcome is None
    att = attempt_proof(m, budget_s=60)  # generous: the machine may be shared
    assert att.outcome is not None, att.reason
    assert att.outcome.engine == "pdr"
    _check(m, att.outcome.proof)
