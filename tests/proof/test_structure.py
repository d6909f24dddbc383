"""Structural helpers of the state-equation engine on hand-made nets."""

from __future__ import annotations

from prover.engines.state_equation import _maximal_trap, live_structure
from prover.petri.net import NetTransition, PetriNet, Place


def _net() -> PetriNet:
    # SMPT's trap example: t: a -> b, u: b -> a, v: a b -> a; plus a dead branch w: c -> d.
    a, b, c, d = (Place("global", None, s) for s in "abcd")
    ts = (
        NetTransition("step", "r", ((0, 1),), ((1, 1),), local="x"),
        NetTransition("step", "r", ((1, 1),), ((0, 1),), local="x"),
        NetTransition("step", "r", ((0, 1), (1, 1)), ((0, 1),), local="x"),
        NetTransition("step", "r", ((2, 1),), ((3, 1),), local="x"),
    )
    return PetriNet((a, b, c, d), ts, ((0, 1),))


def test_live_structure() -> None:
    markable, live = live_structure(_net())
    assert markable == frozenset({0, 1})
    assert live == (0, 1, 2)


def test_maximal_trap() -> None:
    net = _net()
    markable, live = live_structure(net)
    # a deadlock-like spurious solution marking nothing: {a, b} is a marked trap
    assert _maximal_trap(net, live, markable, set()) == {0, 1}
    # a solution marking b: no trap avoids b except the empty one
    assert _maximal_trap(net, live, markable, {1}) == set()
