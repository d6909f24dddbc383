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

from checker.fold import fold
from checker.lock_walk import _stmts
from checker.locking import touched
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
    unlock = " else ".join(f"if (x == {i}) {{ L{i} := 0 }}" for i in range(k)) + " else { 0 }"
    audit_lock = "; ".join(f"while (L{i} == 1) {{ yield }}; L{i} := 1; yield" for i in range(k))
    return f"""global {", ".join(f"B{i} := 1" for i in range(k))};
request transfer {{
  i := ?(0..{k - 1}); j := ?(0..{k - 2}); if (j >= i) {{ j := j + 1 }} else {{ 0 }};
  if (i < j) {{ lo := i; hi := j }} else {{ lo := j; hi := i }};
  x := lo; {lock}; yield;
  x := hi; {lock};
  {read("bi", "i")}; {read("bj", "j")}; yield;
  if (bi > 0) {{ {write("i", "bi - 1")}; {write("j", "bj + 1")} }} else {{ 0 }};
  x := hi; {unlock}; x := lo; {unlock};
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
    found = _claim(source) if claim is None else claim
    assert found is not None
    return locking_certificate(model, found)


def _claim(source: str, constants: dict[str, int] | None = None) -> Json | None:
    found = find(source, constants)
    return None if found is None else found.claim


def _rejected(cert: Json, needle: str = "") -> None:
    status, code, message = _status(cert)
    assert (status, code) == ("invalid", "E-LOCKING"), message
    assert needle in message, message


def _refused(base: str, edit: Any, claim: Json, needle: str = "") -> None:
    """`edit` makes of `base` a program outside the rules: the base's claim is rejected on
    it (with `needle` in the reason), and the prover finds no claim of its own."""
    source = edit(base)
    assert source != base
    _rejected(_cert(source, claim), needle)
    assert _claim(source) is None


def test_a_bank_of_three_is_proved_by_its_locks() -> None:
    found = _claim(BANK)
    assert found == {"locks": ["L0", "L1", "L2"], "guards": {"B0": "L0", "B1": "L1", "B2": "L2"}}
    status, code, message = _status(_cert(BANK))
    assert (status, code) == ("valid", None), message


def test_the_prover_answers_a_lock_program_by_locking(tmp_path: Path) -> None:
    status, cert = _decide(tmp_path, _bank(6), locking=True)
    assert status == "serializable" and cert["producer"]["engine"] == "locking"
    assert sorted(cert["locking"]["guards"]) == [f"B{i}" for i in range(6)]


def _early(bank: str) -> str:
    """The transfer gives its locks back, yields, then writes the balances."""
    lines = bank.splitlines()
    write = next(i for i, ln in enumerate(lines) if ln.strip().startswith("if (bi > 0)"))
    lines[write], lines[write + 1] = lines[write + 1] + " yield;", lines[write]
    return "\n".join(lines) + "\n"


def test_a_buggy_twin_gets_its_counterexample_not_the_claim(tmp_path: Path) -> None:
    """The audit that sums without the locks: no claim, and the engines find the bug."""
    audit = BANK.index("request audit")
    buggy = BANK[:audit] + "request audit { a := B0; yield; b := B1; yield; a + b + B2 }\n"
    assert _claim(buggy) is None
    status, cert = _decide(tmp_path, buggy, locking=True)
    assert status == "not_serializable" and "counterexample" in cert


@pytest.mark.parametrize("edit, needle", [
    (lambda c: c["guards"].pop("B1"), "B1 is written but has no guard"),
    (lambda c: c["guards"].update(B1="L0"), "B1 is touched without its lock L0"),
    (lambda c: c["guards"].update(B9="L0"), "'B9' is no global of the program"),
    (lambda c: c["guards"].update(B1="L7"), "'L7' is no global of the program"),
    (lambda c: c["guards"].update(B1="B2"), "a guard is no lock"),
    (lambda c: c["guards"].update(L1="L0"), "a guard is no lock or is a lock"),
    (lambda c: c["locks"].append("L1"), "the locks or readers' counts repeat"),
    (lambda c: c["locks"].remove("L2"), ""),  # L2 := 1 is then a write without a guard
])
def test_an_edited_claim_is_rejected(edit: Any, needle: str) -> None:
    claim = copy.deepcopy(_claim(BANK))
    edit(claim)
    _rejected(_cert(BANK, claim), needle)


@pytest.mark.parametrize("source, needle", [
    (LOCKED.replace("global X := 1;", "global X := 1, L := 1;"), "lock L does not start at 0"),
    (LOCKED.replace("x := X; L := 0; x }", "x := X; L := 0; yield; X + 0 }"),
     "X is touched without its lock"),  # a read after the release (in a later step)
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
    (LOCKED + "request spin { while (L == 1) { yield }; 0 }\n", "loop other than an acq"),
    (LOCKED + "request wait { while (L == 1) { yield }; L := 1; "
              "while (X == 0) { L := 0; yield; L := 1 }; L := 0; 0 }\n", "other than an acq"),
    ("global X;\nrequest m { a := ?(0..40); b := ?(0..40); c := ?(0..40); "
     "while (L == 1) { yield }; L := 1; X := a + b + c; L := 0; 0 }\n", "paths"),
])
def test_a_program_outside_the_rules_is_rejected(source: str, needle: str) -> None:
    """The claim the rules would give the correct program, on a program they refuse."""
    _rejected(_cert(source, {"locks": ["L"], "guards": {"X": "L"}}), needle)
    assert _claim(source) is None


def test_a_correct_twins_claim_on_a_buggy_bank_is_rejected(tmp_path: Path) -> None:
    """The transfer writes the balances after giving its locks back: the claim of the
    correct bank, grafted, fails on the paths that do it; the engines find the bug."""
    buggy = _early(BANK)
    _rejected(_cert(buggy, _claim(BANK)), "touched without its lock")
    assert _claim(buggy) is None
    status, cert = _decide(tmp_path, buggy, locking=True)
    assert status == "not_serializable"


def test_a_lock_chosen_by_a_data_branch_holds_on_neither_path() -> None:
    """`if (X == 0)` is no input: both branches are followed, and on each the other lock is
    not held where the shared global is written."""
    src = """global X;
request m {
  if (X == 0) { while (A == 1) { yield }; A := 1 } else { while (B == 1) { yield }; B := 1 };
  X := 1; 0
}
"""
    foot = touched(src, None, frozenset({"A", "B"}), {})
    assert foot.written == {"X"} and foot.held_at["X", True] == frozenset({"free"})


def test_a_choice_past_64_values_is_an_unknown_local() -> None:
    src = """global X;
