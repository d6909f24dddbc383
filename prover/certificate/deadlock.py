"""A deadlock found by prover/engines/deadlock.py, as the certificate's `deadlock` section
(checked by ser-check-cert as a claim of its own), as the warning W-DEADLOCK, and as the
interleaving table and JSON that `ser-prove` prints (docs/cli.md, "Deadlocks").
Presentation only: nothing here decides anything."""

from __future__ import annotations

from typing import Any

from prover.certificate.write import event_json
from prover.engines.deadlock import Blocked, Deadlock, DeadlockSearch
from prover.errors import Diagnostic
from prover.frontend.steps import ProgramSteps


def deadlock_section(found: Deadlock) -> dict[str, Any]:
    return {
        "events": [event_json(e) for e in found.events],
        "global": found.global_,
        "blocked": [{"instance": b.instance, "request": b.request, "local": b.local}
                    for b in found.blocked],
    }


def who_waits(b: Blocked) -> str:
    """`ab#1 (line 10)`: a waiting request and the lines it waits on."""
    at = f" (line {b.lines[0]})" if len(b.lines) == 1 else \
        f" (lines {b.lines[0]}-{b.lines[-1]})" if b.lines else ""
    return f"{b.request}#{b.instance}{at}"


def _extent(search: DeadlockSearch) -> str:
    return f"{search.states:,} states searched, at most {search.max_inflight} requests in flight"


def deadlock_warning(found: Deadlock, search: DeadlockSearch, path: str) -> Diagnostic:
    """W-DEADLOCK, at the first line the first blocked request waits on."""
    who = ", ".join(who_waits(b) for b in found.blocked)
    n = len(found.blocked)
    verb = "waits" if n == 1 else "wait"
    line = found.blocked[0].lines[0] if found.blocked[0].lines else 0
    message = (f"deadlock: {who} {verb} forever at global {found.global_}: each of their "
               f"steps changes nothing, there and wherever requests that arrive can lead "
               f"({_extent(search)})")
    return Diagnostic("W-DEADLOCK", message, path, line, 1 if line else 0)


def deadlock_report(steps: ProgramSteps, search: DeadlockSearch,
                    columns: int | None = None) -> tuple[str, dict[str, Any]]:
    """(text, JSON) of the search: the trace to the deadlock as the counterexample table,
    or what was searched without finding one (and whether the budget cut it)."""
    data: dict[str, Any] = {"found": search.deadlock is not None, "states": search.states,
                            "complete": search.complete, "max_inflight": search.max_inflight}
    found = search.deadlock
    if found is None:
        text = "" if search.complete else \
            f"deadlocks: none found; the search was cut at its budget ({_extent(search)})"
        return text, data
    from prover.certificate.explain import build_rows, rows_json, table_lines  # a trace's

    rows = build_rows(steps, found.events)
    data.update(steps=rows_json(rows), blocked=[
        {"instance": b.instance, "request": b.request, "local": b.local, "lines": list(b.lines)}
        for b in found.blocked])
    data["global"] = found.global_
    lines = ["Deadlock (W-DEADLOCK): after this interleaving, the requests in flight wait "
             "forever:", *table_lines(rows, columns=columns)]
    lines += [f"  {who_waits(b)} waits at {b.local}" for b in found.blocked]
    lines.append(f"  global {found.global_}; requests that arrive never free them")
    return "\n".join(lines), data
