"""Parser: ser-reference §1 (lexical rules, grammar, precedence, folding) and the
canonical text of docs/naming.md."""

from __future__ import annotations

import pytest

from prover.errors import IntegerRangeError, SerError, SerSyntaxError
from prover.frontend import ast
from prover.frontend.ast import Add, And, Assign, Eq, Not, Num, Or, Seq, Sub, Var
from prover.frontend.parser import parse


def expr(src: str) -> ast.Expr:
    prog = parse(src)
    assert len(prog.requests) == 1
    return prog.requests[0].body


def v(name: str) -> Var:
    return Var(name)


# ---- program structure --------------------------------------------------------------


def test_bare_expression_is_one_request_named_request() -> None:
    prog = parse("X := X + 1")
    assert [r.name for r in prog.requests] == ["request"]


def test_request_blocks_keep_order() -> None:
    prog = parse("request b { 1 } request a { 2 } request c { x }")
    assert [(r.name, r.body.text) for r in prog.requests] == [("b", "1"), ("a", "2"), ("c", "x")]


def test_repeated_request_name_is_located() -> None:
    with pytest.raises(SerSyntaxError, match="request 'b' is defined twice") as info:
        parse("request b { 1 }\nrequest a { 2 }\nrequest b { x }")
    assert info.value.location is not None and info.value.location.line == 3


def test_no_top_level_declarations() -> None:
    with pytest.raises(SerSyntaxError):
        parse("A := 100, B := 50")
    with pytest.raises(SerSyntaxError):
        parse("A := 1 request r { 1 }")


@pytest.mark.parametrize("src", ["request r { 1 } x", "request { 1 }", "request if { 1 }"])
def test_bad_program_structure(src: str) -> None:
    with pytest.raises(SerSyntaxError):
        parse(src)


# ---- precedence and associativity ---------------------------------------------------


def test_precedence_chain() -> None:
    e = expr("a + b == c && d || e")
    assert e == Or(And(Eq(Add(v("a"), v("b")), v("c")), v("d")), v("e"))


def test_not_binds_tighter_than_plus() -> None:
    assert expr("!x + 1") == Add(Not(v("x")), Num(1))
    assert expr("!!x") == Not(Not(v("x")))


def test_left_associative_operators() -> None:
    assert expr("a - b - c") == Sub(Sub(v("a"), v("b")), v("c"))
    assert expr("a + b - c") == Sub(Add(v("a"), v("b")), v("c"))
    assert expr("a && b && c") == And(And(v("a"), v("b")), v("c"))
    assert expr("a || b || c") == Or(Or(v("a"), v("b")), v("c"))


def test_right_associative_sequence_and_assignment() -> None:
    assert expr("a; b; c") == Seq(v("a"), Seq(v("b"), v("c")))
    assert expr("x := y := 3") == Assign("x", Assign("y", Num(3)))
    assert expr("x := a || b") == Assign("x", Or(v("a"), v("b")))


def test_equality_is_not_associative() -> None:
    with pytest.raises(SerSyntaxError):
        parse("a == b == c")
    assert expr("(a == b) == c") == Eq(Eq(v("a"), v("b")), v("c"))


def test_assignment_is_not_an_operand_without_parentheses() -> None:
    with pytest.raises(SerSyntaxError):
        parse("a || b := 3")
    assert expr("(b := 3) + 1") == Add(Assign("b", Num(3)), Num(1))


def test_conditions_and_bodies_are_full_expressions() -> None:
    e = expr("while (y := y - 1; y == 0) { x := ?; yield }")
    assert isinstance(e, ast.While)
    assert isinstance(e.cond, Seq) and isinstance(e.body, Seq)


# ---- if / else, blocks, separators ----------------------------------------------------


@pytest.mark.parametrize(
    "src",
    [
        "if (x) {1}",
        "if (x) {1} else {}",
        "if (x) {} else {1}",
        "if x {1} else {2}",
        "if (a) {1} else if (b) {2}",
        "while (x) {}",
        "()",
        "request r { }",
    ],
)
def test_if_needs_else_and_blocks_need_expressions(src: str) -> None:
    with pytest.raises(SerSyntaxError):
        parse(src)


def test_nested_if_in_braces_is_fine() -> None:
    assert isinstance(expr("if (a) {1} else { if (b) {2} else {3} }"), ast.If)


def test_else_if_is_a_nested_if() -> None:
    assert expr("if (a) {1} else if (b) {2} else {3}") == expr(
        "if (a) {1} else { if (b) {2} else {3} }"
    )


@pytest.mark.parametrize("src", ["x;", "request r { x := 1; }", "a; b;", "request r { x; } "])
def test_trailing_semicolon_is_an_error(src: str) -> None:
    with pytest.raises(SerSyntaxError, match="trailing"):
        parse(src)


# ---- constant folding (§1.4) ---------------------------------------------------------


@pytest.mark.parametrize(
    ("src", "text"),
    [
        ("1 == 1", "1"),
        ("1 == 2", "0"),
        ("2 + 3", "5"),
        ("0 - 5", "-5"),
        ("1 - 2 - 3", "-4"),
        ("!0", "1"),
        ("!7", "0"),
        ("0 && x", "0"),
        ("3 && x", "x"),
        ("1 || x", "1"),
        ("0 || x", "x"),
        ("5; x", "x"),
        ("if (0) {a} else {b}", "b"),
        ("if (2) {a} else {b}", "a"),
        ("while (0) { x := 1 }", "0"),
        ("while (1) { x := 1 }", "while(1){ x := 1 }"),
        ("x; y", "x; y"),
        ("x + 1 + 2", "x + 1 + 2"),
        ("0 && exit", "0"),
        ("if (1 == 1) { 4 } else { exit }", "4"),
    ],
)
def test_folding(src: str, text: str) -> None:
    assert expr(src).text == text


