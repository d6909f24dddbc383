"""The certificate archive: one valid, current certificate per example model, and the
audit command that CI runs fails on a stale or corrupted archive."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
ARCHIVE = ROOT / "certificates"


def _audit(certs: Path, models: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "checker.cli", "--all", str(certs), "--model", str(models)],
        capture_output=True, text=True,
    )


def _models() -> list[Path]:
    # certificates that the README's tour writes beside the examples are not models
    return sorted(p for p in EXAMPLES.iterdir() if p.suffix in (".ser", ".json")
                  and not p.name.endswith((".cert.json", ".rejected.json"))
                  and p.name != "expected.json")


def test_every_example_has_an_archived_certificate() -> None:
    archived = {p.name for p in ARCHIVE.glob("*.cert.json")}
    assert archived == {m.name + ".cert.json" for m in _models()}


def test_archive_audit_passes() -> None:
    proc = _audit(ARCHIVE, EXAMPLES)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count(" valid ") == len(_models())


@pytest.fixture()
def copies(tmp_path: Path) -> tuple[Path, Path]:
    certs, models = tmp_path / "certs", tmp_path / "models"
    shutil.copytree(ARCHIVE, certs)
    shutil.copytree(EXAMPLES, models)
    return certs, models


def test_stale_certificate_fails_the_audit(copies: tuple[Path, Path]) -> None:
    certs, models = copies
    model = models / "intro-nonser.ser"
    model.write_text(model.read_text() + "\n// edited after the certificate was made\n")
    proc = _audit(certs, models)
    assert proc.returncode == 1
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("intro-nonser"))
    assert "invalid" in line and "E-MODEL-FILE" in line


def test_missing_model_fails_the_audit(copies: tuple[Path, Path]) -> None:
    certs, models = copies
    (models / "intro-lock.ser").unlink()
    proc = _audit(certs, models)
    assert proc.returncode == 1
    assert "E-MODEL-FILE" in proc.stdout


def test_corrupted_certificate_fails_the_audit(copies: tuple[Path, Path]) -> None:
    certs, models = copies
    path = certs / "intro-nonser.ser.cert.json"
    cert = json.loads(path.read_text())
    cert["counterexample"]["completed"][0]["count"] += 1
    path.write_text(json.dumps(cert))
    proc = _audit(certs, models)
    assert proc.returncode == 1
    assert "invalid" in proc.stdout


def test_empty_archive_fails_the_audit(tmp_path: Path) -> None:
    proc = _audit(tmp_path, EXAMPLES)
    assert proc.returncode == 2


def test_the_archive_is_what_the_prover_writes_today(tmp_path: Path) -> None:
    """The README's regenerate command reproduces the archive byte for byte (a change of
    the prover that changes a certificate updates the archive with it), and exits 0:
    every verdict is the one examples/expected.json gives."""
    from prover.cli import main

    assert main(["bench", str(EXAMPLES), "--out-dir", str(tmp_path), "--jobs", "2"]) == 0
    stale = [p.name for p in sorted(ARCHIVE.glob("*.cert.json"))
             if not (tmp_path / p.name).is_file()
             or (tmp_path / p.name).read_bytes() != p.read_bytes()]
    assert not stale, f"regenerate with the README's command: {stale}"
