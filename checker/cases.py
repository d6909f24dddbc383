"""Cases by input (docs/certificates.md, "Cases by input"): a Ser program is serializable
when the program whose requests that begin by choosing a local (`k := ?(0..3); ...`) are
replaced by one request per value (`k := 0; ...`, ..., `k := 3; ...`) is.

The claim names the requests split and their inputs, and nests a whole certificate of
the split program (any kind that proves `serializable`). Checked here, from the checker's
own parse of both: each request named begins with its input chosen from a range, the
split program has the same initial globals and, in the whole's order, each request not
named as it is and each one named as its cases, one request per value in order, compared
as parsed trees (names are free: only their place maps them back, and a family's member,
`get[0]`, has no name of core Ser), and no two requests of the split program share a
name. Then the split program's certificate is checked alone, by `check` (the checker's
entry point), within what is left of the budget.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from checker.certificate import Limits
from checker.errors import CheckerError, Invalid, Undecided, invalid
from checker.model import Expr, is_local, mk_seq
from checker.program import parse_program

MAX_CASES = 256  # requests made from one request


def _cases(name: str, body: Expr, k: str) -> list[Expr]:
    """The bodies of `name`'s cases, one per value of its input `k`, in order."""
    first, rest = (body[1], body[2]) if body[0] == "seq" else (body, None)
    if not (k and is_local(k) and first[0] == "assign" and first[1] == k and first[2][0] == "nd"):
        raise invalid("E-CASES", f"request {name} does not begin with {k} := ?(lo..hi)")
    lo, hi = first[2][1], first[2][2]
    if hi - lo >= MAX_CASES:
        raise invalid("E-CASES", f"request {name} chooses {k} among more than {MAX_CASES} values")
    return [mk_seq(("assign", k, ("int", v)), rest) if rest is not None
            else ("assign", k, ("int", v)) for v in range(lo, hi + 1)]


def split(data: dict[str, Any]) -> str:
    """Check that the nested program is the model with the named requests split."""
    if data["model"]["kind"] != "ser" or data["cases"]["split"]["model"]["kind"] != "ser" \
            or data["cases"]["split"]["verdict"] != "serializable":  # fmt: skip
        raise invalid("E-CASES", "the split program is not a Ser program proved serializable")
    initial, whole = parse_program(data["model"]["source"], data["model"].get("constants"))
    nested = data["cases"]["split"]["model"]
    init2, reqs = parse_program(nested["source"], nested.get("constants"))
    inputs: dict[str, str] = {}
    for c in data["cases"]["requests"]:
        if c["request"] in inputs or c["request"] not in dict(whole):
            raise invalid("E-CASES", f"request {c['request']} is no request of the model, or "
                                     "is named twice")
        inputs[c["request"]] = c["input"]
    expected: list[Expr] = []  # names are free: a request's place maps it back
    for name, body in whole:
        expected += _cases(name, body, inputs[name]) if name in inputs else [body]
    names = [r for r, _ in reqs]
    if init2 != initial or len(reqs) != len(expected) or len(set(names)) != len(names) or any(
            b != want for (_, b), want in zip(reqs, expected, strict=False)):  # fmt: skip
        raise invalid("E-CASES", "the split program is not the model with "
                                 f"{', '.join(sorted(inputs))} split by input")
    return f"{len(whole)} requests split into {len(reqs)} ({', '.join(sorted(inputs))})"


def cases(data: dict[str, Any], limits: Limits, remaining: Callable[[], float]
          ) -> Iterator[tuple[str, Callable[[], str]]]:  # fmt: skip
    """The split, then the split program's certificate checked by the checker's entry point
    (the modules of its own claim) within what is left of the budget."""
    from checker.api import check_certificate

    yield "cases", lambda: split(data)

    def nested() -> str:
        result = check_certificate(data["cases"]["split"], timeout_s=remaining(), limits=limits,
                                   nested=True)
        if result.status != "valid":
            error = {"invalid": Invalid, "undecided": Undecided}.get(result.status, CheckerError)
            raise error(f"the split program: {result.message}", code=result.code)
        return f"the split program: {result.message}"

    yield "split program", nested
