"""The reduction engine: domains, invariant, movers, labels, and the certificate member.

Labels give every request the shape (R|B)* N? (L|B)*. A request's local states before
its commit are in phase 0, after it in phase 1: phase 1 holds the targets of the steps
that are not right movers, and everything those reach. A step in phase 0 is labelled R
when it is a right mover, else N (the commit); a step in phase 1 must be a left mover
and is labelled L. This is the least assignment of phases, so when it fails no labelling
of these steps passes.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from functools import cached_property, partial
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    import z3
else:  # loaded when a query is first made (prover/smt/z3_on_use.py)
    from prover.smt.z3_on_use import z3

from prover.certificate.groups import grouped
from prover.errors import CompileError
from prover.frontend import ast
from prover.frontend.footprint import footprint
from prover.frontend.steps import ProgramSteps
from prover.reduction.attempts import Attempt as Attempt_
from prover.reduction.attempts import composite_commits, exposed, find_attempts, validate
from prover.reduction.defer import without_waits
from prover.reduction.guards import conservation_laws, sampled, value_sets
from prover.reduction.houdini import houdini
from prover.reduction.invariant import (
    FINDING,
    Conjunct,
    Linear,
    Solver,
    UnitsSpent,
    candidates,
    linear,
    merged,
)
from prover.reduction.movers import (
    Composite,
    Group,
    Movers,
    Phase1,
    Prior,
    Swaps,
    bounds,
    co_reachable,
    least_labels,
    refuter,
)
from prover.reduction.prune import Needs, pruned, without_implied
from prover.reduction.samples import Observed, guard, observe, refuted_by_runs
from prover.reduction.sections import find_sections, section_labels, top_table
from prover.reduction.table import (
    Bound,
    Limits,
    Local,
    Move,
    Table,
    TableTooLarge,
    grow_domains,
)

RLIMIT = 50_000_000  # z3 resource units per query (a count: the same on any machine)


@dataclass(frozen=True)
class Attempt:
    """A reduction proof (`evidence`, the certificate's `reduction` member, and what the
    explanation shows), or why there is none."""

    evidence: dict[str, Any] | None
    reason: str
    stats: dict[str, int] = field(default_factory=dict)
    explanation: dict[str, Any] = field(default_factory=dict)
    table: Table | None = field(default=None, compare=False, repr=False)
    invariant: tuple[Conjunct, ...] = field(default=(), compare=False, repr=False)
    # The same evidence with Houdini's whole invariant, when the pruned one is smaller: what
    # the pipeline offers the checker if it ever rejects the pruned one (prune.py's risk).
    fallback: Callable[[], dict[str, Any]] | None = field(default=None, compare=False,
                                                           repr=False)  # fmt: skip




def prove_by_reduction(steps: ProgramSteps, *, deadline: float | None = None,
                       limits: Limits | None = None, units: int | None = None,
                       table: Table | None = None, bounds: tuple[Bound, ...] = ()
                       ) -> Attempt:  # fmt: skip
    """A reduction proof, within `units` z3 resource units (None: until `deadline`);
    an attempt that spends them says so (`spent`). `table`: the steps on their domains,
    when an earlier attempt grew them already."""
    try:
        t = table if table is not None else grow_domains(steps, limits or Limits(), bounds,
                                                         deadline)
    except TableTooLarge as exc:
        return Attempt(None, f"reduction: {exc}")
    except CompileError as exc:  # at a valuation of the domains no execution need reach
        return Attempt(None, f"reduction: a step fails on the domains' values: {exc.message}")
    live = [m for m in t.moves if not t.is_stutter(m)]
    stats = {"local_states": len(t.locals), "transitions": len(t.moves),
             "stutters": len(t.moves) - len(live), "escapes": len(t.escapes)}
    solver = Solver(t, deadline, RLIMIT, units)
    try:
        return _reduce(steps, t, live, solver, deadline, stats)
    except UnitsSpent as exc:
        stats["solver_queries"], stats["solver_units"] = solver.queries, solver.units
        return Attempt(None, f"reduction: {exc}", stats, table=t)


def spent(a: Attempt) -> Literal["", "finding", "after"]:
    """Did the attempt stop at its budget of z3 resource units, not at a reason of the
    program: "finding" its invariant (Houdini was still at work), or "after" it (checking
    movers, attempts or escapes), or not ("")?"""
    if " z3 resource units spent " not in a.reason:
        return ""
    return "finding" if a.reason.endswith(FINDING) else "after"


def _reduce(steps: ProgramSteps, t: Table, live: list[Move], solver: Solver,
            deadline: float | None, stats: dict[str, int]) -> Attempt:  # fmt: skip
    """Plain reduction, then with attempts and the candidates they need."""
    base = [*bound_conjuncts(t), *candidates(t, live)]
    wrong = refuted_by_runs(t, live, base)  # each candidate's own: asked once per candidate
    shared = Shared(without_waits(t))
    first = _round(steps, t, live, base, wrong, None, solver, deadline, stats, frozenset(),
                   shared, None)
    if first.evidence is not None or first.reason.endswith(OUT_OF_TIME):
        return first
    # Beyond plain reduction: attempts, and the candidates they and guarded steps need. The
    # blocks are found on the steps without the deferred ones, as the checker reads them
    # (pass 0: docs/certificates.md, "Deferred steps").
    def late() -> bool:  # the guesses below grow with the states, and have no budget
        return deadline is not None and time.monotonic() > deadline

    out_of_time = Attempt(None, f"reduction: {OUT_OF_TIME}", stats, table=t)
    kept = set((t0 := shared.t0).moves)
    found = find_attempts(t0, [m for m in live if m in kept], {r for r, _ in t.entries})
    inner = {loc for a in found for loc in a.states}
    seen = observe(t, live)
    if late():
        return out_of_time
    tested = value_sets(t, live, inner) + conservation_laws(t, live)
    if late():
        return out_of_time
    guessed, untested = sampled(t, live, seen, inner)
    if late():
        return out_of_time
    extra = tested + guessed
    known = frozenset(first.invariant)
    # Value sets at the states the runs visited first: one at a state no run reaches is
    # mostly true of an unreachable state and not inductive, and each costs Houdini a
    # satisfiable query (a readers' count over 24 cells: two thirds of the time). The
    # others join only if these do not prove it (states the runs' few requests cannot
    # reach: a buffer's count beyond 3), and the pair guesses the runs could not test
    # only if those do not either (a buffer's four, none inductive, cost 110 queries).
    near = [c for c in extra if _visited(c, seen)]
    # The guesses are what these same runs saw (never beside, values seen): none is false
    # in a configuration of theirs, and evaluating their long sums took most of the time.
    wrong |= refuted_by_runs(t, live, tested)
    second: Attempt | None = None
    asked = -1
    for tier in (near, extra, extra + untested):  # each only if the one before did not prove
        if second is not None:
            if second.evidence is not None or second.reason.endswith(OUT_OF_TIME):
                break
            if len(tier) == asked:
                continue
            known |= frozenset(second.invariant)
        second, asked = _round(steps, t, live, base + tier, wrong, found, solver, deadline,
                               stats, known, shared, second), len(tier)
    assert second is not None
    return second if second.evidence is not None or not found else Attempt(
        None, f"{first.reason}; with attempts: {second.reason.removeprefix('reduction: ')}",
        stats, table=t)


OUT_OF_TIME = "out of time finding the invariant"


def bound_conjuncts(t: Table) -> list[Linear]:
    """The table's bounds as conjuncts of the invariant (which must keep them)."""
    return [linear({("value", x): c for x, c in coeffs}, k, "<=") for coeffs, k in t.bounds]


