"""The serial set S of a serial automaton whose only cycles are self-loops, by dynamic
programming over its topological order.

Such automata are common: a potential (here: the data the requests accumulate) grows
along every edge that changes the global state, and the only cycles are requests that
leave the state as it is (audits, bounded no-op requests). `locked-04` has 81 states,
81 million paths from the initial state, and the cycle-cover construction (`direct.py`)
enumerates them one by one.

A walk from the initial state i is a path p = i → … → t of non-loop edges plus any
numbers of the self-loops at the states of p. With Λ(p) the labels of those loops,

    S = ∪ over paths p of  label(p) + N·{e_l : l ∈ Λ(p)},

and each period e_l (a unit vector: a loop has one label) is witnessed by one loop
labelled l at a state of p, a circulation that meets the walk, which is the
certificate's witness rule. Unit periods with distinct labels are always independent,
so every such set is simple.

The dynamic programme keeps, per state v, the pairs (b, Λ) of the paths from i to v and
drops dominated ones: (b₂, Λ₂) ⊆ (b₁, Λ₁) exactly when Λ₂ ⊆ Λ₁, b₂ ≥ b₁ and b₂ = b₁
outside Λ₁. Domination survives extending both by the same suffix q (Λ grows by the
same loops on both sides, b by label(q)), so pruning at every state loses nothing: the
union stays exactly S. The number of paths never appears; the pairs per state are what
the budget counts (`Work`). Not applicable (`None`) when a cycle other than a self-loop
exists.

Each set is an "orthant" {x : x_l = b_l for l ∉ Λ, x_l ≥ b_l for l ∈ Λ}. Domination and
intersection are coordinate-wise conditions, answered for all entries at once with bit
sets over the entries (`_Table`). After the antichain, components covered by the union
of the others (not by one of them) are dropped too (`_drop_covered`, exact orthant
splitting): locked-04 603 → 273 components, locked-05 3,794 → 1,443 (budget-cut). The
union stays S.

A circulation of such an automaton is a sum of self-loops, so in any certificate a
component's periods are loop labels at states of its walk, a path: every component has
this shape. Nor can S be smaller as a set: for a serializable program every serial
multiset is the completed multiset of a reachable quiescent marking, which satisfies
any invariant, so refutation needs all of Ser whatever the invariant: refining S lazily
can save construction time, never the size of the set.
Sizes grow with the model: locked-02…05 give 12, 55, 273 and 1,443 components;
locked-06 exceeds the budget (its antichain alone has 21,809).
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass

from prover.serial.automaton import SerialAutomaton, SerialEdge
from prover.serial.linalg import TooLarge, Work
from prover.serial.linear_sets import (
    CirculationWitness,
    EdgeCounts,
    SimpleLinearSet,
    WalkWitness,
)

WORK_STEPS = 2_000_000
"""Work units (entries created, bit-set operations, cover splits) the construction may
spend."""

COVER_SPLITS = 1_000
"""Orthant pieces one union-cover test may split before it gives up (then the component
is kept: dropping is an optimisation, keeping is always exact)."""

COVER_WORK = 3_000_000
"""Work units of the whole union-cover pass; past them the remaining components are
kept as they are (locked-04 needs 0.16 M units; locked-05 is cut at 3 M)."""


@dataclass(frozen=True)
class _Entry:
    """One pair (b, Λ) at a state with its witnesses: the path's edge indices and, per
    loop label in Λ, the index of the first loop edge with that label on the path."""

    base: tuple[int, ...]
    mask: int  # Λ as a bit set over label indices
    path: tuple[int, ...]
    loops: tuple[tuple[int, int], ...]  # (label index, loop edge index), sorted


Orthant = tuple[tuple[int, ...], int]
"""(b, Λ as a bit set): {x : x_l = b_l for l ∉ Λ, x_l ≥ b_l for l ∈ Λ}."""


class _Table:
    """Bit sets over a fixed list of orthants (bit i = orthant i), per label l and value
    v: `le_in[l][v]` = l ∈ Λ and b_l ≤ v, `eq_out[l][v]` = l ∉ Λ and b_l = v,
    `ge_out[l][v]` = l ∉ Λ and b_l ≥ v, `inside[l]` = l ∈ Λ. Built once, queried with a
    few big-integer operations per label (mutable only while it is built)."""

    def __init__(self, items: Sequence[Orthant], dims: int, work: Work) -> None:
        top = max((b[j] for b, _ in items for j in range(dims)), default=0) + 2
        work.charge(len(items) * dims + dims * top)
        eq_in = [[0] * top for _ in range(dims)]
        eq_out = [[0] * top for _ in range(dims)]
        for i, (b, m) in enumerate(items):
            bit = 1 << i
            for j in range(dims):
                (eq_in if (m >> j) & 1 else eq_out)[j][b[j]] |= bit
        self.inside = [0] * dims
        self.le_in = [[0] * top for _ in range(dims)]
        self.ge_out = [[0] * (top + 1) for _ in range(dims)]
        self.eq_out = eq_out
        for j in range(dims):
            acc = 0
            for v in range(top):
                acc |= eq_in[j][v]
                self.le_in[j][v] = acc
            self.inside[j] = acc
            acc = 0
            for v in range(top - 1, -1, -1):
                acc |= eq_out[j][v]
                self.ge_out[j][v] = acc

    def dominators(self, q: Orthant, within: int, work: Work) -> int:
        """Orthants a ⊇ q among `within`: Λ_q ⊆ Λ_a, b_a ≤ b_q, equal outside Λ_a.
        (Values of q are at most one above the table's largest: `top` covers them.)"""
        b, m = q
        acc = within
        n = 0
        for j, v in enumerate(b):
            n += 1
            acc &= self.le_in[j][v] if (m >> j) & 1 else self.le_in[j][v] | self.eq_out[j][v]
            if not acc:
                break
        work.charge(n)
        return acc

    def meeting(self, q: Orthant, within: int, work: Work) -> int:
        """Orthants among `within` that intersect q."""
        b, m = q
        acc = within
        n = 0
        for j, v in enumerate(b):
            n += 1
            if (m >> j) & 1:
                acc &= self.inside[j] | self.ge_out[j][v]
            else:
                acc &= self.le_in[j][v] | self.eq_out[j][v]
            if not acc:
                break
        work.charge(n)
        return acc


def _antichain(items: list[_Entry], dims: int, work: Work) -> list[_Entry]:
    """The entries no other one dominates (of equal ones the first), in their order."""
    first: dict[Orthant, int] = {}
    for i, e in enumerate(items):
        first.setdefault((e.base, e.mask), i)
    uniq = [items[i] for i in sorted(first.values())]
    if len(uniq) <= 1:
        return uniq
    orth = [(e.base, e.mask) for e in uniq]
    table = _Table(orth, dims, work)
    everyone = (1 << len(uniq)) - 1
    return [e for i, e in enumerate(uniq)
            if not table.dominators(orth[i], everyone & ~(1 << i), work)]


def _meet(q: Orthant, r: Orthant, dims: int) -> Orthant | None:
    (b, m), (c, n) = q, r
    nb = list(b)
    nm = m
    for j in range(dims):
        if (m >> j) & 1:
            if (n >> j) & 1:
                nb[j] = max(b[j], c[j])
            elif c[j] < b[j]:
                return None
            else:
                nb[j] = c[j]
                nm &= ~(1 << j)
        elif (c[j] > b[j]) if (n >> j) & 1 else c[j] != b[j]:
            return None
    return tuple(nb), nm


def _covered(
    q: Orthant, near: int, orth: Sequence[Orthant], table: _Table, dims: int, work: Work
) -> bool:
    """q ⊆ ∪ {orth[i] : bit i of near}, exactly (False also past `COVER_SPLITS` pieces).

    A piece inside one orthant is covered. Otherwise take the first orthant r (lowest
    bit) meeting the current piece; x = piece ∩ r is
    covered, and piece ∖ x is split coordinate by coordinate into disjoint orthants
    (values of a free coordinate below x's bound; above a value x fixes), each tested
    against the orthants after r only (those before r do not meet the piece, so none of
    its parts)."""
    todo: list[tuple[Orthant, int]] = [(q, near)]
    pieces = 0
    while todo:
        piece, cands = todo.pop()
        pieces += 1
        if pieces > COVER_SPLITS:
            return False
        if table.dominators(piece, cands, work):  # one orthant holds the whole piece
            continue
        hit = table.meeting(piece, cands, work)
        if not hit:
            return False
        i = (hit & -hit).bit_length() - 1
        x = _meet(piece, orth[i], dims)
        assert x is not None  # the table said they meet
        if x == piece:
            continue
        later = cands & ~((1 << (i + 1)) - 1)
        (b, m), (xb, xm) = piece, x
        cur = list(b)
        cur_m = m
        for j in range(dims):
            if not (m >> j) & 1 or ((xm >> j) & 1 and xb[j] == b[j]):
                continue
            for v in range(b[j], xb[j]):
                pb = list(cur)
                pb[j] = v
                todo.append(((tuple(pb), cur_m & ~(1 << j)), later))
            if not (xm >> j) & 1:
                pb = list(cur)
                pb[j] = xb[j] + 1
                todo.append(((tuple(pb), cur_m), later))
                cur_m &= ~(1 << j)
            cur[j] = xb[j]
    return True


def _drop_covered(items: list[_Entry], dims: int, work: Work) -> list[_Entry]:
    """Drop, fewest periods first, every entry covered by the union of the entries still
    kept (an antichain in, so no single one covers it). Deterministic."""
    orth = [(e.base, e.mask) for e in items]
    if len(orth) <= 1:
        return items
    table = _Table(orth, dims, work)
    alive = (1 << len(orth)) - 1
    order = sorted(range(len(orth)), key=lambda i: (bin(orth[i][1]).count("1"), orth[i]))
    for i in order:
        try:
            if _covered(orth[i], alive & ~(1 << i), orth, table, dims, work):
                alive &= ~(1 << i)
        except TooLarge:  # the pass is an optimisation: what is left stays
            break
    return [e for i, e in enumerate(items) if (alive >> i) & 1]


def _topological(aut: SerialAutomaton) -> list[str] | None:
    """States in a topological order of the non-loop edges (smallest state first among
    the ready ones: deterministic), or None if they have a cycle."""
    index = {s: k for k, s in enumerate(aut.states)}
    indeg = {s: 0 for s in aut.states}
    succ: dict[str, list[str]] = {s: [] for s in aut.states}
    for e in aut.edges:
        if e.source != e.target:
            indeg[e.target] += 1
            succ[e.source].append(e.target)
    ready = [(index[s], s) for s in aut.states if indeg[s] == 0]
    heapq.heapify(ready)
    order: list[str] = []
    while ready:
        _, s = heapq.heappop(ready)
        order.append(s)
        for t in succ[s]:
            indeg[t] -= 1
            if indeg[t] == 0:
                heapq.heappush(ready, (index[t], t))
    return order if len(order) == len(aut.states) else None


def applicable(automaton: SerialAutomaton) -> bool:
    """Are self-loops the only cycles of the reachable part?"""
    return _topological(automaton.reachable()) is not None


def build_components(
    automaton: SerialAutomaton, work_steps: int | None = WORK_STEPS
) -> tuple[SimpleLinearSet, ...] | None:
    """S exactly, with witnesses (module docstring); None when a cycle other than a
    self-loop exists. Raises `TooLarge` beyond `work_steps`."""
    aut = automaton.reachable()
    order = _topological(aut)
    if order is None:
        return None
    work = Work(work_steps)
    labels = automaton.labels
    lab_index = {lab: i for i, lab in enumerate(labels)}
    edges: tuple[SerialEdge, ...] = aut.edges
    d = len(labels)
    labs = [lab_index[(e.request, e.response)] for e in edges]
    loops: dict[str, list[tuple[int, int]]] = {s: [] for s in aut.states}
    into: dict[str, list[int]] = {s: [] for s in aut.states}
    for k, e in enumerate(edges):
        if e.source == e.target:
            loops[e.source].append((labs[k], k))
        else:
            into[e.target].append(k)

    def arrive(e: _Entry, k: int) -> _Entry:
        """e extended by the non-loop edge k: its label counted, its target's loops
        (the first edge per new label) added."""
        work.charge()
        base = list(e.base)
        base[labs[k]] += 1
        got = dict(e.loops)
        mask = e.mask
        for li, lk in loops[edges[k].target]:
            if li not in got:
                got[li] = lk
                mask |= 1 << li
        return _Entry(tuple(base), mask, (*e.path, k), tuple(sorted(got.items())))

    start = dict(sorted({li: k for li, k in reversed(loops[aut.initial])}.items()))
    at: dict[str, list[_Entry]] = {
        aut.initial: [_Entry((0,) * d, sum(1 << li for li in start), (), tuple(start.items()))]
    }
    for s in order:
        if s != aut.initial:
            at[s] = _antichain(
                [arrive(e, k) for k in into[s] for e in at[edges[k].source]], d, work
            )
    # S is the union over all end states; dominance across end states prunes further
    every = _drop_covered(_antichain([e for s in order for e in at[s]], d, work), d,
                          Work(None if work_steps is None else COVER_WORK))
    # No `finish`: unit periods with distinct labels are independent, the antichain has
    # no duplicates and no contained component (domination is exact containment here),
    # and no extension merge applies (a circulation of this automaton is a sum of
    # self-loops, and one at a state of A's walk would already be a period of A).

    def counts(ids: tuple[int, ...]) -> EdgeCounts:
        return tuple(sorted((edges[k], ids.count(k)) for k in set(ids)))

    def unit(li: int) -> tuple[int, ...]:
        return tuple(int(j == li) for j in range(d))

    comps: list[SimpleLinearSet] = []
    for entry in every:
        periods = sorted(
            (unit(li), CirculationWitness(((edges[k], 1),))) for li, k in entry.loops
        )
        end = edges[entry.path[-1]].target if entry.path else aut.initial
        comps.append(SimpleLinearSet(
            base=entry.base,
            periods=tuple(p for p, _ in periods),
            walk=WalkWitness(end, counts(entry.path)),
            circulations=tuple(w for _, w in periods),
        ))
    return tuple(sorted(comps, key=lambda c: (c.base, c.periods)))
