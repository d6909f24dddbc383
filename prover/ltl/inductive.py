"""Unbounded proofs of `G p` by an inductive invariant on per-variable steps (docs/ltl.md):
p a state formula over the globals and the request counts of a Ser program.

The reduction engine's table gives the steps on finite domains (prover/reduction/table.py);
Houdini (prover/reduction/invariant.py) keeps what is inductive among its candidates and
those read off p: p's linear comparisons themselves, with the counts written as counters
(inflight(r): the requests of r in each local state; done(r), answered(r, v): the
counters C(r, v) of answers), and C(r, v) = 0 for an answer v that no local state of r
holds. The escapes must be dead and `I ∧ ¬p` unsatisfiable; the certificate carries the
domains and I, and the checker proves it all again (checker/always.py).
"""

from __future__ import annotations

from typing import Any

import z3

from prover.certificate.write import make_certificate, producer
from prover.errors import CompileError
from prover.frontend.load import load_model
from prover.ltl.formula import (
    Binary,
    Compare,
    Const,
    Count,
    Formula,
    Global,
    Not,
    Num,
    Term,
    is_safety,
    is_state_formula,
)
from prover.reduction.engine import (
    RLIMIT,
    _domains_json,
    _escaping,
    _invariant_json,
    unnamed,
)
from prover.reduction.houdini import houdini
from prover.reduction.invariant import Key, Linear, Solver, candidates, linear
from prover.reduction.table import Limits, Table, TableTooLarge, grow_domains

Sum = tuple[dict[Key, int], int]  # Σ c·atom + k

TABLE_VALUATIONS = 50_000
"""(Local state, valuation) pairs the table of this attempt may step over all the rounds
that grow its domains (a count, not seconds): a ticket lock's counters grow them round
after round, 2 s of its bounded answer's 3 s at the reduction engine's 400,000."""


def invariant_certificate(path: str, text: str, formula: Formula,
                          deadline: float | None = None) -> dict[str, Any] | None:
    """The `ltl_holds` certificate of `G p` with an invariant, or None when there is none
    (no per-variable table, an escape the invariant leaves open, or p not implied)."""
    if not (is_safety(formula) and is_state_formula(formula.arg)):
        return None
    model = load_model(path, lazy=True)
    if model.steps is None:
        return None
    try:
        t = grow_domains(model.steps, Limits(max_valuations=TABLE_VALUATIONS,
                                             max_total=TABLE_VALUATIONS))
    except (TableTooLarge, CompileError):
        return None
    p = formula.arg
    if any(s is None for c in _compares(p) for s in (_sum(t, c.a), _sum(t, c.b))):
        return None  # not linear: neither z3 here nor cvc5 in the checker decides it
    live = [m for m in t.moves if not t.is_stutter(m)]
    solver = Solver(t, deadline, RLIMIT)
    inv = houdini(t, live, [*candidates(t, live), *_from_p(t, p)], solver, deadline, counts=True)
    if inv is None or _escaping(t, inv, solver, model.steps) is not None:
        return None
    goal = _z3(t, p, solver)  # first: its answer counters are then ≥ 0 in the solver
    s = solver.solver(inv)
    s.add(z3.Not(goal))
    if solver.check(s) != z3.unsat:
        return None
    domains = _domains_json(t, unnamed(model.steps))
    evidence = {"formula": text, "invariant": {"domains": domains,
                                               "formula": _invariant_json(inv)}}
    return make_certificate(model, "ltl_holds", "always", evidence,
                            producer("ltl-invariant", solver="z3"))


def _answers(t: Table, request: str) -> list[str]:
    return list(dict.fromkeys(str(v) for loc, v in t.final.items() if loc[0] == request))