def _visited(c: Conjunct, seen: Observed) -> bool:
    """Whether a case split on a local state's counter is at a state the runs visited."""
    at = guard(c)
    return at is None or tuple(at[1:]) in seen.values


@dataclass
class Shared:
    """What the rounds of one table share: the table without its deferred steps, as every
    mover check but the top layer's reads it; which of its pairs swap, which no invariant
    changes; and the yes answers of the last round's view without blocks (`prior`), which
    the next round's, of more conjuncts, takes over."""

    t0: Table
    prior: Prior | None = None

    @cached_property
    def swaps(self) -> Swaps:
        return Swaps(self.t0)


def _round(steps: ProgramSteps, t: Table, live: list[Move], cands: list[Conjunct],
           wrong: set[Conjunct], found: list[Attempt_] | None, solver: Solver,
           deadline: float | None, stats: dict[str, int], known: frozenset[Conjunct],
           shared: Shared, before: Attempt | None) -> Attempt:  # fmt: skip
    """One Houdini run on `cands` but those the runs refuted (`wrong`; `known`: inductive
    already), then labels with the attempts `found`, then with sections (`found` None: no
    blocks), then without blocks. `before`: the round before, with the same `found`,
    which failed; when Houdini finds its invariant again, so does this one (what follows
    Houdini depends on the invariant's conjuncts and `found` alone)."""
    cands = list(dict.fromkeys(cands))
    solver.phase = FINDING
    inv = houdini(t, live, [c for c in cands if c not in wrong], solver, deadline,
                  known=known)
    solver.phase = "checking the invariant's consequences"
    attempt = partial(Attempt, stats=stats, table=t, invariant=tuple(inv or ()))
    if inv is None:
        return attempt(None, f"reduction: {OUT_OF_TIME}")
    if before is not None and frozenset(inv) == frozenset(before.invariant):
        stats["solver_queries"], stats["solver_units"] = solver.queries, solver.units
        return before
    lost = [b for b in bound_conjuncts(t) if b not in inv]
    if lost:  # the table stepped only the valuations they allow
        return attempt(None, f"reduction: the bound {lost[0]} on the globals is not inductive")
    stats["conjuncts"] = len(inv)
    escaped = _escaping(t, inv, solver, steps)
    if escaped is not None:
        return attempt(None, f"reduction: {escaped}")
    refuters = _dead(t, live, inv)
    dead, every = set(refuters), live
    live = [m for m in live if (m.src, m.reads) not in dead]
    # Steps into a wait are deferred (docs/certificates.md, "Deferred steps"): no view but
    # consecution's has them, and no swap uses one (the checker finds them itself).
    kept = set((t0 := shared.t0).moves)
    live0 = [m for m in live if m in kept]
    blocks, why = _validated(t0, found, live0, inv, solver) if found else ([], "")
    layered: Layered | str = "no attempt validated"
    # The checks of the view without blocks, made once: the sections' layer 1 is that
    # view when there are no attempts.
    views: list[Movers] = []

    def plain_view() -> Movers:
        if not views:
            views.append(Movers(t0, live0, inv, solver, swaps=shared.swaps, prior=shared.prior))
        return views[0]

    if blocks:  # with attempts first: the first round saw the plain labels fail
        layered = _layered(t0, live0, dead, inv, solver, deadline, blocks, False, shared,
                           plain_view)
    if isinstance(layered, str) and found is not None:
        layered = _layered(t0, live0, dead, inv, solver, deadline, blocks, True, shared,
                           plain_view)
    if isinstance(layered, str):
        movers = plain_view()
        plain = _labels(t0, live0, movers, deadline)
        layered = Layered(t0, live0, plain, [], {}, [], ((movers, plain),)) \
            if isinstance(plain, dict) else plain if found is None else \
            f"{plain}; blocks: {why or layered}"
    stats["solver_queries"], stats["solver_units"] = solver.queries, solver.units
    if views:
        shared.prior = views[0].prior()
    if isinstance(layered, str):
        return attempt(None, f"reduction: {layered}")
    top, labels = layered.top, layered.labels
    labels.update({g: "D" for g in dead if g[0] in top.reads and top.reads[g[0]] == t.reads[g[0]]})
    never = _never_enabled(layered, inv, solver)
    labels.update(dict.fromkeys(never, "D"))
    small = pruned(t, every, inv, _needs(t, live, inv, refuters, layered, solver, never),
                   solver)
    certified = without_implied(small.invariant, frozenset(bound_conjuncts(t)), solver)
    stats["conjuncts_kept"], stats["prune_queries"] = len(certified), small.queries
    stats["prune_units"] = small.units
    narrow = _footprints_json(steps, t)
    skip = unnamed(steps)
    evidence = _evidence(t, layered, labels, merged(certified), narrow, skip)
    full = None if len(certified) == len(inv) else partial(  # made only if needed
        _evidence, t, layered, labels, merged(inv), narrow, skip)
    return attempt(evidence, "", fallback=full,
                   explanation=_explain(steps, t, top, layered, merged(certified)))


