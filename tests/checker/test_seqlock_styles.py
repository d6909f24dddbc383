"""Seqlocks as others write them (docs/certificates.md, "Two-phase locking", rules 4 and
7): the parity of a snapshot tested first, alone, and `S == s` after the reads; a writer
that answers what it wrote, read after it gives its lock back in the same step; data
cells raised like a sequence but never validated, which the prover does not take for one.
The checker rejects the reader that goes on with an odd snapshot, that validates a
snapshot it took again after the parity test, or that never tests the parity, and the
writer's read after a `yield` that follows its release."""

from __future__ import annotations

from typing import Any

import pytest

from tests.checker.test_locking import _cert, _claim, _refused, _rejected
from tests.checker.test_parts import _status

SPLIT = """request writer {
  while (Busy) { yield }; Busy := 1;
  Seq := Seq + 1;
  yield;
  Ca := Ca + 1; yield; Cb := Cb + 1;
  yield;
  Seq := Seq + 1;
  Busy := 0;
  Ca
}
request snapshot {
  ok := 0;
  while (!ok) {
    s := Seq;
    if (s % 2 == 1) { yield } else {
      yield; a := Ca; yield; b := Cb; yield;
      ok := Seq == s
    }
  };
  a - b
}
"""
CLAIM = {"locks": ["Busy"], "guards": {"Ca": "Seq", "Cb": "Seq"},
         "sequences": [{"sequence": "Seq", "lock": "Busy"}]}


def test_a_seqlock_that_tests_the_parity_first_is_proved() -> None:
    assert _claim(SPLIT) == CLAIM
    assert _status(_cert(SPLIT))[:2] == ("valid", None)
    even_first = SPLIT.replace("if (s % 2 == 1) { yield } else {", "if (s % 2 == 0) {").replace(
        "      ok := Seq == s\n    }\n", "      ok := Seq == s\n    } else { yield }\n")
    assert even_first != SPLIT and _status(_cert(even_first, CLAIM))[:2] == ("valid", None)


def _closed(source: str) -> str:
    """The reads' block, made the first branch of an `if`, given its `else`."""
    end = "      ok := Seq == s\n    }"
    return source.replace(end + "\n", end + " else { 0 }\n")


@pytest.mark.parametrize("edit, needle", [
    # the odd snapshot goes on to the reads
    (lambda s: _closed(s.replace("if (s % 2 == 1) { yield } else {", "if (s % 2 == 1) { ok "
                                 ":= 0 } else { 0 };\n    if (1) {")), ""),
    # no parity test at all
    (lambda s: _closed(s.replace("if (s % 2 == 1) { yield } else {", "if (1) {")), ""),
    # the snapshot taken again after its parity test
    (lambda s: s.replace("yield; a := Ca;", "s := Seq; yield; a := Ca;"), ""),
    # the writer reads Ca after a yield that follows its release
    (lambda s: s.replace("  Busy := 0;\n  Ca\n", "  Busy := 0;\n  yield;\n  Ca\n"),
     "Ca is touched without"),
])
def test_a_seqlock_outside_the_rules_is_rejected(edit: Any, needle: str) -> None:
    _refused(SPLIT, edit, CLAIM, needle)


def test_what_a_step_does_after_a_release_is_under_the_lock() -> None:
    source = """request inc { while (L == 1) { yield }; L := 1; X := X + 1; L := 0; X }
request get { while (L == 1) { yield }; L := 1; x := X; yield; L := 0; x }
"""
    claim = {"locks": ["L"], "guards": {"X": "L"}}
    assert _claim(source) == claim and _status(_cert(source))[:2] == ("valid", None)
    later = source.replace("L := 0; X }", "L := 0; yield; X }")
    _rejected(_cert(later, claim), "X is touched without")
    assert _claim(later) is None
