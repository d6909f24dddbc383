"""The serial set S directly from simple paths and simple cycles ("cycle covers").

A walk from the initial state i is, as edge counts, a flow x ≥ 0 with balance +1 out at
i and +1 in at its end t (none if t = i) whose support is weakly connected and contains
i; conversely every such flow is a walk (Euler). Decompose x into a simple path p from
i to t plus a multiset of simple cycles; the distinct cycles T used together with p
cover exactly the states V of x and are connected. A minimal T' ⊆ T keeping p ∪ T'
connected and covering V exists, so

    x = (p + Σ_{c ∈ T'} c) + Σ (cycles with all states in V).

Hence, with C(V) the label vectors of the simple cycles inside V,

    S = ∪ over p, T'  of  label(p + Σ T') + N·C(V),    V = states(p) ∪ states(T'),

and every such set lies in S: the base is a connected flow from i to t (a walk) and
each cycle of C(V) shares a state with it, which is exactly the certificate's witness
rule. The covers T' are enumerated by adding, one at a time, a cycle that meets the
states covered so far and adds a new one: every minimal T' arises this way (ordered by
distance from p, a cycle adding no state could be dropped, contradicting minimality).
Periods with equal labels are merged and periods that are non-negative integer
combinations of other periods are dropped (same monoid); dependent period sets are then
split exactly (`linear_sets.decompose`).

Sizes: a chain of N + 1 states with edges both ways (the counter models) has N + 1
simple paths from its end, N two-cycles, O(N²) covers and O(N) independent periods per
cover; a ring has N paths and one cycle. Automata with many cycles or paths exceed the
work budget (`TooLarge`), and the caller keeps state elimination.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from prover.serial.automaton import SerialAutomaton, SerialEdge
from prover.serial.linalg import IntVec, TooLarge, Work, in_monoid, in_simple_linear_set
from prover.serial.linear_sets import SimpleLinearSet, WLin, WVec, decompose, finish

WORK_STEPS = 3_000_000
"""Search nodes (paths, cycles, covers, period reductions) the construction may spend."""

MAX_COVERS = 50_000
"""Covers (components before merging) the construction may hold at once, with those
waiting to be grown. The work budget counts steps, not what they keep: each cover holds
its label and edge vectors, so an automaton with many overlapping cycles (ring2 of the
blind set: 14 states, 24 edges) filled 1.7 GB within the work budget and ended in
MemoryError. The largest count of a model it builds S for is counter-128's 8,385 (the
paper's: 172); past the cap it raises `TooLarge`, as the work budget does."""

MAX_PAIRWISE = 64
"""Up to this many components the quadratic containment and merge passes run (they
cost rational solves per pair; above, merges are hashed and containment is skipped)."""


@dataclass(frozen=True)
class _Piece:
    """A simple path or simple cycle: its edge indices and the states it visits."""

    edges: tuple[int, ...]
    states: frozenset[int]


def _simple_cycles(n: int, out: list[list[tuple[int, int]]], work: Work) -> list[_Piece]:
    """All simple cycles (edge-index tuples, parallel edges distinct; `states` left
    empty), each found once: from its smallest state, through larger states only.
    Iterative depth-first search (no recursion limit on long cycles)."""
    cycles: list[_Piece] = []
    for s in range(n):
        on_path = [False] * n
        on_path[s] = True
        path_edges: list[int] = []
        stack: list[tuple[int, int]] = [(s, 0)]  # (state, next out-edge position)
        while stack:
            u, k = stack[-1]
            if k == len(out[u]):
                stack.pop()
                on_path[u] = u == s
                if path_edges:
                    path_edges.pop()
                continue
            stack[-1] = (u, k + 1)
            e, v = out[u][k]
            work.charge()
            if v == s:
                cycles.append(_Piece((*path_edges, e), frozenset()))
            elif v > s and not on_path[v]:
                on_path[v] = True
                path_edges.append(e)
                stack.append((v, 0))
    return cycles


def _simple_paths(
    start: int, out: list[list[tuple[int, int]]], work: Work
) -> list[tuple[_Piece, int]]:
    """All simple paths from `start` (the empty one included), with their end state."""
    paths: list[tuple[_Piece, int]] = [(_Piece((), frozenset((start,))), start)]
    on_path = {start}
    path_edges: list[int] = []
    path_states = [start]
    stack: list[tuple[int, int]] = [(start, 0)]
    while stack:
        u, k = stack[-1]
        if k == len(out[u]):
            stack.pop()
            if path_edges:
                path_edges.pop()
                on_path.discard(path_states.pop())
            continue
        stack[-1] = (u, k + 1)
        e, v = out[u][k]
        work.charge()
        if v not in on_path:
            on_path.add(v)
            path_edges.append(e)
            path_states.append(v)
            paths.append((_Piece(tuple(path_edges), frozenset(path_states)), v))
            stack.append((v, 0))
    return paths


