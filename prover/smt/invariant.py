"""Inductive invariants with witness updates, as the certificate carries them, and a z3
self-check of the three obligations of `docs/certificates.md` (initiation by evaluation,
consecution on every transition of the full net, refutation against the target).

The self-check is the prover's own gate (z3); the trusted gate is the checker (cvc5).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import z3

from prover.ns import Restriction
from prover.petri.net import NetTransition, PetriNet, Place
from prover.smt.exact import kept, shift
from prover.smt.formula import (
    TRUE,
    And,
    Aux,
    Cmp,
    Const,
    Formula,
    Ite,
    Not,
    Or,
    PlaceVar,
    Sum,
    Term,
    cmp,
    conj,
    const,
    disj,
    evaluate,
    formula_z3,
    linear,
    term_z3,
)
from prover.smt.target_z3 import target_z3
from prover.target import Target

Hint = tuple[int, tuple[int, ...], tuple[int, ...]]
"""A consecution hint: (transition index, the top-level conjuncts to prove, the conjuncts
to prove them from)."""


@dataclass(frozen=True)
class Invariant:
    """`formula` over places and `aux`; `updates[i] = (transition index, assignments)`,
    sorted by transition index; unlisted variables and transitions keep their values."""

    aux: tuple[str, ...]
    initial_aux: tuple[tuple[str, int], ...]
    formula: Formula
    updates: tuple[tuple[int, tuple[tuple[str, Term], ...]], ...]
    # Consecution hints for the checker, sorted by transition index (several for one
    # transition: each proves its own conjuncts).
    hints: tuple[Hint, ...] = ()


@dataclass(frozen=True)
class SelfCheck:
    ok: bool
    failed: str  # "" when ok, else the obligation that failed
    seconds: float
    # Consecution hints (when asked for): per transition index, the top-level conjuncts
    # it moves and the conjuncts of an unsat core that prove them (with `assume`, its
    # conjuncts are numbered after the invariant's).
    hints: tuple[Hint, ...] = ()


def free_names(f: Formula | Term, index: dict[Place, int]) -> set[int | str]:
    """Place indices and aux names a formula or term mentions."""
    out: set[int | str] = set()
    todo: list[object] = [f]
    while todo:
        x = todo.pop()
        if isinstance(x, PlaceVar):
            out.add(index[x.place])
        elif isinstance(x, Aux):
            out.add(x.name)
        elif isinstance(x, Sum):
            todo.extend(t for _, t in x.items)
        elif isinstance(x, Ite):
            todo.extend((x.cond, x.then, x.other))
        elif isinstance(x, And | Or):
            todo.extend(x.args)
        elif isinstance(x, Not):
            todo.append(x.arg)
        elif isinstance(x, Cmp):
            todo.extend((x.lhs, x.rhs))
    return out


def _forced_zero(net: PetriNet, formula: Formula) -> set[int]:
    """Places that a top-level conjunct `Σ places = 0` (unit coefficients, places ≥ 0)
    forces to zero."""
    index = net.place_index
    out: set[int] = set()
    for f in formula.args if isinstance(formula, And) else (formula,):
        if not (isinstance(f, Cmp) and f.op == "=" and f.rhs == Const(0)):
            continue
        lhs = f.lhs
        if isinstance(lhs, PlaceVar):
            out.add(index[lhs.place])
        elif isinstance(lhs, Sum) and all(
            c == 1 and isinstance(t, PlaceVar) for c, t in lhs.items
        ):
            out.update(index[t.place] for _, t in lhs.items if isinstance(t, PlaceVar))
    return out


def _vars(net: PetriNet, suffix: str, ctx: z3.Context) -> dict[Place, z3.ArithRef]:
    return {p: z3.Int(f"m{i}{suffix}", ctx) for i, p in enumerate(net.places)}


QUERY_RLIMIT = 400_000_000
"""z3 resource units one self-check or exclusion query may spend: a count, so that
whether an invariant passes never depends on the machine's speed or load (a wall-clock
cap per query did: counter-64 under load once fell back to another engine). About 35 s
at the ~11 M units/s measured here; counter-64's largest query takes 6.2 M (0.56 s)."""


def bound_query(solver: z3.Solver, deadline: float | None, rlimit: int = QUERY_RLIMIT) -> None:
    """The per-query work cap (resource units), and the run's deadline as the only
    wall-clock cut."""
    solver.set("rlimit", rlimit)
    if deadline is not None:
        solver.set("timeout", max(1, int((deadline - time.monotonic()) * 1000)))


