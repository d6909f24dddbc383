"""The restricted (reachable) NS: coverability pairs P, N_P by the checker's discovery
procedure, the coverability invariant, `--ns closure`."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from checker import model as cm
from checker.program import parse_program
from prover.errors import ExitReachedError, SerError, StateBoundError
from prover.frontend.load import load_model, load_source
from prover.ns import NetworkSystem
from prover.petri.build import build_interleaving_net
from prover.smt.invariant import Invariant, exclusion_check, ideal_formula, self_check
from tests.benchmarks import PAPER, SCALE, needs_paper, needs_scale
from tests.frontend.strategies import PROGRAMS

PAPER_NAMES = sorted(json.loads((PAPER / "expected.json").read_text())) if PAPER.is_dir() else []

LOCK = """request main {
  while (L == 1) { yield };
  L := 1; X := 1; yield; y := X; X := 0; L := 0; y
}"""

SEMAPHORE = """request enter {
  while (S == 2) { yield }; S := S + 1; yield; S := S - 1; 0
}"""


def ser(src: str, ns: str = "reachable", bound: int = 100_000) -> NetworkSystem:
    return load_source(src, "ser", "t.ser", state_bound=bound, ns=ns).ns  # type: ignore[arg-type]


def pairs(ns: NetworkSystem) -> set[tuple[str, str]]:
    assert ns.restriction is not None
    return set(ns.restriction.pairs)


# ---------------------------------------------------------------- hand-made programs


def test_lock_excludes_the_critical_section_at_the_free_lock() -> None:
    ns = ser(LOCK)
    p = pairs(ns)
    inside = "({}, y := X; X := 0; L := 0; y)"
    assert (inside, "{L=1,X=1}") in p
    assert (inside, "{}") not in p  # the lock is free: nobody is inside
    assert all(g == "{L=1,X=1}" for loc, g in p if loc == inside)
    closure = ser(LOCK, "closure")
    assert set(ns.transitions) < set(closure.transitions)
    assert closure.restriction is None


def test_pairs_are_sorted_non_final_and_listed_once() -> None:
    ns = ser(LOCK)
    assert ns.restriction is not None
    listed = list(ns.restriction.pairs)
    assert listed == sorted(set(listed))
    finals = {r.local for r in ns.responses}
    assert not finals & {loc for loc, _ in listed}


def test_semaphore_compiles_only_restricted() -> None:
    ns = ser(SEMAPHORE)
    assert set(ns.global_states) == {"{}", "{S=1}", "{S=2}"}
    with pytest.raises(StateBoundError):
        ser(SEMAPHORE, "closure", bound=2000)


def test_infinite_reachable_part_is_a_clear_state_bound_error() -> None:
    with pytest.raises(StateBoundError) as info:
        ser("request grow { X := X + 1; yield; 0 }", bound=500)
    msg = info.value.message if hasattr(info.value, "message") else str(info.value)
    assert "grow" in msg and "X" in msg and "state bound 500" in msg


def test_exit_reached_is_still_reported() -> None:
    with pytest.raises(ExitReachedError):
        ser("request r { yield; exit }")


def test_ns_json_lock_table() -> None:
    doc = {
        "initial_global": "free",
        "requests": [["r", "wait"]],
        "responses": [["done", "0"], ["never", "9"]],
        "transitions": [
            ["wait", "free", "in", "held"],
            ["in", "held", "done", "free"],
            ["in", "free", "never", "free"],  # the lock makes this row unreachable
            ["ghost", "free", "done", "free"],
        ],
    }
    m = load_source(json.dumps(doc), "ns-json", "m.json")
    assert m.ns.restriction is not None
    assert set(m.ns.restriction.pairs) == {("wait", "free"), ("wait", "held"), ("in", "held")}
    assert [t.from_local for t in m.ns.transitions] == ["wait", "in"]
    assert [r.local for r in m.ns.responses] == ["done"]
    closure = load_source(json.dumps(doc), "ns-json", "m.json", ns="closure").ns
    assert len(closure.transitions) == 4


@needs_scale
def test_locked_02_compiles_only_restricted() -> None:
    ns = load_model(SCALE / "locked-02.ser").ns
    assert ns.restriction is not None and len(ns.transitions) > 0
    with pytest.raises(StateBoundError):
        load_model(SCALE / "locked-02.ser", ns="closure", state_bound=5000)


# ---------------------------------------------------------------- the contract: N_P


def _checker_step(state: dict[str, Any]) -> Any:
    """The checker's own one-step semantics on its own names (an independent oracle)."""
    def step(loc: str, glo: str) -> list[tuple[str, str]]:
        (lenv, e), genv = state["L"][loc], state["G"][glo]
        out = []
        for y, v, l2, g2 in cm.run(e, lenv, genv):
            target = (l2, v if y else ("int", v))
            n2, gn2 = cm.local_text(*target), cm.env_text(g2)
            state["L"].setdefault(n2, target)
            state["G"].setdefault(gn2, g2)
            out.append((n2, gn2))
        return out
    return step


