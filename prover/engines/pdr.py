"""Property-directed reachability (IC3) for the interleaving net, on top of an inductive
background invariant.

The background B(M, x) is an inductive invariant with witness updates (the state
equation with all its refinements, even when it does not refute the target by itself).
PDR learns clauses over the place counters, each a disjunction of literals `M(p) ≤ c` /
`M(p) ≥ c`, relative to B: every query assumes B(M, x) in the pre-state. Since B is
inductive under its own updates, the final invariant `B ∧ clauses` is inductive with the
same updates, and it is exported as one formula (quantifier-free).

Frames use the delta encoding (F_i = the clauses learned at levels ≥ i). Proof
obligations are concrete markings (from the target or from predecessors), generalised by
the unsat core over the post-state literals; a generalised cube that would contain the
initial marking gets back a literal the initial marking falsifies, so every learned
clause holds initially. Reaching the initial marking means a concrete path to the target
exists: PDR then answers "unknown" (the counterexample engines find and certify it).
"""

from __future__ import annotations

import heapq
import time
from dataclasses import dataclass

import z3

from prover.engines.state_equation import live_structure
from prover.petri.net import PetriNet, Place
from prover.smt.formula import Formula, PlaceVar, cmp, conj, const, disj, formula_z3
from prover.smt.invariant import Invariant
from prover.smt.target_z3 import target_z3
from prover.target import Target

Literal = tuple[int, str, int]  # (place index, "<=" | ">=", constant)
Cube = tuple[Literal, ...]


@dataclass(frozen=True)
class PDRResult:
    invariant: Invariant | None
    reason: str
    frames: int
    clauses: int
    seconds: float


class _Timeout(Exception):
    pass


def _lit_z3(lit: Literal, m: dict[int, z3.ArithRef]) -> z3.BoolRef:
    p, op, c = lit
    return m[p] <= c if op == "<=" else m[p] >= c


def _holds(lit: Literal, values: list[int]) -> bool:
    p, op, c = lit
    return values[p] <= c if op == "<=" else values[p] >= c


