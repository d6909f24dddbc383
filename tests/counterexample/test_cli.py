"""`ser-prove MODEL`: exit codes, certificate files, --json, no verdict without a check."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from prover.cli import main

from .conftest import EXAMPLES


@pytest.fixture()
def model(tmp_path: Path) -> Path:
    dst = tmp_path / "intro.ser"
    shutil.copy(EXAMPLES / "intro-nonser.ser", dst)
    return dst


def test_not_serializable_writes_checked_certificate(
    model: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("checker.api")
    assert main([str(model), "--timeout", "5"]) == 1
    cert = Path(f"{model}.cert.json")
    data = json.loads(cert.read_text())
    assert data["verdict"] == "not_serializable"
    out = capsys.readouterr().out
    assert "NOT serializable" in out and "Completed (2 requests" in out


def test_output_option_and_json(model: Path, tmp_path: Path,
                                capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("checker.api")
    dest = tmp_path / "out.json"
    assert main([str(model), "-o", str(dest), "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["verdict"] == "not_serializable" and doc["certificate"] == str(dest)
    assert doc["checker"]["status"] == "valid"
    assert doc["counterexample"]["requests"] == 2
    assert dest.exists()


def test_missing_file_is_input_error(tmp_path: Path) -> None:
    assert main([str(tmp_path / "nope.ser")]) == 2


def test_output_with_two_models_is_usage_error(model: Path) -> None:
    assert main([str(model), str(model), "-o", "x.json"]) == 2


def test_no_budget_is_undecided(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ser = tmp_path / "ser.ser"
    ser.write_text("request main { X := X + 1; X := X - 1; 0 }\n")
    assert main([str(ser), "--timeout", "0"]) == 3
    out = capsys.readouterr().out
    assert "undecided" in out and "no engine ran" in out  # not "no counterexample with ≤ n"
    assert "counterexample" not in out
    assert not Path(f"{ser}.cert.json").exists()


def test_a_failed_check_is_no_verdict_and_is_reported(
    model: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every engine's answer refused by the checker: undecided (the next engine is tried
    after each refusal), the refusal named as a bug among the reasons, no certificate."""
    import prover.run.decide as pipeline  # the child calls the checker here

    monkeypatch.setattr(pipeline, "check_text",
        lambda text, source, timeout, bound=None: ("invalid", "boom"))
    assert main([str(model)]) == 3
    assert not Path(f"{model}.cert.json").exists()
    said = capsys.readouterr()
    assert "boom" in said.out + said.err and "a bug" in said.out + said.err


def test_a_refused_certificate_hands_over_to_the_next_engine(
    model: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The first answer's certificate refused, the second accepted: a verdict from the
    second, as if the first had found nothing."""
    import prover.run.decide as pipeline

    real, calls = pipeline.check_text, model.parent / "calls"  # the child writes it

    def once(text: str, source: str, timeout: float, bound: int | None = None
             ) -> tuple[str, str]:  # fmt: skip
        with calls.open("a") as f:
            f.write("call\n")
        first = calls.read_text().count("call") == 1
        return ("invalid", "boom") if first else real(text, source, timeout, bound)

    monkeypatch.setattr(pipeline, "check_text", once)
    assert main([str(model)]) == 1  # the second explicit search finds it again
    assert calls.read_text().count("call") == 2
    assert Path(f"{model}.cert.json").exists()


def test_certificate_bytes_identical_across_runs(model: Path, tmp_path: Path) -> None:
    pytest.importorskip("checker.api")
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert main([str(model), "-o", str(a)]) == 1
    assert main([str(model), "-o", str(b)]) == 1
    assert a.read_bytes() == b.read_bytes()
