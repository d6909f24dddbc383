"""LTL-X formulas (prover/ltl/formula.py): operators, operator letters that are globals,
word forms, refusals with their column, and a fuzzer: no input ends in a traceback."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from prover.errors import FormulaError
from prover.ltl.formula import (
    Arith,
    Binary,
    Compare,
    Count,
    Global,
    Num,
    Unary,
    parse_formula,
)

GLOBALS = frozenset({"L", "X", "F", "G", "U", "A0", "A1", "FLAG", "GF", "Until"})
REQUESTS = frozenset({"main", "deposit0"})


def parse(text: str) -> object:
    return parse_formula(text, GLOBALS, REQUESTS)


def test_operators_and_precedence() -> None:
    l1 = Compare("==", Global("L"), Num(1))
    l0 = Compare("==", Global("L"), Num(0))
    assert parse("G (L == 1 -> F L == 0)") == Unary("G", Binary("->", l1, Unary("F", l0)))
    assert parse("L == 1 U L == 0") == Binary("U", l1, l0)
    assert parse("L == 1 && L == 0 || L == 1") == Binary("||", Binary("&&", l1, l0), l1)
    assert parse("L == 1 -> L == 0 -> L == 1") == Binary("->", l1, Binary("->", l0, l1))


def test_letters_that_are_globals_stay_operands() -> None:
    assert parse("G (X == 1)") == Unary("G", Compare("==", Global("X"), Num(1)))
    assert parse("F - 1 > 0") == Compare(">", Arith("-", Global("F"), Num(1)), Num(0))
    assert parse("U == 1 U G == 2") == Binary("U", Compare("==", Global("U"), Num(1)),
                                              Compare("==", Global("G"), Num(2)))
    assert parse("G G == 1") == Unary("G", Compare("==", Global("G"), Num(1)))
    # a name that starts with an operator letter is one name
    assert parse("G FLAG >= 0") == Unary("G", Compare(">=", Global("FLAG"), Num(0)))
    assert parse("GF == 1") == Compare("==", Global("GF"), Num(1))
    assert parse("F GF == 1") == Unary("F", Compare("==", Global("GF"), Num(1)))
    assert parse("L == 1 U Until == 0") == Binary("U", Compare("==", Global("L"), Num(1)),
                                                  Compare("==", Global("Until"), Num(0)))


def test_word_forms_and_counts() -> None:
    assert parse("always (inflight(main) <= 2)") == parse("G inflight(main) <= 2")
    assert parse("L == 1 until L == 0") == parse("L == 1 U L == 0")
    assert parse("L == 1 weak-until L == 0") == parse("L == 1 W L == 0")
    assert parse("L == 1 release L == 0") == parse("L == 1 R L == 0")
    assert parse("eventually done(main) > 0") == Unary(
        "F", Compare(">", Count("done", "main"), Num(0)))
    assert parse("answered(main, -1) == 0") == Compare("==", Count("answered", "main", -1),
                                                       Num(0))


@pytest.mark.parametrize("text, column, words", [
    ("X L == 1", 1, "X (next) is not allowed"),
    ("G next (L == 1)", 3, "X (next) is not allowed"),
    ("G L", 3, "not a formula"),
    ("G (L + (L == 1)) > 0", 9, "a number is needed"),
    ("G (Q == 1)", 4, "unknown global Q"),
    ("G inflight(foo) == 0", 3, "unknown request foo"),
    ("G (L == ", 9, "ends too early"),
    ("G L == 1 &&& L", 12, "unexpected character"),
    ("", 1, "ends too early"),
])
def test_refusals_name_the_column(text: str, column: int, words: str) -> None:
    with pytest.raises(FormulaError) as err:
        parse(text)
    assert err.value.code == "E-FORMULA"
    assert err.value.message.startswith(f"column {column}: ") and words in err.value.message


@given(st.text(alphabet="GFXURW LA01()=<>!&|-+*/%,inflightdonemain ", max_size=30))
def test_no_input_is_a_traceback(text: str) -> None:
    try:
        parse(text)
    except FormulaError as exc:
        assert exc.message.startswith("column ")


@pytest.mark.parametrize("text, what", [
    ("G " + "(" * 5000 + "X == 1" + ")" * 5000, "characters"),
    ("F " * 300 + "X == 1", "operators"),
    (" && ".join(["X == 1"] * 300), "operators"),
    ("G " + "(" * 70 + "X == 1" + ")" * 70, "nests"),
])
def test_a_formula_beyond_the_certificate_limits_is_refused_before_parsing(
        text: str, what: str) -> None:
    with pytest.raises(FormulaError, match=what):
        parse_formula(text, frozenset({"X"}), frozenset({"main"}))


def test_a_formula_at_the_limits_still_parses() -> None:
    text = "G " + "(" * 60 + "X == 1" + ")" * 60
    assert parse_formula(text, frozenset({"X"}), frozenset({"main"})) is not None
