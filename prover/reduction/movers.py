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

import copy
import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import z3
else:  # loaded when a query is first made (prover/smt/z3_on_use.py)
    from prover.smt.z3_on_use import z3

from prover.reduction.invariant import Conjunct, Key, Linear, Solver, z3_and, z3_or
from prover.reduction.table import Local, Move, Table

Group = tuple[Local, tuple[int, ...]]  # a local state's steps at one valuation of its reads

Valuation = dict[str, int]

Pair = tuple[Move, Move]  # a step, then a step of another request

# Per local state meeting a state's steps: where the values it is indexed on sit in a step's
# values, and the index of its steps; and each such state's rank (Movers._plan).
Plan = tuple[list[tuple[tuple[int, ...], dict[tuple[int, ...], list[Move]]]], dict[Local, int]]


@dataclass(frozen=True)
class Used:
    """What a mover check that passed used: the linear conjuncts that refuted pairs by
    intervals, and the pre-configurations it asked z3 to exclude."""

    by_intervals: tuple[Linear, ...]
    asked: tuple[z3.BoolRef, ...]


@dataclass(frozen=True)
class Composite:
    """An attempt's replay and commit, as the layer above sees it: from the head, label N."""

    head: Local
    commit: Move
    footprint: frozenset[str]  # every global the attempt's states and its commit touch


# A pair that may not commute: the other step (None: a composite), the first's local state,
# the globals before, the other's local state, its requests there, whether a pair of steps.
Meeting = tuple[Move | None, Local, Valuation, Local, int, bool]


@dataclass(frozen=True)
class Prior:
    """The yes answers of a view's mover checks, with the pairs each met (`Movers.prior`),
    its invariant's conjuncts and its steps."""

    inv: frozenset[Conjunct]
    live: frozenset[Move]
    yes: dict[tuple[Move, bool], list[Meeting]]


class Swaps:
    """Which pairs of a table's steps swap: a table's pairs checked once, whatever view of
    its steps and whatever invariant asks (the prover's rounds ask the same pairs again)."""

    def __init__(self, t: Table) -> None:
        self.t = t
        self.outcomes: dict[tuple[Local, tuple[int, ...]], list[Move]] = {}
        for m in t.moves + t.escapes:
            self.outcomes.setdefault((m.src, m.reads), []).append(m)
        self.failed: dict[Pair, list[Valuation]] = {}
        self._writes: dict[Move, frozenset[str]] = {}
        self._pre: dict[Move, Valuation] = {}  # each step's reads and what it leaves, by name
        self._post: dict[Move, Valuation] = {}
        self._touched = {src: frozenset(xs) for src, xs in t.touched.items()}

    def writes(self, m: Move) -> frozenset[str]:
        got = self._writes.get(m)
        if got is None:
            got = self._writes[m] = _writes(self.t, m)
        return got

    def _before(self, m: Move) -> Valuation:
        got = self._pre.get(m)
        if got is None:
            got = self._pre[m] = dict(zip(self.t.reads[m.src], m.reads, strict=True))
        return got

    def _after(self, m: Move) -> Valuation:
        got = self._post.get(m)
        if got is None:
            got = self._post[m] = dict(zip(self.t.touched[m.src], m.after, strict=True))
        return got

    def _swapped(self, a: Move, b: Move, v0: Valuation, end: Valuation) -> bool:
        t = self.t
        for ob in self.outcomes.get((b.src, tuple(v0[x] for x in t.reads[b.src])), ()):
            if ob.dst != b.dst:
                continue
            v1 = {**v0, **self._after(ob)}
            for oa in self.outcomes.get((a.src, tuple(v1[x] for x in t.reads[a.src])), ()):
                if oa.dst == a.dst and {**v1, **self._after(oa)} == end:
                    return True
        return False

    def failures(self, a: Move, b: Move) -> list[Valuation]:
        """Pre-valuations where a then b runs but b then a does not end the same (made
        once per pair of the table: `failed`)."""
        got = self.failed.get((a, b))
        if got is None:
            got = self.failed[(a, b)] = self._failures(a, b)
        return got

    def _failures(self, a: Move, b: Move) -> list[Valuation]:
        t = self.t
        if not (self.writes(a) & self._touched[b.src] or self.writes(b) & self._touched[a.src]):
            return []
        before = self._before(a)
        pre = dict(before)
        post = self._after(a)
        free = []
        for x, v in zip(t.reads[b.src], b.reads, strict=True):
            if x in post:
                if post[x] != v:
                    return []
                if x not in before:
                    free.append(x)
            else:
                pre[x] = v
        bad = []
        post_b = self._after(b)
        for vals in itertools.product(*(t.domains[x] for x in free)):
            v0 = {**pre, **dict(zip(free, vals, strict=True))}
            end = {**v0, **post, **post_b}
            if not self._swapped(a, b, v0, end):
                bad.append(v0)
        return bad


