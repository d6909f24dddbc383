"""bench/others-arrays: the 26 models of others/large written with constants, arrays,
request families and `for` (its README.md). Every model parses, expected.json names
exactly the models, and the folder is at most a quarter of the originals' lines. Parsing
only: deciding them is `ser-prove bench/others-arrays/*.ser`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prover.frontend.parser import parse

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "bench" / "others-arrays"
ORIGINALS = ROOT.parent / "shared" / "benchmarks" / "others" / "large"


def _models(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.ser"))


def _lines(paths: list[Path]) -> int:
    return sum(len(p.read_text().splitlines()) for p in paths)


def test_every_model_parses() -> None:
    models = _models(FOLDER)
    assert len(models) == 26
    for path in models:
        program = parse(path.read_text())
        assert program.requests, path.name
        assert dict(program.constants)["K"] in (8, 16), path.name


def test_expected_names_exactly_the_models() -> None:
    expected = json.loads((FOLDER / "expected.json").read_text())
    assert sorted(expected) == [p.name for p in _models(FOLDER)]
    assert {v["expected"] for v in expected.values()} <= {"serializable", "not_serializable"}


def test_a_quarter_of_the_originals_lines() -> None:
    if not ORIGINALS.is_dir():
        pytest.skip("../shared/benchmarks/others/large is absent: run `ser-prove benchmarks`")
    originals = _models(ORIGINALS)
    assert [p.name for p in originals] == [p.name for p in _models(FOLDER)]
    assert 4 * _lines(_models(FOLDER)) <= _lines(originals)