def _reduce_periods(periods: list[WVec], work: Work) -> tuple[WVec, ...]:
    """Equal labels merged (smallest witness kept), then periods that are non-negative
    integer combinations of the others dropped, largest first (the monoid is the same;
    only periods whose support contains another's can be such a combination)."""
    best: dict[IntVec, WVec] = {}
    for p in periods:
        q = best.get(p.lab)
        if q is None or (sum(p.edg), p) < (sum(q.edg), q):
            best[p.lab] = p
    ps = [best[k] for k in sorted(best)]
    masks = [sum(1 << j for j, x in enumerate(p.lab) if x) for p in ps]
    i = len(ps) - 1
    while i >= 0:
        m = masks[i]
        others = [
            ps[j].lab for j in range(len(ps)) if j != i and masks[j] & ~m == 0
        ]
        work.charge(1 + len(others))
        if others and in_monoid(ps[i].lab, others, budget=2000, work=work):
            del ps[i]
            del masks[i]
        i -= 1
    return tuple(sorted(ps))


def build_components(
    automaton: SerialAutomaton, work_steps: int | None = WORK_STEPS,
    max_covers: int = MAX_COVERS,
) -> tuple[SimpleLinearSet, ...]:
    """S as simple linear sets with witnesses, by cycle covers (module docstring).
    Exact; raises `TooLarge` beyond `work_steps`, or when more than `max_covers` covers
    are held at once."""
    work = Work(work_steps)
    labels = automaton.labels
    aut = automaton.reachable()
    edges: tuple[SerialEdge, ...] = aut.edges
    sid = {s: i for i, s in enumerate(aut.states)}
    n, m, d = len(aut.states), len(edges), len(labels)
    lab_index = {lab: i for i, lab in enumerate(labels)}
    out: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for k, e in enumerate(edges):
        out[sid[e.source]].append((k, sid[e.target]))

    def wvec(edge_ids: tuple[int, ...]) -> WVec:
        lab = [0] * d
        edg = [0] * m
        for k in edge_ids:
            edg[k] += 1
            e = edges[k]
            lab[lab_index[(e.request, e.response)]] += 1
        return WVec(tuple(lab), tuple(edg))

    cycles = [
        _Piece(c.edges, frozenset(sid[edges[k].source] for k in c.edges))
        for c in _simple_cycles(n, out, work)
    ]
    cycle_vec = [wvec(c.edges) for c in cycles]
    touching: dict[int, list[int]] = {}  # state -> cycles through it
    for ci, c in enumerate(cycles):
        for s in c.states:
            touching.setdefault(s, []).append(ci)
    period_cache: dict[frozenset[int], tuple[WVec, ...]] = {}

    def periods_of(states: frozenset[int]) -> tuple[WVec, ...]:
        got = period_cache.get(states)
        if got is None:
            inside = sorted(
                {ci for s in states for ci in touching.get(s, ()) if cycles[ci].states <= states}
            )
            got = _reduce_periods([cycle_vec[ci] for ci in inside], work)
            period_cache[states] = got
        return got

    lins: list[WLin] = []
    for path, _end in _simple_paths(sid[aut.initial], out, work):
        base0 = wvec(path.edges)
        seen: set[frozenset[int]] = set()
        # covers grown one cycle at a time; a cover is identified by its cycle set
        stack: list[tuple[frozenset[int], frozenset[int], WVec]] = [
            (frozenset(), path.states, base0)
        ]
        while stack:
            chosen, covered, base = stack.pop()
            work.charge()
            lins.append(WLin(base, periods_of(covered)))
            if len(lins) + len(stack) > max_covers:
                raise TooLarge(f"more than {max_covers} cycle covers")
            grow = sorted(
                {
                    ci
                    for s in covered
                    for ci in touching.get(s, ())
                    if ci not in chosen and not cycles[ci].states <= covered
                },
                reverse=True,
            )
            for ci in grow:
                nxt = chosen | {ci}
                if nxt in seen:
                    continue
                seen.add(nxt)
                stack.append((nxt, covered | cycles[ci].states, base + cycle_vec[ci]))
    return finish(lins, edges, aut.initial, work, max_pairwise=MAX_PAIRWISE)


# ---- one component on demand (lazy refinement) ---------------------------------------