class Movers:
    """The pair checks of one view of the steps and one invariant (caches the lookups they
    share): `t` has the view's footprints and transitions, `composites` the attempts',
    `zero` the local states nobody occupies between two transitions of the view.

    `swaps`: what the pairs of `t` do, which no view or invariant changes, so that the
    views of one table share it (the engine's rounds each have views of their own
    invariant). Each check is made once (`answers`), and `fork` shares them with another
    user of the same view, which keeps its own record of what its yes answers used.
    `prior`: the yes answers of a view of the same table, composites and `zero` under
    fewer conjuncts (the engine's round before)."""

    def __init__(self, t: Table, live: list[Move], inv: list[Conjunct], solver: Solver,
                 composites: tuple[Composite, ...] = (), zero: frozenset[Local] = frozenset(),
                 orig: Table | None = None, swaps: Swaps | None = None,
                 prior: Prior | None = None) -> None:  # fmt: skip
        self.t, self.live, self.inv, self.solver = t, live, inv, solver
        self.composites, self.orig = composites, orig or t
        self.swaps = Swaps(t) if swaps is None else swaps
        assert self.swaps.t is t
        self.answers: dict[tuple[Move, bool], Used | None] = {}
        self.by_global: dict[str, dict[Local, list[Move]]] = {}
        self.position = {m: i for i, m in enumerate(live)}
        for m in live:
            for x in t.touched[m.src]:
                self.by_global.setdefault(x, {}).setdefault(m.src, []).append(m)
        self._index: dict[tuple[Local, tuple[str, ...], bool],
                          dict[tuple[int, ...], list[Move]]] = {}  # fmt: skip
        self._plans: dict[tuple[Local, bool], Plan] = {}  # partners', per state and direction
        self._z3 = None if not inv else solver.solver(inv)
        self.zeros = [solver.atom(("local", *z)) == 0 for z in sorted(zero)]
        if self._z3 is not None:
            self._z3.add(*self.zeros)
        self.bounds = bounds(inv, t.domains, frozenset(("local", *z) for z in zero))
        self.pairs = 0
        self.used: dict[tuple[Move, bool], Used] = {}  # (step, right): what its yes used
        self.yes: dict[tuple[Move, bool], list[Meeting]] = {}  # the pairs of each yes
        # A yes under fewer conjuncts on more steps (and the same composites and empty
        # states: the caller's word) is a yes here.
        self._prior = prior if prior is not None and prior.inv <= frozenset(inv) \
            and prior.live >= frozenset(live) else None  # fmt: skip

    def fork(self) -> Movers:
        """The same checks (their answers and caches shared), with a record of its own of
        what its yes answers used."""
        out = copy.copy(self)
        out.used, out.pairs = {}, 0
        return out

    def mover(self, m: Move, right: bool) -> bool:
        """Is `m` a right (left) mover with every step of another request? Asked once
        (`answers`); a yes records what it used (`used`)."""
        key = (m, right)
        if key in self.answers:
            got = self.answers[key]
        else:
            got = self.answers[key] = self._check(m, right)
        if got is not None:
            self.used[key] = got
        return got is not None

    def _check(self, m: Move, right: bool) -> Used | None:
        """What `m`'s yes as a right (left) mover uses, or None for a no. The failing
        pairs the intervals leave are asked in chunks, so a step that is no mover is
        usually told after one query. A yes keeps its pairs (`yes`)."""
        if self._prior is not None and (m, right) in self._prior.yes:
            return self._again(m, right, self._prior.yes[(m, right)])
        open_: list[z3.BoolRef] = []
        asked: list[z3.BoolRef] = []
        chunk, by_intervals = 1, list[Linear]()
        met: list[Meeting] = []
        for meeting in self._meetings(m, right):
            met.append(meeting)
            _, src, v0, other, low, chunked = meeting
            self.pairs += 1
            near: dict[Key, int] = {("local", *src): 1, ("local", *other): low}
            c = refuter(self.bounds, near, v0)
            if c is not None:
                by_intervals.append(c)
                continue
            if self._z3 is None:
                return None
            s = self.solver
            open_.append(z3_and([s.pre(src, 1, v0), s.pre(other, low, {})], s.ctx))
            asked.append(open_[-1])
            if chunked and len(open_) >= chunk:
                if not self._excluded(open_):
                    return None
                chunk = min(4 * chunk, CHUNK)
        if not self._excluded(open_):
            return None
        self.yes[(m, right)] = met
        return Used(tuple(by_intervals), tuple(asked))

    def _again(self, m: Move, right: bool, met: list[Meeting]) -> Used | None:
        """`_check`'s answer from the pairs of a yes under a part of this invariant, on
        these steps or more (`prior`): a yes again, and z3 need not be asked, since every
        pair the intervals leave now, they left then too (a conjunct that refuted it is
        still here), and the invariant then excluded it. What it used is found as
        `_check` finds it (the intervals first, of this invariant)."""
        asked: list[z3.BoolRef] = []  # (an annotation: z3 loads on its first query)
        by_intervals, mine = list[Linear](), list[Meeting]()
        s = self.solver
        for meeting in met:
            u, src, v0, other, low, _ = meeting
            if u is not None and u not in self.position:
                continue  # a partner the invariant now shows dead
            mine.append(meeting)
            self.pairs += 1
            c = refuter(self.bounds, {("local", *src): 1, ("local", *other): low}, v0)
            if c is not None:
                by_intervals.append(c)
            elif self._z3 is None:
                return None
            else:
                asked.append(z3_and([s.pre(src, 1, v0), s.pre(other, low, {})], s.ctx))
        self.yes[(m, right)] = mine
        return Used(tuple(by_intervals), tuple(asked))

    def prior(self) -> Prior:
        """What a view of more conjuncts and fewer steps can take over: its yes answers."""
        return Prior(frozenset(self.inv), frozenset(self.live), self.yes)

    def _meetings(self, m: Move, right: bool) -> Iterator[Meeting]:
        """Where `m` and a step of another request (or an attempt's composite) may not
        commute, each as (the other step, None for a composite; the first's local state,
        the globals before, the other's local state, how many requests it needs there,
        whether it is a pair of steps)."""
        for u in self.partners(m, right):
            a, b = (m, u) if right else (u, m)
            for v0 in self.swaps.failures(a, b):
                yield u, a.src, v0, b.src, 1 + (a.src == b.src), True
        for c in self.composites:
            pre = self.meet(m, c, right)
            if pre is not None:
                yield None, m.src, pre, c.head, 1 + (m.src == c.head), False

    def partners(self, m: Move, right: bool) -> list[Move]:
        """The steps that touch a global `m` touches and can run right after it (right) or
        right before it: the second one reads, of what the first one touches, what the
        first leaves there (`failures` returns nothing for the others). Indexed per local
        state on those globals; in the order of `m`'s globals, then of `live`."""
        plan = self._plans.get((m.src, right))
        if plan is None:
            plan = self._plans[(m.src, right)] = self._plan(m.src, right)
        where, rank = plan
        vals = m.after if right else m.reads
        out: list[Move] = []
        for at, table in where:
            got = table.get(tuple([vals[i] for i in at]))
            if got:
                out += got
        position = self.position
        return sorted(out, key=lambda u: (rank[u.src], position[u]))

    def _plan(self, loc: Local, right: bool) -> Plan:
        """What `partners` needs of the steps of `loc` (made once per state and direction,
        not per step: an audit of a 16-account bank touches 32 globals and has hundreds
        of partners): per local state meeting it on a global, where the values that
        state's steps are indexed on sit in a step's values (its reads, or what it leaves:
        right), and the index; and each such state's rank, the first of `loc`'s globals
        it touches."""
        t = self.t
        near = {src: ms for x in t.touched[loc] for src, ms in self.by_global.get(x, {}).items()}
        mine = t.touched[loc] if right else t.reads[loc]
        where = []
        for src, ms in near.items():
            first, second = (loc, src) if right else (src, loc)
            xs = tuple(x for x in t.reads[second] if x in t.touched[first])
            if (key := (src, xs, right)) not in self._index:
                table = self._index[key] = {}
                for u in ms:
                    table.setdefault(self._on(u, xs, after=not right), []).append(u)
            where.append((tuple(mine.index(x) for x in xs), self._index[key]))
        order = {x: i for i, x in enumerate(t.touched[loc])}
        rank = {src: min(order.get(x, len(order)) for x in t.touched[src]) for src in near}
        return where, rank

    def _on(self, m: Move, xs: tuple[str, ...], after: bool) -> tuple[int, ...]:
        """`m`'s values on `xs`: those it reads, or those it leaves (after)."""
        t = self.t
        v = dict(zip(t.touched[m.src], m.after, strict=True) if after else
                 zip(t.reads[m.src], m.reads, strict=True))  # fmt: skip
        return tuple(v[x] for x in xs)

    def needs(self, labels: dict[Group, str]) -> tuple[list[Linear], list[z3.BoolRef]]:
        """What the mover checks of the steps labelled so used: the conjuncts that refuted
        pairs by intervals, and the pre-configurations the invariant must exclude (with
        the states of `zero` empty), as one formula (none: True)."""
        found: list[Linear] = []
        asked: list[z3.BoolRef] = []
        for (m, right), used in self.used.items():
            if labels.get((m.src, m.reads)) in (("R", "B") if right else ("L", "B")):
                found += used.by_intervals
                asked += used.asked
        return found, [z3.And(*self.zeros, z3.Or(asked))] if asked else []

    def meet(self, m: Move, c: Composite, first: bool) -> Valuation | None:
        """The globals before the pair, m then c's composite (or c's then m), when they may
        not commute (one writes what the other touches) and can meet; else None."""
        t, o = self.t, self.orig
        cw = _writes(o, c.commit)
        if not (_writes(t, m) & c.footprint or cw & set(t.touched[m.src])):
            return None
        (fa, a), (fb, b) = ((t, m), (o, c.commit)) if first else ((o, c.commit), (t, m))
        pre = dict(zip(fa.reads[a.src], a.reads, strict=True))
        post = dict(zip(fa.touched[a.src], a.after, strict=True))
        for x, v in zip(fb.reads[b.src], b.reads, strict=True):
            if x in post:
                if post[x] != v:
                    return None
            elif pre.setdefault(x, v) != v:
                return None
        return pre

    def _excluded(self, open_: list[z3.BoolRef]) -> bool:
        """Does the invariant exclude every pre-configuration of `open_` (then emptied)?"""
        if not open_:
            return True
        s = self._z3
        assert s is not None
        s.push()  # the assertion through the C API: z3py's add coerces what it is given
        z3.Z3_solver_assert(s.ctx.ref(), s.solver, z3_or(open_, s.ctx).as_ast())
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
    source: Linear  # the conjunct


