"""`-D NAME=VALUE` and the size sweep `ser-prove MODEL -D K=2..24` (prover/commands/sweep.py)."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from prover.commands.options import define, defines
from prover.commands.sweep import Row, certificate_path, growth, swept, table
from prover.errors import UsageError


@pytest.mark.parametrize("text, want", [
    ("K=4", ("K", (4,))), ("K=2..5", ("K", (2, 3, 4, 5))), ("K=8,2,4", ("K", (8, 2, 4))),
    ("N=-3", ("N", (-3,))), (" K = 7", ("K", (7,))),
])
def test_defines_are_read(text: str, want: tuple[str, tuple[int, ...]]) -> None:
    assert define(text) == want


@pytest.mark.parametrize("text", ["K", "=4", "K=x", "K=1.5", "K=1e3", "K=99999999999999999999",
                                  "K=5..2", "K=1..1000", "K=²", "k-1=2", "K=1_000"])
def test_bad_defines_are_usage_errors(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError):
        define(text)


def test_one_value_per_constant_outside_a_sweep() -> None:
    assert defines(argparse.Namespace(define=[("K", (4,)), ("N", (2,))])) == (("K", 4), ("N", 2))
    with pytest.raises(UsageError, match="several sizes"):
        defines(argparse.Namespace(define=[("K", (2, 3))]))


def test_a_sweep_names_one_constant_and_sizes_its_certificates() -> None:
    args = argparse.Namespace(define=[("K", (4, 2, 3)), ("N", (1,))])
    assert swept(args) == ("K", (2, 3, 4), (("N", 1),))
    with pytest.raises(UsageError, match="one constant at a time"):
        swept(argparse.Namespace(define=[("K", (1, 2)), ("N", (1, 2))]))
    assert certificate_path("a/m.ser", "K", 8, None) == str(Path("a/m.ser.K=8.cert.json"))
    assert certificate_path("a/m.ser", "K", 8, "out") == str(Path("out/m.ser.K=8.cert.json"))


def test_the_growth_is_the_slope_of_the_decided_sizes() -> None:
    rows = [Row(k, "serializable", float(k ** 2), 1, 1, "reduction", 0, None) for k in (2, 4, 8)]
    exponent = growth([*rows, Row(16, "undecided", 60.0, None, None, "-", 3, None)])
    assert exponent is not None and abs(exponent - 2.0) < 1e-9
    assert growth(rows[:1]) is None
    lines = table("K", rows)
    assert lines[0].split()[:3] == ["K", "verdict", "seconds"] and len(lines) == 4


def test_the_sweep_prints_a_table_and_json_lines(tmp_path: Path) -> None:
    model = tmp_path / "flip.ser"
    model.write_text("const K := 2;\nglobal A[K];\n"
                     "request flip[j in 0..K-1] { A[j] := 1 - A[j]; A[j] }\n")
    run = [sys.executable, "-m", "prover.cli", str(model), "-D", "K=1..3", "--timeout", "60"]
    p = subprocess.run([*run, "--json"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    lines = [json.loads(x) for x in p.stdout.splitlines()]
    assert [x["constants"] for x in lines] == [{"K": 1}, {"K": 2}, {"K": 3}]
    assert {x["verdict"] for x in lines} == {"serializable"}
    assert all(Path(x["certificate"]).name == f"flip.ser.K={k}.cert.json"
               for k, x in zip((1, 2, 3), lines, strict=True))
    text = subprocess.run(run, capture_output=True, text=True)
    assert text.returncode == 0 and "time grows as K^" in text.stdout
