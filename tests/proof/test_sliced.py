"""The sliced state-equation engine (prover/engines/sliced.py): per-disjunct slicing,
lifting and stitching. Every certificate it produces goes through the trusted checker;
the lifting must be inductive on the full net by construction (not only thanks to the
z3 self-check gate), and both halves of it (backward disjunction, forward zeros) are
needed."""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from proof_helpers import BENCH, assert_checker_accepts, needs_bench
from test_differential import ns_json

from prover.certificate.write import dump_certificate, make_certificate, producer
from prover.engines.explicit import find_counterexample
from prover.engines.sliced import (
    ENGINE,
    _inner_candidates,
    attempt_sliced,
    disjunct_target,
    lift_disjunct_invariant,
    prove_sliced,
    rename_formula,
)
from prover.frontend.load import load_model, load_source

# The engine alone writes no pair list, so it is run (and checked) on the closure NS; the
# portfolio adds pairs and I_KM on a restricted NS (tests/reachable).
from prover.petri.build import build_interleaving_net
from prover.petri.net import NetTransition, PetriNet, Place
from prover.serial.automaton import build_serial_automaton
from prover.serial.parikh import compute_serial_set
from prover.smt.formula import TRUE, PlaceVar, cmp, conj, const
from prover.smt.invariant import Invariant, self_check
from prover.target import (
    Conjunction,
    LinearConstraint,
    Target,
    Var,
    build_target,
    slice_disjunct,
)

EXPECTED = json.loads((BENCH / "expected.json").read_text()) if BENCH.is_dir() else {}


def _cert(model: object, proof: dict[str, object]) -> str:
    cert = make_certificate(model, "serializable", "proof", proof, producer(ENGINE))  # type: ignore[arg-type]
    return dump_certificate(cert)


def _check(model: object, proof: dict[str, object]) -> None:
    assert_checker_accepts(model, proof, ENGINE)


PROVED = [
    "a1.ser", "a4.ser", "a5.ser", "b1.json", "b2.json", "c3.ser", "c4.ser", "d1.ser",
    "e1.ser", "f4.ser", "f5.ser", "g5.ser", "g7.ser",
]


@needs_bench
@pytest.mark.parametrize("name", PROVED)
def test_benchmarks_proved_and_checked(name: str) -> None:
    assert EXPECTED[name]["expected"] == "serializable"
    m = load_model(BENCH / name, ns="closure")
    out = prove_sliced(m, budget_s=30)
    assert out is not None
    assert out.engine == "sliced-state-equation"
    _check(m, out.proof)
    # the lifting is inductive by construction: with every lifted invariant self-checked
    # on the full net on its own, none fails, and the proof is the same
    each, reason = attempt_sliced(m, budget_s=30, check_each=True)
    assert each is not None, reason
    assert each.stats["lift_check_failures"] == 0
    assert each.proof == out.proof


NOT_SERIALIZABLE = ["a2.ser", "a6.ser", "c6.ser", "d2.ser", "d5.ser", "e3.ser", "f7.ser"]


@needs_bench
@pytest.mark.parametrize("name", NOT_SERIALIZABLE)
def test_not_serializable_never_proved(name: str) -> None:
    assert EXPECTED[name]["expected"] == "not_serializable"
    m = load_model(BENCH / name, ns="closure")
    out, reason = attempt_sliced(m, budget_s=10)
    assert out is None
    assert reason


@needs_bench
def test_deterministic_bytes() -> None:
    m = load_model(BENCH / "d1.ser", ns="closure")
    texts = []
    for _ in range(2):
        out = prove_sliced(m, budget_s=30)
        assert out is not None
        texts.append(_cert(m, out.proof))
    assert texts[0] == texts[1]


@needs_bench
def test_budget_zero_is_unknown() -> None:
    m = load_model(BENCH / "d1.ser", ns="closure")
    out, reason = attempt_sliced(m, budget_s=0)
    assert out is None and "budget" in reason