def _writes(t: Table, m: Move) -> frozenset[str]:
    before = dict(zip(t.reads[m.src], m.reads, strict=True))
    return frozenset(x for x, v in zip(t.touched[m.src], m.after, strict=True)
                     if before.get(x) != v or x in t.writes[m.src])  # fmt: skip


def bounds(inv: list[Conjunct], domains: dict[str, tuple[int, ...]],
           zero: frozenset[Key] = frozenset()) -> list[Bounds]:  # fmt: skip
    """The linear conjuncts prepared for `refuted`; the counters in `zero` are 0."""
    out = []
    for c in inv:
        if not isinstance(c, Linear):
            continue
        counters = {k: n for k, n in c.coeffs if k[0] != "value" and k not in zero}
        values = tuple((k[1], n, domains[k[1]][0], domains[k[1]][-1])
                       for k, n in c.coeffs if k[0] == "value")  # fmt: skip
        out.append(Bounds(c.op, c.const, values, counters, any(n > 0 for n in counters.values()),
                          any(n < 0 for n in counters.values()), c))
    return out


def refuted(inv: list[Bounds], low: dict[Key, int], fixed: Valuation) -> bool:
    """Some conjunct is false on every configuration with the globals of `fixed` fixed,
    the others in their domains, and M(l) ≥ low[l] (else ≥ 0): interval arithmetic."""
    return refuter(inv, low, fixed) is not None


