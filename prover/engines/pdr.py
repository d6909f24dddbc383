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


PDR_UNITS = 250_000_000
"""z3 resource units one PDR run may spend over all its queries: a count, so that whether
PDR finds its fixpoint never depends on the machine's speed or load (the run's deadline
is the only wall-clock cut). About 23 s at the ~11 M units/s measured here, so that on
the default 60 s budget the counterexample engines, which run after the proof engines,
keep about half of it, as the share of the remaining time PDR had before did."""


@dataclass(frozen=True)
class _Encoding:
    """The net as z3 terms: markings before (mv) and after (mn) one step, the background
    invariant, the one-step relation (one-hot selector over live transitions, O(arcs)),
    the initial marking and the target."""

    ctx: z3.Context
    mv: dict[int, z3.ArithRef]
    mn: dict[int, z3.ArithRef]
    bg: z3.BoolRef
    nonneg: list[z3.BoolRef]
    trans: list[z3.BoolRef]
    init: list[z3.BoolRef]
    bad: z3.BoolRef


def _encode(net: PetriNet, target: Target, background: Invariant) -> _Encoding:
    n = len(net.places)
    m0 = net.initial_vector()
    _, live = live_structure(net)
    ctx = z3.Context()
    mv = {i: z3.Int(f"m{i}", ctx) for i in range(n)}
    mn = {i: z3.Int(f"n{i}", ctx) for i in range(n)}
    aux = {a: z3.Int(f"a_{a}", ctx) for a in background.aux}
    pindex = {p: i for i, p in enumerate(net.places)}
    bg = formula_z3(background.formula, lambda p: mv[pindex[p]], aux.__getitem__, ctx)
    nonneg = [v >= 0 for v in mv.values()] + [v >= 0 for v in mn.values()]
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
    return _Encoding(ctx, mv, mn, bg, nonneg, trans, init, target_z3(target, mv, ctx, prefix="pk"))


class _Pdr:
    """One PDR run: frames in the delta encoding (levels[i]: the cubes whose negations
    were learned at level i), proof obligations blocked recursively."""

    def __init__(self, net: PetriNet, enc: _Encoding, deadline: float, units: int) -> None:
        self.enc, self.deadline, self.budget, self.units = enc, deadline, units, units
        self.n = len(net.places)
        self.m0 = net.initial_vector()
        self.levels: list[set[Cube]] = [set(), set()]

    def frame(self, i: int) -> list[z3.BoolRef]:
        if i == 0:
            return self.enc.init
        mv = self.enc.mv
        return [z3.Not(z3.And([_lit_z3(lit, mv) for lit in c]))
                for j in range(i, len(self.levels)) for c in sorted(self.levels[j])]

    def check(self, *parts: z3.BoolRef | list[z3.BoolRef],
              assumptions: tuple[z3.BoolRef, ...] = ()) -> tuple[z3.CheckSatResult, z3.Solver]:
        """One query under what is left of the units and of the run's deadline; sat or
        unsat, else _Timeout."""
        rem = self.deadline - time.monotonic()
        if rem <= 0 or self.units <= 0:
            raise _Timeout()
        s = z3.Solver(ctx=self.enc.ctx)
        s.set("rlimit", self.units)
        s.set("timeout", max(1, int(rem * 1000)))
        for part in parts:
            s.add(part)
        r = s.check(*assumptions)
        self.units = self.budget - _units(s)
        if r not in (z3.sat, z3.unsat):
            raise _Timeout()
        return r, s

    def point(self, model: z3.ModelRef) -> list[int]:
        return [model.eval(self.enc.mv[i], model_completion=True).as_long()
                for i in range(self.n)]

    def rel_ind(self, c: Cube, i: int) -> tuple[Cube | None, Cube | None]:
        """(predecessor cube, None) if c is reachable in one step from F_i ∧ ¬c, else
        (None, generalised cube)."""
        enc = self.enc
        flags = [z3.Bool(f"lit{k}", enc.ctx) for k in range(len(c))]
        parts = [enc.nonneg, enc.bg, self.frame(i), enc.trans,
                 [z3.Implies(f, _lit_z3(lit, enc.mn)) for f, lit in zip(flags, c, strict=True)]]
        if i > 0:
            parts.append([z3.Not(z3.And([_lit_z3(lit, enc.mv) for lit in c]))])
        r, s = self.check(*parts, assumptions=tuple(flags))
        if r == z3.sat:
            return _cube_of(self.point(s.model())), None
        core = {str(f) for f in s.unsat_core()}
        g = tuple(lit for k, lit in enumerate(c) if f"lit{k}" in core)
        if all(_holds(lit, self.m0) for lit in g):
            back = next(lit for lit in c if not _holds(lit, self.m0))
            g = tuple(sorted(set(g) | {back}))
        return None, g

    def mic(self, g: Cube, i: int) -> Cube:
        """Drop literals one by one while the cube stays relatively inductive (and keeps
        excluding the initial marking)."""
        k = 0
        while k < len(g) and len(g) > 1:
            cand = g[:k] + g[k + 1:]
            if all(_holds(lit, self.m0) for lit in cand):
                k += 1
                continue
            pred, smaller = self.rel_ind(cand, i)
            if pred is None and smaller is not None:
                g = smaller if len(smaller) < len(cand) else cand
                k = 0 if len(g) < len(cand) else k
            else:
                k += 1
        return g

    def add_clause(self, g: Cube, level: int) -> None:
        for j in range(1, level + 1):
            self.levels[j].discard(g)
        self.levels[level].add(g)

    def block(self, c: Cube, k: int) -> bool:
        """Block the cube c at frame k; False when a chain of predecessors reaches the
        initial marking (a real path)."""
        queue: list[tuple[int, int, Cube]] = [(k, 0, c)]
        counter = 1
        while queue:
            lvl, _, cube = heapq.heappop(queue)
            if lvl == 0:
                return False
            pred, g = self.rel_ind(cube, lvl - 1)
            if pred is not None:
                heapq.heappush(queue, (lvl - 1, counter, pred))
                heapq.heappush(queue, (lvl, counter + 1, cube))
                counter += 2
                continue
            assert g is not None
            self.add_clause(self.mic(g, lvl - 1), lvl)
            if lvl < k:
                heapq.heappush(queue, (lvl + 1, counter, cube))
                counter += 1
        return True

    def strengthen(self, k: int) -> bool:
        """Block every target marking in frame k; False on a real path."""
        enc = self.enc
        while True:
            r, s = self.check(enc.nonneg, enc.bg, enc.bad, self.frame(k))
            if r == z3.unsat:
                return True
            if not self.block(_cube_of(self.point(s.model())), k):
                return False

    def propagate(self, k: int) -> list[Cube] | None:
        """Push clauses forward through frames 1..k-1; the clauses of the inductive frame
        when one level empties (a fixpoint), else None."""
        enc = self.enc
        for i in range(1, k):
            for c in sorted(self.levels[i]):
                post = z3.And([_lit_z3(lit, enc.mn) for lit in c])
                r, _ = self.check(enc.nonneg, enc.bg, self.frame(i), enc.trans, post)
                if r == z3.unsat:
                    self.levels[i].discard(c)
                    self.levels[i + 1].add(c)
            if not self.levels[i]:
                return sorted(set().union(*self.levels[i + 1:]))
        return None