def _evidence(t: Table, layered: Layered, labels: dict[Group, str],
              conjuncts: list[Conjunct], narrow: list[dict[str, Any]],
              skip: frozenset[str]) -> dict[str, Any]:
    """The certificate's `reduction` member for an invariant of these conjuncts."""
    invariant, groups = grouped(_invariant_json(conjuncts))
    evidence: dict[str, Any] = {"domains": _domains_json(t, skip), "invariant": invariant,
                                "labels": _labels_json(layered.top, layered.live, labels)}
    if narrow:
        evidence["footprints"] = narrow
    if t.bounds:
        evidence["bounds"] = [b.json() for b in bound_conjuncts(t)]
    if layered.attempts or layered.sections:
        # A state that enters two sections has all its labels in the first: the checker
        # reads the sections' labels as one list, where two entries for a state are wrong.
        first: dict[Local, int] = {}
        for i, sec in enumerate(layered.sections):
            for g in layered.inner:
                if g[0] in sec or _enters(t, g, sec):
                    first.setdefault(g[0], i)
        evidence["blocks"] = [_attempt_json(a) for a in layered.attempts] + [
            {"kind": "section", "states": [list(x) for x in sorted(sec)],
             "labels": _labels_json(t, [], {g: lab for g, lab in layered.inner.items()
                                           if first.get(g[0]) == i})}
            for i, sec in enumerate(layered.sections)]
    if groups:
        evidence["groups"] = groups
    return evidence


