"""Reading a certificate: strict JSON, integer literals only, size limits, the JSON Schema.

Order matters: numbers with a fraction or an exponent are rejected while decoding (JSON
Schema's "integer" accepts 1.0 and 1e300, and float arithmetic forges proofs), then cheap
counts bound what the schema validator and the obligations will have to walk.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from itertools import islice
from typing import Any

import jsonschema

from checker.errors import JsonError, LimitError, SchemaError


@dataclass(frozen=True)
class Limits:
    """Resource limits against hostile certificates (defaults in docs/certificates.md)."""

    max_bytes: int = 16 * 1024 * 1024
    max_depth: int = 256
    max_nodes: int = 200_000
    max_vars: int = 2_000
    max_events: int = 100_000
    max_int: int = 2**63 - 1
    max_json_nodes: int = 2_000_000
    max_periods: int = 200  # per component: k x k exact elimination, k <= coordinates


class _NotInteger:
    """A JSON number spelled with a fraction or an exponent, kept as text for the message."""

    def __init__(self, text: str) -> None:
        self.text = text


def integer(value: Any, where: str) -> int:
    """The second line behind the decoder: exactly an int (never a bool or a float)."""
    if type(value) is not int:
        raise SchemaError(f"{where}: {value!r} is not an integer")
    return value


def _strict_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):  # a repeated key: name the first one
        keys = [k for k, _ in pairs]
        dup = next(k for k in keys if keys.count(k) > 1)
        raise JsonError(f"an object repeats the key {dup!r}")
    return obj


def _no_constant(name: str) -> Any:
    raise JsonError(f"{name} is not a JSON number")


_PLAIN = (str, int, bool, type(None))  # exact types of the leaves with nothing to report


def _scan(data: Any, limits: Limits) -> dict[int, int]:
    """Non-integer numbers, nesting depth, node count and integer sizes, iteratively. Returns
    the id of every value -> the id of the first value equal to it (same types, same key
    order), found bottom-up: big certificates repeat small values, validation reads each once."""
    todo: list[tuple[Any, int, tuple[Any, ...], bool]] = [(data, 1, (), False)]
    nodes, canon, first = 0, dict[int, int](), dict[Any, Any]()
    while todo:
        node, depth, path, below = todo.pop()
        nodes += not below
        if nodes > limits.max_json_nodes:
            raise LimitError(f"more than {limits.max_json_nodes} JSON values")
        if depth > limits.max_depth:
            raise LimitError(f"JSON nesting deeper than {limits.max_depth}")
        if isinstance(node, dict | list) and not below:
            todo.append((node, depth, path, True))
            items = node.items() if isinstance(node, dict) else enumerate(node)
            for k, v in items:  # a plain leaf is done here, anything else gets the full walk
                if depth < limits.max_depth and type(v) in _PLAIN and (
                        type(v) is not int or abs(v) <= limits.max_int):
                    nodes += 1
                    canon[id(v)] = id(first.setdefault((type(v), v), v))
                else:
                    todo.append((v, depth + 1, (*path, k), False))
            continue
        if isinstance(node, _NotInteger):
            where = "/" + "/".join(str(p) for p in path)
            raise JsonError(f"{where}: {node.text[:40]} is not an integer literal (numbers in "
                            "a certificate are integers without fraction or exponent)")
        if isinstance(node, int) and not isinstance(node, bool) and abs(node) > limits.max_int:
            raise LimitError(f"integer {str(node)[:30]}... exceeds the limit {limits.max_int}")
        key = (("{", *((k, canon[id(v)]) for k, v in node.items())) if isinstance(node, dict)
               else ("[", *(canon[id(v)] for v in node)) if isinstance(node, list)
               else (type(node), node))  # fmt: skip
        canon[id(node)] = id(first.setdefault(key, node))
    return canon


def _counts(data: Any, limits: Limits) -> None:
    """Cheap size checks before the schema validator walks the document."""
    ce = data.get("counterexample") if isinstance(data, dict) else None
    events = ce.get("events") if isinstance(ce, dict) else None
    if isinstance(events, list) and len(events) > limits.max_events:
        raise LimitError(f"{len(events)} events, limit {limits.max_events}")
    proof = data.get("proof") if isinstance(data, dict) else None
    sset = proof.get("serial_set") if isinstance(proof, dict) else None
    comps = sset.get("components") if isinstance(sset, dict) else None
    for i, comp in enumerate(comps if isinstance(comps, list) else []):
        periods = comp.get("periods") if isinstance(comp, dict) else None
        if isinstance(periods, list) and len(periods) > limits.max_periods:
            raise LimitError(f"component {i}: {len(periods)} periods, limit {limits.max_periods}")


def parse(cert: dict[str, Any] | str | bytes, limits: Limits) -> dict[str, Any]:
    """Certificate object from bytes, text or an already decoded object (re-encoded, so a
    Python object gets exactly the treatment of its JSON text)."""
    if isinstance(cert, dict):
        try:
            cert = json.dumps(cert, allow_nan=False)
        except (TypeError, ValueError, RecursionError) as exc:
            raise JsonError(f"not a JSON document: {exc}") from None
    raw = cert.encode("utf-8", "surrogatepass") if isinstance(cert, str) else cert
    if len(raw) > limits.max_bytes:
        raise LimitError(f"certificate is {len(raw)} bytes, limit {limits.max_bytes}")
    try:
        text = raw.decode("utf-8")
        data = json.loads(text, object_pairs_hook=_strict_object, parse_constant=_no_constant,
                          parse_float=_NotInteger)  # fmt: skip
    except RecursionError:
        raise LimitError("JSON nesting too deep") from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise JsonError(f"not JSON: {str(exc)[:200]}") from None
    canon = _scan(data, limits)
    _counts(data, limits)
    validate(data, canon)
    result: dict[str, Any] = data
    return result


SCHEMA = ("schemas", "certificate.schema.json")  # package data: (package, file)


@cache  # a pure function of the packaged schema file
def _schema(package: str, name: str) -> Any:
    try:
        return json.loads(resources.files(package).joinpath(name).read_text("utf-8"))
    except (OSError, ModuleNotFoundError) as exc:
        raise SchemaError(f"cannot read the certificate schema: {exc}") from None


def validate(data: Any, canon: dict[int, int]) -> None:
    """The first error of the JSON Schema validator. A (keyword, subschema, value) that passed
    once is skipped afterwards (the result depends on nothing else: the schema is one resource
    without $dynamicRef, a test checks it; `canon` names values by the first equal one, ids
    stay unique while the document lives). Only passes are kept: the first error is as before."""
    passed: set[tuple[str, int, int | None]] = set()

    def once(keyword: str, check: Any) -> Any:
        def run(validator: Any, value: Any, instance: Any, schema: Any) -> Any:
            key = (keyword, id(schema), canon.get(id(instance)))
            if key not in passed:
                errors = list(islice(check(validator, value, instance, schema) or (), 1))
                yield from errors  # one is enough: the caller reads only the first error
                if not errors and key[2] is not None:
                    passed.add(key)

        return run

    base = jsonschema.Draft202012Validator
    memo = jsonschema.validators.extend(base, {k: once(k, f) for k, f in base.VALIDATORS.items()})
    # The first error, not the best one: ranking all errors of nested oneOf is superlinear.
    error = next(iter(memo(_schema(*SCHEMA)).iter_errors(data)), None)
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "(top level)"
        raise SchemaError(f"schema violation at {where}: {error.message[:300]}")
