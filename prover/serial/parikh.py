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

from dataclasses import dataclass

from prover.serial.automaton import SerialAutomaton, SerialEdge

Label = tuple[str, str]
"""A `(request, response)` pair."""

Vector = tuple[int, ...]
"""Counts over the labels of a `SerialSet` (same order as `SerialSet.labels`)."""

EdgeCounts = tuple[tuple[SerialEdge, int], ...]
"""Sparse edge counts: `(edge, count)` with count ≥ 1, sorted by edge, no duplicates."""


@dataclass(frozen=True)
class WalkWitness:
    """A walk from the initial state ending at `end`, given by its edge counts."""

    end: str
    edges: EdgeCounts


@dataclass(frozen=True)
class CirculationWitness:
    """Balanced edge counts (a union of closed walks) attached to the component's walk."""

    edges: EdgeCounts


@dataclass(frozen=True)
class SimpleLinearSet:
    """`base + N·periods[0] + … + N·periods[k-1]`, periods linearly independent.

    `circulations[i]` witnesses `periods[i]`; `walk` witnesses `base`.
    """

    base: Vector
    periods: tuple[Vector, ...]
    walk: WalkWitness
    circulations: tuple[CirculationWitness, ...]


@dataclass(frozen=True)
class SerialSet:
    """S = union of `components` (empty union = empty set; S always contains 0)."""

    labels: tuple[Label, ...]
    components: tuple[SimpleLinearSet, ...]

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
        from prover.serial.semilinear import in_simple_linear_set

        return any(in_simple_linear_set(x, c.base, c.periods) for c in self.components)


def label_counts(labels: tuple[Label, ...], edges: EdgeCounts) -> Vector:
    """Label counts of sparse edge counts."""
    index = {lab: i for i, lab in enumerate(labels)}
    v = [0] * len(labels)
    for e, n in edges:
        v[index[(e.request, e.response)]] += n
    return tuple(v)


def compute_serial_set(automaton: SerialAutomaton) -> SerialSet:
    """S for `automaton`, exactly, with witnesses (see the module docstring).

    Deterministic. Raises `prover.serial.semilinear.TooLarge` if a star of the state
    elimination would enumerate more than 2^16 subsets under every elimination order
    tried (never on the 47 benchmarks: at most 0.15 s each)."""
    from prover.serial.semilinear import build_components

    return SerialSet(automaton.labels, build_components(automaton))


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
