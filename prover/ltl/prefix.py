"""A finite complete prefix of the unfolding of a safe net whose places are (variable,
value) pairs, one token per variable (the PDNet of prover/ltl/pdnet.py, or its product
with a Büchi automaton, prover/ltl/product.py).

The construction is Esparza, Römer and Vogler's: possible extensions are added smallest
first in their total adequate order (size of the local configuration, then Parikh
vector, then Foata levels); an event whose local configuration reaches a marking that a
strictly smaller one (or the empty one) reaches is a cut-off, and nothing is appended
after it. Every reachable marking is then the marking of a configuration of the prefix
without cut-offs. Clients read the prefix (conditions, co-relation, local
configurations) and search its co-sets.

A transition has a *primary* place, `pre[0]`, by which the net lists it (a request slot,
or the automaton); it may also *read* variables whatever their value (it consumes and
puts back their token), under a guard the net evaluates once the values are chosen.
With `merge`, an event is a cut-off when an event below it (or the empty configuration)
reaches the same marking, and when a smaller one elsewhere does only if `merge(event,
companion)` allows it. The prefix stays finite (markings are finitely many, so every long
enough chain of events repeats one below itself), and a repetition along a run's own
history is never cut in two by a companion on another branch that `merge` refuses.
`budget` bounds events plus search steps: a deterministic unit of work. The
co-relation takes memory quadratic in the conditions: past MAX_CONDITIONS the prefix is
given up on as well (about 450 MB of bit sets), deterministically.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

MAX_CONDITIONS = 60_000

Place = tuple[int, object]  # (variable, value)
Parikh = tuple[tuple[int, int], ...]  # (-rank, count) per transition in the multiset, by rank
Order = tuple[int, Parikh, tuple[Parikh, ...]]  # ERV's: size, Parikh vector, Foata levels
R = TypeVar("R")


class Transition(Protocol):
    @property
    def pre(self) -> tuple[Place, ...]: ...

    @property
    def post(self) -> tuple[Place, ...]: ...

    @property
    def reads(self) -> tuple[int, ...]: ...


T = TypeVar("T", bound=Transition)


class Net(Protocol[T]):
    @property
    def initial(self) -> tuple[Place, ...]: ...  # one place per variable, variable i at i

    def primary(self, var: int) -> bool: ...

    def transitions(self, place: Place) -> Sequence[T]: ...  # those whose pre[0] is `place`

    def allows(self, t: T, read: tuple[Place, ...]) -> bool: ...


class OutOfBudget(Exception):
    """`args[0]`: which bound, "work" or "conditions"."""


@dataclass(frozen=True)
class Added:
    event: int
    new: tuple[int, ...]  # the conditions it produced
    cutoff: bool
    key: tuple[object, ...]  # its local configuration's marking


def bits(x: int) -> Iterator[int]:
    while x:
        low = x & -x
        yield low.bit_length() - 1
        x ^= low


def _parikh(ranks: list[int]) -> Parikh:
    """A key under which multisets of ranks compare as ERV's ≪: at the smallest rank
    where the counts differ, the one with fewer is smaller."""
    counts: dict[int, int] = {}
    for r in ranks:
        counts[r] = counts.get(r, 0) + 1
    return tuple((-r, n) for r, n in sorted(counts.items()))


class Prefix(Generic[T]):
    """The prefix, grown one event at a time by `add` in the adequate order (None once it
    is complete), or by `create` in any order a client chooses (the exploration tree,
    prover/ltl/tree.py); either way an event is a cut-off as above, by the events
    known when it is made."""

    def __init__(self, net: Net[T], budget: int,
                 merge: Callable[[int, int], bool] | None = None) -> None:
        self.net, self.budget, self.work = net, budget, 0
        self.merge = merge
        self.place: list[Place] = []  # per condition
        self.maker: list[int] = []  # per condition: the event that produced it, or -1
        self.co: list[int] = []  # per condition: the conditions concurrent with it
        self.by_place: dict[Place, int] = {}
        self.by_var: dict[int, int] = {}
        self.primaries = 0  # the conditions of primary variables
        self.dead = 0  # conditions produced by cut-off events
        self.trans: list[T] = []  # per event
        self.pre: list[tuple[int, ...]] = []  # per event: its preset, reads last
        self.below: list[int] = []  # per event: its local configuration
        self.cut: list[tuple[int, ...]] = []  # per event: the condition of each variable
        self.depth: list[int] = []  # per event: its level in the Foata normal form
        self.rank: list[int] = []  # per event: its transition's rank
        self.order: list[Order] = []  # per event: its place in the adequate order
        self.cutoff: list[bool] = []  # per event
        self.known: dict[tuple[T, tuple[int, ...]], int] = {}  # (transition, preset) -> event
        self.made: list[tuple[int, ...]] = []  # per event: the conditions it produced
        self.cutoffs = 0
        self.at: dict[tuple[object, ...], list[int]] = {}  # marking -> events (-1: none)
        self._kinds: dict[tuple[T, tuple[Place, ...]], int] = {}
        self._queue: list[tuple[Order, int, T, tuple[int, ...], int]] = []
        self._queued: set[tuple[T, tuple[int, ...]]] = set()
        self._marks: dict[tuple[object, ...], Order] = {}
        start = [self._condition(pl, -1) for pl in net.initial]
        for c in start:
            self.co[c] = sum(1 << d for d in start if d != c)
        self.cut0 = tuple(start)
        key = self.marking(self.cut0)
        self._marks[key] = (0, (), ())
        self.at[key] = [-1]
        self._started = False

    # ------------------------------------------------------------------ growing

    def spend(self) -> None:
        self.work += 1
        if self.work > self.budget:
            raise OutOfBudget("work")

    def add(self) -> Added | None:
        """The next event in the adequate order, with its extensions queued unless it
        is a cut-off; None when the prefix is complete."""
        if not self._started:
            self._started = True
            for c in self.cut0:
                self._extensions(c)
        if not self._queue:
            return None
        order, _, t, pre, _ = heapq.heappop(self._queue)
        added = self.create(t, pre, order)
        if not added.cutoff:
            for c in added.new:
                self._extensions(c)
        return added

    def create(self, t: T, pre: tuple[int, ...], order: Order | None = None) -> Added:
        """The event of `t` at the conditions `pre` (its preset, reads last), made if it
        is new; its extensions are not looked for."""
        e = self.known.get((t, pre))
        if e is not None:
            return Added(e, self.made[e], self.cutoff[e], self.marking(self.cut[e]))
        self.spend()
        below = self.config(pre)
        if order is None:
            order = self._order(t, pre, below)
        e, new = self._event(t, pre, below)
        self.known[(t, pre)] = e
        self.made.append(tuple(new))
        self.order.append(order)
        key = self.marking(self.cut[e])
        if self.merge is None:
            cutoff = self._marks.get(key, order) < order
            if order < self._marks.get(key, order) or key not in self._marks:
                self._marks[key] = order
        else:
            cutoff = self._companion(e, key)
        self.cutoff.append(cutoff)
        if cutoff:
            self.cutoffs += 1
            self.dead |= sum(1 << c for c in new)
        else:
            self.at.setdefault(key, []).append(e)
        return Added(e, tuple(new), cutoff, key)

    def _companion(self, e: int, key: tuple[object, ...]) -> bool:
        assert self.merge is not None
        return any(x < 0 or x != e and self.below[e] >> x & 1
                   or self.order[x] < self.order[e] and self.merge(e, x)
                   for x in self.at.get(key, ()))

    def _condition(self, place: Place, maker: int) -> int:
        c = len(self.place)
        if c >= MAX_CONDITIONS:
            raise OutOfBudget("conditions")
        self.place.append(place)
        self.maker.append(maker)
        self.co.append(0)
        self.by_place[place] = self.by_place.get(place, 0) | 1 << c
        self.by_var[place[0]] = self.by_var.get(place[0], 0) | 1 << c
        if self.net.primary(place[0]):
            self.primaries |= 1 << c
        return c

    def marking(self, cut: Sequence[int]) -> tuple[object, ...]:
        return tuple(self.place[c][1] for c in cut)

    def post_places(self, e: int) -> tuple[Place, ...]:
        t = self.trans[e]
        return t.post + tuple(self.place[c] for c in self.pre[e][len(t.pre):])

    def _event(self, t: T, pre: tuple[int, ...], below: int) -> tuple[int, list[int]]:
        e = len(self.trans)
        self.trans.append(t)
        self.pre.append(pre)
        self.rank.append(self._rank(t, pre))
        self.depth.append(1 + max((self.depth[self.maker[b]] for b in pre
                                   if self.maker[b] >= 0), default=0))
        self.below.append(below | 1 << e)
        cut = list(self.cut0)
        for b in pre:
            m = self.maker[b]
            if m >= 0:
                cut = [max(x, y) for x, y in zip(cut, self.cut[m], strict=True)]
        together = -1
        for b in pre:
            together &= self.co[b]
        post = self.post_places(e)
        new = [self._condition(pl, e) for pl in post]
        mine = sum(1 << c for c in new)
        for c, pl in zip(new, post, strict=True):
            cut[pl[0]] = c
            self.co[c] = together | (mine & ~(1 << c))
        for d in bits(together):
            self.co[d] |= mine
        self.cut.append(tuple(cut))
        return e, new

    def _extensions(self, c: int) -> None:
        """Queue every event whose preset holds condition `c`."""
        place = self.place[c]
        if self.net.primary(place[0]):
            for t in self.net.transitions(place):
                self._complete(t, {0: c}, self.co[c])
        for s in bits(self.primaries & self.co[c] & ~self.dead):
            for t in self.net.transitions(self.place[s]):
                if place in t.pre:
                    j = t.pre.index(place)
                elif place[0] in t.reads:
                    j = len(t.pre) + t.reads.index(place[0])
                else:
                    continue
                self._complete(t, {0: s, j: c}, self.co[c] & self.co[s])

    def _complete(self, t: T, fixed: dict[int, int], allowed: int) -> None:
        n = len(t.pre) + len(t.reads)
        chosen: list[int] = []

        def pick(j: int, allowed: int) -> None:
            if j == n:
                read = tuple(self.place[c] for c in chosen[len(t.pre):])
                if self.net.allows(t, read):
                    self._queue_event(t, tuple(chosen))
                return
            if j in fixed:
                chosen.append(fixed[j])
                pick(j + 1, allowed)
                chosen.pop()
                return
            pool = self.by_place.get(t.pre[j], 0) if j < len(t.pre) \
                else self.by_var.get(t.reads[j - len(t.pre)], 0)
            for b in bits(pool & allowed & ~self.dead):
                self.spend()
                chosen.append(b)
                pick(j + 1, allowed & self.co[b])
                chosen.pop()

        pick(0, allowed)

    def _queue_event(self, t: T, pre: tuple[int, ...]) -> None:
        if (t, pre) in self._queued:
            return
        self._queued.add((t, pre))
        below = 0
        for b in pre:
            if self.maker[b] >= 0:
                below |= self.below[self.maker[b]]
        heapq.heappush(self._queue, (self._order(t, pre, below), len(self._queued), t, pre,
                                     below))

    def _order(self, t: T, pre: tuple[int, ...], below: int) -> Order:
        """The place in ERV's total adequate order of the local configuration of the
        event `t` at `pre` (`below`: the rest of it)."""
        levels: dict[int, list[int]] = {}
        for e in bits(below):
            levels.setdefault(self.depth[e], []).append(self.rank[e])
        top = 1 + max((self.depth[self.maker[b]] for b in pre if self.maker[b] >= 0), default=0)
        levels.setdefault(top, []).append(self._rank(t, pre))
        every = [r for d in sorted(levels) for r in levels[d]]
        return (len(every), _parikh(every), tuple(_parikh(levels[d]) for d in sorted(levels)))

    def _rank(self, t: T, pre: tuple[int, ...]) -> int:
        """A fixed total order of the transitions (with what they read): first seen first."""
        key = (t, tuple(self.place[c] for c in pre[len(t.pre):]))
        return self._kinds.setdefault(key, len(self._kinds))

    # ------------------------------------------------------------------ reading

    def cosets(self, variables: Sequence[int], fixed: dict[int, int], allowed: int,
               leaf: Callable[[dict[int, int], int], R | None],
               only: Callable[[int, int], bool] | None = None) -> R | None:
        """Extend `fixed` (variable -> condition) over `variables` with conditions in
        `allowed`, pairwise concurrent (`only(var, condition)`: may it be chosen); the
        first non-None answer of `leaf(chosen, still allowed)`."""
        chosen = dict(fixed)

        def extend(j: int, allowed: int) -> R | None:
            if j == len(variables):
                return leaf(chosen, allowed)
            v = variables[j]
            if v in fixed:
                return extend(j + 1, allowed)
            for b in bits(self.by_var.get(v, 0) & allowed):
                self.spend()
                if only is not None and not only(v, b):
                    continue
                chosen[v] = b
                found = extend(j + 1, allowed & self.co[b])
                if found is not None:
                    return found
            chosen.pop(v, None)
            return None

        return extend(0, allowed)

    def everything(self) -> int:
        """Every condition (as a set)."""
        return (1 << len(self.place)) - 1

    def config(self, conditions: Sequence[int]) -> int:
        """The events below these conditions (a configuration, as a set)."""
        below = 0
        for c in conditions:
            if self.maker[c] >= 0:
                below |= self.below[self.maker[c]]
        return below

    def run(self, events: int) -> tuple[T, ...]:
        """The transitions of a set of events, causes first (the order they were added)."""
        return tuple(self.trans[e] for e in bits(events))
