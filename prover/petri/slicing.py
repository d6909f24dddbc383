"""Slicing of the interleaving net: bidirectional slicing w.r.t. a target disjunct
(ser-reference §5.5), and the maximal/minimal dynamic slices used by `explain`.

Bidirectional slicing, one round on the current net N (places and transitions kept as
indices of the *original* net):

* forward pass: drop identity transitions (pre = post); saturate from the initially
  marked places (a transition qualifies when all its input places are reached; it then
  reaches its outputs). Keep only the transitions that qualified; places not reached
  are always empty ("removed forward").
* backward pass: target places = places of N that are not zero places of the disjunct
  (`c·p = 0`); saturate the reversed net from them (a transition qualifies when all its
  outputs are reached; it then reaches its inputs). Keep only those transitions; the
  other places ("removed backward") are zero places that no kept transition touches.

Rounds repeat until the number of transitions is stable (at most 100 rounds).

Soundness and lifting (innermost round first). Let I be an inductive invariant of the
sliced net that refutes the sliced disjunct. For each round, from the last to the first:
  I := I ∨ (∨_{p removed backward} p ≥ 1), then I := I ∧ (∧_{p removed forward} p = 0).
The result is an inductive invariant of the full net that refutes the disjunct: a
transition removed backward outputs into a removed-backward place, which the target
requires to be empty and no kept transition can empty; a transition removed forward
needs a token on a place that is always empty. A firing sequence of the sliced net is
one of the full net (the kept transitions are a subset, the initial marking is the
same), so traces lift by `transition_map`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from prover.petri.net import NetTransition, PetriNet

if TYPE_CHECKING:
    import z3

F = TypeVar("F")

MAX_ROUNDS = 100


@dataclass(frozen=True)
class SliceRound:
    """Original place indices that one round removed (sorted)."""

    removed_forward: tuple[int, ...]
    removed_backward: tuple[int, ...]


@dataclass(frozen=True)
class SlicedNet:
    """The sliced net and how it maps back to the full one.

    `net` has its own place/transition numbering; `place_map[i]` / `transition_map[j]`
    give the original indices. `unreachable` is set when slicing alone proves the target
    unreachable (an initially marked zero place that no useful transition can empty).
    Use `prover.target.slice_disjunct` to also get the disjunct over the sliced net.
    """

    net: PetriNet
    place_map: tuple[int, ...]
    transition_map: tuple[int, ...]
    rounds: tuple[SliceRound, ...]
    unreachable: bool

    @property
    def new_index(self) -> dict[int, int]:
        """Original place index → sliced place index (kept places only)."""
        return {p: i for i, p in enumerate(self.place_map)}

    def sizes(self) -> tuple[int, int]:
        return (len(self.net.places), len(self.net.transitions))

    def lift_trace(self, trace: Iterable[int]) -> tuple[int, ...]:
        """Sliced transition indices → full-net transition indices."""
        return tuple(self.transition_map[t] for t in trace)

    def lift_invariant(
        self,
        inv: F,
        *,
        or_: Callable[[Sequence[F]], F],
        and_: Callable[[Sequence[F]], F],
        ge1: Callable[[int], F],
        eq0: Callable[[int], F],
    ) -> F:
        """Lift an invariant of the sliced net (written over ORIGINAL place indices,
        e.g. through `place_map`) to the full net; generic over the formula type."""
        for rnd in reversed(self.rounds):
            if rnd.removed_backward:
                inv = or_([inv] + [ge1(p) for p in rnd.removed_backward])
            if rnd.removed_forward:
                inv = and_([inv] + [eq0(p) for p in rnd.removed_forward])
        return inv

    def lift_invariant_z3(self, inv: z3.BoolRef, places: Sequence[z3.ArithRef]) -> z3.BoolRef:
        """`lift_invariant` for z3 formulas; `places[i]` is the full net's place i."""
        import z3

        return self.lift_invariant(
            inv,
            or_=lambda xs: z3.Or(list(xs)),
            and_=lambda xs: z3.And(list(xs)),
            ge1=lambda p: places[p] >= 1,
            eq0=lambda p: places[p] == 0,
        )


def _saturate(
    start: set[int], trans: Sequence[tuple[int, frozenset[int], frozenset[int]]]
) -> tuple[set[int], list[int]]:
    """Places reached and transitions (ids) that qualified; trans = (id, needs, gives)."""
    reached = set(start)
    fired: set[int] = set()
    changed = True
    while changed:
        changed = False
        for tid, needs, gives in trans:
            if tid not in fired and needs <= reached:
                fired.add(tid)
                if not gives <= reached:
                    reached |= gives
                changed = True
    return reached, sorted(fired)


def _pre(t: NetTransition) -> frozenset[int]:
    return frozenset(p for p, _ in t.pre)


def _post(t: NetTransition) -> frozenset[int]:
    return frozenset(p for p, _ in t.post)


