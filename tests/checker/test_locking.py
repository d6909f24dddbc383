"""Two-phase locking (docs/certificates.md, "Two-phase locking"): requests that take their
locks before releasing any and touch each global written only under its lock are
serializable, whatever the number of accounts. The checker follows every path of every
request from its own parse and rejects every claim the rules do not give: a global
written without a guard or touched without it on one path, a lock read or written
outside an acquisition or a release, an acquisition after a release or of a lock held, a
lock that starts at 1, an `exit` left on a path, too many paths, and a correct twin's
claim grafted onto a buggy program."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from checker.locking import _fold, _stmts, touched
from checker.program import parse_program
from prover.certificate.write import locking_certificate
from prover.frontend.load import load_source
from prover.frontend.locking import find
from tests.checker.test_parts import _decide, _status

Json = Any


def _bank(k: int) -> str:
    """K accounts with a lock each; a transfer takes its two locks in index order (the
    accounts chosen by input); an audit takes every lock and sums."""
    lock = " else ".join(f"if (x == {i}) {{ while (L{i} == 1) {{ yield }}; L{i} := 1 }}"
                         for i in range(k)) + " else { 0 }"
    read = lambda v, a: " else ".join(  # noqa: E731
        f"if ({a} == {i}) {{ {v} := B{i} }}" for i in range(k)) + " else { 0 }"
    write = lambda a, e: " else ".join(  # noqa: E731
        f"if ({a} == {i}) {{ B{i} := {e} }}" for i in range(k)) + " else { 0 }"
    free = "; ".join(f"L{i} := 0" for i in range(k))
    audit_lock = "; ".join(f"while (L{i} == 1) {{ yield }}; L{i} := 1; yield" for i in range(k))
    return f"""global {", ".join(f"B{i} := 1" for i in range(k))};
request transfer {{
  i := ?(0..{k - 1}); j := ?(0..{k - 2}); if (j >= i) {{ j := j + 1 }} else {{ 0 }};
  if (i < j) {{ lo := i; hi := j }} else {{ lo := j; hi := i }};
  x := lo; {lock}; yield;
  x := hi; {lock};
  {read("bi", "i")}; {read("bj", "j")}; yield;
  if (bi > 0) {{ {write("i", "bi - 1")}; {write("j", "bj + 1")} }} else {{ 0 }};
  if (i == 0 || j == 0) {{ L0 := 0 }} else {{ 0 }};
  {free};
  bi * 10 + bj
}}
request audit {{
  {audit_lock};
  s := {" + ".join(f"B{i}" for i in range(k))};
  {free};
  s
}}
"""


BANK = _bank(3)
LOCKED = """global X := 1;
request inc { while (L == 1) { yield }; L := 1; x := X; yield; X := x + 1; L := 0; x }
request get { while (L == 1) { yield }; L := 1; x := X; L := 0; x }
"""


def _cert(source: str, claim: Json | None = None) -> Json:
    model = load_source(source, "ser", "m.ser", lazy=True)
    found = find(source, None) if claim is None else claim
    assert found is not None
    return locking_certificate(model, found)


def _rejected(cert: Json, needle: str = "") -> None:
    status, code, message = _status(cert)
    assert (status, code) == ("invalid", "E-LOCKING"), message
    assert needle in message, message


def test_a_bank_of_three_is_proved_by_its_locks() -> None:
    found = find(BANK, None)
    assert found == {"locks": ["L0", "L1", "L2"], "guards": {"B0": "L0", "B1": "L1", "B2": "L2"}}
    status, code, message = _status(_cert(BANK))
    assert (status, code) == ("valid", None), message
    assert "3 globals guarded by 3 locks" in _status(_cert(BANK))[2]


def test_the_prover_answers_a_lock_program_by_locking(tmp_path: Path) -> None:
    status, cert = _decide(tmp_path, _bank(6))
    assert status == "serializable" and cert["producer"]["engine"] == "locking"
    assert sorted(cert["locking"]["guards"]) == [f"B{i}" for i in range(6)]


def test_a_buggy_twin_gets_its_counterexample_not_the_claim(tmp_path: Path) -> None:
    """The audit that sums without the locks: no claim, and the engines find the bug."""
    buggy = BANK.replace("s := B0", "yield; s := B0").replace(
        "while (L0 == 1) { yield }; L0 := 1; yield; while", "while").replace(
        "; L0 := 0; L1 := 0; L2 := 0;\n  s", "; L1 := 0; L2 := 0;\n  s")
    assert find(buggy, None) is None
    status, cert = _decide(tmp_path, buggy)
    assert status == "not_serializable" and "counterexample" in cert


@pytest.mark.parametrize("edit, needle", [
    (lambda c: c["guards"].pop("B1"), "B1 is written but has no guard"),
    (lambda c: c["guards"].update(B1="L0"), "B1 is touched without its lock L0"),
    (lambda c: c["guards"].update(B9="L0"), "B9 is touched without its lock L0, or not at all"),
    (lambda c: c["guards"].update(B1="L7"), "a guard is no lock"),
    (lambda c: c["guards"].update(L1="L0"), "a guard is no lock or is a lock"),
    (lambda c: c["locks"].append("L1"), "the locks repeat"),
    (lambda c: c["locks"].remove("L2"), ""),  # L2 := 1 is then a write without a guard
])
def test_an_edited_claim_is_rejected(edit: Any, needle: str) -> None:
    claim = copy.deepcopy(find(BANK, None))
    edit(claim)
    _rejected(_cert(BANK, claim), needle)


@pytest.mark.parametrize("source, needle", [
    (LOCKED.replace("global X := 1;", "global X := 1, L := 1;"), "lock L does not start at 0"),
    (LOCKED.replace("x := X; L := 0; x }", "x := X; L := 0; X + 0 }"),
     "X is touched without its lock"),  # a read after the release
    (LOCKED.replace("X := x + 1; L := 0", "L := 0; X := x + 1"), "X is touched without"),
    (LOCKED + "request peek { if (L == 1) { 0 } else { 1 } }\n", "lock L is read or written"),
    (LOCKED + "request grab { L := 1; 0 }\n", "lock L is read or written"),
    (LOCKED + "request drop { L := 0; 0 }\n", "lock L is read or written"),
    (LOCKED.replace("x := x + 1; L := 0; x }", "x := X + 1; L := 0; x }")
     .replace("X := x + 1; L := 0; x }", "X := x + 1; L := 0; "
              "while (L == 1) { yield }; L := 1; L := 0; x }"), "released a lock before"),
    (LOCKED.replace("L := 1; x := X; yield;", "L := 1; while (L == 1) { yield }; L := 1; "
                    "x := X; yield;"), "holds it already"),
    (LOCKED.replace("x := X; L := 0; x }", "x := X; assert (x > 0); L := 0; x }"),
     "may reach exit"),
    (LOCKED + "request spin { while (L == 1) { yield }; 0 }\n", "outside an acquisition"),
    (LOCKED + "request wait { while (L == 1) { yield }; L := 1; "
              "while (X == 0) { L := 0; yield; L := 1 }; L := 0; 0 }\n", "other than an acq"),
    ("global X;\nrequest m { a := ?(0..40); b := ?(0..40); c := ?(0..40); "
     "while (L == 1) { yield }; L := 1; X := a + b + c; L := 0; 0 }\n", "paths"),
])
def test_a_program_outside_the_rules_is_rejected(source: str, needle: str) -> None:
    """The claim the rules would give the correct program, on a program they refuse."""
    _rejected(_cert(source, {"locks": ["L"], "guards": {"X": "L"}}), needle)
    assert find(source, None) is None


def test_a_correct_twins_claim_on_a_buggy_bank_is_rejected() -> None:
    """The transfer credits the destination after giving back its lock: the claim of the
    correct bank, grafted, fails on the path that does it."""
    buggy = BANK.replace("if (bi > 0) {", "L1 := 0; if (bi > 0) {", 1)
    _rejected(_cert(buggy, find(BANK, None)))


def test_a_lock_chosen_by_a_data_branch_holds_on_neither_path() -> None:
    """`if (X == 0)` is no input: both branches are followed, and on each the other lock is
    not held where the shared global is written."""
    src = """global X;
