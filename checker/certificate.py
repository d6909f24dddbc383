"""Reading a certificate: strict JSON with integer literals only, limits, the schema."""
# In this order: strict JSON with integer literals only (the schema's "integer" takes 1.0
# and 1e300; floats forge proofs), limits on what the rest walks, then the schema.

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import jsonschema

from checker.errors import JsonError, LimitError, SchemaError


@dataclass(frozen=True)
class Limits:
    """Resource limits against hostile certificates (defaults in docs/certificates.md)."""

    max_bytes: int = 16 * 1024 * 1024
    max_depth: int = 256
    max_nodes: int = 1_000_000  # 16 MiB of JSON hold fewer anyway
    max_vars: int = 2_000
    max_events: int = 100_000
    max_int: int = 2**63 - 1
    max_json_nodes: int = 2_000_000
    max_periods: int = 200  # per component: k x k exact elimination, k <= coordinates
    state_bound: int = 20_000  # locals + globals of the NS a proof names (--state-bound)
    max_locals: int = 20_000  # local states a reduction proof enumerates
    max_valuations: int = 500_000  # (local state, valuation) pairs it steps, domain values


class _NotInteger(str):
    """A JSON number spelled with a fraction or an exponent, kept as text for the message."""


def _strict_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    if len(obj := dict(pairs)) != len(pairs):  # a repeated key: name the first one
        dup = next(k for k, n in Counter(k for k, _ in pairs).items() if n > 1)
        raise JsonError(f"an object repeats the key {dup!r}")
    return obj


def _no_constant(name: str) -> Any:
    raise JsonError(f"{name} is not a JSON number")


def _scan(data: Any, limits: Limits) -> None:
    """Non-integer numbers, nesting depth, node count and integer sizes, iteratively."""
    nodes, todo = 0, list[tuple[Any, tuple[Any, ...]]]([(data, ())])  # values: value, path
    while todo:
        (node, path), nodes = todo.pop(), nodes + 1
        if nodes > limits.max_json_nodes:
            raise LimitError(f"more than {limits.max_json_nodes} JSON values")
        if len(path) >= limits.max_depth:
            raise LimitError(f"JSON nesting deeper than {limits.max_depth}")
        if isinstance(node, dict | list):
            items = node.items() if isinstance(node, dict) else enumerate(node)
            todo.extend((v, (*path, k)) for k, v in items)
        elif isinstance(node, _NotInteger):
            where = "/" + "/".join(str(p) for p in path)
            raise JsonError(f"{where}: {node[:40]} is not an integer literal (numbers in "
                            "a certificate are integers without fraction or exponent)")
        elif isinstance(node, int) and not isinstance(node, bool) and abs(node) > limits.max_int:
            raise LimitError(f"integer {str(node)[:30]}... exceeds the limit {limits.max_int}")


def parse(cert: dict[str, Any] | str | bytes, limits: Limits, schema: bool = True
          ) -> dict[str, Any]:  # fmt: skip
    """A certificate from bytes, text or a decoded object (re-encoded: read as its JSON text)."""
    if isinstance(cert, dict):
        try:
            cert = json.dumps(cert, allow_nan=False)
        except (TypeError, ValueError, RecursionError) as exc:
            raise JsonError(f"not a JSON document: {exc}") from None
    raw = cert.encode("utf-8", "surrogatepass") if isinstance(cert, str) else cert
    if len(raw) > limits.max_bytes:
        raise LimitError(f"certificate is {len(raw)} bytes, limit {limits.max_bytes}")
    try:
        data = json.loads(raw.decode("utf-8"), object_pairs_hook=_strict_object,
                          parse_constant=_no_constant, parse_float=_NotInteger)
    except RecursionError:
        raise LimitError("JSON nesting too deep") from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise JsonError(f"not JSON: {str(exc)[:200]}") from None
    _scan(data, limits)
    if schema:  # else: a part of a whole validated already (`check_certificate`'s nested)
        validate(data)
    return data


SCHEMA = ("schemas", "certificate.schema.json")  # package data: (package, file)


@cache  # a pure function of the packaged schema file
def _schema(package: str, name: str) -> Any:
    try:
        return json.loads(resources.files(package).joinpath(name).read_text("utf-8"))
    except (OSError, ModuleNotFoundError) as exc:
        raise SchemaError(f"cannot read the certificate schema: {exc}") from None


def validate(data: Any) -> None:
    """The schema's first error (not its best one: ranking the errors of nested oneOf is slow)."""
    validator = jsonschema.Draft202012Validator(_schema(*SCHEMA))
    if (error := next(validator.iter_errors(data), None)) is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "(top level)"
        raise SchemaError(f"schema violation at {where}: {error.message[:300]}")
