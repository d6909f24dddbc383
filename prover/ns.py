"""Network systems: the common core object every other part of the prover reads.

A network system (NS) has a finite set of global states, a finite set of local states,
request entries (a request of a name arrives in a local state), response entries (a
request in a local state may leave with a response) and atomic transitions
`(local, global) -> (local', global')`. States, requests and responses are identified
by their canonical names (see `docs/naming.md`): for Ser programs these are the
canonical texts of ser-reference §2.1 with unambiguous parenthesisation; for NS JSON
they are the strings of the file.

Entries keep their order of first appearance (deterministic: the compiler and the
loader are deterministic), duplicates are removed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal, TypeVar

T = TypeVar("T")

ModelKind = Literal["ser", "ns-json"]


@dataclass(frozen=True, order=True)
class RequestEntry:
    """A request named `request` may arrive at any time, starting in `local`."""

    request: str
    local: str


@dataclass(frozen=True, order=True)
class ResponseEntry:
    """A request in local state `local` may leave, answering `response`."""

    local: str
    response: str


@dataclass(frozen=True, order=True)
class Transition:
    """An atomic step of one request: `(from_local, from_global) -> (to_local, to_global)`."""

    from_local: str
    from_global: str
    to_local: str
    to_global: str


@dataclass(frozen=True)
class StepOrigin:
    """Where in the Ser source one NS transition comes from (for explanations only)."""

    lines: tuple[int, ...]


@dataclass(frozen=True, order=True)
class Ideal:
    """A downward-closed set of configurations of the NS (one coverability-set element):
    the global state is `global_`; a local in `omega` may hold any number of requests, a
    local in `finite` at most its count, every other local none. Responses unconstrained.
    Final locals (that can only respond) reached are always in `omega`."""

    global_: str
    omega: tuple[str, ...]
    finite: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class Restriction:
    """What makes an NS the restricted (reachable) one of DESIGN.md, "Restricted network
    systems": `pairs` are the (non-final local, global) pairs that co-occur in some
    reachable configuration, sorted, as the certificate lists them; the union of the
    downward closures of `ideals` contains every reachable configuration and is closed
    under every step of the full (unrestricted) semantics, so it is an inductive
    invariant that implies the exclusion obligation of every unlisted pair."""

    pairs: tuple[tuple[str, str], ...]
    ideals: tuple[Ideal, ...]
    non_final: tuple[str, ...]


def _dedup(items: Iterable[T]) -> tuple[T, ...]:
    return tuple(dict.fromkeys(items))


@dataclass(frozen=True)
class NetworkSystem:
    """A network system. Construct through `NetworkSystem.make` to deduplicate entries."""

    initial_global: str
    requests: tuple[RequestEntry, ...]
    responses: tuple[ResponseEntry, ...]
    transitions: tuple[Transition, ...]
    kind: ModelKind = "ns-json"
    # Optional provenance for explanations, aligned with `transitions`; never used for
    # verdicts. Excluded from equality so that two NS with the same semantics compare equal.
    origins: tuple[StepOrigin, ...] | None = field(default=None, compare=False)
    # None: the reference's closure NS. Otherwise the NS is N_P for `restriction.pairs`.
    restriction: Restriction | None = None

    @staticmethod
    def make(
        initial_global: str,
        requests: Iterable[RequestEntry],
        responses: Iterable[ResponseEntry],
        transitions: Iterable[Transition],
        kind: ModelKind = "ns-json",
        origins: dict[Transition, StepOrigin] | None = None,
        restriction: Restriction | None = None,
    ) -> NetworkSystem:
        trans = _dedup(transitions)
        return NetworkSystem(
            initial_global=initial_global,
            requests=_dedup(requests),
            responses=_dedup(responses),
            transitions=trans,
            kind=kind,
            origins=None
            if origins is None
            else tuple(origins.get(t, StepOrigin(())) for t in trans),
            restriction=restriction,
        )

    # ---- derived views (cached; the object itself is immutable) -------------------

    @cached_property
    def request_names(self) -> tuple[str, ...]:
        """Distinct request names in order of first appearance."""
        return _dedup(r.request for r in self.requests)

    @cached_property
    def global_states(self) -> tuple[str, ...]:
        """The initial global and every global mentioned by a transition."""
        gs: list[str] = [self.initial_global]
        for t in self.transitions:
            gs.append(t.from_global)
            gs.append(t.to_global)
        return _dedup(gs)

    @cached_property
    def local_states(self) -> tuple[str, ...]:
        """Every local state mentioned by a request, response or transition entry."""
        ls: list[str] = [r.local for r in self.requests]
        for t in self.transitions:
            ls.append(t.from_local)
            ls.append(t.to_local)
        ls.extend(r.local for r in self.responses)
        return _dedup(ls)

    @cached_property
    def response_values(self) -> tuple[str, ...]:
        """Distinct response values in order of first appearance."""
        return _dedup(r.response for r in self.responses)

    @cached_property
    def transitions_from(self) -> dict[tuple[str, str], tuple[Transition, ...]]:
        """Transitions indexed by `(from_local, from_global)`."""
        index: dict[tuple[str, str], list[Transition]] = {}
        for t in self.transitions:
            index.setdefault((t.from_local, t.from_global), []).append(t)
        return {k: tuple(v) for k, v in index.items()}

    @cached_property
    def responses_of(self) -> dict[str, tuple[str, ...]]:
        """Responses available in each local state."""
        index: dict[str, list[str]] = {}
        for r in self.responses:
            index.setdefault(r.local, []).append(r.response)
        return {k: tuple(v) for k, v in index.items()}

    def sizes(self) -> dict[str, int]:
        """The sizes `ser-prove inspect` reports."""
        return {
            "globals": len(self.global_states),
            "locals": len(self.local_states),
            "requests": len(self.requests),
            "responses": len(self.responses),
            "transitions": len(self.transitions),
        }


def reaching_requests(ns: NetworkSystem) -> dict[str, frozenset[str]]:
    """Each local state -> the request names whose arrival states reach it along the
    transitions (their globals ignored): the requests an instance there can be of."""
    succ: dict[str, set[str]] = {}
    for t in ns.transitions:
        succ.setdefault(t.from_local, set()).add(t.to_local)
    owners: dict[str, set[str]] = {}
    for entry in ns.requests:
        todo, seen = [entry.local], {entry.local}
        while todo:
            loc = todo.pop()
            owners.setdefault(loc, set()).add(entry.request)
            for nxt in succ.get(loc, ()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
    return {loc: frozenset(o) for loc, o in owners.items()}
