"""The target (`prover.target.Target`) as a z3 formula in a given z3 context.

The engines each work in their own `z3.Context`, so that results do not depend on what
else the process asked z3 before (term ids, and therefore models and unsat cores, are
per context): the same model gives the same certificate in any process.

The z3 terms of a target are built once per target (`shared_target`, kept in the
target's one-slot memo `Target.z3_memo`) in a private context, over canonical variables
`p<i>` (places) and `k<i>` (fresh variables); every engine then gets them by one
`translate` into its own context and one `substitute` of its own variables, both done
inside z3. Large serial sets repeat the same alternative in many component clauses
(counter-48: 99,500 alternatives, 429 distinct), so each distinct conjunction is
converted once, and every And/Or is one n-ary z3 call on an array of its arguments.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

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


def _nary(
    mk: object, args: Sequence[z3.BoolRef], ctx: z3.Context
) -> z3.BoolRef:
    """`mk` (Z3_mk_and / Z3_mk_or) applied to `args` in one call (no Python-side
    coercion of each argument: they are Boolean terms of `ctx` already)."""
    arr = (z3.Ast * len(args))(*[a.as_ast() for a in args])
    return z3.BoolRef(mk(ctx.ref(), len(args), arr), ctx)  # type: ignore[operator]


def _and(args: Sequence[z3.BoolRef], ctx: z3.Context) -> z3.BoolRef:
    if len(args) <= 1:
        return args[0] if args else z3.BoolVal(True, ctx)
    return _nary(z3.Z3_mk_and, args, ctx)


def _or(args: Sequence[z3.BoolRef], ctx: z3.Context) -> z3.BoolRef:
    if len(args) <= 1:
        return args[0] if args else z3.BoolVal(False, ctx)
    return _nary(z3.Z3_mk_or, args, ctx)


def conjunction_z3(
    d: Conjunction,
    places: Mapping[int, z3.ArithRef],
    fresh: dict[Var, z3.ArithRef],
    ctx: z3.Context,
    prefix: str,
) -> z3.BoolRef:
    return _and([constraint_z3(c, places, fresh, ctx, prefix) for c in d.constraints], ctx)


@dataclass(frozen=True)
class SharedTarget:
    """A target's z3 formula in its own context `ctx`, over `places[i]` = `p<i>` and the
    fresh variables `fresh` (sorted by index, named `k<index>`)."""

    ctx: z3.Context
    places: tuple[z3.ArithRef, ...]
    fresh: tuple[tuple[Var, z3.ArithRef], ...]
    formula: z3.BoolRef


def build_shared_target(t: Target) -> SharedTarget:
    """quiescent ∧ (some outside place ≥ 1 ∨ every component clause holds); fresh
    variables are free (satisfiability reading)."""
    ctx = z3.Context()
    places = tuple(z3.Int(f"p{i}", ctx) for i in range(t.num_places))
    pmap = dict(enumerate(places))
    fresh: dict[Var, z3.ArithRef] = {}
    done: dict[Conjunction, z3.BoolRef] = {}

    def alt(a: Conjunction) -> z3.BoolRef:
        f = done.get(a)
        if f is None:
            f = done[a] = conjunction_z3(a, pmap, fresh, ctx, "k")
        return f

    q = [constraint_z3(c, pmap, fresh, ctx, "k") for c in t.quiescent]
    outside = [places[i] >= 1 for i in t.outside_labels]
    comps = [_or([alt(a) for a in clause], ctx) for clause in t.clauses]
    formula = _and(q + [_or(outside + [_and(comps, ctx)], ctx)], ctx)
    return SharedTarget(ctx, places, tuple(sorted(fresh.items())), formula)


def shared_target(t: Target) -> SharedTarget:
    """The z3 terms of `t`, built on first use and kept in `t.z3_memo` for every later
    engine of the run."""
    if not t.z3_memo:
        t.z3_memo.append(build_shared_target(t))
    shared = t.z3_memo[0]
    assert isinstance(shared, SharedTarget)
    return shared


def target_z3(
    t: Target, places: Mapping[int, z3.ArithRef], ctx: z3.Context, prefix: str = "k"
) -> z3.BoolRef:
    """The target over `places` (place index -> term of `ctx`), its fresh variables
    named `prefix<index>`: the shared formula translated into `ctx`, variables
    substituted."""
    s = shared_target(t)
    f = s.formula.translate(ctx)
    pairs = [(p.translate(ctx), places[i]) for i, p in enumerate(s.places)]
    pairs += [(k.translate(ctx), z3.Int(f"{prefix}{v.index}", ctx)) for v, k in s.fresh]
    if not pairs:
        return f
    return z3.substitute(f, *pairs)
