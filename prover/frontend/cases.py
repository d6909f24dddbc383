"""Cases by input, found (DESIGN.md, "Proofs that do not depend on who wrote the model";
docs/certificates.md, "Cases by input").

A request that begins by choosing a local (`k := ?(0..3)`, a key, an account, a slot) is
split into one request per value when its cases fall into different independent parts
(prover/frontend/parts.py): eight lazily initialised entries behind a key chosen by input
are then eight small proofs, as if each had a request of its own. A request whose cases
all land in one part is left whole. Found on the checker's own parse, with the checker's
own rule for the cases (checker/cases.py), and printed as core Ser that must parse back to
exactly the split program.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from checker.cases import _cases
from checker.errors import CheckerError
from checker.model import Expr, is_local
from checker.parts import reached
from checker.program import parse_program
from prover.frontend.parts import Names, components, shared_locks
from prover.frontend.versions import core_source

MAX_VALUES = 16  # a request choosing among more is left whole
MAX_REQUESTS = 128  # requests of the split program


@dataclass(frozen=True)
class Found:
    """The requests split, each with its input, and the split program's source."""

    inputs: tuple[tuple[str, str], ...]
    source: str
    origin: tuple[tuple[str, str], ...]  # each request of the split program, its model's


def _choice(body: Expr) -> tuple[str, int, int] | None:
    """The input a body begins by choosing, and its range."""
    first = body[1] if body[0] == "seq" else body
    if first[0] == "assign" and is_local(first[1]) and first[2][0] == "nd" \
            and first[2][2] - first[2][1] < MAX_VALUES:  # fmt: skip
        return str(first[1]), int(first[2][1]), int(first[2][2])
    return None


def _name(base: str, k: str, v: int, taken: set[str]) -> str:
    return _unique(re.sub(r"\W", "_", f"{base}_{k}{v if v >= 0 else f'm{-v}'}"), taken)


def _unique(name: str, taken: set[str]) -> str:
    """`name`, or it with `_`s after it, so that no name in `taken` is it (then taken)."""
    while name in taken:
        name += "_"
    taken.add(name)
    return name


def find(source: str, constants: dict[str, int] | None) -> Found | None:
    """The split that makes more independent parts, or None."""
    try:
        initial, requests = parse_program(source, constants)
    except CheckerError:
        return None
    choice = {name: c for name, body in requests if (c := _choice(body)) is not None}
    cases = {name: _cases(name, body, choice[name][0]) for name, body in requests
             if name in choice}
    split = [(name, b) for name, body in requests for b in cases.get(name, [body])]
    if len(split) == len(requests) or len(split) > MAX_REQUESTS:
        return None
    locks = shared_locks(initial, [b for _, b in split])  # they join no parts
    acc = [(f"{k}", Names(*(frozenset(x) - locks for x in reached(b))))
           for k, (_, b) in enumerate(split)]
    parts: dict[str, set[int]] = {}
    for p, group in enumerate(components(acc)):
        for k in group:
            parts.setdefault(split[int(k)][0], set()).add(p)
    spread = {name for name in choice if len(parts[name]) > 1}
    if not spread:
        return None
    taken = {name for name, _ in requests if name not in spread and name.isidentifier()}
    reqs: list[tuple[str, Expr]] = []
    origin: list[tuple[str, str]] = []  # each request of the split program, its model's
    for name, body in requests:
        if name not in spread:  # a family's member (`get[0]`) is named in core Ser (`get_0`)
            new = name if name.isidentifier() else _unique(
                re.sub(r"\W+", "_", name).strip("_"), taken)
            reqs.append((new, body))
            origin.append((new, name))
            continue
        k, lo, hi = choice[name]
        for v, b in zip(range(lo, hi + 1), cases[name], strict=True):
            reqs.append((_name(name, k, v, taken), b))
            origin.append((reqs[-1][0], name))
    text = core_source(initial, reqs)
    try:
        if text is None or parse_program(text) != (initial, reqs):
            return None
    except CheckerError:
        return None
    return Found(tuple((name, choice[name][0]) for name, _ in requests if name in spread),
                 text, tuple(origin))