def self_check(
    net: PetriNet,
    inv: Invariant,
    target: Target | None,
    *,
    deadline: float | None = None,
    assume: Formula | None = None,
    walk: Formula | None = None,
    hints: bool = False,
) -> SelfCheck:
    """Check initiation, consecution (every transition of `net`) and, if `target` is
    given, refutation with z3. `ok` only if every must-be-unsat query is unsat. Each query
    gets `QUERY_RLIMIT` resource units, cut short only by `deadline`.

    `assume`: an invariant over the places already checked to be inductive (the
    coverability invariant): assumed in every pre-state, never negated. Then `ok` means
    that `inv ∧ assume` is an inductive invariant (refuting the target), with much
    easier queries than checking the conjunction as one formula.

    `walk`: instead of a target, the walk-labelled refutation (prover/serial/walk.py):
    `inv ∧ quiescent ∧ ¬walk` must be unsat.

    `hints`: each conjunct of `inv` (and of `assume`, numbered after them) is asserted
    under its own tracking literal, and each consecution query's unsat core becomes that
    transition's hint (`SelfCheck.hints`)."""
    start = time.monotonic()
    m0 = net.initial_vector()
    init_places = {p: m0[i] for i, p in enumerate(net.places)}
    if not evaluate(inv.formula, init_places, dict(inv.initial_aux)):
        return SelfCheck(False, "initiation", time.monotonic() - start)
    ctx = z3.Context()
    m = _vars(net, "", ctx)
    aux = {a: z3.Int(f"a_{a}", ctx) for a in inv.aux}
    upd = dict(inv.updates)
    index = net.place_index
    parts = list(inv.formula.args) if isinstance(inv.formula, And) else [inv.formula]
    part_vars = [free_names(f, index) for f in parts]
    parts_z3 = [formula_z3(f, m.__getitem__, aux.__getitem__, ctx) for f in parts]
    solver = z3.Solver(ctx=ctx)
    solver.add([v >= 0 for v in m.values()])
    track = [z3.Bool(f"conjunct{k}", ctx) for k in range(len(parts))] if hints else []
    solver.add([z3.Implies(b, f) for b, f in zip(track, parts_z3, strict=True)] if hints
               else parts_z3)
    found: list[Hint] = []
    if assume is not None:
        given = [formula_z3(f, m.__getitem__, aux.__getitem__, ctx) for f in _parts(assume)]
        if hints:  # tracked too: a core names the assumed conjuncts it needs (after inv's)
            track += [z3.Bool(f"assumed{k}", ctx) for k in range(len(given))]
            solver.add([z3.Implies(b, f) for b, f in zip(track[len(parts):], given, strict=True)])
        else:
            solver.add(given)
    tracker = {b.get_id(): k for k, b in enumerate(track)}
    every = _literals(track)
    zero = _forced_zero(net, inv.formula) | (
        _forced_zero(net, assume) if assume is not None else set()
    )
    conjuncts = _Conjuncts(parts, part_vars, parts_z3, index)
    for ti, t in enumerate(net.transitions):
        if any(i in zero for i, _ in t.pre):
            continue  # disabled in every state of the invariant: consecution is trivial
        guard = [m[net.places[i]] >= w for i, w in sorted(t.pre) if w]
        moved, i_next = conjuncts.after(net, t, dict(upd.get(ti, ())), m, aux, ctx)
        if i_next is None:
            continue
        solver.push()
        solver.add(guard)
        solver.add(z3.Not(i_next))
        bound_query(solver, deadline)
        r = _check_assuming(solver, every) if hints else solver.check()
        if r == z3.unsat and hints:
            core = sorted(tracker[b.get_id()] for b in solver.unsat_core())
            found.append((ti, tuple(moved), tuple(core)))
        solver.pop()
        if r != z3.unsat:
            return SelfCheck(False, f"consecution {t.label()} ({r})", time.monotonic() - start)
    solver.add(track)  # from here on every conjunct holds
    if target is not None:
        r = _refute_target(solver, target, [m[p] for p in net.places], deadline)
        if r != z3.unsat:
            return SelfCheck(False, f"refutation ({r})", time.monotonic() - start)
    if walk is not None:
        refute = z3.Solver(ctx=ctx)  # fresh, as for a large target (_refute_target)
        refute.add(solver.assertions())
        refute.add([m[p] == 0 for p in net.places if p.kind == "local"])
        refute.add(z3.Not(formula_z3(walk, m.__getitem__, aux.__getitem__, ctx)))
        bound_query(refute, deadline)
        r = refute.check()
        if r != z3.unsat:
            return SelfCheck(False, f"walk refutation ({r})", time.monotonic() - start)
    return SelfCheck(True, "", time.monotonic() - start, tuple(found))


