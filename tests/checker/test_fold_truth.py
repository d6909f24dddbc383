"""`truth` (checker/fold.py): whether a test holds, when literals and known locals settle
it, as a run reads it: `&&`, `||` and `!` by their operands' truth. Checked against the
run-time semantics of docs/language.md on random tests, and on the shape that needs it:
a transaction that tries every lock, then gives back what it got unless it got them all."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from checker.fold import truth
from tests.checker.test_locking import _cert, _claim, _rejected
from tests.checker.test_parts import _status

ENV = {"a": 0, "b": 3, "c": -2}


def _value(e: Any) -> int | None:
    """The run-time value (None: reads an unknown local `u`)."""
    if e[0] == "int":
        return int(e[1])
    if e[0] == "var":
        return ENV.get(e[1])
    if e[0] == "not":
        v = _value(e[1])
        return None if v is None else int(v == 0)
    left = _value(e[2])
    if e[1] in ("&&", "||"):
        if left is not None and (left == 0) == (e[1] == "&&"):
            return int(e[1] == "||")
        right = _value(e[3])
        return None if left is None or right is None else int(right != 0)
    right = _value(e[3])
    ops = {"<": int.__lt__, "==": int.__eq__, "+": int.__add__}
    return None if left is None or right is None else int(ops[e[1]](left, right))


atoms = st.one_of(st.integers(-3, 3).map(lambda n: ("int", n)),
                  st.sampled_from(["a", "b", "c", "u"]).map(lambda x: ("var", x)))
tests = st.recursive(atoms, lambda kids: st.one_of(
    kids.map(lambda k: ("not", k)),
    st.tuples(st.sampled_from(["&&", "||", "<", "==", "+"]), kids, kids).map(
        lambda t: ("bin", t[0], t[1], t[2]))), max_leaves=8)


@settings(deadline=None)
@given(tests)
def test_truth_is_the_run_time_truth_where_it_is_settled(e: Any) -> None:
    got, want = truth(e, ENV), _value(e)
    assert got is None or want is not None and got == (want != 0)


def test_truth_settles_what_its_operands_settle() -> None:
    a, b, u = ("var", "a"), ("var", "b"), ("var", "u")
    assert truth(("bin", "&&", b, ("not", a)), ENV) is True
    assert truth(("bin", "&&", a, u), ENV) is False  # the right operand does not run
    assert truth(("bin", "||", b, u), ENV) is True
    assert truth(("not", ("bin", "||", a, u)), ENV) is None
    assert truth(("bin", "<", ("int", 0), ("bin", "&&", b, b)), ENV) is None  # a value: Q1


TRY_ALL = """request txn {
  ok := 0;
  while (ok == 0) {
    g0 := 0; g1 := 0;
    if (P0 == 0) { P0 := 1; g0 := 1 } else { 0 };
    yield;
    if (P1 == 0) { P1 := 1; g1 := 1 } else { 0 };
    yield;
    if (g0 && g1) { ok := 1 } else {
      if (g0) { P0 := 0 } else { 0 }; if (g1) { P1 := 0 } else { 0 }; yield }
  };
  a := X0; X0 := 1 - a; yield; b := X1; X1 := 1 - b;
  P0 := 0; P1 := 0;
  if (a == b) { a } else { 9 }
}
"""


def test_a_transaction_that_tries_every_lock_is_proved() -> None:
    assert _claim(TRY_ALL) == {"locks": ["P0", "P1"], "guards": {"X0": "P0", "X1": "P0"}}
    assert _status(_cert(TRY_ALL))[:2] == ("valid", None)
    # with one lock got, it goes on: its failed try answers
    _rejected(_cert(TRY_ALL.replace("if (g0 && g1)", "if (g0 || g1)"), _claim(TRY_ALL)),
              "after a failed validation or try")


@pytest.mark.parametrize("source, claim", [
    # the red team's: the test sets the local it reads, so read afterwards it fails,
    # though it held when it ran: the branch that writes X and yields was not followed
    ("request a { x := 0; if (x == 0 && (x := 1)) { X := 1; yield; y := X; X := 0; y } "
     "else { 1 } }\n", {"locks": [], "guards": {}}),
    ("request u { while (L == 1) { yield }; L := 1; x := X; L := 0;\n  z := 0; if (z == 0 "
     "&& (z := 1)) { X := 7; yield; X := 0 } else { 0 }; x }\n", {"locks": ["L"], "guards": {}}),
])
def test_a_test_is_settled_on_the_locals_before_it_runs(source: str, claim: Any) -> None:
    _rejected(_cert(source, claim), "X is written but has no guard")
    assert _claim(source) is None
