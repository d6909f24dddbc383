"""Reading a certificate: size and nesting limits, strict JSON, the JSON Schema."""

from __future__ import annotations

import importlib.resources
import json
from dataclasses import dataclass
from typing import Any

import jsonschema

from checker.errors import JsonError, LimitError, SchemaError

# Package data (schemas/__init__.py), found in a wheel as in a source checkout.
SCHEMA_PATH = importlib.resources.files("schemas") / "certificate.schema.json"


@dataclass(frozen=True)
class Limits:
    """Resource limits against hostile certificates (defaults in docs/certificates.md)."""

    max_bytes: int = 16 * 1024 * 1024
    max_depth: int = 256
    max_nodes: int = 200_000
    max_vars: int = 2_000
    max_events: int = 100_000
    max_int: int = 2**63 - 1


def _strict_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        dup = next(k for k in keys if keys.count(k) > 1)
        raise JsonError(f"an object repeats the key {dup!r}")
    return dict(pairs)


def _no_constant(name: str) -> Any:
    raise JsonError(f"{name} is not a JSON number")


def _scan(data: Any, limits: Limits) -> None:
    """Nesting depth and integer sizes, iteratively (no recursion on hostile input)."""
    todo: list[tuple[Any, int]] = [(data, 1)]
    while todo:
        node, depth = todo.pop()
        if depth > limits.max_depth:
            raise LimitError(f"JSON nesting deeper than {limits.max_depth}")
        if isinstance(node, dict):
            todo.extend((v, depth + 1) for v in node.values())
        elif isinstance(node, list):
            todo.extend((v, depth + 1) for v in node)
        elif isinstance(node, int) and not isinstance(node, bool):
            if abs(node) > limits.max_int:
                raise LimitError(f"integer {node} exceeds the limit {limits.max_int}")


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
        data = json.loads(text, object_pairs_hook=_strict_object, parse_constant=_no_constant)
    except RecursionError:
        raise LimitError("JSON nesting too deep") from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise JsonError(f"not JSON: {exc}") from None
    _scan(data, limits)
    validate(data)
    result: dict[str, Any] = data
    return result


_VALIDATOR: jsonschema.Draft202012Validator | None = None


def validate(data: Any) -> None:
    global _VALIDATOR
    if _VALIDATOR is None:
        try:
            schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
        except OSError as exc:
            raise SchemaError(f"cannot read the certificate schema: {exc}") from None
        _VALIDATOR = jsonschema.Draft202012Validator(schema)
    error = jsonschema.exceptions.best_match(_VALIDATOR.iter_errors(data))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "(top level)"
        raise SchemaError(f"schema violation at {where}: {error.message[:300]}")
