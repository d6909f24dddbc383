"""The deadlock section of a certificate (docs/certificates.md, "Deadlock"): a trace,
replayed on the checker's own one-step semantics, ends in a configuration where requests
are in flight, none can answer, and each one's every step only stutters, there and at
every global that requests arriving afterwards can reach. A claim of its own: the
verdict's evidence is checked apart, and this module is loaded only for a certificate
that has the section."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

from checker.certificate import Limits
from checker.errors import invalid
from checker.semantics import Run, Semantics, explore, replay

Steps = Iterator[tuple[str, Callable[[], str]]]


def deadlock(model: dict[str, Any], section: dict[str, Any], limits: Limits,
             before: Steps) -> Steps:
    """The obligations `before` (the verdict's), then those of the deadlock section: its
    trace replays, and it is stuck."""
    state: dict[str, Any] = {}

    def replayed() -> str:
        state["sem"], state["run"] = replay(model, section["events"], limits.max_events,
                                            "E-DEADLOCK")
        return f"{len(section['events'])} events replayed"

    def stuck() -> str:
        sem, run = state["sem"], state["run"]
        _same_blocked(run, section)
        if section["global"] != run.glob:
            raise invalid("E-DEADLOCK", f"the trace ends at global {run.glob}, not "
                                        f"{section['global']}")  # fmt: skip
        for n, (_, loc) in sorted(run.inflight.items()):
            if sem.answers(loc):
                raise invalid("E-DEADLOCK", f"instance {n} can answer at {loc}")
        globs = _arrivals(sem, run.glob)
        for glob in globs:
            for loc in sorted({loc for _, loc in run.inflight.values()}):
                _only_stutters(sem, loc, glob)
        return (f"{len(run.inflight)} requests wait forever at global {run.glob} and at the "
                f"{len(globs) - 1} other globals that arriving requests can reach")

    yield from before
    yield "deadlock-replay", replayed
    yield "deadlock-stuck", stuck


def _same_blocked(run: Run, section: dict[str, Any]) -> None:
    """The blocked list names exactly the instances in flight, once each."""
    listed = [(b["instance"], b["request"], b["local"]) for b in section["blocked"]]
    actual = sorted((n, r, loc) for n, (r, loc) in run.inflight.items())
    if sorted(listed) != actual or not actual:
        raise invalid("E-DEADLOCK", "the blocked requests are not those in flight at the end "
                                    f"of the trace ({len(actual)} in flight)")  # fmt: skip


def _arrivals(sem: Semantics, glob: str) -> list[str]:
    """`glob` and every global the closure from it (ser-reference's, over any number of
    requests that arrive, with the blocked ones left out) discovers: every global that
    arriving requests can reach, and perhaps more (bounded: E-MODEL beyond NS_BOUND)."""
    ns = explore(replace(sem, initial=glob))
    return sorted({glob} | {t[3] for t in ns.transitions})


def _only_stutters(sem: Semantics, loc: str, glob: str) -> None:
    """Every step of `loc` at `glob` ends where it started (or there is none)."""
    if not sem.can_step(loc):
        return
    for to in sem.step(loc, glob):
        if to != (loc, glob):
            raise invalid("E-DEADLOCK", f"{loc} can step at global {glob} to {to[0]}, {to[1]}")
