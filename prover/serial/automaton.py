"""The serial automaton of a network system (ser-reference §4.3).

States are global states. There is an edge `g --req/resp--> g'` when a request entry
`(req, l)` started alone in `g` can reach `(l', g')` by NS transitions and `l'` has the
response `resp`. A request that cannot finish alone from `g` contributes no edge.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from functools import cached_property

from prover.ns import NetworkSystem


@dataclass(frozen=True, order=True)
class SerialEdge:
    source: str
    request: str
    response: str
    target: str

    def as_list(self) -> list[str]:
        return [self.source, self.request, self.response, self.target]


@dataclass(frozen=True)
class SerialAutomaton:
    initial: str
    states: tuple[str, ...]
    edges: tuple[SerialEdge, ...]

    @cached_property
    def edges_from(self) -> dict[str, tuple[SerialEdge, ...]]:
        index: dict[str, list[SerialEdge]] = {s: [] for s in self.states}
        for e in self.edges:
            index.setdefault(e.source, []).append(e)
        return {k: tuple(v) for k, v in index.items()}

    @cached_property
    def labels(self) -> tuple[tuple[str, str], ...]:
        """Distinct (request, response) labels, sorted."""
        return tuple(sorted({(e.request, e.response) for e in self.edges}))

    def reachable(self) -> SerialAutomaton:
        """The part reachable from the initial state (edges in the same order)."""
        seen = {self.initial}
        todo = deque([self.initial])
        while todo:
            s = todo.popleft()
            for e in self.edges_from.get(s, ()):
                if e.target not in seen:
                    seen.add(e.target)
                    todo.append(e.target)
        return SerialAutomaton(
            self.initial,
            tuple(s for s in self.states if s in seen),
            tuple(e for e in self.edges if e.source in seen),
        )


def _solo_runs(ns: NetworkSystem, local: str, glob: str) -> set[tuple[str, str]]:
    """All (local', global') a single request reaches alone from (local, glob)."""
    seen = {(local, glob)}
    todo = [(local, glob)]
    while todo:
        state = todo.pop()
        for t in ns.transitions_from.get(state, ()):
            nxt = (t.to_local, t.to_global)
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def build_serial_automaton(ns: NetworkSystem) -> SerialAutomaton:
    edges: set[SerialEdge] = set()
    for g in ns.global_states:
        for r in ns.requests:
            for l2, g2 in _solo_runs(ns, r.local, g):
                for resp in ns.responses_of.get(l2, ()):
                    edges.add(SerialEdge(g, r.request, resp, g2))
    return SerialAutomaton(ns.initial_global, ns.global_states, tuple(sorted(edges)))
