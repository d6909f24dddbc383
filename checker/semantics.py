"""One-step semantics over names: the NS explored from it, NS JSON, replay of events."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any, NamedTuple

from checker.errors import Invalid, LimitError, ModelError, invalid
from checker.model import STATE_BOUND, env_text, local_text, run
from checker.program import parse_program

NS_BOUND = 20_000  # locals + globals an exploration may find (--state-bound)
PAIR_BOUND = 1_000_000  # (local, global) pairs explored by the closure of §2.4


class NS(NamedTuple):
    """A network system over canonical names (strings). Entries are deduplicated."""

    initial: str
    requests: tuple[tuple[str, str], ...]  # (request name, local)
    responses: tuple[tuple[str, str], ...]  # (local, response)
    transitions: tuple[tuple[str, str, str, str], ...]  # (l, g, l2, g2)


# --------------------------------------------------------------------------- one-step semantics


@dataclass(frozen=True)
class Semantics:
    """What every NS is explored from and events replay on; it takes the names it made."""

    initial: str
    requests: tuple[tuple[str, str], ...]  # (request name, initial local)
    step: Callable[[str, str], tuple[tuple[str, str], ...]]  # (l, g) -> [(l2, g2)]
    answers: Callable[[str], tuple[str, ...]]  # the responses a local can give
    can_step: Callable[[str], bool]
    bound_message: Callable[[int], str]
    table: NS | None = None  # NS JSON: the file itself is the closure


def ser_semantics(text: str, constants: dict[str, int] | None = None) -> Semantics:
    init, blocks = parse_program(text, constants)
    states: dict[str, Any] = {}  # "L"/"G" + text -> state: distinct states never share a name

    def name(kind: str, state: Any) -> str:
        shown = local_text(*state) if kind == "L" else env_text(state)
        if states.setdefault(kind + shown, state) != state:
            raise ModelError(f"two distinct states print as {shown!r}")
        return shown

    @cache
    def step(loc: str, glo: str) -> tuple[tuple[str, str], ...]:
        (env, e), g = states["L" + loc], states["G" + glo]
        return tuple(dict.fromkeys((name("L", (l2, v if y else ("int", v))), name("G", g2))
                                   for y, v, l2, g2 in run(e, env, g)))

    def answers(loc: str) -> tuple[str, ...]:
        e = states["L" + loc][1]
        return (str(e[1]),) if e[0] == "int" else ()

    def bound_message(bound: int) -> str:
        values: dict[str, set[int]] = {}
        for key, st in states.items():
            for k, v in st[0] if key[0] == "L" else st:
                values.setdefault(k, set()).add(v)
        var = max(sorted(values), key=lambda k: len(values[k]), default="?")
        return f"compilation exceeds {bound} states (variable {var} keeps growing)"

    requests = tuple(dict.fromkeys((r, name("L", ((), body))) for r, body in blocks))
    return Semantics(name("G", init), requests, step, answers,
                     lambda loc: states["L" + loc][1][0] != "int", bound_message)  # fmt: skip


def ns_semantics(ns: NS) -> Semantics:
    succ: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for loc, g, l2, g2 in ns.transitions:
        succ.setdefault((loc, g), []).append((l2, g2))
    answers: dict[str, list[str]] = {}
    for loc, v in ns.responses:
        answers.setdefault(loc, []).append(v)
    sources = {t[0] for t in ns.transitions}
    return Semantics(ns.initial, ns.requests, lambda loc, g: tuple(succ.get((loc, g), ())),
                     lambda loc: tuple(answers.get(loc, ())), sources.__contains__,
                     lambda bound: f"NS exceeds {bound} states", ns)  # fmt: skip


def explore(sem: Semantics, pairs: frozenset[tuple[str, str]] | None = None,
            bound: int = NS_BOUND) -> NS:
    """The NS discovered from the initial states: the closure (ser-reference §2.4), or with
    `pairs`, each local stepped only at the globals listed with it (DESIGN.md)."""
    if pairs is None and sem.table is not None:
        return sem.table
    by_l, by_g = dict[str, list[str]](), dict[str, list[str]]()
    for loc, g in pairs or ():
        by_l.setdefault(loc, []).append(g)
        by_g.setdefault(g, []).append(loc)
    locs, globs = dict[str, None](), {sem.initial: None}
    responses, todo = dict[tuple[str, str], None](), list[tuple[str, str]]()
    transitions: dict[tuple[str, str, str, str], None] = {}

    def found(new_l: list[str], new_g: list[str]) -> None:
        for loc in new_l:
            responses.update(((loc, v), None) for v in sem.answers(loc))
            if sem.can_step(loc):
                todo.extend((loc, g) for g in (globs if pairs is None else by_l.get(loc, ()))
                            if g in globs)  # fmt: skip
        for g in new_g:
            todo.extend((loc, g) for loc in (locs if pairs is None else by_g.get(g, ()))
                        if loc in locs and sem.can_step(loc))  # fmt: skip

    locs.update(dict.fromkeys(loc for _, loc in sem.requests))
    found(list(locs), [])
    done: set[tuple[str, str]] = set()
    while todo:
        pair = todo.pop()
        if pair in done:
            continue
        done.add(pair)
        if len(done) > PAIR_BOUND:
            raise ModelError(f"compilation explores more than {PAIR_BOUND} (local, global) pairs")
        new_l, new_g = [], []
        for l2, g2 in sem.step(*pair):
            transitions[(*pair, l2, g2)] = None
            if l2 not in locs:
                locs[l2] = None
                new_l.append(l2)
            if g2 not in globs:
                globs[g2] = None
                new_g.append(g2)
        if len(locs) + len(globs) > bound:
            raise ModelError(sem.bound_message(bound))
        found(new_l, new_g)
    if pairs is not None and not pairs <= done:
        loc, g = min(pairs - done)
        raise Invalid(f"listed pair ({loc}, {g}) is never discovered or cannot step",
                      code="E-PAIRS")  # fmt: skip
    return NS(sem.initial, sem.requests, tuple(responses), tuple(transitions))


# --------------------------------------------------------------------------- NS JSON (§3)


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    if len(out := dict(pairs)) != len(pairs):
        raise ModelError("NS JSON: an object repeats a key")
    return out


def load_ns_json(text: str) -> NS:
    try:
        data = json.loads(text, object_pairs_hook=_no_duplicates)
    except (ValueError, RecursionError) as exc:
        raise ModelError(f"NS JSON: {str(exc)[:200]}") from None
    if not isinstance(data, dict):
        raise ModelError("NS JSON: top level is not an object")
    shapes = {"requests": 2, "responses": 2, "transitions": 4}
    if missing := [key for key in ("initial_global", *shapes) if key not in data]:
        raise ModelError(f"NS JSON: missing member {missing[0]!r}")
    if not isinstance(data["initial_global"], str):
        raise ModelError("NS JSON: initial_global is not a string")
    rows: dict[str, tuple[Any, ...]] = {}
    for key, width in shapes.items():
        items = data[key]
        if not isinstance(items, list) or not all(isinstance(r, list) and len(r) == width and all(
                isinstance(s, str) for s in r) for r in items):  # fmt: skip
            raise ModelError(f"NS JSON: {key} must be a list of {width}-string lists")
        if len(items) > PAIR_BOUND:
            raise ModelError(f"NS JSON: more than {PAIR_BOUND} {key}")
        rows[key] = tuple(dict.fromkeys(tuple(r) for r in items))
    names = {n for r in rows["transitions"] for n in r} | {r[1] for r in rows["requests"]}
    if len(names | {r[0] for r in rows["responses"]}) > STATE_BOUND:
        raise ModelError(f"NS JSON: more than {STATE_BOUND} states (the compilation bound)")
    return NS(data["initial_global"], rows["requests"], rows["responses"], rows["transitions"])


def semantics(kind: str, text: str, constants: dict[str, int] | None = None) -> Semantics:
    if kind != "ser" and constants:
        raise invalid("E-CONSTANTS", "a network system has no constants")
    try:
        return ser_semantics(text, constants) if kind == "ser" else ns_semantics(load_ns_json(text))
    except RecursionError:
        raise ModelError("model nested too deeply") from None


# --------------------------------------------------------------------------- replaying events

Vector = dict[tuple[str, str], int]


@dataclass
class Run:
    """Global state, instances in flight (request, local), answers, instances used."""

    glob: str
    inflight: dict[int, tuple[str, str]]
    done: Vector
    used: set[int]


def apply(sem: Semantics, run: Run, ev: Any, i: int) -> None:
    """Event number `i` on the one-step semantics itself (no NS, no pair list needed)."""
    n = ev["instance"]
    where = f"event {i} ({ev['event']} of instance {n})"
    if ev["event"] == "spawn":
        if n in run.used:
            raise invalid("E-REPLAY", f"{where}: instance {n} was used before")
        if (ev["request"], ev["local"]) not in sem.requests:
            raise invalid("E-REPLAY", f"{where}: not a request entry of the model")
        run.used.add(n)
        run.inflight[n] = (ev["request"], ev["local"])
        return
    loc = ev["from"][0] if ev["event"] == "step" else ev["local"]
    if n not in run.inflight or run.inflight[n][1] != loc:
        raise invalid("E-REPLAY", f"{where}: instance {n} is not in flight at {loc}")
    req = run.inflight[n][0]
    if ev["event"] == "step":
        (_, g), to = ev["from"], tuple(ev["to"])
        if g != run.glob:
            raise invalid("E-REPLAY", f"{where}: the global state is {run.glob}, not {g}")
        if to not in sem.step(loc, g):
            raise invalid("E-REPLAY", f"{where}: not a step of the model")
        run.inflight[n], run.glob = (req, to[0]), to[1]
        return
    if ev["response"] not in sem.answers(loc):
        raise invalid("E-REPLAY", f"{where}: {loc} does not answer {ev['response']}")
    del run.inflight[n]
    run.done[(req, ev["response"])] = run.done.get((req, ev["response"]), 0) + 1


def replay(model: dict[str, Any], events: list[Any], max_events: int, code: str
           ) -> tuple[Semantics, Run]:  # fmt: skip
    """A trace of a Ser program (else `code`) replayed from the initial configuration."""
    if model["kind"] != "ser":
        raise invalid(code, "a trace of this kind is for a Ser program only")
    if len(events) > max_events:
        raise LimitError(f"more than {max_events} events in the trace")
    sem = ser_semantics(model["source"], model.get("constants"))
    run = Run(sem.initial, {}, {}, set())
    for i, ev in enumerate(events, 1):
        apply(sem, run, ev, i)
    return sem, run