def _n_p_by_checker(source: str, listed: tuple[tuple[str, str], ...]) -> tuple[set[Any], ...]:
    """N_P exactly as the contract words it, written against the checker's semantics."""
    init, blocks = parse_program(source)
    g0 = cm.env_text(init)
    state: dict[str, Any] = {"L": {}, "G": {g0: init}}
    reqs = set()
    for name, body in blocks:
        n = cm.local_text((), body)
        state["L"][n] = ((), body)
        reqs.add((name, n))
    step = _checker_step(state)
    known_l = {n for _, n in reqs}
    known_g = {g0}
    trans: set[tuple[str, str, str, str]] = set()
    done: set[tuple[str, str]] = set()
    changed = True
    while changed:
        changed = False
        for loc, glo in listed:
            if (loc, glo) in done or loc not in known_l or glo not in known_g:
                continue
            done.add((loc, glo))
            changed = True
            for l2, g2 in step(loc, glo):
                trans.add((loc, glo, l2, g2))
                known_l.add(l2)
                known_g.add(g2)
    assert done == set(listed), "a listed pair is never discovered"
    resp = {(n, str(state["L"][n][1][1])) for n in known_l if state["L"][n][1][0] == "int"}
    for loc in known_l:
        if state["L"][loc][1][0] != "int":
            for glo in known_g:
                # co-occurring pairs are listed, so an unlisted one must be excluded
                assert (loc, glo) in listed or (loc, glo) not in done
    return reqs, resp, trans


def _same_as_contract(m: Any) -> None:
    ns = m.ns
    assert ns.restriction is not None
    reqs, resp, trans = _n_p_by_checker(m.source, ns.restriction.pairs)
    assert {(r.request, r.local) for r in ns.requests} == reqs
    assert {(r.local, r.response) for r in ns.responses} == resp
    assert {(t.from_local, t.from_global, t.to_local, t.to_global) for t in ns.transitions} \
        == trans


@needs_paper
@pytest.mark.parametrize("name", [n for n in PAPER_NAMES if n.endswith(".ser")])
def test_restricted_ns_is_n_p_by_the_checker_semantics(name: str) -> None:
    _same_as_contract(load_model(PAPER / name))


@needs_scale
@pytest.mark.parametrize("name", ["locked-02.ser", "twophase-03.ser", "unlocked-03.ser",
                                  "counter-06.ser", "ring-05.ser", "flipwait-03.ser"])
def test_scale_restricted_ns_is_n_p(name: str) -> None:
    _same_as_contract(load_model(SCALE / name))


@needs_paper
@pytest.mark.parametrize("name", PAPER_NAMES)
def test_restricted_is_closure_restricted_to_reachable_pairs(name: str) -> None:
    closure = load_model(PAPER / name, ns="closure").ns
    ns = load_model(PAPER / name).ns
    assert ns.restriction is not None
    listed = set(ns.restriction.pairs)
    assert set(ns.transitions) == {
        t for t in closure.transitions if (t.from_local, t.from_global) in listed
    }
    assert set(ns.requests) == set(closure.requests)
    found = set(ns.local_states)
    assert set(ns.responses) == {r for r in closure.responses if r.local in found}


@needs_paper
def test_closure_keeps_the_paper_sizes() -> None:
    expected = json.loads((PAPER / "expected.json").read_text())
    for name in PAPER_NAMES:
        net = build_interleaving_net(load_model(PAPER / name, ns="closure").ns)
        assert net.sizes() == {
            "places": expected[name]["reference_petri_places"],
            "transitions": expected[name]["reference_petri_transitions"],
        }, name


# ---------------------------------------------------------------- P ⊇ what executions show


def _random_runs(source: str, runs: int, steps: int, seed: int) -> set[tuple[str, str]]:
    """(non-final local, global) pairs seen in random executions of the full semantics."""
    init, blocks = parse_program(source)
    state: dict[str, Any] = {"L": {}, "G": {cm.env_text(init): init}}
    starts = []
    for _, body in blocks:
        n = cm.local_text((), body)
        state["L"][n] = ((), body)
        starts.append(n)
    step = _checker_step(state)
    rng = random.Random(seed)
    seen: set[tuple[str, str]] = set()
    for _ in range(runs):
        glo, flight = cm.env_text(init), []
        for _ in range(steps):
            if not flight or rng.random() < 0.3:
                flight.append(rng.choice(starts))
            for loc in flight:
                if state["L"][loc][1][0] != "int":
                    seen.add((loc, glo))
            movable = [i for i, loc in enumerate(flight) if state["L"][loc][1][0] != "int"]
            if not movable:
                continue
            i = rng.choice(movable)
            outs = step(flight[i], glo)
            if outs:
                flight[i], glo = rng.choice(outs)
    return seen


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PROGRAMS)
def test_pairs_contain_every_pair_of_random_executions(blocks: list[tuple[str, str]]) -> None:
    src = "\n".join(f"request {n}{i} {{ {e} }}" for i, (n, e) in enumerate(blocks))
    try:
        ns = ser(src, bound=3000)
        seen = _random_runs(src, runs=5, steps=25, seed=len(src))
    except (SerError, cm.ModelError, RecursionError):
        return  # infinite, `exit`, overflow: nothing to compare
    assert seen <= pairs(ns)


