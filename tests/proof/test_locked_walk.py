"""The commit-point walk template (locked-walk) on restricted network systems."""

from __future__ import annotations

from pathlib import Path

import pytest
from proof_helpers import BENCH, needs_bench
from test_state_equation import _check

from prover.context import RunContext
from prover.engines.locked_walk import prove_locked_walk
from prover.engines.portfolio import attempt_proof
from prover.frontend.load import load_model
from prover.petri.build import build_interleaving_net
from prover.petri.net import Place
from prover.serial.automaton import build_serial_automaton
from prover.smt.formula import Cmp, Or
from prover.smt.invariant import Invariant, free_names
from tests.benchmarks import SCALE as SCALE_SET
from tests.benchmarks import absent

SCALE = SCALE_SET

LOCKED = """
request inc {
    while (L == 1) { yield }; L := 1; if (A == 2) {0} else { a := A; yield; A := a + 1 }; L := 0;
    0
}
request read {
    while (L == 1) { yield }; L := 1; s := A; yield; L := 0;
    s
}
"""

# A locked counter that wraps around: its serial automaton has a cycle, so the
# template falls back to visited flags and ranks for connectivity.
WRAP = """
request inc {
    while (L == 1) { yield }; L := 1; if (A == 2) { A := 0 } else { A := A + 1 }; L := 0;
    0
}
"""


def _model(tmp_path: Path, text: str) -> object:
    path = tmp_path / "m.ser"
    path.write_text(text)
    return load_model(path)


def _template(m: object) -> tuple[Invariant, dict[Place, int]]:
    """The template's invariant for model `m`, and the place index of its net."""
    ns = m.ns  # type: ignore[attr-defined]
    net = build_interleaving_net(ns)
    res = prove_locked_walk(ns, net, build_serial_automaton(ns), ns.restriction)
    assert res.invariant is not None, res.reason
    return res.invariant, net.place_index


def test_locked_counter_is_proved_and_checked(tmp_path: Path) -> None:
    m = _model(tmp_path, LOCKED)
    att = attempt_proof(m, budget_s=30, engines=("locked-walk",))
    assert att.outcome is not None, att.reason
    assert att.outcome.engine == "locked-walk"
    assert "pairs" in att.outcome.proof  # a restricted NS: exclusion is discharged too
    _check(m, att.outcome.proof)


def test_cyclic_automaton_uses_ranks(tmp_path: Path) -> None:
    m = _model(tmp_path, WRAP)
    inv, _ = _template(m)
    assert any(a.startswith("d") for a in inv.aux)
    att = attempt_proof(m, budget_s=30, engines=("locked-walk",))
    assert att.outcome is not None, att.reason
    assert att.outcome.proof["walk"]["ranks"], "a cyclic walk names its ranks"
    _check(m, att.outcome.proof)


@pytest.mark.parametrize("text", [LOCKED, WRAP])
def test_walk_labelled_proof_needs_no_serial_set(tmp_path: Path, text: str) -> None:
    m = _model(tmp_path, text)
    run = RunContext.of(m.ns)  # type: ignore[attr-defined]
    att = attempt_proof(m, budget_s=30, engines=("locked-walk",), run=run)
    assert att.outcome is not None, att.reason
    assert "walk" in att.outcome.proof and "serial_set" not in att.outcome.proof
    assert "serial_set" not in run.__dict__ and "target" not in run.__dict__  # never built
    edges = {tuple(e["edge"]) for e in att.outcome.proof["walk"]["edges"]}
    assert edges <= {tuple(e.as_list()) for e in run.automaton.edges}
    _check(m, att.outcome.proof)


def test_invariant_is_linear_apart_from_connectivity(tmp_path: Path) -> None:
    """No I_KM and no disjunction over places: the size the checker pays per query."""
    inv, index = _template(_model(tmp_path, LOCKED))
    f = inv.formula
    parts = f.args if hasattr(f, "args") else (f,)
    for p in parts:
        if isinstance(p, Or):  # only `loops ≥ 1 ⇒ inflow ≥ 1` (as ¬a ∨ b): aux only
            for q in p.args:
                assert all(isinstance(n, str) for n in free_names(q, index))
        else:
            assert isinstance(p, Cmp)


@needs_bench
@pytest.mark.parametrize("name", ["a2.ser", "c1.ser", "f7.ser", "g6.ser"])
def test_locked_walk_never_proves_non_serializable(name: str) -> None:
    m = load_model(BENCH / name)
    assert attempt_proof(m, budget_s=10, engines=("locked-walk",)).outcome is None


@needs_bench
def test_locked_02_scale_model() -> None:
    path = SCALE / "locked-02.ser"
    if not path.is_file():
        pytest.skip(absent("scale"))
    m = load_model(path)
    att = attempt_proof(m, budget_s=30, engines=("locked-walk",))
    assert att.outcome is not None, att.reason
    _check(m, att.outcome.proof)


# A holder that waits in its critical section loops when run alone: the template does not
# apply. Its alone-run was followed by recursion, deeper than Python allows, and the
# RecursionError ended the whole proof portfolio: this serializable model was undecided.
UP_DOWN = """
request up { while (N == 3) { yield }; N := N + 1; yield; while (N == 3) { yield }; N := N + 1; 1 }
request down { while (N == 0) { yield }; N := N - 1; 0 }
"""


def test_a_holder_that_loops_alone_is_not_applicable(tmp_path: Path) -> None:
    m = _model(tmp_path, UP_DOWN)
    ns = m.ns  # type: ignore[attr-defined]
    res = prove_locked_walk(ns, build_interleaving_net(ns), build_serial_automaton(ns),
                            ns.restriction)
    assert res.invariant is None and "blocks or loops at {N=3}" in res.reason


def test_a_holder_that_loops_alone_leaves_the_proof_to_other_engines(tmp_path: Path) -> None:
    att = attempt_proof(_model(tmp_path, UP_DOWN), budget_s=30)  # type: ignore[arg-type]
    assert att.outcome is not None, att.reason
