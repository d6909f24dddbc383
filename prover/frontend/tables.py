"""The Ser grammar's LALR tables, computed once and shipped as package data.

Building the parser from grammar.lark costs about 0.1 s, a quarter of a small model's
whole run; reading the tables back costs under 10 ms. They are stored as JSON, not with
lark's pickle-based `save`, so that reading them can never run code. The file names the
lark version and the grammar's SHA-256 it was computed from: for any other lark or
grammar (or any error reading it) the parser is built from the grammar as before, so
the tables can be stale but never wrong. (lark numbers its states in an order that
depends on string hashing, so two runs write different but equivalent tables.)

Regenerate after a grammar change: `python -m prover.frontend.tables`
(tests/frontend/test_tables.py fails while they are stale).
"""

from __future__ import annotations

import hashlib
import importlib.resources
import json
from typing import Any

import lark
from lark.grammar import Rule
from lark.lexer import TerminalDef

GRAMMAR_PATH = importlib.resources.files("prover.frontend") / "grammar.lark"
TABLES = importlib.resources.files("prover.frontend") / "grammar_tables.json"
OPTIONS: dict[str, Any] = {"parser": "lalr", "lexer": "basic", "maybe_placeholders": False}


def grammar_text() -> str:
    return GRAMMAR_PATH.read_text(encoding="utf-8")


def _key(grammar: str) -> dict[str, str]:
    digest = hashlib.sha256(grammar.encode()).hexdigest()
    return {"lark": lark.__version__, "grammar_sha256": digest}


def _encode(x: Any) -> Any:
    """Every dict and tuple tagged, so that int keys and tuples survive JSON."""
    if isinstance(x, dict):
        return {"d": [[_encode(k), _encode(v)] for k, v in x.items()]}
    if isinstance(x, tuple):
        return {"t": [_encode(v) for v in x]}
    if isinstance(x, list):
        return [_encode(v) for v in x]
    if x is None or isinstance(x, str | int | float | bool):
        return x
    raise TypeError(f"cannot store {type(x).__name__} in the tables")


def _decode(obj: dict[str, Any]) -> Any:
    if "d" in obj:
        return {tuple(k) if isinstance(k, list) else k: v for k, v in obj["d"]}
    return tuple(obj["t"])


def tables_json(grammar: str) -> str:
    parser = lark.Lark(grammar, **OPTIONS)
    data, memo = parser.memo_serialize([TerminalDef, Rule])
    # Two lines: the key, then the tagged tables (read only when the key matches).
    return (json.dumps(_key(grammar), sort_keys=True) + "\n"
            + json.dumps(_encode([data, memo]), sort_keys=True) + "\n")


def load_parser(grammar: str, **extra: Any) -> lark.Lark:
    """The parser of `grammar` with `extra` options (e.g. a transformer): from the
    shipped tables when they were made from this grammar by this lark, else built."""
    try:
        key, tables = TABLES.read_text("utf-8").split("\n", 1)
        if json.loads(key) == _key(grammar):
            data, memo = json.loads(tables, object_hook=_decode)
            return lark.Lark._load_from_dict(data, memo, **extra)
    except Exception:  # noqa: BLE001 - unreadable tables: build from the grammar instead
        pass
    return lark.Lark(grammar, **OPTIONS, **extra)


if __name__ == "__main__":
    from pathlib import Path

    Path(str(TABLES)).write_text(tables_json(grammar_text()), encoding="utf-8")
    print(f"wrote {TABLES}")
