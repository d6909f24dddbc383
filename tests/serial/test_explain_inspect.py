"""`ser-prove explain --slice` and the inspect --json serial-set/target summary."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sls_helpers import BENCH_DIR, needs_bench

from prover.cli import main


@needs_bench
def test_explain_slice_json(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["explain", str(BENCH_DIR / "a2.ser"), "--slice", "R main/0", "--json"])
    assert rc == 0
    info = json.loads(capsys.readouterr().out)
    assert info["place"]["label"] == "R main/0"
    seq = info["minimal"]["sequence"]
    assert seq[-1].startswith("respond main") and len(seq) == 7  # two requests interleave
    assert set(info["minimal"]["transitions"]) <= set(info["maximal"]["transitions"])


@needs_bench
def test_explain_short_forms(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", str(BENCH_DIR / "a2.ser"), "--slice", "main/1"]) == 0
    out = capsys.readouterr().out
    assert "shortest sequence of 4 firings" in out
    assert main(["explain", str(BENCH_DIR / "a2.ser"), "--slice", "p0"]) == 0
    assert main(["explain", str(BENCH_DIR / "a2.ser"), "--slice", "nope"]) == 2


def _inspect(model: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    assert main(["inspect", "--json", str(model)]) == 0
    return dict(json.loads(capsys.readouterr().out))


@needs_bench
def test_inspect_json_reports_serial_set_and_target(capsys: pytest.CaptureFixture[str]) -> None:
    info = _inspect(BENCH_DIR / "a5.ser", capsys)
    assert info["serial_set"] == {"components": 3, "periods": 6}
    tgt = info["target"]
    assert isinstance(tgt, dict) and tgt["disjuncts"] == len(tgt["sliced"])
    info = _inspect(BENCH_DIR / "a1.ser", capsys)
    assert info["target"] == {"disjuncts": 0, "sliced": []}
    assert "target" not in json.loads(
        (main(["inspect", "--json", "--no-target", str(BENCH_DIR / "a1.ser")]),
         capsys.readouterr().out)[1])
