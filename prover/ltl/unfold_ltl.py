"""Any LTL-X formula with at most K requests, on the unfolding of the Büchi product
(prover/ltl/product.py) instead of its interleavings (docs/ltl.md, "The unfolding").

The prefix is grown in ERV's adequate order (prover/ltl/prefix.py). A violation is one of:

- an *illegal infinite trace*: a cut-off event e whose local configuration contains an
  event e' (or is compared with the empty configuration) of the same marking, with the
  automaton's node among those markings. The events of [e] \\ [e'] then take the
  product from that marking back to it, and repeat forever; when they hold visible steps
  whose automaton nodes meet every acceptance set, the repetition is accepted by the
  automaton of ¬φ;
- an *illegal livelock*: such a pair whose events are all invisible, so that from any
  reachable marking that holds the places they start from, they repeat forever while
  the atoms see one constant state; it is a violation from such a marking where the
  automaton, in its node there, accepts that constant word. Those markings are searched
  as co-sets of the complete prefix;
- a *deadlock* (a finite maximal execution, its last state repeated): a reachable
  marking (searched for already in partial prefixes, at 16, 32, 64, ... events) where
  no request can move (every slot not arrived, answered, or in a local
  state with no answer and no step at the globals' values), the environment having
  stopped, and the automaton accepting the constant word there.

Each candidate is handed to `accept` (prover/ltl/certify.py replays it on the program's
own moves and, under weak fairness, keeps it only if its loop is fair); the first it
accepts is the verdict. None accepted and the prefix complete: "holds", or, when some
candidate was refused as unfair, "unfair" (the caller decides by the explicit search).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from prover.ltl.formula import Formula
from prover.ltl.pdnet import PDNet, Place, Step
from prover.ltl.prefix import Added, OutOfBudget, Prefix, bits
from prover.ltl.product import INIT, Move, Product
from prover.ltl.tree import Explored, explore

R = TypeVar("R")
Accept = Callable[[tuple[Step, ...], tuple[Step, ...], str], R | None]


@dataclass(frozen=True)
class Decided(Generic[R]):
    verdict: str  # "holds" | "violated" | "unfair" | "undecided"
    events: int
    cutoffs: int
    conditions: int
    found: R | None = None  # violated: what `accept` made of the lasso
    kind: str = ""  # violated: "infinite" | "livelock" | "deadlock"
    limit: str = ""  # undecided: "work" or "conditions"
    runs: int | None = None  # the exploration tree's maximal configurations reached


class _Search(Generic[R]):
    def __init__(self, net: PDNet, formula: Formula, budget: int, accept: Accept[R],
                 progress: Callable[[str], None] | None, cutoffs: str, tree: bool) -> None:
        self.net, self.accept, self.progress, self.cutoffs = net, accept, progress, cutoffs
        self.tree = tree
        self.explored: Explored | None = None
        self.found: R | None = None
        self.kind = "infinite"
        self.livelocks: set[tuple[tuple[Place, ...], tuple[Step, ...]]] = set()
        self.product = Product(net, formula)
        self.prefix: Prefix[Move] | None = None
        self.budget = budget
        self.refused = 0
        self._weights: dict[int, tuple[int, ...]] = {}

    def decide(self) -> Decided[R]:
        try:
            return self._decide()
        except OutOfBudget as exc:
            return self._result("undecided", limit=str(exc.args[0]))

    def _result(self, verdict: str, found: R | None = None, kind: str = "",
                limit: str = "") -> Decided[R]:
        p, t = self.prefix, self.explored
        runs = None if t is None else t.runs
        if p is None:
            return Decided(verdict, 0, 0, 0, found, kind, limit, runs)
        return Decided(verdict, len(p.trans), p.cutoffs, len(p.place), found, kind, limit,
                       runs)

    def _decide(self) -> Decided[R]:
        merge = {"erv": lambda e, x: True, "causal": lambda e, x: False,
                 "dominance": self._dominates}[self.cutoffs]
        self.prefix = prefix = Prefix(self.product, self.budget, merge)
        if self.tree:
            self.explored = explore(prefix, self.product, self._event, self.progress)
        else:
            while (added := prefix.add()) is not None:
                if self.progress is not None and added.event % 1000 == 999:
                    self.progress(f"{added.event + 1:,} events, {prefix.cutoffs:,} cut-offs")
                if self._event(added):
                    break
        if self.found is not None:
            return self._result("violated", self.found, self.kind)
        for (start, loop) in sorted(self.livelocks, key=repr):
            found = self._livelock(start, loop)
            if found is not None:
                return self._result("violated", found, "livelock")
        found = self._deadlock()
        if found is not None:
            return self._result("violated", found, "deadlock")
        return self._result("unfair" if self.refused else "holds")

    def _event(self, added: Added) -> bool:
        """A new event: at a cut-off, its repetitions below it; an accepted illegal
        infinite trace stops the search (True)."""
        prefix = self.prefix
        assert prefix is not None
        if added.event + 1 >= 16 and (added.event + 1) & added.event == 0:
            # Every co-set of a partial prefix is a reachable marking too: searched for a
            # deadlock at 16, 32, 64, ... events (deterministic, at most twice the final
            # search's work), a short finite violation (`F done(R) > 0`, met by the
            # empty execution) needs no complete prefix.
            self.found = self._deadlock()
            if self.found is not None:
                self.kind = "deadlock"
                return True
        if not added.cutoff:
            return False
        for x in prefix.at.get(added.key, []):
            mine = prefix.below[added.event]
            earlier = prefix.below[x] if x >= 0 else 0
            if earlier & ~mine:
                continue  # not below the cut-off: no repetition
            segment = mine & ~earlier
            nodes = {prefix.trans[f].node for f in bits(segment)} - {None}
            if not nodes:
                loop = self._steps(segment)
                self.livelocks.add((self._start(x, segment), loop))
            elif all(nodes & acc for acc in self.product.aut.accepting):
                self.found = self._offer(self._steps(earlier), self._steps(segment),
                                         "infinite")
                if self.found is not None:
                    return True
        return False

    def _dominates(self, e: int, x: int) -> bool:
        """May the visible event e be cut off by x, with the same marking elsewhere: x's
        history visits each acceptance set at least as often as e's (an invisible event
        is cut off only by a repetition below it, so no invisible cycle is cut in two)."""
        if self.prefix is None or self.prefix.trans[e].node is None:
            return False
        return all(a >= b for a, b in zip(self._weight(x), self._weight(e), strict=True))

    def _weight(self, e: int) -> tuple[int, ...]:
        """Per acceptance set, the visible events of [e] whose node is in it."""
        w = self._weights.get(e)
        if w is None:
            assert self.prefix is not None
            nodes = [self.prefix.trans[f].node for f in bits(self.prefix.below[e])]
            w = self._weights[e] = tuple(sum(1 for q in nodes if q in acc)
                                         for acc in self.product.aut.accepting)
        return w

    def _steps(self, events: int) -> tuple[Step, ...]:
        assert self.prefix is not None
        return tuple(m.step for m in self.prefix.run(events) if m.step is not None)

    def _offer(self, before: tuple[Step, ...], loop: tuple[Step, ...], kind: str) -> R | None:
        """A candidate to `accept`; one it refuses (unfair) is counted."""
        found = self.accept(before, loop, kind)
        if found is None:
            self.refused += 1
        return found

    def _start(self, x: int, segment: int) -> tuple[Place, ...]:
        """The places the segment's events consume first, per variable: where it starts."""
        assert self.prefix is not None
        p = self.prefix
        cut = p.cut0 if x < 0 else p.cut[x]
        touched = sorted({pl[0] for f in bits(segment) for pl in p.trans[f].pre})
        return tuple(p.place[cut[v]] for v in touched)

    def _livelock(self, start: tuple[Place, ...], loop: tuple[Step, ...]) -> R | None:
        """A reachable marking that holds `start`, where the automaton accepts the
        constant word: the loop then repeats forever from it."""
        p, prod = self.prefix, self.product
        assert p is not None
        fixed = dict(start)
        order = list(dict.fromkeys([prod.auto, *fixed, *prod.watched]))

        def only(var: int, c: int) -> bool:
            if var == prod.auto:
                return p.place[c][1] != INIT
            return var not in fixed or p.place[c][1] == fixed[var]

        def leaf(chosen: dict[int, int], _: int) -> R | None:
            q = p.place[chosen[prod.auto]][1]
            assert isinstance(q, int)
            if not prod.accepts_constant(q, [p.place[chosen[v]] for v in prod.watched]):
                return None
            before = p.config(list(chosen.values()))
            return self._offer(self._steps(before), loop, "livelock")

        return p.cosets(order, {}, p.everything(), leaf, only)

    def _deadlock(self) -> R | None:
        """A reachable marking where no request can move and the automaton accepts the
        constant word."""
        p, prod, net = self.prefix, self.product, self.net
        assert p is not None

        def only(var: int, c: int) -> bool:
            value = p.place[c][1]
            if var == prod.auto:
                return value != INIT
            return not (isinstance(value, tuple) and value[0] == "flying"
                        and net.ns.responses_of.get(value[2]))

        def slots_chosen(chosen: dict[int, int], allowed: int) -> R | None:
            needs = {v for s in prod.slots for v in _touched(net, p.place[chosen[s]][1])}
            needs |= {v for v in prod.watched if v < net.width}
            return p.cosets(sorted(needs), dict(chosen), allowed, leaf)

        def leaf(chosen: dict[int, int], _: int) -> R | None:
            values = {v: p.place[c][1] for v, c in chosen.items() if v < net.width}
            if not all(net.idle(p.place[chosen[s]][1], values) for s in prod.slots):
                return None
            q = p.place[chosen[prod.auto]][1]
            assert isinstance(q, int)
            if not prod.accepts_constant(q, [p.place[chosen[v]] for v in prod.watched]):
                return None
            return self._offer(self._steps(p.config(list(chosen.values()))), (), "deadlock")

        return p.cosets([prod.auto, *prod.slots], {}, p.everything(), slots_chosen, only)


def _touched(net: PDNet, value: object) -> Sequence[int]:
    if isinstance(value, tuple) and value[0] == "flying":
        return net.touched(value[2])
    return ()


def unfold_ltl(net: PDNet, formula: Formula, budget: int, accept: Accept[R],
               progress: Callable[[str], None] | None = None, cutoffs: str = "dominance",
               tree: bool = False) -> Decided[R]:
    """Decide `formula` on `net` by the unfolding of its Büchi product; `accept` judges
    each candidate lasso (prefix steps, loop steps, kind), None to refuse it. `cutoffs`:
    "dominance" (above; the default), "causal" (a repetition below only), or "erv"
    (ERV's, which may cut a repetition in two and miss it: for measurements only).
    `tree`: grow the prefix by the exploration tree (prover/ltl/tree.py)."""
    return _Search(net, formula, budget, accept, progress, cutoffs, tree).decide()
