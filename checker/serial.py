"""Serial automaton (ser-reference §4.3) and the exact serial-multiset search."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from checker.errors import Undecided
from checker.model import NS

Edge = tuple[str, str, str, str]  # (g, request, response, g2)
SEARCH_LIMIT = 2_000_000


@dataclass(frozen=True)
class Serial:
    initial: str
    states: frozenset[str]
    edges: frozenset[Edge]


def build_serial(ns: NS) -> Serial:
    states = {ns.initial} | {g for t in ns.transitions for g in (t[1], t[3])}
    succ: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for loc, g, l2, g2 in ns.transitions:
        succ.setdefault((loc, g), []).append((l2, g2))
    answers: dict[str, list[str]] = {}
    for loc, v in ns.responses:
        answers.setdefault(loc, []).append(v)
    edges: set[Edge] = set()
    for g in states:
        for req, loc in ns.requests:
            # everything this request reaches running alone from g (NS steps only)
            seen, todo = {(loc, g)}, [(loc, g)]
            while todo:
                here = todo.pop()
                for nxt in succ.get(here, []):
                    if nxt not in seen:
                        seen.add(nxt)
                        todo.append(nxt)
            for l2, g2 in seen:
                edges.update((g, req, v, g2) for v in answers.get(l2, []))
    return Serial(ns.initial, frozenset(states), frozenset(edges))


def is_serial(aut: Serial, multiset: Mapping[tuple[str, str], int]) -> bool:
    """Is there a walk from the initial state whose labels are exactly `multiset`?

    Exhaustive depth-first search over (state, remaining counts), memoised; finite
    because every edge consumes one label.
    """
    keys = sorted(multiset)
    index = {k: i for i, k in enumerate(keys)}
    out: dict[str, list[tuple[int, str]]] = {}
    for g, r, v, g2 in sorted(aut.edges):
        if (r, v) in index:
            out.setdefault(g, []).append((index[(r, v)], g2))
    start = (aut.initial, tuple(multiset[k] for k in keys))
    seen, todo = {start}, [start]
    while todo:
        g, rest = todo.pop()
        if not any(rest):
            return True
        for i, g2 in out.get(g, []):
            if rest[i] > 0:
                nxt = (g2, rest[:i] + (rest[i] - 1,) + rest[i + 1 :])
                if nxt not in seen:
                    if len(seen) >= SEARCH_LIMIT:
                        raise Undecided(f"serial search exceeds {SEARCH_LIMIT} states")
                    seen.add(nxt)
                    todo.append(nxt)
    return False
