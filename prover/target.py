"""The non-serializable target: "no request in flight and π(M) ∉ S", quantifier-free.

Solver-agnostic linear constraints over named integer variables: Petri-net places (by
index into `PetriNet.places`) and fresh integer variables (used for the divisibility
part of non-membership). A constraint reads `Σ coeff·var + constant REL 0` with REL one
of `=` / `>=`.

For a simple linear set L = b + N·p1 + … + N·pk (periods linearly independent, k ≤ d
labels) membership of x is decided without quantifiers: pick k rows R of the period
matrix P with P[R] invertible, let λ = P[R]⁻¹ (x_R − b_R) = (c_i·(x − b) / D)_i (exact
rationals, c_i integer rows, D > 0). Then x ∈ L iff
  * consistency: D·(x_j − b_j) − Σ_i P[j][i]·c_i·(x − b) = 0 for every row j ∉ R,
  * sign: c_i·(x − b) ≥ 0,
  * integrality: c_i·(x − b) ≡ 0 (mod D) (after dividing out common factors).
x ∉ L is the disjunction of the negated atoms: a consistency form ≥ 1 or ≤ −1, a sign
form ≤ −1, or `1 ≤ c_i·(x − b) − D·q ≤ D − 1` for a fresh integer q.

`Target.clauses` keeps this structure (one clause per component, each a disjunction of
small conjunctions); `Target.disjuncts` is its split into conjunctions (DNF), pruned
of unsatisfiable and subsumed branches. Fresh variables are existentially quantified
per disjunct (reachability reading) or free (refutation reading); both are the same
for satisfiability.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    import z3

VarKind = Literal["place", "fresh"]
Relation = Literal["=", ">="]


@dataclass(frozen=True, order=True)
class Var:
    """A variable: `place` (index into the net's places) or `fresh` (integer, any sign)."""

    kind: VarKind
    index: int

    def name(self) -> str:
        return f"p{self.index}" if self.kind == "place" else f"k{self.index}"


@dataclass(frozen=True, order=True)
class LinearConstraint:
    """`Σ coeff·var + constant REL 0`; `coeffs` sorted by variable, no zero coefficient."""

    coeffs: tuple[tuple[Var, int], ...]
    constant: int
    relation: Relation

    @staticmethod
    def make(
        coeffs: Mapping[Var, int] | Sequence[tuple[Var, int]], constant: int, relation: Relation
    ) -> LinearConstraint:
        acc: dict[Var, int] = {}
        for v, c in coeffs.items() if isinstance(coeffs, Mapping) else coeffs:
            acc[v] = acc.get(v, 0) + c
        return LinearConstraint(
            tuple(sorted((v, c) for v, c in acc.items() if c != 0)), constant, relation
        )

    def variables(self) -> tuple[Var, ...]:
        return tuple(v for v, _ in self.coeffs)

    def places(self) -> tuple[int, ...]:
        return tuple(v.index for v, _ in self.coeffs if v.kind == "place")

    def is_zero_place(self) -> int | None:
        """The place index if this constraint is `c·place = 0`, else None."""
        if self.relation == "=" and self.constant == 0 and len(self.coeffs) == 1:
            v, _ = self.coeffs[0]
            if v.kind == "place":
                return v.index
        return None

    def evaluate(self, values: Mapping[Var, int]) -> bool:
        s = self.constant + sum(c * values[v] for v, c in self.coeffs)
        return s == 0 if self.relation == "=" else s >= 0

    def render(self, names: Mapping[int, str] | None = None) -> str:
        def nm(v: Var) -> str:
            if v.kind == "place" and names is not None and v.index in names:
                return names[v.index]
            return v.name()

        terms = " + ".join(f"{c}*{nm(v)}" for v, c in self.coeffs) or "0"
        return f"{terms} + {self.constant} {self.relation} 0"


@dataclass(frozen=True)
class Conjunction:
    """A conjunction of linear constraints; `fresh` lists its fresh variables (sorted)."""

    constraints: tuple[LinearConstraint, ...]
    fresh: tuple[Var, ...] = ()

    def places(self) -> tuple[int, ...]:
        return tuple(sorted({p for c in self.constraints for p in c.places()}))

    def zero_places(self) -> tuple[int, ...]:
        """Places constrained by a constraint of the exact form `c·place = 0`."""
        return tuple(sorted({p for c in self.constraints if (p := c.is_zero_place()) is not None}))

    def conjoin(self, other: Conjunction) -> Conjunction:
        cs = tuple(dict.fromkeys(self.constraints + other.constraints))
        return Conjunction(cs, tuple(sorted(set(self.fresh) | set(other.fresh))))


@dataclass(frozen=True)
class Target:
    """quiescent(M) ∧ π(M) ∉ S over a net with `num_places` places.

    * `quiescent`: `local place = 0` for every local place;
    * `clauses`: π(M) ∉ S as a conjunction of clauses, each clause a disjunction of
      conjunctions (one clause per component of S, plus one clause "some response
      place outside S's labels is ≥ 1 or the component constraints hold" folded into
      `outside_labels`);
    * `outside_labels`: response places whose label does not occur in S (any token
      there is a violation by itself);
    * `disjuncts`: the DNF split of the whole target (each includes `quiescent`).
    """

    num_places: int
    quiescent: tuple[LinearConstraint, ...]
    outside_labels: tuple[int, ...]
    clauses: tuple[tuple[Conjunction, ...], ...]
    disjuncts: tuple[Conjunction, ...]


# ---- z3 -------------------------------------------------------------------------


def _z3_term(
    c: LinearConstraint, places: Mapping[int, z3.ArithRef], fresh: Mapping[Var, z3.ArithRef]
) -> z3.ArithRef:
    import z3

    terms: list[z3.ArithRef] = [z3.IntVal(c.constant)]
    for v, k in c.coeffs:
        x = places[v.index] if v.kind == "place" else fresh[v]
        terms.append(k * x if k != 1 else x)
    return z3.Sum(terms)


def constraint_to_z3(
    c: LinearConstraint,
    places: Mapping[int, z3.ArithRef],
    fresh: Mapping[Var, z3.ArithRef] | None = None,
    prefix: str = "k",
) -> z3.BoolRef:
    """`c` as a z3 formula; fresh variables become `z3.Int(prefix + index)` unless given."""
    import z3

    fr: dict[Var, z3.ArithRef] = dict(fresh or {})
    for v, _ in c.coeffs:
        if v.kind == "fresh" and v not in fr:
            fr[v] = z3.Int(f"{prefix}{v.index}")
    t = _z3_term(c, places, fr)
    return t == 0 if c.relation == "=" else t >= 0


def conjunction_to_z3(
    d: Conjunction,
    places: Mapping[int, z3.ArithRef],
    fresh: Mapping[Var, z3.ArithRef] | None = None,
    prefix: str = "k",
) -> z3.BoolRef:
    import z3

    return z3.And([constraint_to_z3(c, places, fresh, prefix) for c in d.constraints])


def target_to_z3(
    t: Target,
    places: Mapping[int, z3.ArithRef],
    fresh: Mapping[Var, z3.ArithRef] | None = None,
    prefix: str = "k",
    use_disjuncts: bool = False,
) -> z3.BoolRef:
    """The whole target as one z3 formula (fresh variables free: satisfiability reading).

    By default built from the clause structure (compact); `use_disjuncts=True` gives the
    disjunction of `t.disjuncts` (the same set)."""
    import z3

    if use_disjuncts:
        return z3.Or([conjunction_to_z3(d, places, fresh, prefix) for d in t.disjuncts])
    q = [constraint_to_z3(c, places, fresh, prefix) for c in t.quiescent]
    outside = [places[i] >= 1 for i in t.outside_labels]
    comps = [
        z3.Or([conjunction_to_z3(a, places, fresh, prefix) for a in clause])
        for clause in t.clauses
    ]
    return z3.And(q + [z3.Or(outside + [z3.And(comps)])])
