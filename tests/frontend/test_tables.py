"""The shipped LALR tables of the Ser grammar (prover/frontend/tables.py)."""

from __future__ import annotations

import json
from pathlib import Path

import lark
import pytest

from prover.frontend import parser, tables

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
BROKEN = ["request r { x := }", "request { 1 ", "request r { while (X == 1) { yield } ; }"]


def test_the_shipped_tables_are_those_of_the_grammar() -> None:
    """Fails when grammar.lark changed without `python -m prover.frontend.tables`."""
    key = json.loads(tables.TABLES.read_text("utf-8").split("\n", 1)[0])
    if key["lark"] != lark.__version__:
        pytest.skip(f"tables made with lark {key['lark']}, lark {lark.__version__} installed")
    assert key == tables._key(tables.grammar_text())
    assert tables.TABLES.read_text("utf-8").split("\n", 1)[0] == (
        tables.tables_json(tables.grammar_text()).split("\n", 1)[0])


def _outcome(p: lark.Lark, source: str) -> object:
    try:
        return p.parse(source)
    except lark.exceptions.UnexpectedInput as exc:
        return (type(exc).__name__, exc.line, exc.column)


def test_a_parser_from_the_tables_parses_as_a_built_one() -> None:
    grammar = tables.grammar_text()
    stored = tables.load_parser(grammar, transformer=parser._Build())
    built = lark.Lark(grammar, **tables.OPTIONS, transformer=parser._Build())
    sources = [p.read_text("utf-8") for p in sorted(EXAMPLES.glob("*.ser"))] + BROKEN
    assert len(sources) > len(BROKEN)
    for source in sources:
        assert _outcome(stored, source) == _outcome(built, source)


@pytest.mark.parametrize("content", ["", "not json\n{}", '{"lark": "0.0", "grammar_sha256": '
                                     '"x"}\n[]', json.dumps(tables._key(tables.grammar_text()))
                                     + "\n[{\"d\": 3}]"])
def test_stale_or_broken_tables_fall_back_to_the_grammar(
        content: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "tables.json"
    path.write_text(content)
    monkeypatch.setattr(tables, "TABLES", path)
    p = tables.load_parser(tables.grammar_text())
    assert p.parse("request r { 1 }") is not None


def test_only_plain_data_is_stored() -> None:
    with pytest.raises(TypeError):
        tables._encode({"x": object()})
    assert tables._encode({1: (2, [3])}) == {"d": [[1, {"t": [2, [3]]}]]}
