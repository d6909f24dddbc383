"""The schema says `anyOf` where its branches exclude each other (a document meets at most
one): it then accepts exactly what `oneOf` would, and the validator stops at the match."""

from __future__ import annotations

import copy
import itertools
import json
import random
from typing import Any

import jsonschema
import pytest

from tests.checker.helpers import ROOT

Json = Any
SCHEMA = json.loads((ROOT / "schemas" / "certificate.schema.json").read_text())
ANY_OF = ["event", "place", "term", "formula", "transition"]


def _exclusive(a: Json, b: Json) -> bool:
    """No JSON value meets both: disjoint types, or a key one requires and the other forbids
    (additionalProperties false, not among its properties), or a key both require with
    different constants."""
    if a.get("type") != b.get("type"):
        return True
    for x, y in ((a, b), (b, a)):
        if y.get("additionalProperties") is False and any(
                k not in y.get("properties", {}) for k in x.get("required", [])):
            return True
    both = set(a.get("required", [])) & set(b.get("required", []))
    return any("const" in a["properties"][k] and "const" in b["properties"][k]
               and a["properties"][k]["const"] != b["properties"][k]["const"] for k in both)


def test_the_any_of_definitions_are_exactly_those() -> None:
    assert sorted(n for n, d in SCHEMA["$defs"].items() if "anyOf" in d) == sorted(ANY_OF)


@pytest.mark.parametrize("name", ANY_OF)
def test_their_branches_exclude_each_other(name: str) -> None:
    branches = SCHEMA["$defs"][name]["anyOf"]
    for a, b in itertools.combinations(branches, 2):
        assert _exclusive(a, b), (name, a, b)


def _one_of() -> Json:
    s = copy.deepcopy(SCHEMA)
    for name in ANY_OF:
        s["$defs"][name]["oneOf"] = s["$defs"][name].pop("anyOf")
    return s


def _first(v: Any, doc: Json) -> Any:
    e = next(v.iter_errors(doc), None)
    return None if e is None else (e.message, list(e.absolute_path))


def _mutants(doc: Json, rng: random.Random, n: int) -> list[Json]:
    """`doc` with one value replaced, or one key or item dropped, at random places."""
    spare = [0, True, None, "x", [], {}, {"const": 1}, {"place": {"global": "g"}},
             {"cmp": "=", "lhs": {"const": 0}}, {"kind": "spawn"}, {"and": [1]}, ["a"]]
    out = []
    for _ in range(n):
        d = copy.deepcopy(doc)
        node = d
        while isinstance(node, dict | list) and node and rng.random() < 0.85:
            key = rng.choice(list(node) if isinstance(node, dict) else range(len(node)))
            if not isinstance(node[key], dict | list) or not node[key] or rng.random() < 0.1:
                if rng.random() < 0.3:
                    del node[key]
                else:
                    node[key] = rng.choice(spare)
                break
            node = node[key]
        out.append(d)
    return out


def test_any_of_and_one_of_give_the_same_answer_and_first_error() -> None:
    new, old = (jsonschema.Draft202012Validator(s) for s in (SCHEMA, _one_of()))
    rng = random.Random(7)
    docs = [json.loads(f.read_text()) for f in sorted((ROOT / "certificates").glob("*.json"))
            if f.stat().st_size < 30_000]
    assert docs
    accepted = 0
    for doc in docs:
        for d in [doc, *_mutants(doc, rng, 25)]:
            assert _first(new, d) == _first(old, d)
            accepted += _first(new, d) is None
    assert len(docs) <= accepted < len(docs) * 26  # valid ones, and rejected mutants too
