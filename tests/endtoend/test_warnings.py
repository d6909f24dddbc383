"""Warnings: a small program written for each kind, the examples get none, and the ways
they reach the user (stderr, --json, the certificate's producer block, --strict)."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from prover.cli import main
from prover.errors import Diagnostic
from prover.frontend.lint import lint
from prover.frontend.parser import parse

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"

SPIN = "request main {\n  while (X == 0) { 0 };\n  X := 1\n}\n"
WAIT = "global L := 1;\nrequest r {\n  while (L == 1) { yield };\n  0\n}\nrequest w { X := 1 }\n"
UNREACHED = ("request r {\n  if (X == 5) {\n    7\n  } else {\n    0\n  }\n}\n"
             "request w { X := 1; 1 }\n")


def _codes(found: tuple[Diagnostic, ...] | list[Diagnostic]) -> list[str]:
    return [d.code for d in found]


@pytest.mark.parametrize("source, code, line", [
    ("request r { y := Z; y }", "W-READ-ONLY", 1),
    ("global K := 5;\nrequest r { y := K; y }", "W-CONSTANT", 2),
    ("request r { W := 1; y := V; y }\nrequest s { V := 2; 0 }", "W-WRITE-ONLY", 1),
    ("request r {\n  y := x + 1;\n  y\n}", "W-UNSET-LOCAL", 2),
    ("request r {\n  if (?) { x := 1 } else { 0 };\n  x\n}", "W-UNSET-LOCAL", 3),
    ("request audit { 1 }\nrequest r { audit := 2; audit }", "W-SHADOW", 2),
])
def test_each_kind_read_off_the_text(source: str, code: str, line: int) -> None:
    found = [d for d in lint(parse(source), "m.ser") if d.code == code]
    assert found and found[0].line == line, lint(parse(source), "m.ser")
    assert found[0].render().startswith(f"m.ser:{line}:")


def test_a_local_assigned_on_every_path_is_not_unset() -> None:
    source = ("request r { if (X == 1) { x := 1 } else { x := 2 }; while (x > 0) "
              "{ s := s + 1; x := x - 1 }; s }\nrequest w { X := 1; 0 }")
    found = [d for d in lint(parse(source)) if d.code == "W-UNSET-LOCAL"]
    assert len(found) == 1 and "'s'" in found[0].message


def _prove(tmp_path: Path, source: str, *args: str) -> tuple[int, list[dict[str, object]]]:
    model = tmp_path / "m.ser"
    model.write_text(source)
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = main([str(model), "-o", str(tmp_path / "m.cert.json"), "--json", *args])
    return code, json.loads(buf.getvalue())["warnings"]


def test_a_request_that_spins_without_yield_makes_the_verdict_vacuous(tmp_path: Path) -> None:
    code, found = _prove(tmp_path, SPIN)
    assert code == 0
    codes = [w["code"] for w in found]
    assert "W-NEVER-ANSWERS" in codes and "W-VACUOUS" in codes
    spin = next(w for w in found if w["code"] == "W-NEVER-ANSWERS")
    assert spin["line"] == 2 and "spins at line 2" in str(spin["message"])
    cert = json.loads((tmp_path / "m.cert.json").read_text())
    assert [w["code"] for w in cert["producer"]["warnings"]] == codes


def test_a_wait_that_no_state_ends(tmp_path: Path) -> None:
    _, found = _prove(tmp_path, WAIT)
    wait = next(w for w in found if w["code"] == "W-NEVER-ANSWERS")
    assert "waits at line 3 while `L == 1`" in str(wait["message"])
    assert "W-VACUOUS" not in [w["code"] for w in found]  # w answers


def test_unreached_lines_and_a_response_never_given(tmp_path: Path) -> None:
    _, found = _prove(tmp_path, UNREACHED)
    by_code = {w["code"]: w for w in found}
    assert by_code["W-UNREACHED"]["line"] == 3 and "line 3 never" in str(
        by_code["W-UNREACHED"]["message"])
    assert by_code["W-RESPONSE-NEVER"]["line"] == 3
    assert "never answers 7" in str(by_code["W-RESPONSE-NEVER"]["message"])


def test_strict_makes_a_warning_an_input_error(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    model = tmp_path / "m.ser"
    model.write_text(SPIN)
    assert main([str(model), "-o", str(tmp_path / "c.json"), "--strict", "--quiet"]) == 2
    captured = capsys.readouterr()
    assert "E-STRICT" in captured.err and "vacuous: no request can finish" in captured.out
    code, _ = _prove(tmp_path, SPIN, "--strict")
    assert code == 2


def test_every_example_is_clean(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """...but the deadlock that deadlock-abba.ser is there to show."""
    models = sorted(str(p) for p in EXAMPLES.iterdir() if p.suffix in (".ser", ".json")
                    and not p.name.endswith(".cert.json") and p.name != "expected.json")
    assert main([*models, "--out-dir", str(tmp_path), "--quiet", "--jobs", "2"]) in (0, 1)
    warnings = [ln for ln in capsys.readouterr().err.splitlines() if "warning" in ln]
    assert len(warnings) == 1 and "deadlock-abba.ser:10:1: warning[W-DEADLOCK]" in warnings[0]


def test_the_separator_of_two_statements_is_no_unreached_line(tmp_path: Path) -> None:
    """A line holding only the `;` after a block is not a line a step could run."""
    source = ("request r {\n  if (?) {\n    yield\n  } else {\n    X := 1\n  }\n  ;\n"
              "  X := 2;\n  X\n}\n")
    _, found = _prove(tmp_path, source)
    assert [w["code"] for w in found] == []


def test_reach_from_the_network_system_and_from_the_steps_agree(tmp_path: Path) -> None:
    """Both views are over-approximations: a line the steps call unreached, the NS does
    too (the NS may say more: it only has the valuations that co-occur)."""
    from prover.frontend import coverage
    from prover.frontend.load import load_source
    from prover.reduction.table import Limits, grow_domains

    for source in (UNREACHED, WAIT, SPIN):
        m = load_source(source, "ser", lazy=True)
        assert m.steps is not None
        table = grow_domains(m.steps, Limits())
        by_table = coverage.warnings(m.steps.program, m.steps,
                                     coverage.from_table(table, m.steps), "m")
        by_ns = coverage.warnings(m.steps.program, m.steps, coverage.from_ns(m.ns, m.steps),
                                  "m")
        assert set(by_table) <= set(by_ns), source


OVERDRAFT = ("global A := 2;\n"
             "request withdraw { if (A >= 1) { yield; A := A - 1; 1 } else { 0 } }\n")


def test_the_plain_overdraft_gets_its_counterexample(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """A keeps falling (the program is infinite-state), yet its violation is three
    requests away: found on the per-variable steps, with no network system."""
    model = tmp_path / "overdraft.ser"
    model.write_text(OVERDRAFT)
    assert main([str(model), "-o", str(tmp_path / "c.json"), "--timeout", "20"]) == 1
    out = capsys.readouterr().out
    assert "Completed (3 requests, the fewest possible): withdraw/1 ×3" in out
    model.write_text(OVERDRAFT.replace("A := 2", "A := 1"))
    assert main([str(model), "-o", str(tmp_path / "c.json"), "--timeout", "20"]) == 1
    assert "Completed (2 requests, the fewest possible)" in capsys.readouterr().out


def test_an_unbounded_serializable_program_says_which_variable(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = tmp_path / "grow.ser"
    model.write_text("request r {\n  N := N + 1;\n  N\n}\n")
    assert main([str(model), "-o", str(tmp_path / "c.json"), "--timeout", "4"]) == 3
    out = " ".join(capsys.readouterr().out.split())  # the reasons are wrapped
    assert "sets N to 2 at line 2" in out and "N looks unbounded" in out
    assert "try: " in out and "a guard that keeps the unbounded variable" in out


def test_a_counter_modulo_500_is_decided_without_a_network_system(tmp_path: Path) -> None:
    """Every request answers 0 in one atomic step: a reduction proof, checked, with 500
    values in its domain and no network system (the checker's NS bound is not involved)."""
    _, found = _prove(tmp_path, "request incr { X := (X + 1) % 500; 0 }\n")
    record = json.loads((tmp_path / "m.cert.json").read_text())
    assert record["producer"]["engine"] == "reduction"
    assert record["reduction"]["domains"] == [{"global": "X", "range": [0, 499]}]