def prove_pdr(
    net: PetriNet,
    target: Target,
    background: Invariant,
    *,
    deadline: float,
    max_frames: int = 40,
    units: int = PDR_UNITS,
) -> PDRResult:
    """An inductive invariant B ∧ clauses that excludes the target, or why not: the target
    at the initial marking, a real path, no fixpoint within `max_frames`, or the budget
    (`units` of z3 work, or the deadline) spent."""
    start = time.monotonic()
    enc = _encode(net, target, background)
    pdr = _Pdr(net, enc, deadline, units)

    def result(inv: Invariant | None, why: str) -> PDRResult:
        total = sum(len(x) for x in pdr.levels)
        return PDRResult(inv, why, len(pdr.levels) - 1, total, time.monotonic() - start)

    try:
        if pdr.check(enc.nonneg, enc.init, enc.bad)[0] != z3.unsat:
            return result(None, "the initial marking is in the target")
        for k in range(1, max_frames + 1):
            if not pdr.strengthen(k):
                return result(None, f"reached the initial marking at frame {k} (a real path)")
            pdr.levels.append(set())
            clauses = pdr.propagate(k + 1)
            if clauses is not None:
                return result(_export(background, list(net.places), clauses), "")
        return result(None, f"no fixpoint within {max_frames} frames")
    except _Timeout:
        return result(None, f"budget exhausted at frame {len(pdr.levels) - 1}")


def _cube_of(values: list[int]) -> Cube:
    lits: list[Literal] = []
    for i, v in enumerate(values):
        lits.append((i, "<=", v))
        if v > 0:
            lits.append((i, ">=", v))
    return tuple(lits)


def _units(s: z3.Solver) -> int:
    """The resource units spent so far in the solver's context (z3 counts them per
    context, over all its solvers; a query's `rlimit` is relative to that count)."""
    stats = s.statistics()
    return next((int(stats.get_key_value(k)) for k in stats.keys() if k == "rlimit count"), 0)


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
