"""Readers-writer locks as others write them (docs/certificates.md, "Two-phase locking",
rule 3): a writer that sets its flag, then waits for the readers inside to leave. The
checker rejects a writer that touches the data before the readers have drained, that
yields between its flag and its wait, that waits on another count, and a reader that does
not wait for the flag."""

from __future__ import annotations

from typing import Any

import pytest

from tests.checker.test_locking import _cert, _claim, _refused
from tests.checker.test_parts import _status

DRAIN = """global P := 10;
request look {
  while (Wf) { yield }; Nr := Nr + 1;
  yield;
  p := P; yield; q := Q;
  Nr := Nr - 1;
  p + q
}
request shift {
  while (Wf) { yield }; Wf := 1;
  while (Nr > 0) { yield };
  if (P > 0) { P := P - 1; yield; Q := Q + 1 } else { P := Q; yield; Q := 0 };
  np := P;
  Wf := 0;
  np
}
"""
CLAIM = {"locks": ["Wf"], "guards": {"P": "Wf", "Q": "Wf"},
         "shared": [{"writer": "Wf", "readers": "Nr"}]}


def test_a_writer_that_sets_its_flag_then_drains_is_proved() -> None:
    assert _claim(DRAIN) == CLAIM
    assert _status(_cert(DRAIN))[:2] == ("valid", None)


@pytest.mark.parametrize("edit", [
    # the writer writes before the readers have left
    lambda s: s.replace("Wf := 1;\n  while (Nr > 0)", "Wf := 1; P := P + 0;\n  while (Nr > 0)"),
    lambda s: s.replace("Wf := 1;\n  while (Nr > 0)", "Wf := 1; yield;\n  while (Nr > 0)"),
    # it waits on nothing, or on another count
    lambda s: s.replace("  while (Nr > 0) { yield };\n", ""),
    lambda s: s.replace("while (Nr > 0)", "while (Nk > 0)"),
    # a reader that does not wait for the flag
    lambda s: s.replace("while (Wf) { yield }; Nr := Nr + 1;", "Nr := Nr + 1;"),
])
def test_a_drain_outside_the_rules_is_rejected(edit: Any) -> None:
    _refused(DRAIN, edit, CLAIM)
