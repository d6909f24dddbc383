"""bench/arrays: the scale and idiom families (prover/benchmarks/scale.py, bench/idioms.py)
written once each with const, arrays, request families and for. Every model parses at
sizes 2 and 4 of its size constant, and expected.json names exactly the models there.
No proving here: bench/arrays/README.md records the runs against the generated models."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prover.frontend.parser import parse

ARRAYS = Path(__file__).resolve().parents[2] / "bench" / "arrays"
EXPECTED = json.loads((ARRAYS / "expected.json").read_text(encoding="utf-8"))
MODELS = sorted(p.name for p in ARRAYS.glob("*.ser"))


def test_expected_names_exactly_the_models() -> None:
    assert MODELS, "no models in bench/arrays"
    assert sorted(EXPECTED) == MODELS


def test_expected_entries() -> None:
    for name, entry in EXPECTED.items():
        assert entry["expected"] in ("serializable", "not_serializable"), name
        assert entry["family"], name
        assert entry["note"], name
        assert entry.get("size_constant", "K") in ("K", "N"), name
        if name.endswith("-bug.ser"):  # a buggy twin is not serializable, its family is
            assert entry["expected"] == "not_serializable", name
            assert EXPECTED[name.replace("-bug", "")]["expected"] == "serializable", name


@pytest.mark.parametrize("name", MODELS)
@pytest.mark.parametrize("size", [2, 4])
def test_parses_at_size(name: str, size: int) -> None:
    path = ARRAYS / name
    text = path.read_text(encoding="utf-8")
    const = EXPECTED[name].get("size_constant", "K")
    program = parse(text, str(path), defines={const: size})
    assert dict(program.constants)[const] == size
    assert program.requests
    # Request families and arrays are written out: no member or cell is out of range.
    names = [r.name for r in program.requests]
    assert len(names) == len(set(names))
    for r in names:
        if "[" in r:
            assert int(r[r.index("[") + 1:-1]) < size


def test_default_size_is_four() -> None:
    for name in MODELS:
        const = EXPECTED[name].get("size_constant", "K")
        text = (ARRAYS / name).read_text(encoding="utf-8")
        assert f"const {const} := 4;" in text, name
        program = parse(text, name)
        assert dict(program.constants)[const] == 4