request m {
  if (X == 0) { while (A == 1) { yield }; A := 1 } else { while (B == 1) { yield }; B := 1 };
  X := 1; 0
}
"""
    foot = touched(src, None, frozenset({"A", "B"}))
    assert foot.written == {"X"} and foot.held_at["X"] == frozenset({"free"})


def test_a_choice_past_64_values_is_an_unknown_local() -> None:
    src = """global X;
request m {
  k := ?(0..99);
  if (k == 0) { while (A == 1) { yield }; A := 1 } else { while (B == 1) { yield }; B := 1 };
  X := 1; 0
}
"""
    assert touched(src, None, frozenset({"A", "B"})).held_at["X"] == frozenset({"free"})
    narrow = src.replace("?(0..99)", "?(0..9)")
    foot = touched(narrow, None, frozenset({"A", "B"}))
    assert foot.held_at["X"] == frozenset({"free"})  # A on k = 0, B elsewhere: neither always
    assert foot.held_at["X"] < frozenset({"free", "A"}) | {"B"}


def test_folding_is_the_run_time_semantics() -> None:
    env = {"a": 2, "b": 0}
    assert _fold(("bin", "/", ("var", "a"), ("var", "b")), env) is None  # a fault: unsettled
    assert _fold(("bin", "&&", ("var", "a"), ("int", 1)), env) is None  # never Q1-folded
    assert _fold(("bin", "+", ("var", "a"), ("var", "X")), env) is None  # a global: unknown
    assert _fold(("not", ("bin", "<", ("var", "a"), ("int", 3))), env) == 0


def test_statements_are_read_in_order_however_they_nest() -> None:
    a, b, c = ("assign", "x", ("int", 1)), ("yield",), ("var", "x")
    assert _stmts(("seq", a, ("seq", b, c))) == _stmts(("seq", ("seq", a, b), c)) == [a, b, c]


def test_an_array_bank_is_followed_through_its_indices() -> None:
    """Arrays lowered to `if`s on the index: each path settles them."""
    src = """const K := 4;
global B[K] := 1, L[K];
request t {
  i := ?(0..K-1);
  while (L[i] == 1) { yield }; L[i] := 1;
  x := B[i]; yield; B[i] := x + 1;
  L[i] := 0; x
}
"""
    _, reqs = parse_program(src, {"K": 4})
    claim = find(src, {"K": 4})
    assert claim is not None and claim["guards"] == {f"B[{i}]": f"L[{i}]" for i in range(4)}
