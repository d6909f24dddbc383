"""Attempts (docs/certificates.md, "Blocks"): a request's read-only run from a head state to
a commit, deleted where it ran and replayed right before the commit when the invariant
says the replay gets there.

Found from the table: a head is a request's first local state, or one entered by a step
that writes, whose steps all read only; its interior is what read-only steps reach from
it (answering states left out). Each interior state gets a replay summary: the affine
hull of what the globals may be when a replay from the head reaches it, computed per
program point over the globals read and the request's locals (Karr's analysis on the
enumerated steps, prover/reduction/affine.py), then restricted to the state's locals.
The invariant's candidates come from the summaries: `M(l) = 0 ∨ X ≠ c ∨ summary(l)` for
each global the summary fixes (a version or a sequence number: while it is unchanged, the
replay reads what the request read), and `M(l) = 0 ∨ X ≥ c` when X never decreases.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import z3

from prover.reduction.affine import Affine, everything
from prover.reduction.invariant import Conjunct, Linear, Solver, clause, differs, unused
from prover.reduction.table import Local, Move, Table


@dataclass(frozen=True)
class Attempt:
    head: Local
    states: tuple[Local, ...]  # the interior, in the order of their replay summaries
    tried: tuple[Move, ...]  # read-only steps from the head and the interior, inside
    commits: tuple[Move, ...]  # the other steps of the interior
    replay: dict[Local, tuple[Linear, ...]]  # a conjunction of equalities over globals


def same_step(t: Table, h: Local, m: Move, own: set[tuple[Any, ...]]) -> bool:
    """Is `m` also a step of the head `h` (same footprint, values and outcome)?"""
    return (t.reads[m.src], t.touched[m.src], t.writes[m.src]) == \
        (t.reads[h], t.touched[h], t.writes[h]) and (m.reads, m.dst, m.after) in own


def read_only(t: Table, m: Move) -> bool:
    return len(t.touched[m.src]) == len(t.reads[m.src]) and m.after == m.reads


def find_attempts(t: Table, live: list[Move], requests: set[str]) -> list[Attempt]:
    """The attempts of the given requests, their interiors disjoint."""
    out: dict[Local, list[Move]] = {}
    entered: set[Local] = set(t.entries)
    for m in live:
        out.setdefault(m.src, []).append(m)
        if not read_only(t, m):
            entered.add(m.dst)
    taken: set[Local] = set()
    found = []
    for h in sorted(entered):
        if h[0] not in requests or h in taken or not any(read_only(t, m) and m.dst != h
                                                         for m in out.get(h, ())):
            continue
        a = _attempt(t, h, out, taken)
        if a is not None:
            found.append(a)
            taken |= {h, *a.states}
    return found


def _attempt(t: Table, h: Local, out: dict[Local, list[Move]], taken: set[Local]
             ) -> Attempt | None:  # fmt: skip
    order, seen = [], {h}
    frontier = [h]
    while frontier:  # breadth first: the order of the replay summaries
        nxt = []
        for loc in frontier:
            for m in out.get(loc, ()):
                if read_only(t, m) and m.dst not in seen and m.dst not in t.final:
                    seen.add(m.dst)
                    order.append(m.dst)
                    nxt.append(m.dst)
        frontier = nxt
    inside = set(order)
    if not inside or inside & taken:
        return None
    tried, commits = [], []
    for loc in [h, *order]:
        for m in out.get(loc, ()):
            if m.dst in inside | {h} and read_only(t, m):
                tried.append(m)
            elif m.dst in inside:
                return None  # a write inside the attempt
            else:
                commits.append(m)
    if not commits:
        return None
    return Attempt(h, tuple(order), tuple(tried), tuple(commits), _summaries(t, h, order, tried))


# --------------------------------------------------------------------------- summaries


def _point(loc: Local) -> str:
    """A local state's program point: its residual program, without its locals."""
    return loc[1][loc[1].index("}, ") + 3:]


def _locals(loc: Local) -> dict[str, int]:
    env = loc[1][2:loc[1].index("}, ")]
    return {k: int(v) for k, v in (x.split("=") for x in env.split(",") if x)}