def _footprints_json(steps: ProgramSteps, t: Table) -> list[dict[str, Any]]:
    """The footprints narrower than their residual program's syntax says (an `if` the
    locals settle), which the checker is told and checks as the steps run."""
    out = []
    for loc, reads in sorted(t.reads.items()):
        wide = footprint(steps.local(t.program[loc[1]]).expr)
        if (wide.read_names, wide.writes) != (reads, t.writes[loc]):
            out.append({"local": list(loc), "reads": list(reads),
                        "writes": sorted(t.writes[loc])})
    return out


def _needs(t: Table, live: list[Move], inv: list[Conjunct], refuters: dict[Group, Linear],
           layered: Layered, solver: Solver, never: frozenset[Group] = frozenset()
           ) -> Needs:  # fmt: skip
    """What the checker's obligations besides consecution use, as the prover settled
    them: the conjuncts that show steps dead, the escapes (one formula, as the checker
    asks them), the steps z3 showed never enabled (`never`, of the top layer), the
    movers of the steps labelled R or L at either layer, and the attempts' versions
    (`live`: without the dead steps, as the checker has them)."""
    found: list[Conjunct] = [*bound_conjuncts(t), *refuters.values()]
    excluded: list[Any] = []
    if t.escapes:
        excluded.append(z3.Or([solver.pre(m.src, 1, dict(zip(t.reads[m.src], m.reads,
                                                                strict=True)))
                               for m in t.escapes]))  # fmt: skip
    if never:
        top = layered.top
        excluded.append(z3.Or([solver.pre(src, 1, dict(zip(top.reads[src], reads, strict=True)))
                               for src, reads in sorted(never)]))  # fmt: skip
    for movers, labels in layered.movers:
        by_intervals, asked = movers.needs(labels)
        found += by_intervals
        excluded += asked
    for a in layered.attempts:
        need = exposed(t, a, live, solver)
        if need is not None and not isinstance(need, str):
            excluded.append(need)
    return Needs(tuple(found), tuple(excluded))


@dataclass(frozen=True)
class Layered:
    """Labels of the top layer (its table, its transitions), and the blocks under it."""

    top: Table
    live: list[Move]
    labels: dict[Group, str]
    attempts: list[Attempt_]
    inner: dict[Group, str]  # the sections' steps' labels (layer 1)
    sections: list[frozenset[Local]]
    movers: tuple[tuple[Movers, dict[Group, str]], ...]  # each layer's checks, its labels


def _enters(t: Table, g: Group, sec: frozenset[Local]) -> bool:
    return not t.targets.get(g, frozenset()).isdisjoint(sec)


