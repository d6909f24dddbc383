"""docs/cli.md, "Errors next to a counterexample": a counterexample is the verdict and a
run-time error met on the way is W-RUNTIME-ERROR; an error with no counterexample is
the error (exit 2); never a proof beside an error. The same whichever stage meets it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prover.cli import main

INC = "request inc { x := X; yield; X := x + 1; x }\n"
CASES = {
    # the error first (a request alone at the initial state), then the lost update
    "bad-first": "request bad { y := 1 / X; y }\n" + INC,
    # the error one step in, before the counterexample's second request
    "bad-after-one": INC + "request bad { y := 0; if (X == 1) { y := 1 / (X - 1) } else "
                           "{ y := 0 }; y }\n",
    # the error inside a serial run of the counterexample's own request
    "serial-fault": "request inc { x := X; yield; X := x + 1; 10 / (2 - X) }\n",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_counterexample_wins_and_the_error_is_a_warning(
        name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from checker.api import check_certificate

    m = tmp_path / "m.ser"
    m.write_text(CASES[name])
    cert = tmp_path / "m.cert.json"
    assert main([str(m), "--json", "-o", str(cert)]) == 1
    result = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert result["verdict"] == "not_serializable"
    assert "W-RUNTIME-ERROR" in [w["code"] for w in result["warnings"]]
    assert check_certificate(cert.read_text()).status == "valid"


def test_strict_makes_the_warning_an_error(tmp_path: Path) -> None:
    m = tmp_path / "m.ser"
    m.write_text(CASES["bad-first"])
    assert main([str(m), "--quiet", "--strict", "-o", str(tmp_path / "c.json")]) == 2


@pytest.mark.parametrize("text", [
    "request bad { y := 1 / X; y }\n",
    "request set { X := 1; 0 }\nrequest bad { y := 0; if (X == 1) { y := 1 / (X - 1) } "
    "else { y := 0 }; y }\n",
    "request grow { X := X + 4611686018427387904; yield; X := X + 4611686018427387904; 0 }\n",
])
def test_an_error_without_a_counterexample_is_the_error(
        text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    m = tmp_path / "m.ser"
    m.write_text(text)
    assert main([str(m), "--json", "-o", str(tmp_path / "c.json")]) == 2
    result = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert result["error"]["code"] in ("E-DIV-ZERO", "E-INT-RANGE")
    assert not (tmp_path / "c.json").exists()


def test_an_unreachable_error_is_no_error(tmp_path: Path) -> None:
    m = tmp_path / "m.ser"
    m.write_text("request set { X := 1; 0 }\nrequest bad { y := 0; if (X == 7) { "
                 "y := 1 / (X - 7) } else { y := 0 }; y }\n")
    assert main([str(m), "--quiet", "-o", str(tmp_path / "c.json")]) == 0


def test_the_checkers_serial_search_reads_a_failing_run_as_a_dead_end() -> None:
    from checker.errors import ModelError
    from checker.semantics import semantics
    from checker.serial_search import is_serial

    sem = semantics("ser", CASES["serial-fault"])
    # inc then inc divides by zero in the second run: it answers nothing
    assert not is_serial(sem, {("inc", "10"): 2})
    assert is_serial(sem, {("inc", "10"): 1})
    bad = semantics("ser", "request a { X := 1; yield; 1 / (X - 1) }")
    (_, entry), = bad.requests
    (after, g), = bad.step(entry, bad.initial)
    with pytest.raises(ModelError) as err:
        bad.step(after, g)
    assert err.value.code == "E-FAULT"
