"""The target (`prover.target.Target`) as a z3 formula in a given z3 context.

The engines each work in their own `z3.Context`, so that results do not depend on what
else the process asked z3 before (term ids, and therefore models and unsat cores, are
per context): the same model gives the same certificate in any process.
"""

from __future__ import annotations

from collections.abc import Mapping

import z3

from prover.target import Conjunction, LinearConstraint, Target, Var


def constraint_z3(
    c: LinearConstraint,
    places: Mapping[int, z3.ArithRef],
    fresh: dict[Var, z3.ArithRef],
    ctx: z3.Context,
    prefix: str,
) -> z3.BoolRef:
    terms: list[z3.ArithRef] = [z3.IntVal(c.constant, ctx)]
    for v, k in c.coeffs:
        if v.kind == "place":
            x = places[v.index]
        else:
            if v not in fresh:
                fresh[v] = z3.Int(f"{prefix}{v.index}", ctx)
            x = fresh[v]
        terms.append(x if k == 1 else z3.IntVal(k, ctx) * x)
    t = z3.Sum(terms)
    return t == 0 if c.relation == "=" else t >= 0


def _and(args: list[z3.BoolRef], ctx: z3.Context) -> z3.BoolRef:
    return z3.BoolVal(True, ctx) if not args else args[0] if len(args) == 1 else z3.And(args)


def _or(args: list[z3.BoolRef], ctx: z3.Context) -> z3.BoolRef:
    return z3.BoolVal(False, ctx) if not args else args[0] if len(args) == 1 else z3.Or(args)


def conjunction_z3(
    d: Conjunction,
    places: Mapping[int, z3.ArithRef],
    fresh: dict[Var, z3.ArithRef],
    ctx: z3.Context,
    prefix: str,
) -> z3.BoolRef:
    return _and([constraint_z3(c, places, fresh, ctx, prefix) for c in d.constraints], ctx)


def target_z3(
    t: Target, places: Mapping[int, z3.ArithRef], ctx: z3.Context, prefix: str = "k"
) -> z3.BoolRef:
    """quiescent ∧ (some outside place ≥ 1 ∨ every component clause holds); fresh
    variables are free (satisfiability reading)."""
    fresh: dict[Var, z3.ArithRef] = {}
    q = [constraint_z3(c, places, fresh, ctx, prefix) for c in t.quiescent]
    outside = [places[i] >= 1 for i in t.outside_labels]
    comps = [
        _or([conjunction_z3(a, places, fresh, ctx, prefix) for a in clause], ctx)
        for clause in t.clauses
    ]
    return _and(q + [_or(outside + [_and(comps, ctx)], ctx)], ctx)