def bidirectional_slice(net: PetriNet, zero_places: Iterable[int]) -> SlicedNet:
    """Bidirectional slicing of `net` w.r.t. a target whose zero places (constraints
    `c·p = 0`) are `zero_places`; every other place is a target place."""
    zero = set(zero_places)
    init = {p for p, w in net.initial if w > 0}
    places = set(range(len(net.places)))
    trans = [
        i for i, t in enumerate(net.transitions) if sorted(t.pre) != sorted(t.post)
    ]
    rounds: list[SliceRound] = []
    removed_initial_zero = False
    for _ in range(MAX_ROUNDS):
        before = len(trans)
        # forward
        fwd, kept = _saturate(
            init & places,
            [(i, _pre(net.transitions[i]), _post(net.transitions[i])) for i in trans],
        )
        fwd &= places
        removed_f = sorted(places - fwd)
        places = fwd
        trans = kept
        # backward
        targets = places - zero
        bwd, kept = _saturate(
            targets,
            [(i, _post(net.transitions[i]), _pre(net.transitions[i])) for i in trans],
        )
        bwd &= places
        removed_b = sorted(places - bwd)
        if any(p in init for p in removed_b):
            removed_initial_zero = True
        places = bwd
        trans = kept
        rounds.append(SliceRound(tuple(removed_f), tuple(removed_b)))
        if len(trans) == before:
            break
    place_map = tuple(sorted(places))
    new_index = {p: i for i, p in enumerate(place_map)}
    new_trans = tuple(
        NetTransition(
            t.kind,
            t.request,
            tuple((new_index[p], w) for p, w in t.pre),
            tuple((new_index[p], w) for p, w in t.post),
            local=t.local,
            global_=t.global_,
            to_local=t.to_local,
            to_global=t.to_global,
            response=t.response,
        )
        for t in (net.transitions[i] for i in trans)
    )
    sliced = PetriNet(
        tuple(net.places[p] for p in place_map),
        new_trans,
        tuple((new_index[p], w) for p, w in net.initial if p in new_index),
    )
    return SlicedNet(
        sliced, place_map, tuple(trans), tuple(rounds), unreachable=removed_initial_zero
    )


# ---- dynamic slices (explain --slice) ----------------------------------------------


@dataclass(frozen=True)
class DynamicSlice:
    """Original place and transition indices of a slice (sorted)."""

    places: tuple[int, ...]
    transitions: tuple[int, ...]


def maximal_slice(net: PetriNet, place: int) -> DynamicSlice:
    """Backward slice from `place` (transitions that can add a token to a place in the
    slice, and their inputs), then filtered forward from the initial marking."""
    want = {place}
    chosen: set[int] = set()
    todo = deque([place])
    while todo:
        p = todo.popleft()
        for i, t in enumerate(net.transitions):
            if i in chosen:
                continue
            gain = dict(t.post).get(p, 0) - dict(t.pre).get(p, 0)
            if gain > 0:
                chosen.add(i)
                for q, _ in t.pre:
                    if q not in want:
                        want.add(q)
                        todo.append(q)
    init = {p for p, w in net.initial if w > 0}
    reached, kept = _saturate(
        init, [(i, _pre(net.transitions[i]), _post(net.transitions[i])) for i in sorted(chosen)]
    )
    kept_set = set(kept)
    ps = {p for i in kept_set for p in _pre(net.transitions[i]) | _post(net.transitions[i])}
    ps |= init & want
    if place in reached:
        ps.add(place)
    return DynamicSlice(tuple(sorted(ps)), tuple(sorted(kept_set)))


def minimal_slice(
    net: PetriNet, place: int, max_states: int = 200_000
) -> tuple[DynamicSlice, tuple[int, ...]] | None:
    """A shortest firing sequence from the initial marking that puts a token on `place`
    (breadth-first over markings, at most `max_states`), and the slice it uses. None if
    none was found within the bound."""
    m0 = tuple(net.initial_vector())
    if m0[place] > 0:
        return DynamicSlice((place,), ()), ()
    # only transitions of the maximal slice matter: dropping the others from a firing
    # sequence keeps it fireable on the slice's places and keeps `place` marked
    useful = maximal_slice(net, place).transitions
    if place not in maximal_slice(net, place).places:
        return None
    parent: dict[tuple[int, ...], tuple[tuple[int, ...], int] | None] = {m0: None}
    todo = deque([m0])
    while todo:
        m = todo.popleft()
        for i in useful:
            t = net.transitions[i]
            if all(m[p] >= w for p, w in t.pre):
                n = list(m)
                for p, w in t.pre:
                    n[p] -= w
                for p, w in t.post:
                    n[p] += w
                nm = tuple(n)
                if nm in parent:
                    continue
                parent[nm] = (m, i)
                if nm[place] > 0:
                    seq: list[int] = []
                    cur: tuple[int, ...] | None = nm
                    while cur is not None and parent[cur] is not None:
                        prev, ti = parent[cur]  # type: ignore[misc]
                        seq.append(ti)
                        cur = prev
                    seq.reverse()
                    ts = sorted(set(seq))
                    touched = [_pre(net.transitions[j]) | _post(net.transitions[j]) for j in ts]
                    ps = sorted(set().union(*touched))
                    return DynamicSlice(tuple(ps), tuple(ts)), tuple(seq)
                if len(parent) >= max_states:
                    return None
                todo.append(nm)
    return None
