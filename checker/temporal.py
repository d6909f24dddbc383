"""Lasso certificates: an execution with at most K requests that violates an LTL-X formula
(docs/ltl.md). The lasso is replayed on the checker's own one-step semantics, the formula
parsed by the checker's own grammar, and its truth on the ultimately periodic word
computed from the definition of each operator: no automaton is believed."""

from __future__ import annotations

import operator
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

from checker.errors import invalid
from checker.ltl import nodes, parse_for
from checker.semantics import Run, Semantics, apply, explore

Json = Any
Thunk = Callable[[], str]

_CMP = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
        ">": operator.gt, ">=": operator.ge}
Conf = tuple[str, dict[int, tuple[str, str]], dict[tuple[str, str], int]]
Obs = tuple[dict[str, int], Counter[str], dict[tuple[str, str], int]]


def _value(t: Json, obs: Obs) -> int:
    glob, inflight, done = obs
    if t[0] == "num":
        return int(t[1])
    if t[0] == "var":
        return glob.get(t[1], 0)
    if t[0] == "count":
        if t[1] == "inflight":
            return inflight[t[2]]
        return sum(n for (r, v), n in done.items() if r == t[2] and t[3] in (None, v))
    a, b = _value(t[2], obs), _value(t[3], obs)
    if t[1] in ("/", "%"):  # Ser's: truncated toward zero
        if b == 0:
            raise invalid("E-LTL-FORMULA", "the formula divides by zero on this lasso")
        q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
        return q if t[1] == "/" else a - b * q
    return a + b if t[1] == "+" else a - b if t[1] == "-" else a * b


def _until(a: list[bool], b: list[bool], loop: int) -> list[bool]:
    """a U b at each position: on the loop, look ahead once around it; before, backwards."""
    n, u = len(a), [False] * len(a)
    for i in range(loop, n):
        j = i
        for _ in range(n - loop):
            if b[j] or not a[j]:
                u[i] = b[j]
                break
            j = j + 1 if j + 1 < n else loop
    for i in reversed(range(loop)):
        u[i] = b[i] or (a[i] and u[i + 1])
    return u


def _truth(f: Json, word: list[Obs], loop: int) -> list[bool]:
    n, op = len(word), f[0]
    if op == "const":
        return [bool(f[1])] * n
    if op == "cmp":
        return [_CMP[f[1]](_value(f[2], o), _value(f[3], o)) for o in word]
    if op == "not":
        return [not x for x in _truth(f[1], word, loop)]
    a = _truth(f[1], word, loop)
    never_not_a = [not x for x in _until([True] * n, [not x for x in a], loop)]  # G a
    if op in ("G", "F"):
        return never_not_a if op == "G" else _until([True] * n, a, loop)
    b = _truth(f[2], word, loop)
    if op == "U":
        return _until(a, b, loop)
    if op == "R":  # b until and including a, or b forever
        return [not x for x in _until([not x for x in a], [not y for y in b], loop)]
    if op == "W":
        return [x or y for x, y in zip(_until(a, b, loop), never_not_a, strict=True)]
    both = {"&&": operator.and_, "||": operator.or_, "<->": operator.eq,
            "->": lambda x, y: not x or y}[op]
    return [bool(both(x, y)) for x, y in zip(a, b, strict=True)]


def _observe(c: Conf, kind: str) -> Obs:
    glob: dict[str, int] = {}
    if kind == "ser":  # a Ser global state is printed {A=1,B=-2}
        glob = {k: int(v) for k, v in (p.split("=") for p in c[0][1:-1].split(",") if p)}
    return glob, Counter(r for r, _ in c[1].values()), c[2]


def _key(c: Conf) -> tuple[Any, ...]:
    """A configuration up to which instance is which: all the future and the atoms see."""
    return c[0], sorted(Counter(c[1].values()).items()), sorted(c[2].items())


def _can_move(sem: Semantics, c: Conf, n: int) -> bool:
    loc = c[1][n][1]
    return bool(sem.step(loc, c[0]) or sem.answers(loc))