request m {
  k := ?(0..99);
  if (k == 0) { while (A == 1) { yield }; A := 1 } else { while (B == 1) { yield }; B := 1 };
  X := 1; 0
}
"""
    assert touched(src, None, frozenset({"A", "B"}), {}).held_at["X", True] == frozenset({"free"})
    narrow = src.replace("?(0..99)", "?(0..9)")
    foot = touched(narrow, None, frozenset({"A", "B"}), {})
    assert foot.held_at["X", True] == frozenset({"free"})  # A at k = 0, B elsewhere


def test_folding_is_the_run_time_semantics() -> None:
    env = {"a": 2, "b": 0}
    assert fold(("bin", "/", ("var", "a"), ("var", "b")), env) is None  # a fault: unsettled
    assert fold(("bin", "&&", ("var", "a"), ("int", 1)), env) is None  # never Q1-folded
    assert fold(("bin", "+", ("var", "a"), ("var", "X")), env) is None  # a global: unknown
    assert fold(("not", ("bin", "<", ("var", "a"), ("int", 3))), env) == 0


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
    claim = _claim(src, {"K": 4})
    assert claim is not None and claim["guards"] == {f"B[{i}]": f"L[{i}]" for i in range(4)}


BUFFER = """request put {
  v := ?(1..2);
  while (M == 1 || N == 2) { yield }; M := 1;
  if (T == 0) { S0 := v } else { S1 := v }; yield;
  T := (T + 1) % 2; N := N + 1; M := 0; v
}
request take {
  while (M == 1 || N == 0) { yield }; M := 1;
  if (H == 0) { x := S0; S0 := 0 } else { x := S1; S1 := 0 }; yield;
  H := (H + 1) % 2; N := N - 1; M := 0; x
}
"""


def test_a_wait_for_room_joined_to_the_lock_test_is_read_under_the_lock() -> None:
    """`while (M == 1 || N == 2)`: N is read in the step that takes M."""
    claim = _claim(BUFFER)
    assert claim == {"locks": ["M"], "guards": {g: "M" for g in ("H", "N", "S0", "S1", "T")}}
    assert _status(_cert(BUFFER))[:2] == ("valid", None)


@pytest.mark.parametrize("source, needle", [
    # a second lock whose other test reads N, which M guards: K alone is not M
    (BUFFER.replace("M := 1;\n  if (H == 0)", "M := 1; M := 0; while (K == 1 || N == 9) "
                    "{ yield }; K := 1; K := 0;\n  if (H == 0)"), "released a lock before"),
    (BUFFER + "request peek { while (K == 1 || N == 9) { yield }; K := 1; K := 0; 0 }\n",
     "N is touched without its lock M"),
    (BUFFER.replace("M == 1 || N == 0", "M == 1 || (x := N) == 0"), "loop other than an acq"),
    (BUFFER.replace("M == 1 || N == 0", "M == 1 || M == 2"), "lock M is read"),
    (BUFFER.replace("M == 1 || N == 0", "M == 1 && N == 0"), "loop other than an acq"),
])
def test_an_acquisitions_other_tests_only_read(source: str, needle: str) -> None:
    claim = _claim(BUFFER)
    assert claim is not None
    if "K" in source:
        claim["locks"].append("K")
    _rejected(_cert(source, claim), needle)


# red team findings (each accepted a program that is not serializable before its fix)
@pytest.mark.parametrize("source", [
    # the right operand of && / || may not run: the lock may not be taken
    "request m { c := 0; c && (while (L == 1) { yield }; L := 1); X := 1; yield; y := X; "
    "X := 0; L := 0; y }\n",
    "request m { c := 1; c || (while (L == 1) { yield }; L := 1); X := 1; yield; y := X; "
    "X := 0; L := 0; y }\n",
    "request m { c := ?; c && (while (L == 1) { yield }; L := 1); X := 1; yield; y := X; "
    "X := 0; if (c) { L := 0 } else { 0 }; y }\n",
    # nor is what it sets known after it
    "request m { c := 0; c && (k := 1); if (k == 1) { while (L == 1) { yield }; L := 1 } "
    "else { 0 }; X := 1; yield; y := X; X := 0; if (k == 1) { L := 0 } else { 0 }; y }\n",
])
def test_a_lock_taken_in_a_right_operand_is_not_held_after_it(source: str) -> None:
    assert _claim(source) is None
    _rejected(_cert(source, {"locks": ["L"], "guards": {"X": "L"}}))


def test_a_local_is_no_lock() -> None:
    """Each request has its own copy of a local: it excludes nothing."""
    source = ("request m { while (l == 1) { yield }; l := 1; X := 1; yield; y := X; X := 0; "
              "l := 0; y }\n")
    assert _claim(source) is None
    _rejected(_cert(source, {"locks": ["l"], "guards": {"X": "l"}}), "'l' is no global")
    _rejected(_cert(LOCKED, {"locks": ["L"], "shared": [{"writer": "L", "readers": "r"}],
                             "guards": {"X": "L"}}), "'r' is no global")


def test_a_division_by_what_may_be_zero_is_refused() -> None:
    """The claim does not say whether the step faults (docs/language.md: an error)."""
    bad = LOCKED.replace("X := x + 1", "X := 10 / x")
    _rejected(_cert(bad, {"locks": ["L"], "guards": {"X": "L"}}), "divides by what may be 0")
    assert _claim(LOCKED.replace("X := x + 1", "X := (x + 1) % 3")) is not None


RW = """const K := 2;
global D[K];
request write {
  v := ?(1..2);
  while (W == 1 || R > 0) { yield }; W := 1;
  for (k in 0..K-1) { yield; D[k] := v };
  W := 0; v
}
request read {
  while (W == 1) { yield }; R := R + 1;
  a := D[0]; yield; b := D[1];
  R := R - 1; a * 10 + b
}
"""


def test_a_readers_writer_lock_lets_readers_read_together() -> None:
    claim = _claim(RW, {"K": 2})
    assert claim == {"locks": ["W"], "shared": [{"writer": "W", "readers": "R"}],
                     "guards": {"D[0]": "W", "D[1]": "W"}}
    model = load_source(RW, "ser", "rw.ser", lazy=True, defines={"K": 2})
    assert _status(locking_certificate(model, claim))[:2] == ("valid", None)


@pytest.mark.parametrize("edit, needle", [
    # the writer does not wait for the readers: it writes while they read
    (lambda s: s.replace("W == 1 || R > 0", "W == 1"), "other than an acquisition"),
    # a reader writes a cell under its shared hold
    (lambda s: s.replace("b := D[1];", "b := D[1]; D[0] := 0;"), "D[0] is touched without"),
    # a reader reads after giving its hold back
    (lambda s: s.replace("R := R - 1; a * 10 + b", "R := R - 1; a * 10 + D[1]"),
     "D[1] is touched without"),
    # the count read elsewhere, or changed otherwise
    (lambda s: s.replace("a * 10 + b\n", "a * 10 + b + R\n"), "lock R is read"),
    (lambda s: s.replace("R := R - 1", "R := 0"), "lock R is read or written"),
    # a reader takes its hold twice (an upgrade or a second read)
    (lambda s: s.replace("a := D[0]; yield;", "a := D[0]; yield; while (W == 1) { yield }; "
                         "R := R + 1; R := R - 1;"), "holds it already"),
])
def test_a_readers_writer_lock_outside_its_rules_is_rejected(edit: Any, needle: str) -> None:
    claim = _claim(RW, {"K": 2})
    source = edit(RW)
    model = load_source(source, "ser", "rw.ser", lazy=True, defines={"K": 2})
    _rejected(locking_certificate(model, claim), needle)


@pytest.mark.parametrize("shared, needle", [
    ([{"writer": "W", "readers": "R"}, {"writer": "W", "readers": "S"}], "'S' is no global"),
    ([{"writer": "W", "readers": "R"}, {"writer": "W", "readers": "D[0]"}], "repeat or overlap"),
    ([{"writer": "V", "readers": "R"}], "repeat or overlap"),  # V is no lock
    ([{"writer": "W", "readers": "W"}], "repeat or overlap"),
    ([], "other than an acquisition"),  # R read as data: the writer's wait is no more one
])
def test_a_forged_readers_count_is_rejected(shared: Json, needle: str) -> None:
    claim = {**_claim(RW, {"K": 2}), "shared": shared}
    model = load_source(RW, "ser", "rw.ser", lazy=True, defines={"K": 2})
    _rejected(locking_certificate(model, claim), needle)


def test_locks_taken_in_one_order_deadlock_nowhere(tmp_path: Path) -> None:
    """prover/frontend/locking.py: the bank's locks are taken in index order, so no
    execution deadlocks (reported without a search); AB/BA's are not."""
    from prover.frontend.locking import waits_in_order

    assert waits_in_order(touched(BANK, None, frozenset({"L0", "L1", "L2"}), {}))
    abba = "request ab { while (A == 1) { yield }; A := 1; yield; while (B == 1) { yield }; " \
        "B := 1; A := 0; B := 0; 0 }\nrequest ba { while (B == 1) { yield }; B := 1; " \
        "yield; while (A == 1) { yield }; A := 1; A := 0; B := 0; 0 }\n"
    assert not waits_in_order(touched(abba, None, frozenset({"A", "B"}), {}))
    assert not waits_in_order(touched(BUFFER, None, frozenset({"M"}), {}))  # waits for room
    status, cert = _decide(tmp_path, BANK, locking=True)
    assert status == "serializable" and "deadlock" not in cert


