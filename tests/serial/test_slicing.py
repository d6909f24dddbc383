"""Bidirectional slicing and dynamic slices (prover/petri/slicing.py)."""

from __future__ import annotations

from collections import deque

import pytest
import z3
from sls_helpers import holds, load_ns, needs_bench

from prover.petri.build import build_interleaving_net
from prover.petri.net import NetTransition, PetriNet, Place
from prover.petri.slicing import maximal_slice, minimal_slice
from prover.serial.automaton import build_serial_automaton
from prover.serial.parikh import compute_serial_set
from prover.target import build_target, conjunction_to_z3, slice_disjunct


def _bfs(net: PetriNet, depth: int, cap: int = 20000) -> dict[tuple[int, ...], int]:
    m0 = tuple(net.initial_vector())
    dist = {m0: 0}
    todo = deque([m0])
    while todo and len(dist) < cap:
        m = todo.popleft()
        if dist[m] >= depth:
            continue
        for t in net.transitions:
            if all(m[p] >= w for p, w in t.pre):
                n = list(m)
                for p, w in t.pre:
                    n[p] -= w
                for p, w in t.post:
                    n[p] += w
                nm = tuple(n)
                if nm not in dist:
                    dist[nm] = dist[m] + 1
                    todo.append(nm)
    return dist


NAMES = ["a2.ser", "a4.ser", "a6.ser", "b1.json", "c3.ser", "d5.ser", "f7.ser", "f8.ser",
         "e2.ser", "f3.ser"]


@needs_bench
@pytest.mark.parametrize("name", NAMES)
def test_slices_preserve_reachable_targets(name: str) -> None:
    ns = load_ns(name)
    net = build_interleaving_net(ns)
    t = build_target(net, compute_serial_set(build_serial_automaton(ns)))
    full = _bfs(net, 7)
    for d in t.disjuncts:
        sd = slice_disjunct(net, d)
        sl = sd.sliced
        assert set(sl.transition_map) <= set(range(len(net.transitions)))
        part = _bfs(sl.net, 7)
        for m, k in full.items():
            if holds(d, list(m)):
                assert not sd.unreachable
                kept = set(sl.place_map)
                assert all(m[p] == 0 for p in range(len(m)) if p not in kept)
                proj = tuple(m[p] for p in sl.place_map)
                assert proj in part and part[proj] <= k
                assert holds(sd.disjunct, list(proj))


@needs_bench
@pytest.mark.parametrize("name", NAMES + ["g4.ser", "c7.ser"])
def test_lifted_trivial_invariant_is_inductive(name: str) -> None:
    """Lift I = true from every sliced net: the result must be inductive on the full
    net, and refute the disjunct whenever slicing flagged it unreachable."""
    ns = load_ns(name)
    net = build_interleaving_net(ns)
    t = build_target(net, compute_serial_set(build_serial_automaton(ns)))
    x = [z3.Int(f"x{i}") for i in range(len(net.places))]
    for d in t.disjuncts:
        sd = slice_disjunct(net, d)
        inv = sd.sliced.lift_invariant_z3(z3.BoolVal(True), x)
        m0 = net.initial_vector()
        s = z3.Solver()
        s.add(z3.substitute(inv, *[(x[i], z3.IntVal(m0[i])) for i in range(len(x))]))
        assert s.check() == z3.sat
        for tr in net.transitions:
            y = list(x)
            for p, w in tr.pre:
                y[p] = y[p] - w
            for p, w in tr.post:
                y[p] = y[p] + w
            s = z3.Solver()
            s.add(*[v >= 0 for v in x], inv)
            s.add(*[x[p] >= w for p, w in tr.pre])
            subst = [(x[i], y[i]) for i in range(len(x)) if y[i] is not x[i]]
            s.add(z3.Not(z3.substitute(inv, *subst)))
            assert s.check() == z3.unsat, tr.label()
        if sd.unreachable:
            s = z3.Solver()
            s.add(*[v >= 0 for v in x], inv, conjunction_to_z3(d, dict(enumerate(x))))
            assert s.check() == z3.unsat


def _toy() -> PetriNet:
    pl = (Place("global", None, "g"), Place("local", "r", "a"), Place("response", "r", "1"),
          Place("local", "r", "b"))
    tr = (
        NetTransition("spawn", "r", (), ((1, 1),), local="a"),
        NetTransition("respond", "r", ((1, 1),), ((2, 1),), local="a", response="1"),
        NetTransition("respond", "r", ((3, 1),), ((2, 1),), local="b", response="1"),
    )
    return PetriNet(pl, tr, ((0, 1),))


def test_dynamic_slices() -> None:
    net = _toy()
    mx = maximal_slice(net, 2)
    assert mx.transitions == (0, 1)  # t2 needs place 3, never marked
    res = minimal_slice(net, 2)
    assert res is not None
    sl, seq = res
    assert seq == (0, 1)
    assert sl.places == (1, 2)
    assert minimal_slice(net, 3, max_states=50) is None