@needs_bench
def test_both_halves_of_the_lifting_are_needed() -> None:
    """On d1, disjuncts whose slice removes places backward: the sliced invariant as is,
    and with only the forward zeros, break consecution on the full net; the full lifting
    (backward disjunction, then forward zeros) passes, aux renamed, updates mapped."""
    m = load_model(BENCH / "d1.ser", ns="closure")
    net = build_interleaving_net(m.ns)
    s = compute_serial_set(build_serial_automaton(m.ns).reachable())
    t = build_target(net, s, split=True)
    seen = 0
    for k, d in enumerate(t.disjuncts):
        sd = slice_disjunct(net, d)
        if sd.unreachable or not any(r.removed_backward for r in sd.sliced.rounds):
            continue
        cands, reason, _ = _inner_candidates(sd, t, time.monotonic() + 20)
        assert cands, reason
        own = disjunct_target(len(net.places), t, d)
        lifted = lift_disjunct_invariant(net, sd, cands[0], f"s{k}_")
        assert all(a.startswith(f"s{k}_") for a in lifted.aux)
        assert {ti for ti, _ in lifted.updates} <= set(sd.sliced.transition_map)
        assert self_check(net, lifted, own).ok
        names = {a: f"s{k}_{a}" for a in cands[0].aux}
        naive_f = rename_formula(cands[0].formula, names)
        naive = Invariant(lifted.aux, lifted.initial_aux, naive_f, lifted.updates)
        assert self_check(net, naive, own).failed.startswith("consecution")
        fwd_f = sd.sliced.lift_invariant(
            naive_f, or_=lambda xs: xs[0], and_=conj, ge1=lambda p: TRUE,
            eq0=lambda p: cmp("=", PlaceVar(net.places[p]), const(0)),
        )
        fwd = Invariant(lifted.aux, lifted.initial_aux, fwd_f, lifted.updates)
        assert self_check(net, fwd, own).failed.startswith("consecution")
        seen += 1
    assert seen >= 2


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
)
@given(ns_json())
def test_random_ns_certificates_check(text: str) -> None:
    m = load_source(text, "ns-json", "random.json", ns="closure")
    out, _ = attempt_sliced(m, budget_s=5, check_each=True)
    if out is None:
        return
    assert out.stats["lift_check_failures"] == 0
    cex = find_counterexample(m.ns, deadline=time.monotonic() + 1, max_requests=5)
    assert cex.counterexample is None, "proved a model with a counterexample"
    _check(m, out.proof)


# ---- the lifting on random Petri nets and random conjunctive targets -----------------
# Independent of the serial machinery: arbitrary structure, arc weights up to 2, several
# slicing rounds; whenever the state equation refutes the sliced disjunct, the lifted
# invariant must be inductive on the full net and refute the full disjunct.

RANDOM_PLACES = 6


@st.composite
def net_and_disjunct(draw: st.DrawFn) -> tuple[PetriNet, Conjunction]:
    n = draw(st.integers(3, RANDOM_PLACES))
    places = tuple(Place("local", "r", f"q{i}") for i in range(n))
    arcs = st.lists(st.tuples(st.integers(0, n - 1), st.integers(1, 2)), max_size=2)
    trans: list[NetTransition] = []
    for _ in range(draw(st.integers(2, 8))):
        pre = tuple(sorted(dict(draw(arcs)).items()))
        post = tuple(sorted(dict(draw(arcs)).items()))
        trans.append(NetTransition("spawn", "r", pre, post, local=f"t{len(trans)}"))
    initial = tuple(sorted(dict(draw(st.lists(
        st.tuples(st.integers(0, n - 1), st.integers(1, 2)), min_size=1, max_size=2
    ))).items()))
    zero = draw(st.sets(st.integers(0, n - 1), max_size=n - 1))
    cons = [LinearConstraint.make({Var("place", p): 1}, 0, "=") for p in sorted(zero)]
    others = [p for p in range(n) if p not in zero]
    for p in draw(st.lists(st.sampled_from(others), min_size=1, max_size=2)):
        cons.append(LinearConstraint.make({Var("place", p): 1}, -draw(st.integers(1, 3)), ">="))
    return PetriNet(places, tuple(trans), initial), Conjunction(tuple(cons))


def _dummy_target() -> Target:
    return Target(0, (), (), (), (), (), ())


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
)
@given(net_and_disjunct())
def test_lifting_is_inductive_on_random_nets(case: tuple[PetriNet, Conjunction]) -> None:
    net, d = case
    sd = slice_disjunct(net, d)
    cands, _, _ = _inner_candidates(sd, _dummy_target(), time.monotonic() + 5)
    own = disjunct_target(len(net.places), _dummy_target(), d)
    snet = sd.sliced.net
    for inner in cands:
        if not sd.unreachable and not self_check(
            snet, inner, disjunct_target(len(snet.places), _dummy_target(), sd.disjunct)
        ).ok:
            continue  # the engine's reduced invariant: not our concern here
        lifted = lift_disjunct_invariant(net, sd, inner, "s0_")
        res = self_check(net, lifted, own)
        assert res.ok, res.failed
