"""What the obligations on a network system read: the NS with its net, serial automaton and
pools of names, and (request, response) count vectors."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from checker.errors import SchemaError, invalid
from checker.net import Net, build_net
from checker.semantics import NS, Vector
from checker.serial import Serial, build_serial

Json = Any


@dataclass(frozen=True)
class Model:
    ns: NS
    net: Net
    aut: Serial
    locals_: frozenset[str]
    globals_: frozenset[str]
    requests: frozenset[str]
    responses: frozenset[str]


def make_model(ns: NS) -> Model:
    locs = {loc for _, loc in ns.requests} | {loc for loc, _ in ns.responses}
    locs |= {loc for t in ns.transitions for loc in (t[0], t[2])}
    globs = {ns.initial} | {g for t in ns.transitions for g in (t[1], t[3])}
    return Model(ns, build_net(ns), build_serial(ns), frozenset(locs), frozenset(globs),
                 frozenset(r for r, _ in ns.requests), frozenset(v for _, v in ns.responses))


def known(kind: str, name: str, pool: frozenset[str], where: str) -> None:
    if name not in pool:
        raise invalid("E-NAME", f"{where}: unknown {kind} {name!r}")


def vector(entries: list[Json], where: str) -> Vector:
    """Sparse vector; the format demands strictly sorted (request, response) pairs."""
    keys = [(e["request"], e["response"]) for e in entries]
    if not ascending(keys):
        raise SchemaError(f"{where}: entries not sorted by (request, response) or repeated")
    return {k: e["count"] for k, e in zip(keys, entries, strict=True)}


def ascending(keys: list[Any]) -> bool:
    """Strictly sorted: in order and no repeats."""
    return all(a < b for a, b in zip(keys, keys[1:], strict=False))


def vtext(v: Vector) -> str:
    return " ".join(f"{r}/{s}^{c}" for (r, s), c in sorted(v.items())) or "(empty)"
