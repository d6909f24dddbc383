"""`ser-check-cert CERT -D NAME=V` when another constant cannot be computed with V (a
division by zero, a choice, an overflow): E-CONSTANTS, never a traceback (the red team's
F2)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from prover.cli import main

ROOT = Path(__file__).resolve().parents[2]
MODEL = "const K := 2;\nconst J := 6 / (K - 3);\nglobal A[K];\nrequest r { A[0] := 1; J }\n"


@pytest.mark.parametrize("define", ["K=3", "K=9223372036854775807"])
def test_constants_that_cannot_be_computed_are_e_constants(tmp_path: Path, define: str,
                                                           capsys: pytest.CaptureFixture[str]
                                                           ) -> None:  # fmt: skip
    model = tmp_path / "m.ser"
    model.write_text(MODEL, encoding="utf-8")
    cert = tmp_path / "m.cert.json"
    assert main([str(model), "-o", str(cert), "--timeout", "20"]) == 0
    capsys.readouterr()
    p = subprocess.run([sys.executable, "-m", "checker.cli", str(cert), "-D", define,
                        "--json"], capture_output=True, text=True, cwd=ROOT)
    assert "Traceback" not in p.stderr + p.stdout
    assert p.returncode == 1, p.stderr
    got = json.loads(p.stdout)
    got = got[0] if isinstance(got, list) else got
    assert got["status"] == "invalid" and got["code"] == "E-CONSTANTS"
