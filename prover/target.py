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

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from math import gcd
from typing import TYPE_CHECKING, Literal

from prover.petri.net import PetriNet, Place
from prover.serial.parikh import SerialSet

if TYPE_CHECKING:
    import z3

    from prover.petri.slicing import SlicedNet

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

    The set denoted is
        quiescent ∧ (∨_{p ∈ outside_labels} p ≥ 1  ∨  ∧_{clause} ∨_{alt ∈ clause} alt)
    and, equally, the union of `disjuncts` (each a conjunction that includes
    `quiescent`). Place variables range over non-negative integers (markings); callers
    add `p ≥ 0` where their solver needs it.

    * `quiescent`: `local place = 0` for every local place;
    * `outside_labels`: response places that are 0 in every element of S (their label is
      not a label of S, or no component uses it): a token there is a violation;
    * `clauses`: one per component of S, the alternatives of "π(M) is not in this
      component" (over the other response places);
    * `label_places`: the response place of each label of S (same order as `labels`);
    * `disjuncts`: the DNF split (each disjunct also fixes the outside places to 0 except
      in the disjuncts `outside place ≥ 1`), unsatisfiable and subsumed branches pruned.
    """

    num_places: int
    labels: tuple[tuple[str, str], ...]
    label_places: tuple[int, ...]
    quiescent: tuple[LinearConstraint, ...]
    outside_labels: tuple[int, ...]
    clauses: tuple[tuple[Conjunction, ...], ...]
    disjuncts: tuple[Conjunction, ...]
    # One-slot memo of the target's z3 terms (`prover.smt.target_z3.shared_target`):
    # built by the first engine that needs them, read by every later one.
    z3_memo: list[object] = field(default_factory=list, compare=False, repr=False)

    def alternatives(self) -> int:
        """The alternatives of the component clauses, counted with repetition: the size
        that makes a query with the target hard (paper benchmarks ≤ 443, counter-48
        99,500)."""
        return sum(len(clause) for clause in self.clauses)

    def is_large(self) -> bool:
        """More than `LARGE_TARGET_ALTERNATIVES` alternatives (a count, never a time)."""
        return self.alternatives() > LARGE_TARGET_ALTERNATIVES

    def summary(self, sliced_sizes: Sequence[tuple[int, int]] | None = None) -> dict[str, object]:
        """`{disjuncts, sliced}` for `inspect --json` (sliced: [places, transitions] each)."""
        out: dict[str, object] = {"disjuncts": len(self.disjuncts)}
        if sliced_sizes is not None:
            out["sliced"] = [{"places": p, "transitions": t} for p, t in sliced_sizes]
        return out


LARGE_TARGET_ALTERNATIVES = 5_000
"""Beyond this many alternatives engines treat a target as large: the state equation
keeps its full invariant (no unsat-core reduction) and sends each query to a fresh z3
solver, and so does the self-check's refutation (the paper benchmarks have at most 443;
counter-16 has 4,260, counter-24 13,390). On small targets the incremental solver is
faster (d4: 0.05 s against 1.4 s fresh)."""


class TargetTooLarge(Exception):
    """The DNF split exceeds the requested bound (use the clause form instead)."""


MAX_SOLVER_CALLS = 6000
"""Default bound on the split's satisfiability checks: the 47 paper models need at
most 2 255 (g1, g2); a large serial set (counter-10: 36 components) needs far more."""


# ---- construction -----------------------------------------------------------------


def _lcm(a: int, b: int) -> int:
    return a * b // gcd(a, b)


def _place(i: int) -> Var:
    return Var("place", i)


class FreshVars:
    """Supplier of fresh integer variables `k0, k1, …` (one per divisibility atom)."""

    def __init__(self) -> None:
        self.n = 0

    def new(self) -> Var:
        v = Var("fresh", self.n)
        self.n += 1
        return v


def _ge(coeffs: Mapping[Var, int], constant: int) -> LinearConstraint:
    return LinearConstraint.make(coeffs, constant, ">=")


def _form_sparse(
    row: Mapping[int, int], base: Sequence[int], places: Sequence[int]
) -> tuple[dict[Var, int], int]:
    """Σ row_j·(x_j − b_j) (row sparse: coordinate -> non-zero coefficient) as
    (coefficients over places, constant); dividing out common factors is the caller's."""
    coeffs = {_place(places[j]): c for j, c in sorted(row.items())}
    const = -sum(c * base[j] for j, c in row.items())
    return coeffs, const


