"""The prover's copy of the checker's exact consecution steps (prover/smt/exact.py): it
must never keep a conjunct that the checker would not keep (docs/certificates.md)."""

from __future__ import annotations

from prover.petri.net import Place
from prover.smt.exact import affine, kept, shift
from prover.smt.formula import TRUE, Aux, Cmp, Const, Ite, Or, PlaceVar, Sum

P = Place("global", None, "{}")
INDEX = {P: 0}
Y = Aux("y")


def test_affine_reads_sums_and_refuses_ite() -> None:
    t = Sum(((2, Y), (-1, PlaceVar(P)), (3, Const(1))))
    assert affine(t, INDEX) == ({"y": 2, 0: -1}, 3)
    assert affine(Ite(TRUE, Y, Y), INDEX) is None


def test_shift_is_exactly_a_plus_k() -> None:
    assert shift(Sum(((1, Y), (4, Const(1)))), "y", INDEX) == 4
    assert shift(Sum(((3, Y), (-2, Y), (1, Const(1)))), "y", INDEX) == 1
    assert shift(Sum(((2, Y), (1, Const(1)))), "y", INDEX) is None
    assert shift(Sum(((1, Aux("z")), (1, Const(1)))), "y", INDEX) is None
    assert shift(Const(0), "y", INDEX) is None


def test_kept_only_for_the_safe_sign() -> None:
    ge = Cmp(">=", Y, Const(0))
    assert kept(ge, {"y": 1}, INDEX) and not kept(ge, {"y": -1}, INDEX)
    assert not kept(ge, {"y": None}, INDEX)
    le = Cmp("<", Sum(((1, PlaceVar(P)), (-1, Y))), Const(1))
    assert kept(le, {0: 1, "y": 1}, INDEX) and not kept(le, {0: 1}, INDEX)
    assert kept(Cmp("=", Y, PlaceVar(P)), {0: 2, "y": 2}, INDEX)
    assert not kept(Cmp("=", Y, PlaceVar(P)), {"y": 2}, INDEX)
    assert not kept(Or((ge,)), {"y": 1}, INDEX)
    assert not kept(Cmp(">=", Ite(TRUE, Y, Y), Const(0)), {"y": 1}, INDEX)
