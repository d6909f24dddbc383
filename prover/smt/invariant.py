"""Inductive invariants with witness updates, as the certificate carries them, and a z3
self-check of the three obligations of `docs/certificates.md` (initiation by evaluation,
consecution on every transition of the full net, refutation against the target).

The self-check is the prover's own gate (z3); the trusted gate is the checker (cvc5).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import z3

from prover.petri.net import PetriNet, Place
from prover.smt.formula import Formula, Term, evaluate, formula_z3, term_z3
from prover.smt.target_z3 import target_z3
from prover.target import Target


@dataclass(frozen=True)
class Invariant:
    """`formula` over places and `aux`; `updates[i] = (transition index, assignments)`,
    sorted by transition index; unlisted variables and transitions keep their values."""

    aux: tuple[str, ...]
    initial_aux: tuple[tuple[str, int], ...]
    formula: Formula
    updates: tuple[tuple[int, tuple[tuple[str, Term], ...]], ...]


@dataclass(frozen=True)
class SelfCheck:
    ok: bool
    failed: str  # "" when ok, else the obligation that failed
    seconds: float


def _vars(net: PetriNet, suffix: str, ctx: z3.Context) -> dict[Place, z3.ArithRef]:
    return {p: z3.Int(f"m{i}{suffix}", ctx) for i, p in enumerate(net.places)}


def self_check(
    net: PetriNet,
    inv: Invariant,
    target: Target | None,
    *,
    timeout_ms: int = 20000,
    deadline: float | None = None,
) -> SelfCheck:
    """Check initiation, consecution (every transition of `net`) and, if `target` is
    given, refutation with z3. `ok` only if every must-be-unsat query is unsat. Each query
    gets at most `timeout_ms` and, with `deadline`, what is left until then."""
    start = time.monotonic()

    def limit() -> int:
        if deadline is None:
            return timeout_ms
        return max(1, min(timeout_ms, int((deadline - time.monotonic()) * 1000)))

    m0 = net.initial_vector()
    init_places = {p: m0[i] for i, p in enumerate(net.places)}
    if not evaluate(inv.formula, init_places, dict(inv.initial_aux)):
        return SelfCheck(False, "initiation", time.monotonic() - start)
    ctx = z3.Context()
    m = _vars(net, "", ctx)
    aux = {a: z3.Int(f"a_{a}", ctx) for a in inv.aux}
    i_now = formula_z3(inv.formula, m.__getitem__, aux.__getitem__, ctx)
    upd = dict(inv.updates)
    solver = z3.Solver(ctx=ctx)
    solver.add([v >= 0 for v in m.values()])
    solver.add(i_now)
    for ti, t in enumerate(net.transitions):
        pre = dict(t.pre)
        post = dict(t.post)
        nxt: dict[Place, z3.ArithRef] = {}
        guard = []
        for i, p in enumerate(net.places):
            d = post.get(i, 0) - pre.get(i, 0)
            nxt[p] = m[p] + d if d else m[p]
            if pre.get(i, 0):
                guard.append(m[p] >= pre[i])
        assign = dict(upd.get(ti, ()))
        new_aux = {
            a: (
                term_z3(assign[a], m.__getitem__, aux.__getitem__, ctx)
                if a in assign else aux[a]
            )
            for a in inv.aux
        }
        i_next = formula_z3(inv.formula, nxt.__getitem__, new_aux.__getitem__, ctx)
        solver.push()
        solver.add(guard)
        solver.add(z3.Not(i_next))
        solver.set("timeout", limit())
        r = solver.check()
        solver.pop()
        if r != z3.unsat:
            return SelfCheck(False, f"consecution {t.label()} ({r})", time.monotonic() - start)
    if target is not None:
        idx = {i: m[p] for i, p in enumerate(net.places)}
        solver.push()
        solver.add(target_z3(target, idx, ctx, prefix="selfk"))
        solver.set("timeout", limit())
        r = solver.check()
        solver.pop()
        if r != z3.unsat:
            return SelfCheck(False, f"refutation ({r})", time.monotonic() - start)
    return SelfCheck(True, "", time.monotonic() - start)