# red team, round 2: a readers' count's value, and names that are no globals
@pytest.mark.parametrize("reader", [
    # the release is the answer: it reads how many readers still hold the lock
    "request rd { while (W == 1) { yield }; R := R + 1; yield; x := D; R := R - 1 }\n",
    # the acquisition's value: how many readers hold it with this one
    "request rd { y := (while (W == 1) { yield }; R := R + 1); yield; x := D; R := R - 1; "
    "y }\n",
])
def test_a_readers_count_is_never_read_through_its_changes(reader: str) -> None:
    source = ("request wr { while (W == 1 || R > 0) { yield }; W := 1; D := D + 1; W := 0; 0 }\n"
              + reader)
    assert _claim(source) is None
    claim = {"locks": ["W"], "shared": [{"writer": "W", "readers": "R"}], "guards": {"D": "W"}}
    _rejected(_cert(source, claim))


@pytest.mark.parametrize("claim, needle", [
    # the internal mark of "W or R held", as a lock's name: readers would write D
    ({"locks": ["W", "W shared"], "shared": [{"writer": "W", "readers": "R"}],
      "guards": {"D": "W shared"}}, "'W shared' is no global"),
    ({"locks": ["W", ""], "guards": {"D": "W"}}, "'' is no global"),
    ({"locks": ["W"], "shared": [{"writer": "W", "readers": ""}], "guards": {"D": "W"}},
     "'' is no global"),
])
def test_every_name_of_the_claim_is_a_global_of_the_program(claim: Json, needle: str) -> None:
    source = ("request wr { while (W == 1 || R > 0) { yield }; W := 1; D := D + 1; W := 0; 0 }\n"
              "request rd { while (W == 1) { yield }; R := R + 1; x := D; D := x + 1; "
              "R := R - 1; x }\n")
    _rejected(_cert(source, claim), needle)


COUNTED = """// textbook readers-writer lock: RC counted under M; first in takes W, last out frees
request read {
  while (M == 1 || RC == 2) { yield }; M := 1; RC := RC + 1;
  yield;
  if (RC == 1) { while (W == 1) { yield }; W := 1 } else { 0 };
  M := 0;
  yield;
  a := X;
  yield;
  b := Y;
  yield;
  while (M == 1) { yield }; M := 1; RC := RC - 1;
  if (RC == 0) { W := 0 } else { 0 };
  M := 0;
  a * 10 + b
}
request write {
  n := ?(1..2);
  while (W == 1) { yield }; W := 1;
  X := n;
  yield;
  Y := n;
  W := 0;
  n
}
"""
COUNTED_CLAIM = {"locks": ["W"], "guards": {"X": "W", "Y": "W"},
                 "shared": [{"writer": "W", "readers": "RC", "mutex": "M"}]}


def test_readers_counted_under_a_mutex_share_the_first_readers_lock(tmp_path: Path) -> None:
    assert _claim(COUNTED) == COUNTED_CLAIM
    assert _status(_cert(COUNTED))[:2] == ("valid", None)
    # the `if` on the count before the increment (and after the decrement) is the same lock
    turned = COUNTED.replace(
        "RC := RC + 1;\n  yield;\n  if (RC == 1) { while (W == 1) { yield }; W := 1 } else { 0 };",
        "if (RC == 0) { while (W == 1) { yield }; W := 1 } else { 0 }; yield; RC := RC + 1;",
    ).replace("RC := RC - 1;\n  if (RC == 0) { W := 0 } else { 0 };",
              "if (RC == 1) { W := 0 } else { 0 }; RC := RC - 1;")
    assert turned != COUNTED and _claim(turned) == COUNTED_CLAIM
    status, cert = _decide(tmp_path, COUNTED, locking=True)
    assert status == "serializable" and cert["locking"] == COUNTED_CLAIM


