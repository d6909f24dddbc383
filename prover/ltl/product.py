"""The Büchi product of the PDNet (prover/ltl/pdnet.py) with the automaton of ¬φ
(prover/ltl/buchi.py), as a net that prover/ltl/prefix.py unfolds (docs/ltl.md).

One more variable, the automaton's node, starts at INIT. A step is *visible* when it
changes what the atoms see of a variable (a watched global's value; with request counts
in φ, a slot's request in flight or its answer); every other step is *invisible* and is
the PDNet's step unchanged, so it stays concurrent with everything it is independent of.
A visible step is synchronised with an automaton edge q → q': it also consumes the node q
and produces q', and reads the variables the atoms of q' need, so that q' is taken only
where its label holds on the state after the step. The automaton's first node is chosen
by an `observe` move from INIT, which reads the initial state the same way. So the
visible steps and the automaton moves form a chain, and each product run is a run of the
program together with a run of the automaton over its observations after each visible
step: a stutter-equivalent of the run's word, which LTL-X cannot tell apart.

A slot's arrival or answer is visible only when φ counts requests; `choose` (the slot's
request name fixed before it arrives) never is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from prover.ltl.buchi import Automaton, translate
from prover.ltl.formula import Compare, Formula, Not
from prover.ltl.lasso import satisfies
from prover.ltl.pdnet import PDNet, Place, Step
from prover.ltl.reduce import visible
from prover.ltl.unfold import observation, view

INIT = "init"


@dataclass(frozen=True)
class Move:
    """A transition of the product: a program step (None: the automaton's first look),
    with, when it is visible, the automaton node it leads to."""

    pre: tuple[Place, ...]
    post: tuple[Place, ...]
    reads: tuple[int, ...]
    step: Step | None
    node: int | None  # the automaton node after it; None: invisible


class Product:
    def __init__(self, net: PDNet, formula: Formula) -> None:
        self.net = net
        self.aut: Automaton = translate(Not(formula))
        self.auto = net.width + 2 * net.k  # the automaton's variable
        globs, reqs = visible(formula)
        self.counts = bool(reqs)
        self.slots = tuple(net.slot_var(i) for i in range(net.k))
        self.watched = tuple(i for i, n in enumerate(net.names) if n in globs) + \
            (self.slots if reqs else ())
        self._moves: dict[Place, tuple[Move, ...]] = {}
        self._needs = [self._atoms_read(q) for q in range(len(self.aut.succ))]

    @cached_property
    def initial(self) -> tuple[Place, ...]:
        return self.net.initial + ((self.auto, INIT),)

    def primary(self, var: int) -> bool:
        return var == self.auto or self.net.width <= var < self.net.width + self.net.k

    def transitions(self, place: Place) -> Sequence[Move]:
        out = self._moves.get(place)
        if out is None:
            out = self._moves[place] = tuple(self._build(place))
        return out

    def _build(self, place: Place) -> list[Move]:
        if place[0] == self.auto:
            if place[1] != INIT:
                return []
            return [Move(((self.auto, INIT),), ((self.auto, q),), self._needs[q], None, q)
                    for q in sorted(self.aut.initial)]
        out: list[Move] = []
        for step in self.net.steps_of(place):
            if not self.is_visible(step):
                out.append(Move(step.pre, step.post, (), step, None))
                continue
            touched = {pl[0] for pl in step.pre}
            for q in range(len(self.aut.succ)):
                for q2 in sorted(self.aut.succ[q]):
                    reads = tuple(v for v in self._needs[q2] if v not in touched)
                    out.append(Move(step.pre + ((self.auto, q),),
                                    step.post + ((self.auto, q2),), reads, step, q2))
        return out

    def is_visible(self, step: Step) -> bool:
        return any(a[0] in self.watched and view(self.net, a) != view(self.net, b)
                   for a, b in zip(step.pre, step.post, strict=True))

    def allows(self, t: Move, read: tuple[Place, ...]) -> bool:
        """The label of the node `t` leads to holds on the state after it."""
        if t.node is None:
            return True
        mine = [pl for pl in t.post if pl[0] in self.watched]
        return self.label_holds(t.node, [*mine, *read])

    def label_holds(self, q: int, places: Sequence[Place]) -> bool:
        o = observation(self.net, places)
        return all(satisfies(a, o) for a in self.aut.label[q])

    def _atoms_read(self, q: int) -> tuple[int, ...]:
        """The variables whose views the atoms of node q's label need."""
        label: tuple[Compare, ...] = self.aut.label[q]
        globs: set[str] = set()
        counts = False
        for atom in label:
            g, r = visible(atom)
            globs |= g
            counts = counts or bool(r)
        return tuple(i for i, n in enumerate(self.net.names) if n in globs) + \
            (self.slots if counts else ())

    def accepts_constant(self, q: int, places: Sequence[Place]) -> bool:
        """Whether the automaton, in node q (having read this state), accepts the word
        that repeats this state forever: a cycle reachable from q through nodes whose
        labels hold here, meeting every acceptance set."""
        o = observation(self.net, places)
        ok = [all(satisfies(a, o) for a in self.aut.label[n]) for n in
              range(len(self.aut.succ))]
        return _accepting_cycle(self.aut, q, ok)


def _accepting_cycle(aut: Automaton, q: int, ok: list[bool]) -> bool:
    reach, todo = {q}, [q]
    while todo:
        for m in aut.succ[todo.pop()]:
            if ok[m] and m not in reach:
                reach.add(m)
                todo.append(m)
    for n in sorted(reach):  # n on a cycle within `reach`: its component holds it
        comp = _component(aut, n, reach)
        if comp and all(comp & acc for acc in aut.accepting):
            return True
    return False


def _component(aut: Automaton, n: int, within: set[int]) -> set[int]:
    """The nodes of `within` on a cycle through n (empty if there is none)."""
    fwd, todo = set(), [n]
    while todo:
        for m in aut.succ[todo.pop()]:
            if m in within and m not in fwd:
                fwd.add(m)
                todo.append(m)
    if n not in fwd:
        return set()
    back = {m for m in fwd if _reaches(aut, m, n, within)}
    return back


def _reaches(aut: Automaton, a: int, b: int, within: set[int]) -> bool:
    seen, todo = {a}, [a]
    while todo:
        x = todo.pop()
        if x == b:
            return True
        for m in aut.succ[x]:
            if m in within and m not in seen:
                seen.add(m)
                todo.append(m)
    return False
