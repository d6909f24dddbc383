"""The memoised schema validation reports exactly what plain jsonschema reports."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from checker import certificate
from checker.errors import SchemaError

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "schemas" / "certificate.schema.json").read_text())
CERTS = sorted((ROOT / "certificates").glob("*.json"))[:12]


def _plain(data: Any) -> str | None:
    error = next(iter(jsonschema.Draft202012Validator(SCHEMA).iter_errors(data)), None)
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path) or "(top level)"
    return f"schema violation at {where}: {error.message[:300]}"


def _memo(data: Any) -> str | None:
    try:
        certificate.validate(data, certificate._scan(data, certificate.Limits()))
    except SchemaError as exc:
        return str(exc)
    return None


def test_schema_is_one_resource() -> None:
    text = json.dumps(SCHEMA)
    assert "$dynamicRef" not in text and "$anchor" not in text and text.count('"$id"') == 1


def _nodes(data: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    items = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(
        data, list) else []
    for k, v in items:
        out += _nodes(v, (*path, k))
    return out


JUNK = [None, True, 0, -1, 2, "x", "", [], {}, [1], {"a": 1}, {"request": "main"}]


@pytest.mark.skipif(not CERTS, reason="no archived certificates")
@settings(max_examples=150, deadline=None)
@given(st.integers(0, 10**6), st.integers(0, 10**6), st.sampled_from(JUNK),
       st.sampled_from(["replace", "delete", "dup"]))
def test_mutants_agree(which: int, where: int, junk: Any, how: str) -> None:
    data = json.loads(CERTS[which % len(CERTS)].read_text())
    paths = _nodes(data)[1:]
    path = paths[where % len(paths)]
    data = copy.deepcopy(data)
    parent = data
    for k in path[:-1]:
        parent = parent[k]
    last = path[-1]
    if how == "replace":
        parent[last] = junk
    elif how == "delete":
        del parent[last]
    elif isinstance(parent, list):  # a repeated element: both copies are validated
        parent.append(copy.deepcopy(junk))
        parent.insert(0, parent[last])
    assert _memo(data) == _plain(data)


def test_repeated_value_failing_late_is_found() -> None:
    data = json.loads(CERTS[0].read_text()) if CERTS else pytest.skip("no certificates")
    assert _memo(data) is None
    data["model"]["extra"] = data["model"]["kind"]  # a shared string, now in a bad place
    assert _memo(data) == _plain(data) is not None