@pytest.mark.parametrize("edit, needle", [
    # the first reader lets M go before it has W: a second reader reads during a write
    (lambda s: s.replace("M := 1; RC := RC + 1;\n  yield;\n  if (RC == 1) { while (W == 1) { "
                         "yield }; W := 1 } else { 0 };\n  M := 0;",
                         "M := 1; RC := RC + 1; M := 0;\n  if (RC == 1) { while (W == 1) { "
                         "yield }; W := 1 } else { 0 };"), "mutex M is taken other than"),
    # the last reader out is judged by the count before its decrement
    (lambda s: s.replace("if (RC == 0) { W := 0 }", "if (RC == 1) { W := 0 }"), "mutex M"),
    # every reader takes W (a second one waits for the first forever, or reads beside it)
    (lambda s: s.replace("if (RC == 1) { while", "if (RC >= 1) { while"), "mutex M"),
    # a wait that lets a reader in only when another is inside: alone, it never enters
    (lambda s: s.replace("M == 1 || RC == 2", "M == 1 || RC == 0"), "mutex M"),
    (lambda s: s.replace("M == 1 || RC == 2", "M == 1 || a == 2"), "mutex M"),
    # a local set inside the entry (it may remember the count)
    (lambda s: s.replace("M := 1; RC := RC + 1;", "M := 1; RC := RC + 1; c := 1;"), "mutex M"),
    # the count changed or read outside an entry or exit
    (lambda s: s.replace("while (M == 1) { yield }; M := 1; RC := RC - 1;\n  if (RC == 0) { "
                         "W := 0 } else { 0 };\n  M := 0;", "RC := RC - 1;"), "lock RC"),
    (lambda s: s.replace("a * 10 + b\n", "a * 10 + b + RC\n"), "lock RC"),
    (lambda s: s.replace("Y := n;", "Y := n; M := 0;"), "lock M"),
    # a reader reads after it left, or writes while inside
    (lambda s: s.replace("M := 0;\n  a * 10 + b", "M := 0;\n  a * 10 + Y"), "Y is touched"),
    (lambda s: s.replace("b := Y;", "b := Y; X := 0;"), "X is touched"),
    # leaves twice, or enters twice
    (lambda s: s.replace("a * 10 + b\n", "while (M == 1) { yield }; M := 1; RC := RC - 1; if ("
                         "RC == 0) { W := 0 } else { 0 }; M := 0; a * 10 + b\n"), "has not"),
    (lambda s: s.replace("a := X;", "a := X; while (M == 1) { yield }; M := 1; RC := RC + 1; "
                         "if (RC == 1) { while (W == 1) { yield }; W := 1 } else { 0 }; "
                         "M := 0;"), "enters RC's readers but"),
    # a writer that is also a reader
    (lambda s: s.replace("X := n;", "X := n; while (M == 1) { yield }; M := 1; RC := RC + 1; "
                         "if (RC == 1) { while (W == 1) { yield }; W := 1 } else { 0 }; "
                         "M := 0;"), "enters RC's readers but"),
])
def test_readers_counted_outside_the_rules_are_rejected(edit: Any, needle: str) -> None:
    source = edit(COUNTED)
    assert source != COUNTED
    _rejected(_cert(source, COUNTED_CLAIM), needle)


@pytest.mark.parametrize("shared, locks, needle", [
    ([{"writer": "W", "readers": "RC", "mutex": "W"}], ["W"], "repeat or overlap"),
    ([{"writer": "W", "readers": "RC", "mutex": "RC"}], ["W"], "repeat or overlap"),
    ([{"writer": "W", "readers": "RC", "mutex": "M"}], ["W", "M"], "repeat or overlap"),
    ([{"writer": "W", "readers": "RC", "mutex": "Mx"}], ["W"], "'Mx' is no global"),
    ([{"writer": "W", "readers": "RC"}], ["W"], "other than an acquisition"),  # no mutex
    ([{"writer": "W", "readers": "RC"}], ["W", "M"], "lock RC is read"),
])
def test_a_forged_counted_readers_claim_is_rejected(shared: Json, locks: Json,
                                                    needle: str) -> None:  # fmt: skip
    _rejected(_cert(COUNTED, {**COUNTED_CLAIM, "locks": locks, "shared": shared}), needle)


def test_a_counted_mutex_that_starts_held_is_rejected() -> None:
    _rejected(_cert("global M := 1;\n" + COUNTED, COUNTED_CLAIM), "does not start at 0")


RETRY = """// a bounded buffer of one slot under one mutex; each end retries until it can go
request put {
  v := ?(1..2); done := 0;
  while (done == 0) {
    while (M == 1) { yield }; M := 1;
    yield;
    if (N < 1) { S := v; yield; N := N + 1; done := 1 } else { 0 };
    M := 0;
    if (done == 0) { yield } else { 0 }
  };
  v
}
request get {
  r := 0; got := 0;
  while (got == 0) {
    while (M == 1) { yield }; M := 1;
    if (N > 0) { r := S; S := 0; yield; N := N - 1; got := 1 } else { 0 };
    M := 0;
    yield
  };
  r
}
"""


def test_a_retry_loop_takes_its_failed_rounds_out(tmp_path: Path) -> None:
    claim = _claim(RETRY)
    assert claim == {"locks": ["M"], "guards": {"N": "M", "S": "M"}}
    assert _status(_cert(RETRY))[:2] == ("valid", None)
    status, cert = _decide(tmp_path, RETRY, locking=True)
    assert status == "serializable" and cert["locking"] == claim


