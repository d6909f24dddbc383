"""The program with at most K requests as a PDNet (docs/ltl.md): a safe Petri net with one
place per (variable, value), where a step consumes and produces the places of only the
variables it touches, so that steps of different requests on different variables are
concurrent (the unfolding of prover/ltl/unfold.py then orders only what must be ordered).

Variables: each global of a Ser program (for an NS in JSON, one variable: its opaque
global state); per request slot, the slot itself, valued None (free), ("ready", e) (it
will hold a request of entry e), ("flying", request, local) in flight, or ("answered",
request, answer); and the slot's type: None, or the entry e chosen for it. Which request
is which is never observed, so slot i + 1 may only choose an entry no earlier than slot
i's: each multiset of at most K requests is one assignment of entries to slots, not one
per order. Slots arrive in any order and at any time after their choice.

Which globals a step touches: those of the residual program's next atomic step (prover/
ltl/reduce.py), the compiler's own reading of it. It is checked against the NS first:
from each local state, the steps at every global state that agree on those globals must
be the same, and leave every other global as it was; where that fails, the step touches
every global, which is exact. The NS holds only reachable pairs (local, global): where it
has no step, the outcomes at a global state that agrees on the touched globals are used.
So the PDNet has every run of the program, and more only if the compiler's reading were
wrong; every run it reports is replayed on the program's own moves (prover/ltl/replay.py)
and its lasso certified.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from prover.errors import SerError
from prover.ltl.lasso import global_values, ser_globals
from prover.ltl.reduce import access
from prover.ns import NetworkSystem

Place = tuple[int, object]  # (variable, value); a global's value: int, or an NS JSON state


@dataclass(frozen=True)
class Step:
    """A transition: `slot` is the request slot it moves (an arrival: the slot it fills);
    `pre` and `post` hold one place per variable it touches, in the same order."""

    kind: str  # "choose" | "arrive" | "step" | "answer"
    slot: int
    pre: tuple[Place, ...]
    post: tuple[Place, ...]
    reads: tuple[int, ...] = ()  # none: as the unfolding's core reads transitions


Outcomes = dict[tuple[object, ...], frozenset[tuple[str, tuple[object, ...]]]]


class PDNet:
    """Every step has exactly one slot place in its preset, first: the slot it moves."""

    def __init__(self, ns: NetworkSystem, k: int) -> None:
        self.ns, self.k = ns, k
        self.names: tuple[str, ...] = tuple(sorted(ser_globals(ns))) if ns.kind == "ser" \
            else ("(global state)",)
        self.width = len(self.names)  # variables 0 .. width-1: globals; then the slots
        self._values = {g: self._split(g) for g in ns.global_states}
        self._steps: dict[Place, tuple[Step, ...]] = {}
        self._outcomes: dict[str, tuple[tuple[int, ...], Outcomes]] = {}

    def slot_var(self, i: int) -> int:
        return self.width + i

    def type_var(self, i: int) -> int:
        return self.width + self.k + i

    def _split(self, g: str) -> tuple[object, ...]:
        if self.ns.kind != "ser":
            return (g,)
        vals = global_values(g)
        return tuple(vals.get(n, 0) for n in self.names)

    def values(self, g: str) -> tuple[object, ...]:
        """The value of each global variable in NS global state `g`."""
        return self._values[g]

    @cached_property
    def initial(self) -> tuple[Place, ...]:
        start = self.values(self.ns.initial_global)
        return tuple(enumerate(start)) + tuple((self.slot_var(i), None) for i in range(self.k)) \
            + tuple((self.type_var(i), None) for i in range(self.k))

    def steps_of(self, place: Place) -> tuple[Step, ...]:
        """The steps of a slot holding a value (`place`), built when first asked for."""
        out = self._steps.get(place)
        if out is None:
            out = self._steps[place] = tuple(self._build(place))
        return out

    def _build(self, place: Place) -> list[Step]:
        var, value = place
        i = var - self.width
        if value is None:
            return [self._choose(i, e, before) for e in range(len(self.ns.requests))
                    for before in (range(e + 1) if i else [None])]
        assert isinstance(value, tuple)
        if value[0] == "ready":
            entry = self.ns.requests[int(value[1])]
            return [Step("arrive", i, (place,), ((var, ("flying", entry.request, entry.local)),))]
        if value[0] != "flying":
            return []  # answered: it never moves again
        _, request, loc = value
        out = [Step("answer", i, (place,), ((var, ("answered", request, v)),))
               for v in self.ns.responses_of.get(loc, ())]
        touched, groups = self._groups(loc)
        for key, outcomes in groups.items():
            pre = (place,) + tuple(zip(touched, key, strict=True))
            for to_local, vals in sorted(outcomes, key=repr):
                post = ((var, ("flying", request, to_local)),) + \
                    tuple(zip(touched, vals, strict=True))
                out.append(Step("step", i, pre, post))
        return out

    def touched(self, loc: str) -> tuple[int, ...]:
        """The globals the step of local state `loc` reads or writes."""
        return self._groups(loc)[0]

    def idle(self, value: object, globals_: dict[int, object]) -> bool:
        """Whether a slot holding `value` cannot move at these values of (at least) the
        globals its step touches: not arrived (the environment may stop), answered, or
        in a local state with no answer and no step here."""
        if not (isinstance(value, tuple) and value[0] == "flying"):
            return True
        loc = value[2]
        if self.ns.responses_of.get(loc):
            return False
        touched, groups = self._groups(loc)
        return tuple(globals_[v] for v in touched) not in groups

    def _choose(self, i: int, entry: int, before: int | None) -> Step:
        """Slot i chooses `entry`, after slot i - 1 chose `before` (no later one)."""
        pre: tuple[Place, ...] = ((self.slot_var(i), None), (self.type_var(i), None))
        post: tuple[Place, ...] = ((self.slot_var(i), ("ready", entry)),
                                   (self.type_var(i), entry))
        if before is not None:
            pre += ((self.type_var(i - 1), before),)
            post += ((self.type_var(i - 1), before),)
        return Step("choose", i, pre, post)

    def _groups(self, loc: str) -> tuple[tuple[int, ...], Outcomes]:
        """The globals the step of `loc` touches, and its outcomes (next local, new values
        of those globals) for each valuation of them."""
        if loc not in self._outcomes:
            self._outcomes[loc] = self._touching(loc)
        return self._outcomes[loc]

    def _touching(self, loc: str) -> tuple[tuple[int, ...], Outcomes]:
        candidate = self._candidate(loc)
        grouped = self._group(loc, candidate)
        if grouped is not None:
            return candidate, grouped
        everything = tuple(range(self.width))
        return everything, self._group(loc, everything) or {}

    def _candidate(self, loc: str) -> tuple[int, ...]:
        if self.ns.kind != "ser":
            return (0,)
        try:
            now = access(loc).now
        except SerError:
            return tuple(range(self.width))
        return tuple(i for i, n in enumerate(self.names) if n in now)

    def _group(self, loc: str, touched: tuple[int, ...]) -> Outcomes | None:
        """The outcomes of `loc`'s step per valuation of `touched`; None when the NS shows
        that they depend on another global, or change one. A global state at which the
        NS has no step of `loc` says nothing: the NS holds only the reachable pairs, and
        a step that reads only `touched` is enabled at all of a valuation or at none."""
        rest = [i for i in range(self.width) if i not in touched]
        seen: Outcomes = {}
        for g in self.ns.global_states:
            a = self.values(g)
            mine: set[tuple[str, tuple[object, ...]]] = set()
            for t in self.ns.transitions_from.get((loc, g), ()):
                b = self.values(t.to_global)
                if any(a[j] != b[j] for j in rest):
                    return None
                mine.add((t.to_local, tuple(b[j] for j in touched)))
            if mine and seen.setdefault(tuple(a[j] for j in touched), frozenset(mine)) != mine:
                return None
        return seen


def every_step(net: PDNet) -> list[Step]:
    """Every step of `net` that a slot can take from a value it can reach on its own
    (following its own steps, whatever the globals): the net as other tools read it."""
    out: list[Step] = []
    for i in range(net.k):
        start: Place = (net.slot_var(i), None)
        seen, todo = {start}, [start]
        while todo:
            for step in net.steps_of(todo.pop()):
                out.append(step)
                nxt = step.post[0]
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
    return out
