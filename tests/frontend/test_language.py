"""The language of issue 14: comparisons, arithmetic, unary minus, `else if`, initial
values of globals, modelling errors, hints and warnings, in both front ends."""

from __future__ import annotations

import re

import pytest

from checker import model as checker_model
from checker import semantics as checker_semantics
from checker.errors import ModelError
from checker.program import parse_program
from prover.errors import DivisionByZeroError, IntegerRangeError, SerError, SerSyntaxError
from prover.frontend.load import load_source
from prover.frontend.parser import parse


def _checker_compile(src: str) -> checker_semantics.NS:
    """The checker's closure NS of a Ser program."""
    return checker_semantics.explore(checker_semantics.ser_semantics(src))


def text(src: str) -> str:
    return parse(f"request r {{ {src} }}").requests[0].body.text


def checker_text(src: str) -> str:
    return checker_model.expr_text(parse_program(f"request r {{ {src} }}")[1][0][1])


# ---- precedence (C's) and canonical text with minimal parentheses ---------------------

CASES = [
    ("a + b * c", "a + b * c"),
    ("(a + b) * c", "(a + b) * c"),
    ("a * b * c", "a * b * c"),
    ("a * (b * c)", "a * (b * c)"),
    ("a / b % c", "a / b % c"),
    ("a / (b % c)", "a / (b % c)"),
    ("-a * b", "-a * b"),
    ("-(a * b)", "-(a * b)"),
    ("- - a", "--a"),
    ("a - -b", "a - -b"),
    ("a - (b - c)", "a - (b - c)"),
    ("a - b - c", "a - b - c"),
    ("a < b + 1", "a < b + 1"),
    ("(a < b) + 1", "(a < b) + 1"),
    ("a < b == c", "a < b == c"),
    ("a < (b == c)", "a < (b == c)"),
    ("(a < b) < c", "(a < b) < c"),
    ("a != b && b >= c || !d", "a != b && b >= c || !d"),
    ("!-a", "!-a"),
    ("-!a", "-!a"),
    ("!(a < b)", "!(a < b)"),
    ("x := a <= b", "x := a <= b"),
    ("-5 * x", "-5 * x"),
    ("x * -5", "x * -5"),
    ("(a == b) == c", "(a == b) == c"),
    ("if (a > 0) {1} else if (a < 0) {-1} else {0}", "if(a > 0){1}else{if(a < 0){-1}else{0}}"),
]


@pytest.mark.parametrize(("src", "want"), CASES)
def test_canonical_text_is_the_same_in_both_front_ends(src: str, want: str) -> None:
    assert text(src) == want
    assert checker_text(src) == want
    assert text(want) == want  # the text parses back to the same tree


@pytest.mark.parametrize(
    ("src", "value"),
    [
        ("7 / 2", 3), ("-7 / 2", -3), ("7 / -2", -3), ("-7 / -2", 3),  # toward zero
        ("7 % 2", 1), ("-7 % 2", -1), ("7 % -2", 1), ("-7 % -2", -1),  # sign of the dividend
        ("2 + 3 * 4", 14), ("(2 + 3) * 4", 20), ("2 < 3", 1), ("3 <= 3", 1), ("3 > 3", 0),
        ("4 >= 5", 0), ("1 != 2", 1), ("-(3 - 5)", 2), ("--3", 3),
        ("0 - 9223372036854775807 - 1", -(2**63)),
        ("(0 - 9223372036854775807 - 1) % -1", 0),
    ],
)
def test_constant_folding(src: str, value: int) -> None:
    assert text(src) == str(value)
    assert checker_text(src) == str(value)


@pytest.mark.parametrize(
    "src",
    ["3037000500 * 3037000500", "(0 - 9223372036854775807 - 1) / -1",
     "-(0 - 9223372036854775807 - 1)", "4611686018427387904 * 2"],
)
def test_folding_overflow_is_an_error_in_both(src: str) -> None:
    with pytest.raises(IntegerRangeError) as info:
        parse(f"request r {{\n  {src} }}")
    assert info.value.location is not None and info.value.location.line == 2
    with pytest.raises(ModelError, match="64 bits"):
        _checker_compile(f"request r {{ {src} }}")


