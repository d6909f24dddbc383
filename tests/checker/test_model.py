"""The checker's own front end against ser-reference §1–§4 and the DESIGN differences."""

from __future__ import annotations

import json

import pytest

from checker.errors import LimitError, ModelError
from checker.model import expr_text
from checker.net import build_net
from checker.program import parse_program
from checker.semantics import NS, explore, load_ns_json, ser_semantics
from checker.serial import build_serial
from checker.serial_search import is_serial
from tests.benchmarks import PAPER, needs_paper

BENCH = PAPER


def compile_ser(text: str) -> NS:
    return explore(ser_semantics(text))


def text(src: str) -> str:
    return expr_text(parse_program(f"request r {{ {src} }}")[1][0][1])


@pytest.mark.parametrize("src,want", [
    ("(a - b) - c", "a - b - c"),
    ("a - (b - c)", "a - (b - c)"),
    ("!x + 1", "!x + 1"),
    ("!(x + 1)", "!(x + 1)"),
    ("x := y := 3", "x := y := 3"),
    ("(x := 1) + 1", "(x := 1) + 1"),
    ("a || b && c", "a || b && c"),
    ("(a || b) && c", "(a || b) && c"),
    ("(a == b) == c", "(a == b) == c"),
    ("a; (b; c)", "a; b; c"),
    ("(a; b); c", "(a; b); c"),
    ("if (x) {1} else {while (y) { y := y - 1 }}", "if(x){1}else{while(y){ y := y - 1 }}"),
    ("z := (1 && 5)", "z := 5"),  # quirk Q1: folding keeps the right operand
    ("0 - 5", "-5"),
    ("0 || e", "e"),
    ("3; x", "x"),
    ("while (0) { x }", "0"),
    ("if (2) {a} else {b}", "a"),
])
def test_folding_and_canonical_text(src: str, want: str) -> None:
    assert text(src) == want


@pytest.mark.parametrize("src,where", [
    ("request a { x; }", "line 1 column 16"),
    ("request a {\n  x := \n}", "line 3 column 1"),
    ("request a { 1 # 2 }", "unexpected character '#'"),
    ("request a { a == b == c }", "unexpected token '=='"),
    ("request if { 1 }", "unexpected token 'if'"),
    ("request a { {} }", "unexpected token"),
    ("request a { if (x) {1} }", "unexpected token"),
    ("", "unexpected"),
    ("request a { 1 }\nx", "line 2 column 1"),
    ("request a { 9223372036854775808 }", "outside signed 64 bits"),
    ("request a { X := 9223372036854775807; X := X + 1 }", "outside signed 64 bits"),
])
def test_syntax_errors_name_their_place(src: str, where: str) -> None:
    with pytest.raises(ModelError, match=None) as exc:
        compile_ser(src)
    assert where in str(exc.value)


def test_bare_expression_is_request_named_request() -> None:
    ns = compile_ser("X := 1; X")
    assert [r for r, _ in ns.requests] == ["request"]


def test_reference_worked_example_a2() -> None:
    ns = compile_ser("request main { X := 1; yield; y := X; X := 0; y }")
    body, mid = "({}, X := 1; yield; y := X; X := 0; y)", "({}, y := X; X := 0; y)"
    assert set(ns.transitions) == {
        (body, "{}", mid, "{X=1}"), (body, "{X=1}", mid, "{X=1}"),
        (mid, "{X=1}", "({y=1}, 1)", "{}"), (mid, "{}", "({}, 0)", "{}")}
    assert set(ns.responses) == {("({}, 0)", "0"), ("({y=1}, 1)", "1")}
    aut = build_serial(ns)
    assert ("{}", "main", "1", "{}") in aut.edges and ("{}", "main", "0", "{}") not in aut.edges
    sem = ser_semantics("request main { X := 1; yield; y := X; X := 0; y }")
    assert is_serial(sem, {("main", "1"): 3})
    assert not is_serial(sem, {("main", "1"): 1, ("main", "0"): 1})


def test_while_with_yielding_condition_tests_the_original_condition() -> None:
    # DESIGN: the reference would replace the condition by its residual (quirk Q2)
    ns = compile_ser("request r { while (yield; X == 0) { X := 1 }; 7 }")
    again = "({}, if(X == 0){X := 1; while(yield; X == 0){ X := 1 }}else{0}; 7)"
    # after one iteration the loop yields in its (original) condition again
    assert set(ns.transitions) == {
        ("({}, while(yield; X == 0){ X := 1 }; 7)", "{}", again, "{}"),
        ("({}, while(yield; X == 0){ X := 1 }; 7)", "{X=1}", again, "{X=1}"),
        (again, "{}", again, "{X=1}"),
        (again, "{X=1}", "({}, 7)", "{X=1}")}


def test_exit_only_when_reachable() -> None:
    assert compile_ser("request a { if (0) {exit} else {1} }").responses == (("({}, 1)", "1"),)
    with pytest.raises(ModelError, match="exit"):
        compile_ser("request a { if (X) {exit} else {1} } request b { X := 1 }")


def test_yield_free_cycle_gets_stuck_and_growth_hits_the_bound() -> None:
    ns = compile_ser("request a { while (1) { 1 } }")
    assert ns.transitions == () and ns.responses == ()
    with pytest.raises(ModelError, match="yield-free loop"):
        compile_ser("request a { while (1) { x := x + 1 } }")
    with pytest.raises(ModelError, match="variable N"):
        compile_ser("request a { N := N + 1; yield; 0 }")


@pytest.mark.parametrize("body", [
    "; ".join(f"v{i} := ?" for i in range(40)) + "; X := 1; 0",  # seq
    " + ".join(f"(v{i} := ?)" for i in range(40)),  # nested operands
    "if (" + " + ".join(f"(v{i} := ?)" for i in range(40)) + ") { 1 } else { 0 }",
])
def test_one_atomic_step_with_too_many_outcomes_is_refused_as_it_grows(body: str) -> None:
    """2^40 outcomes in one step: refused after 100,000 of them (ser-prove's default
    bound), not after memory runs out (a red-team pass: 3 GB, then an internal error)."""
    with pytest.raises(LimitError, match="more than 100000 outcomes"):
        compile_ser(f"request a {{ {body} }}")


def test_locals_and_globals() -> None:
    ns = compile_ser("request a { _g := 1; x := 2; Y := x; Y }")
    assert ns.transitions[0][3] == "{Y=2,_g=1}"
    assert ns.transitions[0][2] == "({x=2}, 2)"


def test_ns_json_loader() -> None:
    ns = load_ns_json(json.dumps({"initial_global": "G", "requests": [["R", "L"], ["R", "L"]],
                                  "responses": [["L", "ok"]], "transitions": [], "extra": 1}))
    assert ns.requests == (("R", "L"),)  # identical entries merged, extras ignored
    for bad in ['{"initial_global": "G"}', '{"a": 1, "a": 2}', "[]", "{",
                '{"initial_global": "G", "requests": [["R"]], "responses": [], "transitions": []}',
                '{"initial_global": "G", "requests": [], "responses": [],'
                '"transitions": [[1,2,3,4]]}']:
        with pytest.raises(ModelError):
            load_ns_json(bad)


@needs_paper
def test_net_sizes_match_the_reference_on_all_benchmarks() -> None:
    expected = json.loads((BENCH / "expected.json").read_text())
    for name, row in expected.items():
        src = (BENCH / name).read_text()
        ns = compile_ser(src) if name.endswith(".ser") else load_ns_json(src)
        net = build_net(ns)
        assert (len(net.places), len(net.transitions)) == (
            row["reference_petri_places"], row["reference_petri_transitions"]), name