def _sum(t: Table, term: Term) -> Sum | None:
    """`term` as a linear sum over the counters and globals, or None."""
    if isinstance(term, Num):
        return {}, term.value
    if isinstance(term, Global):
        return {("value", term.name): 1}, 0
    if isinstance(term, Count):
        if term.kind == "inflight":
            return {("local", *loc): 1 for loc in t.locals if loc[0] == term.request}, 0
        values = _answers(t, term.request) if term.value is None else [str(term.value)]
        return {("response", term.request, v): 1 for v in values}, 0
    a = _sum(t, term.a)
    b = None if term.b is None else _sum(t, term.b)
    if a is None or (term.b is not None and b is None):
        return None
    if term.op == "neg" or term.b is None:
        return {k: -c for k, c in a[0].items()}, -a[1]
    assert b is not None
    if term.op in ("+", "-"):
        sign = 1 if term.op == "+" else -1
        out = dict(a[0])
        for k, c in b[0].items():
            out[k] = out.get(k, 0) + sign * c
        return out, a[1] + sign * b[1]
    if term.op == "*" and (not a[0] or not b[0]):
        factor, other = (a[1], b) if not a[0] else (b[1], a)
        return {key: factor * c for key, c in other[0].items()}, factor * other[1]
    return None


def _compare(t: Table, c: Compare) -> Linear | None:
    a, b = _sum(t, c.a), _sum(t, c.b)
    if a is None or b is None or c.op == "!=":
        return None
    coeffs = dict(a[0])
    for k, v in b[0].items():
        coeffs[k] = coeffs.get(k, 0) - v
    const = a[1] - b[1]
    op = {"==": "=", "<=": "<=", ">=": ">=", "<": "<=", ">": ">="}[c.op]
    return linear(coeffs, const + (1 if c.op == "<" else -1 if c.op == ">" else 0), op)


def _from_p(t: Table, p: Formula) -> list[Linear]:
    """p's comparisons under its conjunctions, and C(r, v) = 0 for the answers p names
    that no local state of r holds."""
    out: list[Linear] = []
    todo = [p]
    while todo:
        f = todo.pop()
        if isinstance(f, Binary) and f.op == "&&":
            todo += [f.a, f.b]
        elif isinstance(f, Compare) and (lin := _compare(t, f)) is not None:
            out.append(lin)
    named = {k for lin in _atoms(t, p) for k in lin if k[0] == "response"}
    for key in sorted(named):
        if key[2] not in _answers(t, key[1]):
            out.append(linear({key: 1}, 0, "="))
    return out


def _compares(p: Formula) -> list[Compare]:
    out: list[Compare] = []
    todo: list[Formula] = [p]
    while todo:
        f = todo.pop()
        if isinstance(f, Compare):
            out.append(f)
        elif isinstance(f, Not):
            todo.append(f.arg)
        elif isinstance(f, Binary):
            todo += [f.a, f.b]
    return out


def _atoms(t: Table, p: Formula) -> list[dict[Key, int]]:
    return [s[0] for c in _compares(p) for s in (_sum(t, c.a), _sum(t, c.b)) if s is not None]


def _z3(t: Table, f: Formula, solver: Solver) -> Any:
    ctx = solver.ctx
    if isinstance(f, Const):
        return z3.BoolVal(f.value, ctx)
    if isinstance(f, Not):
        return z3.Not(_z3(t, f.arg, solver))
    if isinstance(f, Binary):
        a, b = _z3(t, f.a, solver), _z3(t, f.b, solver)
        return {"&&": z3.And, "||": z3.Or, "->": z3.Implies}.get(f.op, lambda x, y: x == y)(a, b)
    assert isinstance(f, Compare)
    a, b = _sum(t, f.a), _sum(t, f.b)
    assert a is not None and b is not None  # invariant_certificate asked for linear atoms
    lhs = z3.Sum([z3.IntVal(a[1] - b[1], ctx)] + [c * solver.atom(k) for k, c in a[0].items()]
                 + [-c * solver.atom(k) for k, c in b[0].items()])
    return {"==": lhs == 0, "!=": lhs != 0, "<=": lhs <= 0, "<": lhs < 0, ">=": lhs >= 0,
            ">": lhs > 0}[f.op]
