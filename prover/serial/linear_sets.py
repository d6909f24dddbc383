"""Simple linear sets with walk and circulation witnesses, shared by the constructions
of the serial set S (state elimination in `semilinear.py`, cycle covers in `direct.py`).

Two layers:

* the certificate-facing types (`SimpleLinearSet` with `WalkWitness` and
  `CirculationWitness`, vectors over the sorted labels of the serial automaton);
* witnessed vectors (`WVec`: label counts together with the edge counts that produce
  them) and linear sets over them (`WLin`), which both constructions build before
  `finish` splits them into simple linear sets (`decompose`), merges extensions and
  converts them to the certificate-facing types.

Witness invariant of a `WLin` handed to `finish`: the base's edge counts are a walk
from the initial state (balanced except +1 out at the initial state and +1 in at the
end, support weakly connected and containing the initial state when not empty), and
every period's edge counts are a circulation each of whose weakly connected components
shares a state with the base's support (or contains the initial state).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from prover.serial.automaton import SerialEdge
from prover.serial.linalg import IntVec, Work, in_simple_linear_set, independent, kernel_vector

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


def label_counts(labels: tuple[Label, ...], edges: EdgeCounts) -> Vector:
    """Label counts of sparse edge counts."""
    index = {lab: i for i, lab in enumerate(labels)}
    v = [0] * len(labels)
    for e, n in edges:
        v[index[(e.request, e.response)]] += n
    return tuple(v)


def vector_in(x: Vector, components: Sequence[SimpleLinearSet]) -> bool:
    return any(in_simple_linear_set(x, c.base, c.periods) for c in components)


# ---- witnessed vectors and linear sets --------------------------------------------


@dataclass(frozen=True, order=True)
class WVec:
    """Label counts with the edge counts that witness them."""

    lab: IntVec
    edg: IntVec

    def __add__(self, other: WVec) -> WVec:
        return WVec(
            tuple(a + b for a, b in zip(self.lab, other.lab, strict=True)),
            tuple(a + b for a, b in zip(self.edg, other.edg, strict=True)),
        )

    def scale(self, k: int) -> WVec:
        return WVec(tuple(k * a for a in self.lab), tuple(k * a for a in self.edg))

    def is_zero(self) -> bool:
        return not any(self.edg)


@dataclass(frozen=True, order=True)
class WLin:
    """A linear set `base + N·periods` with witnesses (periods sorted, distinct labels)."""

    base: WVec
    periods: tuple[WVec, ...]

    def key(self) -> tuple[IntVec, tuple[IntVec, ...]]:
        return (self.base.lab, tuple(p.lab for p in self.periods))


# ---- decomposition into simple linear sets ----------------------------------------------


def _circuit_split(periods: Sequence[WVec]) -> tuple[int, list[tuple[int, int]]]:
    """For dependent periods: (cost, [(index i, a_i) for i in I]) of a cheap circuit side."""
    labs = [p.lab for p in periods]
    n = len(labs)
    best: tuple[int, list[tuple[int, int]]] | None = None
    for start in range(n):
        order = [(start + j) % n for j in range(n)]
        cur = list(range(n))
        for j in order:
            trial = [x for x in cur if x != j]
            if trial and not independent([labs[x] for x in trial]):
                cur = trial
        alpha = kernel_vector([labs[x] for x in cur])
        if alpha is None:  # pragma: no cover - cur is dependent by construction
            continue
        pos = [(cur[t], a) for t, a in enumerate(alpha) if a > 0]
        neg = [(cur[t], -a) for t, a in enumerate(alpha) if a < 0]
        for side in (pos, neg):
            cost = sum(a for _, a in side)
            cand = (cost, sorted(side))
            if best is None or cand < best:
                best = cand
    assert best is not None
    return best


def decompose(
    li: WLin,
    work: Work | None = None,
    known: dict[tuple[IntVec, ...], bool] | None = None,
) -> Iterator[WLin]:
    """Split `li` exactly into linear sets with independent periods.

    While the periods P are dependent, take a circuit Σ_{i∈I} a_i p_i = Σ_{j∈J} a_j p_j
    (I, J disjoint, a > 0) and split (b, P) = ∪_{i∈I} ∪_{0≤k<a_i} (b + k·p_i, P ∖ {p_i})
    (exact: a representation with λ_i ≥ a_i for every i ∈ I can be rewritten
    λ − a_I + a_J, which decreases lexicographically once I holds the circuit's first
    period, so some representation has λ_i < a_i for an i ∈ I). Adding k copies of a
    period's circulation to the walk keeps the witnesses valid."""
    ps = list(li.periods)
    if work is not None:
        work.charge(1 + len(ps))
    labs = tuple(p.lab for p in ps)
    indep = known.get(labs) if known is not None else None
    if indep is None:
        indep = independent(labs)
        if known is not None:
            known[labs] = indep
    if indep:
        yield li
        return
    _, side = _circuit_split(ps)
    for i, a in side:
        rest = ps[:i] + ps[i + 1 :]
        for k in range(a):
            yield from decompose(WLin(li.base + ps[i].scale(k), tuple(rest)), work, known)


