"""The table `ser-prove ltl` prints for a violation's lasso: one row per event with the
source lines of its step, runs of identical consecutive rows folded into one (`×n`),
and for `G p` the rows up to the first state where p is false (the certificate keeps
the whole lasso, which the checker replays; the table shows what the user needs).

Presentation only: it reads a certificate's events that the checker has accepted, and
decides nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from prover.certificate.explain import executes
from prover.ltl.formula import Formula, is_safety
from prover.ltl.lasso import Observation, global_values, holds
from prover.ns import NetworkSystem, Transition

Event = Mapping[str, Any]


@dataclass(frozen=True)
class Row:
    """Events shown as one line: `count` identical consecutive events from `first`."""

    first: int  # 1-based number of the first event folded here
    count: int
    instance: int
    what: str
    lines: tuple[int, ...]


def lines_of(ns: NetworkSystem) -> Callable[[Event], tuple[int, ...]]:
    """The source lines of a step event (none for arrivals, answers, an NS in JSON)."""
    origin: dict[Transition, tuple[int, ...]] = {}
    if ns.origins is not None:
        origin = {t: o.lines for t, o in zip(ns.transitions, ns.origins, strict=False)}

    def lines(ev: Event) -> tuple[int, ...]:
        if ev["event"] != "step":
            return ()
        (fl, fg), (tl, tg) = ev["from"], ev["to"]
        return tuple(sorted(origin.get(Transition(fl, fg, tl, tg), ())))

    return lines


def first_bad(formula: Formula, events: Sequence[Event], initial: str | None
              ) -> int | None:  # fmt: skip
    """For `G p`: how many events lead from the initial state (its globals `initial`,
    written `{A=1}`; None for an NS in JSON, whose global states are opaque to formulas)
    to the first state where p is false (None for other formulas, or if no state of the
    events violates p)."""
    if not is_safety(formula):
        return None
    globals_ = initial
    names: dict[int, str] = {}
    inflight: dict[str, int] = {}
    answered: dict[tuple[str, str], int] = {}
    for i in range(len(events) + 1):
        values = {} if globals_ is None else global_values(globals_)
        seen = Observation(values, dict(inflight), dict(answered))
        if not holds(formula.arg, [seen], 0):
            return i
        if i == len(events):
            return None
        after = _after(events[i], names, inflight, answered, globals_)
        globals_ = None if initial is None else after
    return None


def _after(ev: Event, names: dict[int, str], inflight: dict[str, int],
           answered: dict[tuple[str, str], int], globals_: str | None) -> str | None:
    """The counts updated in place by one event; the globals after it."""
    n = ev["instance"]
    if ev["event"] == "spawn":
        names[n] = ev["request"]
        inflight[names[n]] = inflight.get(names[n], 0) + 1
        return globals_
    if ev["event"] == "step":
        return str(ev["to"][1])
    request = names.get(n, "")
    inflight[request] = inflight.get(request, 0) - 1
    key = (request, str(ev["response"]))
    answered[key] = answered.get(key, 0) + 1
    return globals_


def describe(ev: Event) -> str:
    if ev["event"] == "spawn":
        return f"arrives: {ev['request']}"  # its start is its whole body: not repeated
    if ev["event"] == "step":  # what it ran, as the counterexample tables say it
        return f"{executes(ev['from'][0], ev['to'][0], 60)}; global {ev['from'][1]} → " \
            f"{ev['to'][1]}"
    return f"answers {ev['response']}"


def fold(events: Sequence[Event], lines: Callable[[Event], tuple[int, ...]],
         start: int = 1) -> list[Row]:
    """Rows of `events` (numbered from `start`), identical consecutive ones folded."""
    rows: list[Row] = []
    for i, ev in enumerate(events, start):
        what = describe(ev)
        last = rows[-1] if rows else None
        if last is not None and (last.instance, last.what) == (ev["instance"], what):
            rows[-1] = Row(last.first, last.count + 1, last.instance, what, last.lines)
        else:
            rows.append(Row(i, 1, ev["instance"], what, lines(ev)))
    return rows


def render(ltl: Mapping[str, Any], lines: Callable[[Event], tuple[int, ...]],
           bad: int | None) -> list[str]:
    """The table's lines: up to the first bad state `bad` if given, else the lasso."""
    prefix, loop = list(ltl["prefix"]), list(ltl["loop"])
    out = [f"{'#':>3}  {'instance':<8}  {'line':<6}  event"]
    if bad is not None:
        out += [_line(r) for r in fold((prefix + loop)[:bad], lines)]
        out.append(f"     -- p is false here, so G p is violated (the certificate continues "
                   f"the run to a lasso of {len(prefix) + len(loop)} events) --")
        return out
    out += [_line(r) for r in fold(prefix, lines)]
    if loop:
        out.append("     -- loop: the events below repeat forever --")
        out += [_line(r) for r in fold(loop, lines, len(prefix) + 1)]
    else:
        out.append("     -- the last state repeats forever: nothing can move in it --")
    return out


def _line(r: Row) -> str:
    number = f"{r.first}" if r.count == 1 else f"{r.first}-{r.first + r.count - 1}"
    where = _ranges(r.lines)
    times = f" (×{r.count})" if r.count > 1 else ""
    return f"{number:>3}  {r.instance:<8}  {where:<6}  {r.what}{times}"


def _ranges(lines: tuple[int, ...]) -> str:
    """`5-8,11` for lines 5, 6, 7, 8 and 11."""
    parts: list[str] = []
    for x in lines:
        if parts and x == _last(parts[-1]) + 1:
            parts[-1] = f"{parts[-1].split('-')[0]}-{x}"
        else:
            parts.append(str(x))
    return ",".join(parts)


def _last(part: str) -> int:
    return int(part.rsplit("-", 1)[-1])


def rows_json(ltl: Mapping[str, Any], lines: Callable[[Event], tuple[int, ...]]
              ) -> list[dict[str, Any]]:  # fmt: skip
    """The events of the lasso with their source lines, for `--json`."""
    return [{"number": i, "instance": ev["instance"], "event": ev["event"],
             "lines": list(lines(ev)), "loop": i > len(ltl["prefix"])}
            for i, ev in enumerate([*ltl["prefix"], *ltl["loop"]], 1)]
