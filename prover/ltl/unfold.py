"""Safety properties `G p` (p a state formula) with at most K requests, decided on an
unfolding of the PDNet (prover/ltl/pdnet.py) instead of its interleavings.

The unfolding is built as in Esparza, Römer and Vogler's algorithm, with McMillan's
adequate order (the size of an event's local configuration): events are added smallest
first; an event whose local configuration reaches a marking that a strictly smaller one
(or the empty one) reaches is a cut-off, and nothing is appended after it. The prefix
is then complete: every reachable marking is the cut of one of its configurations. Each
partial-order run is one configuration; interleavings of concurrent steps are never
enumerated.

p fails somewhere iff some set of pairwise concurrent conditions (a co-set; every co-set
lies in a reachable cut) assigns the variables p reads values where p is false. The
co-sets are searched as conditions appear, each containing the newest. A violation's run
is the configuration below such a co-set, in the order its events were added (causes
first). `budget` bounds events plus co-set search nodes: a deterministic unit of work.
The concurrency relation takes memory quadratic in the conditions: past MAX_CONDITIONS
the prefix is given up on as well (about 450 MB of bit sets), deterministically.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from prover.ltl.formula import Formula
from prover.ltl.lasso import Observation, holds
from prover.ltl.pdnet import PDNet, Place, Step
from prover.ltl.reduce import visible

MAX_CONDITIONS = 60_000


@dataclass(frozen=True)
class Unfolded:
    verdict: str  # "holds" | "violated" | "undecided"
    events: int  # events of the prefix, cut-offs included
    cutoffs: int
    conditions: int
    run: tuple[Step, ...] = ()  # violated: steps of a run to a state where p is false
    limit: str = ""  # undecided: "work" or "conditions"


def unfold_safety(net: PDNet, p: Formula, budget: int,
                  progress: Callable[[str], None] | None = None) -> Unfolded:
    """Decide `G p` on `net`; `p` has no temporal operator (`progress`: told the events
    so far every 1,000)."""
    return _Unfolding(net, p, budget, progress).decide()


Parikh = tuple[tuple[int, int], ...]  # (-rank, count) per step in the multiset, by rank
Order = tuple[int, Parikh, tuple[Parikh, ...]]  # ERV's: size, Parikh vector, Foata levels


def _parikh(ranks: list[int]) -> Parikh:
    """A key under which multisets of ranks compare as ERV's ≪: at the smallest rank
    where the counts differ, the one with fewer is smaller."""
    counts: dict[int, int] = {}
    for r in ranks:
        counts[r] = counts.get(r, 0) + 1
    return tuple((-r, n) for r, n in sorted(counts.items()))


def _bits(x: int) -> Iterator[int]:
    while x:
        low = x & -x
        yield low.bit_length() - 1
        x ^= low


class _OutOfBudget(Exception):
    """`args[0]`: which bound, "work" or "conditions"."""


class _Unfolding:
    def __init__(self, net: PDNet, p: Formula, budget: int,
                 progress: Callable[[str], None] | None) -> None:
        self.net, self.p, self.budget, self.work = net, p, budget, 0
        self.progress = progress
        self.place: list[Place] = []  # per condition
        self.maker: list[int] = []  # per condition: the event that produced it, or -1
        self.co: list[int] = []  # per condition: the conditions concurrent with it
        self.seen: list[object] = []  # per condition: what the atoms see of it
        self.by_place: dict[Place, int] = {}
        self.by_var: dict[int, int] = {}
        self.slot_conditions = 0  # the conditions of every slot variable
        self.dead = 0  # conditions produced by cut-off events
        self.steps: list[Step] = []  # per event
        self.below: list[int] = []  # per event: its local configuration
        self.cut: list[tuple[int, ...]] = []  # per event: the condition of each variable
        self.cut0: tuple[int, ...] = ()  # the initial conditions, one per variable
        self.cutoffs = 0
        self.queue: list[tuple[Order, int, Step, tuple[int, ...], int]] = []
        self.kinds: dict[Step, int] = {}  # a step -> its rank
        self.rank: list[int] = []  # per event: its step's rank
        self.depth: list[int] = []  # per event: its level in the Foata normal form
        self.queued: set[tuple[Step, tuple[int, ...]]] = set()
        self.marks: dict[tuple[object, ...], Order] = {}
        self.truth: dict[tuple[object, ...], bool] = {}  # p on a view of the watched
        globs, reqs = visible(p)
        slots = [net.slot_var(i) for i in range(net.k)] if reqs else []
        self.watched = [i for i, n in enumerate(net.names) if n in globs] + slots

    def _spend(self) -> None:
        self.work += 1
        if self.work > self.budget:
            raise _OutOfBudget("work")

    def decide(self) -> Unfolded:
        try:
            return self._decide()
        except _OutOfBudget as exc:
            return self._result("undecided", limit=str(exc.args[0]))

    def _result(self, verdict: str, run: tuple[Step, ...] = (), limit: str = "") -> Unfolded:
        return Unfolded(verdict, len(self.steps), self.cutoffs, len(self.place), run, limit)

    def _decide(self) -> Unfolded:
        net = self.net
        start = [self._condition(pl, -1) for pl in net.initial]
        for c in start:
            self.co[c] = sum(1 << d for d in start if d != c)
        self.cut0 = tuple(start)
        self.marks[self._marking(self.cut0)] = (0, (), ())
        bad = self._search({}, sum(1 << c for c in start))
        if bad is not None:
            return self._result("violated", bad)
        for c in start:
            self._extensions(c)
        while self.queue:
            order, _, step, pre, below = heapq.heappop(self.queue)
            self._spend()
            e, new = self._event(step, pre, below)
            if self.progress is not None and e % 1000 == 999:
                self.progress(f"{e + 1:,} events, {self.cutoffs:,} cut-offs")
            key = self._marking(self.cut[e])
            cutoff = self.marks.get(key, order) < order
            self.marks.setdefault(key, order)
            for c in new:
                bad = self._violation(c)
                if bad is not None:
                    return self._result("violated", bad)
            if cutoff:
                self.cutoffs += 1
                self.dead |= sum(1 << c for c in new)
                continue
            for c in new:
                self._extensions(c)
        return self._result("holds")

    def _condition(self, place: Place, maker: int) -> int:
        c = len(self.place)
        if c >= MAX_CONDITIONS:
            raise _OutOfBudget("conditions")
        self.place.append(place)
        self.maker.append(maker)
        self.co.append(0)
        self.seen.append(self._view(place))
        self.by_place[place] = self.by_place.get(place, 0) | 1 << c
        self.by_var[place[0]] = self.by_var.get(place[0], 0) | 1 << c
        if self.net.width <= place[0] < self.net.width + self.net.k:
            self.slot_conditions |= 1 << c
        return c

    def _marking(self, cut: tuple[int, ...]) -> tuple[object, ...]:
        return tuple(self.place[c][1] for c in cut)

    def _event(self, step: Step, pre: tuple[int, ...], below: int) -> tuple[int, list[int]]:
        e = len(self.steps)
        self.steps.append(step)
        self.rank.append(self._rank(step))
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
        new = [self._condition(pl, e) for pl in step.post]
        mine = sum(1 << c for c in new)
        for c, pl in zip(new, step.post, strict=True):
            cut[pl[0]] = c
            self.co[c] = together | (mine & ~(1 << c))
        for d in _bits(together):
            self.co[d] |= mine
        self.cut.append(tuple(cut))
        return e, new

    def _extensions(self, c: int) -> None:
        """Queue every event whose preset holds condition `c` (not after a cut-off)."""
        var = self.place[c][0]
        if self.net.width <= var < self.net.width + self.net.k:
            for step in self.net.steps_of(self.place[c]):
                self._complete(step, {0: c}, self.co[c])
            return
        # a step holds exactly one slot place: look among the slot conditions
        for s in _bits(self.slot_conditions & self.co[c] & ~self.dead):
            for step in self.net.steps_of(self.place[s]):
                if self.place[c] in step.pre:
                    self._complete(step, {0: s, step.pre.index(self.place[c]): c},
                                   self.co[c] & self.co[s])

    def _complete(self, step: Step, fixed: dict[int, int], allowed: int) -> None:
        chosen: list[int] = []

        def pick(j: int, allowed: int) -> None:
            if j == len(step.pre):
                self._queue(step, tuple(chosen))
                return
            if j in fixed:
                chosen.append(fixed[j])
                pick(j + 1, allowed)
                chosen.pop()
                return
            for b in _bits(self.by_place.get(step.pre[j], 0) & allowed & ~self.dead):
                self._spend()
                chosen.append(b)
                pick(j + 1, allowed & self.co[b])
                chosen.pop()

        pick(0, allowed)

    def _queue(self, step: Step, pre: tuple[int, ...]) -> None:
        if (step, pre) in self.queued:
            return
        self.queued.add((step, pre))
        below = 0
        for b in pre:
            if self.maker[b] >= 0:
                below |= self.below[self.maker[b]]
        heapq.heappush(self.queue, (self._order(step, pre, below), len(self.queued), step, pre,
                                    below))

    def _order(self, step: Step, pre: tuple[int, ...], below: int) -> Order:
        """The place in ERV's total adequate order of the local configuration of the
        event `step` at `pre` (`below`: the rest of it)."""
        levels: dict[int, list[int]] = {}
        for e in _bits(below):
            levels.setdefault(self.depth[e], []).append(self.rank[e])
        top = 1 + max((self.depth[self.maker[b]] for b in pre if self.maker[b] >= 0), default=0)
        levels.setdefault(top, []).append(self._rank(step))
        every = [r for d in sorted(levels) for r in levels[d]]
        return (len(every), _parikh(every), tuple(_parikh(levels[d]) for d in sorted(levels)))

    def _rank(self, step: Step) -> int:
        """A fixed total order of the steps: the first seen first."""
        return self.kinds.setdefault(step, len(self.kinds))

    def _violation(self, c: int) -> tuple[Step, ...] | None:
        """The run of a co-set holding `c` where p is false, if there is one."""
        if self.place[c][0] not in self.watched:
            return None
        return self._search({self.place[c][0]: c}, self.co[c])

    def _search(self, fixed: dict[int, int], allowed: int) -> tuple[Step, ...] | None:
        """Extend `fixed` (variable -> condition) over the watched variables with
        conditions in `allowed`, pairwise concurrent; the run of the first where p fails.
        p is evaluated once per distinct view of the watched variables."""
        chosen = dict(fixed)

        def extend(j: int, allowed: int, view: tuple[object, ...]) -> tuple[Step, ...] | None:
            if j == len(self.watched):
                if view not in self.truth:
                    self.truth[view] = holds(self.p, [self._observe(chosen)], 0)
                return None if self.truth[view] else self._run(chosen)
            v = self.watched[j]
            if v in fixed:
                return extend(j + 1, allowed, (*view, self.seen[fixed[v]]))
            for b in _bits(self.by_var.get(v, 0) & allowed):
                self._spend()
                chosen[v] = b
                found = extend(j + 1, allowed & self.co[b], (*view, self.seen[b]))
                if found is not None:
                    return found
            return None

        return extend(0, allowed, ())

    def _view(self, place: Place) -> object:
        """What the atoms see of a variable's value: a slot only as its request in
        flight, or its request and answer."""
        var, value = place
        if var < self.net.width:
            return value
        if isinstance(value, tuple) and value[0] in ("flying", "answered"):
            return value[:2] if value[0] == "flying" else value
        return None

    def _observe(self, chosen: dict[int, int]) -> Observation:
        """The atoms' observation of a co-set, from the views of its conditions alone
        (so that p's truth may be kept per view)."""
        globals_: dict[str, int] = {}
        inflight: dict[str, int] = {}
        answered: dict[tuple[str, str], int] = {}
        for v, c in chosen.items():
            view = self.seen[c]
            if v < self.net.width:
                assert isinstance(view, int)
                globals_[self.net.names[v]] = view
            elif isinstance(view, tuple) and view[0] == "flying":
                inflight[view[1]] = inflight.get(view[1], 0) + 1
            elif isinstance(view, tuple):
                answered[(view[1], view[2])] = answered.get((view[1], view[2]), 0) + 1
        return Observation(globals_, inflight, answered)

    def _run(self, chosen: dict[int, int]) -> tuple[Step, ...]:
        below = 0
        for c in chosen.values():
            if self.maker[c] >= 0:
                below |= self.below[self.maker[c]]
        return tuple(self.steps[e] for e in _bits(below))