def _layered(t: Table, live: list[Move], dead: set[Group], inv: list[Conjunct],
             solver: Solver, deadline: float | None, blocks: list[Attempt_],
             with_sections: bool, shared: Shared, plain: Callable[[], Movers]
             ) -> Layered | str:  # fmt: skip
    """The labels of the top layer above the attempts `blocks` and, `with_sections`, the
    sections found (each kept when its own steps reduce), or why there are none. `t` is
    `shared.t0`; `plain`: the checks of `live` on it without blocks."""
    # An attempt's read-only steps are replayed at its commit; a commit the head could
    # take is the head's own step, the others are composites (label N).
    gone = {m for a in blocks for m in (*a.tried, *(c for c in a.commits if c.src != a.head))}
    comps = tuple(Composite(a.head, c, _footprint(t, a, c)) for a in blocks
                  for c in composite_commits(t, a) if (c.src, c.reads) not in dead)
    taken = {loc for a in blocks for loc in (a.head, *a.states)}
    view = [m for m in live if m not in gone]
    zero = frozenset(loc for a in blocks for loc in a.states)
    sections: list[frozenset[Local]] = []
    inner: dict[Group, str] = {}
    inner_movers: tuple[tuple[Movers, dict[Group, str]], ...] = ()
    if with_sections:
        movers = plain().fork() if not blocks else Movers(t, view, inv, solver, comps, zero,
                                                          swaps=shared.swaps)
        inner_movers = ((movers, inner),)
        # found on every step but stutters, dead ones too: the checker reads the blocks
        # before it knows which steps are dead, and no step may go from one into another
        steps = [m for m in t.moves if not t.is_stutter(m) and m not in gone]
        for sec in find_sections(t, steps, inv, taken):
            got = section_labels(t, view, sec, movers)
            if isinstance(got, dict):
                sections.append(sec)
                inner.update(got)
        if not sections:
            return "no section of the program reduces"
        inner.update({g: "D" for g in dead if g[0] in frozenset().union(*sections) or any(
            _enters(t, g, sec) for sec in sections)})  # fmt: skip
    shut = {g for g, lab in inner.items() if lab == "D"}
    try:  # the checker's top view: the states outside every block, macro steps for sections
        top = top_table(t, [m for m in t.moves if (m.src, m.reads) not in shut and m not in gone],
                        sections, set(zero), MACRO_BUDGET)
    except OverflowError as exc:
        return str(exc)
    # The top layer's steps into a wait are deferred too, but those into an attempt's head
    # (whose composites are no steps of the top table), as the checker finds them.
    top = without_waits(top, frozenset(a.head for a in blocks))
    top_live = [m for m in top.moves if not top.is_stutter(m) and m not in gone
                and not (top.reads[m.src] == t.reads.get(m.src) and (m.src, m.reads) in dead)]
    everyone = frozenset(zero | frozenset().union(set(), *sections))
    top_movers = Movers(top, top_live, inv, solver, comps, everyone, t)
    labels = _labels(top, top_live, top_movers, deadline, comps)
    if isinstance(labels, str):
        return labels
    return Layered(top, top_live, labels, blocks, inner, sections,
                   ((top_movers, labels), *inner_movers))


MACRO_BUDGET = 400_000  # (local state, valuation) pairs of macro steps: the checker's limit


def _validated(t: Table, found: list[Attempt_], live: list[Move], inv: list[Conjunct],
               solver: Solver) -> tuple[list[Attempt_], str]:  # fmt: skip
    """The attempts whose versions validate them under the invariant, and why not."""
    out, why = [], ""
    with_inv = solver.solver(inv)
    for a in found:
        err = validate(t, a, live, solver, with_inv)
        if err is None:
            out.append(a)
        else:
            why = why or err
    return out, why


def _footprint(t: Table, a: Attempt_, c: Move) -> frozenset[str]:
    return frozenset(x for m in a.tried for x in t.touched[m.src]) | frozenset(t.touched[c.src])


def _attempt_json(a: Attempt_) -> dict[str, Any]:
    return {"kind": "attempt", "head": list(a.head), "states": [list(s) for s in a.states],
            "version": a.version}


def _escaping(t: Table, inv: list[Conjunct], solver: Solver, steps: ProgramSteps) -> str | None:
    """Why some escape is not shown dead by the invariant, in the program's terms, or
    None."""
    if not t.escapes:  # no query: z3 may stay unloaded
        solver.unused(inv)
        return None
    s = solver.solver(inv)
    for m in t.escapes:
        s.push()
        s.add(solver.pre(m.src, 1, dict(zip(t.reads[m.src], m.reads, strict=True))))
        r = solver.check(s)
        s.pop()
        if r != z3_unsat():
            x, v = next((x, v) for x, v in zip(t.touched[m.src], m.after, strict=True)
                        if v not in t.domains[x])  # fmt: skip
            ran = t.lines(steps, m)
            lines = sorted(ran & _assignments(steps.local(t.program[m.src[1]]).expr, x)) \
                or sorted(ran)
            where = f" at line {lines[0]}" if lines else ""
            return f"request {m.src[0]} sets {x} to {v}{where}, outside {_span(t.domains[x])}" \
                f", the values the program's own constants bound it to: {x} looks " \
                "unbounded, or bounded by a condition no invariant found here states"
    return None


