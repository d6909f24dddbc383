"""Writes checker/ser_tables.json, lark's LALR tables of checker/ser.lark, which
checker/model.py reads instead of computing them on every run (about 0.1 s, more than the
check of a small certificate). A build tool: no check imports it.

The file is lark's own serialization of the parser, as plain JSON (reading it runs no code,
unlike lark's pickle-based cache). Its first line is the key model.py compares before it
uses the rest: the lark version and the whole grammar text (the options are in the rest); with any
other lark or grammar, model.py builds the parser from the grammar as before. lark numbers
its states differently on every run, so tests/checker/test_tables.py checks the shipped
tables against freshly built ones state by state, up to that numbering: they are exactly
the automaton lark computes from the grammar.

Regenerate after a grammar change: `python -m checker.tables`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

TABLES = Path(__file__).with_name("ser_tables.json")
GRAMMAR = Path(__file__).with_name("ser.lark")
OPTIONS: dict[str, Any] = {"parser": "lalr", "lexer": "basic", "maybe_placeholders": True}


def tables_json() -> str:
    """The tables' text: the key line, then lark's serialization of the parser."""
    import lark
    from lark.grammar import Rule
    from lark.lexer import TerminalDef

    grammar = GRAMMAR.read_text(encoding="utf-8")
    data, memo = lark.Lark(grammar, **OPTIONS).memo_serialize([TerminalDef, Rule])
    return (json.dumps([lark.__version__, grammar]) + "\n"
            + json.dumps([data, memo], sort_keys=True) + "\n")


if __name__ == "__main__":
    TABLES.write_text(tables_json(), encoding="utf-8")
    print(f"wrote {TABLES}")
