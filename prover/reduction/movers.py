"""Which transitions are right or left movers under the invariant.

A transition t is a right mover when, for every step u of another request, wherever t
then u can run from a configuration of the invariant, u then a step of t's local state
can run from the same configuration and end in the same local states and globals; a left
mover the same with u before t. Pairs whose footprints do not conflict commute; the
others are evaluated on the joint valuations of what they read, and each pre-valuation
where the swap fails must be excluded by the invariant: by interval reasoning on its
linear conjuncts when that suffices, else by one z3 query per transition and direction.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import z3

from prover.reduction.invariant import Key, Linear, Solver
from prover.reduction.table import Local, Move, Table

Valuation = dict[str, int]


class Movers:
    """The pair checks of one table and invariant (caches the lookups they share)."""

    def __init__(self, t: Table, live: list[Move], inv: list[Linear], solver: Solver) -> None:
        self.t, self.live, self.inv, self.solver = t, live, inv, solver
        self.outcomes: dict[tuple[Local, tuple[int, ...]], list[Move]] = {}
        for m in t.moves + t.escapes:
            self.outcomes.setdefault((m.src, m.reads), []).append(m)
        self.by_global: dict[str, list[Move]] = {}
        self.writes: dict[Move, frozenset[str]] = {}
        for m in live:
            before = dict(zip(t.reads[m.src], m.reads, strict=True))
            self.writes[m] = frozenset(x for x, v in zip(t.touched[m.src], m.after, strict=True)
                                       if before.get(x) != v or x in t.writes[m.src])  # fmt: skip
            for x in t.touched[m.src]:
                self.by_global.setdefault(x, []).append(m)
        self._z3 = None if not inv else solver.solver(inv)
        self.bounds = bounds(inv, t.domains)
        self.pairs = 0

    def _swapped(self, a: Move, b: Move, v0: Valuation, end: Valuation) -> bool:
        t = self.t
        for ob in self.outcomes.get((b.src, tuple(v0[x] for x in t.reads[b.src])), ()):
            if ob.dst != b.dst:
                continue
            v1 = {**v0, **dict(zip(t.touched[b.src], ob.after, strict=True))}
            for oa in self.outcomes.get((a.src, tuple(v1[x] for x in t.reads[a.src])), ()):
                if oa.dst == a.dst and {**v1, **dict(zip(t.touched[a.src], oa.after,
                                                         strict=True))} == end:  # fmt: skip
                    return True
        return False

    def failures(self, a: Move, b: Move) -> list[Valuation]:
        """Pre-valuations where a then b runs but b then a does not end the same."""
        t = self.t
        if not (self.writes[a] & set(t.touched[b.src]) or self.writes[b] & set(t.touched[a.src])):
            return []
        pre = dict(zip(t.reads[a.src], a.reads, strict=True))
        post = dict(zip(t.touched[a.src], a.after, strict=True))
        free = []
        for x, v in zip(t.reads[b.src], b.reads, strict=True):
            if x in post and post[x] != v:
                return []
            if x in post and x not in pre:
                free.append(x)
            elif x not in post:
                pre[x] = v
        bad = []
        for vals in itertools.product(*(t.domains[x] for x in free)):
            v0 = {**pre, **dict(zip(free, vals, strict=True))}
            end = {**v0, **post, **dict(zip(t.touched[b.src], b.after, strict=True))}
            if not self._swapped(a, b, v0, end):
                bad.append(v0)
        return bad

    def mover(self, m: Move, right: bool) -> bool:
        """Is `m` a right (left) mover with every step of another request? The failing
        pairs the intervals leave are asked in chunks, so a step that is no mover is
        usually told after one query."""
        others = dict.fromkeys(u for x in self.t.touched[m.src] for u in self.by_global.get(x, ()))
        open_: list[z3.BoolRef] = []
        chunk = 1
        for u in others:
            a, b = (m, u) if right else (u, m)
            for v0 in self.failures(a, b):
                self.pairs += 1
                low: dict[Key, int] = {("local", *a.src): 1}
                low[("local", *b.src)] = low.get(("local", *b.src), 0) + 1
                if not refuted(self.bounds, low, v0):
                    if self._z3 is None:
                        return False
                    s = self.solver
                    open_.append(z3.And(s.pre(a.src, 1, v0), s.pre(b.src, low[("local",
                                                                            *b.src)], {})))
                    if len(open_) >= chunk:
                        if not self._excluded(open_):
                            return False
                        chunk = min(4 * chunk, CHUNK)
        return self._excluded(open_)

    def _excluded(self, open_: list[z3.BoolRef]) -> bool:
        """Does the invariant exclude every pre-configuration of `open_` (then emptied)?"""
        if not open_:
            return True
        s = self._z3
        assert s is not None
        s.push()
        s.add(z3.Or(open_))
        r = self.solver.check(s)
        s.pop()
        open_.clear()
        return bool(r == z3.unsat)


CHUNK = 64  # failing pre-configurations asked at once, at most (1, 4, 16 first)


@dataclass(frozen=True)
class Bounds:
    """A linear conjunct prepared for interval reasoning: its globals' terms, and its
    counters' terms (a counter is ≥ 0, unbounded above)."""

    op: str
    const: int
    values: tuple[tuple[str, int, int, int], ...]  # (global, coefficient, min, max)
    counters: dict[Key, int]
    up: bool  # some counter with a positive coefficient: no upper bound
    down: bool  # some counter with a negative coefficient: no lower bound


def bounds(inv: list[Linear], domains: dict[str, tuple[int, ...]]) -> list[Bounds]:
    out = []
    for c in inv:
        counters = {k: n for k, n in c.coeffs if k[0] != "value"}
        values = tuple((k[1], n, domains[k[1]][0], domains[k[1]][-1])
                       for k, n in c.coeffs if k[0] == "value")  # fmt: skip
        out.append(Bounds(c.op, c.const, values, counters, any(n > 0 for n in counters.values()),
                          any(n < 0 for n in counters.values())))
    return out


def refuted(inv: list[Bounds], low: dict[Key, int], fixed: Valuation) -> bool:
    """Some conjunct is false on every configuration with the globals of `fixed` fixed,
    the others in their domains, and M(l) ≥ low[l] (else ≥ 0): interval arithmetic."""
    for c in inv:
        lo = hi = c.const
        for x, n, least, most in c.values:
            v = fixed.get(x)
            a, b = (v, v) if v is not None else (least, most)
            lo += n * (a if n > 0 else b)
            hi += n * (b if n > 0 else a)
        for key, k in low.items():
            n = c.counters.get(key, 0)
            lo += n * k if n > 0 else 0
            hi += n * k if n < 0 else 0
        above, below = not c.down and lo > 0, not c.up and hi < 0
        if above or below if c.op == "=" else above if c.op == "<=" else below:
            return True
    return False


def co_reachable(t: Table, live: list[Move]) -> set[Local]:
    """Local states from which an answer can be reached."""
    back: dict[Local, set[Local]] = {}
    for m in live:
        back.setdefault(m.dst, set()).add(m.src)
    co, todo = set(t.final), list(t.final)
    while todo:
        for p in back.get(todo.pop(), ()):
            if p not in co:
                co.add(p)
                todo.append(p)
    return co

