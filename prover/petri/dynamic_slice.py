"""Maximal and minimal dynamic slices of a place/transition net (Llorens, Oliver, Silva,
Tamarit, "Maximal and Minimal Dynamic Petri Net Slicing").

The slicing criterion is a pair ⟨M0, Q⟩: an initial marking and a set of places.

Maximal slice (the paper's three phases, all structural, O(arcs) each):

1. backward from Q: a place of the slice pulls in *every* transition with an arc into it
   (a transition that only tests the place through a self-loop counts too: its firing
   can be needed to move tokens elsewhere), and such a transition pulls in its input
   places;
2. forward from M0, on the backward subnet only: the initially marked places are
   reached; a transition whose input places are all reached can fire and reaches its
   output places (inside the backward subnet);
3. filter: backward again from the places of Q that the forward phase reached, over the
   transitions the forward phase kept; this drops a transition that can fire but only
   feeds transitions that never can.

The slice is the transitions kept by the filter, their input places and the places of Q
that can be marked (the paper's slices contain their criterion). Output arcs into other
places are dropped: those places never enable anything of the slice.

Minimal slice: a shortest firing sequence from M0 that ends in a marking with a token on
*every* place of Q, and the transitions it fires with their input places (plus Q).
A shortest sequence only fires transitions of the maximal slice (dropping any other
transition from a sequence keeps it fireable and keeps Q covered: such a transition puts
no token on a place the slice reads, phase by phase), so the search runs on the maximal
slice. Two exact procedures take turns, with budgets (numbers of markings) growing up to
a bound:

* breadth-first search over the reachable markings of the slice (shortest by
  construction; "not coverable" when the reachable set is finite and exhausted);
* backward coverability (Abdulla et al.): level k holds the minimal markings from which
  Q can be covered in at most k firings; the first level whose upward closure contains
  M0 gives the length of a shortest sequence and a witness (each basis element
  remembers the transition and the element it steps to), and a fixpoint without M0
  proves Q not coverable (Dickson's lemma makes it terminate).

If both bounds are hit the answer is "undecided", never a guess.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

Arcs = tuple[tuple[int, int], ...]  # (place index, weight), sorted by place, weights >= 1


@dataclass(frozen=True)
class PTNet:
    """A place/transition net with the identifiers and names of its source file.

    `pre[j]` / `post[j]` are the input / output arcs of transition j; a place may be both
    an input and an output (self-loop). `initial[i]` is M0 of place i.
    """

    name: str
    place_ids: tuple[str, ...]
    place_names: tuple[str, ...]
    transition_ids: tuple[str, ...]
    transition_names: tuple[str, ...]
    pre: tuple[Arcs, ...]
    post: tuple[Arcs, ...]
    initial: tuple[int, ...]

    def sizes(self) -> dict[str, int]:
        return {"places": len(self.place_ids), "transitions": len(self.transition_ids)}


def from_interleaving(net: object, name: str = "model") -> PTNet:
    """The interleaving net of an NS (`prover.petri.net.PetriNet`) as a PTNet, with the
    identifiers the exporters write (`p<i>`, `t<i>`) and the canonical labels as names."""
    from prover.petri.net import PetriNet

    assert isinstance(net, PetriNet)
    init = [0] * len(net.places)
    for i, w in net.initial:
        init[i] += w
    return PTNet(
        name=name,
        place_ids=tuple(f"p{i}" for i in range(len(net.places))),
        place_names=tuple(p.label() for p in net.places),
        transition_ids=tuple(f"t{j}" for j in range(len(net.transitions))),
        transition_names=tuple(t.label() for t in net.transitions),
        pre=tuple(_merge(t.pre) for t in net.transitions),
        post=tuple(_merge(t.post) for t in net.transitions),
        initial=tuple(init),
    )


def _merge(arcs: Iterable[tuple[int, int]]) -> Arcs:
    acc: dict[int, int] = {}
    for p, w in arcs:
        acc[p] = acc.get(p, 0) + w
    return tuple(sorted((p, w) for p, w in acc.items() if w > 0))


@dataclass(frozen=True)
class Slice:
    """Place and transition indices of a slice (sorted); `sequence` is the firing
    sequence of a minimal slice (in firing order), empty for a maximal one."""

    places: tuple[int, ...]
    transitions: tuple[int, ...]
    sequence: tuple[int, ...] = ()


@dataclass(frozen=True)
class MaximalPhases:
    """What each phase of the maximal algorithm kept (sorted indices), for explanations
    and tests."""

    backward_places: tuple[int, ...]
    backward_transitions: tuple[int, ...]
    forward_places: tuple[int, ...]
    forward_transitions: tuple[int, ...]
    slice: Slice


MinimalStatus = Literal["sliced", "not-coverable", "undecided"]


@dataclass(frozen=True)
class MinimalResult:
    """`slice` is set exactly when `status` is "sliced". `method` names the procedure
    that decided ("criterion marked in M0", "breadth-first search", "backward
    coverability", "structural") or the bounds that were hit."""

    status: MinimalStatus
    slice: Slice | None
    method: str
    explored: int


# ---- maximal ----------------------------------------------------------------------------


def _producers(net: PTNet) -> list[list[int]]:
    """Per place, the transitions with an arc into it (self-loops included)."""
    prod: list[list[int]] = [[] for _ in net.place_ids]
    for j, arcs in enumerate(net.post):
        for p, _ in arcs:
            prod[p].append(j)
    return prod


def _backward(
    net: PTNet, prod: Sequence[Sequence[int]], start: Iterable[int], allowed: set[int] | None
) -> tuple[set[int], set[int]]:
    """Places and transitions reached backward from `start` over `allowed` transitions
    (all when None): a transition with an arc into a reached place is taken, and its
    input places are reached."""
    places = set(start)
    trans: set[int] = set()
    todo = deque(places)
    while todo:
        p = todo.popleft()
        for j in prod[p]:
            if j in trans or (allowed is not None and j not in allowed):
                continue
            trans.add(j)
            for q, _ in net.pre[j]:
                if q not in places:
                    places.add(q)
                    todo.append(q)
    return places, trans


def _forward(
    net: PTNet, places: set[int], trans: set[int], marking: Sequence[int]
) -> tuple[set[int], set[int]]:
    """Places reached and transitions fired forward from the marked places, inside the
    subnet (places, trans); a transition fires once all its input places are reached.
    Every input place of a transition of the subnet is a place of the subnet (the
    backward phase guarantees it)."""
    missing = {j: len(net.pre[j]) for j in trans}
    consumers: dict[int, list[int]] = {}
    for j in trans:
        for p, _ in net.pre[j]:
            consumers.setdefault(p, []).append(j)
    reached = {p for p in places if marking[p] > 0}
    fired: set[int] = set()
    ready = deque(sorted(j for j, n in missing.items() if n == 0))
    todo = deque(sorted(reached))

    def fire_ready() -> None:
        while ready:
            j = ready.popleft()
            fired.add(j)
            for q, _ in net.post[j]:
                if q in places and q not in reached:
                    reached.add(q)
                    todo.append(q)

    fire_ready()
    while todo:
        p = todo.popleft()
        for j in consumers.get(p, ()):
            missing[j] -= 1
            if missing[j] == 0:
                ready.append(j)
        fire_ready()
    return reached, fired


def maximal_phases(net: PTNet, criterion: Iterable[int], marking: Sequence[int]) -> MaximalPhases:
    """The maximal dynamic slice for ⟨marking, criterion⟩, with each phase's result."""
    q = set(criterion)
    prod = _producers(net)
    bp, bt = _backward(net, prod, q, None)
    fp, ft = _forward(net, bp, bt, marking)
    start = q & fp
    sp, st = _backward(net, prod, start, ft)
    # every input place of a kept transition is reached forward (it fired), so sp ⊆ fp
    return MaximalPhases(
        tuple(sorted(bp)), tuple(sorted(bt)), tuple(sorted(fp)), tuple(sorted(ft)),
        Slice(tuple(sorted(sp)), tuple(sorted(st))),
    )


def maximal_slice(net: PTNet, criterion: Iterable[int], marking: Sequence[int]) -> Slice:
    return maximal_phases(net, criterion, marking).slice


# ---- minimal ----------------------------------------------------------------------------

DEFAULT_MAX_STATES = 200_000


def _slice_of_sequence(net: PTNet, criterion: set[int], seq: Sequence[int]) -> Slice:
    ts = sorted(set(seq))
    ps = set(criterion)
    for j in ts:
        ps.update(p for p, _ in net.pre[j])
    return Slice(tuple(sorted(ps)), tuple(ts), tuple(seq))


def _bfs(
    net: PTNet, places: Sequence[int], trans: Sequence[int], marking: Sequence[int],
    criterion: set[int], max_states: int,
) -> tuple[Literal["found", "exhausted", "bound"], tuple[int, ...], int]:
    """Breadth-first search over markings of the subnet, projected on `places`."""
    idx = {p: k for k, p in enumerate(places)}
    pre = [tuple((idx[p], w) for p, w in net.pre[j]) for j in trans]
    eff: list[tuple[tuple[int, int], ...]] = []
    for j in trans:
        d: dict[int, int] = {}
        for p, w in net.pre[j]:
            d[idx[p]] = d.get(idx[p], 0) - w
        for p, w in net.post[j]:
            if p in idx:
                d[idx[p]] = d.get(idx[p], 0) + w
        eff.append(tuple(sorted((k, v) for k, v in d.items() if v != 0)))
    goal = [idx[p] for p in sorted(criterion)]
    # only transitions reading a marked place (or none) can be enabled
    readers: list[list[int]] = [[] for _ in places]
    always = [k for k in range(len(trans)) if not pre[k]]
    for k in range(len(trans)):
        for p, _ in pre[k]:
            readers[p].append(k)
    m0 = tuple(marking[p] for p in places)
    parent: dict[tuple[int, ...], tuple[tuple[int, ...], int] | None] = {m0: None}
    todo = deque([m0])
    while todo:
        m = todo.popleft()
        cands = set(always)
        for p, v in enumerate(m):
            if v:
                cands.update(readers[p])
        for k in sorted(cands):
            j = trans[k]
            if any(m[p] < w for p, w in pre[k]):
                continue
            n = list(m)
            for p, v in eff[k]:
                n[p] += v
            nm = tuple(n)
            if nm in parent:
                continue
            parent[nm] = (m, j)
            if all(nm[g] > 0 for g in goal):
                seq: list[int] = []
                cur = nm
                while (link := parent[cur]) is not None:
                    cur, tj = link
                    seq.append(tj)
                return "found", tuple(reversed(seq)), len(parent)
            if len(parent) >= max_states:
                return "bound", (), len(parent)
            todo.append(nm)
    return "exhausted", (), len(parent)


Sparse = tuple[tuple[int, int], ...]  # (place, tokens > 0), sorted by place


def _leq(a: Sparse, b: dict[int, int]) -> bool:
    return all(b.get(p, 0) >= v for p, v in a)


def _backward_coverability(
    net: PTNet, trans: Sequence[int], marking: Sequence[int], criterion: set[int],
    max_states: int,
) -> tuple[Literal["found", "not-coverable", "bound"], tuple[int, ...], int]:
    """Level-by-level backward coverability; see the module docstring."""
    m0 = {p: v for p, v in enumerate(marking) if v > 0}
    target: Sparse = tuple((p, 1) for p in sorted(criterion))
    if _leq(target, m0):
        return "found", (), 1
    # element -> (transition, element it leads to), None for the target itself; kept for
    # elements dropped from the basis too, since witnesses may run through them
    link: dict[Sparse, tuple[int, Sparse] | None] = {target: None}
    alive: dict[Sparse, dict[int, int]] = {}
    # b <= m needs supp(b) ⊆ supp(m): index the basis by the smallest place of each
    # element (to find elements below m) and by every place (to find elements above)
    by_first: dict[int, set[Sparse]] = {}
    by_place: dict[int, set[Sparse]] = {}

    def add(e: Sparse, d: dict[int, int]) -> None:
        alive[e] = d
        by_first.setdefault(e[0][0], set()).add(e)
        for p, _ in e:
            by_place.setdefault(p, set()).add(e)

    def drop(e: Sparse) -> None:
        del alive[e]
        by_first[e[0][0]].discard(e)
        for p, _ in e:
            by_place[p].discard(e)

    def witness(start: Sparse) -> tuple[int, ...]:
        seq: list[int] = []
        cur = start
        while (step := link[cur]) is not None:
            seq.append(step[0])
            cur = step[1]
        return tuple(seq)

    add(target, dict(target))
    frontier = [target]
    pre = {j: dict(net.pre[j]) for j in trans}
    post = {j: dict(net.post[j]) for j in trans}
    while frontier:
        new: list[Sparse] = []
        # Expand every element of the previous level that is still minimal *now*, even
        # if this level's elements come to dominate it: skipping it would find its
        # predecessors one level late, and the sequence would not be shortest.
        level = [(m, alive[m]) for m in frontier if m in alive]
        for m, md in level:
            for j in trans:
                pj, qj = pre[j], post[j]
                # a transition that adds to no place of m gives a predecessor >= m
                if not any(qj.get(p, 0) > pj.get(p, 0) for p in md):
                    continue
                need = dict(pj)
                for p, v in md.items():
                    rest = v - qj.get(p, 0)
                    if rest > 0:
                        need[p] = need.get(p, 0) + rest
                if all(m0.get(p, 0) >= v for p, v in need.items()):
                    # covered from M0 in (this level) firings, and in no fewer: any
                    # element below `need` was checked against M0 when it was added
                    link[tuple(sorted(need.items()))] = (j, m)
                    return "found", witness(tuple(sorted(need.items()))), len(link)
                if any(_leq(b, need) for p in need for b in by_first.get(p, ())):
                    continue
                cand: Sparse = tuple(sorted((p, v) for p, v in need.items() if v > 0))
                rare = min((by_place.get(p, set()) for p in need), key=len)
                for b in [b for b in rare if _leq(cand, alive[b])]:
                    drop(b)
                link[cand] = (j, m)
                add(cand, need)
                new.append(cand)
                if len(link) >= max_states:
                    return "bound", (), len(link)
        frontier = new
    return "not-coverable", (), len(link)


def minimal_slice(
    net: PTNet, criterion: Iterable[int], marking: Sequence[int],
    max_states: int = DEFAULT_MAX_STATES,
) -> MinimalResult:
    """The minimal dynamic slice for ⟨marking, criterion⟩ (see the module docstring)."""
    q = set(criterion)
    if all(marking[p] > 0 for p in q):
        return MinimalResult("sliced", _slice_of_sequence(net, q, ()), "criterion marked in M0", 1)
    mx = maximal_phases(net, q, marking)
    if not q <= set(mx.forward_places):
        # some place of Q is never reached even structurally
        return MinimalResult("not-coverable", None, "the forward phase of the maximal slice", 0)
    sl = mx.slice
    # Each procedure is exact but either can blow up where the other does not (the
    # search on unbounded nets, the backward basis on some bounded ones), so they take
    # turns with budgets growing fourfold up to max_states.
    explored = 0
    budget = min(1000, max_states)
    while True:
        status, seq, n1 = _bfs(net, sl.places, sl.transitions, marking, q, budget)
        explored += n1
        if status == "found":
            return MinimalResult(
                "sliced", _slice_of_sequence(net, q, seq), "breadth-first search", explored
            )
        if status == "exhausted":
            return MinimalResult(
                "not-coverable", None, "breadth-first search, all reachable markings seen",
                explored,
            )
        st2, seq, n2 = _backward_coverability(net, sl.transitions, marking, q, budget)
        explored += n2
        if st2 == "found":
            _check_sequence(net, marking, q, seq)
            return MinimalResult(
                "sliced", _slice_of_sequence(net, q, seq), "backward coverability", explored
            )
        if st2 == "not-coverable":
            return MinimalResult("not-coverable", None, "backward coverability", explored)
        if budget >= max_states:
            return MinimalResult(
                "undecided", None,
                f"bound of {max_states} markings hit by breadth-first search and by "
                "backward coverability", explored,
            )
        budget = min(4 * budget, max_states)


def fire_sequence(net: PTNet, marking: Sequence[int], seq: Sequence[int]) -> list[int] | None:
    """The marking after firing `seq`, or None if some transition is not enabled."""
    m = list(marking)
    for j in seq:
        if any(m[p] < w for p, w in net.pre[j]):
            return None
        for p, w in net.pre[j]:
            m[p] -= w
        for p, w in net.post[j]:
            m[p] += w
    return m


def _check_sequence(net: PTNet, marking: Sequence[int], q: set[int], seq: Sequence[int]) -> None:
    # the witness construction guarantees this; a failure is a bug, not an input error
    end = fire_sequence(net, marking, seq)
    if end is None or not all(end[p] > 0 for p in q):
        raise AssertionError("backward coverability produced a sequence that does not cover Q")
