"""Sections (docs/certificates.md, "Blocks"): parts of a request reduced first, at layer 1,
so that the top layer sees each as one step.

Candidates come from the program's structure: the states of a request that hold a lock
(those a conservation law `X = Σ M(l)` of the invariant counts: an inner critical
section, taken and freed inside the request), and the states of a loop that goes round
without a commit (a register, re-check and back-off loop: its failed rounds compose to a
step that changes nothing, a stutter at the top layer). A section's steps get the least
labels (R|B)* N? (L|B)* by layer-1 movers; the top layer runs a state that enters a
section through it at once (macro steps, as the checker builds them in checker/layers.py).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable

from prover.reduction.invariant import Conjunct, Linear
from prover.reduction.movers import Group, Movers, Phase1, co_reachable, least_labels
from prover.reduction.table import Local, Move, Table


def find_sections(t: Table, live: list[Move], inv: list[Conjunct], taken: set[Local]
                  ) -> list[frozenset[Local]]:  # fmt: skip
    """Disjoint candidate interiors: lock holders' components, then loop bodies."""
    out_of: dict[Local, list[Move]] = {}
    for m in live:
        out_of.setdefault(m.src, []).append(m)
    found: list[frozenset[Local]] = []
    used = set(taken) | set(t.entries) | set(t.final)
    holders = sorted(_holders(t, inv), key=lambda g: (len(g), sorted(g)))
    for group in [*holders, *_loops(t, live, out_of)]:
        for part in _components(group - used, out_of):
            near = {m.dst for s in part for m in out_of.get(s, ())} | {
                m.src for m in live if m.dst in part}  # fmt: skip
            if part & used or near & set().union(set(), *found):
                continue  # two sections must not meet (the checker's rule)
            found.append(frozenset(part))
            used |= part
    return found


def _holders(t: Table, inv: list[Conjunct]) -> Iterable[set[Local]]:
    """Per lock (a global of two values) whose law X = Σ M(l) (weights 1) the invariant
    has, the states that hold it."""
    for c in inv:
        if isinstance(c, Linear) and c.op == "=":
            keys = dict(c.coeffs)
            values = [k for k in keys if k[0] == "value"]
            if len(values) == 1 and keys[values[0]] == 1 and len(t.domains[values[0][1]]) == 2 \
                    and all(v == -1 for k, v in keys.items() if k[0] == "local"):  # fmt: skip
                yield {(k[1], k[2]) for k in keys if k[0] == "local"}


def _loops(t: Table, live: list[Move], out_of: dict[Local, list[Move]]) -> Iterable[set[Local]]:
    """Per cycle of a request's steps (strongly connected, more than one state): its
    states but those entered from outside it."""
    index: dict[Local, int] = {}
    low: dict[Local, int] = {}
    stack: list[Local] = []
    on: set[Local] = set()
    comps: list[set[Local]] = []
    for root in sorted(t.reads):
        if root in index:
            continue
        work = [(root, iter(out_of.get(root, ())))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:  # Tarjan, iteratively
            loc, it = work[-1]
            nxt = next((m.dst for m in it if m.dst != loc), None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(out_of.get(nxt, ()))))
                elif nxt in on:
                    low[loc] = min(low[loc], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[loc])
            if low[loc] == index[loc]:
                comp = set()
                while True:
                    top = stack.pop()
                    on.discard(top)
                    comp.add(top)
                    if top == loc:
                        break
                if len(comp) > 1:
                    comps.append(comp)
    for comp in comps:
        entered = {m.dst for m in live if m.dst in comp and m.src not in comp}
        yield comp - entered


def _components(states: set[Local], out_of: dict[Local, list[Move]]) -> list[set[Local]]:
    """Weakly connected parts of `states` by the steps between them."""
    parts: list[set[Local]] = []
    left = set(states)
    while left:
        part, todo = set(), [min(left)]
        while todo:
            loc = todo.pop()
            if loc in part:
                continue
            part.add(loc)
            todo += [m.dst for m in out_of.get(loc, ()) if m.dst in left]
            todo += [m.src for s in left for m in out_of.get(s, ()) if m.dst == loc]
        parts.append(part)
        left -= part
    return parts


