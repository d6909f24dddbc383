"""Serial automaton (ser-reference §4.3); the serial-multiset search is serial_search.py."""

from __future__ import annotations

from dataclasses import dataclass

from checker.semantics import NS, ns_semantics

Edge = tuple[str, str, str, str]  # (g, request, response, g2)


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
