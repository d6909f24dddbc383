"""The checker's shipped LALR tables (checker/ser_tables.json, written by checker/tables.py)
are exactly the automaton lark builds from checker/ser.lark, and the checker uses them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import lark
import pytest

from checker import model, tables

ROOT = Path(__file__).resolve().parents[2]
BROKEN = ["request r { x := }", "request { 1 ", "request r { while (X == 1) { yield } ; }",
          "", "1 +", "global X := 1.5; request r { X }", "request r { -9223372036854775808 }",
          "const K := 2; global A[K]; request r[j in 0..K-1] { A[j] := j; yield; A[j] }"]


def _built() -> lark.Lark:
    """The parser model.py builds when the tables are not this grammar's or this lark's."""
    return model._parser("[]\n")


def test_the_shipped_tables_are_made_from_the_grammar_by_this_lark() -> None:
    """Fails when ser.lark changed without `python -m checker.tables`."""
    key = json.loads(tables.TABLES.read_text("utf-8").split("\n", 1)[0])
    if key[0] != lark.__version__:
        pytest.skip(f"tables made with lark {key[0]}, lark {lark.__version__} installed")
    assert key == [lark.__version__, model._GRAMMAR]
    assert "grammar" not in vars(model._PARSER)  # loaded from the tables, not built
    assert "grammar" in vars(_built())
    for p in (model._PARSER, _built()):
        assert {k: getattr(p.options, k) for k in tables.OPTIONS} == tables.OPTIONS


def _table(p: lark.Lark) -> Any:
    return p.parser.parser.parser.parse_table


def _pairs(a: Any, b: Any) -> Iterator[tuple[Any, Any]]:
    """The states of two parse tables matched from their start states along equal tokens."""
    todo = [(a.start_states[s], b.start_states[s]) for s in a.start_states]
    assert a.start_states.keys() == b.start_states.keys()
    seen: dict[Any, Any] = {}
    while todo:
        x, y = todo.pop()
        if x in seen:
            assert seen[x] == y, "one state of the tables is two of the grammar's"
            continue
        seen[x] = y
        yield x, y
        ax, ay = a.states[x], b.states[y]
        assert ax.keys() == ay.keys(), f"state {x}: tokens {sorted(ax)} != {sorted(ay)}"
        todo += [(ax[t][1], ay[t][1]) for t in ax if ax[t][0].name == "Shift"]
    assert len(set(seen.values())) == len(seen) == len(a.states) == len(b.states)


def _rule(r: Any) -> tuple[Any, ...]:
    return (str(r.origin.name), [str(s.name) for s in r.expansion], r.alias, r.order,
            tuple(r.options.empty_indices), r.options.keep_all_tokens, r.options.expand1)


def test_the_shipped_tables_are_the_grammars_automaton_up_to_numbering() -> None:
    """State by state: the same tokens, the same shifts (to matched states), the same
    reductions by the same rules, the same end states."""
    a, b = _table(model._PARSER), _table(_built())
    matched = dict(_pairs(a, b))
    for x, y in matched.items():
        for t, (act, arg) in a.states[x].items():
            act2, arg2 = b.states[y][t]
            assert act.name == act2.name, (x, t)
            if act.name == "Shift":
                assert matched[arg] == arg2
            else:
                assert _rule(arg) == _rule(arg2), (x, t)
    assert {matched[s] for s in a.end_states.values()} == set(b.end_states.values())


def _outcome(p: lark.Lark, source: str) -> object:
    try:
        return p.parse(source)
    except lark.exceptions.UnexpectedInput as exc:  # the checker reads where, and what
        return (type(exc).__name__, exc.line, exc.column, str(getattr(exc, "token", "")))
    except model.CheckerError as exc:
        return (type(exc).__name__, str(exc))


def test_the_shipped_parser_parses_as_a_built_one() -> None:
    built = _built()
    sources = [p.read_text("utf-8") for p in sorted((ROOT / "examples").rglob("*.ser"))]
    assert len(sources) > 10
    for source in sources + BROKEN:
        assert _outcome(model._PARSER, source) == _outcome(built, source), source[:60]


@pytest.mark.parametrize("key", [["0.0", "x"], [lark.__version__, "start: NAME"],
                                 ["0.0", model._GRAMMAR]])
def test_tables_of_another_lark_or_grammar_are_not_used(key: list[Any]) -> None:
    p = model._parser(json.dumps(key) + "\n" + "[{}, {}]\n")  # unreadable tables: built
    assert p.parse("request r { X := 1; yield; X }") == _built().parse(
        "request r { X := 1; yield; X }")