def section_labels(t: Table, live: list[Move], inner: frozenset[Local], movers: Movers
                   ) -> dict[Group, str] | str:  # fmt: skip
    """Least layer-1 labels of a section's steps (entering, inside, leaving)."""
    co = co_reachable(t, live)
    steps = [m for m in live if m.src in inner or m.dst in inner]
    groups: dict[Group, list[Move]] = {}
    for m in steps:
        groups.setdefault((m.src, m.reads), []).append(m)
    phase1: set[Local] = set()
    succ: dict[Local, list[Local]] = {}
    for m in steps:
        if m.src in inner and m.dst in inner:
            succ.setdefault(m.src, []).append(m.dst)

    later = Phase1(groups, succ, phase1, movers, inner.__contains__)
    right: dict[Group, bool] = {}
    for g in sorted(groups, key=lambda g: (g[0] in inner, g)):
        if g[0] in phase1:
            continue
        right[g] = g[0] not in co or all(movers.mover(m, True) for m in groups[g])
        bad = None if right[g] else later([m.dst for m in groups[g] if m.dst in co])
        if bad is not None:
            return f"a step of the section at {bad[1]} after its commit is not a left mover"
    labels = least_labels(groups, phase1, right, movers)
    if not isinstance(labels, dict):
        return f"a step of the section at {labels[0][1]} after its commit is not a left mover"
    return labels


def top_table(t: Table, moves: list[Move], sections: list[frozenset[Local]], skip: set[Local],
              budget: int) -> Table:  # fmt: skip
    """The top layer as a table: a state that enters a section steps through it at once
    on the globals of the sections it enters (the checker's macro steps), the others keep
    their steps; the states of sections and of `skip` (attempts) have none."""
    inner = frozenset().union(*sections)
    groups: dict[tuple[Local, tuple[int, ...]], list[Move]] = {}
    succ: dict[Local, set[Local]] = {}
    for m in moves:
        groups.setdefault((m.src, m.reads), []).append(m)
        succ.setdefault(m.src, set()).add(m.dst)
    reads, touched, writes = {}, {}, {}
    out: list[Move] = []
    for loc in t.reads:
        if loc in inner or loc in skip:
            continue
        if not succ.get(loc, set()) & inner:
            reads[loc], touched[loc], writes[loc] = t.reads[loc], t.touched[loc], t.writes[loc]
            out += [m for m in moves if m.src == loc]
            continue
        entered = [sec for sec in sections if succ[loc] & sec]
        names = tuple(sorted({*t.touched[loc], *(x for sec in entered for d in sec
                                                 for x in t.touched[d])}))
        budget -= _product(len(t.domains[x]) for x in names)
        if budget < 0:
            raise OverflowError("macro steps: too many (local state, valuation) pairs")
        reads[loc] = touched[loc] = names
        writes[loc] = frozenset()
        for vals in itertools.product(*(t.domains[x] for x in names)):
            out += _macro(t, loc, dict(zip(names, vals, strict=True)), groups, inner, names)
    return Table(t.domains, t.initial, t.entries, t.final, reads, touched, writes,
                 tuple(dict.fromkeys(out)), (), t.program, t.canonical, t.bounds)


def _macro(t: Table, start: Local, v0: dict[str, int], groups: dict[tuple[Local, tuple[int,
           ...]], list[Move]], inner: frozenset[Local], names: tuple[str, ...]) -> list[Move]:
    """Every run from `start` at `v0` through section states to a state outside them."""
    out, stack, seen = [], [(start, v0)], set()
    while stack:
        loc, v = stack.pop()
        for m in groups.get((loc, tuple(v[x] for x in t.reads[loc])), ()):
            w = {**v, **dict(zip(t.touched[loc], m.after, strict=True))}
            key = (m.dst, tuple(w[x] for x in names))
            if m.dst not in inner:
                out.append(Move(start, tuple(v0[x] for x in names), m.dst, key[1]))
            elif key not in seen:
                seen.add(key)
                stack.append((m.dst, w))
    return out


def _product(sizes: Iterable[int]) -> int:
    out = 1
    for n in sizes:
        out *= n
    return out

