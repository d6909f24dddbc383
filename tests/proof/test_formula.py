from __future__ import annotations

from prover.petri.net import Place
from prover.smt.formula import (
    FALSE,
    TRUE,
    Aux,
    Ite,
    PlaceVar,
    cmp,
    conj,
    const,
    disj,
    evaluate,
    formula_json,
    implies,
    linear,
    neg,
    term_json,
)

G = Place("global", None, "{}")
L = Place("local", "main", "({}, 1)")
R = Place("response", "main", "1")


def test_linear_simplifies() -> None:
    assert linear([]) == const(0)
    assert linear([(1, Aux("x"))]) == Aux("x")
    assert linear([(2, Aux("x")), (-2, Aux("x"))], 3) == const(3)
    t = linear([(1, PlaceVar(G)), (2, Aux("x"))], -1)
    assert term_json(t) == {
        "sum": [[1, {"place": {"global": "{}"}}], [2, {"aux": "x"}], [-1, {"const": 1}]]
    }


def test_boolean_constructors() -> None:
    a = cmp(">=", Aux("x"), const(1))
    assert conj([]) == TRUE and disj([]) == FALSE
    assert conj([TRUE, a]) == a and disj([FALSE, a]) == a
    assert conj([a, FALSE]) == FALSE and disj([a, TRUE]) == TRUE
    assert neg(neg(a)) == a
    assert formula_json(implies(a, FALSE)) == {
        "cmp": "<", "lhs": {"aux": "x"}, "rhs": {"const": 1}
    }
    assert cmp("<", const(1), const(2)) == TRUE


def test_places_json_and_evaluation() -> None:
    f = conj([
        cmp("=", PlaceVar(L), linear([(1, Aux("x")), (-1, Aux("y"))])),
        cmp(">=", Ite(cmp("=", Aux("x"), const(0)), PlaceVar(R), const(5)), const(1)),
    ])
    js = formula_json(f)
    assert js["and"][0]["lhs"] == {"place": {"local": ["main", "({}, 1)"]}}
    assert js["and"][1]["lhs"]["ite"][1] == {"place": {"response": ["main", "1"]}}
    assert evaluate(f, {L: 1, R: 0}, {"x": 2, "y": 1})
    assert not evaluate(f, {L: 1, R: 0}, {"x": 0, "y": -1})
    assert evaluate(f, {L: 0, R: 1}, {"x": 0, "y": 0})