@dataclass(frozen=True)
class _Conjuncts:
    """The invariant's top-level conjuncts: as formulas, the variables each reads, and as
    z3 terms over the pre-state (converted once; a transition's post-state conjuncts are
    these terms with the changed variables substituted inside z3)."""

    parts: Sequence[Formula]
    reads: list[set[int | str]]
    terms: list[z3.BoolRef]
    index: dict[Place, int]

    def after(self, net: PetriNet, t: NetTransition, assign: dict[str, Term],
              m: dict[Place, z3.ArithRef], aux: dict[str, z3.ArithRef], ctx: z3.Context
              ) -> tuple[list[int], z3.BoolRef | None]:
        """The conjuncts that t may falsify, and their conjunction in the post-state (None
        when there are none: a conjunct over variables that t leaves alone, or one that
        `kept` settles exactly, keeps its true value)."""
        pre, post = dict(t.pre), dict(t.post)
        changed: set[int | str] = {
            i for i in set(pre) | set(post) if post.get(i, 0) != pre.get(i, 0)
        }
        changed.update(assign)
        delta: dict[int | str, int | None] = {
            i: post.get(i, 0) - pre.get(i, 0) for i in changed if isinstance(i, int)}
        delta.update((a, shift(term, a, self.index)) for a, term in assign.items())
        moved = [k for k, fv in enumerate(self.reads)
                 if fv & changed and not kept(self.parts[k], delta, self.index)]
        if not moved:
            return moved, None
        pairs = [
            (m[net.places[i]], m[net.places[i]] + (post.get(i, 0) - pre.get(i, 0)))
            for i in sorted(c for c in changed if isinstance(c, int))
        ]
        pairs += [
            (aux[a], term_z3(term, m.__getitem__, aux.__getitem__, ctx))
            for a, term in assign.items() if a in aux
        ]
        touched = z3.And([self.terms[k] for k in moved])
        return moved, z3.substitute(touched, *pairs) if pairs else touched


def _refute_target(solver: z3.Solver, target: Target, marking: list[z3.ArithRef],
                   deadline: float | None) -> z3.CheckSatResult:
    """The target against the invariant (`solver`'s assertions).

    A large target goes on a fresh solver: after the push/pop of consecution z3 solves
    incrementally, without its preprocessing (e.g. solving the SE equalities away), and a
    large target then takes far longer (counter-64: 7.3 s against 0.5 s fresh); a small
    one is faster incrementally (d4: 0.05 s against 1.4 s). (A push would make the fresh
    solver incremental too: it gets none.)"""
    ctx = solver.ctx
    refute = solver
    if target.is_large():
        refute = z3.Solver(ctx=ctx)
        refute.add(solver.assertions())
    else:
        solver.push()
    refute.add(target_z3(target, dict(enumerate(marking)), ctx, prefix="selfk"))
    bound_query(refute, deadline)
    r = refute.check()
    if refute is solver:
        solver.pop()
    return r


def lift_hints(hints: Sequence[Hint], numbered: Sequence[Formula], whole: Formula
               ) -> list[Hint]:  # fmt: skip
    """`hints` whose conjunct k is `numbered[k]`, renumbered as conjuncts of `whole` (each
    at its first position there; a conjunct `whole` lacks drops the hint)."""
    pos: dict[Formula, int] = {}
    for i, f in enumerate(_parts(whole)):
        pos.setdefault(f, i)
    out = []
    for ti, prove, using in hints:
        names = [numbered[k] for k in (*prove, *using)]
        if all(f in pos for f in names):
            out.append((ti, tuple(sorted(pos[numbered[k]] for k in prove)),
                        tuple(sorted(pos[numbered[k]] for k in using))))
    return out


def _parts(f: Formula) -> list[Formula]:
    """The top-level conjuncts of `f`."""
    return list(f.args) if isinstance(f, And) else [f]


def _literals(bools: list[z3.BoolRef]) -> z3.Ast:
    """The assumptions as the C array z3 takes, built once: `Solver.check(*track)` casts
    every literal anew on each call (locked-04: 57 of its 86 s of self-check)."""
    arr = (z3.Ast * len(bools))()
    for i, b in enumerate(bools):
        arr[i] = b.as_ast()
    return arr


def _check_assuming(solver: z3.Solver, literals: z3.Ast) -> z3.CheckSatResult:
    ctx = solver.ctx
    n = len(literals)
    return z3.CheckSatResult(z3.Z3_solver_check_assumptions(ctx.ref(), solver.solver, n,
                                                             literals))


# ---------------------------------------------------------------- restricted NS


def _local_places(net: PetriNet) -> dict[str, list[Place]]:
    """Local state -> its places (one per request name that can hold it)."""
    out: dict[str, list[Place]] = {}
    for p in net.places:
        if p.kind == "local":
            out.setdefault(p.state, []).append(p)
    return out


