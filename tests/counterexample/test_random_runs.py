"""Counterexamples by random runs (prover/engines/random_runs.py): what the explicit
search's state budget cannot reach, seeded runs in bursts can, and the checker checks it
like any counterexample."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from checker.api import check_certificate
from prover.cli import main
from prover.engines.random_runs import search_randomly
from prover.frontend.load import load_source

CELLS = 6
# a seqlock whose sequence wraps at 4: two whole writers bring it back to where a paused
# reader read it (ABA), and the reader answers a mix of old and new cells
SEQLOCK = "\n".join([
    "request write {",
    "  n := ?(1..2);",
    "  while (WL == 1) { yield }; WL := 1; S := (S + 1) % 4;",
    "  yield;",
    *[f"  X{i} := n; yield;" for i in range(CELLS - 1)],
    f"  X{CELLS - 1} := n;",
    "  S := (S + 1) % 4; WL := 0;",
    "  n",
    "}",
    "request read {",
    "  ok := 0;",
    "  while (ok == 0) {",
    "    s := S; yield;",
    *[f"    a{i} := X{i}; yield;" for i in range(CELLS)],
    "    ok := (s % 2 == 0) && (S == s)",
    "  };",
    "  " + " + ".join(f"a{i}" for i in range(CELLS)),
    "}",
])


def test_bursts_find_the_aba_of_a_wrapping_seqlock_and_the_same_each_time() -> None:
    steps = load_source(SEQLOCK, "ser", lazy=True).steps
    first = search_randomly(steps, 3)
    again = search_randomly(steps, 3)
    assert first.counterexample is not None and first == again
    cex = first.counterexample
    assert cex.requests >= 3 and cex.lower_bound == 3 and cex.engine == "random-runs"
    answers = {req: int(v) for (req, v), _ in cex.completed if req == "read"}
    assert answers["read"] % CELLS != 0  # a mix of two writes: no serial read answers it


def test_no_counterexample_in_a_serializable_program() -> None:
    locked = ("request inc { while (L == 1) { yield }; L := 1; x := C; yield; "
              "C := (x + 1) % 3; L := 0; x }")
    found = search_randomly(load_source(locked, "ser", lazy=True).steps, 2)
    assert found.counterexample is None and found.runs > 0


# a request of 250 steps: two of them overlap and one reads the other's last write; the
# explicit search's budget ends inside the interleavings of two (issue 48, item 6)
FLAT = "request r {\n" + "".join(f"  X := {i % 2}; yield;\n" for i in range(250)) + "  X\n}\n"


def test_runs_are_long_enough_for_two_requests_of_250_steps() -> None:
    found = search_randomly(load_source(FLAT, "ser", lazy=True).steps, 2)
    assert found.counterexample is not None
    answers = {v for (req, v), _ in found.counterexample.completed}
    assert "0" in answers  # serially every r answers 1


def test_nothing_to_try_below_two_requests_or_beyond_four() -> None:
    steps = load_source(SEQLOCK, "ser", lazy=True).steps
    assert search_randomly(steps, 5).runs == 0


def test_the_prover_certifies_it_and_the_checker_accepts(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]
                                                         ) -> None:  # fmt: skip
    model = tmp_path / "seqlock.ser"
    model.write_text(SEQLOCK)
    cert = tmp_path / "seqlock.cert.json"
    assert main([str(model), "-o", str(cert), "--json", "--timeout", "60"]) == 1
    record = json.loads(capsys.readouterr().out.splitlines()[0])
    assert record["verdict"] == "not_serializable"
    assert record["engine"] in ("random-runs", "explicit")  # the search may get there first
    data = json.loads(cert.read_text())
    assert check_certificate(data).status == "valid"
