"""The counterexample table's "executes" column (issue 50, item 4): what a step ran and how
its locals changed, so that two different steps never read alike because a long rest of
the program was cut; both local states where the step is not straight-line code."""

from __future__ import annotations

from prover.certificate.explain import executes


def test_straight_line_code_shows_what_ran() -> None:
    before = "({}, n := IN; IN := n + 1; yield; if(IN <= 1){0}else{exit}; n)"
    after = "({n=1}, if(IN <= 1){0}else{exit}; n)"
    assert executes(before, after, 48) == "n := IN; IN := n + 1; yield  ({} → {n=1})"


def test_the_last_step_ran_the_whole_rest() -> None:
    assert executes("({}, y := X; X := 0; y)", "({}, 0)", 48) == "y := X; X := 0; y"
    assert executes("({a=2}, X := a; -1)", "({a=2}, -1)", 48) == "X := a; -1  ({a=2})"


def test_two_steps_with_a_long_common_rest_read_differently() -> None:
    rest = "; ".join(f"X{i} := {i}" for i in range(30))
    first = executes(f"({{}}, a := 1; yield; {rest})", f"({{}}, {rest})", 20)
    second = executes(f"({{}}, b := 2; yield; {rest})", f"({{}}, {rest})", 20)
    assert first != second and first == "a := 1; yield"


def test_a_loop_step_shows_both_states() -> None:
    before = "({}, while(L == 1){ yield }; L := 1; 0)"
    after = "({}, if(L == 1){yield; while(L == 1){ yield }}else{0}; L := 1; 0)"
    assert executes(before, after, 200) == f"{before} → {after}"


def test_a_spin_says_it_waits() -> None:
    state = "({}, while(L == 1){ yield }; L := 1; 0)"
    assert executes(state, state, 48) == "waits, nothing changes: while(L == 1){ yield }; L := 1; 0"