@pytest.mark.parametrize("edit, needle", [
    # the loop's test reads a global
    (lambda s: s.replace("while (done == 0)", "while (done == 0 && N < 9)"), "no retry loop"),
    # a failed round counts its tries (a local changed), or writes a global
    (lambda s: s.replace("} else { 0 };\n    M := 0;\n    if", "} else { t := t + 1 };\n    "
                         "M := 0;\n    if"), "may not end the loop"),
    (lambda s: s.replace("} else { 0 };\n    M := 0;\n    if", "} else { S := 0 };\n    "
                         "M := 0;\n    if"), "may not end the loop"),
    # a round that wrote goes round again (it takes M after releasing it)
    (lambda s: s.replace("N := N + 1; done := 1", "N := N + 1"), "may not end the loop"),
    # a failed round keeps M, or gives back a lock taken before the loop
    (lambda s: s.replace("} else { 0 };\n    M := 0;\n    if", "} else { 0 };\n    "
                         "if (done == 1) { M := 0 } else { 0 };\n    if"), "other locks than"),
    (lambda s: s.replace("r := 0; got := 0;", "r := 0; got := 0; while (K == 1) { yield }; "
                         "K := 1;").replace("N := N - 1; got := 1 } else { 0 };\n    M := 0;",
                                            "N := N - 1; got := 1 } else { K := 0 };\n    M := "
                                            "0;"), "other locks than"),
    # a failed round reads the buffer without its lock (a step after it gave M back)
    (lambda s: s.replace("M := 0;\n    yield\n",
                         "M := 0;\n    yield;\n    z := N;\n    yield\n"), "N is touched without"),
    (lambda s: s.replace("} else { 0 };\n    M := 0;\n    yield\n", "} else { 0 };\n    M := 0;"
                         "\n    yield;\n    if (N > 5) { yield } else { 0 }\n"),
     "N is touched without"),
])
def test_a_retry_loop_outside_its_rules_is_rejected(edit: Any, needle: str) -> None:
    source = edit(RETRY)
    assert source != RETRY
    _rejected(_cert(source, {"locks": ["M", "K"], "guards": {"N": "M", "S": "M"}}
                    if "K := 1" in source else _claim(RETRY)), needle)


_IN = ("while (M == 1{t}) {{ yield }}; M := 1; R := R + 1; if (R == 1) {{ while (W == 1) {{ "
       "yield }}; W := 1 }} else {{ 0 }}; M := 0;")
_OUT = ("while (M == 1{t}) {{ yield }}; M := 1; R := R - 1; if (R == 0) {{ W := 0 }} else {{ 0 "
        "}}; M := 0;")


@pytest.mark.parametrize("source, needle", [
    # red team: a reader that never leaves, and another whose entry waits while R == 1: run
    # alone after the first, it never gets in (R is 1 for good)
    ("request a { " + _IN.format(t="") + " while (L == 1) { yield }; L := 1; Y := 1; L := 0; 0 }\n"
     "request b { " + _IN.format(t=" || R == 1") + " yield; while (L == 1) { yield }; L := 1; "
     "y := Y; L := 0; " + _OUT.format(t="") + " y }\n", "may answer inside R's readers"),
    # an exit that waits while R == 1: alone, a reader leaves at R = 1, its own
    ("request a { " + _IN.format(t="") + " yield; " + _OUT.format(t="") + " 1 }\n"
     "request b { " + _IN.format(t="") + " yield; " + _OUT.format(t=" || R == 1") + " 2 }\n",
     "mutex M is taken other than"),
    # an entry's test that divides by zero once a reader is inside
    ("request r { " + _IN.format(t=" || 6 / (R - 1) == 9") + " yield; " + _OUT.format(t="")
     + " 0 }\n", "mutex M is taken other than"),
    # a wait on the mutex that ends its sequence (nothing follows to set M)
    ("request r { if (?) { while (M == 1) { yield } } else { 0 }; 0 }\n"
     "request w { while (W == 1) { yield }; W := 1; R := R + 1; W := 0; 0 }\n",
     "mutex M is taken other than"),
])
def test_the_red_teams_counted_readers_are_rejected(source: str, needle: str) -> None:
    claim = {"locks": ["W", "L"] if "L := 1" in source else ["W"],
             "guards": {"Y": "L"} if "Y := 1" in source else {},
             "shared": [{"writer": "W", "readers": "R", "mutex": "M"}]}
    _rejected(_cert(source, claim), needle)


SEQ = """// a seqlock: the writer takes S by its parity; a reader retries until S is even, unmoved
request write {
  while (S % 2 == 1) { yield };
  S := S + 1;
  old := A;
  v := ?(1..2);
  yield;
  A := v;
  yield;
  B := v;
  yield;
  S := S + 1;
  old
}
request read {
  done := 0;
  while (!done) {
    s := S;
    yield;
    a := A;
    yield;
    b := B;
    yield;
    if (S == s && s % 2 == 0) { done := 1 } else { 0 }
  };
  a * 10 + b
}
"""
SEQ_CLAIM = {"locks": [], "guards": {"A": "S", "B": "S"}, "sequences": [{"sequence": "S"}]}
SEQ_WL = """// writers serialised by WL; the reader's validation is the value of ok
request write {
  n := ?(1..2);
  while (WL == 1) { yield }; WL := 1; S := S + 1;
  yield;
  A := n;
  yield;
  B := n;
  S := S + 1; WL := 0;
  n
}
request read {
  ok := 0;
  while (ok == 0) {
    s := S;
    yield;
    a := A;
    yield;
    b := B;
    yield;
    ok := (s % 2 == 0) && (S == s)
  };
  a * 10 + b
}
"""
SEQ_WL_CLAIM = {"locks": ["WL"], "guards": {"A": "S", "B": "S"},
                "sequences": [{"sequence": "S", "lock": "WL"}]}


def test_a_seqlock_with_a_sequence_that_grows_is_proved(tmp_path: Path) -> None:
    assert _claim(SEQ) == SEQ_CLAIM and _claim(SEQ_WL) == SEQ_WL_CLAIM
    assert _status(_cert(SEQ))[:2] == ("valid", None)
    assert _status(_cert(SEQ_WL))[:2] == ("valid", None)
    status, cert = _decide(tmp_path, SEQ, locking=True)
    assert status == "serializable" and cert["locking"] == SEQ_CLAIM