def _count(places: list[Place]) -> Term:
    return linear((1, PlaceVar(p)) for p in places)


def ideal_formula(net: PetriNet, restriction: Restriction) -> Formula:
    """The coverability invariant I_KM: exactly one global token, and under each global
    the marking lies below one of that global's ideals (per local state, the sum over
    request names is at most its bound; locals the ideal does not mention hold none).
    Bounds shared by all ideals of a global are stated once, zeros as one sum."""
    places = _local_places(net)
    # Final locals only wait to respond: they never enable a step, so leaving them
    # unconstrained keeps the set closed under every step (and the formula small).
    by_local = {n: places[n] for n in restriction.non_final if n in places}
    globals_ = [p for p in net.places if p.kind == "global"]
    parts: list[Formula] = [cmp("=", linear((1, PlaceVar(p)) for p in globals_), const(1))]
    never = _unreachable_request_locals(net)
    if never:
        parts.append(cmp("=", _count(never), const(0)))
    ideals: dict[str, list[dict[str, int | None]]] = {}
    for ideal in restriction.ideals:
        bounds: dict[str, int | None] = dict.fromkeys(by_local, 0)
        bounds.update((name, None) for name in ideal.omega if name in by_local)
        bounds.update((name, c) for name, c in ideal.finite if name in by_local)
        ideals.setdefault(ideal.global_, []).append(bounds)
    for gp in globals_:
        group = ideals.get(gp.state, [])
        if not group:
            parts.append(cmp("=", PlaceVar(gp), const(0)))
            continue
        common = {n: group[0][n] for n in by_local if all(b[n] == group[0][n] for b in group)}
        zero = [p for n, c in common.items() if c == 0 for p in by_local[n]]
        shared = [_at_most(by_local[n], c) for n, c in common.items() if c]
        alternatives = [
            conj(_at_most(by_local[n], b[n]) for n in by_local if n not in common)
            for b in group
        ]
        body = conj([cmp("=", _count(zero), const(0)) if zero else TRUE, *shared,
                     disj(alternatives)])
        parts.append(disj([cmp("=", PlaceVar(gp), const(0)), body]))
    return conj(parts)


def _unreachable_request_locals(net: PetriNet) -> list[Place]:
    """Local places Local(r, l) that request r never reaches (the net pairs every request
    name with every local state): from r's spawns along r's steps. Inductive on its own;
    it disables the many transitions of requests in other requests' locals outright."""
    succ: dict[Place, list[Place]] = {}
    reached: set[Place] = set()
    for t in net.transitions:
        if t.kind == "spawn":
            reached.add(Place("local", t.request, t.local))
        elif t.kind == "step" and t.to_local is not None:
            succ.setdefault(Place("local", t.request, t.local), []).append(
                Place("local", t.request, t.to_local)
            )
    todo = list(reached)
    while todo:
        for q in succ.get(todo.pop(), []):
            if q not in reached:
                reached.add(q)
                todo.append(q)
    return [p for p in net.places if p.kind == "local" and p not in reached]


def _at_most(places: list[Place], bound: int | None) -> Formula:
    return TRUE if bound is None else cmp("<=", _count(places), const(bound))


def exclusion_check(
    net: PetriNet,
    formula: Formula,
    restriction: Restriction,
    *,
    deadline: float | None = None,
) -> SelfCheck:
    """The exclusion obligation, one query per global: `formula ∧ M(g) ≥ 1 ∧ ∨ over the
    discovered non-final locals l with (l, g) unlisted of Σ_r M(l) ≥ 1` is unsat."""
    start = time.monotonic()
    by_local = _local_places(net)
    listed = set(restriction.pairs)
    ctx = z3.Context()
    m = _vars(net, "", ctx)
    solver = z3.Solver(ctx=ctx)
    solver.add([v >= 0 for v in m.values()])
    solver.add(formula_z3(formula, m.__getitem__, lambda a: z3.Int(a, ctx), ctx))
    for gp in net.places:
        if gp.kind != "global":
            continue
        excluded = [by_local[name] for name in restriction.non_final
                    if (name, gp.state) not in listed and name in by_local]
        if not excluded:
            continue
        solver.push()
        solver.add(m[gp] >= 1)
        solver.add(z3.Or([z3.Sum([m[p] for p in ps]) >= 1 for ps in excluded]))
        bound_query(solver, deadline)
        r = solver.check()
        solver.pop()
        if r != z3.unsat:
            return SelfCheck(False, f"exclusion at {gp.state} ({r})", time.monotonic() - start)
    return SelfCheck(True, "", time.monotonic() - start)
