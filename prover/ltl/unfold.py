"""Safety properties `G p` (p a state formula) with at most K requests, decided on an
unfolding of the PDNet (prover/ltl/pdnet.py) instead of its interleavings.

The prefix is Esparza, Römer and Vogler's complete prefix (prover/ltl/prefix.py): every
reachable marking is the cut of one of its configurations. Each partial-order run is one
configuration; interleavings of concurrent steps are never enumerated.

p fails somewhere iff some set of pairwise concurrent conditions (a co-set; every co-set
lies in a reachable cut) assigns the variables p reads values where p is false. The
co-sets are searched as conditions appear, each containing the newest. A violation's run
is the configuration below such a co-set, in the order its events were added (causes
first). `budget` bounds events plus co-set search nodes: a deterministic unit of work;
past MAX_CONDITIONS conditions the prefix is given up on as well.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from prover.ltl.formula import Formula
from prover.ltl.lasso import Observation, holds
from prover.ltl.pdnet import PDNet, Place, Step
from prover.ltl.prefix import MAX_CONDITIONS, OutOfBudget, Prefix
from prover.ltl.reduce import visible

__all__ = ["MAX_CONDITIONS", "Unfolded", "observation", "unfold_safety", "view"]


@dataclass(frozen=True)
class Unfolded:
    verdict: str  # "holds" | "violated" | "undecided"
    events: int  # events of the prefix, cut-offs included
    cutoffs: int
    conditions: int
    run: tuple[Step, ...] = ()  # violated: steps of a run to a state where p is false
    limit: str = ""  # undecided: "work" or "conditions"
    runs: int | None = None  # the exploration tree's maximal configurations reached


class _Slots:
    """The PDNet as the prefix reads it: a step is listed by its slot's place."""

    def __init__(self, net: PDNet) -> None:
        self.net, self.initial = net, net.initial

    def primary(self, var: int) -> bool:
        return self.net.width <= var < self.net.width + self.net.k

    def transitions(self, place: Place) -> Sequence[Step]:
        return self.net.steps_of(place)

    def allows(self, t: Step, read: tuple[Place, ...]) -> bool:
        return True


def unfold_safety(net: PDNet, p: Formula, budget: int,
                  progress: Callable[[str], None] | None = None) -> Unfolded:
    """Decide `G p` on `net`; `p` has no temporal operator (`progress`: told the events
    so far every 1,000)."""
    prefix = None
    try:
        prefix = Prefix(_Slots(net), budget)
        return _decide(net, prefix, p, progress)
    except OutOfBudget as exc:
        if prefix is None:
            return Unfolded("undecided", 0, 0, 0, limit=str(exc.args[0]))
        return _result(prefix, "undecided", limit=str(exc.args[0]))


def _result(prefix: Prefix[Step], verdict: str, run: tuple[Step, ...] = (),
            limit: str = "") -> Unfolded:
    return Unfolded(verdict, len(prefix.trans), prefix.cutoffs, len(prefix.place), run, limit)


def _decide(net: PDNet, prefix: Prefix[Step], p: Formula,
            progress: Callable[[str], None] | None) -> Unfolded:
    globs, reqs = visible(p)
    slots = [net.slot_var(i) for i in range(net.k)] if reqs else []
    watched = [i for i, n in enumerate(net.names) if n in globs] + slots
    truth: dict[tuple[object, ...], bool] = {}  # p on a view of the watched

    def leaf(chosen: dict[int, int], _: int) -> tuple[Step, ...] | None:
        places = [prefix.place[chosen[v]] for v in watched]
        seen = tuple(view(net, pl) for pl in places)
        if seen not in truth:
            truth[seen] = holds(p, [observation(net, places)], 0)
        return None if truth[seen] else prefix.run(prefix.config(list(chosen.values())))

    bad = prefix.cosets(watched, {}, prefix.everything(), leaf)
    if bad is not None:
        return _result(prefix, "violated", bad)
    while (added := prefix.add()) is not None:
        if progress is not None and added.event % 1000 == 999:
            progress(f"{added.event + 1:,} events, {prefix.cutoffs:,} cut-offs")
        for c in added.new:
            var = prefix.place[c][0]
            if var in watched:
                bad = prefix.cosets(watched, {var: c}, prefix.co[c], leaf)
                if bad is not None:
                    return _result(prefix, "violated", bad)
    return _result(prefix, "holds")


def view(net: PDNet, place: Place) -> object:
    """What the atoms see of a variable's value: a slot only as its request in flight,
    or its request and answer."""
    var, value = place
    if var < net.width:
        return value
    if isinstance(value, tuple) and value[0] in ("flying", "answered"):
        return value[:2] if value[0] == "flying" else value
    return None


def observation(net: PDNet, places: Sequence[Place]) -> Observation:
    """The atoms' observation of some variables' places (one each), from their views."""
    globals_: dict[str, int] = {}
    inflight: dict[str, int] = {}
    answered: dict[tuple[str, str], int] = {}
    for place in places:
        seen = view(net, place)
        if place[0] < net.width:
            assert isinstance(seen, int)
            globals_[net.names[place[0]]] = seen
        elif isinstance(seen, tuple) and seen[0] == "flying":
            inflight[seen[1]] = inflight.get(seen[1], 0) + 1
        elif isinstance(seen, tuple):
            answered[(seen[1], seen[2])] = answered.get((seen[1], seen[2]), 0) + 1
    return Observation(globals_, inflight, answered)
