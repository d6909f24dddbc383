"""Search for a failing `assert(e)` of a Ser program (docs/language.md, "Assertions").

Breadth-first over the deadlock search's configurations (prover/engines/deadlock.py:
the global state and the multiset of requests in flight), so the first failure found is
one of the shortest: a configuration where a request in flight, or one that arrives
there, takes a step that runs into `assert` with a zero condition. The trace to it is the
certificate's evidence (verdict `assertion_violated`), which the checker replays on its
own semantics. Bounded and deterministic: a budget of states and of requests in flight,
never the clock (the deadline is a safety net only).
"""

from __future__ import annotations

from dataclasses import dataclass

from prover.engines import Event
from prover.engines.deadlock import State, Tables, breadth_first, path_events
from prover.errors import AssertionFailedError
from prover.frontend import ast
from prover.frontend.steps import ProgramSteps

ASSERT_STATES = 50_000
"""State budget of the assertion search (states, not seconds: the same answer on a
loaded machine)."""

ASSERT_INFLIGHT = 4
"""Requests in flight at once that the assertion search considers."""


@dataclass(frozen=True)
class AssertionFailure:
    """A trace, then the instance whose next step fails an assertion, where it is."""

    events: tuple[Event, ...]
    instance: int
    request: str
    local: str
    global_: str
    error: AssertionFailedError


@dataclass(frozen=True)
class AssertionSearch:
    failure: AssertionFailure | None
    states: int
    complete: bool
    max_inflight: int


def has_assertion(program: ast.Program) -> bool:
    return any(isinstance(n, ast.AssertFault) for r in program.requests for n in ast.nodes(r.body))


def find_assertion_failure(steps: ProgramSteps, *, max_states: int = ASSERT_STATES,
                           max_inflight: int = ASSERT_INFLIGHT,
                           deadline: float | None = None) -> AssertionSearch:
    """The first configuration in breadth-first order where a step fails an assertion."""
    tab = Tables(steps)
    hit: list[tuple[bool, str, int]] = []  # the failing step the goal found

    def goal(state: State) -> bool:
        got = _failing(tab, state, max_inflight)
        hit.extend([got] if got is not None else [])
        return got is not None

    found, parent, complete = breadth_first(tab, goal, max_states, max_inflight, deadline)
    if found is None:
        return AssertionSearch(None, len(parent), complete, max_inflight)
    spawn, req, loc = hit[-1]
    events, at = path_events(tab, parent, found)
    if spawn:  # a request that arrives there fails at its first step
        instance = 1 + max((e.instance for e in events), default=0)
        events.append(Event("spawn", instance, req, tab.locals[loc]))
    else:
        instance = at[(req, loc)][0]
    error = tab.failed[(loc, found[0])]
    assert isinstance(error, AssertionFailedError)
    failure = AssertionFailure(tuple(events), instance, req, tab.locals[loc],
                               tab.globals[found[0]], error)
    return AssertionSearch(failure, len(parent), False, max_inflight)


def _failing(tab: Tables, state: State, cap: int) -> tuple[bool, str, int] | None:
    """(arrives?, request, local id) of a step from `state` that fails an assertion."""
    g, inflight = state
    movers = [(False, *tab.tokens[tok]) for tok in sorted(set(inflight))]
    if len(inflight) < cap:
        movers += [(True, req, loc) for req, loc in tab.entries]
    for spawn, req, loc in movers:
        tab.step(loc, g)
        if isinstance(tab.failed.get((loc, g)), AssertionFailedError):
            return spawn, req, loc
    return None
