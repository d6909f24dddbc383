"""`ser-prove explain --slice` and the inspect --json serial-set/target summary."""

from __future__ import annotations

import json

import pytest
from sls_helpers import BENCH_DIR

from prover.cli import main
from prover.frontend.load import load_model
from prover.target import inspect_info


def test_explain_slice_json(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["explain", str(BENCH_DIR / "a2.ser"), "--slice", "R main/0", "--json"])
    assert rc == 0
    info = json.loads(capsys.readouterr().out)
    assert info["place"]["label"] == "R main/0"
    seq = info["minimal"]["sequence"]
    assert seq[-1].startswith("respond main") and len(seq) == 7  # two requests interleave
    assert set(info["minimal"]["transitions"]) <= set(info["maximal"]["transitions"])


def test_explain_short_forms(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", str(BENCH_DIR / "a2.ser"), "--slice", "main/1"]) == 0
    out = capsys.readouterr().out
    assert "shortest sequence of 4 firings" in out
    assert main(["explain", str(BENCH_DIR / "a2.ser"), "--slice", "p0"]) == 0
    assert main(["explain", str(BENCH_DIR / "a2.ser"), "--slice", "nope"]) == 2


def test_inspect_info() -> None:
    info = inspect_info(load_model(BENCH_DIR / "a5.ser").ns)
    assert info["serial_set"] == {"components": 3, "periods": 6}
    tgt = info["target"]
    assert isinstance(tgt, dict) and tgt["disjuncts"] == len(tgt["sliced"])
    info = inspect_info(load_model(BENCH_DIR / "a1.ser").ns)
    assert info["target"] == {"disjuncts": 0, "sliced": []}