def lasso(sem: Semantics, kind: str, ltl: Json) -> Iterator[tuple[str, Thunk]]:
    prefix, loop, state = ltl["prefix"], ltl["loop"], {}
    k = ltl["requests"]

    def formula() -> str:
        state["f"] = f = parse_for({r for r, _ in sem.requests}, ltl["formula"])
        if kind != "ser" and any(n[0] == "var" for n in nodes(f)):
            raise invalid("E-LTL-FORMULA", "an NS in JSON has no global variables to read")
        return "parsed by the checker's own grammar"

    def replay() -> str:
        run = Run(sem.initial, {}, {}, set())
        confs: list[Conf] = [(run.glob, {}, {})]
        for i, ev in enumerate(prefix + loop, 1):
            apply(sem, run, ev, i)
            confs.append((run.glob, dict(run.inflight), dict(run.done)))
        if len(run.used) > k:
            raise invalid("E-LTL-REQUESTS", f"{len(run.used)} requests arrive, more than {k}")
        state["confs"] = confs
        return f"{len(prefix)} + {len(loop)} events replayed, {len(run.used)} requests"

    def closes() -> str:
        confs: list[Conf] = state["confs"]
        if not loop:
            moving = [n for n in sorted(confs[-1][1]) if _can_move(sem, confs[-1], n)]
            if moving:
                raise invalid("E-LTL-LOOP", f"the loop is empty, but instance {moving[0]} can "
                              "still move in the last state: the execution is not maximal")
            return "the last state repeats: nothing can move in it"
        if _key(confs[len(prefix)]) != _key(confs[-1]):
            raise invalid("E-LTL-LOOP", "the loop does not return to the state it starts in")
        return f"the loop of {len(loop)} events returns to the state it starts in"

    def fair() -> str:
        if ltl["fairness"] == "none":
            return "no fairness asked"
        cycle: list[Conf] = state["confs"][len(prefix):-1] or state["confs"][-1:]
        moved = {ev["instance"] for ev in loop}
        for n in sorted(set.intersection(*(set(c[1]) for c in cycle)) - moved):
            if all(_can_move(sem, c, n) for c in cycle):
                raise invalid("E-LTL-FAIR", f"instance {n} can move in every state of the "
                              "loop and never does: the loop is not weakly fair")
        return "every request that can move all along the loop moves in it"

    def violates() -> str:
        confs: list[Conf] = state["confs"]
        word = [_observe(c, kind) for c in (confs[:-1] if loop else confs)]
        at = len(prefix) if loop else len(confs) - 1
        if _truth(state["f"], word, at)[0]:
            raise invalid("E-LTL-HOLDS", "the formula holds on this lasso: it is no violation")
        return f"the formula is false on the lasso ({len(word)} states, loop from {at})"

    yield "ltl-formula", formula
    yield "lasso-replay", replay
    yield "lasso-loop", closes
    yield "lasso-fair", fair
    yield "lasso-violates", violates


def always(sem: Semantics, kind: str, claim: Json) -> Iterator[tuple[str, Thunk]]:
    """`G p`, p over globals only, for any number of requests: the checker's own closure
    NS holds every global state any execution reaches (ser-reference §2.4), and the set of
    its global states is an inductive invariant of the interleaving net; p on each."""
    state: dict[str, Any] = {}

    def formula() -> str:
        f = state["f"] = parse_for({r for r, _ in sem.requests}, claim["formula"])
        if f[0] != "G" or kind != "ser" or any(n[0] in ("G", "F", "U", "R", "W", "count")
                                               for n in nodes(f[1])):
            raise invalid("E-LTL-FORMULA", "an unbounded claim is G p, p over globals of a "
                          "Ser program (no temporal operator, no request counts in p)")
        return "G p, p over globals"

    def closure() -> str:
        ns = explore(sem)
        state["globals"] = sorted({ns.initial} | {g for t in ns.transitions for g in t[1::2]})
        return f"{len(state['globals'])} global states in the closure"

    def holds() -> str:
        for g in state["globals"]:
            if not _truth(state["f"][1], [_observe((g, {}, {}), kind)], 0)[0]:
                raise invalid("E-LTL-ALWAYS", f"the closure's global state {g} violates p")
        return "p holds in every global state of the closure"

    yield "ltl-formula", formula
    yield "closure", closure
    yield "always", holds


def temporal(sem: Semantics, kind: str, cert: Json) -> Iterator[tuple[str, Thunk]]:
    return lasso(sem, kind, cert["ltl"]) if "ltl" in cert else always(sem, kind, cert["always"])
