"""Compiler Ser -> NS: ser-reference §2 and the deliberate differences of DESIGN.md."""

from __future__ import annotations

import pytest

from prover.errors import ExitReachedError, IntegerRangeError, SerError, StateBoundError
from prover.frontend.load import load_source
from prover.ns import NetworkSystem, RequestEntry, ResponseEntry, Transition


def ns_of(src: str, bound: int = 100_000) -> NetworkSystem:
    return load_source(src, "ser", "t.ser", state_bound=bound).ns


def responses(src: str) -> set[str]:
    return {r.response for r in ns_of(src).responses}


def test_a2_worked_example_exactly() -> None:
    ns = ns_of("request main { X := 1; yield; y := X; X := 0; y }")
    body = "({}, X := 1; yield; y := X; X := 0; y)"
    resid = "({}, y := X; X := 0; y)"
    assert ns.kind == "ser"
    assert ns.initial_global == "{}"
    assert ns.requests == (RequestEntry("main", body),)
    assert set(ns.local_states) == {body, resid, "({}, 0)", "({y=1}, 1)"}
    assert set(ns.global_states) == {"{}", "{X=1}"}
    assert set(ns.transitions) == {
        Transition(body, "{}", resid, "{X=1}"),
        Transition(body, "{X=1}", resid, "{X=1}"),
        Transition(resid, "{X=1}", "({y=1}, 1)", "{}"),
        Transition(resid, "{}", "({}, 0)", "{}"),
    }
    assert set(ns.responses) == {ResponseEntry("({}, 0)", "0"), ResponseEntry("({y=1}, 1)", "1")}


def test_nondeterminism_forks() -> None:
    ns = ns_of("request r { X := ? }")
    start = "({}, X := ?)"
    assert set(ns.transitions) == {
        Transition(start, "{}", "({}, 0)", "{}"),
        Transition(start, "{}", "({}, 1)", "{X=1}"),
        Transition(start, "{X=1}", "({}, 0)", "{}"),
        Transition(start, "{X=1}", "({}, 1)", "{X=1}"),
    }
    assert {r.response for r in ns.responses} == {"0", "1"}


def test_while_without_yield_runs_in_one_step() -> None:
    ns = ns_of("request r { i := 5; while (!(i == 0)) { i := i - 1; s := s + 2 }; X := s }")
    first = [t for t in ns.transitions if t.from_global == "{}"]
    assert [(t.to_local, t.to_global) for t in first] == [("({s=10}, 10)", "{X=10}")]


def test_loop_revisiting_a_state_is_dropped() -> None:
    ns = ns_of("request r { while (1) { 1 } }")
    assert ns.transitions == () and ns.responses == ()
    ns = ns_of("request r { while (1) { x := 1 - x } }")
    assert ns.transitions == ()
    # Only the looping branch of `?` disappears.
    ns = ns_of("request r { if (?) { while (1) { 1 } } else { 3 } }")
    assert [t.to_local for t in ns.transitions] == ["({}, 3)"]


def test_yield_inside_loop_body_keeps_the_loop() -> None:
    ns = ns_of("request r { while (X == 0) { yield }; 9 }")
    start = "({}, while(X == 0){ yield }; 9)"
    assert Transition(start, "{}", "({}, while(X == 0){ yield }; 9)", "{}") in ns.transitions
    assert Transition(start, "{}", start, "{}") in ns.transitions  # residual == start
    assert ns.transitions == (Transition(start, "{}", start, "{}"),)


def test_yield_in_condition_re_evaluates_the_original_condition() -> None:
    # The reference would continue with `while(X == 0){ X := 1 }; 5` and never yield again.
    src = "request r { while (yield; X == 0) { X := 1 }; 5 }"
    ns = ns_of(src)
    start = "({}, while(yield; X == 0){ X := 1 }; 5)"
    resid = "({}, if(X == 0){X := 1; while(yield; X == 0){ X := 1 }}else{0}; 5)"
    assert Transition(start, "{}", resid, "{}") in ns.transitions
    # From the residual with X = 0, the body runs and the loop yields again.
    assert Transition(resid, "{}", resid, "{X=1}") in ns.transitions
    assert Transition(resid, "{X=1}", "({}, 5)", "{X=1}") in ns.transitions
    assert all("while(X == 0)" not in t.to_local for t in ns.transitions)


def test_response_values() -> None:
    assert responses("request r { x := 1; yield; r := 42 }") == {"42"}
    assert responses("request r { x := 1; yield }") == {"0"}
    assert responses("request r { i := 2; while (!(i == 0)) { i := i - 1 } }") == {"0"}
    assert responses("request init { if (X == 0) { X := 1; A := 100; B := 50 } else {0} }") == {
        "50", "0"
    }
    assert responses("request r { 0 - 1 }") == {"-1"}


def test_quirk_q1_runtime_normalises() -> None:
    assert responses("request r { x := 1; X := (x && 5) }") == {"1"}
    assert responses("request r { X := (1 && 5) }") == {"5"}
    assert responses("request r { x := 0; X := (x || 5) }") == {"1"}


