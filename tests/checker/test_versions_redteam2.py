"""Red team, round 2, of the claim "Versions that never wrap" (docs/certificates.md): more
certificates that `check_certificate` must not accept, each for a Ser program that is NOT
serializable (bench/blind/bounded.py finds a counterexample for each, checked here too).

The certificates are forged as in tests/checker/test_versions_redteam.py: the abstract
program is the checker's own abstraction printed as core Ser, proved by the prover on its
own, and wrapped with the model's hash recomputed."""

from __future__ import annotations

from pathlib import Path

import pytest

from checker.program import parse_program
from checker.versions import abstraction
from tests.checker.test_parts import _decide
from tests.checker.test_versions import OCC
from tests.checker.test_versions_redteam import _forge, _not_serializable, _refused

UPDATE = OCC.partition("request read")[0]  # the optimistic update alone

# ---------------------------------------------------------------------------------------------
# Finding 1 (rule 4, the loop's fixpoint): a test `c == v` is recognised in the loop's first
# pass, where c was read from V in the same step (before the loop), and its snapshot {D = d}
# recorded. At the fixpoint the back edge comes after a yield: c is no longer read in this
# step, the test is not recognised at all, and the first pass's site (and its validity) stay.
# The abstraction compares D == d; the program compares two reads of V taken in one earlier
# step, which always agree: the second round commits a stale d (a lost update).

STALE_FIRST_PASS = """request update {
  n := 0; r := 0;
  c := V; v := V; d := D;
  while (n < 2) {
    if (c == v) {
      if (n == 0) { n := 1 } else { D := (d + 1) % 5; V := v + 1; r := d; n := 2 };
      yield; c := V; v := V; d := D; yield
    } else { 0 }
  };
  r
}
"""


def test_a_test_recognised_only_in_the_loops_first_pass(tmp_path: Path) -> None:
    """Fixed: the rules now fail (the comparison is no version test at the fixpoint), so the
    abstraction keeps it, is not serializable, and no proof of it can be forged."""
    _not_serializable(tmp_path, STALE_FIRST_PASS)
    initial, requests = parse_program(STALE_FIRST_PASS)
    assert abstraction(initial, requests, {"V": ["D"]})[1]


# ---------------------------------------------------------------------------------------------
# Finding 2 (inputs: "whose locals no later statement sets"): `_specs` looks for a later
# setting only among the locals of the FIRST case of the inputs. k is an input only where
# i = 1 (the first case, i = 0, does not set it), so `k := -1` after the inputs goes unseen,
# the analysis at i = 1 keeps k = 1 and never looks at the branch `V := k + 1`, which
# resets V to 0 at run time (ABA: an update commits over another's write).

INPUT_SET_AGAIN = UPDATE + """request reset {
  i := ?;
  if (i == 0) { a := 0 } else { k := 1 };
  yield;
  k := 0 - 1;
  if (i == 1) { if (k == 1) { 0 } else { V := k + 1 } } else { 0 };
  0
}
"""


def test_an_input_of_a_later_case_set_again(tmp_path: Path) -> None:
    _not_serializable(tmp_path, INPUT_SET_AGAIN)
    _refused(_forge(tmp_path, INPUT_SET_AGAIN, {"V": ["D"]}))


# ---------------------------------------------------------------------------------------------
# Finding 3 (rule 5, "the loop's condition ... still holds"): the condition assigns nothing and
# reads none of the failed round's locals, but it has a choice: after a failed round it may
# be false, and the loop ends with the failed round's reads (d) in place. An update answers
# a value it read, and then aborts: {0, 1, 1} for three updates, which no serial order gives.

CHOICE_IN_CONDITION = UPDATE.replace("while (ok == 0)", "while (ok == 0 && ?)")


@pytest.mark.parametrize("source", [CHOICE_IN_CONDITION], ids=["choice"])
def test_a_loop_condition_with_a_choice(tmp_path: Path, source: str) -> None:
    _not_serializable(tmp_path, source)
    _refused(_forge(tmp_path, source, {"V": ["D"]}))


# ---------------------------------------------------------------------------------------------
# Finding 4 (inputs, "where the abstraction of a test differs between values it is written by
# cases"): the comparison at the `if` is a version test where i = 0 (`V == l`) and a plain
# comparison where i = 1 (`W == m`, which always holds). `_rewrite` writes by cases only the
# inputs where the node is a test; as there is one, its abstraction (`D == d && ?`) stands
# for every input, and at i = 1 the abstraction checks D where the program checks W: the
# program's lost update (two updates at i = 1 both answer 0) is not the abstraction's.

TEST_AT_SOME_INPUTS = """request update {
  i := ?;
  ok := 0;
  while (ok == 0) {
    l := V; m := W; d := D;
    yield;
    if ((if (i == 0) { V } else { W }) == (if (i == 0) { l } else { m })) {
      D := (d + 1) % 3; V := V + 1; ok := 1
    } else { 0 }
  };
  d
}
"""


def test_a_version_test_at_some_inputs_only(tmp_path: Path) -> None:
    _not_serializable(tmp_path, TEST_AT_SOME_INPUTS)
    _refused(_forge(tmp_path, TEST_AT_SOME_INPUTS, {"V": ["D"]}))


# ---------------------------------------------------------------------------------------------
# Finding 5 (the prover, from finding 2): with the reset chosen among 100 inputs, the explicit
# search and the random runs miss the ABA, and `ser-prove` proves the program itself with the
# engine `versions`; the checker accepts its certificate.

INPUT_SET_AGAIN_WIDE = UPDATE + """request reset {
  i := ?(0..99);
  if (i == 37) { k := 1 } else { a := 0 };
  yield;
  k := 0 - 1;
  if (i == 37) { if (k == 1) { 0 } else { V := k + 1 } } else { 0 };
  0
}
"""


def test_the_prover_proves_an_input_set_again(tmp_path: Path) -> None:
    _not_serializable(tmp_path, INPUT_SET_AGAIN_WIDE)
    _, cert = _decide(tmp_path, INPUT_SET_AGAIN_WIDE, "wide.ser")
    if cert is not None and cert["verdict"] == "serializable":
        _refused(cert)