def _simple_contained(a: WLin, b: WLin) -> bool:
    """a ⊆ b for simple linear sets (exact)."""
    if any(x < y for x, y in zip(a.base.lab, b.base.lab, strict=True)):
        return False
    if len(a.periods) > len(b.periods):
        return False
    pspan = [any(p.lab[i] for p in b.periods) for i in range(len(b.base.lab))]
    for i, x in enumerate(a.base.lab):
        if x != b.base.lab[i] and not pspan[i]:
            return False
    for p in a.periods:
        if any(x and not pspan[i] for i, x in enumerate(p.lab)):
            return False
    gens = [p.lab for p in b.periods]
    if not in_simple_linear_set(a.base.lab, b.base.lab, gens):
        return False
    zero = (0,) * len(a.base.lab)
    return all(in_simple_linear_set(p.lab, zero, gens) for p in a.periods)


def _drop_contained(items: list[WLin]) -> list[WLin]:
    keep = [True] * len(items)
    for i, a in enumerate(items):
        for j, b in enumerate(items):
            if i != j and keep[j] and _simple_contained(a, b):
                keep[i] = False
                break
    return [li for li, k in zip(items, keep, strict=True) if k]


def _support_states(v: WVec, edges: Sequence[SerialEdge]) -> set[str]:
    return {s for i, n in enumerate(v.edg) if n for s in (edges[i].source, edges[i].target)}


def _touches(circ: WVec, walk_states: set[str], edges: Sequence[SerialEdge]) -> bool:
    """Every weakly connected component of circ's support meets walk_states."""
    adj: dict[str, set[str]] = {}
    for i, n in enumerate(circ.edg):
        if n:
            e = edges[i]
            adj.setdefault(e.source, set()).add(e.target)
            adj.setdefault(e.target, set()).add(e.source)
    seen: set[str] = set()
    for start in sorted(adj):
        if start in seen:
            continue
        comp = {start}
        todo = [start]
        while todo:
            u = todo.pop()
            for w in adj[u]:
                if w not in comp:
                    comp.add(w)
                    todo.append(w)
        seen |= comp
        if not comp & walk_states:
            return False
    return True


def _merge_extensions(items: list[WLin], edges: Sequence[SerialEdge], initial: str) -> list[WLin]:
    """Merge A = (b, P) and B = (b + q, P ∪ {q}) into (b, P ∪ {q}) (the same set) when
    q's circulation in B touches A's walk (or the initial state).

    Hashed: B looks up A by (b, P) for each of its periods q, so a pass costs
    O(components × periods) lookups instead of comparing all pairs. Passes repeat until
    nothing merges; the smallest mergeable pair (in the sorted order) goes first, so the
    result is deterministic."""
    current = sorted(items)
    nonzero: dict[IntVec, tuple[tuple[int, int], ...]] = {}
    while True:
        by_key: dict[tuple[IntVec, tuple[IntVec, ...]], int] = {}
        bases: set[IntVec] = set()
        for i, li in enumerate(current):
            by_key.setdefault(li.key(), i)
            bases.add(li.base.lab)
        absorbed: dict[int, WVec] = {}  # index of A -> the q it absorbs (one per pass)
        gone: set[int] = set()
        for j, b in enumerate(current):
            if j in gone or j in absorbed:
                continue
            blab = b.base.lab
            for t, q in enumerate(b.periods):
                nz = nonzero.get(q.lab)
                if nz is None:
                    nz = nonzero[q.lab] = tuple((c, x) for c, x in enumerate(q.lab) if x)
                if any(blab[c] < x for c, x in nz):
                    continue
                lowered = list(blab)
                for c, x in nz:
                    lowered[c] -= x
                base = tuple(lowered)
                if base not in bases:
                    continue
                rest = tuple(p.lab for k, p in enumerate(b.periods) if k != t)
                found = by_key.get((base, rest))
                if found is None or found == j or found in gone or found in absorbed:
                    continue
                i = found
                a = current[i]
                if not _touches(q, _support_states(a.base, edges) | {initial}, edges):
                    continue
                absorbed[i] = q
                gone.add(j)
                break
        if not absorbed:
            return current
        nxt = [
            WLin(li.base, tuple(sorted(li.periods + (absorbed[i],)))) if i in absorbed else li
            for i, li in enumerate(current)
            if i not in gone
        ]
        current = sorted(nxt)


