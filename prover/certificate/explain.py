"""Human-readable explanations of counterexamples: a numbered table of the interleaving,
the final multiset and why no serial execution produces it; the same as JSON data; and
a DOT message-sequence chart (`counterexample_to_dot`, used by `export --what
counterexample`).

Everything here is presentation: it reads a `Counterexample` that has already been
replayed, and never decides anything.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from prover.engines import Counterexample, Event
from prover.engines.interaction import WIDE_GROUP, groups
from prover.frontend.ast import env_text
from prover.frontend.compile import Env
from prover.frontend.steps import ProgramSteps
from prover.ns import NetworkSystem, Transition
from prover.serial.automaton import SerialAutomaton, build_serial_automaton
from prover.serial.membership import Multiset, SerialMembership
from prover.serial.ondemand import SerialOnDemand, SoloTooLarge


@dataclass(frozen=True)
class Row:
    """One line of the interleaving table: one atomic action of one instance.

    `action` is "step" (from one yield to the next, possibly with the instance arriving
    just before: `arrives`), or "respond" for a response that does not directly follow a
    step of the same instance in the table. `response` is set when the instance leaves
    with this row.
    """

    index: int
    instance: int
    request: str
    arrives: bool
    action: str
    local_before: str
    local_after: str
    lines: tuple[int, ...]
    global_before: str
    global_after: str
    response: str | None


@dataclass(frozen=True)
class Explanation:
    rows: tuple[Row, ...]
    completed: Multiset
    requests: int
    minimal: bool
    lower_bound: int
    reasons: tuple[str, ...]
    serial_answers: tuple[tuple[str, tuple[str, ...]], ...]
    """Per request name, the responses serial executions from the initial state can give."""
    best_serial_prefix: tuple[tuple[str, str], ...]
    stuck_at: str
    left_over: Multiset
    within: int | None = None  # serial executions explored up to this many requests
    among: tuple[str, ...] = ()  # ... of these requests only (all when empty)


def response_key(response: str) -> tuple[int, int, str]:
    """Responses in numeric order when they are integers (`3` before `10`), text after."""
    try:
        return (0, int(response), "")
    except ValueError:
        return (1, 0, response)


def pair_key(pair: tuple[str, str]) -> tuple[str, tuple[int, int, str]]:
    return (pair[0], response_key(pair[1]))


def _by_pair(ms: Multiset) -> Multiset:
    return tuple(sorted(ms, key=lambda item: pair_key(item[0])))


def _fmt_ms(ms: Multiset) -> str:
    parts = []
    for (r, v), n in _by_pair(ms):
        parts.append(f"{r}/{v}" + (f" ×{n}" if n > 1 else ""))
    return ", ".join(parts) if parts else "(nothing)"


def _ns_lines(ns: NetworkSystem) -> Callable[[Transition], tuple[int, ...]]:
    origin: dict[Transition, tuple[int, ...]] = {}
    if ns.origins is not None:
        origin = {t: o.lines for t, o in zip(ns.transitions, ns.origins, strict=False)}
    return lambda t: origin.get(t, ())


def _program_lines(steps: ProgramSteps) -> Callable[[Transition], tuple[int, ...]]:
    envs: dict[str, Env] = {env_text(steps.initial): steps.initial}

    def lines(t: Transition) -> tuple[int, ...]:
        for l2, g2, ln in steps.step_global(t.from_local, envs.get(t.from_global, ())):
            text = env_text(g2)
            envs.setdefault(text, g2)
            if (l2, text) == (t.to_local, t.to_global):
                return tuple(sorted(ln))
        return ()

    return lines


def build_rows(source: NetworkSystem | ProgramSteps, events: tuple[Event, ...]
               ) -> tuple[Row, ...]:  # fmt: skip
    if isinstance(source, ProgramSteps):
        lines_of, glob = _program_lines(source), env_text(source.initial)
    else:
        lines_of, glob = _ns_lines(source), source.initial_global
    rows: list[Row] = []
    pending_spawn: set[int] = set()
    i = 0
    while i < len(events):
        ev = events[i]
        if ev.kind == "spawn":
            pending_spawn.add(ev.instance)
            i += 1
            continue
        arrives = ev.instance in pending_spawn
        pending_spawn.discard(ev.instance)
        if ev.kind == "step":
            before = glob
            glob = ev.to_global or glob
            response = None
            nxt = events[i + 1] if i + 1 < len(events) else None
            if nxt is not None and nxt.kind == "respond" and nxt.instance == ev.instance:
                response = nxt.response
                i += 1
            t = Transition(ev.local, ev.global_ or "", ev.to_local or "", ev.to_global or "")
            rows.append(
                Row(
                    len(rows) + 1, ev.instance, ev.request, arrives, "step", ev.local,
                    ev.to_local or "", lines_of(t), before, glob, response,
                )
            )
        else:
            rows.append(
                Row(
                    len(rows) + 1, ev.instance, ev.request, arrives, "respond", ev.local,
                    ev.local, (), glob, glob, ev.response,
                )
            )
        i += 1
    return tuple(rows)


def _interacting(steps: ProgramSteps, cex: Counterexample) -> tuple[list[str], bool]:
    """The requests of the counterexample's interaction groups (prover/engines/
    interaction.py), in program order: a serial execution of requests that share no
    global with them neither helps nor hinders producing its pairs, so only these are
    explored and listed. When they are `WIDE_GROUP` or more, only the counterexample's
    own requests (all a serial execution of its multiset runs), and True."""
    group = groups(steps.program)
    used = {group[r] for (r, _), _ in cex.completed}
    names = list(dict.fromkeys(r for r, _ in steps.entries if group[r] in used))
    if len(names) < WIDE_GROUP:
        return names, False
    mine = {r for (r, _), _ in cex.completed}
    return [r for r in names if r in mine], True


EXPLAIN_WORK = 20_000
"""(local, global) pairs the runs alone of an explanation's serial executions may visit
(a count: the explanation of bank16's counterexample once took 7 s, more than the search
and the check together); past it, the explanation does not list the serial answers."""


def _unexplored(source: ProgramSteps, cex: Counterexample, within: int,
                among: tuple[str, ...], why: str) -> Explanation:
    reason = (f"no serial execution gives these pairs (the checker's own serial search "
              f"found none); the explanation did not explore them itself: {why}")
    return Explanation(rows=build_rows(source, cex.events), completed=cex.completed,
                       requests=cex.requests, minimal=cex.minimal,
                       lower_bound=cex.lower_bound, reasons=(reason,), serial_answers=(),
                       best_serial_prefix=(), stuck_at="", left_over=cex.completed,
                       within=within, among=among)


def explain(
    source: NetworkSystem | ProgramSteps,
    cex: Counterexample,
    *,
    automaton: SerialAutomaton | None = None,
    membership: SerialMembership | None = None,
) -> Explanation:
    """The explanation of `cex` on a network system, or on a Ser program's per-variable
    steps: then serial executions are explored only as far as the counterexample's
    number of requests (the statements about them say so)."""
    within: int | None = None
    among: tuple[str, ...] = ()
    if isinstance(source, ProgramSteps):
        within = sum(n for _, n in cex.completed)
        names, only = _interacting(source, cex)
        among = tuple(names) if only else ()
        try:
            oracle = membership or SerialOnDemand(source, frozenset(names), max_work=(
                EXPLAIN_WORK)).membership(within)
        except SoloTooLarge as exc:  # the checker's own search decided it: say less
            return _unexplored(source, cex, within, among, str(exc))
    else:
        aut = automaton or (membership.automaton if membership
                            else build_serial_automaton(source))  # fmt: skip
        oracle = membership or SerialMembership(aut)
        names = list(source.request_names)
    serially = "serial execution" if within is None else \
        f"serial execution of at most {within} requests{_of(among)}"
    producible = oracle.producible_from_initial()
    by_request: dict[str, list[str]] = {r: [] for r in names}
    for r, v in sorted(producible, key=pair_key):
        by_request.setdefault(r, []).append(v)
    serial_answers = tuple((r, tuple(vs)) for r, vs in by_request.items())
    reasons: list[str] = []
    never = [(p, n) for p, n in _by_pair(cex.completed) if p not in producible]
    for (r, v), _ in never:
        answers = by_request.get(r, [])
        if answers:
            reasons.append(
                f"no {serially} answers {r} with {v}: run one at a time from the "
                f"initial state, {r} only answers {', '.join(answers)}"
            )
        else:
            reasons.append(
                f"no {serially} answers {r} at all: run alone from any global state "
                f"a serial execution reaches, {r} never finishes"
            )
    prefix = oracle.longest_serial_prefix(cex.completed)
    used: dict[tuple[str, str], int] = {}
    for e in prefix:
        used[(e.request, e.response)] = used.get((e.request, e.response), 0) + 1
    left = tuple(
        (p, n - used.get(p, 0)) for p, n in cex.completed if n - used.get(p, 0) > 0
    )
    stuck = prefix[-1].target if prefix else oracle.automaton.initial
    if not never:
        done = ", ".join(f"{e.request}/{e.response}" for e in prefix) or "nothing"
        reasons.append(
            f"every pair can occur serially, but not all together: the longest serial order "
            f"using only these pairs completes {done} and then, at global {stuck}, no "
            f"request can answer what is left ({_fmt_ms(left)})"
        )
    return Explanation(
        rows=build_rows(source, cex.events),
        completed=cex.completed,
        requests=cex.requests,
        minimal=cex.minimal,
        lower_bound=cex.lower_bound,
        reasons=tuple(reasons),
        serial_answers=serial_answers,
        best_serial_prefix=tuple((e.request, e.response) for e in prefix),
        stuck_at=stuck,
        left_over=left,
        within=within,
        among=among,
    )


def serial_executions(within: int | None, among: tuple[str, ...]) -> str:
    """"Serial executions", bounded as the explanation explored them."""
    return "Serial executions" if within is None else \
        f"Serial executions of at most {within} requests{_of(among)}"


def _of(among: tuple[str, ...]) -> str:
    return f" of {', '.join(among)}" if among else ""


def _lines(lines: tuple[int, ...]) -> str:
    if not lines:
        return ""
    if len(lines) == 1:
        return f"line {lines[0]}"
    return "lines " + ",".join(str(x) for x in lines)


def _short(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def executes(before: str, after: str, width: int) -> str:
    """What a step ran and how its locals changed: `n := IN; yield  ({} → {n=1})` when the
    rest of the program after it ends the one before it (straight-line code, or the last
    step before an answer), else both local states, shortened."""
    env0, rest0 = _split_local(before)
    env1, rest1 = _split_local(after)
    if before == after:  # a wait that fails (a spin): nothing changes
        return f"waits, nothing changes: {_short(rest0, width)}"
    ran = None
    if rest1.lstrip("-").isdigit():  # it ran to its end and answers
        ran = rest0
    elif rest0.endswith("; " + rest1):
        ran = rest0[: -len(rest1) - 2]
    if ran is None:
        return f"{_short(before, width)} → {_short(after, width)}"
    if env0 == env1:
        return _short(ran, width) + ("" if env0 in ("", "{}") else f"  ({env0})")
    return f"{_short(ran, width)}  ({env0} → {env1})"


def _split_local(local: str) -> tuple[str, str]:
    """`({x=1}, rest)` as (`{x=1}`, `rest`); anything else as ("", itself)."""
    if local.startswith("({") and local.endswith(")") and "}, " in local:
        cut = local.index("}, ")
        return local[1:cut + 1], local[cut + 3:-1]
    return "", local


def render_text(expl: Explanation, *, width: int = 48, columns: int | None = None) -> str:
    """The numbered table, the final multiset and the reasons, as plain text. `columns`:
    the terminal's width, which the table then fits by shortening the local states and
    globals it shows (down to a readable minimum)."""
    out = table_lines(expl.rows, width=width, columns=columns)
    out.append("")
    return _tail(expl, out, columns)


def table_lines(rows: tuple[Row, ...], *, width: int = 48, columns: int | None = None
                ) -> list[str]:  # fmt: skip
    """The numbered interleaving table, fit to `columns` (see `render_text`)."""
    out = _table(rows, width, 80)
    while columns and max(map(len, out)) > columns and width > 12:
        width -= 4
        out = _table(rows, width, max(12, width // 2))
    return out


def _table(rows: tuple[Row, ...], width: int, global_width: int) -> list[str]:
    head = ["#", "instance", "executes", "source", "global before", "global after", "response"]
    table: list[list[str]] = []
    for r in rows:
        who = f"{r.request}#{r.instance}" + (" (new)" if r.arrives else "")
        if r.action == "step":
            what = executes(r.local_before, r.local_after, width)
        else:
            what = f"responds from {_short(r.local_before, width)}"
        table.append(
            [str(r.index), who, what, _lines(r.lines), _short(r.global_before, global_width),
             _short(r.global_after, global_width), r.response if r.response is not None else ""]
        )
    widths = [max([len(h), *(len(row[i]) for row in table)]) for i, h in enumerate(head)]
    out = [
        "  ".join(h.ljust(widths[i]) for i, h in enumerate(head)).rstrip(),
        "  ".join("-" * w for w in widths),
    ]
    for row in table:
        out.append("  ".join(c.ljust(widths[i]) for i, c in enumerate(row)).rstrip())
    return out


def _tail(expl: Explanation, out: list[str], columns: int | None) -> str:
    n = expl.requests
    minimal = (
        "the fewest possible" if expl.minimal
        else f"no counterexample has fewer than {expl.lower_bound}"
    )
    done = f"Completed ({n} request{'s' if n != 1 else ''}, {minimal}): " \
        f"{_fmt_ms(expl.completed)}"
    out += textwrap.wrap(done, columns, subsequent_indent="  ") if columns else [done]
    out.append("Not serializable, because:")
    for reason in expl.reasons:
        out += textwrap.wrap(reason, columns, initial_indent="  - ", subsequent_indent="    ") \
            if columns else [f"  - {reason}"]
    answers = "; ".join(
        f"{r}: {', '.join(vs) if vs else 'never finishes'}" for r, vs in expl.serial_answers
    )
    last = f"{serial_executions(expl.within, expl.among)} from the initial state can answer: " \
        f"{answers}"
    if expl.serial_answers:
        out += textwrap.wrap(last, columns, subsequent_indent="  ") if columns else [last]
    return "\n".join(out)


def typed_env(text: str) -> dict[str, int] | None:
    """`{A[0]=1,X=2}` as {"A[0]": 1, "X": 2}; None for a state that is a name (NS JSON)."""
    if not (text.startswith("{") and text.endswith("}")):
        return None
    out: dict[str, int] = {}
    for item in filter(None, text[1:-1].split(",")):
        name, eq, value = item.rpartition("=")
        if not eq or typed_value(value) is None:
            return None
        out[name] = int(value)
    return out


def typed_value(text: str | None) -> int | None:
    """A response as the integer it is (a Ser program's), else None."""
    return int(text) if text is not None and text.lstrip("-").isdigit() else None


def rows_json(rows: tuple[Row, ...]) -> list[dict[str, Any]]:
    return [
        {
            "index": r.index, "instance": r.instance, "request": r.request,
            "arrives": r.arrives, "action": r.action,
            "from": r.local_before, "to": r.local_after, "lines": list(r.lines),
            "global_before": r.global_before, "global_after": r.global_after,
            "response": r.response, "globals_before": typed_env(r.global_before),
            "globals_after": typed_env(r.global_after), "value": typed_value(r.response),
        }
        for r in rows
    ]


def explanation_json(expl: Explanation) -> dict[str, Any]:
    return {
        "steps": rows_json(expl.rows),
        "completed": [{"request": r, "response": v, "value": typed_value(v), "count": n}
                      for (r, v), n in _by_pair(expl.completed)],
        "requests": expl.requests,
        "minimal": expl.minimal,
        "lower_bound": expl.lower_bound,
        "reasons": list(expl.reasons),
        "serial_answers": {r: list(vs) for r, vs in expl.serial_answers},
        "serial_within": expl.within,
        "serial_among": list(expl.among),
        "longest_serial_order": [{"request": r, "response": v} for r, v in
                                 expl.best_serial_prefix],
        "stuck_at": expl.stuck_at,
        "left_over": [{"request": r, "response": v, "count": n}
                      for (r, v), n in _by_pair(expl.left_over)],
    }


def _dot_str(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def counterexample_to_dot(
    ns: NetworkSystem, cex: Counterexample, *, title: str | None = None
) -> str:
    """A message-sequence chart, read top to bottom: one lane per instance, left to right
    in instance order (`main#1`, `main#2`, ...), and on the left a column with the global
    state after each row. Row k is the k-th atomic action of the interleaving table: a
    box on the lane of the instance that acts (its row number, source lines and response;
    the full local states as an SVG tooltip); nothing crosses the lanes. A lane is drawn
    from the instance's arrival to its response. Ids are `g_<row>` / `i<instance>_<row>`."""
    rows = build_rows(ns, cex.events)
    instances = sorted({r.instance for r in rows})
    req_of = {r.instance: r.request for r in rows}
    first = {i: min(r.index for r in rows if r.instance == i) for i in instances}
    last = {i: max(r.index for r in rows if r.instance == i) for i in instances}
    n = len(rows)
    out = ["digraph counterexample {", "  rankdir=TB;", "  newrank=true;", "  nodesep=0.25;",
           "  ranksep=0.2;", "  node [fontname=Helvetica, fontsize=10];",
           "  edge [arrowhead=none, color=gray60];"]
    if title:
        out.append(f"  label={_dot_str(title)}; labelloc=t; fontname=Helvetica;")
    out.append("  { rank=same;")
    out.append(f"    g_0 [shape=box, style=filled, fillcolor=gray92, "
               f"label={_dot_str('global ' + _short(ns.initial_global, 40))}, "
               f"tooltip={_dot_str(ns.initial_global)}];")
    for i in instances:
        out.append(f"    i{i}_0 [shape=box, style=filled, fillcolor=gray92, "
                   f"label={_dot_str(f'{req_of[i]}#{i}')}];")
    out.append("  }")
    for r in rows:
        k = r.index
        cells = [f"g_{k} [shape=plaintext, label={_dot_str(_short(r.global_after, 40))}, "
                 f"tooltip={_dot_str(r.global_after)}];"]
        for i in instances:
            if i == r.instance:
                text = f"{k}" + (f" · {_lines(r.lines)}" if r.lines else "")
                if r.action == "respond":
                    text = f"{k} · responds"
                if r.response is not None:
                    text += f"\nanswers {r.response}"
                tip = (f"{r.local_before} → {r.local_after}" if r.action == "step"
                       else f"responds from {r.local_before}")
                style = "rounded,filled" if r.response is not None else "rounded"
                cells.append(f"i{i}_{k} [shape=box, style=\"{style}\", fillcolor=gray92, "
                             f"label={_dot_str(text)}, tooltip={_dot_str(tip)}];")
            else:
                visible = first[i] <= k <= last[i]
                cells.append(f"i{i}_{k} [shape=point, width=0.03"
                             + ("" if visible else ", style=invis") + "];")
        out.append(f"  {{ rank=same; {' '.join(cells)} }}")
    # Left-to-right order inside every row (invisible edges), then the lanes themselves.
    for k in range(n + 1):
        chain = " -> ".join([f"g_{k}", *(f"i{i}_{k}" for i in instances)])
        out.append(f"  {chain} [style=invis];")
    for k in range(1, n + 1):
        out.append(f"  g_{k - 1} -> g_{k} [style=invis, weight=100];")
        for i in instances:
            if first[i] < k <= last[i]:
                style = ""  # the instance is in flight
            elif k == first[i]:
                style = ", style=dotted"  # from the lane's head down to its arrival
            elif k < first[i]:
                style = ", style=dotted"
            else:
                style = ", style=invis"  # it has responded
            out.append(f"  i{i}_{k - 1} -> i{i}_{k} [weight=100{style}];")
    out.append("}")
    return "\n".join(out) + "\n"