def test_folded_division_by_zero_is_located() -> None:
    with pytest.raises(DivisionByZeroError) as info:
        parse("request r {\n  x := 1 + 4 % (2 - 2) }", "m.ser")
    loc = info.value.location
    assert loc is not None and (loc.line, loc.column) == (2, 14)
    with pytest.raises(ModelError, match="division by zero"):
        _checker_compile("request r { x := 4 % (2 - 2) }")


def test_run_time_division_by_zero_is_located() -> None:
    src = "request r {\n  x := ?;\n  y := 10 / x; y }"
    with pytest.raises(DivisionByZeroError) as info:
        load_source(src, "ser", "m.ser")
    err = info.value
    assert err.location is not None and (err.location.line, err.location.column) == (3, 11)
    assert "request 'r'" in err.message and "10 / x" in err.message
    assert "m.ser:3:11" in err.render()
    with pytest.raises(ModelError, match="division by zero"):
        _checker_compile(src)


def test_unreachable_division_by_zero_is_fine() -> None:
    src = "request r { x := ?; if (x != 0) { 10 / x } else { 0 } }"
    ns = load_source(src, "ser").ns
    assert {r.response for r in ns.responses} == {"0", "10"}
    assert {r for _, r in _checker_compile(src).responses} == {"0", "10"}


def test_run_time_overflow_is_located() -> None:
    src = "request r {\n  X := 3037000500;\n  X * X }"
    with pytest.raises(IntegerRangeError) as info:
        load_source(src, "ser", "m.ser")
    assert info.value.location is not None and info.value.location.line == 3
    with pytest.raises(ModelError, match="64 bits"):
        _checker_compile(src)
    with pytest.raises(IntegerRangeError):
        load_source("X := 0 - 9223372036854775807 - 1; -X", "ser")


# ---- initial values of globals --------------------------------------------------------


BANK = """
global A := 100, B := 50;
global Z := 0;  // zero values are dropped from the state's name
request withdraw { if (A < 30) { 0 } else { A := A - 30; 1 } }
"""


def test_initial_values_give_the_initial_global_state() -> None:
    ns = load_source(BANK, "ser").ns
    assert ns.initial_global == "{A=100,B=50}"
    assert {t.from_global for t in ns.transitions} >= {"{A=100,B=50}", "{A=70,B=50}"}
    theirs = _checker_compile(BANK)
    assert theirs.initial == "{A=100,B=50}"
    assert set(theirs.transitions) == {
        (t.from_local, t.from_global, t.to_local, t.to_global) for t in ns.transitions
    }


def test_initial_values_with_a_bare_expression_and_negative_values() -> None:
    ns = load_source("global T := -1; T := -T; T", "ser").ns
    assert ns.initial_global == "{T=-1}"
    assert {r.response for r in ns.responses} == {"1", "-1"}
    assert _checker_compile("global T := -1; T := -T; T").initial == "{T=-1}"
    big = "global M := -9223372036854775808; M"
    assert load_source(big, "ser").ns.initial_global == "{M=-9223372036854775808}"
    assert _checker_compile(big).initial == "{M=-9223372036854775808}"


@pytest.mark.parametrize(
    ("src", "message"),
    [
        ("global x := 1; 1", "local name"),
        ("global A := 1, A := 2; 1", "initial value twice"),
        ("global A := 1; global A := 1; 1", "initial value twice"),
        ("request r { 1 } global A := 1;", "come first"),
        ("global A := 1 + x; 1", "constant expression"),
        ("global A := 9223372036854775808; 1", "64 bits"),
        ("global true := 1; 1", "Ser has no 'true'"),
        ("global A :=; 1", "unexpected"),
    ],
)
def test_bad_global_declarations(src: str, message: str) -> None:
    with pytest.raises(SerError, match=message) as info:
        parse(src)
    assert info.value.location is not None
    with pytest.raises(ModelError):
        _checker_compile(src)


# ---- modelling errors, hints, warnings ------------------------------------------------


@pytest.mark.parametrize("src", ["x := true", "true", "false := 1", "if (false) {1} else {2}"])
def test_true_and_false_are_not_names(src: str) -> None:
    with pytest.raises(SerSyntaxError, match="Ser has no '(true|false)': write [01]"):
        parse(src)
    with pytest.raises(ModelError, match="write 1 or 0"):
        _checker_compile(src)