def prove_pdr(
    net: PetriNet,
    target: Target,
    background: Invariant,
    *,
    deadline: float,
    max_frames: int = 40,
) -> PDRResult:
    start = time.monotonic()
    n = len(net.places)
    m0 = net.initial_vector()
    _, live = live_structure(net)
    ctx = z3.Context()
    mv = {i: z3.Int(f"m{i}", ctx) for i in range(n)}
    mn = {i: z3.Int(f"n{i}", ctx) for i in range(n)}
    aux = {a: z3.Int(f"a_{a}", ctx) for a in background.aux}
    places = list(net.places)
    pindex = {p: i for i, p in enumerate(places)}

    def pm(p: Place) -> z3.ArithRef:
        return mv[pindex[p]]

    bg = formula_z3(background.formula, pm, aux.__getitem__, ctx)
    nonneg = [v >= 0 for v in mv.values()] + [v >= 0 for v in mn.values()]
    # transition relation: one-hot selector over live transitions, O(arcs)
    sel = {ti: z3.Int(f"s{ti}", ctx) for ti in live}
    effect: dict[int, list[z3.ArithRef]] = {i: [] for i in range(n)}
    trans: list[z3.BoolRef] = [z3.Sum([z3.IntVal(0, ctx)] + list(sel.values())) == 1]
    for ti in live:
        t = net.transitions[ti]
        trans += [sel[ti] >= 0, sel[ti] <= 1]
        trans += [z3.Implies(sel[ti] == 1, mv[p] >= w) for p, w in t.pre]
        delta: dict[int, int] = {}
        for p, w in t.pre:
            delta[p] = delta.get(p, 0) - w
        for p, w in t.post:
            delta[p] = delta.get(p, 0) + w
        for p, d in delta.items():
            if d:
                effect[p].append(d * sel[ti])
    trans += [mn[i] == mv[i] + z3.Sum([z3.IntVal(0, ctx)] + effect[i]) for i in range(n)]
    init = [mv[i] == m0[i] for i in range(n)] + [
        aux[a] == v for a, v in background.initial_aux
    ]
    bad = target_z3(target, mv, ctx, prefix="pk")

    levels: list[set[Cube]] = [set(), set()]  # levels[i]: clauses ¬cube learned at i

    def frame(i: int) -> list[z3.BoolRef]:
        if i == 0:
            return init
        out = []
        for j in range(i, len(levels)):
            for c in sorted(levels[j]):
                out.append(z3.Not(z3.And([_lit_z3(lit, mv) for lit in c])))
        return out

    def solver() -> z3.Solver:
        rem = deadline - time.monotonic()
        if rem <= 0:
            raise _Timeout()
        s = z3.Solver(ctx=ctx)
        s.set("timeout", max(1, int(rem * 1000)))
        return s

    def point(model: z3.ModelRef, vs: dict[int, z3.ArithRef]) -> list[int]:
        return [model.eval(vs[i], model_completion=True).as_long() for i in range(n)]

    def cube_of(values: list[int]) -> Cube:
        lits: list[Literal] = []
        for i, v in enumerate(values):
            lits.append((i, "<=", v))
            if v > 0:
                lits.append((i, ">=", v))
        return tuple(lits)

    def rel_ind(c: Cube, i: int) -> tuple[Cube | None, Cube | None]:
        """(predecessor cube, None) if c is reachable in one step from F_i ∧ ¬c, else
        (None, generalised cube)."""
        s = solver()
        s.add(nonneg)
        s.add(bg)
        s.add(frame(i))
        if i > 0:
            s.add(z3.Not(z3.And([_lit_z3(lit, mv) for lit in c])))
        s.add(trans)
        flags = []
        for k, lit in enumerate(c):
            f = z3.Bool(f"lit{k}", ctx)
            flags.append(f)
            s.add(z3.Implies(f, _lit_z3(lit, mn)))
        r = s.check(*flags)
        if r == z3.sat:
            return cube_of(point(s.model(), mv)), None
        if r != z3.unsat:
            raise _Timeout()
        core = {str(f) for f in s.unsat_core()}
        g = tuple(lit for k, lit in enumerate(c) if f"lit{k}" in core)
        if all(_holds(lit, m0) for lit in g):
            back = next(lit for lit in c if not _holds(lit, m0))
            g = tuple(sorted(set(g) | {back}))
        return None, g

    def mic(g: Cube, i: int) -> Cube:
        """Drop literals one by one while the cube stays relatively inductive (and keeps
        excluding the initial marking)."""
        k = 0
        while k < len(g) and len(g) > 1:
            cand = g[:k] + g[k + 1:]
            if all(_holds(lit, m0) for lit in cand):
                k += 1
                continue
            pred, smaller = rel_ind(cand, i)
            if pred is None and smaller is not None:
                g = smaller if len(smaller) < len(cand) else cand
                k = 0 if len(g) < len(cand) else k
            else:
                k += 1
        return g

    def add_clause(g: Cube, level: int) -> None:
        for j in range(1, level + 1):
            levels[j].discard(g)
        levels[level].add(g)

    def block(c: Cube, k: int) -> bool:
        queue: list[tuple[int, int, Cube]] = [(k, 0, c)]
        counter = 1
        while queue:
            lvl, _, cube = heapq.heappop(queue)
            if lvl == 0:
                return False
            pred, g = rel_ind(cube, lvl - 1)
            if pred is not None:
                heapq.heappush(queue, (lvl - 1, counter, pred))
                heapq.heappush(queue, (lvl, counter + 1, cube))
                counter += 2
                continue
            assert g is not None
            g = mic(g, lvl - 1)
            add_clause(g, lvl)
            if lvl < k:
                heapq.heappush(queue, (lvl + 1, counter, cube))
                counter += 1
        return True

    def result(inv: Invariant | None, why: str) -> PDRResult:
        total = sum(len(x) for x in levels)
        return PDRResult(inv, why, len(levels) - 1, total, time.monotonic() - start)

    try:
        s0 = solver()
        s0.add(*nonneg, *init, bad)
        if s0.check() != z3.unsat:
            return result(None, "the initial marking is in the target")
        k = 1
        while k <= max_frames:
            while True:
                s = solver()
                s.add(*nonneg, bg, bad)
                s.add(frame(k))
                r = s.check()
                if r == z3.unsat:
                    break
                if r != z3.sat:
                    raise _Timeout()
                if not block(cube_of(point(s.model(), mv)), k):
                    return result(None, f"reached the initial marking at frame {k} (a real path)")
            levels.append(set())
            k += 1
            # propagate
            for i in range(1, k):
                for c in sorted(levels[i]):
                    s = solver()
                    s.add(*nonneg, bg)
                    s.add(frame(i))
                    s.add(trans)
                    s.add(z3.And([_lit_z3(lit, mn) for lit in c]))
                    r = s.check()
                    if r == z3.unsat:
                        levels[i].discard(c)
                        levels[i + 1].add(c)
                    elif r != z3.sat:
                        raise _Timeout()
                if not levels[i]:
                    clauses = sorted(set().union(*levels[i + 1:]))
                    return result(_export(background, places, clauses), "")
        return result(None, f"no fixpoint within {max_frames} frames")
    except _Timeout:
        return result(None, f"budget exhausted at frame {len(levels) - 1}")


def _export(background: Invariant, places: list[Place], clauses: list[Cube]) -> Invariant:
    def lit_f(lit: Literal) -> Formula:
        p, op, c = lit
        neg_op = ">" if op == "<=" else "<"
        return cmp(neg_op, PlaceVar(places[p]), const(c))

    learned = [disj([lit_f(lit) for lit in c]) for c in clauses]
    return Invariant(
        background.aux, background.initial_aux, conj([background.formula] + learned),
        background.updates,
    )
