"""The serial set S: the Parikh image of the serial automaton as simple linear sets.

S is the set of label-count vectors (one count per (request, response) label) of the
walks of the serial automaton that start at the initial global state (every state is
accepting). It is represented, exactly, as a finite union of *simple* linear sets
`base + N·p1 + … + N·pk` with linearly independent periods. Every component carries the
witnesses `docs/certificates.md` requires of a certificate:

* a walk witness: edge counts of a walk from the initial state whose label counts are
  `base` (balanced except for +1 out at the initial state and +1 in at `end`, support
  weakly connected and containing the initial state when not empty);
* per period a circulation witness: balanced edge counts with label counts the period,
  every weakly connected component of its support sharing a state with the walk (or
  being at the initial state).

Vectors are tuples of ints over `SerialSet.labels`, which is `SerialAutomaton.labels`
(sorted `(request, response)` pairs). All data here are immutable; all orders are
deterministic.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from prover.serial import dag, direct, semilinear
from prover.serial.automaton import SerialAutomaton
from prover.serial.linalg import TooLarge, in_simple_linear_set
from prover.serial.linear_sets import (
    CirculationWitness,
    EdgeCounts,
    Label,
    SimpleLinearSet,
    Vector,
    WalkWitness,
    label_counts,
)

__all__ = [
    "CirculationWitness",
    "EdgeCounts",
    "Label",
    "SerialSet",
    "SimpleLinearSet",
    "TooLarge",
    "Vector",
    "WalkWitness",
    "compute_serial_set",
    "label_counts",
]


ELIMINATION = "state-elimination"
CYCLE_COVERS = "cycle-covers"
SELF_LOOP_DAG = "self-loop-dag"


@dataclass(frozen=True)
class SerialSet:
    """S = union of `components` (empty union = empty set; S always contains 0)."""

    labels: tuple[Label, ...]
    components: tuple[SimpleLinearSet, ...]
    construction: str = field(default=ELIMINATION, compare=False)
    """Which construction produced it (`ELIMINATION`, `CYCLE_COVERS` or `SELF_LOOP_DAG`;
    diagnostics)."""

    @property
    def num_periods(self) -> int:
        return sum(len(c.periods) for c in self.components)

    def vector(self, counts: dict[Label, int]) -> Vector | None:
        """The vector of a sparse multiset, or None if it uses a label outside `labels`
        with a positive count (such a multiset is not in S)."""
        for lab, n in counts.items():
            if n and lab not in self.labels:
                return None
        return tuple(counts.get(lab, 0) for lab in self.labels)

    def contains(self, x: Vector) -> bool:
        """Exact membership of `x` (rational solve plus integrality and sign)."""
        return any(in_simple_linear_set(x, c.base, c.periods) for c in self.components)


LARGE = 64
"""A state-elimination result with more components than this is compared with the
cycle-cover (or self-loop DAG) construction, and the smaller one is kept."""

DAG_FIRST = 16
"""An automaton whose only cycles are self-loops and which has more reachable states
than this skips state elimination (exponential there: locked-03, 27 states, exhausts its
budget after 0.6 s) and goes straight to the dynamic programme of `dag.py`. Smaller ones
(every such paper model: at most 5 states) keep elimination first, and so their
certificates (the two give the same sets on all of them; the witnesses may differ)."""


def compute_serial_set(automaton: SerialAutomaton) -> SerialSet:
    """S for `automaton`, exactly, with witnesses (see the module docstring).

    Three exact constructions, each under a deterministic work budget:

    * state elimination (`semilinear.py`): small on the 47 paper models (at most
      0.15 s each), exponential on bidirectional chains (the counter models);
    * cycle covers (`direct.py`): simple paths plus connected sets of simple cycles,
      O(N²) components for an N-state chain, exponential when there are many cycles
      or paths;
    * when self-loops are the only cycles, a dynamic programme over the topological
      order (`dag.py`), which never enumerates paths (locked-04: 81 million).

    State elimination goes first, except on self-loop DAGs of more than `DAG_FIRST`
    states, which go straight to `dag.py`; the other construction (`dag.py` on a
    self-loop DAG, cycle covers otherwise) is used when elimination runs out of budget
    or gives more than `LARGE` components and the other gives fewer (ties: components,
    then periods). Deterministic. Raises `TooLarge` when they run out of budget."""
    first: tuple[SimpleLinearSet, ...] | None = None
    acyclic = dag.applicable(automaton)
    if not (acyclic and len(automaton.reachable().states) > DAG_FIRST):
        try:
            first = semilinear.build_components(automaton)
        except TooLarge:
            first = None
        if first is not None and len(first) <= LARGE:
            return SerialSet(automaton.labels, first)
    try:
        got = dag.build_components(automaton) if acyclic else None
        second = direct.build_components(automaton) if got is None else got
    except TooLarge:
        if first is None:
            raise
        return SerialSet(automaton.labels, first)
    if first is not None and _size(first) <= _size(second):
        return SerialSet(automaton.labels, first)
    return SerialSet(automaton.labels, second, SELF_LOOP_DAG if acyclic else CYCLE_COVERS)


def _size(comps: tuple[SimpleLinearSet, ...]) -> tuple[int, int]:
    return (len(comps), sum(len(c.periods) for c in comps))


# ---- JSON (docs/certificates.md, `serial_set`) -------------------------------------


def _sparse(labels: tuple[Label, ...], v: Vector) -> list[dict[str, object]]:
    return [
        {"request": r, "response": s, "count": n}
        for (r, s), n in zip(labels, v, strict=True)
        if n
    ]


def _edges_json(edges: EdgeCounts) -> list[dict[str, object]]:
    return [{"edge": e.as_list(), "count": n} for e, n in sorted(edges)]


def component_to_json(labels: tuple[Label, ...], c: SimpleLinearSet) -> dict[str, object]:
    return {
        "base": _sparse(labels, c.base),
        "periods": [_sparse(labels, p) for p in c.periods],
        "walk": {"end": c.walk.end, "edges": _edges_json(c.walk.edges)},
        "circulations": [{"edges": _edges_json(w.edges)} for w in c.circulations],
    }


def serial_set_to_json(s: SerialSet) -> dict[str, object]:
    """The certificate's `serial_set` member: `{"components": [COMPONENT, ...]}`."""
    return {"components": [component_to_json(s.labels, c) for c in s.components]}


def serial_set_summary(s: SerialSet) -> dict[str, int]:
    """`{components, periods}` for `inspect --json`."""
    return {"components": len(s.components), "periods": s.num_periods}
