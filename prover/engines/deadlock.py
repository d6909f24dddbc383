"""Search for deadlocks of a Ser program (docs/cli.md, "Deadlocks": W-DEADLOCK).

A *deadlock* is a configuration reached from the initial one by a finite execution in
which at least one request is in flight, none of them can answer, and each one's every
step only stutters (ends in the same local state and the same global state: a failed
wait, a spin; or there is no step at all, a loop without `yield` that never ends), at the
current global state and at every global state that requests arriving from there on can
reach (the closure of their local states over the global states, an over-approximation).
Only requests change globals; the ones in flight change nothing and the arriving ones
never reach a global where those could move, so they wait forever. Requests that arrived
earlier and finished are in the trace, so this covers a global deadlock and a set of
requests that wait on each other while the rest finish or keep arriving.

The search is breadth-first over the counter abstraction of the explicit search
(prover/engines/explicit.py, whose per-variable step view it reads): a state is the
global state and the multiset of in-flight (request, local state) tokens; what finished
is forgotten, since it does not matter for being stuck. Spawns are fused with the new
instance's first step (an instance that never stepped holds nothing: removing it keeps
the others stuck), responses follow the step that reaches an answer, and stutters are
never taken (they change nothing). Shortest traces come first. Bounded and
deterministic: a budget of states and a bound on the requests in flight at once,
never the clock; the result says whether the search was complete under the bound or cut.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from prover.engines import Event
from prover.engines.explicit import _ProgramTables as Tables
from prover.frontend.steps import ProgramSteps

DEADLOCK_STATES = 20_000
"""State budget of the deadlock search (a budget in states keeps the report the same on
a loaded machine)."""

DEADLOCK_INFLIGHT = 3
"""Requests in flight at once that the search considers (deadlocks of two requests, as
two locks taken in opposite orders, need two)."""

ARRIVALS_BOUND = 2_000
"""Local and global states of the closure of arriving requests (the checker's bound is
20,000: a closure the prover accepts, the checker explores)."""

ARRIVALS_PAIRS = 20_000
"""(Local, global) pairs that closure may step (the checker's bound is 1,000,000)."""

ARRIVALS_TOTAL = 100_000
"""(Local, global) pairs all the closures of one search may step together: workers that
spin at every global state of a work queue over eight slots asked for a closure at each of
them (28 s after a counterexample found in 0.1 s); beyond it, no further deadlock is
claimed (the search says it was cut)."""

State = tuple[int, tuple[int, ...]]  # (global id, sorted in-flight token ids)
Move = tuple[bool, int, int]  # (spawn?, token id or entry index, step target index)


@dataclass(frozen=True)
class Blocked:
    """A request instance that waits forever, at its local state."""

    instance: int
    request: str
    local: str
    lines: tuple[int, ...]  # the source lines its waiting steps run (none: no step)


@dataclass(frozen=True)
class Deadlock:
    """A trace from the initial configuration, the global state it ends in, and the
    instances then in flight: every one of them is stuck."""

    events: tuple[Event, ...]
    global_: str
    blocked: tuple[Blocked, ...]


@dataclass(frozen=True)
class DeadlockSearch:
    """`deadlock` is None when none was found; `complete` when every configuration with
    at most `max_inflight` requests in flight was explored (else the budget cut it)."""

    deadlock: Deadlock | None
    states: int
    complete: bool
    max_inflight: int


def find_deadlock(steps: ProgramSteps, *, max_states: int = DEADLOCK_STATES,
                  max_inflight: int = DEADLOCK_INFLIGHT,
                  deadline: float | None = None) -> DeadlockSearch:
    """The first deadlock in breadth-first order, within the budget of states. The
    `deadline` is only a safety net (a step that costs seconds): the verdict found before
    the search must not be lost to it; cut there, the search says it was cut."""
    tab = Tables(steps)
    reach: dict[int, tuple[int, ...] | None] = {}
    spent = [0]  # the pairs the closures stepped, all together (ARRIVALS_TOTAL)
    found, parent, complete = breadth_first(
        tab, lambda s: bool(s[1]) and _frozen(tab, s[0], s[1], reach, spent, deadline),
        max_states, max_inflight, deadline, lambda: spent[0] > ARRIVALS_TOTAL)
    return DeadlockSearch(None if found is None else _trace(tab, parent, found), len(parent),
                          complete, max_inflight)


Parents = dict[State, tuple[State, Move] | None]


def breadth_first(tab: Tables, goal: Callable[[State], bool], max_states: int,
                  max_inflight: int, deadline: float | None,
                  cut: Callable[[], bool] = lambda: False
                  ) -> tuple[State | None, Parents, bool]:  # fmt: skip
    """The first state in breadth-first order that meets `goal` (else None), the parent
    links to it, and whether every state with at most `max_inflight` requests in flight
    was seen (not cut by the budget of states, `cut` or the deadline)."""
    start: State = (tab.initial, ())
    parent: Parents = {start: None}
    todo: deque[State] = deque([start])
    while todo:
        state = todo.popleft()
        if goal(state):
            return state, parent, False
        if len(parent) > max_states or cut() or (
                deadline is not None and time.monotonic() > deadline):
            return None, parent, False
        for s2, move in _successors(tab, state, max_inflight):
            if s2 not in parent:
                parent[s2] = (state, move)
                todo.append(s2)
    return None, parent, True


def _stutters(tab: Tables, locs: set[int], g: int) -> bool:
    return all(t == (loc, g) for loc in sorted(locs) for t in tab.step(loc, g))


def _frozen(tab: Tables, g: int, inflight: tuple[int, ...],
            reach: dict[int, tuple[int, ...] | None], spent: list[int],
            deadline: float | None = None) -> bool:
    """Every request in flight only stutters at `g` and at every global that requests
    arriving from `g` on can reach (their closure, cached per `g` when it was made
    whole; too large: no). The closure stops at the first global where one of them moves
    (most configurations are no deadlock: their closure is cut short, not made whole)."""
    locs = {tab.tokens[tok][1] for tok in inflight}
    if not _stutters(tab, locs, g):
        return False
    if g not in reach:
        globs = _arrivals(tab, g, spent, deadline, lambda g2: _stutters(tab, locs, g2))
        if globs is False:
            return False  # one moves: this closure is not whole, nothing kept
        reach[g] = globs
    globs = reach[g]
    return globs is not None and all(_stutters(tab, locs, g2) for g2 in globs)


def _arrivals(tab: Tables, g: int, spent: list[int], deadline: float | None = None,
              still: Callable[[int], bool] = lambda _: True
              ) -> tuple[int, ...] | None | Literal[False]:  # fmt: skip
    """The globals of the closure from `g` over the requests' own local states (every
    local state found stepped at every global found: what any number of arriving
    requests can reach, and perhaps more), as the checker computes it; None beyond
    `ARRIVALS_BOUND` states or `ARRIVALS_PAIRS` pairs (then no deadlock is claimed), and
    False at the first global found that fails `still`."""
    globs: dict[int, None] = {g: None}
    locs: dict[int, None] = dict.fromkeys(loc for _, loc in tab.entries)
    done: set[tuple[int, int]] = set()
    grew = True
    while grew:
        grew = False
        for loc, g2 in [(a, b) for a in list(locs) for b in list(globs) if (a, b) not in done]:
            done.add((loc, g2))
            spent[0] += 1
            if deadline is not None and spent[0] % 64 == 0 and time.monotonic() > deadline:
                spent[0] = ARRIVALS_TOTAL + 1  # the safety net: the search ends as cut
                return None
            for l3, g3 in tab.step(loc, g2):
                grew |= l3 not in locs or g3 not in globs
                locs.setdefault(l3, None)
                if g3 not in globs:
                    if not still(g3):
                        return False
                    globs[g3] = None
            if len(locs) + len(globs) > ARRIVALS_BOUND or len(done) > ARRIVALS_PAIRS:
                return None
    return tuple(globs)


def _after(tab: Tables, inflight: tuple[int, ...], req: str, l2: int) -> tuple[int, ...]:
    """The in-flight tokens after an instance of `req` reached `l2`: it leaves when `l2`
    answers (a response changes no global), else it stays at `l2`."""
    if tab.answers(l2):
        return inflight
    return tuple(sorted((*inflight, tab.token(req, l2))))


def _successors(tab: Tables, state: State, cap: int) -> list[tuple[State, Move]]:
    g, inflight = state
    out: list[tuple[State, Move]] = []
    for tok in sorted(set(inflight)):
        req, loc = tab.tokens[tok]
        rest = list(inflight)
        rest.remove(tok)
        for ti, (l2, g2) in enumerate(tab.step(loc, g)):
            if (l2, g2) != (loc, g):  # a stutter changes nothing
                out.append(((g2, _after(tab, tuple(rest), req, l2)), (False, tok, ti)))
    if len(inflight) >= cap:
        return out
    for ei, (req, l0) in enumerate(tab.entries):
        for ti, (l2, g2) in enumerate(tab.step(l0, g)):
            if (l2, g2) != (l0, g):
                out.append(((g2, _after(tab, inflight, req, l2)), (True, ei, ti)))
    return out


def _trace(tab: Tables, parent: Parents, final: State) -> Deadlock:
    """The parent chain as events with numbered instances; the instances left in flight
    are the blocked ones."""
    events, at = path_events(tab, parent, final)
    g = final[0]
    blocked = sorted((Blocked(i, req, tab.locals[loc], _waits(tab, loc, g))
                      for (req, loc), insts in at.items() for i in insts),
                     key=lambda b: b.instance)  # fmt: skip
    return Deadlock(tuple(events), tab.globals[g], tuple(blocked))


def path_events(tab: Tables, parent: Parents, final: State
                ) -> tuple[list[Event], dict[tuple[str, int], list[int]]]:  # fmt: skip
    """The parent chain to `final` as events with instances numbered from 1, and the
    instances in flight at its end by (request, local id)."""
    path: list[tuple[State, Move]] = []
    link = parent[final]
    while link is not None:
        path.append(link)
        link = parent[link[0]]
    events: list[Event] = []
    at: dict[tuple[str, int], list[int]] = {}  # (request, local id) -> instances there
    count = 0
    names = tab.locals
    for (g, _), (spawn, a, ti) in reversed(path):
        if spawn:
            req, loc = tab.entries[a]
            count += 1
            inst = count
            events.append(Event("spawn", inst, req, names[loc]))
        else:
            req, loc = tab.tokens[a]
            inst = at[(req, loc)].pop(0)
        l2, g2 = tab.step(loc, g)[ti]
        events.append(Event("step", inst, req, names[loc], global_=tab.globals[g],
                            to_local=names[l2], to_global=tab.globals[g2]))
        answers = tab.answers(l2)
        if answers:
            events.append(Event("respond", inst, req, names[l2], response=answers[0]))
        else:
            at.setdefault((req, l2), []).append(inst)
    return events, at


def _waits(tab: Tables, loc: int, g: int) -> tuple[int, ...]:
    outcomes = tab.source.step_global(tab.locals[loc], tab.genv[g])
    return tuple(sorted(set().union(*(lines for _, _, lines in outcomes))))
