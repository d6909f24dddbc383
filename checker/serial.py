"""Serial automaton (ser-reference §4.3) and the exact serial-multiset search."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from checker.errors import Undecided
from checker.semantics import NS, Semantics, ns_semantics

Edge = tuple[str, str, str, str]  # (g, request, response, g2)
SEARCH_LIMIT = 2_000_000


@dataclass(frozen=True)
class Serial:
    initial: str
    states: frozenset[str]
    edges: frozenset[Edge]


def build_serial(ns: NS) -> Serial:
    states = {ns.initial} | {g for t in ns.transitions for g in (t[1], t[3])}
    sem = ns_semantics(ns)
    edges: set[Edge] = set()
    for g in states:
        for req, loc in ns.requests:
            # everything this request reaches running alone from g (NS steps only)
            seen, todo = {(loc, g)}, [(loc, g)]
            while todo:
                for nxt in sem.step(*todo.pop()):
                    if nxt not in seen:
                        seen.add(nxt)
                        todo.append(nxt)
            for l2, g2 in seen:
                edges.update((g, req, v, g2) for v in sem.answers(l2))
    return Serial(ns.initial, frozenset(states), frozenset(edges))


def is_serial(sem: Semantics, multiset: Mapping[tuple[str, str], int]) -> bool:
    """Do requests run one at a time from the initial state answer exactly `multiset`?
    Exhaustive search over (global, remaining counts, running request and its local) on the
    one-step semantics (no NS to trust): the counts bound it, else the search limit."""
    keys = sorted(multiset)
    index = {k: i for i, k in enumerate(keys)}
    entries = sorted(set(sem.requests))
    State = tuple[str, tuple[int, ...], tuple[str, str] | None]
    start: State = (sem.initial, tuple(multiset[k] for k in keys), None)
    seen, todo = {start}, [start]
    while todo:
        g, rest, running = todo.pop()
        nexts: list[State] = []
        if running is None:
            if not any(rest):
                return True
            wanted = {keys[i][0] for i, c in enumerate(rest) if c}
            nexts = [(g, rest, (r, loc)) for r, loc in entries if r in wanted]
        else:
            r, loc = running
            for v in sem.answers(loc):
                i = index.get((r, v), -1)
                if i >= 0 and rest[i]:
                    nexts.append((g, rest[:i] + (rest[i] - 1,) + rest[i + 1 :], None))
            if sem.can_step(loc):
                nexts += [(g2, rest, (r, l2)) for l2, g2 in sem.step(loc, g)]
        for nxt in nexts:
            if nxt not in seen:
                if len(seen) >= SEARCH_LIMIT:
                    raise Undecided(f"serial search exceeds {SEARCH_LIMIT} states")
                seen.add(nxt)
                todo.append(nxt)
    return False
