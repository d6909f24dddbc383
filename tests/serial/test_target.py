"""The target "quiescent ∧ π(M) ∉ S" (prover/target.py): exact on small markings."""

from __future__ import annotations

import os
import random

import pytest
import z3
from hypothesis import given, settings
from hypothesis import strategies as st
from sls_helpers import (
    automaton,
    benchmark_names,
    holds,
    in_s,
    load_ns,
    members,
    needs_bench,
    vectors_upto,
)

from prover.petri.build import build_interleaving_net
from prover.petri.net import PetriNet, Place
from prover.serial.automaton import build_serial_automaton
from prover.serial.parikh import SerialSet, compute_serial_set
from prover.target import Target, TargetTooLarge, build_target, target_to_z3

SLOW = os.environ.get("SER_SLOW_TESTS") == "1"
HEAVY = {"g1.ser", "g2.ser"}  # target construction takes seconds


def in_target(t: Target, marking: list[int]) -> bool:
    return any(holds(d, marking) for d in t.disjuncts)


def _check(net: PetriNet, s: SerialSet, t: Target, n: int, rng: random.Random) -> None:
    resp = [i for i, p in enumerate(net.places) if p.kind == "response"]
    local = [i for i, p in enumerate(net.places) if p.kind == "local"]
    lab_of = {i: (net.places[i].request, net.places[i].state) for i in resp}
    ms = members(s)
    for v in vectors_upto(len(resp), n):
        m = [0] * len(net.places)
        for i, x in zip(resp, v, strict=True):
            m[i] = x
        counts = {lab_of[i]: m[i] for i in resp}
        vec = s.vector(counts)  # type: ignore[arg-type]
        expected = vec is None or not in_s(ms, vec)
        assert in_target(t, m) == expected, (v, expected)
        if local and rng.random() < 0.05:
            m[rng.choice(local)] = 1
            assert not in_target(t, m)


def test_hand_mod3() -> None:
    from prover.ns import NetworkSystem, RequestEntry, ResponseEntry, Transition

    # one request cycling a global counter mod 3, answering 1 each time
    ns = NetworkSystem.make(
        "0",
        [RequestEntry("r", "s")],
        [ResponseEntry("e", "1")],
        [Transition("s", "0", "e", "1"), Transition("s", "1", "e", "2"),
         Transition("s", "2", "e", "0")],
    )
    net = build_interleaving_net(ns)
    s = compute_serial_set(build_serial_automaton(ns))
    t = build_target(net, s)
    # S = N (a loop of length 3 through all states: every count is serial)
    _check(net, s, t, 8, random.Random(0))
    assert automaton("0", []) is not None


@needs_bench
@pytest.mark.parametrize("name", benchmark_names())
def test_benchmark_target_exact(name: str) -> None:
    if name in HEAVY and not SLOW:
        pytest.skip("heavy: set SER_SLOW_TESTS=1")
    ns = load_ns(name)
    net = build_interleaving_net(ns)
    s = compute_serial_set(build_serial_automaton(ns))
    t = build_target(net, s)
    for d in t.disjuncts:
        assert set(t.quiescent) <= set(d.constraints)
    _check(net, s, t, 4 if len(t.label_places) <= 8 else 3, random.Random(name))
    # the clause form and the disjunct form agree (z3, on random markings)
    zs = {i: z3.Int(f"p{i}") for i in range(len(net.places))}
    rng = random.Random(name + "z3")
    resp = [i for i, p in enumerate(net.places) if p.kind == "response"]
    f_cl = target_to_z3(build_target(net, s, split=False), zs)  # unpruned clause form
    f_dj = target_to_z3(t, zs, use_disjuncts=True)
    for _ in range(10):
        m = [0] * len(net.places)
        for i in resp:
            m[i] = rng.randint(0, 4)
        sol = z3.Solver()
        sol.add(*[zs[i] == m[i] for i in range(len(m))])
        sol.push()
        sol.add(f_cl)
        a = sol.check() == z3.sat
        sol.pop()
        sol.add(f_dj)
        b = sol.check() == z3.sat
        assert a == b == in_target(t, m)


def test_place_lookup() -> None:
    assert Place("response", "r", "1").label() == "R r/1"


_from = st.sampled_from(["s", "s", "m"])
_to = st.sampled_from(["m", "e", "f"])
_glob = st.sampled_from(["0", "1", "2"])


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.tuples(_from, _glob, _to, _glob), min_size=3, max_size=9),
    st.lists(st.tuples(st.sampled_from(["e", "f", "m"]), st.sampled_from(["0", "1", "2"])),
             min_size=0, max_size=2),
    st.booleans(),
)
def test_random_ns_target_exact(
    trans: list[tuple[str, str, str, str]], resps: list[tuple[str, str]], two: bool
) -> None:
    from prover.ns import NetworkSystem, RequestEntry, ResponseEntry, Transition

    reqs = [RequestEntry("r", "s")] + ([RequestEntry("q", "m")] if two else [])
    entries = [ResponseEntry("e", "0"), ResponseEntry("f", "1")]
    entries += [ResponseEntry(*r) for r in resps]
    ns = NetworkSystem.make("0", reqs, entries, [Transition(*t) for t in trans])
    net = build_interleaving_net(ns)
    s = compute_serial_set(build_serial_automaton(ns))
    try:
        target = build_target(net, s)
    except TargetTooLarge:  # the split's budget is a limit, never a wrong target
        return
    _check(net, s, target, 4, random.Random(0))