def refuter(inv: list[Bounds], low: dict[Key, int], fixed: Valuation) -> Linear | None:
    """The first conjunct that `refuted` finds false there, or None."""
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
            return c.source
    return None


def co_reachable(t: Table, live: list[Move],
                 more: list[tuple[Local, Local]] = []) -> set[Local]:  # noqa: B006
    """Local states from which an answer can be reached (`more`: edges besides `live`)."""
    back: dict[Local, set[Local]] = {}
    for src, dst in [*((m.src, m.dst) for m in live), *more]:
        back.setdefault(dst, set()).add(src)
    co, todo = set(t.final), list(t.final)
    while todo:
        for p in back.get(todo.pop(), ()):
            if p not in co:
                co.add(p)
                todo.append(p)
    return co



class Phase1:
    """Puts states in phase 1 (`phase1`), with what their steps (`succ`) reach among the
    states `within` admits, and asks the steps of each state that joins whether they are
    left movers, as phase 1 requires (`least_labels` then finds the answers made)."""

    def __init__(self, groups: dict[Group, list[Move]], succ: dict[Local, list[Local]],
                 phase1: set[Local], movers: Movers, within: Callable[[Local], bool]
                 ) -> None:  # fmt: skip
        self.groups, self.succ, self.phase1, self.movers = groups, succ, phase1, movers
        self.within = within
        self.by_state: dict[Local, list[Group]] = {}
        for g in groups:
            self.by_state.setdefault(g[0], []).append(g)

    def __call__(self, todo: list[Local]) -> Group | None:
        """Adds `todo` and what it reaches; the first group met whose steps are not all
        left movers (then phase 1 may lack states), or None."""
        phase1, mover = self.phase1, self.movers.mover
        while todo:
            loc = todo.pop()
            if loc in phase1 or not self.within(loc):
                continue
            phase1.add(loc)
            todo.extend(self.succ.get(loc, ()))
            for g in self.by_state.get(loc, ()):
                if not all(mover(m, False) for m in self.groups[g]):
                    return g
        return None


def least_labels(groups: dict[Group, list[Move]], phase1: set[Local], right: dict[Group, bool],
                 movers: Movers) -> dict[Group, str] | Group:
    """The labels of the least phases: in phase 0, R for a right mover, else N (a commit);
    in phase 1, L; or the first group of phase 1 whose steps are not all left movers."""
    labels: dict[Group, str] = {}
    for g, ms in groups.items():
        if g[0] not in phase1:
            labels[g] = "R" if right[g] else "N"
        elif all(movers.mover(m, False) for m in ms):
            labels[g] = "L"
        else:
            return g
    return labels
