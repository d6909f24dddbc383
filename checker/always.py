"""`G p` for any number of requests, by an inductive invariant on per-variable steps: p a
state formula over the globals and the request counts (inflight, done, answered) of a
Ser program (docs/ltl.md). The certificate gives the domains and an invariant I over the
counters M(l) of local states, the globals, and the counters C(r, v) of requests r that
answered v; the checker proves I inductive on its own steps (checker/invariant.py) and
`I ∧ ¬p` unsatisfiable. Every reachable configuration satisfies I, so p holds in every
state of every execution: a claim for any number of requests.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from checker.certificate import Limits
from checker.errors import invalid
from checker.invariant import Inductive
from checker.ltl import nodes, parse_for

Json = Any
Thunk = Callable[[], str]
_CMP = {"==": "=", "<=": "<=", "<": "<", ">=": ">=", ">": ">"}


def always(data: Json, limits: Limits, remaining: Callable[[], float]
           ) -> Iterator[tuple[str, Thunk]]:  # fmt: skip
    model, claim = data["model"], data["always"]
    inv = claim["invariant"]
    ind = Inductive(model, inv["domains"], inv["formula"], limits, remaining, True)
    st: dict[str, Any] = {}

    def formula() -> str:
        f = st["f"] = parse_for(ind.requests, claim["formula"])
        if f[0] != "G" or any(n[0] in ("G", "F", "U", "R", "W") for n in nodes(f[1])):
            raise invalid("E-LTL-FORMULA", "a claim for any number of requests is G p, p "
                          "without temporal operators")  # fmt: skip
        unknown = {n[1] for n in nodes(f[1]) if n[0] == "var"} - ind.names
        if unknown:
            raise invalid("E-LTL-FORMULA", f"the program has no global {min(unknown)}")
        return "G p, p a state formula"

    def holds() -> str:
        p = _form(ind, st["f"][1])
        m = ind.smt.m  # answers that p counts and I does not name: counts, so ≥ 0
        counts = [m.GE(v, m.Int(0)) for k, v in ind.var.items() if k[0] == "response"]
        bad = ind.query.unsat(m.And([m.Not(p), *counts]), ind.named)
        if bad is not None:
            raise invalid("E-LTL-ALWAYS", f"the invariant allows a state where p is false "
                          f"({bad})")  # fmt: skip
        return "the invariant implies p"

    yield "model", ind.program
    yield "ltl-formula", formula
    yield "always-domains", ind.domains
    yield "always-steps", ind.enumerate
    yield "initiation", ind.initiation
    yield "always-dead", lambda: ind.dead([])
    yield "consecution", ind.consecution
    yield "always", holds


def _form(ind: Inductive, f: Json) -> Any:
    m = ind.smt.m
    tag = f[0]
    if tag == "const":
        return m.Bool(f[1])
    if tag == "cmp":
        a, b = _term(ind, f[2]), _term(ind, f[3])
        return m.Not(m.Equals(a, b)) if f[1] == "!=" else ind.smt.cmp(_CMP[f[1]], a, b)
    if tag == "not":
        return m.Not(_form(ind, f[1]))
    a, b = _form(ind, f[1]), _form(ind, f[2])
    return {"&&": m.And, "||": m.Or, "->": m.Implies, "<->": m.Iff}[tag](a, b)


def _term(ind: Inductive, t: Json) -> Any:
    """A linear term: counts become sums of the counters of the steps' local states and
    answers (a request answers only values its local states hold)."""
    smt, tag = ind.smt, t[0]
    if tag == "num":
        return smt.const(t[1])
    if tag == "var":
        return ind.atom(("value", t[1]))
    if tag == "count" and t[1] == "inflight":
        return smt.lin([(1, ind.atom(("local", *loc))) for loc in [*ind.steps.foot,
                                                                   *ind.steps.final]
                        if loc[0] == t[2]])  # fmt: skip
    if tag == "count":
        values = [str(v) for loc, v in ind.steps.final.items() if loc[0] == t[2]]
        return smt.lin([(1, ind.atom(("response", t[2], v))) for v in dict.fromkeys(values)
                        if t[3] is None or v == t[3]])  # fmt: skip
    op, a, b = t[1], t[2], t[3]
    if op in ("+", "-"):
        return smt.lin([(1, _term(ind, a)), (1 if op == "+" else -1, _term(ind, b))])
    if op == "*" and (a[0] == "num" or b[0] == "num"):
        k, other = (a[1], b) if a[0] == "num" else (b[1], a)
        return smt.lin([(k, _term(ind, other))])
    raise invalid("E-LTL-FORMULA", f"`{op}` makes p non-linear: the solver cannot decide it")
