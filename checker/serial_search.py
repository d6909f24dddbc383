"""A counterexample's obligations, replayed on the one-step semantics, and the exact
serial-multiset search (ser-reference §4.3): only a counterexample's check imports it."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

from checker.errors import ModelError, Undecided, invalid
from checker.semantics import Run, Semantics, apply
from checker.serial_model import Json, vector, vtext

SEARCH_LIMIT = 2_000_000


def counterexample(sem: Semantics, ce: Json) -> Iterator[tuple[str, Callable[[], str]]]:
    """Replayed on the one-step semantics itself, so no NS (and no pair list) is needed."""
    run = Run(sem.initial, {}, {}, set())
    inflight, done = run.inflight, run.done

    def replay() -> str:
        for i, ev in enumerate(ce["events"], 1):
            apply(sem, run, ev, i)
        return f"{len(ce['events'])} events replayed"

    def quiescent() -> str:
        if inflight:
            left = ", ".join(f"{n} at {loc}" for n, (_, loc) in sorted(inflight.items()))
            raise invalid("E-QUIESCENT", f"instances still in flight: {left}")
        return "nothing in flight"

    def completed() -> str:
        claimed = vector(ce["completed"], "completed")
        if claimed != done:
            raise invalid("E-COMPLETED", f"claimed {vtext(claimed)}, replay gives {vtext(done)}")
        return vtext(done)

    def not_serial() -> str:
        if is_serial(sem, done):
            raise invalid("E-SERIAL", f"{vtext(done)} is produced by a serial execution")
        return f"no serial walk produces {vtext(done)}"

    yield "replay", replay
    yield "quiescent", quiescent
    yield "completed", completed
    yield "not-serial", not_serial


def _steps(sem: Semantics, loc: str, g: str) -> list[tuple[str, str]]:
    """A serial run that fails (division by zero, overflow, `exit`, an assertion) answers
    nothing, so it is a dead end of the search, not a rejection of the certificate. A step
    stops at its first failing outcome: where its rest has a choice (`?`), other outcomes
    may finish, which the semantics does not list, so the search cannot go on (fail closed)."""
    try:
        return list(sem.step(loc, g))
    except ModelError as exc:
        if exc.code not in ("E-FAULT", "E-ASSERT"):
            raise
        if "?" in loc:
            raise Undecided(f"a serial run fails in a step with choices ({exc.message}) at "
                            f"{loc}: whether another outcome finishes is not known") from None
        return []


def is_serial(sem: Semantics, multiset: Mapping[tuple[str, str], int]) -> bool:
    """Do requests run one at a time from the initial state answer exactly `multiset`?
    Exhaustive search over (global, remaining counts, running request and its local) on the
    one-step semantics (no NS to trust): the counts bound it, else the search limit."""
    keys = sorted(multiset)
    index = {k: i for i, k in enumerate(keys)}
    entries = sorted(set(sem.requests))
    State = tuple[str, tuple[int, ...], tuple[str, str] | None]
    start: State = (sem.initial, tuple(multiset[k] for k in keys), None)
    seen, todo = {start}, [start]
    while todo:
        g, rest, running = todo.pop()
        nexts: list[State] = []
        if running is None:
            if not any(rest):
                return True
            wanted = {keys[i][0] for i, c in enumerate(rest) if c}
            nexts = [(g, rest, (r, loc)) for r, loc in entries if r in wanted]
        else:
            r, loc = running
            for v in sem.answers(loc):
                i = index.get((r, v), -1)
                if i >= 0 and rest[i]:
                    nexts.append((g, rest[:i] + (rest[i] - 1,) + rest[i + 1 :], None))
            if sem.can_step(loc):
                nexts += [(g2, rest, (r, l2)) for l2, g2 in _steps(sem, loc, g)]
        for nxt in nexts:
            if nxt not in seen:
                if len(seen) >= SEARCH_LIMIT:
                    raise Undecided(f"serial search exceeds {SEARCH_LIMIT} states")
                seen.add(nxt)
                todo.append(nxt)
    return False
