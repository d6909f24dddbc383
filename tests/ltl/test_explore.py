"""The LTL-X search (prover/ltl/buchi.py, prover/ltl/explore.py): the automaton of a
formula accepts a lasso exactly when the formula holds on it (hypothesis, against
prover/ltl/lasso.py), and the search gives the hand-known verdicts that SPIN gives too
(tests/ltl/test_promela.py; bench/bench_ltl.py compares with SPIN at large)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from prover.frontend.load import load_model
from prover.ltl.buchi import Automaton, translate
from prover.ltl.explore import search
from prover.ltl.formula import Formula, parse_formula
from prover.ltl.lasso import Observation, holds, satisfies, ser_globals
from tests.ltl.test_lasso import formulas, obs

ROOT = Path(__file__).resolve().parents[2]


def accepts(aut: Automaton, word: list[Observation], loop: int) -> bool:
    """Whether the automaton has an accepting run on word[:loop] word[loop:]^ω."""
    n = len(word)

    def ok(q: int, i: int) -> bool:
        return all(satisfies(a, word[i]) for a in aut.label[q])

    def nxt(node: tuple[int, int]) -> list[tuple[int, int]]:
        i, q = node
        j = i + 1 if i + 1 < n else loop
        return [(j, q2) for q2 in aut.succ[q] if ok(q2, j)]

    def reach(src: tuple[int, int]) -> set[tuple[int, int]]:
        seen: set[tuple[int, int]] = set()
        todo = list(nxt(src))
        while todo:
            x = todo.pop()
            if x not in seen:
                seen.add(x)
                todo += nxt(x)
        return seen

    starts = [(0, q) for q in aut.initial if ok(q, 0)]
    reachable = set(starts).union(*(reach(s) for s in starts)) if starts else set()
    closure = {x: reach(x) for x in reachable}
    for x in reachable:
        if x in closure[x] and all(any(y[1] in acc and x in closure[y] and y in closure[x]
                                       for y in reachable) for acc in aut.accepting):
            return True
    return False


@given(formulas(), st.lists(st.tuples(st.integers(0, 1), st.integers(0, 1)), min_size=1,
                            max_size=5), st.data())
def test_the_automaton_accepts_exactly_the_lassos_where_the_formula_holds(
        f: Formula, cells: list[tuple[int, int]], data: st.DataObject) -> None:
    word = [obs(a, b) for a, b in cells]
    loop = data.draw(st.integers(0, len(word) - 1))
    assert accepts(translate(f), word, loop) == holds(f, word, loop)


LOCK = ROOT / "examples" / "intro-lock.ser"
NONSER = ROOT / "examples" / "intro-nonser.ser"


@pytest.mark.parametrize("model, k, formula, fair, violated", [
    (LOCK, 2, "G (X <= 1)", "none", False),
    (LOCK, 2, "G (inflight(main) <= 1)", "none", True),
    (LOCK, 2, "F done(main) == 2", "none", True),
    (LOCK, 2, "G (L == 1 -> F L == 0)", "none", True),
    (LOCK, 2, "G (L == 1 -> F L == 0)", "weak", False),
    (LOCK, 2, "G (answered(main, 1) == done(main))", "none", False),
    (NONSER, 2, "G (answered(main, 0) == 0)", "none", True),
    (NONSER, 1, "G (answered(main, 0) == 0)", "none", False),
    (ROOT / "examples" / "bank-atomic.ser", 1, "F G A == 0", "weak", True),  # A stays -1
])
def test_hand_known_verdicts(model: Path, k: int, formula: str, fair: str,
                             violated: bool) -> None:
    ns = load_model(str(model)).ns
    phi = parse_formula(formula, ser_globals(ns), frozenset(e.request for e in ns.requests))
    result = search(ns, phi, k, fairness=fair)
    assert result.verdict == ("violated" if violated else "holds")
    if violated:
        assert result.lasso is not None
        states, loop = result.lasso
        assert 0 <= loop < len(states) and states[0] == (ns.initial_global, (None,) * k, (),
                                                         False)


def test_the_state_bound_gives_undecided() -> None:
    ns = load_model(str(LOCK)).ns
    phi = parse_formula("G (X <= 1)", ser_globals(ns), frozenset({"main"}))
    assert search(ns, phi, 3, max_states=5).verdict == "undecided"


@pytest.mark.parametrize("formula", ["G (X <= 1)", "G (inflight(main) <= 2)",
                                     "G (L == 1 -> F L == 0)", "F done(main) == 3"])
def test_request_symmetry_changes_states_never_verdicts(formula: str) -> None:
    ns = load_model(str(LOCK)).ns
    phi = parse_formula(formula, ser_globals(ns), frozenset({"main"}))
    plain = search(ns, phi, 3, symmetry=False, reduction=False)
    folded = search(ns, phi, 3, reduction=False)
    assert folded.verdict == plain.verdict
    assert folded.system_states < plain.system_states


UNLOCKED = """request deposit0 { if (A0 == 2) {0} else { A0 := A0 + 1 }; 0 }
request move0 { if (A0 == 0) {0} else { if (A1 == 2) {0} else { A0 := A0 - 1; A1 := A1 + 1 } }; 0 }
request audit { s := 0; s := s + A0; yield; s := s + A1; s }
"""


@pytest.mark.parametrize("formula", [
    "G (A0 + A1 <= 4)", "G (inflight(audit) <= 2)", "F done(audit) >= 1",
    "G (inflight(audit) > 0 -> F done(audit) > 0)", "G F (A1 == 0)",
    "(A1 == 0) U (A0 == 1)", "F G (A0 == 0)"])
@pytest.mark.parametrize("symmetry", [False, True])
def test_ample_sets_change_states_never_verdicts(tmp_path: Path, formula: str,
                                                 symmetry: bool) -> None:
    model = tmp_path / "unlocked.ser"
    model.write_text(UNLOCKED)
    ns = load_model(str(model)).ns
    phi = parse_formula(formula, ser_globals(ns), frozenset(e.request for e in ns.requests))
    plain = search(ns, phi, 3, symmetry=symmetry, reduction=False)
    reduced = search(ns, phi, 3, symmetry=symmetry)
    assert reduced.verdict == plain.verdict
    assert reduced.states <= plain.states


def test_the_reduction_needs_independent_invisible_steps(tmp_path: Path) -> None:
    model = tmp_path / "unlocked.ser"
    model.write_text(UNLOCKED)
    ns = load_model(str(model)).ns
    names = frozenset(e.request for e in ns.requests)
    # audit's local steps (s := 0 ...) touch no global: reduced when the formula cannot
    # see them; a formula over A0 makes the steps on A0 visible (and never reduced)
    quiet = parse_formula("G (inflight(audit) <= 3)", ser_globals(ns), names)
    assert search(ns, quiet, 3).states < search(ns, quiet, 3, reduction=False).states


def test_what_a_step_touches() -> None:
    from prover.ltl.reduce import access

    spin = access("({}, while(L == 1){ yield }; L := 1; X := 1; yield; y := X; X := 0; y)")
    assert spin.now == {"L", "X"} and spin.later == {"L", "X"}
    assert access("({}, y := X; yield; Z := 1; y)").now == {"X"}
    assert access("({s=1}, s := s + 1; yield; A := s; 0)").now == frozenset()
    assert access("({}, if(A == 0){ yield }else{ B := 1 }; C := 2; 0)").now == {"A", "B", "C"}
    assert access("({y=1}, 1)") == access("({}, 0)")
