"""Hand-built adversarial certificates: what an attacker who writes the JSON would try.

Shared by tests/checker/test_forgeries.py (a fast sample) and bench/bench_forgery.py (the
campaign). Every forgery is built as JSON *text*, since number spellings such as `1e300`
or `-0.0` only exist there, and every one claims something false or malformed: none may
be accepted.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

Json = Any
SPELLINGS = ("1.0", "1e17", "1e300", "-0.0", "true", "1E2", "0.5", "-1e-3")
MARK = "@@NUMBER@@"


def rehash(model: Json) -> Json:
    """A model section whose hash matches its source."""
    model["sha256"] = hashlib.sha256(model["source"].encode()).hexdigest()
    return model


def with_spelling(cert: Json, path: tuple[Any, ...], spelling: str) -> str:
    """The certificate's JSON text with the number at `path` written as `spelling`."""
    doc = json.loads(json.dumps(cert))
    node = doc
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = MARK
    return json.dumps(doc).replace(json.dumps(MARK), spelling)


def nodes(doc: Json, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Json]]:
    """Every (path, value) of a JSON document, the document itself first."""
    yield path, doc
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from nodes(v, (*path, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from nodes(v, (*path, i))


def number_paths(doc: Json) -> Iterator[tuple[Any, ...]]:
    """Every place in the document that holds an integer (bools excluded)."""
    return (path for path, v in nodes(doc) if type(v) is int)


def _sum(*terms: tuple[Any, Json]) -> Json:
    return {"sum": [[c, t] for c, t in terms]}


def _false_by_floats(spelling: str) -> tuple[Json, str]:
    """An invariant `a + 1 = a` that float arithmetic makes true at `a = 1e300`: unsat in
    the integers (so every consecution and the refutation would be 'unsat')."""
    formula = {"cmp": "=", "lhs": _sum((1, {"aux": "a"}), (1, {"const": 1})),
               "rhs": {"aux": "a"}}
    inv = {"aux": ["a"], "initial_aux": {"a": MARK}, "formula": formula, "updates": []}
    return inv, spelling


def proof_forgeries(model: Json) -> Iterator[tuple[str, str]]:
    """(label, certificate text) claiming `serializable` for `model` (a certificate's model
    section) by number tricks and by well-formed false claims."""

    def cert(inv: Json, components: list[Json] | None = None, **extra: Json) -> Json:
        proof = {**extra, "serial_set": {"components": components or []}, "invariant": inv}
        return {"format": "ser-certificate/1", "model": dict(model), "verdict": "serializable",
                "producer": {"tool": "forger", "version": "0"}, "proof": proof}

    for spelling in ("1e300", "1e17", "1.0", "-0.0", "1E300"):
        inv, sp = _false_by_floats(spelling)
        yield f"a + 1 = a at a = {sp}", json.dumps(cert(inv)).replace(json.dumps(MARK), sp)
    # the integer 10^17 in the formula next to the float 1e17: equal hashes in caches
    big = {"cmp": "=", "lhs": {"const": 100000000000000000}, "rhs": {"const": MARK}}
    inv = {"aux": [], "initial_aux": {}, "formula": {"not": big}, "updates": []}
    yield "const 1e17 next to 10^17", json.dumps(cert(inv)).replace(json.dumps(MARK), "1e17")
    coeff = {"cmp": "=", "lhs": {"sum": [[MARK, {"const": 1}]]}, "rhs": {"const": 0}}
    inv = {"aux": [], "initial_aux": {}, "formula": {"not": coeff}, "updates": []}
    yield "sum coefficient 0.0", json.dumps(cert(inv)).replace(json.dumps(MARK), "0.0")
    # well-formed, integer, false claims
    true_inv = {"aux": [], "initial_aux": {}, "formula": True, "updates": []}
    yield "invariant true, empty serial set", json.dumps(cert(true_inv))
    false_inv = {"aux": [], "initial_aux": {}, "formula": False, "updates": []}
    yield "invariant false", json.dumps(cert(false_inv))
    huge = {"aux": ["a"], "initial_aux": {"a": 2**63}, "formula": True, "updates": []}
    yield "aux beyond 64 bits", json.dumps(cert(huge))
    yield "aux of 5000 digits", json.dumps(cert(true_inv)).replace(
        '"initial_aux": {}', '"initial_aux": {"a": ' + "9" * 5000 + "}").replace(
        '"aux": []', '"aux": ["a"]')
    near = {"aux": [], "initial_aux": {}, "updates": [], "formula": {
        "cmp": "=", "lhs": {"place": {"global": "{} "}}, "rhs": {"const": 0}}}
    yield "place name with a trailing space", json.dumps(cert(near))
    yield "pairs listing nothing", json.dumps(cert(true_inv, pairs=[]))
    yield "pairs unsorted", json.dumps(cert(true_inv, pairs=[["b", "{}"], ["a", "{}"]]))
    yield "pairs naming unknown states", json.dumps(cert(true_inv, pairs=[["nope", "{}"]]))


def circulation_forgery(model: Json, edge: list[str], loop: list[str]) -> str:
    """A one-way edge next to two self-loops counted 1e17 times: balanced in floats."""
    comp = {"base": [], "periods": [[{"request": edge[1], "response": edge[2], "count": 1}]],
            "walk": {"end": loop[0], "edges": []},
            "circulations": [{"edges": [{"edge": edge, "count": 1},
                                        {"edge": loop, "count": MARK}]}]}
    inv = {"aux": [], "initial_aux": {}, "formula": True, "updates": []}
    doc = {"format": "ser-certificate/1", "model": dict(model), "verdict": "serializable",
           "producer": {"tool": "forger", "version": "0"},
           "proof": {"serial_set": {"components": [comp]}, "invariant": inv}}
    return json.dumps(doc).replace(json.dumps(MARK), "1e17")


def not_serializable_models(roots: list[Path]) -> Iterator[tuple[str, Json]]:
    """Model sections of every not-serializable certificate found under `roots`."""
    for root in roots:
        for path in sorted(root.glob("*.cert.json")):
            cert = json.loads(path.read_text(encoding="utf-8"))
            if cert.get("verdict") == "not_serializable":
                yield path.name, cert["model"]


def moved(cert: Json, source: str) -> Json:
    """`cert` claimed of the Ser program `source`."""
    out = json.loads(json.dumps(cert))
    out["model"] = rehash({"kind": "ser", "source": source})
    return out


def reduction_forgeries(valid: Json, twin: str) -> list[Json]:
    """A valid reduction certificate of a lock-based program moved onto its twin without
    the lock (not serializable): as it is, and rebuilt for the twin's own names (its
    globals' domains from the valid one's, every local state the checker enumerates
    labelled, first steps one way and later steps another, in each shape a request may
    have), with the invariant kept or dropped. None may be accepted."""
    from checker.certificate import Limits
    from checker.model import named
    from checker.program import parse_program
    from checker.steps import enumerate_steps

    out = [moved(valid, twin)]
    init, blocks = parse_program(twin)
    names: set[str] = set(dict(init))
    for _, body in blocks:
        names |= named(body)
    given = {d["global"]: d for d in valid["reduction"]["domains"]}
    domains = [given.get(x, {"global": x, "range": [0, 3]}) for x in sorted(names)]
    dom = {d["global"]: tuple(range(d["range"][0], d["range"][1] + 1)) if "range" in d
           else tuple(d["values"]) for d in domains}
    steps = enumerate_steps(blocks, dom, Limits(), [], {})
    for first, rest in (("N", "N"), ("R", "N"), ("N", "L"), ("R", "L"), ("B", "B")):
        for invariant in (valid["reduction"]["invariant"], True):
            forged = moved(valid, twin)
            forged["reduction"]["domains"] = domains
            forged["reduction"]["invariant"] = invariant
            forged["reduction"]["labels"] = [
                {"local": list(loc), "label": first if loc in steps.entries else rest}
                for loc in sorted(steps.foot)]
            out.append(forged)
    return out