def component_containing(
    automaton: SerialAutomaton, walk: tuple[SerialEdge, ...]
) -> SimpleLinearSet:
    """A simple linear set ⊆ S, with witnesses, containing the label counts of `walk` (a
    walk of `automaton` from its initial state, e.g. `SerialMembership.serial_order`).

    For refining a serial set lazily: when a model of `I ∧ quiescent ∧ π(M) ∉ S′` turns
    out serial, this component covers it and, along its cycles, every vector that
    repeats them. The walk's flow is split into a simple path p plus simple cycles T
    (module docstring); a minimal T′ ⊆ T keeping p ∪ T′ connected and covering the
    walk's states gives the base p + Σ T′; the periods are the distinct cycles of T
    (all inside those states), reduced and split exactly; the piece holding the walk's
    vector is returned."""
    labels = automaton.labels
    aut = automaton.reachable()
    edges = aut.edges
    index = {e: k for k, e in enumerate(edges)}
    lab_index = {lab: i for i, lab in enumerate(labels)}
    d, m = len(labels), len(edges)
    flow = [0] * m
    for e in walk:
        flow[index[e]] += 1
    target = [0] * d
    for e in walk:
        target[lab_index[(e.request, e.response)]] += 1
    end = walk[-1].target if walk else aut.initial

    def wvec(ids: tuple[int, ...]) -> WVec:
        lab, edg = [0] * d, [0] * m
        for k in ids:
            edg[k] += 1
            lab[lab_index[(edges[k].request, edges[k].response)]] += 1
        return WVec(tuple(lab), tuple(edg))

    rest = list(flow)
    path = _support_path(edges, rest, aut.initial, end)
    for k in path:
        rest[k] -= 1
    cycles: list[tuple[int, ...]] = []
    counts: dict[tuple[int, ...], int] = {}
    while any(rest):
        c = _support_cycle(edges, rest)
        for k in c:
            rest[k] -= 1
        if c not in counts:
            cycles.append(c)
        counts[c] = counts.get(c, 0) + 1

    def states(ids: tuple[int, ...] | list[int]) -> set[str]:
        return {x for k in ids for x in (edges[k].source, edges[k].target)}

    covered = states(path) | {aut.initial}
    need = set().union(covered, *(states(c) for c in cycles))
    # minimal T′: drop cycles (last first) while coverage and connectivity survive
    chosen = list(cycles)
    for c in reversed(cycles):
        trial = [x for x in chosen if x != c]
        if _connected_cover(path, trial, aut.initial, need, states):
            chosen = trial
    base = wvec(tuple(path))
    for c in chosen:
        base = base + wvec(c)
    lin = WLin(base, _reduce_periods([wvec(c) for c in cycles], Work(None)))
    for piece in decompose(lin):
        comps = finish([piece], edges, aut.initial, max_pairwise=1)
        if in_simple_linear_set(target, comps[0].base, comps[0].periods):
            return comps[0]
    raise AssertionError("the walk lies in none of the pieces")  # pragma: no cover


def _support_path(edges: tuple[SerialEdge, ...], flow: list[int], src: str, dst: str) -> list[int]:
    """A simple path src -> dst using edges with positive flow (breadth-first, first edge
    in edge order: deterministic); empty when src = dst."""
    if src == dst:
        return []
    prev: dict[str, int] = {}
    seen = {src}
    todo = [src]
    while todo:
        nxt: list[str] = []
        for u in todo:
            for k, e in enumerate(edges):
                if flow[k] and e.source == u and e.target not in seen:
                    seen.add(e.target)
                    prev[e.target] = k
                    nxt.append(e.target)
        todo = nxt
    if dst not in prev:  # pragma: no cover - a flow with these balances has such a path
        raise ValueError("not a walk")
    out: list[int] = []
    s = dst
    while s != src:
        k = prev[s]
        out.append(k)
        s = edges[k].source
    return out[::-1]


def _support_cycle(edges: tuple[SerialEdge, ...], flow: list[int]) -> tuple[int, ...]:
    """A simple cycle in the support of a non-zero circulation (follow positive edges
    from the first one until a state repeats), as sorted edge indices."""
    start = next(k for k, n in enumerate(flow) if n)
    order: list[int] = [start]
    pos = {edges[start].source: 0}
    u = edges[start].target
    while u not in pos:
        pos[u] = len(order)
        k = next(k for k, e in enumerate(edges) if flow[k] and e.source == u)
        order.append(k)
        u = edges[k].target
    return tuple(sorted(order[pos[u] :]))


def _connected_cover(
    path: list[int],
    cycles: list[tuple[int, ...]],
    initial: str,
    need: set[str],
    states: Callable[[tuple[int, ...] | list[int]], set[str]],
) -> bool:
    covered = states(path) | {initial}
    todo = list(cycles)
    grew = True
    while todo and grew:
        grew = False
        for c in list(todo):
            if states(c) & covered:
                covered |= states(c)
                todo.remove(c)
                grew = True
    return not todo and need <= covered