def test_quirk_q1_fold_keeps_the_operand_value() -> None:
    # `X := (1 && 5)` stores 5 (folding does not normalise to 0/1).
    assert expr("X := (1 && 5)") == Assign("X", Num(5))
    assert expr("X := (0 || 7)") == Assign("X", Num(7))
    assert expr("X := (2 || 7)") == Assign("X", Num(1))


# ---- lexical structure ------------------------------------------------------------------


def test_keywords_and_ordinary_identifiers() -> None:
    for name in ("skip", "return", "int", "iffy", "elsewhere", "requests", "globals", "True"):
        assert expr(f"{name} := 1") == Assign(name, Num(1))
    for kw in ("if", "else", "while", "yield", "exit", "request", "global"):
        with pytest.raises(SerSyntaxError):
            parse(f"{kw} := 1")


def test_identifiers() -> None:
    assert expr("_tmp + N_1_ACTIVE + n_1_x2") == Add(
        Add(v("_tmp"), v("N_1_ACTIVE")), v("n_1_x2")
    )
    assert expr("xé1 := 1") == Assign("xé1", Num(1))
    with pytest.raises(SerSyntaxError):
        parse("éx := 1")
    with pytest.raises(SerSyntaxError):
        parse("1x")


def test_comments_and_whitespace() -> None:
    assert expr("x // a comment\n\t+ 1 // another\r\n") == Add(v("x"), Num(1))
    with pytest.raises(SerSyntaxError, match="no request"):
        parse("// only a comment\n")


@pytest.mark.parametrize(
    "src",
    ["x : 3", "a = b", "a & b", "a | b", "a ** b", "a < b < c", "a == b != c", "a <> b",
     "a, b", '"s"', "x\x01", "a >= b >= c", "x++", "x += 1", "a ! b"],
)
def test_lexical_and_unsupported_syntax_errors(src: str) -> None:
    with pytest.raises(SerSyntaxError):
        parse(src)


def test_integer_literals_are_signed_64_bit() -> None:
    assert expr("9223372036854775807") == Num(2**63 - 1)
    with pytest.raises(IntegerRangeError) as info:
        parse("request r {\n  x := 9223372036854775808 }")
    assert info.value.location is not None
    assert (info.value.location.line, info.value.location.column) == (2, 8)
    with pytest.raises(IntegerRangeError):
        parse("9223372036854775807 + 1")
    assert expr("0 - 9223372036854775807 - 1") == Num(-(2**63))


def test_error_location_line_column_and_caret() -> None:
    src = "request a { 1 }\nrequest b { x := ; }\n"
    with pytest.raises(SerSyntaxError) as info:
        parse(src, "m.ser")
    err = info.value
    assert err.location is not None
    assert (err.location.path, err.location.line, err.location.column) == ("m.ser", 2, 18)
    rendered = err.render().splitlines()
    assert rendered[0].startswith("m.ser:2:18: error[E-SYNTAX]")
    assert rendered[1] == "  request b { x := ; }"
    assert rendered[2] == "  " + " " * 17 + "^"


def test_error_at_end_of_input() -> None:
    with pytest.raises(SerSyntaxError) as info:
        parse("request a {\n  x := 1\n")
    assert info.value.location is not None
    assert info.value.location.line == 2


def test_deep_nesting_is_a_clean_error_and_long_sequences_are_fine() -> None:
    with pytest.raises(SerError):
        parse("(" * 500 + "x" + ")" * 500 + " + !" * 1)
    with pytest.raises(SerSyntaxError, match="nested"):
        parse("!" * 300 + "x")
    body = "; ".join(f"x{i} := {i}" for i in range(3000))
    assert isinstance(expr(body), Seq)


# ---- canonical printing (docs/naming.md) ------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("(a - b) - c", "a - (b - c)"),
        ("(a + b) + c", "a + (b + c)"),
        ("(a; b); c", "a; (b; c)"),
        ("(a || b) || c", "a || (b || c)"),
        ("(a && b) && c", "a && (b && c)"),
        ("!(a + b)", "!a + b"),
        ("x := (a; b)", "(x := a); b"),
        ("(a == b) + 1", "a == (b + 1)"),
        ("(a || b) && c", "a || (b && c)"),
    ],
)
def test_printing_is_injective(a: str, b: str) -> None:
    ea, eb = expr(a), expr(b)
    assert ea != eb
    assert ea.text != eb.text


@pytest.mark.parametrize(
    ("src", "text"),
    [
        ("a - b - c", "a - b - c"),
        ("a - (b - c)", "a - (b - c)"),
        ("a; b; c", "a; b; c"),
        ("(a; b); c", "(a; b); c"),
        ("x := (y := 1)", "x := y := 1"),
        ("x := (a; b)", "x := (a; b)"),
        ("(a == b) == c", "(a == b) == c"),
        ("!(a + b)", "!(a + b)"),
        ("if (x) { y := 1; 2 } else { 3 }", "if(x){y := 1; 2}else{3}"),
        ("while (x) { y := 1; yield }", "while(x){ y := 1; yield }"),
        ("x := ?", "x := ?"),
        ("X := 1; yield; y := X; X := 0; y", "X := 1; yield; y := X; X := 0; y"),
    ],
)
def test_canonical_text(src: str, text: str) -> None:
    assert expr(src).text == text