@pytest.mark.parametrize("edit, needle", [
    # the reader takes an odd sequence (it reads during a write), or validates early
    (lambda s: s.replace("S == s && s % 2 == 0", "S == s"), "lock S is read"),
    (lambda s: s.replace("b := B;\n    yield;\n    if (S == s && s % 2 == 0) { done := 1 } "
                         "else { 0 }", "if (S == s && s % 2 == 0) { done := 1 } else { 0 };\n"
                         "    b := B"), "B is touched without"),
    # the writer does not wait for an even sequence, or wraps it, or never ends its write
    (lambda s: s.replace("while (S % 2 == 1) { yield };\n  S := S + 1;", "S := S + 1;"),
     "raises sequence S without"),
    (lambda s: s.replace("S := S + 1;\n  old\n", "S := (S + 1) % 4;\n  old\n"), "lock S is"),
    (lambda s: s.replace("S := S + 1;\n  old\n", "old\n"), "may answer in a write"),
    # a reader that answers after a failed validation, or counts its tries
    (lambda s: s.replace("if (S == s && s % 2 == 0) { done := 1 } else { 0 }",
                         "if (S == s && s % 2 == 0) { done := 1 } else { done := 2 }"),
     "after a failed validation"),  # its rounds followed one by one: the failed one answers
    (lambda s: s.replace("done := 0;\n  while (!done) {", "done := 0; t := 0;\n  while (!done) "
                         "{ t := t + 1;").replace("a * 10 + b\n}", "a * 10 + b + t * 100\n}"),
     "may not end the loop"),
    # a failed round sets a local the ending round does not, which is read after the loop
    (lambda s: s.replace("{ done := 1 } else { 0 }", "{ done := 1 } else { z := a }")
     .replace("a * 10 + b\n}", "a * 10 + b + z\n}"), "which the round that ends the loop"),
    # the read to validate is overwritten, or taken twice, or taken by the writer
    (lambda s: s.replace("b := B;", "b := B; s := S;"), "holds a read of a sequence"),
    (lambda s: s.replace("b := B;", "b := B; t := S;"), "while it validates another"),
    (lambda s: s.replace("b := B;", "b := B; s := 0;"), "holds a read of a sequence"),
    (lambda s: s.replace("old := A;", "old := A; s := S;"), "reads sequence S in its write"),
    # no retry: a torn read answers
    (lambda s: s.replace("  done := 0;\n  while (!done) {", "  done := 0;\n  if (1) {")
     .replace("{ done := 1 } else { 0 }\n  };", "{ done := 1 } else { 0 }\n  } else { 0 };"),
     "before it validates"),
])
def test_a_seqlock_outside_the_rules_is_rejected(edit: Any, needle: str) -> None:
    source = edit(SEQ)
    assert source != SEQ
    _rejected(_cert(source, SEQ_CLAIM), needle)


@pytest.mark.parametrize("edit, needle", [
    # WL let go in the middle of the write; the sequence raised without WL
    (lambda s: s.replace("A := n;\n  yield;", "A := n; WL := 0;\n  yield;"), "in the write of"),
    (lambda s: s.replace("WL := 1; S := S + 1;", "WL := 1; WL := 0; S := S + 1;"),
     "raises sequence S without"),
    # the sequence only moves after the write (readers see it unchanged)
    (lambda s: s.replace("WL := 1; S := S + 1;", "WL := 1;").replace(
        "S := S + 1; WL := 0;", "S := S + 2; WL := 0;"), "lock S is read or written"),
    # the validation's test is not one (a local in place of the read)
    (lambda s: s.replace("ok := (s % 2 == 0) && (S == s)", "ok := (s % 2 == 0) && (S == a)"),
     "lock S is read"),
])
def test_a_seqlock_with_a_writers_lock_outside_the_rules_is_rejected(edit: Any,
                                                                     needle: str) -> None:
    source = edit(SEQ_WL)
    assert source != SEQ_WL
    _rejected(_cert(source, SEQ_WL_CLAIM), needle)


@pytest.mark.parametrize("claim, needle", [
    ({**SEQ_CLAIM, "sequences": [{"sequence": "S", "lock": "WL"}]}, "repeat or overlap"),
    ({**SEQ_CLAIM, "locks": ["S"]}, "repeat or overlap"),
    ({**SEQ_CLAIM, "sequences": [{"sequence": "S"}, {"sequence": "S"}]}, "repeat or overlap"),
    ({**SEQ_CLAIM, "sequences": [{"sequence": "Sx"}]}, "'Sx' is no global"),
    ({**SEQ_CLAIM, "sequences": []}, "repeat or overlap"),  # A guarded by what is no lock
    ({**SEQ_CLAIM, "guards": {"A": "S", "B": "S", "S": "S"}}, "repeat or overlap"),
])
def test_a_forged_sequence_claim_is_rejected(claim: Json, needle: str) -> None:
    _rejected(_cert(SEQ, claim), needle)


@pytest.mark.parametrize("start", [1, -2, -1])
def test_a_sequence_that_starts_odd_or_below_0_is_rejected(start: int) -> None:
    """Red team: from -2, `S % 2 == 1` is false at -1 (Ser's `%` keeps the dividend's sign),
    so two writers pass the wait."""
    _rejected(_cert(f"global S := {start};\n" + SEQ, SEQ_CLAIM), "does not start at 0")


OCC = """// one record X with a version V that never wraps; read answers X in one step
request update {
  done := 0;
  while (!done) {
    x := X; v := V;
    yield;
    nx := (x + 1) % 3;
    if (V == v) { X := nx; V := v + 1; done := 1 } else { 0 }
  };
  x
}
request move {
  done := 0;
  while (!done) {
    a := X; va := V;
    yield;
    b := Y; vb := W;
    yield;
    ca := V; cb := W;
    if (ca == va && cb == vb) { X := b; V := va + 1; Y := a; W := vb + 1; done := 1 } else { 0 }
  };
  a * 10 + b
}
request read { X * 10 + Y }
"""
OCC_CLAIM = {"locks": [], "guards": {"X": "V", "Y": "W"},
             "sequences": [{"sequence": "V", "commits": True}, {"sequence": "W", "commits": True}]}


def test_optimistic_updates_with_versions_that_grow_are_proved(tmp_path: Path) -> None:
    # the prover guards Y by V: every write of Y is in a step that raises V too
    assert _claim(OCC) == {**OCC_CLAIM, "guards": {"X": "V", "Y": "V"}}
    assert _status(_cert(OCC))[:2] == ("valid", None)
    assert _status(_cert(OCC, OCC_CLAIM))[:2] == ("valid", None)
    status, cert = _decide(tmp_path, OCC, locking=True)
    assert status == "serializable" and cert["locking"] == _claim(OCC)


