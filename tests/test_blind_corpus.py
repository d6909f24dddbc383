"""The blind corpora of bench/blind/ (written from the language docs alone, verdicts by an
independent bounded search): every model has its verdict, family and size, every verdict
entry names a model, both tools read every model, and the benchmark's table counts right."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from prover.frontend.load import load_source

ROOT = Path(__file__).resolve().parents[1]
CORPORA = sorted(p for p in (ROOT / "bench" / "blind").iterdir() if (p / "expected.json").exists())


@pytest.mark.parametrize("folder", CORPORA, ids=lambda p: p.name)
def test_every_model_has_its_verdict(folder: Path) -> None:
    expected = json.loads((folder / "expected.json").read_text(encoding="utf-8"))
    models = {p.name for p in folder.glob("*.ser")}
    assert models == set(expected) and len(models) >= 50
    for name, info in expected.items():
        assert info["expected"] in ("serializable", "not_serializable"), name
        assert isinstance(info["family"], str) and isinstance(info["size"], int), name


@pytest.mark.parametrize("folder", CORPORA, ids=lambda p: p.name)
def test_both_front_ends_read_every_model(folder: Path) -> None:
    from checker.program import parse_program

    for path in sorted(folder.glob("*.ser")):
        text = path.read_text(encoding="utf-8")
        model = load_source(text, "ser", str(path), lazy=True)
        program = model.steps
        assert program is not None, path.name
        assert [r for r, _ in parse_program(text, dict(model.constants))[1]] == [
            r.name for r in program.program.requests], path.name


def test_the_table_counts_decided_and_wrong() -> None:
    sys.path.insert(0, str(ROOT / "bench"))
    from bench_blind import table

    rows = [{"folder": "a", "family": "cas", "size": 2, "model": "cas2.ser",
             "expected": "serializable", "verdict": "serializable", "prove_s": 1.0,
             "check_s": 0.5},
            {"folder": "a", "family": "cas", "size": 2, "model": "cas2-bug.ser",
             "expected": "not_serializable", "verdict": "undecided", "prove_s": 30.0,
             "check_s": None}]
    text = table(rows)
    assert "a        cas                 2      2       1     0   30.0  cas2-bug.ser" in text
    assert text.endswith("2 models: 1 decided (50.0 %), 0 wrong")
