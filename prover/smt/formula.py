"""A tiny quantifier-free linear-arithmetic AST for certificate invariants.

Terms and formulas range over Petri-net place counters (named by `Place`) and auxiliary
integer variables (named by strings matching `^[a-z][a-z0-9_]*$`). The AST serialises to
the certificate JSON of `docs/certificates.md`, converts to z3, and evaluates exactly.
All nodes are frozen dataclasses; constructors simplify trivially (constants, empty and
singleton conjunctions) so that certificates stay small.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import z3

from prover.petri.net import Place

# ---------------------------------------------------------------- terms


@dataclass(frozen=True)
class Const:
    value: int


@dataclass(frozen=True)
class Aux:
    name: str


@dataclass(frozen=True)
class PlaceVar:
    place: Place


@dataclass(frozen=True)
class Sum:
    """Σ coefficient·term (coefficients non-zero)."""

    items: tuple[tuple[int, Term], ...]


@dataclass(frozen=True)
class Ite:
    cond: Formula
    then: Term
    other: Term


Term = Const | Aux | PlaceVar | Sum | Ite

# ---------------------------------------------------------------- formulas


@dataclass(frozen=True)
class BoolConst:
    value: bool


@dataclass(frozen=True)
class And:
    args: tuple[Formula, ...]


@dataclass(frozen=True)
class Or:
    args: tuple[Formula, ...]


@dataclass(frozen=True)
class Not:
    arg: Formula


@dataclass(frozen=True)
class Cmp:
    op: str  # one of <=, <, =, >=, >
    lhs: Term
    rhs: Term


Formula = BoolConst | And | Or | Not | Cmp

TRUE = BoolConst(True)
FALSE = BoolConst(False)

# ---------------------------------------------------------------- smart constructors


def const(v: int) -> Const:
    return Const(int(v))


def linear(items: Iterable[tuple[int, Term]], constant: int = 0) -> Term:
    """Σ c·t + constant, dropping zero coefficients and merging equal terms."""
    acc: dict[Term, int] = {}
    order: list[Term] = []
    for c, t in items:
        if c == 0:
            continue
        if isinstance(t, Const):
            constant += c * t.value
            continue
        if t not in acc:
            acc[t] = 0
            order.append(t)
        acc[t] += c
    parts = [(acc[t], t) for t in order if acc[t] != 0]
    if constant != 0:
        parts.append((constant, Const(1)))
    if not parts:
        return Const(0)
    if len(parts) == 1 and parts[0][0] == 1:
        return parts[0][1]
    if len(parts) == 1 and isinstance(parts[0][1], Const):
        return Const(parts[0][0] * parts[0][1].value)
    return Sum(tuple(parts))


def conj(args: Iterable[Formula]) -> Formula:
    out: list[Formula] = []
    for a in args:
        if a == TRUE:
            continue
        if a == FALSE:
            return FALSE
        if isinstance(a, And):
            out.extend(a.args)
        else:
            out.append(a)
    if not out:
        return TRUE
    if len(out) == 1:
        return out[0]
    return And(tuple(out))


def disj(args: Iterable[Formula]) -> Formula:
    out: list[Formula] = []
    for a in args:
        if a == FALSE:
            continue
        if a == TRUE:
            return TRUE
        if isinstance(a, Or):
            out.extend(a.args)
        else:
            out.append(a)
    if not out:
        return FALSE
    if len(out) == 1:
        return out[0]
    return Or(tuple(out))


def neg(a: Formula) -> Formula:
    if a == TRUE:
        return FALSE
    if a == FALSE:
        return TRUE
    if isinstance(a, Not):
        return a.arg
    if isinstance(a, Cmp):
        flipped = {"<=": ">", "<": ">=", ">=": "<", ">": "<="}.get(a.op)
        if flipped is not None:
            return Cmp(flipped, a.lhs, a.rhs)
    return Not(a)


def implies(a: Formula, b: Formula) -> Formula:
    return disj([neg(a), b])


def cmp(op: str, lhs: Term, rhs: Term) -> Formula:
    if isinstance(lhs, Const) and isinstance(rhs, Const):
        return BoolConst(_compare(op, lhs.value, rhs.value))
    return Cmp(op, lhs, rhs)


def _compare(op: str, a: int, b: int) -> bool:
    if op == "<=":
        return a <= b
    if op == "<":
        return a < b
    if op == "=":
        return a == b
    if op == ">=":
        return a >= b
    if op == ">":
        return a > b
    raise ValueError(f"unknown comparison {op!r}")


# ---------------------------------------------------------------- JSON


def place_json(p: Place) -> dict[str, Any]:
    if p.kind == "global":
        return {"global": p.state}
    if p.kind == "local":
        return {"local": [p.request, p.state]}
    return {"response": [p.request, p.state]}


def term_json(t: Term) -> dict[str, Any]:
    if isinstance(t, Const):
        return {"const": t.value}
    if isinstance(t, Aux):
        return {"aux": t.name}
    if isinstance(t, PlaceVar):
        return {"place": place_json(t.place)}
    if isinstance(t, Sum):
        return {"sum": [[c, term_json(s)] for c, s in t.items]}
    return {"ite": [formula_json(t.cond), term_json(t.then), term_json(t.other)]}


def formula_json(f: Formula) -> Any:
    if isinstance(f, BoolConst):
        return f.value
    if isinstance(f, And):
        return {"and": [formula_json(a) for a in f.args]}
    if isinstance(f, Or):
        return {"or": [formula_json(a) for a in f.args]}
    if isinstance(f, Not):
        return {"not": formula_json(f.arg)}
    return {"cmp": f.op, "lhs": term_json(f.lhs), "rhs": term_json(f.rhs)}


# ---------------------------------------------------------------- z3 and evaluation

PlaceMap = Callable[[Place], z3.ArithRef]
AuxMap = Callable[[str], z3.ArithRef]


def term_z3(
    t: Term, places: PlaceMap, aux: AuxMap, ctx: z3.Context | None = None
) -> z3.ArithRef:
    if isinstance(t, Const):
        return z3.IntVal(t.value, ctx)
    if isinstance(t, Aux):
        return aux(t.name)
    if isinstance(t, PlaceVar):
        return places(t.place)
    if isinstance(t, Sum):
        parts = [
            term_z3(s, places, aux, ctx) if c == 1
            else z3.IntVal(c, ctx) * term_z3(s, places, aux, ctx)
            for c, s in t.items
        ]
        return parts[0] if len(parts) == 1 else z3.Sum(parts)
    return z3.If(
        formula_z3(t.cond, places, aux, ctx), term_z3(t.then, places, aux, ctx),
        term_z3(t.other, places, aux, ctx),
    )


def formula_z3(
    f: Formula, places: PlaceMap, aux: AuxMap, ctx: z3.Context | None = None
) -> z3.BoolRef:
    if isinstance(f, BoolConst):
        return z3.BoolVal(f.value, ctx)
    if isinstance(f, And):
        return z3.And([formula_z3(a, places, aux, ctx) for a in f.args])
    if isinstance(f, Or):
        return z3.Or([formula_z3(a, places, aux, ctx) for a in f.args])
    if isinstance(f, Not):
        return z3.Not(formula_z3(f.arg, places, aux, ctx))
    a = term_z3(f.lhs, places, aux, ctx)
    b = term_z3(f.rhs, places, aux, ctx)
    if f.op == "<=":
        return a <= b
    if f.op == "<":
        return a < b
    if f.op == "=":
        return a == b
    if f.op == ">=":
        return a >= b
    return a > b


def evaluate_term(t: Term, places: Mapping[Place, int], aux: Mapping[str, int]) -> int:
    if isinstance(t, Const):
        return t.value
    if isinstance(t, Aux):
        return aux[t.name]
    if isinstance(t, PlaceVar):
        return places.get(t.place, 0)
    if isinstance(t, Sum):
        return sum(c * evaluate_term(s, places, aux) for c, s in t.items)
    if evaluate(t.cond, places, aux):
        return evaluate_term(t.then, places, aux)
    return evaluate_term(t.other, places, aux)


def evaluate(f: Formula, places: Mapping[Place, int], aux: Mapping[str, int]) -> bool:
    if isinstance(f, BoolConst):
        return f.value
    if isinstance(f, And):
        return all(evaluate(a, places, aux) for a in f.args)
    if isinstance(f, Or):
        return any(evaluate(a, places, aux) for a in f.args)
    if isinstance(f, Not):
        return not evaluate(f.arg, places, aux)
    return _compare(f.op, evaluate_term(f.lhs, places, aux), evaluate_term(f.rhs, places, aux))


def size(f: Formula | Term) -> int:
    """Number of AST nodes (for statistics)."""
    if isinstance(f, (Const, Aux, PlaceVar, BoolConst)):
        return 1
    if isinstance(f, Sum):
        return 1 + sum(size(t) for _, t in f.items)
    if isinstance(f, Ite):
        return 1 + size(f.cond) + size(f.then) + size(f.other)
    if isinstance(f, (And, Or)):
        return 1 + sum(size(a) for a in f.args)
    if isinstance(f, Not):
        return 1 + size(f.arg)
    return 1 + size(f.lhs) + size(f.rhs)


def substitute_term(t: Term, name: str, by: Term) -> Term:
    """`t` with every `Aux(name)` replaced by `by` (linear parts re-simplified)."""
    return substitute_term_all(t, {name: by})


def substitute_term_all(t: Term, by: Mapping[str, Term]) -> Term:
    """`t` with every `Aux(a)`, `a` in `by`, replaced by `by[a]` at once."""
    if isinstance(t, Aux):
        return by.get(t.name, t)
    if isinstance(t, (Const, PlaceVar)):
        return t
    if isinstance(t, Sum):
        return linear(
            [(c * k, u) for c, s in t.items for k, u in _flatten(substitute_term_all(s, by))]
        )
    return Ite(
        substitute_all(t.cond, by), substitute_term_all(t.then, by),
        substitute_term_all(t.other, by),
    )


def _flatten(t: Term) -> list[tuple[int, Term]]:
    if isinstance(t, Sum):
        out: list[tuple[int, Term]] = []
        for c, s in t.items:
            out.extend((c * k, u) for k, u in _flatten(s))
        return out
    return [(1, t)]


def substitute(f: Formula, name: str, by: Term) -> Formula:
    """`f` with every `Aux(name)` replaced by `by`."""
    return substitute_all(f, {name: by})


def substitute_all(f: Formula, by: Mapping[str, Term]) -> Formula:
    """`f` with every `Aux(a)`, `a` in `by`, replaced by `by[a]` simultaneously (one walk
    of `f`, however many variables are replaced)."""
    if isinstance(f, BoolConst):
        return f
    if isinstance(f, And):
        return conj(substitute_all(a, by) for a in f.args)
    if isinstance(f, Or):
        return disj(substitute_all(a, by) for a in f.args)
    if isinstance(f, Not):
        return neg(substitute_all(f.arg, by))
    lhs = substitute_term_all(f.lhs, by)
    rhs = substitute_term_all(f.rhs, by)
    return cmp(f.op, linear(_flatten(lhs)), linear(_flatten(rhs)))