def _assignments(e: ast.Expr, name: str) -> set[int]:
    """The lines where `e` assigns `name`."""
    out, stack = set(), [e]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Assign) and node.name == name and node.line:
            out.add(node.line)
        stack.extend(c for c in vars(node).values() if isinstance(c, ast.Expr))
    return out


def _dead(t: Table, live: list[Move], inv: list[Conjunct]) -> dict[Group, Linear]:
    """The steps the invariant's intervals show never enabled (a lock's holder reading
    the data it wrote as something else), each with the conjunct that shows it: labelled
    D, they take no part in the shape or the movers (the checker proves them dead with
    the escapes)."""
    prepared = bounds(inv, t.domains)
    out: dict[Group, Linear] = {}
    for m in live:
        c = refuter(prepared, {("local", *m.src): 1},
                    dict(zip(t.reads[m.src], m.reads, strict=True)))
        if c is not None:
            out.setdefault((m.src, m.reads), c)
    return out


NEVER_QUERIES = 2_000
"""Steps labelled R, L or B that `_never_enabled` asks z3 about, at most."""
NEVER_PAIRS = 16
"""Pairs a step's mover checks met, at least, for `_never_enabled` to ask about it: the
checker meets them again, and each costs it about what a query costs here."""
NEVER_UNITS = 5_000_000
"""z3 resource units `_never_enabled` spends, at most (a count: the same on any machine)."""


def _never_enabled(layered: Layered, inv: list[Conjunct], solver: Solver) -> frozenset[Group]:
    """The steps labelled R, L or B whose mover checks asked z3 and that the invariant
    shows never enabled, one query each: labelled D instead. The checker then proves them
    dead in its one query of the escapes and dead steps, and leaves them out of
    consecution and of the mover checks, as steps and as partners (bank16: 17 audits at
    a sum of the balances below 2, while it holds every lock; its mover checks took 0.75 s
    of the checker's 2, then 0.45 s). Without blocks only (their layers name steps of
    other views); the labels stay as they are once the budget of z3 units is spent."""
    if layered.attempts or layered.sections or not inv:
        return frozenset()
    top = layered.top
    pairs: dict[Group, int] = {}  # the pairs each group's mover checks met
    for movers, _ in layered.movers:
        for (m, _), used in movers.used.items():
            g = (m.src, m.reads)
            pairs[g] = pairs.get(g, 0) + len(used.by_intervals) + len(used.asked)
    ask = sorted(g for g, lab in layered.labels.items()
                 if lab in ("R", "L", "B") and pairs.get(g, 0) >= NEVER_PAIRS)[:NEVER_QUERIES]
    if not ask:
        return frozenset()
    s, out, start = solver.solver(inv), set(), solver.units
    try:
        for src, reads in ask:
            if solver.units - start > NEVER_UNITS:
                break
            pre = solver.pre(src, 1, dict(zip(top.reads[src], reads, strict=True)))
            if solver.ask(s, pre) == z3_unsat():
                out.add((src, reads))
    except UnitsSpent:
        pass  # the proof stands: these labels stay R, L or B
    return frozenset(out)


def z3_unsat() -> Any:
    import z3

    return z3.unsat


def _span(d: tuple[int, ...]) -> str:
    return f"{d[0]}..{d[-1]}" if len(d) == d[-1] - d[0] + 1 else "{" + ", ".join(map(str, d)) + "}"


def _labels(t: Table, live: list[Move], movers: Movers, deadline: float | None,
            comps: tuple[Composite, ...] = ()) -> dict[Group, str] | str:  # fmt: skip
    """The least phases: a state is in phase 1 when a step that is no right mover (or an
    attempt's commit) leads to it, or a step from phase 1 does; right movers are asked
    only of steps from states still in phase 0, the nearest to the entries first."""
    co = co_reachable(t, live, [(c.head, c.commit.dst) for c in comps])
    groups: dict[Group, list[Move]] = {}
    succ: dict[Local, list[Local]] = {}
    for m in live:
        groups.setdefault((m.src, m.reads), []).append(m)
        if m.dst in co:
            succ.setdefault(m.src, []).append(m.dst)
    for c in comps:
        if c.commit.dst in co:
            succ.setdefault(c.head, []).append(c.commit.dst)
    phase1: set[Local] = set()
    # A state in phase 1 stays there, and its steps must be left movers: they are asked
    # as it joins, so that a program that fails is told before the right movers of the
    # states left (a success asks the same checks, in another order).
    later = Phase1(groups, succ, phase1, movers, lambda loc: True)
    bad = later([c.commit.dst for c in comps if c.commit.dst in co])
    near = _distances(t.entries, succ)
    right: dict[Group, bool] = {}
    for g in sorted(groups, key=lambda g: (near.get(g[0], len(near)), g)):
        if bad is not None:
            break
        if g[0] in phase1:
            continue
        if deadline is not None and time.monotonic() > deadline:
            return "out of time checking movers"
        right[g] = g[0] not in co or all(movers.mover(m, True) for m in groups[g])
        if not right[g]:
            bad = later([m.dst for m in groups[g] if m.dst in co])
    late = [c for c in comps if c.head in phase1]
    if late:
        return f"request {late[0].head[0]}: an attempt after its commit point (at " \
            f"{late[0].head[1]})"
    labels = least_labels(groups, phase1, right, movers) if bad is None else bad
    if not isinstance(labels, dict):
        return f"request {labels[0][0]}: a step after its commit point is not a left mover " \
            f"(at {labels[0][1]})"
    return labels


