"""Semilinear sets with walk witnesses, and the construction of S (exact arithmetic).

Construction of S = Parikh image of the walks of the serial automaton from its initial
state (every state accepting):

1. **State elimination** over semilinear sets whose vectors carry witnesses: every
   vector is a pair (label counts, edge counts). The edge between p and q holds a
   semilinear set whose linear sets (b, P) satisfy: b's edge counts form a walk from p
   to q (from the initial state when p is the virtual start ⊥, ending anywhere when q
   is ⊥) whose support plus p is connected, and every period's edge counts form a
   circulation each of whose connected components touches that support (or p).
   Union, Minkowski sum (concatenation at the eliminated state) and star (closed walks
   at the eliminated state) keep this invariant. Simplifications: duplicate periods,
   periods that are non-negative integer combinations of the others and linear sets
   contained in other linear sets are dropped; the star factors out zero-base
   components and period-free components ("generate less"). Two elimination orders are
   run (fewest incident edges; fewest incident linear sets) and the smaller S is kept.
2. **Decomposition into simple linear sets**: while the periods P of (b, P) are
   dependent, take a circuit Σ_{i∈I} a_i p_i = Σ_{j∈J} a_j p_j (I, J disjoint, a > 0)
   and split (b, P) = ∪_{i∈I} ∪_{0≤k<a_i} (b + k·p_i, P ∖ {p_i}) (exact: a
   representation with λ_i ≥ a_i for every i ∈ I can be rewritten λ − a_I + a_J, which
   decreases lexicographically once I holds the circuit's first period, so some
   representation has λ_i < a_i for an i ∈ I). Adding k copies of a period's
   circulation to the walk keeps the witnesses valid.
3. Simple linear sets contained in another one (exact rational test) are removed.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import gcd
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from prover.serial.automaton import SerialAutomaton, SerialEdge
    from prover.serial.parikh import SimpleLinearSet, Vector

IntVec = tuple[int, ...]

# ---- exact linear algebra ---------------------------------------------------------


def _rref(rows: Sequence[Sequence[Fraction | int]]) -> tuple[list[list[Fraction]], list[int]]:
    """Reduced row echelon form and the pivot columns."""
    m = [[Fraction(x) for x in r] for r in rows]
    pivots: list[int] = []
    if not m:
        return m, pivots
    ncols = len(m[0])
    r = 0
    for c in range(ncols):
        piv = next((i for i in range(r, len(m)) if m[i][c] != 0), None)
        if piv is None:
            continue
        m[r], m[piv] = m[piv], m[r]
        pv = m[r][c]
        m[r] = [x / pv for x in m[r]]
        for i in range(len(m)):
            if i != r and m[i][c] != 0:
                f = m[i][c]
                m[i] = [a - f * b for a, b in zip(m[i], m[r], strict=True)]
        pivots.append(c)
        r += 1
        if r == len(m):
            break
    return m, pivots


def rank(vectors: Sequence[IntVec]) -> int:
    if not vectors:
        return 0
    return len(_rref(vectors)[1])


def independent(vectors: Sequence[IntVec]) -> bool:
    return rank(vectors) == len(vectors)


def kernel_vector(vectors: Sequence[IntVec]) -> IntVec | None:
    """A primitive integer α ≠ 0 with Σ α_i·vectors[i] = 0, or None if independent."""
    n = len(vectors)
    if n == 0:
        return None
    d = len(vectors[0])
    cols = [[vectors[j][i] for j in range(n)] for i in range(d)]  # d x n matrix
    m, pivots = _rref(cols)
    free = [j for j in range(n) if j not in pivots]
    if not free:
        return None
    f = free[0]
    alpha: list[Fraction] = [Fraction(0)] * n
    alpha[f] = Fraction(1)
    for row, pc in enumerate(pivots):
        alpha[pc] = -m[row][f]
    den = 1
    for fr in alpha:
        den = den * fr.denominator // gcd(den, fr.denominator)
    ints = [int(fr * den) for fr in alpha]
    g = 0
    for v in ints:
        g = gcd(g, abs(v))
    return tuple(v // g for v in ints)


def solve_periods(y: Sequence[int], periods: Sequence[IntVec]) -> list[Fraction] | None:
    """The unique rational λ with Σ λ_i·periods[i] = y (periods independent), or None."""
    k = len(periods)
    d = len(y)
    if k == 0:
        return [] if all(v == 0 for v in y) else None
    rows = [[periods[j][i] for j in range(k)] + [y[i]] for i in range(d)]
    m, pivots = _rref(rows)
    if k in pivots:
        return None
    lam = [Fraction(0)] * k
    for row, pc in enumerate(pivots):
        lam[pc] = m[row][k]
    return lam


def in_simple_linear_set(x: Sequence[int], base: Sequence[int], periods: Sequence[IntVec]) -> bool:
    """x ∈ base + N·periods, periods linearly independent (exact)."""
    y = [a - b for a, b in zip(x, base, strict=True)]
    lam = solve_periods(y, periods)
    return lam is not None and all(v >= 0 and v.denominator == 1 for v in lam)


class _Budget:
    def __init__(self, n: int) -> None:
        self.n = n


def in_monoid(t: IntVec, gens: Sequence[IntVec], budget: int = 20000) -> bool:
    """Is the non-negative vector t a non-negative integer combination of the non-negative
    vectors gens? Exact when True; False may also mean "search budget exhausted"."""
    if any(v < 0 for v in t):
        return False
    if all(v == 0 for v in t):
        return True
    gs = [g for g in gens if any(g)]
    if not gs:
        return False
    d = len(t)
    suffix: list[set[int]] = [set() for _ in range(len(gs) + 1)]
    for j in range(len(gs) - 1, -1, -1):
        suffix[j] = suffix[j + 1] | {i for i in range(d) if gs[j][i] > 0}
    b = _Budget(budget)
    seen: set[tuple[int, IntVec]] = set()

    def rec(j: int, rest: IntVec) -> bool:
        if all(v == 0 for v in rest):
            return True
        if j == len(gs) or b.n <= 0:
            return False
        if any(rest[i] > 0 and i not in suffix[j] for i in range(d)):
            return False
        if (j, rest) in seen:
            return False
        seen.add((j, rest))
        b.n -= 1
        g = gs[j]
        cmax = min(rest[i] // g[i] for i in range(d) if g[i] > 0)
        for c in range(cmax, -1, -1):
            if rec(j + 1, tuple(r - c * x for r, x in zip(rest, g, strict=True))):
                return True
        return False

    return rec(0, t)


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


Semi = tuple[WLin, ...]


def _dedup_periods(periods: Sequence[WVec]) -> list[WVec]:
    best: dict[IntVec, WVec] = {}
    for p in periods:
        if p.is_zero():
            continue
        q = best.get(p.lab)
        if q is None or sum(p.edg) < sum(q.edg) or (sum(p.edg) == sum(q.edg) and p < q):
            best[p.lab] = p
    return [best[k] for k in sorted(best)]


def _make_lin(base: WVec, periods: Sequence[WVec]) -> WLin:
    ps = _dedup_periods(periods)
    # drop periods that are non-negative integer combinations of the others
    # (largest first, so that small generators are kept)
    i = len(ps) - 1
    while i >= 0:
        others = [p.lab for j, p in enumerate(ps) if j != i]
        if others and in_monoid(ps[i].lab, others, budget=2000):
            del ps[i]
        i -= 1
    return WLin(base, tuple(ps))


def _contained(a: WLin, b: WLin) -> bool:
    """a ⊆ b (sufficient test, exact when True)."""
    diff = tuple(x - y for x, y in zip(a.base.lab, b.base.lab, strict=True))
    if any(v < 0 for v in diff):
        return False
    gens = [p.lab for p in b.periods]
    if not in_monoid(diff, gens, budget=2000):
        return False
    return all(in_monoid(p.lab, gens, budget=2000) for p in a.periods)


def _normalize(lins: Sequence[WLin]) -> Semi:
    uniq: dict[tuple[IntVec, tuple[IntVec, ...]], WLin] = {}
    for li in lins:
        k = li.key()
        if k not in uniq or li < uniq[k]:
            uniq[k] = li
    items = [uniq[k] for k in sorted(uniq)]
    # remove linear sets contained in another one (keep the first of equal sets)
    keep = [True] * len(items)
    for i, a in enumerate(items):
        for j, b in enumerate(items):
            if i != j and keep[j] and _contained(a, b):
                keep[i] = False
                break
    return tuple(li for li, k in zip(items, keep, strict=True) if k)


def _union(a: Semi, b: Semi) -> Semi:
    return _normalize(list(a) + list(b))


def _product(a: Semi, b: Semi) -> Semi:
    return _normalize(
        [_make_lin(x.base + y.base, list(x.periods) + list(y.periods)) for x in a for y in b]
    )


class TooLarge(Exception):
    """The star would enumerate too many subsets."""


MAX_STAR_COMPONENTS = 16


def _star(a: Semi, zero: WVec) -> Semi:
    extra: dict[IntVec, WVec] = {}
    comps: list[WLin] = []
    for li in a:
        if li.base.is_zero():
            for p in li.periods:
                extra.setdefault(p.lab, p)
        else:
            comps.append(li)
    changed = True
    while changed:
        changed = False
        nxt: list[WLin] = []
        for li in comps:
            ps = tuple(p for p in li.periods if p.lab not in extra)
            if not ps:
                if li.base.lab not in extra:
                    extra[li.base.lab] = li.base
                changed = True
            else:
                nxt.append(WLin(li.base, ps))
        comps = nxt
    if len(comps) > MAX_STAR_COMPONENTS:
        raise TooLarge(f"star over {len(comps)} components")
    ext = list(extra.values())
    out: list[WLin] = []
    # subsets X of the components, by depth-first search: base Σ_X b_i, periods the
    # bases and periods of X (plus the extra periods). Including a component whose base
    # and periods are already non-negative integer combinations of the current periods
    # only yields subsets of sets produced without it, so that branch is cut (exact).
    comps.sort(key=lambda li: (sum(li.base.lab), li))

    def rec(i: int, base: WVec, periods: list[WVec]) -> None:
        if i == len(comps):
            out.append(_make_lin(base, periods))
            return
        rec(i + 1, base, periods)
        c = comps[i]
        gens = [p.lab for p in periods]
        if gens and all(
            in_monoid(v.lab, gens, budget=500) for v in (c.base,) + c.periods
        ):
            return
        rec(i + 1, base + c.base, periods + [c.base] + list(c.periods))

    rec(0, zero, list(ext))
    return _normalize(out)


# ---- state elimination ---------------------------------------------------------------


ELIMINATION_ORDERS = ("edges", "weighted")


def _eliminate(
    automaton: SerialAutomaton, order: str = "edges"
) -> tuple[Semi, tuple[SerialEdge, ...]]:
    """State elimination; `order`: next state = fewest incident edges ("edges") or
    fewest incident linear sets ("weighted"), ties by state order."""
    aut = automaton.reachable()
    labels = automaton.labels
    lab_index = {lab: i for i, lab in enumerate(labels)}
    edges = aut.edges
    d, m = len(labels), len(edges)
    zero = WVec((0,) * d, (0,) * m)
    one: Semi = (WLin(zero, ()),)
    states = list(aut.states)
    sid = {s: i for i, s in enumerate(states)}
    bot = len(states)
    arcs: dict[tuple[int, int], Semi] = {}

    def add(p: int, q: int, val: Semi) -> None:
        arcs[(p, q)] = _union(arcs[(p, q)], val) if (p, q) in arcs else val

    for k, e in enumerate(edges):
        lab = [0] * d
        lab[lab_index[(e.request, e.response)]] = 1
        edg = [0] * m
        edg[k] = 1
        add(sid[e.source], sid[e.target], (WLin(WVec(tuple(lab), tuple(edg)), ()),))
    add(bot, sid[aut.initial], one)
    for i in range(len(states)):
        add(i, bot, one)
    remaining = set(range(len(states)))
    while remaining:

        def score(s: int) -> tuple[int, int]:
            if order == "weighted":  # incident edges weighted by their linear sets
                w = sum(len(v) for (p, q), v in arcs.items() if (p == s) != (q == s))
                return (w, s)
            return (sum(1 for (p, q) in arcs if (p == s) != (q == s)), s)

        s = min(remaining, key=score)
        remaining.discard(s)
        loop = _star(arcs.pop((s, s)), zero) if (s, s) in arcs else one
        ins = sorted((p, v) for (p, q), v in arcs.items() if q == s)
        outs = sorted((q, v) for (p, q), v in arcs.items() if p == s)
        for key in [k for k in arcs if s in k]:
            del arcs[key]
        for q, vout in outs:
            lv = _product(loop, vout)
            for p, vin in ins:
                add(p, q, _product(vin, lv))
    return arcs.get((bot, bot), ()), edges


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


def _decompose(li: WLin) -> Iterator[WLin]:
    ps = list(li.periods)
    if independent([p.lab for p in ps]):
        yield li
        return
    _, side = _circuit_split(ps)
    for i, a in side:
        rest = ps[:i] + ps[i + 1 :]
        for k in range(a):
            yield from _decompose(WLin(li.base + ps[i].scale(k), tuple(rest)))


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


def build_components(automaton: SerialAutomaton) -> tuple[SimpleLinearSet, ...]:
    """S as simple linear sets with walk and circulation witnesses: the smaller (by
    components, then periods) of the results of the elimination orders tried."""
    best: tuple[SimpleLinearSet, ...] | None = None
    error: TooLarge | None = None
    for order in ELIMINATION_ORDERS:
        try:
            comps = _build(automaton, order)
        except TooLarge as exc:  # try the next order
            error = exc
            continue
        if best is None or (len(comps), sum(len(c.periods) for c in comps)) < (
            len(best), sum(len(c.periods) for c in best)
        ):
            best = comps
    if best is None:
        assert error is not None
        raise error
    return best


def _build(automaton: SerialAutomaton, order: str) -> tuple[SimpleLinearSet, ...]:
    from prover.serial.parikh import CirculationWitness, SimpleLinearSet, WalkWitness

    semi, edges = _eliminate(automaton, order)
    simple: dict[tuple[IntVec, tuple[IntVec, ...]], WLin] = {}
    for li in semi:
        for s in _decompose(li):
            s2 = WLin(s.base, tuple(sorted(s.periods)))
            k = s2.key()
            if k not in simple or s2 < simple[k]:
                simple[k] = s2
    merged = [simple[k] for k in sorted(simple)]
    while True:
        n = len(merged)
        merged = _merge_extensions(_drop_contained(merged), edges, automaton.initial)
        if len(merged) == n:
            break
    result: list[SimpleLinearSet] = []
    for li in merged:

        def sparse(v: WVec) -> tuple[tuple[SerialEdge, int], ...]:
            return tuple(sorted((edges[i], n) for i, n in enumerate(v.edg) if n))

        walk_edges = sparse(li.base)
        result.append(
            SimpleLinearSet(
                base=li.base.lab,
                periods=tuple(p.lab for p in li.periods),
                walk=WalkWitness(_walk_end(automaton.initial, walk_edges), walk_edges),
                circulations=tuple(CirculationWitness(sparse(p)) for p in li.periods),
            )
        )
    return tuple(result)


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


def _merge_extensions(
    items: list[WLin], edges: Sequence[SerialEdge], initial: str
) -> list[WLin]:
    """Merge A = (b, P) and B = (b + q, P ∪ {q}) into (b, P ∪ {q}) (the same set) when
    q's circulation in B touches A's walk (or the initial state)."""
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


def vector_in(x: Vector, components: Sequence[SimpleLinearSet]) -> bool:
    return any(in_simple_linear_set(x, c.base, c.periods) for c in components)
