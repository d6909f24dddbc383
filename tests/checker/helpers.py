"""Certificate builders for the tests (tests may do what the checker may not: search,
generate, trust the checker's own net to enumerate names)."""

from __future__ import annotations

import hashlib
from collections import deque
from pathlib import Path
from typing import Any

from checker.net import Net, Place, Transition, build_net
from checker.semantics import explore, semantics
from checker.serial_search import is_serial

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
Json = Any


def envelope(kind: str, source: str, verdict: str, evidence: Json) -> Json:
    cert: Json = {
        "format": "ser-certificate/1",
        "model": {"kind": kind, "path": "x", "source": source,
                  "sha256": hashlib.sha256(source.encode()).hexdigest()},
        "verdict": verdict,
        "producer": {"tool": "tests", "version": "1", "engine": "hand"},
    }
    cert["counterexample" if verdict == "not_serializable" else "proof"] = evidence
    return cert


def vec(d: dict[tuple[str, str], int]) -> list[Json]:
    return [{"request": r, "response": v, "count": c} for (r, v), c in sorted(d.items()) if c]


# ------------------------------------------------------------------ counterexamples by search


def find_counterexample(kind: str, source: str, max_spawns: int = 4) -> Json:
    """Shortest trace (BFS over the counter abstraction) to a quiescent non-serial marking."""
    ns = explore(semantics(kind, source))
    net, sem = build_net(ns), semantics(kind, source)
    start = (("global", ns.initial), (), ())
    parent: dict[Any, Any] = {start: None}
    todo = deque([start])
    while todo:
        state = todo.popleft()
        g, inflight, done = state
        if not inflight and done and not is_serial(sem, dict(done)):
            return _events(net, parent, state)
        for t in net.transitions:
            nxt = _fire(t, state, max_spawns)
            if nxt is not None and nxt not in parent:
                parent[nxt] = (state, t)
                todo.append(nxt)
    raise AssertionError("no counterexample within the bound")


def _fire(t: Transition, state: Any, max_spawns: int) -> Any:
    g, inflight, done = state
    fl, dn = dict(inflight), dict(done)
    if t.key[0] == "spawn" and sum(fl.values()) + sum(dn.values()) >= max_spawns:
        return None
    for p, _ in t.pre:
        if p[0] == "global" and p != g:
            return None
        if p[0] == "local":
            if fl.get(p, 0) < 1:
                return None
            fl[p] -= 1
    for p, _ in t.post:
        if p[0] == "global":
            g = p
        elif p[0] == "local":
            fl[p] = fl.get(p, 0) + 1
        else:
            dn[(p[1], p[2])] = dn.get((p[1], p[2]), 0) + 1
    return (g, tuple(sorted((k, v) for k, v in fl.items() if v)), tuple(sorted(dn.items())))


def _events(net: Net, parent: dict[Any, Any], state: Any) -> Json:
    path = []
    while parent[state] is not None:
        state, t = parent[state]
        path.append(t)
    path.reverse()
    at: dict[int, tuple[str, str]] = {}
    events: list[Json] = []
    done: dict[tuple[str, str], int] = {}
    for t in path:
        k = t.key
        if k[0] == "spawn":
            n = len(at) + 1 + sum(done.values())
            at[n] = (k[1], k[2])
            events.append({"event": "spawn", "instance": n, "request": k[1], "local": k[2]})
            continue
        n = min(i for i, v in at.items() if v == (k[1], k[2]))
        if k[0] == "step":
            step = {"event": "step", "instance": n, "from": [k[2], k[3]], "to": [k[4], k[5]]}
            events.append(step)
            at[n] = (k[1], k[4])
        else:
            events.append({"event": "respond", "instance": n, "local": k[2], "response": k[3]})
            del at[n]
            done[(k[1], k[3])] = done.get((k[1], k[3]), 0) + 1
    return {"events": events, "completed": vec(done)}


# ------------------------------------------------------------------ proofs


def place_json(p: Place) -> Json:
    return {p[0]: p[1]} if p[0] in ("global", "value") else {p[0]: [p[1], p[2]]}


def transition_json(t: Transition) -> Json:
    k = t.key
    if k[0] == "spawn":
        return {"kind": "spawn", "request": k[1], "local": k[2]}
    if k[0] == "respond":
        return {"kind": "respond", "request": k[1], "local": k[2], "response": k[3]}
    return {"kind": "step", "request": k[1], "from": [k[2], k[3]], "to": [k[4], k[5]]}


def P(p: Place) -> Json:
    return {"place": place_json(p)}


def eq(lhs: Json, rhs: Json) -> Json:
    return {"cmp": "=", "lhs": lhs, "rhs": rhs}


def const(n: int) -> Json:
    return {"const": n}


def state_equation(net: Net) -> Json:
    """M = M0 + C·x, x ≥ 0, with x_t counting firings of t (updates x_t' = x_t + 1)."""
    aux = [f"t{i}" for i in range(len(net.transitions))]
    conj = []
    for p in net.places:
        terms = []
        for a, t in zip(aux, net.transitions, strict=True):
            c = dict(t.post).get(p, 0) - dict(t.pre).get(p, 0)
            if c:
                terms.append([c, {"aux": a}])
        conj.append(eq(P(p), {"sum": [[1, const(int(p == net.initial))], *terms]}))
    conj += [{"cmp": ">=", "lhs": {"aux": a}, "rhs": const(0)} for a in aux]
    updates = [
        {"transition": transition_json(t), "assign": {a: {"sum": [[1, {"aux": a}], [1, const(1)]]}}}
        for a, t in zip(aux, net.transitions, strict=True)
    ]
    return {"aux": aux, "initial_aux": {a: 0 for a in aux}, "formula": {"and": conj},
            "updates": updates}


def component(base: Json, periods: list[Json], end: str, walk: list[tuple[tuple[str, ...], int]],
              circs: list[list[tuple[tuple[str, ...], int]]]) -> Json:
    def edges(es: list[tuple[tuple[str, ...], int]]) -> Json:
        return [{"edge": list(e), "count": c} for e, c in es]

    return {"base": base, "periods": periods, "walk": {"end": end, "edges": edges(walk)},
            "circulations": [{"edges": edges(c)} for c in circs]}


def net_of(kind: str, source: str) -> Net:
    return build_net(explore(semantics(kind, source)))