@pytest.mark.parametrize("edit, needle", [
    # the commit writes X without raising V, or raises it otherwise, or lowers it
    # (a commit may write X unraised only where X is touched in V's commits alone)
    (lambda s: s.replace("X := nx; V := v + 1;", "X := nx;"), "X is touched without"),
    (lambda s: s.replace("X := nx; V := v + 1;", "X := nx; V := 5;"), "other than by raising"),
    (lambda s: s.replace("X := nx; V := v + 1;", "X := nx; V := v - 1;"), "other than by"),
    # no validation: the raise is from a read that was never checked
    (lambda s: s.replace("if (V == v) { X := nx;", "if (1) { X := nx;"), "other than by"),
    # the validation compares the version with the value's read
    (lambda s: s.replace("if (V == v) {", "if (V == x) {"), "lock V is read"),
    # the write a step after the validation
    (lambda s: s.replace("if (V == v) { X := nx; V := v + 1; done := 1 }",
                         "if (V == v) { V := v + 1; yield; X := nx; done := 1 }"),
     "does not raise it"),
    # the value read a step before the version (the version's read proves nothing of it)
    (lambda s: s.replace("x := X; v := V;", "x := X; yield; v := V;"), "after a release"),
    # a bare read of two records in two steps
    (lambda s: s.replace("request read { X * 10 + Y }", "request read { a := X; yield; a * 10 "
                         "+ Y }"), "reads Y after a release"),
    # a commit that takes a lock in its step
    (lambda s: s.replace("X := nx; V := v + 1;", "X := nx; V := v + 1; while (L == 1) { "
                         "yield }; L := 1; L := 0;"), "takes a lock or loops"),
    # one version of the two validated
    (lambda s: s.replace("if (ca == va && cb == vb)", "if (ca == va)"), "other than by"),
    # a read of the version kept across a wait for a lock (which may yield) is stale
    (lambda s: s.replace("ca := V; cb := W;", "ca := V; cb := W; while (L == 1) { yield }; "
                         "L := 1; L := 0;"), "other than by raising"),
])
def test_an_optimistic_update_outside_the_rules_is_rejected(edit: Any, needle: str) -> None:
    source = edit(OCC)
    assert source != OCC
    claim = {**OCC_CLAIM, "locks": ["L"]} if "L := 1" in source else OCC_CLAIM
    _rejected(_cert(source, claim), needle)


def test_a_version_raised_by_a_statement_of_its_own_is_a_commit() -> None:
    bumped = OCC + "request bump { V := V + 1; W := W + 1; 0 }\n"
    assert _status(_cert(bumped, OCC_CLAIM))[:2] == ("valid", None)
    _rejected(_cert(bumped.replace("V := V + 1;", "V := V - 1;"), OCC_CLAIM), "other than by")


@pytest.mark.parametrize("claim, needle", [
    ({**OCC_CLAIM, "sequences": [{"sequence": "V", "commits": True, "lock": "V"},
                                 {"sequence": "W", "commits": True}]}, "repeat or overlap"),
    ({**OCC_CLAIM, "sequences": [{"sequence": "V"}, {"sequence": "W"}]}, "lock V is read"),
    # X read bare holds W in update's first step: its commit of V comes after a release
    ({**OCC_CLAIM, "guards": {"X": "W", "Y": "V"}}, "after a release"),
])
def test_a_forged_version_claim_is_rejected(claim: Json, needle: str) -> None:
    _rejected(_cert(OCC, claim), needle)


TAS = """// test-and-set locks: each request retries until its test finds the lock free
request inc {
  got := 0;
  while (!got) { if (L == 0) { L := 1; got := 1 } else { yield } };
  x := X; yield; X := x + 1; L := 0; x
}
request get {
  got := 0;
  while (got == 0) { if (L == 1) { yield } else { L := 1; got := 1 } };
  x := X; L := 0; x
}
"""


def test_a_test_and_set_lock_is_taken_where_its_test_finds_it_free(tmp_path: Path) -> None:
    assert _claim(TAS) == {"locks": ["L"], "guards": {"X": "L"}}
    status, cert = _decide(tmp_path, TAS, locking=True)
    assert status == "serializable" and cert["locking"] == _claim(TAS)


@pytest.mark.parametrize("edit, needle", [
    # a failed try that answers (busy): alone, the lock is always free
    (lambda s: s.replace("else { yield } };\n  x := X; yield;", "else { got := 2 } };\n  x := X;"
                         " yield;"), "outside an acquisition or release"),  # gives L back
    (lambda s: s.replace("  got := 0;\n  while (!got) { if (L == 0) { L := 1; got := 1 } else "
                         "{ yield } };", "  if (L == 0) { L := 1 } else { 0 };"),
     "lock L is read"),  # where the try failed, the release is of a lock not held
    (lambda s: s.replace("  got := 0;\n  while (!got) { if (L == 0) { L := 1; got := 1 } else "
                         "{ yield } };\n  x := X; yield; X := x + 1; L := 0; x",
                         "  if (L == 0) { L := 1; x := X; yield; X := x + 1; L := 0 } else "
                         "{ x := 9 }; x"), "after a failed validation or try"),
    # the set is not the first thing the branch does, or the lock is tried after a release
    (lambda s: s.replace("{ L := 1; got := 1 }", "{ got := 1; L := 1 }"), "lock L is read"),
    (lambda s: s.replace("x := X; L := 0; x\n}", "x := X; L := 0; if (L == 0) { L := 1; "
                         "L := 0 } else { 0 }; x\n}"), "released a lock before"),
    # a try of a lock it holds
    (lambda s: s.replace("x := X; L := 0; x\n}", "x := X; if (L == 0) { L := 1 } else { 0 }; "
                         "L := 0; x\n}"), "holds it already"),
])
def test_a_test_and_set_outside_the_rules_is_rejected(edit: Any, needle: str) -> None:
    source = edit(TAS)
    assert source != TAS
    _rejected(_cert(source, {"locks": ["L"], "guards": {"X": "L"}}), needle)


VERSIONED = {"locks": [], "guards": {"X": "V", "Y": "V"},
             "sequences": [{"sequence": "V", "commits": True}]}
_RAISE = "request t { V := V + 1; X := 1; Y := 1; 0 }\n"


@pytest.mark.parametrize("source, needle", [
    # red team: a bare read in a loop's test (each round its own instant), then another
    ("request r { while (X == 1) { yield }; yield; Y }\n" + _RAISE, "bare, in a loop"),
    # a bare read among an acquisition's tests
    ("request r { while (L == 1 || X == 1) { yield }; L := 1; yield; y := Y; L := 0; y }\n"
     + _RAISE, "bare, in a loop or in the test of an acquisition"),
    # a read of V kept across a loop that yields, or set again in one
    ("request inc { d := 0; while (d == 0) { v := V; c := V; x := X; i := 0; while (i < 1) { "
     "yield; i := i + 1 }; if (c == v) { X := x + 1; V := c + 1; d := 1 } else { 0 } }; x }\n",
     "other than by raising"),
    ("request inc { d := 0; while (d == 0) { v := V; x := X; yield; c := V; i := 0; while (i < "
     "1) { c := v; i := i + 1 }; if (c == v) { X := x + 1; V := c + 1; d := 1 } else { 0 } }; "
     "x }\n", "other than by raising"),
])
def test_the_red_teams_versions_are_rejected(source: str, needle: str) -> None:
    claim = {**VERSIONED, "locks": ["L"]} if "L := 1" in source else VERSIONED
    if "Y" not in source:
        claim = {**claim, "guards": {"X": "V"}}
    _rejected(_cert(source, claim), needle)


