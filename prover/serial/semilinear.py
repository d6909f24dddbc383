"""The serial set S by state elimination over witnessed semilinear sets (exact).

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
2. **Decomposition into simple linear sets**, removal of contained ones and merging of
   extensions: `prover.serial.linear_sets.finish`.

All the work is charged to a deterministic budget (`Work`): state elimination is
exponential on some automata (the star enumerates subsets of linear sets), and the
caller then uses another construction.
"""

from __future__ import annotations

from collections.abc import Sequence

from prover.serial.automaton import SerialAutomaton, SerialEdge
from prover.serial.linalg import IntVec, TooLarge, Work, in_monoid
from prover.serial.linear_sets import SimpleLinearSet, WLin, WVec, finish

__all__ = ["TooLarge", "build_components"]

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


def _make_lin(base: WVec, periods: Sequence[WVec], work: Work) -> WLin:
    ps = _dedup_periods(periods)
    # drop periods that are non-negative integer combinations of the others
    # (largest first, so that small generators are kept)
    i = len(ps) - 1
    while i >= 0:
        others = [p.lab for j, p in enumerate(ps) if j != i]
        if others and in_monoid(ps[i].lab, others, budget=2000, work=work):
            del ps[i]
        i -= 1
    return WLin(base, tuple(ps))


def _contained(a: WLin, b: WLin, work: Work) -> bool:
    """a ⊆ b (sufficient test, exact when True)."""
    diff = tuple(x - y for x, y in zip(a.base.lab, b.base.lab, strict=True))
    if any(v < 0 for v in diff):
        return False
    gens = [p.lab for p in b.periods]
    if not in_monoid(diff, gens, budget=2000, work=work):
        return False
    return all(in_monoid(p.lab, gens, budget=2000, work=work) for p in a.periods)


def _normalize(lins: Sequence[WLin], work: Work) -> Semi:
    uniq: dict[tuple[IntVec, tuple[IntVec, ...]], WLin] = {}
    for li in lins:
        k = li.key()
        if k not in uniq or li < uniq[k]:
            uniq[k] = li
    items = [uniq[k] for k in sorted(uniq)]
    work.charge(len(items) * len(items))
    # remove linear sets contained in another one (keep the first of equal sets)
    keep = [True] * len(items)
    for i, a in enumerate(items):
        for j, b in enumerate(items):
            if i != j and keep[j] and _contained(a, b, work):
                keep[i] = False
                break
    return tuple(li for li, k in zip(items, keep, strict=True) if k)


def _union(a: Semi, b: Semi, work: Work) -> Semi:
    return _normalize(list(a) + list(b), work)


def _product(a: Semi, b: Semi, work: Work) -> Semi:
    return _normalize(
        [_make_lin(x.base + y.base, list(x.periods) + list(y.periods), work) for x in a for y in b],
        work,
    )


MAX_STAR_COMPONENTS = 16


def _star(a: Semi, zero: WVec, work: Work) -> Semi:
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
            out.append(_make_lin(base, periods, work))
            return
        rec(i + 1, base, periods)
        c = comps[i]
        gens = [p.lab for p in periods]
        if gens and all(
            in_monoid(v.lab, gens, budget=500, work=work) for v in (c.base,) + c.periods
        ):
            return
        rec(i + 1, base + c.base, periods + [c.base] + list(c.periods))

    rec(0, zero, list(ext))
    return _normalize(out, work)


# ---- state elimination ---------------------------------------------------------------


ELIMINATION_ORDERS = ("edges", "weighted")


def _eliminate(
    automaton: SerialAutomaton, order: str, work: Work
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
        arcs[(p, q)] = _union(arcs[(p, q)], val, work) if (p, q) in arcs else val

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
        loop = _star(arcs.pop((s, s)), zero, work) if (s, s) in arcs else one
        ins = sorted((p, v) for (p, q), v in arcs.items() if q == s)
        outs = sorted((q, v) for (p, q), v in arcs.items() if p == s)
        for key in [k for k in arcs if s in k]:
            del arcs[key]
        for q, vout in outs:
            lv = _product(loop, vout, work)
            for p, vin in ins:
                add(p, q, _product(vin, lv, work))
    return arcs.get((bot, bot), ()), edges




WORK_STEPS = 20_000
"""Search nodes (monoid tests, decomposition steps) one elimination order may spend.
The 47 paper models need at most 5 123; counter-10 (a bidirectional 11-state chain)
needs far more, and the cycle-cover construction (`direct.py`) handles it instead."""


def build_components(
    automaton: SerialAutomaton, work_steps: int | None = WORK_STEPS
) -> tuple[SimpleLinearSet, ...]:
    """S as simple linear sets with walk and circulation witnesses: the smaller (by
    components, then periods) of the results of the elimination orders tried. Raises
    `TooLarge` when every order exceeds its budget (`work_steps` per order)."""
    best: tuple[SimpleLinearSet, ...] | None = None
    error: TooLarge | None = None
    for order in ELIMINATION_ORDERS:
        work = Work(work_steps)
        try:
            semi, edges = _eliminate(automaton, order, work)
            comps = finish(semi, edges, automaton.initial, work)
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
