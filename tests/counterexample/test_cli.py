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
    assert "undecided" in capsys.readouterr().out
    assert not Path(f"{ser}.cert.json").exists()


def test_failed_check_is_internal_error(
    model: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import prover.run.decide as pipeline  # the child calls the checker here

    monkeypatch.setattr(pipeline, "check_text",
        lambda text, source, timeout, bound=None: ("invalid", "boom"))
    assert main([str(model)]) == 4
    assert not Path(f"{model}.cert.json").exists()
    assert "boom" in capsys.readouterr().err


def test_certificate_bytes_identical_across_runs(model: Path, tmp_path: Path) -> None:
    pytest.importorskip("checker.api")
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert main([str(model), "-o", str(a)]) == 1
    assert main([str(model), "-o", str(b)]) == 1
    assert a.read_bytes() == b.read_bytes()