def test_a_flag_set_once_under_a_lock_is_no_test_and_set() -> None:
    """`if (MOVED == 0) { MOVED := 1; ... } else { ... }` under L reads like a test-and-set;
    the prover falls back to MOVED as a global that L guards."""
    source = LOCKED.replace("X := x + 1; L := 0; x }", "if (M == 0) { M := 1; X := x + 1 } "
                            "else { 0 }; L := 0; x }")
    assert _claim(source) == {"locks": ["L"], "guards": {"M": "L", "X": "L"}}


def test_retry_loops_nested_deep_are_followed_in_linear_work() -> None:
    """Red team: twenty-two test-and-set loops nested in one another took 34 s (the live
    locals of nested loops, a fixpoint in each, were computed afresh for each round);
    checker/live.py keeps each (node, locals after) once."""
    body = "if (L == 0) { L := 1; g := 1 } else { yield }"
    for _ in range(22):
        body = f"g := 0; while (g == 0) {{ {body} }}"
    source = f"request a {{ {body}; X := 1; L := 0; 0 }}\n"
    assert _claim(source) == {"locks": ["L"], "guards": {"X": "L"}}


TICKET = """// a ticket lock: numbers wrap at 4, at most 3 tickets out; get reads C in one step
request inc {
  while (Q == 3) { yield }; Q := Q + 1;
  t := T; T := (T + 1) % 4;
  while (S != t) { yield };
  x := C;
  yield;
  C := (x + 1) % 3;
  S := (S + 1) % 4; Q := Q - 1;
  x
}
request get { C }
"""
TICKET_CLAIM = {"locks": [], "guards": {"C": "S"},
                "tickets": [{"serving": "S", "next": "T", "modulus": 4, "cap": "Q", "limit": 3}]}


def test_a_ticket_lock_serves_its_tickets_in_turn(tmp_path: Path) -> None:
    assert _claim(TICKET) == TICKET_CLAIM
    status, cert = _decide(tmp_path, TICKET, locking=True)
    assert status == "serializable" and cert["locking"] == TICKET_CLAIM
    unbounded = ("request inc { t := T; T := t + 1; while (S != t) { yield }; x := C; yield; "
                 "C := x + 1; S := S + 1; x }\n")
    assert _claim(unbounded) == {"locks": [], "guards": {"C": "S"},
                                 "tickets": [{"serving": "S", "next": "T"}]}
    # the numbers moved on by an `if` at the last one, as others write them
    spelled = TICKET.replace("T := (T + 1) % 4;", "if (T == 3) { T := 0 } else { T := T + 1 };"
                             ).replace("S := (S + 1) % 4;", "if (S == 3) { S := 0 } else { "
                                       "S := S + 1 };")
    assert spelled != TICKET and _claim(spelled) == TICKET_CLAIM
    assert _claim(spelled.replace("if (S == 3) { S := 0 }", "if (S == 2) { S := 0 }")) is None


@pytest.mark.parametrize("edit, needle", [
    # the take split over two steps (two requests take one number), or without a slot
    (lambda s: s.replace("t := T; T := (T + 1) % 4;", "t := T; yield; T := (t + 1) % 4;"),
     "lock T is read"),
    (lambda s: s.replace("while (Q == 3) { yield }; Q := Q + 1;", ""), "without a slot"),
    # a cap as high as the modulus plus one: five tickets out share a number
    (lambda s: s.replace("Q == 3", "Q == 5"), "no retry loop"),
    # the slot given back before the ticket lock, or never; the ticket never waited for
    (lambda s: s.replace("S := (S + 1) % 4; Q := Q - 1;", "Q := Q - 1; S := (S + 1) % 4;"),
     "lock Q is read"),
    (lambda s: s.replace("S := (S + 1) % 4; Q := Q - 1;", "S := (S + 1) % 4;"),
     "with a slot of a ticket's cap"),
    (lambda s: s.replace("request get", s[s.index("request inc"):s.index("request get")]
                         .replace("inc", "inc2") + "request get").replace(
        "while (S != t) { yield };\n  x := C;\n  yield;\n  C := (x + 1) % 3;\n  S := (S + 1) % 4;"
        " Q := Q - 1;\n  x\n}\nrequest inc2", "0\n}\nrequest inc2"), "not waited for"),
    # the ticket's number overwritten before the wait; C written twice, read bare by get
    (lambda s: s.replace("while (S != t)", "t := 0; while (S != t)"), "a ticket to wait for"),
    (lambda s: s.replace("C := (x + 1) % 3;", "C := 2; yield; C := (x + 1) % 3;"),
     "C is touched without its lock S"),
    # get reads two globals that requests write
    (lambda s: s.replace("request get { C }", "request get { C + D }").replace(
        "C := (x + 1) % 3;", "C := (x + 1) % 3; D := x;"), "touched without its lock S"),
])
def test_a_ticket_lock_outside_the_rules_is_rejected(edit: Any, needle: str) -> None:
    source = edit(TICKET)
    assert source != TICKET
    claim = {**TICKET_CLAIM, "guards": {"C": "S", "D": "S"}} if "D :=" in source else TICKET_CLAIM
    _rejected(_cert(source, claim), needle)


@pytest.mark.parametrize("claim, needle", [
    ({**TICKET_CLAIM, "tickets": [{"serving": "S", "next": "T", "modulus": 4}]}, "no cap"),
    ({**TICKET_CLAIM, "tickets": [{"serving": "S", "next": "S", "modulus": 4, "cap": "Q",
                                   "limit": 3}]}, "repeat or overlap"),
    ({**TICKET_CLAIM, "tickets": [{"serving": "S", "next": "T", "modulus": 4, "cap": "Q",
                                   "limit": 5}]}, "no cap below"),
    ({**TICKET_CLAIM, "tickets": []}, "repeat or overlap"),
])
def test_a_forged_ticket_claim_is_rejected(claim: Json, needle: str) -> None:
    _rejected(_cert(TICKET, claim), needle)


def test_a_ticket_lock_that_starts_apart_from_its_dispenser_is_rejected() -> None:
    _rejected(_cert("global S := 1;\n" + TICKET, TICKET_CLAIM), "does not start where")
