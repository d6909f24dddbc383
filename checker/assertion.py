"""The assertion claim (docs/certificates.md, "Assertions"): a trace, replayed on the
checker's own one-step semantics, leaves an instance in flight at a local state whose
next step, at the global the trace ends in, runs into a failing `assert` (the semantics
itself says so: E-ASSERT, which no other fault raises)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from checker.certificate import Limits
from checker.errors import ModelError, invalid
from checker.semantics import replay

Steps = Iterator[tuple[str, Callable[[], str]]]


def assertion(data: dict[str, Any], limits: Limits, remaining: Callable[[], float]) -> Steps:
    """`assertion-replay`: the trace replays; `assertion-fails`: the instance named is in
    flight where the section says, and a step of it from there fails an assertion."""
    section, state = data["assertion"], dict[str, Any]()

    def replayed() -> str:
        state["sem"], state["run"] = replay(data["model"], section["events"],
                                            limits.max_events, "E-ASSERTION")
        return f"{len(section['events'])} events replayed"

    def fails() -> str:
        sem, run, n = state["sem"], state["run"], section["instance"]
        at = (section["request"], section["local"])
        if run.inflight.get(n) != at or run.glob != section["global"]:
            raise invalid("E-ASSERTION", f"after the trace, instance {n} is not in flight at "
                                         f"{at[1]} with global {section['global']}")
        try:
            sem.step(at[1], run.glob)
        except ModelError as exc:
            if exc.code != "E-ASSERT":
                raise
            return f"{at[0]} #{n} fails an assertion at global {run.glob}"
        raise invalid("E-ASSERTION", f"no step of {at[1]} at global {run.glob} fails an "
                                     "assertion")

    yield "assertion-replay", replayed
    yield "assertion-fails", fails
