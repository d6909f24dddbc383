"""The invariant a reduction certificate carries: of Houdini's largest inductive set, the
conjuncts that the checker's other obligations use, closed under consecution.

Houdini keeps every candidate that survives (1,523 conjuncts on a readers-writer lock over
24 cells), and the checker asks consecution of each on every step. The obligations
besides consecution (dead steps and escapes, movers, the attempts' versions) use few of
them: an obligation the prover settled by intervals names its conjunct, and one it asked
z3 is asked once more with one indicator per conjunct, whose unsat core names those it
used. The kept set then grows by the cores of its own consecution queries, step by step,
until no step needs another conjunct. A subset of an inductive set that proves its own
consecution is inductive (and true initially, as each of its conjuncts is), and it holds
what every other obligation used, so the checker's obligations hold with it.

Bounded by z3 resource units (a count, the same on any machine, never a timeout), and
deterministic: conjuncts are taken in Houdini's order and z3 answers identical queries
identically. When the units run out or a query is not unsat, the full set is kept."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import z3
else:  # loaded when a query is first made (prover/smt/z3_on_use.py)
    from prover.smt.z3_on_use import z3

from prover.reduction.houdini import at_risk, broken, steps_by_atom
from prover.reduction.invariant import Conjunct, Solver, changes, rlimit_count, solver_for_lia
from prover.reduction.table import Move, Table

PRUNE_RLIMIT = 20_000_000  # z3 resource units of one core query
PRUNE_UNITS = 100_000_000  # z3 resource units of all of them, at most
PRUNE_FLOOR = 5_000_000
"""Units pruning may always spend; beyond them, no more than the reduction's own queries
took. A pruning that pays keeps a few percent of the conjuncts and costs less than the
search (rwcount-24: 6.1 M units to the search's 11.6 M, backoff-24 2.5 M to 7.0 M,
buffer-24 3.6 M to 7.4 M, seqlock-24 0.3 M to 1.1 M); where most conjuncts are needed it
costs many times the search and ends keeping them all (a three-account bank whose
transfers hold copies of the balances: 100 M units, a third of the run, to give up, where
the search took 17 M; finishing would have taken 231 M to keep 709 of 787)."""
PRUNE_MIN = 100
"""Conjuncts from which an invariant is pruned. A smaller one costs the checker's
consecution little, and pruning it can cost more than the check saves: perlock-24 (a
lock per account, an audit taking them all) has 72 conjuncts, of which pruning kept 71
with 680 queries, 15 M units (the reduction's own search took 17 M); rwcount-24 has
1,523, of which it keeps 66 with 369 queries, 6.7 M units (minimal cores; 221 with 454
queries, 1.9 M units, with z3's first cores)."""


@dataclass(frozen=True)
class Needs:
    """What the obligations besides consecution use: conjuncts (by intervals), and
    formulas over the pre-configurations that the invariant must make unsat."""

    conjuncts: tuple[Conjunct, ...]
    excluded: tuple[z3.BoolRef, ...]


@dataclass(frozen=True)
class Pruned:
    """The conjuncts kept, in Houdini's order, and what finding them took; `why` says
    why the full set was kept instead ("" when it was not)."""

    invariant: list[Conjunct]
    queries: int
    units: int
    why: str = ""


class GiveUp(Exception):
    """The budget ran out, or a query was not unsat: keep the full invariant."""


class Cores:
    """Unsat cores over an invariant: its conjuncts asserted under one indicator each,
    the domains and M ≥ 0 as they are (the checker conjoins them itself)."""

    def __init__(self, solver: Solver, inv: Sequence[Conjunct], budget: int,
                 rlimit: int = PRUNE_RLIMIT) -> None:  # fmt: skip
        ctx = solver.ctx
        self.s = solver_for_lia(ctx)
        self.s.add(*solver.base)
        self.flags = [z3.Bool(f"keep{i}", ctx) for i in range(len(inv))]
        self.s.add(*[z3.Implies(f, solver.term(c)) for f, c in zip(self.flags, inv, strict=True)])
        # Minimal cores (z3 drops what a core does not need, at some cost): the checker
        # then asks consecution and movers of far fewer conjuncts. rwcount-24 keeps 66 of
        # 1,523 instead of 221, backoff-24 59 instead of 268, seqlock-24 3 instead of 132.
        self.s.set("rlimit", rlimit, "core.minimize", True)
        self.index = {f.get_id(): i for i, f in enumerate(self.flags)}
        self.ctx, self.assumed = ctx, z3.z3._to_ast_array(self.flags)  # (array, length)
        self.start, self.budget = solver.units, budget
        self.queries = self.units = self.stat_at = 0

    def core(self, phi: z3.BoolRef) -> list[int]:
        """The conjuncts (by index) an unsat core of I ∧ `phi` uses, in order."""
        if self.units >= self.budget:
            raise GiveUp(f"{self.budget:,} z3 resource units spent")
        self.s.push()
        self.s.add(phi)
        r = self._check()
        self.queries += 1
        count, self.stat_at = rlimit_count(self.s, self.stat_at)
        self.units = count - self.start
        got = sorted(self.index[f.get_id()] for f in self.s.unsat_core()) \
            if r == z3.unsat else None  # fmt: skip
        self.s.pop()
        if got is None:
            raise GiveUp(f"a core query was {r}")
        return got

    def _check(self) -> z3.CheckSatResult:
        """check(*flags) through z3's C API with the flags' array made once: z3's Python
        API coerces every assumption on every call, which cost more than the queries
        (rwcount-24: 464 queries of 1,523 assumptions, 3.5 s, 2.8 s of it coercions)."""
        args, n = self.assumed
        return z3.CheckSatResult(z3.Z3_solver_check_assumptions(
            self.ctx.ref(), self.s.solver, n, args))


def pruned(t: Table, live: list[Move], inv: Sequence[Conjunct], needs: Needs, solver: Solver,
           budget: int | None = None, least: int = PRUNE_MIN) -> Pruned:  # fmt: skip
    """The conjuncts of the inductive `inv` that `needs` uses, closed under consecution
    over `live` (every step, arrival and answer); `inv` itself when that fails or when it
    has fewer than `least` conjuncts."""
    if len(inv) < least:
        return Pruned(list(inv), 0, 0, f"fewer than {least} conjuncts")
    if budget is None:
        budget = min(PRUNE_UNITS, max(PRUNE_FLOOR, solver.units))
    cores = Cores(solver, inv, budget)
    try:
        pos = {c: i for i, c in enumerate(inv)}
        kept = {pos[c] for c in needs.conjuncts}
        for phi in needs.excluded:
            kept.update(cores.core(phi))
        kept = _closed(t, live, inv, kept, solver, cores)
    except GiveUp as exc:
        return Pruned(list(inv), cores.queries, cores.units, str(exc))
    return Pruned([c for i, c in enumerate(inv) if i in kept], cores.queries, cores.units)


def _closed(t: Table, live: list[Move], inv: Sequence[Conjunct], kept: set[int],
            solver: Solver, cores: Cores) -> set[int]:  # fmt: skip
    """`kept` and what the consecution of its conjuncts uses, to a fixpoint: each step is
    asked about the kept conjuncts it may break and was not asked about yet."""
    steps = list(changes(t, live))
    moving = steps_by_atom(steps)
    risky: list[list[int]] = [[] for _ in steps]  # per step, the kept conjuncts it may break
    breaks: dict[int, list[int]] = {}  # per kept conjunct, the steps that may break it

    def keep(i: int) -> None:  # asked of the kept conjuncts only: a fifth of Houdini's
        c = inv[i]
        breaks[i] = sorted(si for si in {si for k in c.keys for si in moving.get(k, ())}
                           if at_risk(c, steps[si]))
        for si in breaks[i]:
            risky[si].append(i)

    for i in sorted(kept):
        keep(i)
    asked: list[set[int]] = [set() for _ in steps]
    new = sorted(kept)
    while new:
        todo = sorted({si for i in new for si in breaks.get(i, ())})
        new = []
        for si in todo:
            goal = sorted(i for i in risky[si] if i not in asked[si])
            if not goal:
                continue
            asked[si].update(goal)
            ch = steps[si]
            pre = solver.pre(ch.src, ch.low, ch.fixed)
            for i in cores.core(z3.And(pre, broken(solver, ch, [inv[i] for i in goal]))):
                if i not in kept:
                    kept.add(i)
                    keep(i)
                    new.append(i)
        new.sort()
    return kept


IMPLIED_MAX = 200
"""Conjuncts beyond which `without_implied` keeps the invariant as it is (one query each)."""
IMPLIED_UNITS = 5_000_000
"""z3 resource units `without_implied` spends, at most (bank16: 34 queries, 0.1 M)."""


def without_implied(inv: Sequence[Conjunct], keep: frozenset[Conjunct], solver: Solver,
                    budget: int = IMPLIED_UNITS) -> list[Conjunct]:  # fmt: skip
    """`inv` without the conjuncts that the others imply (with the domains and M ≥ 0, which
    the checker conjoins itself), the last ones first; `keep` is never left out. The same
    configurations: every obligation of the checker means the same, and each of its
    consecution queries holds fewer conjuncts (bank16: 16 of its 34, A1 + #t0«…» ≤ 2 and
    the like, which its conservation law A0 + … + A15 + #«holding m = 1» = 2 implies;
    consecution 0.49 s to 0.37 s). At most `IMPLIED_MAX` conjuncts, and `budget` units:
    what is left when it is spent is kept."""
    if len(inv) > IMPLIED_MAX or len(inv) < 2:
        return list(inv)
    ctx = solver.ctx
    s = solver_for_lia(ctx)
    s.add(*solver.base)
    flags = [z3.Bool(f"hold{i}", ctx) for i in range(len(inv))]
    negs = [z3.Bool(f"fail{i}", ctx) for i in range(len(inv))]
    for f, g, c in zip(flags, negs, inv, strict=True):
        s.add(z3.Implies(f, solver.term(c)), z3.Implies(g, z3.Not(solver.term(c))))
    s.set("rlimit", PRUNE_RLIMIT)
    start, at = rlimit_count(s)
    gone: set[int] = set()
    for i in reversed(range(len(inv))):
        if inv[i] in keep:
            continue
        count, at = rlimit_count(s, at)
        if count - start > budget:
            break
        others = [f for j, f in enumerate(flags) if j != i and j not in gone]
        if s.check(*others, negs[i]) == z3.unsat:
            gone.add(i)
    return [c for i, c in enumerate(inv) if i not in gone]