# ---------------------------------------------------------------- the coverability invariant


@pytest.mark.parametrize("src", [LOCK, SEMAPHORE])
def test_ideal_invariant_is_inductive_and_implies_exclusion(src: str) -> None:
    ns = ser(src)
    assert ns.restriction is not None
    net = build_interleaving_net(ns)
    formula = ideal_formula(net, ns.restriction)
    assert self_check(net, Invariant((), (), formula, ()), None).ok
    assert exclusion_check(net, formula, ns.restriction).ok


def test_exclusion_check_rejects_a_missing_pair() -> None:
    """Dropping a co-occurring pair from P (and its ideals' mention) must be caught."""
    from dataclasses import replace

    ns = ser(LOCK)
    r = ns.restriction
    assert r is not None
    net = build_interleaving_net(ns)
    formula = ideal_formula(net, r)
    dropped = replace(r, pairs=r.pairs[1:])
    assert not exclusion_check(net, formula, dropped).ok


@needs_scale
@pytest.mark.parametrize("name", ["locked-02.ser", "twophase-02.ser", "unlocked-02.ser"])
def test_ideal_invariant_on_scale_models(name: str) -> None:
    ns = load_model(SCALE / name).ns
    assert ns.restriction is not None
    net = build_interleaving_net(ns)
    formula = ideal_formula(net, ns.restriction)
    assert self_check(net, Invariant((), (), formula, ()), None).ok
    assert exclusion_check(net, formula, ns.restriction).ok


# ---------------------------------------------------------------- certificates


def _proof(path: Path, ns: str) -> dict[str, Any]:
    from prover.engines.portfolio import find_proof

    m = load_model(path, ns=ns)  # type: ignore[arg-type]
    outcome = find_proof(m, budget_s=60)
    assert outcome is not None
    return outcome.proof


def test_proof_lists_pairs_first_and_closure_omits_them(tmp_path: Path) -> None:
    model = tmp_path / "lock.ser"
    model.write_text(LOCK)
    proof = _proof(model, "reachable")
    assert list(proof)[0] == "pairs"
    ns = load_model(model).ns
    assert ns.restriction is not None
    assert [tuple(p) for p in proof["pairs"]] == list(ns.restriction.pairs)
    assert "pairs" not in _proof(model, "closure")


# ---------------------------------------------------------------- holder rows


@pytest.mark.parametrize("src", [LOCK, SEMAPHORE])
def test_holder_rows_are_inductive_with_the_coverability_invariant(src: str) -> None:
    import time
    from dataclasses import replace

    from prover.context import RunContext
    from prover.engines.holders import holder_rows
    from prover.engines.state_equation import prove_state_equation
    from prover.smt.formula import conj

    ns = ser(src)
    assert ns.restriction is not None
    net = build_interleaving_net(ns)
    rows = holder_rows(net, ns.restriction)
    if src == LOCK:
        assert rows, "the critical section of a lock is a holder"
    km = ideal_formula(net, ns.restriction)
    target = RunContext.of(ns, net=net).target
    se = prove_state_equation(net, target, deadline=time.monotonic() + 30, background=km,
                              holders=rows)
    assert se.full_invariant is not None
    both = replace(se.full_invariant, formula=conj([se.full_invariant.formula, km]))
    assert self_check(net, both, None).ok


def test_self_check_still_rejects_a_non_inductive_conjunct() -> None:
    """The per-transition slicing of the post-state keeps every conjunct a transition can
    change: 'the initial global stays marked' must fail."""
    from prover.petri.net import Place
    from prover.smt.formula import PlaceVar, cmp, conj, const

    ns = ser(LOCK)
    net = build_interleaving_net(ns)
    g0 = Place("global", None, ns.initial_global)
    other = next(p for p in net.places if p.kind == "response")
    bad = conj([cmp(">=", PlaceVar(other), const(0)), cmp("=", PlaceVar(g0), const(1))])
    res = self_check(net, Invariant((), (), bad, ()), None)
    assert not res.ok and res.failed.startswith("consecution")
