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
        """Is `m` a right (left) mover with every step of another request?"""
        others = dict.fromkeys(u for x in self.t.touched[m.src] for u in self.by_global.get(x, ()))
        open_: list[z3.BoolRef] = []
        for u in others:
            a, b = (m, u) if right else (u, m)
            for v0 in self.failures(a, b):
                self.pairs += 1
                low: dict[Key, int] = {("local", *a.src): 1}
                low[("local", *b.src)] = low.get(("local", *b.src), 0) + 1
                if not refuted(self.inv, low, v0, self.t.domains):
                    s = self.solver
                    open_.append(z3.And(s.pre(a.src, 1, v0), s.pre(b.src, low[("local",
                                                                            *b.src)], {})))
        if not open_:
            return True
        if self._z3 is None:
            return False
        s = self._z3
        s.push()
        s.add(z3.Or(open_))
        r = self.solver.check(s)
        s.pop()
        return bool(r == z3.unsat)


def refuted(inv: list[Linear], low: dict[Key, int], fixed: Valuation,
            domains: dict[str, tuple[int, ...]]) -> bool:  # fmt: skip
    """Some conjunct is false on every configuration with the globals of `fixed` fixed,
    the others in their domains, and M(l) ≥ low[l] (else ≥ 0): interval arithmetic."""
    for c in inv:
        lo: int | None = c.const
        hi: int | None = c.const
        for key, k in c.coeffs:
            v = fixed.get(key[1]) if key[0] == "value" else None
            a: int
            b: int | None
            if key[0] != "value":
                a, b = low.get(key, 0), None
            elif v is not None:
                a, b = v, v
            else:
                a, b = min(domains[key[1]]), max(domains[key[1]])
            x, y = (a, b) if k > 0 else (b, a)
            lo = None if lo is None or x is None else lo + k * x
            hi = None if hi is None or y is None else hi + k * y
        above, below = lo is not None and lo > 0, hi is not None and hi < 0
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