def _neg(coeffs: Mapping[Var, int], const: int) -> tuple[dict[Var, int], int]:
    return {v: -c for v, c in coeffs.items()}, -const


@dataclass(frozen=True)
class MembershipAtom:
    """One atom of "x ∈ component": `holds` (a conjunction, possibly with a fresh
    variable) and `fails`, the alternatives of its negation."""

    holds: Conjunction
    fails: tuple[Conjunction, ...]


AtomMemo = dict[tuple[str, tuple[tuple[int, int], ...], int], MembershipAtom]
"""Atoms without fresh variables by (kind, place coefficients, constant): the
components of a large serial set repeat the same atoms (counter-48: 99,500
alternatives, 429 distinct), built once and shared."""


def _memo_key(
    kind: str, coeffs: Mapping[Var, int], const: int
) -> tuple[str, tuple[tuple[int, int], ...], int]:
    return kind, tuple(sorted((v.index, c) for v, c in coeffs.items())), const


def component_atoms(
    base: Sequence[int],
    periods: Sequence[Sequence[int]],
    places: Sequence[int],
    fresh: FreshVars,
    memo: AtomMemo | None = None,
) -> list[MembershipAtom]:
    """x ∈ base + N·periods (periods independent) as a conjunction of atoms, x read
    from `places` (one per coordinate). Consistency atoms first, then signs, then
    divisibility. `memo`: atoms already built (for other components), reused."""
    d = len(base)
    k = len(periods)
    atoms: list[MembershipAtom] = []
    memo = {} if memo is None else memo
    if k == 0:
        for j in range(d):
            x = {_place(places[j]): 1}
            key = _memo_key("point", x, base[j])
            if key in memo:
                atoms.append(memo[key])
                continue
            fails = [Conjunction((_ge(x, -base[j] - 1),))]  # x_j ≥ b_j + 1
            if base[j] >= 1:
                fails.append(Conjunction((_ge({_place(places[j]): -1}, base[j] - 1),)))
            holds = Conjunction((LinearConstraint.make(x, -base[j], "="),))
            atoms.append(memo.setdefault(key, MembershipAtom(holds, tuple(fails))))
        return atoms
    rows, inv = _pivot_rows_and_inverse(periods, d)
    den = 1
    for inv_row in inv:
        for fr in inv_row.values():
            den = _lcm(den, fr.denominator)
    # λ = lam_rows·(x − b) / den, lam_rows[i] sparse over the coordinates in `rows`
    lam_rows = [{rows[t]: int(fr * den) for t, fr in inv_row.items()} for inv_row in inv]
    in_rows = set(rows)
    column: list[list[tuple[int, int]]] = [[] for _ in range(d)]  # j -> (i, P[j][i] ≠ 0)
    for i in range(k):
        for j in range(d):
            if periods[i][j]:
                column[j].append((i, periods[i][j]))
    # consistency: den·y_j − Σ_i P[j][i]·(lam_rows·y)_i = 0 for j ∉ R
    for j in range(d):
        if j in in_rows:
            continue
        row: dict[int, int] = {j: den}
        for i, pij in column[j]:
            for c, v in lam_rows[i].items():
                row[c] = row.get(c, 0) - pij * v
        g = 0
        for c in row.values():
            g = gcd(g, abs(c))
        if g == 0:
            continue
        co, const = _form_sparse({c: v // g for c, v in row.items() if v}, base, places)
        key = _memo_key("eq", co, const)
        if key in memo:
            atoms.append(memo[key])
            continue
        nco, nconst = _neg(co, const)
        atoms.append(memo.setdefault(key, MembershipAtom(
            Conjunction((LinearConstraint.make(co, const, "="),)),
            (Conjunction((_ge(co, const - 1),)), Conjunction((_ge(nco, nconst - 1),))),
        )))
    divs: list[MembershipAtom] = []
    for i in range(k):
        lam = lam_rows[i]
        g = den
        for c in lam.values():
            g = gcd(g, abs(c))
        di = den // g
        co, const = _form_sparse({c: v // g for c, v in lam.items() if v}, base, places)
        nco, nconst = _neg(co, const)
        key = _memo_key("sign", co, const)
        if key not in memo:
            memo[key] = MembershipAtom(
                Conjunction((_ge(co, const),)),  # λ_i ≥ 0
                (Conjunction((_ge(nco, nconst - 1),)),),  # λ_i < 0
            )
        atoms.append(memo[key])
        if di > 1:
            q = fresh.new()
            q2 = fresh.new()
            lo = dict(co)
            lo[q] = -di
            hi = {v: -c for v, c in lo.items()}
            eq = dict(co)
            eq[q2] = -di
            divs.append(
                MembershipAtom(
                    Conjunction((LinearConstraint.make(eq, const, "="),), (q2,)),
                    (
                        Conjunction(
                            (_ge(lo, const - 1), _ge(hi, -const + di - 1)),  # 1 ≤ f − di·q ≤ di − 1
                            (q,),
                        ),
                    ),
                )
            )
    return atoms + divs


def component_outside(
    base: Sequence[int],
    periods: Sequence[Sequence[int]],
    places: Sequence[int],
    fresh: FreshVars,
) -> list[Conjunction]:
    """The alternatives of x ∉ base + N·periods."""
    return [f for a in component_atoms(base, periods, places, fresh) for f in a.fails]


def active_labels(s: SerialSet) -> list[int]:
    """Indices of the labels of `s` that some component uses (a non-zero base or period
    entry); the other labels are 0 in every element of S."""
    return [
        j
        for j in range(len(s.labels))
        if any(c.base[j] or any(p[j] for p in c.periods) for c in s.components)
    ]


def serial_set_atoms(
    s: SerialSet, active: Sequence[int], places: Sequence[int], fresh: FreshVars
) -> Iterator[list[MembershipAtom]]:
    """`component_atoms` of each component of `s` in order (lazily), projected on the
    `active` labels, label `active[t]` read from `places[t]`."""
    memo: AtomMemo = {}
    for c in s.components:
        yield component_atoms(
            [c.base[j] for j in active],
            [tuple(p[j] for j in active) for p in c.periods],
            places,
            fresh,
            memo,
        )


def _pivot_rows_and_inverse(
    periods: Sequence[Sequence[int]], d: int
) -> tuple[list[int], list[dict[int, Fraction]]]:
    """R, the lexicographically first k coordinates on which the k periods are
    independent, and the exact inverse of P[R] (P[R][t][i] = periods[i][R[t]]) as sparse
    rows (inverse[i] maps t to a non-zero entry). Sparse elimination: period matrices of
    large serial sets have few non-zeros, and the dense rational version was cubic.

    R is the pivot set of the periods' row echelon form: an echelon basis of a row space
    has the same set of leading positions whatever the basis, and that set is the
    greedy (lexicographically first) independent set of coordinates."""
    k = len(periods)
    pivot_rows: dict[int, dict[int, Fraction]] = {}  # leading coordinate -> its row
    for p in periods:
        row = {j: Fraction(x) for j, x in enumerate(p) if x}
        for c in sorted(pivot_rows):
            f = row.get(c)
            if f:
                for j, x in pivot_rows[c].items():
                    y = row.get(j, Fraction(0)) - f * x
                    if y:
                        row[j] = y
                    else:
                        row.pop(j, None)
        if not row:
            raise ValueError("periods are not linearly independent")
        lead = min(row)
        lv = row[lead]
        pivot_rows[lead] = {j: x / lv for j, x in row.items()}
    rows = sorted(pivot_rows)
    # Gauss-Jordan on [A | I] with A = P[R]: A[t] = {i: periods[i][rows[t]]}
    aug: list[tuple[dict[int, Fraction], dict[int, Fraction]]] = [
        ({i: Fraction(periods[i][r]) for i in range(k) if periods[i][r]}, {t: Fraction(1)})
        for t, r in enumerate(rows)
    ]
    done: list[tuple[dict[int, Fraction], dict[int, Fraction]]] = []
    col_row: dict[int, int] = {}  # column i -> index in `done` of its pivot row
    remaining = aug
    for i in range(k):
        cand = [r for r in remaining if r[0].get(i)]
        if not cand:  # pragma: no cover - A is invertible by the choice of R
            raise ValueError("periods are not linearly independent")
        piv = min(cand, key=lambda r: (len(r[0]) + len(r[1]), sorted(r[1])))
        remaining = [r for r in remaining if r is not piv]
        a_row, i_row = piv
        f = a_row[i]
        a_row = {c: x / f for c, x in a_row.items()}
        i_row = {c: x / f for c, x in i_row.items()}
        for r in [*remaining, *done]:
            g = r[0].get(i)
            if g:
                for part, src in ((r[0], a_row), (r[1], i_row)):
                    for c, x in src.items():
                        y = part.get(c, Fraction(0)) - g * x
                        if y:
                            part[c] = y
                        else:
                            part.pop(c, None)
        col_row[i] = len(done)
        done.append((a_row, i_row))
    return rows, [done[col_row[i]][1] for i in range(k)]


def build_target(
    net: PetriNet,
    s: SerialSet,
    *,
    split: bool = True,
    max_disjuncts: int | None = 4096,
    max_solver_calls: int | None = MAX_SOLVER_CALLS,
) -> Target:
    """The target for `net` (the interleaving net of the NS whose serial set is `s`).

    `split=False` gives the clause form only (`disjuncts` empty; no solver calls): what
    engines that take one formula (`target_to_z3`) need. With `split=True` the clauses'
    unsatisfiable alternatives are pruned and the DNF split is computed (seconds for the
    largest benchmarks; `TargetTooLarge` beyond `max_disjuncts` disjuncts or beyond
    `max_solver_calls` satisfiability checks, a deterministic bound on the time the
    split takes: the engines call it without a deadline of their own)."""
    import z3

    index = net.place_index
    label_places: list[int] = []
    for req, resp in s.labels:
        p = index.get(Place("response", req, resp))
        if p is None:
            raise ValueError(f"no response place for label {req}/{resp}")
        label_places.append(p)
    quiescent = tuple(
        LinearConstraint.make({_place(i): 1}, 0, "=")
        for i, p in enumerate(net.places)
        if p.kind == "local"
    )
    active = active_labels(s)
    unused = set(range(len(s.labels))) - set(active)
    labelled = set(label_places)
    outside = sorted(
        {label_places[j] for j in unused}
        | {i for i, p in enumerate(net.places) if p.kind == "response" and i not in labelled}
    )
    fresh = FreshVars()
    clauses: list[tuple[Conjunction, ...]] = []
    act_places = [label_places[j] for j in active]
    zs: dict[int, z3.ArithRef] = {}
    nonneg: list[z3.BoolRef] = []
    if split:  # the clause form creates no z3 terms (z3's global context stays as it was)
        zs = {i: z3.Int(f"p{i}") for i in range(len(net.places))}
        nonneg = [zs[i] >= 0 for i in act_places]

    calls = [0]  # satisfiability checks so far (bounded by max_solver_calls)
    solver = z3.Solver()  # one incremental solver, one push/pop scope per check
    solver.add(*nonneg)

    def check(*forms: z3.BoolRef) -> z3.CheckSatResult:
        calls[0] += 1
        if max_solver_calls is not None and calls[0] > max_solver_calls:
            raise TargetTooLarge(f"more than {max_solver_calls} solver calls for the split")
        solver.push()
        try:
            solver.add(*forms)
            return solver.check()
        finally:
            solver.pop()

    def sat(conj: Conjunction, extra: Sequence[z3.BoolRef] = ()) -> bool:
        r = check(conjunction_to_z3(conj, zs), *extra)
        if r == z3.unknown:  # pragma: no cover - keep the branch (sound)
            return True
        return bool(r == z3.sat)

    comp_atoms: list[list[MembershipAtom]] = []
    for atoms in serial_set_atoms(s, active, act_places, fresh):
        comp_atoms.append(atoms)
        clauses.append(tuple(f for a in atoms for f in a.fails if not split or sat(f)))
    if not split:
        return Target(
            num_places=len(net.places),
            labels=s.labels,
            label_places=tuple(label_places),
            quiescent=quiescent,
            outside_labels=tuple(outside),
            clauses=tuple(clauses),
            disjuncts=(),
        )
    zero_outside = tuple(LinearConstraint.make({_place(i): 1}, 0, "=") for i in outside)

    def meets(piece: Conjunction, c_index: int) -> bool:
        """piece ∩ component ≠ ∅ (component written with fresh λ ≥ 0)."""
        comp = s.components[c_index]
        lams = [z3.Int(f"lam{i}") for i in range(len(comp.periods))]
        forms = [conjunction_to_z3(piece, zs), *[v >= 0 for v in lams]]
        for t, j in enumerate(active):
            terms = [p[j] * v for p, v in zip(comp.periods, lams, strict=True) if p[j]]
            forms.append(zs[act_places[t]] == comp.base[j] + z3.Sum([z3.IntVal(0)] + terms))
        return bool(check(*forms) != z3.unsat)

    # disjoint subtraction of each component from the pieces, pruned
    partial: list[Conjunction] = [Conjunction(())]
    # large components first: they cut the most
    comp_order = sorted(
        range(len(s.components)), key=lambda i: (-len(s.components[i].periods), i)
    )
    for ci in comp_order:
        nxt: list[Conjunction] = []
        for piece in partial:
            if not meets(piece, ci):
                nxt.append(piece)
                continue
            acc = piece
            for atom in comp_atoms[ci]:
                for f in atom.fails:
                    m = acc.conjoin(f)
                    if sat(m):
                        nxt.append(m)
                acc = acc.conjoin(atom.holds)
                if not sat(acc):
                    break
        partial = list(dict.fromkeys(nxt))
        if max_disjuncts is not None and len(partial) > max_disjuncts:
            raise TargetTooLarge(f"more than {max_disjuncts} disjuncts")
    disjuncts = [
        Conjunction(quiescent + (LinearConstraint.make({_place(i): 1}, -1, ">="),))
        for i in outside
    ]
    for dj in partial:
        simp = simplify_conjunction(
            Conjunction(quiescent + zero_outside + dj.constraints, dj.fresh)
        )
        if simp is not None:
            disjuncts.append(simp)
    return Target(
        num_places=len(net.places),
        labels=s.labels,
        label_places=tuple(label_places),
        quiescent=quiescent,
        outside_labels=tuple(outside),
        clauses=tuple(clauses),
        disjuncts=tuple(disjuncts),
    )


def simplify_conjunction(d: Conjunction) -> Conjunction | None:
    """Merge the single-place constraints of `d` (places are ≥ 0) into one bound pair or
    equality per place (`p = 0` when the bounds force it, so slicing sees a zero place);
    None if the bounds are contradictory. Other constraints are kept in order."""
    lo: dict[int, int] = {}
    hi: dict[int, int] = {}
    rest: list[LinearConstraint] = []
    for c in d.constraints:
        if len(c.coeffs) != 1 or c.coeffs[0][0].kind != "place":
            rest.append(c)
            continue
        v, k = c.coeffs[0]
        p = v.index
        if c.relation == "=":
            if c.constant % k:
                return None
            val = -c.constant // k
            lo[p] = max(lo.get(p, 0), val)
            hi[p] = min(hi[p], val) if p in hi else val
        elif k > 0:  # k·x + c ≥ 0  ⇔  x ≥ ceil(−c/k)
            lo[p] = max(lo.get(p, 0), -(c.constant // k))
        else:  # x ≤ floor(c/−k)
            b = c.constant // -k
            hi[p] = min(hi[p], b) if p in hi else b
    bounds: list[LinearConstraint] = []
    for p in sorted(set(lo) | set(hi)):
        low = max(lo.get(p, 0), 0)
        if p in hi and hi[p] < low:
            return None
        x = {Var("place", p): 1}
        if p in hi and hi[p] == low:
            bounds.append(LinearConstraint.make(x, -low, "="))
            continue
        if low > 0:
            bounds.append(LinearConstraint.make(x, -low, ">="))
        if p in hi:
            bounds.append(LinearConstraint.make({Var("place", p): -1}, hi[p], ">="))
    return Conjunction(tuple(bounds) + tuple(dict.fromkeys(rest)), d.fresh)


def _implies(
    d: Conjunction,
    a: Conjunction,
    zs: Mapping[int, z3.ArithRef],
    nonneg: Sequence[z3.BoolRef],
    fresh: FreshVars,
) -> bool:
    """d ⇒ a (for x ≥ 0). `a` is one constraint, or the divisibility pair with one fresh
    variable q (then ¬a is `f = D·q'` for a fresh q')."""
    import z3

    solver = z3.Solver()
    solver.add(*nonneg)
    solver.add(conjunction_to_z3(d, zs))
    if not a.fresh:
        solver.add(z3.Not(conjunction_to_z3(a, zs)))
    else:
        (q,) = a.fresh
        lo = a.constraints[0]  # f − D·q − 1 ≥ 0
        dq = -dict(lo.coeffs)[q]
        qq = z3.Int("implies_q")
        f = z3.Sum(
            [z3.IntVal(lo.constant + 1)]
            + [c * zs[v.index] for v, c in lo.coeffs if v.kind == "place"]
        )
        solver.add(f == dq * qq)
    return bool(solver.check() == z3.unsat)


# ---- slicing per disjunct -------------------------------------------------------------


@dataclass(frozen=True)
class SlicedDisjunct:
    """A disjunct with its bidirectionally sliced net (`prover.petri.slicing`).

    `disjunct` is over the sliced net's place indices (always-empty places replaced by
    0); `unreachable` when slicing alone shows the disjunct cannot be reached."""

    sliced: SlicedNet
    disjunct: Conjunction
    unreachable: bool


def slice_disjunct(net: PetriNet, d: Conjunction) -> SlicedDisjunct:
    from prover.petri.slicing import bidirectional_slice

    sl = bidirectional_slice(net, d.zero_places())
    index = sl.new_index
    out: list[LinearConstraint] = []
    false = False
    for c in d.constraints:
        coeffs: list[tuple[Var, int]] = []
        for v, k in c.coeffs:
            if v.kind == "place":
                if v.index in index:
                    coeffs.append((Var("place", index[v.index]), k))
            else:
                coeffs.append((v, k))
        nc = LinearConstraint.make(coeffs, c.constant, c.relation)
        if not nc.coeffs:
            if not (nc.constant == 0 if nc.relation == "=" else nc.constant >= 0):
                false = True
            continue
        out.append(nc)
    return SlicedDisjunct(
        sl, Conjunction(tuple(dict.fromkeys(out)), d.fresh), sl.unreachable or false
    )


def target_summary(net: PetriNet, t: Target) -> dict[str, object]:
    """`target` for `inspect --json`: disjuncts and the sliced sizes of each."""
    sizes = [slice_disjunct(net, d).sliced.sizes() for d in t.disjuncts]
    return t.summary(sizes)


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


# ---- inspect --json --------------------------------------------------------------------
