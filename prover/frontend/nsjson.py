"""Network systems given as JSON (ser-reference §3), validated by
`schemas/network-system.schema.json`.

Every schema violation is reported with its JSON path (`transitions[3][2]: expected a
string`); malformed JSON with line and column. Unknown top-level members and repeated
entries are accepted with a warning (the reference ignores the former; repeated
entries do not change the semantics, and the NS keeps each entry once). A repeated
member name inside an object and a lone surrogate escape in a string are errors (the
certificate checker refuses both; see prover/run/limits.py).
"""

from __future__ import annotations

import importlib.resources
import json
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from prover.errors import Diagnostic, NetworkSystemFormatError
from prover.frontend.parser import location
from prover.ns import NetworkSystem, RequestEntry, ResponseEntry, Transition

SCHEMA_PATH = importlib.resources.files("schemas") / "network-system.schema.json"
KNOWN_KEYS = ("initial_global", "requests", "responses", "transitions")
MAX_REPORTED = 20

_TYPE_NAMES = {
    "string": "a string",
    "array": "an array",
    "object": "an object",
    "integer": "an integer",
    "number": "a number",
    "boolean": "a boolean",
    "null": "null",
}


@lru_cache(maxsize=1)
def _validator() -> Draft202012Validator:
    try:
        schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    except OSError as exc:  # an installation problem, not the user's input
        raise NetworkSystemFormatError(f"cannot read the NS schema {SCHEMA_PATH}: {exc}") from None
    return Draft202012Validator(schema)


def json_path(parts: Sequence[object]) -> str:
    """`transitions[3][2]`; the document itself is `(top level)`."""
    out = ""
    for p in parts:
        if isinstance(p, int):
            out += f"[{p}]"
        else:
            out += f".{p}" if out else str(p)
    return out or "(top level)"


def _json_type(value: object) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return "null"


def _describe(err: ValidationError) -> str:
    v = err.validator
    if v == "type":
        expected = err.validator_value
        names = [expected] if isinstance(expected, str) else list(expected)
        want = " or ".join(_TYPE_NAMES.get(n, n) for n in names)
        return f"expected {want}, got {_json_type(err.instance)}"
    if v == "required":
        missing = [k for k in err.validator_value if k not in err.instance]
        return "missing required member " + ", ".join(f"'{k}'" for k in missing)
    if v in ("minItems", "maxItems"):
        n = len(err.instance) if isinstance(err.instance, list) else 0
        lo, hi = err.schema.get("minItems"), err.schema.get("maxItems")
        if lo == hi:
            exact = f"exactly {lo}"
        else:
            exact = f"at least {lo}" if v == "minItems" else f"at most {hi}"
        return f"expected {exact} items, got {n}"
    return err.message


