"""Red team of the claim "Versions that never wrap" (docs/certificates.md): certificates that
`check_certificate` must not accept, each for a Ser program that is NOT serializable (the
independent bounded search bench/blind/bounded.py finds a counterexample for each, checked
here too).

Each certificate is built as a hostile producer would: the abstract program is the checker's
own abstraction (checker.versions.abstraction, printed as core Ser), its certificate is the
prover's (decided on the abstract program alone), and the outer certificate wraps it with
the model's hash recomputed. Each asserts that the checker does not accept: all failed
before the fixes they led to (rules 2, 5 and 7, and the versions' start)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from checker.api import check_certificate
from checker.program import parse_program
from checker.versions import abstraction
from prover.frontend.versions import core_source
from tests.checker.test_parts import _decide, _model

Json = Any
ROOT = Path(__file__).resolve().parents[2]
BOUNDED = ROOT / "bench" / "blind" / "bounded.py"


def _abstract_source(source: str, versions: dict[str, list[str]]) -> str:
    """The checker's own abstraction, printed (whatever rule the program breaks: the
    forger embeds it anyway, and the checker must find the broken rule itself)."""
    initial, requests = parse_program(source)
    (init, reqs), _ = abstraction(initial, requests, versions)
    text = core_source(init, reqs)
    assert text is not None and parse_program(text) == (init, reqs)
    return text


def _prove(tmp_path: Path, source: str, verdict: str = "serializable") -> Json:
    _, cert = _decide(tmp_path, source, "abstract.ser")
    assert cert is not None and cert["verdict"] == verdict, cert
    return cert


def _forge(tmp_path: Path, source: str, versions: dict[str, list[str]],
           verdict: str = "serializable") -> Json:
    inner = _prove(tmp_path, _abstract_source(source, versions), verdict)
    return {"format": "ser-certificate/1", "model": _model(source), "verdict": "serializable",
            "producer": {"tool": "ser-prove", "version": "0.1.0", "engine": "versions",
                         "solver": "none", "solver_version": ""},
            "versions": {"globals": [{"version": v, "guards": g} for v, g in versions.items()],
                         "abstract": inner}}


def _not_serializable(tmp_path: Path, source: str, k: int = 3) -> None:
    """The independent oracle finds a counterexample (exit 1; a reachable fault beside it is a
    warning)."""
    path = tmp_path / "program.ser"
    path.write_text(source, encoding="utf-8")
    out = subprocess.run([sys.executable, str(BOUNDED), str(path), "--max-requests", str(k),
                          "--json"], capture_output=True, text=True, timeout=300, check=False)
    assert json.loads(out.stdout)["result"] == "counterexample", out.stdout[-500:]


def _refused(cert: Json) -> None:
    r = check_certificate(cert, timeout_s=60)
    assert r.status != "valid", (r.status, r.message)


# ---------------------------------------------------------------------------------------------
# Finding A (rule 7): the abstract program's certificate is checked "as a certificate of its
# own", whatever its verdict. A valid counterexample of the abstract program (verdict
# not_serializable) is accepted as the evidence of a `serializable` claim: any program that is
# not serializable is "proved" by naming a version it does not have (V guards nothing, the
# abstraction is the program itself) and embedding the program's own counterexample.

FIRST = "request main { X := 1; yield; y := X; X := 0; y }\n"  # docs/language.md, not serial

# The lost update: the data is read a step before the version, so the test guards nothing.
STALE = """request update {
  ok := 0;
  while (ok == 0) {
    d := D; yield; v := V; yield;
    if (V == v) { D := (d + 1) % 3; V := v + 1; ok := 1 } else { 0 }
  };
  d
}
request read { D }
"""


@pytest.mark.parametrize("source", [FIRST, STALE], ids=["first-program", "stale-read"])
def test_an_abstract_counterexample_is_no_proof(tmp_path: Path, source: str) -> None:
    _not_serializable(tmp_path, source)
    cert = _forge(tmp_path, source, {"V": []}, verdict="not_serializable")
    _refused(cert)


# ---------------------------------------------------------------------------------------------
# Finding B (rule 5): "each local assigned there is assigned before it is read on every path of
# the body" says nothing of a local the failed round writes and the loop body never reads, but
# the code after the loop does. The abstraction's `?` = 0 sets it in a serial run; the program's
# serial runs never fail a test. Two concurrent updates answer {0, 1}; serially {0, 0}.

FAILED_ROUND_LEAKS = """request update {
  ok := 0;
  while (ok == 0) {
    v := V; d := D;
    yield;
    if (V == v) { D := (d + 1) % 3; V := v + 1; ok := 1 } else { c := 1 }
  };
  c
}
request read { D }
"""

# Same hole with locals written on two paths of the failed round (c on one, e on the other):
# two failed-then-passing rounds set both, which no single round does.
FAILED_ROUND_TWO_PATHS = FAILED_ROUND_LEAKS.replace(
    "else { c := 1 }", "else { if (?) { c := 1 } else { e := 1 } }").replace("  c\n}", "  c + e\n}")


@pytest.mark.parametrize("source", [FAILED_ROUND_LEAKS, FAILED_ROUND_TWO_PATHS],
                         ids=["answered-after-the-loop", "two-paths"])
def test_a_failed_round_that_writes_a_local_read_after_the_loop(tmp_path: Path,
                                                                 source: str) -> None:
    _not_serializable(tmp_path, source)
    _refused(_forge(tmp_path, source, {"V": ["D"]}))


# ---------------------------------------------------------------------------------------------
# Finding C (rule 5): the loop's condition is evaluated once more for every failed round, and
# rule 5 looks only at what the body assigns ("not read by the loop's condition"), not at what
# the condition itself assigns. A shift register in the condition counts its evaluations:
# c = 1 after three or more (a failed round), 0 after two (serial runs).

CONDITION_COUNTS = """request update {
  ok := 0;
  while (c := b; b := a; a := 1; ok == 0) {
    v := V; d := D;
    yield;
    if (V == v) { D := (d + 1) % 3; V := v + 1; ok := 1 } else { 0 }
  };
  c
}
request read { D }
"""


def test_a_loop_condition_that_assigns(tmp_path: Path) -> None:
    _not_serializable(tmp_path, CONDITION_COUNTS)
    _refused(_forge(tmp_path, CONDITION_COUNTS, {"V": ["D"]}))


# ---------------------------------------------------------------------------------------------
# Finding D (rule 2 and "it needs 2^63 raises"): a raise is `V + c` with any positive literal
# c, and a version may start at any value, so a version leaves signed 64 bits after one or two
# raises. That run faults in the program (the request never answers) and not in the
# abstraction, whose serial runs then take a path the program cannot: the program is not
# serializable (bounded.py: counterexample, the overflow a warning beside it), the abstraction
# is.

AT_THE_TOP = """global V := 9223372036854775807;
request w { if (?) { V := V + 1; X := 1; 0 } else { X := 1; yield; X := 0; 0 } }
request r { X }
"""

HUGE_RAISE = """request w {
  if (?) { V := V + 9223372036854775807; X := 1; 0 } else { X := 1; yield; X := 0; 0 }
}
request r { X }
request s { V := V + 9223372036854775807; 0 }
"""


@pytest.mark.parametrize("source", [AT_THE_TOP, HUGE_RAISE], ids=["initial-max", "huge-raise"])
def test_a_version_that_wraps_within_two_raises(tmp_path: Path, source: str) -> None:
    _not_serializable(tmp_path, source)
    _refused(_forge(tmp_path, source, {"V": []}))


# ---------------------------------------------------------------------------------------------
# Finding E (rule 5, "the test lies in the body of a while"): the test's `if` lies in the
# condition of an inner `while` that is in the body of the retry loop. Rule 5 takes the outer
# loop (the inner one does not hold the test in its body) and checks the outer round with the
# passing branch left out; but a failed test does not end that round: the inner loop runs its
# body and tests again, and a later pass commits in the same round, after the failure's writes
# (c := 1, which the round had set to 0 before: "assigned before it is read" holds).

TEST_IN_INNER_CONDITION = """request update {
  ok := 0;
  while (ok == 0) {
    c := 0; v := V; d := D; yield;
    while (if (V == v) { D := (d + 1) % 3; V := v + 1; ok := 1; 0 } else { 1 }) {
      c := 1; yield; v := V; d := D
    };
    r := c
  };
  r
}
request read { D }
"""


def test_a_test_in_an_inner_loops_condition(tmp_path: Path) -> None:
    _not_serializable(tmp_path, TEST_IN_INNER_CONDITION)
    _refused(_forge(tmp_path, TEST_IN_INNER_CONDITION, {"V": ["D"]}))