def _summaries(t: Table, h: Local, order: list[Local], tried: list[Move]
               ) -> dict[Local, tuple[Linear, ...]]:  # fmt: skip
    """Per interior state, the equalities over globals that every replay reaching it
    satisfies (the affine hull, per program point, restricted to the state's locals)."""
    globs = sorted({x for m in tried for x in t.reads[m.src]})
    names = sorted({k for loc in [h, *order] for k in _locals(loc)})

    def fixed(loc: Local) -> dict[str, int]:
        own = _locals(loc)
        return {f"local {k}": own.get(k, 0) for k in names}

    hull: dict[str, Affine] = {_point(h): everything(globs, fixed(h))}
    changed = True
    while changed:  # the hulls only grow, at most once per coordinate
        changed = False
        for m in tried:
            space: Affine | None = hull.get(_point(m.src))
            for x, v in [*fixed(m.src).items(), *zip(t.reads[m.src], m.reads, strict=True)]:
                space = None if space is None else space.restrict(x, v)
            if space is None:
                continue
            point = {k: v for k, v in space.point.items() if not k.startswith("local ")}
            lifted = Affine({**point, **everything([], fixed(m.dst)).point}, space.basis)
            p = _point(m.dst)
            if p not in hull:
                hull[p], changed = lifted, True
            elif not hull[p].contains(lifted):
                hull[p], changed = hull[p].join(lifted), True
    out: dict[Local, tuple[Linear, ...]] = {}
    for loc in order:
        space = hull.get(_point(loc))
        for x, v in fixed(loc).items():
            space = None if space is None else space.restrict(x, v)
        if space is not None:
            out[loc] = tuple(Linear(tuple(sorted((("value", x), c) for x, c in row.items())),
                                    -rhs, "=") for row, rhs in space.equations(globs))
    return out


# --------------------------------------------------------------------------- candidates


def candidates(t: Table, live: list[Move], attempts: list[Attempt]) -> list[Conjunct]:
    """`M(l) = 0 ∨ X ≠ c ∨ summary(l)` for each X = c in l's summary, and the monotone
    bounds `M(l) = 0 ∨ X ≥ c` (≤ c) of such an X that no step lowers (raises)."""
    up, down = _monotone(t, live)
    out: list[Conjunct] = []
    for a in attempts:
        for loc, rep in a.replay.items():
            for c in rep:
                if len(c.coeffs) != 1 or c.coeffs[0][1] != 1:
                    continue
                key, value = c.coeffs[0][0], -c.const
                if len(rep) > 1:
                    out.append(clause(unused(loc), *differs(key, value), list(rep)))
                if key[1] in up:
                    out.append(clause(unused(loc), Linear(((key, 1),), -value, ">=")))
                if key[1] in down:
                    out.append(clause(unused(loc), Linear(((key, 1),), -value, "<=")))
    return out


def _monotone(t: Table, live: list[Move]) -> tuple[set[str], set[str]]:
    """The globals no step lowers, and those no step raises."""
    up, down = set(t.domains), set(t.domains)
    for m in live:
        before = dict(zip(t.reads[m.src], m.reads, strict=True))
        for x, v in zip(t.touched[m.src], m.after, strict=True):
            if x not in before:
                up.discard(x)
                down.discard(x)
            elif v < before[x]:
                up.discard(x)
            elif v > before[x]:
                down.discard(x)
    return up, down


# --------------------------------------------------------------------------- checks


def validate(t: Table, a: Attempt, inv: list[Conjunct], solver: Solver
             ) -> tuple[dict[Local, tuple[Linear, ...]], str | None]:  # fmt: skip
    """The checker's obligations for one attempt (checker/layers.py): the summaries that
    a nearer one reaches (the others are left out), and why a commit is not validated."""
    ctx = solver.ctx
    s = solver.solver(inv)
    rep: dict[Local, Any] = {}
    kept: dict[Local, tuple[Linear, ...]] = {}
    for loc in a.states:
        if loc not in a.replay:
            continue
        f = z3.And([c.z3(solver.atom, ctx) for c in a.replay[loc]] or [z3.BoolVal(True, ctx)])
        ways = [z3.And(solver.pre(m.src, 0, dict(zip(t.reads[m.src], m.reads, strict=True))),
                       rep.get(m.src, z3.BoolVal(True, ctx)))
                for m in a.tried if m.dst == loc and (m.src == a.head or m.src in rep)]
        s.push()
        s.add(f, z3.Not(z3.Or(ways) if ways else z3.BoolVal(False, ctx)))
        r = solver.check(s)
        s.pop()
        if r == z3.unsat:
            rep[loc], kept[loc] = f, a.replay[loc]
    own = {(m.reads, m.dst, m.after) for m in a.commits if m.src == a.head}
    for m in a.commits:
        if m.src == a.head or same_step(t, a.head, m, own):
            continue  # a step of the head: the request can take it from there
        s.push()
        s.add(solver.pre(m.src, 1, dict(zip(t.reads[m.src], m.reads, strict=True))),
              z3.Not(rep.get(m.src, z3.BoolVal(False, ctx))))
        r = solver.check(s)
        s.pop()
        if r != z3.unsat:
            at = dict(zip(t.reads[m.src], m.reads, strict=True))
            return kept, f"the commit of {m.src[1]} at {at} is not validated: a replay from " \
                "the attempt's head may not get there"
    return kept, None