def _sort_key(err: ValidationError) -> tuple[tuple[int, str, int], ...]:
    return tuple((0, "", p) if isinstance(p, int) else (1, str(p), 0) for p in err.absolute_path)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _decode(source: str, path: str) -> object:
    duplicates: list[str] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for k, v in items:
            if k in out:
                duplicates.append(k)
            out[k] = v
        return out

    try:
        doc = json.loads(source, object_pairs_hook=pairs, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise NetworkSystemFormatError(
            f"malformed JSON: {exc.msg}", location(source, path, exc.lineno, exc.colno)
        ) from None
    except RecursionError:
        raise NetworkSystemFormatError(
            f"{path}: malformed JSON: nested too deeply for the JSON reader"
        ) from None
    except ValueError as exc:  # e.g. a number of more than 4,300 digits
        raise NetworkSystemFormatError(f"{path}: malformed JSON: {exc}") from None
    if duplicates:
        # The certificate checker refuses repeated keys (prover/run/limits.py: one set of
        # limits), and "the last one wins" hides a typo: an error, not a warning.
        raise NetworkSystemFormatError(
            f"{path}: an object repeats the member '{_show(duplicates[0])}' "
            "(repeated keys are not allowed)"
        )
    _check_strings(doc, path)
    return doc


_SURROGATE = re.compile("[\ud800-\udfff]")


def _show(text: str) -> str:
    """A name as it can be printed (escapes for lone surrogates), cut at 60 characters."""
    shown = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return shown if len(shown) <= 60 else shown[:57] + "..."


def _check_strings(doc: object, path: str) -> None:
    """Every key and string must be valid Unicode: a lone surrogate escape such as
    "\\ud800" decodes to a Python string that cannot be written as UTF-8 (nor hashed
    into a certificate). Iterative: the nesting depth is the JSON reader's to bound."""
    todo: list[tuple[object, tuple[object, ...]]] = [(doc, ())]
    while todo:
        node, where = todo.pop()
        if isinstance(node, str):
            m = _SURROGATE.search(node)
            if m is not None:
                raise NetworkSystemFormatError(
                    f"{path}: {json_path(list(where))}: the string contains the lone "
                    f"surrogate escape \\u{ord(m.group()):04x}, which is not a Unicode "
                    "character"
                )
        elif isinstance(node, dict):
            for k, v in node.items():
                if _SURROGATE.search(k):
                    raise NetworkSystemFormatError(
                        f"{path}: {json_path(list(where))}: a member name contains a lone "
                        "surrogate escape, which is not a Unicode character"
                    )
                todo.append((v, (*where, k)))
        elif isinstance(node, list):
            todo.extend((v, (*where, i)) for i, v in enumerate(node))


def _well_formed(doc: object) -> bool:
    """The schema's rules, checked directly (jsonschema takes seconds on 10^5 entries);
    only a document that fails this is handed to jsonschema, for its messages."""
    if not isinstance(doc, dict) or not isinstance(doc.get("initial_global"), str):
        return False
    for key, width in (("requests", 2), ("responses", 2), ("transitions", 4)):
        rows = doc.get(key)
        if not isinstance(rows, list):
            return False
        for row in rows:
            if not (isinstance(row, list) and len(row) == width
                    and all(isinstance(x, str) for x in row)):
                return False
    return True


def _repeats(kind: str, rows: list[tuple[str, ...]], path: str) -> list[Diagnostic]:
    first: dict[tuple[str, ...], int] = {}
    out: list[Diagnostic] = []
    for i, row in enumerate(rows):
        if row in first:
            out.append(Diagnostic("W-NS-REPEAT", f"{kind}[{i}] repeats {kind}[{first[row]}]; "
                                  "it is counted once", path))
        else:
            first[row] = i
    return out


def load_ns_json(source: str, path: str = "<string>"
                 ) -> tuple[NetworkSystem, tuple[Diagnostic, ...]]:  # fmt: skip
    """Parse and validate an NS JSON document; returns the NS and the warnings."""
    doc = _decode(source, path)
    warnings: list[Diagnostic] = []
    errors = [] if _well_formed(doc) else sorted(_validator().iter_errors(doc), key=_sort_key)
    if errors:
        # dict.fromkeys: one `required` violation per missing key, all described at once.
        lines = list(dict.fromkeys(
            f"{json_path(list(e.absolute_path))}: {_describe(e)}" for e in errors
        ))
        shown = lines[:MAX_REPORTED]
        if len(lines) > MAX_REPORTED:
            shown.append(f"... and {len(lines) - MAX_REPORTED} more")
        head = f"{path}: not a valid network system ({len(lines)} schema violation"
        head += "s)" if len(lines) != 1 else ")"
        raise NetworkSystemFormatError(head + ":\n  " + "\n  ".join(shown))
    assert isinstance(doc, dict)
    for key in doc:
        if key not in KNOWN_KEYS:
            warnings.append(Diagnostic("W-NS-IGNORED",
                                       f"unknown top-level member '{key}' is ignored", path))
    reqs = [tuple(r) for r in doc["requests"]]
    resps = [tuple(r) for r in doc["responses"]]
    trans = [tuple(t) for t in doc["transitions"]]
    warnings += _repeats("requests", reqs, path)
    warnings += _repeats("responses", resps, path)
    warnings += _repeats("transitions", trans, path)
    ns = NetworkSystem.make(
        initial_global=doc["initial_global"],
        requests=[RequestEntry(r[0], r[1]) for r in reqs],
        responses=[ResponseEntry(r[0], r[1]) for r in resps],
        transitions=[Transition(t[0], t[1], t[2], t[3]) for t in trans],
        kind="ns-json",
    )
    return ns, tuple(warnings)
