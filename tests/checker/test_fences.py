"""Epoch fencing (docs/certificates.md, "Two-phase locking", rule 8): a version that only
grows validates a read of it by `e >= E` as by `e == E` (E never falls below a value read
from it), and what it guards may be written in a commit that does not raise it when every
touch of it is in such a commit. The checker rejects the tests that always hold (`E >=
e`), the same test of a sequence that is no version, a guarded global read outside a
commit beside a write that does not raise, and a fence whose epoch wraps."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.checker.test_locking import _cert, _claim, _refused, _rejected
from tests.checker.test_parts import _decide, _status

Json = Any

FENCE = """request elect { E := E + 1; E }
request write {
  ok := 0;
  while (!ok) {
    e := E;
    yield;
    if (e >= E) { old := Stamp; Stamp := e + 1; ok := 1 } else { yield }
  };
  10 * e + old
}
"""
CLAIM = {"locks": [], "guards": {"Stamp": "E"}, "sequences": [{"sequence": "E", "commits": True}]}


def test_an_epoch_fence_that_grows_is_proved(tmp_path: Path) -> None:
    assert _claim(FENCE) == CLAIM
    status, code, message = _status(_cert(FENCE))
    assert (status, code) == ("valid", None), message
    status, cert = _decide(tmp_path, FENCE, locking=True)
    assert status == "serializable" and cert["locking"] == CLAIM


@pytest.mark.parametrize("test", ["E <= e", "e == E", "E == e"])
def test_every_spelling_of_the_fence_validates(test: str) -> None:
    source = FENCE.replace("e >= E", test)
    assert _claim(source) == CLAIM
    assert _status(_cert(source))[:2] == ("valid", None)


def test_the_negated_fence_fails_its_round() -> None:
    source = FENCE.replace("if (e >= E) { old := Stamp; Stamp := e + 1; ok := 1 } else { "
                           "yield }", "if (e < E) { yield } else { old := Stamp; Stamp := "
                           "e + 1; ok := 1 }")
    assert source != FENCE and _status(_cert(source, CLAIM))[:2] == ("valid", None)


@pytest.mark.parametrize("edit, needle", [
    # tests that always hold, or that the epoch's growth does not make an equality
    (lambda s: s.replace("e >= E", "E >= e"), ""),
    (lambda s: s.replace("e >= E", "e <= E"), ""),
    (lambda s: s.replace("e >= E", "e + 1 >= E"), ""),
    (lambda s: s.replace("e >= E", "e > E - 1"), ""),
    # the epoch wraps, or falls
    (lambda s: s.replace("E := E + 1", "E := (E + 1) % 2"), "other than by raising it"),
    (lambda s: s.replace("E := E + 1", "E := E - 1"), "other than by raising it"),
    # the snapshot is changed before the fence
    (lambda s: s.replace("yield;\n    if (e >= E)", "yield; e := e + 1;\n    if (e >= E)"),
     "holds a read of a sequence"),
    # the stamp read outside the commit: in the window, or bare, or written unfenced
    (lambda s: s.replace("yield;\n    if (e >= E) { old := Stamp;",
                         "old := Stamp; yield;\n    if (e >= E) {"), "Stamp is touched"),
    (lambda s: s + "request peek { Stamp }\n", "Stamp is touched"),
    (lambda s: s + "request poke { Stamp := 7; 1 }\n", "does not raise it"),
])
def test_a_fence_outside_the_rules_is_rejected(edit: Any, needle: str) -> None:
    _refused(FENCE, edit, CLAIM, needle)


def test_a_seqlock_is_no_fence() -> None:
    """`s >= S` is no validation of a sequence (it holds on an odd one too): its reader's
    reads between stay unvalidated."""
    source = """request w { while (S % 2 == 1) { yield }; S := S + 1; A := A + 1; S := S + 1; 1 }
request r {
  ok := 0;
  while (ok == 0) { s := S; yield; a := A; yield; if (s >= S) { ok := 1 } else { 0 } };
  a
}
"""
    claim = {"locks": [], "guards": {"A": "S"}, "sequences": [{"sequence": "S"}]}
    _rejected(_cert(source, claim))
    assert _claim(source) is None


RELEASED_FIRST = """request a {
  ok := 0;
  while (!ok) {
    e := E;
    while (L == 1) { yield }; L := 1; x := X; L := 0;
    yield;
    if (e >= E) { Stamp := x + 1; ok := 1 } else { yield }
  };
  x
}
request b {
  ok := 0;
  while (!ok) {
    while (L == 1) { yield }; L := 1;
    e := E;
    if (e >= E) { s := Stamp; X := 1; ok := 1 } else { 0 };
    L := 0
  };
  s
}
"""


@pytest.mark.parametrize("source, claim", [
    # the red team's: a commits E after it gave L back, b reads Stamp before a writes it
    # and writes X after a read it; each answers 0, which no serial order gives
    (RELEASED_FIRST, {"locks": ["L"], "guards": {"X": "L", "Stamp": "E"},
                      "sequences": [{"sequence": "E", "commits": True}]}),
    (RELEASED_FIRST.replace("e >= E", "E == e"),
     {"locks": ["L"], "guards": {"X": "L", "Stamp": "E"},
      "sequences": [{"sequence": "E", "commits": True}]}),
    # two versions, no lock: a's bare read of X holds E at its step, then it commits F
    ("""request a { ok := 0; while (!ok) { f := F; x := X; yield;
  if (f >= F) { Y := x + 5; ok := 1 } else { yield } }; x }
request b { ok := 0; while (!ok) { f := F; yield;
  if (f >= F) { y := Y; E := E + 1; X := X + 1; ok := 1 } else { yield } }; y }
""", {"locks": [], "guards": {"X": "E", "Y": "F"}, "sequences": [
        {"sequence": "E", "commits": True}, {"sequence": "F", "commits": True}]}),
])
def test_a_commit_after_a_release_is_rejected(source: str, claim: Json) -> None:
    _rejected(_cert(source, claim), "after a release")
    assert _claim(source) is None


def test_the_guards_the_prover_gives_are_those_the_walk_asks_for() -> None:
    """The red team's program where the second walk (with the first guards) moved B's
    guard from E to F: the claim found is one the checker accepts, or none."""
    source = """request fence0 { ok := 0; while (!ok) { e := E; f := F; yield; y := B;
  if (e >= E && F <= f) { B := x + 2; y := A; ok := 1 } else { yield } }; 10 * x + old }
request read1 { y := A; F := F + 1; x }
request raise2 { E := E + 1; 1 }
"""
    found = _claim(source)
    assert found is None or _status(_cert(source, found))[:2] == ("valid", None)
