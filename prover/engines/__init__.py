"""Search and proof engines.

This package module holds what the counterexample engines share: the trace objects
(`Event`, `Counterexample`) and `replay`, which re-executes a trace on a network system
and returns the completed multiset (used by the engines to validate what they found
before a certificate is written; the checker replays it again independently).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from prover.errors import CertificateError
from prover.frontend.ast import env_text
from prover.frontend.compile import Env
from prover.frontend.steps import ProgramSteps
from prover.ns import NetworkSystem, Transition
from prover.serial.membership import Multiset, Pair, make_multiset

EventKind = Literal["spawn", "step", "respond"]


@dataclass(frozen=True)
class Event:
    """One NS event of a concrete execution, naming the request instance.

    * spawn: instance `instance` of request `request` arrives in local state `local`;
    * step: the instance moves `(local, global_) -> (to_local, to_global)`;
    * respond: the instance, in `local`, leaves with `response`.
    """

    kind: EventKind
    instance: int
    request: str
    local: str
    global_: str | None = None
    to_local: str | None = None
    to_global: str | None = None
    response: str | None = None


@dataclass(frozen=True)
class Counterexample:
    """A finished execution whose completed multiset is not serial.

    `requests` is the number of request instances. `lower_bound` is a number such that
    every counterexample has at least that many requests (established by an exhaustive
    search); `minimal` holds when `requests == lower_bound`.
    """

    events: tuple[Event, ...]
    completed: Multiset
    requests: int
    lower_bound: int
    engine: str

    @property
    def minimal(self) -> bool:
        return self.requests <= self.lower_bound


def replay(ns: NetworkSystem, events: tuple[Event, ...]) -> Multiset:
    """Re-execute `events` from the initial global with nothing in flight.

    Returns the completed multiset; raises `CertificateError` if any event is not
    enabled or something is left in flight at the end.
    """
    response_entries = {(r.local, r.response) for r in ns.responses}
    transitions = set(ns.transitions)
    return _replay(ns.initial_global, {(r.request, r.local) for r in ns.requests},
                   lambda loc, v: (loc, v) in response_entries,
                   lambda t: t in transitions, events)  # fmt: skip


def replay_program(steps: ProgramSteps, events: tuple[Event, ...]) -> Multiset:
    """`replay` on a Ser program's per-variable steps (no network system)."""
    envs: dict[str, Env] = {env_text(steps.initial): steps.initial}

    def enabled(t: Transition) -> bool:
        if t.from_global not in envs:
            return False
        for l2, g2, _ in steps.step_global(t.from_local, envs[t.from_global]):
            text = env_text(g2)
            envs.setdefault(text, g2)
            if (l2, text) == (t.to_local, t.to_global):
                return True
        return False

    def answers(loc: str, v: str) -> bool:
        answer = steps.response(loc)
        return answer is not None and str(answer) == v

    return _replay(env_text(steps.initial), set(steps.entries), answers, enabled, events)


def _replay(initial: str, request_entries: set[tuple[str, str]],
            answers: Callable[[str, str], bool], enabled: Callable[[Transition], bool],
            events: tuple[Event, ...]) -> Multiset:  # fmt: skip
    glob = initial
    inflight: dict[int, tuple[str, str]] = {}
    used: set[int] = set()
    done: list[Pair] = []
    for i, ev in enumerate(events):
        where = f"event {i + 1} ({ev.kind} of instance {ev.instance})"
        if ev.kind == "spawn":
            if ev.instance in used or ev.instance < 1:
                raise CertificateError(f"{where}: instance number reused or not positive")
            if (ev.request, ev.local) not in request_entries:
                raise CertificateError(f"{where}: not a request entry")
            used.add(ev.instance)
            inflight[ev.instance] = (ev.request, ev.local)
            continue
        cur = inflight.get(ev.instance)
        if cur is None or cur[0] != ev.request or cur[1] != ev.local:
            raise CertificateError(f"{where}: instance not in flight at {ev.local!r}")
        if ev.kind == "step":
            t = Transition(ev.local, ev.global_ or "", ev.to_local or "", ev.to_global or "")
            if ev.global_ != glob or not enabled(t):
                raise CertificateError(f"{where}: not an enabled NS transition")
            inflight[ev.instance] = (ev.request, t.to_local)
            glob = t.to_global
        else:
            if ev.response is None or not answers(ev.local, ev.response):
                raise CertificateError(f"{where}: not a response entry")
            del inflight[ev.instance]
            done.append((ev.request, ev.response))
    if inflight:
        raise CertificateError(f"instances still in flight at the end: {sorted(inflight)}")
    return make_multiset(done)