def _merge_extensions_pairwise(
    items: list[WLin], edges: Sequence[SerialEdge], initial: str
) -> list[WLin]:
    """`_merge_extensions` by comparing all pairs (the original order of merges, kept
    for few components so that the paper models' serial sets stay as they were)."""
    items = list(items)
    changed = True
    while changed:
        changed = False
        for i, a in enumerate(items):
            alabs = {p.lab for p in a.periods}
            walk_states = _support_states(a.base, edges) | {initial}
            for j, b in enumerate(items):
                if i == j or len(b.periods) != len(a.periods) + 1:
                    continue
                extra = [p for p in b.periods if p.lab not in alabs]
                if len(extra) != 1 or {p.lab for p in b.periods} != alabs | {extra[0].lab}:
                    continue
                q = extra[0]
                if tuple(x + y for x, y in zip(a.base.lab, q.lab, strict=True)) != b.base.lab:
                    continue
                if not _touches(q, walk_states, edges):
                    continue
                items[i] = WLin(a.base, tuple(sorted(a.periods + (q,))))
                del items[j]
                changed = True
                break
            if changed:
                break
    return sorted(items)


def _walk_end(initial: str, edges: Sequence[tuple[SerialEdge, int]]) -> str:
    bal: dict[str, int] = {}
    for e, n in edges:
        bal[e.target] = bal.get(e.target, 0) + n
        bal[e.source] = bal.get(e.source, 0) - n
    ends = sorted(s for s, v in bal.items() if v > 0)
    return ends[0] if ends else initial


MAX_PAIRWISE = 400
"""Default bound above which the quadratic passes of `finish` give way: containment is
not tested (a contained component is redundant, never wrong) and merges are hashed."""


def finish(
    lins: Sequence[WLin],
    edges: Sequence[SerialEdge],
    initial: str,
    work: Work | None = None,
    max_pairwise: int = MAX_PAIRWISE,
) -> tuple[SimpleLinearSet, ...]:
    """Decompose into simple linear sets, drop duplicates (and contained ones while few),
    merge extensions, convert to `SimpleLinearSet` (sorted, deterministic)."""
    simple: dict[tuple[IntVec, tuple[IntVec, ...]], WLin] = {}
    known: dict[tuple[IntVec, ...], bool] = {}  # independence per period tuple
    for li in lins:
        for s in decompose(li, work, known):
            s2 = WLin(s.base, tuple(sorted(s.periods)))
            k = s2.key()
            if k not in simple or s2 < simple[k]:
                simple[k] = s2
    merged = [simple[k] for k in sorted(simple)]
    while True:
        n = len(merged)
        if len(merged) <= max_pairwise:
            merged = _merge_extensions_pairwise(_drop_contained(merged), edges, initial)
        else:
            merged = _merge_extensions(merged, edges, initial)
        if len(merged) == n:
            break
    result: list[SimpleLinearSet] = []
    for li in merged:

        def sparse(v: WVec) -> EdgeCounts:
            return tuple(sorted((edges[i], n) for i, n in enumerate(v.edg) if n))

        walk_edges = sparse(li.base)
        result.append(
            SimpleLinearSet(
                base=li.base.lab,
                periods=tuple(p.lab for p in li.periods),
                walk=WalkWitness(_walk_end(initial, walk_edges), walk_edges),
                circulations=tuple(CirculationWitness(sparse(p)) for p in li.periods),
            )
        )
    return tuple(result)