def test_quirk_q3_yielding_right_operand_drops_the_wrapper() -> None:
    assert responses("request r { x := 1; x && (yield; 7) }") == {"7"}
    assert responses("request r { x := 0; x || (yield; 7) }") == {"7"}
    assert responses("request r { x := 1; x && 7 }") == {"1"}


def test_local_and_global_variables() -> None:
    ns = ns_of("request r { _t := 1; N_1 := 2; n_1 := 3; yield; 0 }")
    assert ns.global_states[-1] == "{N_1=2,_t=1}"
    assert any(t.to_local.startswith("({n_1=3}, ") for t in ns.transitions)


def test_locals_restart_at_zero_for_each_request() -> None:
    ns = ns_of("request r { x := x + 1; X := x }")
    assert {r.response for r in ns.responses} == {"1"}


def test_exit_reached_is_an_error() -> None:
    with pytest.raises(ExitReachedError) as info:
        ns_of("request r {\n  X := 1;\n  yield;\n  if (X == 1) { exit } else { 0 } }")
    assert info.value.location is not None and info.value.location.line == 4
    assert "'r'" in info.value.message


def test_exit_that_is_folded_or_never_reached_is_fine() -> None:
    ns_of("request r { if (0) { exit } else { 1 } }")
    ns_of("request r { 0 && exit }")
    ns_of("request r { X := 1; if (X == 2) { exit } else { 0 } }")


def test_state_bound_in_a_loop_names_request_and_variable() -> None:
    with pytest.raises(StateBoundError) as info:
        ns_of("request grow { while (1) { x := x + 1 } }", bound=300)
    msg = info.value.message
    assert "'grow'" in msg and "x (" in msg


def test_state_bound_on_globals_and_locals() -> None:
    with pytest.raises(StateBoundError, match=r"'up'.*X \("):
        ns_of("request up { X := X + 1 }", bound=200)
    with pytest.raises(StateBoundError, match=r"'w'.*y \("):
        ns_of("request w { while (1) { y := y + 1; yield } }", bound=200)


def test_default_bound_suffices_and_is_configurable() -> None:
    src = "request r { X := X + 1; if (X == 50) { X := 0 } else { 0 } }"
    assert len(ns_of(src).global_states) == 50
    with pytest.raises(StateBoundError):
        ns_of(src, bound=10)


def test_arithmetic_overflow_is_an_error() -> None:
    with pytest.raises(IntegerRangeError):
        ns_of("request r { X := X + 9223372036854775807; 0 }")


def test_closure_pairs_every_local_with_every_global() -> None:
    # `b` never runs after `a` set Y, yet the closure explores ({}, b-body) with {Y=1}.
    ns = ns_of("request a { Y := 1 } request b { yield; Y }")
    froms = {(t.from_local, t.from_global) for t in ns.transitions}
    assert ("({}, yield; Y)", "{Y=1}") in froms
    assert ("({}, Y := 1)", "{Y=1}") in froms


def test_repeated_request_names_are_an_error() -> None:
    with pytest.raises(SerError, match="request 'r' is defined twice"):
        ns_of("request r { 1 }\nrequest r { 2 }")


def test_origins_record_source_lines() -> None:
    ns = ns_of("request r {\n  X := 1;\n  yield;\n  y := X;\n  y\n}")
    assert ns.origins is not None and len(ns.origins) == len(ns.transitions)
    by = dict(zip(ns.transitions, ns.origins, strict=True))
    first = [o.lines for t, o in by.items() if t.from_global == "{}" and "X := 1" in t.from_local]
    assert first == [(2, 3)]
    assert all(set(o.lines) <= {2, 3, 4, 5} for o in ns.origins)


def test_long_statement_lists_compile() -> None:
    body = "; ".join(f"x{i} := {i % 3}" for i in range(2000)) + "; yield; 1"
    ns = ns_of(f"request r {{ {body} }}")
    assert len(ns.transitions) == 1


def test_compilation_is_deterministic() -> None:
    src = "request a { X := ?; yield; Y := X + 1 } request b { while (X == 0) { yield }; X }"
    assert ns_of(src) == ns_of(src)
    assert ns_of(src).transitions == ns_of(src).transitions


def test_chains_of_choices_do_not_multiply_paths() -> None:
    body = "x := ?; " + "; ".join("x := x + ?" for _ in range(40)) + "; X := x"
    ns = ns_of(f"request r {{ {body} }}")
    assert {r.response for r in ns.responses} == {str(i) for i in range(42)}


@pytest.mark.parametrize("op", ["+", "-", "==", "&&", "||"])
def test_nesting_close_to_the_limit_compiles(op: str) -> None:
    src = "request r { " + "(" * 195 + "(yield; 1)" + f" {op} x)" * 195 + " }"
    assert len(ns_of(src).transitions) >= 1