def test_repeated_request_names_are_rejected_by_both() -> None:
    with pytest.raises(SerSyntaxError, match="defined twice"):
        parse("request a { 1 } request a { 2 }")
    with pytest.raises(ModelError, match="repeated"):
        _checker_compile("request a { 1 } request a { 2 }")


@pytest.mark.parametrize(
    ("src", "hint"),
    [
        ("if (x = 1) {1} else {2}", "Ser has no '=': write '=='"),
        ("x = 1", "':=' to assign"),
        ("x++", "Ser has no '++': write 'x := x + 1'"),
        ("x := 1; x--", "Ser has no '--'"),
        ("x += 2", "Ser has no '+=': write 'x := x + e'"),
        ("x *= 2", "Ser has no '*='"),
        ("X &&= 1", "Ser has no '&&='"),
        ("a & b", "write '&&'"),
        ("a | b", "write '||'"),
        ("a <> b", "write '!='"),
        ("a ** 2", "Ser has no '**'"),
        ("a /* c */", "comments"),
        ("a < b < c", "do not chain"),
        ("a == b == c", "do not chain"),
        ("if (a) {1}", "needs an 'else'"),
        ("request r { x := 1; }", "trailing ';'"),
        ("return 1", "Ser has no 'return'"),
        ("for (i := 0) { 1 }", "runs over a constant range"),
        ("int x := 1", "no declarations"),
        ('x := "a"', "no strings"),
        ("{ 1 }", "braces"),
    ],
)
def test_hints_for_constructs_of_other_languages(src: str, hint: str) -> None:
    with pytest.raises(SerSyntaxError, match=re.escape(hint)) as info:
        parse(src)
    assert info.value.location is not None
    with pytest.raises(ModelError):
        _checker_compile(src)


def test_a_global_only_ever_read_is_warned_about() -> None:
    m = load_source("request a {\n  Lock := 1; if (Lok == 0) {1} else {2} }", "ser", "m.ser")
    assert [w.code for w in m.warnings] == ["W-WRITE-ONLY", "W-READ-ONLY"]
    assert m.warnings[1].render().startswith(
        "m.ser:2:18: warning[W-READ-ONLY]: global 'Lok' is read but never assigned")
    said = {
        "global K := 3; request a { K + 1 }": "W-CONSTANT",  # its initial value, always
        "global K := 0; request a { K + 1 }": "W-CONSTANT",  # declared, even as 0
        "request a { x }": "W-UNSET-LOCAL",  # locals start at 0: said, since a typo hides
    }
    for src, code in said.items():
        assert [w.code for w in load_source(src, "ser").warnings] == [code], src
    assert load_source("request a { X := 1 } request b { X }", "ser").warnings == ()


def test_a_retry_loop_that_surely_runs_once_sets_what_it_reads_after() -> None:
    """`ok := 0; while (ok == 0) { old := C; ... }; old`: the loop runs at least once
    (the statements before it make its condition true), so `old` is set when read after
    it; a loop whose condition the locals do not settle may run zero times."""
    retry = ("global C := 0; request inc { ok := 0; while (ok == 0) { old := C; yield; "
             "if (C == old) { C := (old + 1) % 3; ok := 1 } else { 0 } }; old }")
    assert load_source(retry, "ser").warnings == ()
    sat = ("global C := 0; request inc { r := -1; while (r < 0) { v := C; yield; "
           "if (C == v) { C := (v + 1) % 3; r := v } else { 0 } }; v + r }")
    assert load_source(sat, "ser").warnings == ()
    maybe = "global C := 0; request inc { while (C == 0) { x := 1; yield }; C := 1; x }"
    assert [w.code for w in load_source(maybe, "ser").warnings] == ["W-UNSET-LOCAL"]
    reset = ("global C := 0; request inc { ok := 0; ok := C; while (ok == 0) { x := 1; "
             "yield; ok := C }; x }")
    assert "W-UNSET-LOCAL" in [w.code for w in load_source(reset, "ser").warnings]