def _distances(entries: tuple[Local, ...], succ: dict[Local, list[Local]]) -> dict[Local, int]:
    out = dict.fromkeys(entries, 0)
    frontier = list(entries)
    while frontier:
        nxt = []
        for loc in frontier:
            for d in succ.get(loc, ()):
                if d not in out:
                    out[d] = out[loc] + 1
                    nxt.append(d)
        frontier = nxt
    return out


def unnamed(steps: ProgramSteps) -> frozenset[str]:
    """The globals only declared (`global B;`, a cell of an array no request touches): no
    request names them and they start at 0, so they are no globals of the checker's
    program, and a domain for one is refused."""
    from prover.frontend.parts import names

    named = frozenset().union(*(n.reads | n.writes for n in map(
        names, (r.body for r in steps.program.requests))))
    start = dict(steps.initial)
    return frozenset(x for x in steps.globals if x not in named and start.get(x, 0) == 0)


def _domains_json(t: Table, skip: frozenset[str]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for x, d in sorted(t.domains.items()):
        if x in skip:
            continue
        dense = len(d) == d[-1] - d[0] + 1
        out.append({"global": x, "range": [d[0], d[-1]]} if dense
                   else {"global": x, "values": list(d)})  # fmt: skip
    return out


def _invariant_json(inv: list[Conjunct]) -> Any:
    parts = [c.json() for c in inv]
    return True if not parts else parts[0] if len(parts) == 1 else {"and": parts}


def _labels_json(t: Table, live: list[Move], labels: dict[Group, str]) -> list[dict[str, Any]]:
    by_local: dict[Local, dict[tuple[int, ...], str]] = {}
    for (loc, reads), lab in labels.items():
        by_local.setdefault(loc, {})[reads] = lab
    out: list[dict[str, Any]] = []
    for loc in sorted(by_local):
        # The most common label (of a tie, the first of N R L B D) is the state's own (an
        # entry without reads); only the valuations labelled otherwise are listed: the
        # checker gives each step the label of its valuation, else its state's (bank16's
        # audit, 153 valuations of 16 balances: one entry and the 17 labelled D, a third
        # of the certificate less).
        count = Counter(by_local[loc].values())
        common = min(count, key=lambda lab: (-count[lab], "NRLBD".index(lab)))  # D last
        out.append({"local": list(loc), "label": common})
        for reads, lab in sorted(by_local[loc].items()):
            if lab != common:
                out.append({"local": list(loc), "reads": dict(zip(t.reads[loc], reads,
                                                                  strict=True)), "label": lab})
    return out


def _explain(steps: ProgramSteps, t: Table, top: Table, layered: Layered,
             inv: list[Conjunct]) -> dict[str, Any]:  # fmt: skip
    """Per request, its steps with their source lines and labels (an attempt or a section:
    one step); each attempt's lines, its commit's and its version; each section's lines
    and layer-1 labels; the invariant's conjuncts with the globals and local states they
    name."""
    rows: dict[str, dict[tuple[tuple[int, ...], str], None]] = {}
    inner = frozenset().union(set(), *layered.sections)
    macro: dict[Local, set[int]] = {}  # the same for every macro step of a state: made once
    for m in layered.live:
        lab = layered.labels[(m.src, m.reads)]
        if lab == "D":
            continue
        lines: Collection[int]
        if top.reads[m.src] == t.reads.get(m.src):
            lines = t.lines(steps, m)
        else:
            if m.src not in macro:
                macro[m.src] = _macro_lines(steps, t, m.src, inner)
            lines = macro[m.src]
        rows.setdefault(m.src[0], {})[(tuple(sorted(lines)), lab)] = None
    tries = []
    for a in layered.attempts:
        tried = set().union(*(t.lines(steps, m) for m in a.tried))
        commit = set().union(*(t.lines(steps, m) for m in a.commits))
        rows.setdefault(a.head[0], {})[(tuple(sorted(tried | commit)), "N")] = None
        tries.append({"request": a.head[0], "lines": sorted(tried), "commit": sorted(commit),
                      "version": a.version})
    parts = []
    for sec in layered.sections:
        own = [m for m in t.moves if (m.src, m.reads) in layered.inner and m.dst in sec | {
            m.src} and (m.src in sec or m.dst in sec)]  # fmt: skip
        by_label: dict[str, set[int]] = {}
        for m in own:
            by_label.setdefault(layered.inner[(m.src, m.reads)], set()).update(t.lines(steps, m))
        parts.append({"request": min(sec)[0], "lines": sorted(set().union(*by_label.values())),
                      "steps": [{"lines": sorted(ln), "label": lab}
                                for lab, ln in sorted(by_label.items())]})
    requests = [{"request": r, "steps": [{"lines": list(ln), "label": lab}
                                         for ln, lab in sorted(rows.get(r, {}))],
                 "answers_at_once": loc in t.final}
                for r, loc in dict(t.entries).items()]  # fmt: skip
    return {"requests": requests, "attempts": tries, "sections": parts,
            "invariant": [_conjunct(c) for c in inv]}


def _macro_lines(steps: ProgramSteps, t: Table, start: Local, inner: frozenset[Local]
                 ) -> set[int]:  # fmt: skip
    """The lines of every step from `start` and through the sections it enters."""
    out: set[int] = set()
    seen, todo = {start}, [start]
    while todo:
        loc = todo.pop()
        for m in t.moves:
            if m.src == loc:
                out |= t.lines(steps, m)
                if m.dst in inner and m.dst not in seen:
                    seen.add(m.dst)
                    todo.append(m.dst)
    return out


def _conjunct(c: Conjunct) -> dict[str, Any]:
    parts = [c] if isinstance(c, Linear) else [x for case in c.cases for x in case]
    text = _conjunct_text(c) if isinstance(c, Linear) else " or ".join(
        " and ".join(_conjunct_text(x) for x in case) for case in c.cases)
    return {"text": text,
            "globals": sorted({k[1] for x in parts for k, _ in x.coeffs if k[0] == "value"}),
            "local_states": sorted({(k[1], k[2]) for x in parts for k, _ in x.coeffs
                                    if k[0] == "local"})}


SHOWN_TERMS = 4  # terms of one side of a conjunct shown in full; the rest are counted


def _conjunct_text(c: Linear) -> str:
    """`L = #audit[136 local states] + #move0«A1 := A1 + 1; L := 0; 0» + ...`: globals by
    name, the number of requests in a local state by #request«rest of its program» (its
    locals in braces), many local states of one request counted together."""
    def side(terms: list[tuple[tuple[str, ...], int]], const: int) -> str:
        globs = [(k, key[1]) for key, k in terms if key[0] == "value"]
        by_request: dict[tuple[str, int], list[str]] = {}
        for key, k in terms:
            if key[0] == "local":
                by_request.setdefault((key[1], k), []).append(key[2])
        locs = [(k, _local_name(r, texts[0]) if len(texts) == 1
                 else f"#{r}[{len(texts)} local states]")
                for (r, k), texts in by_request.items()]  # fmt: skip
        parts = [f"{'' if k == 1 else f'{k}*'}{name}" for k, name in globs + locs]
        if len(parts) > SHOWN_TERMS + 1:
            parts = parts[:SHOWN_TERMS] + [f"... ({len(parts) - SHOWN_TERMS} more terms)"]
        if const or not parts:
            parts.append(str(const))
        return " + ".join(parts).replace("+ -", "- ")

    left = [(key, k) for key, k in c.coeffs if k > 0]
    right = [(key, -k) for key, k in c.coeffs if k < 0]
    return f"{side(left, 0)} {c.op} {side(right, -c.const)}"


def _local_name(request: str, text: str) -> str:
    env, _, rest = text[1:-1].partition(", ")
    return f"#{request}{'' if env == '{}' else env}«{rest}»"
