"""Value-set candidates: `M(l) = 0 ∨ X ∈ V(l, X)`, the values a global can have while a
request is in local state l, if no other request changed it since the request's own steps
last read or wrote it (a writer inside its critical section sees the sequence number odd,
a lock holder sees its lock taken). Computed by propagating values along each request's
steps from its first state (where everything is possible); Houdini keeps those that hold
whatever the other requests do.

Where the request's own step wrote the values (it owns them: it set the flag, made the
number odd), the states that own one value set form a group that is exclusive when the
set acts as a lock: `Σ M(l) ≤ 1` over the group is a candidate too."""

from __future__ import annotations

from fractions import Fraction
from math import gcd, lcm
from typing import Any

from prover.reduction.invariant import Conjunct, Key, Linear, clause, equals, linear, unused
from prover.reduction.samples import Observed
from prover.reduction.table import Local, Move, Table, _after, guarded_values

MAX_CASES = 16  # a value set with more values gives no candidate
# The pairs of groups of states are as many as states, each about as long: past this many
# terms in all (a reader over 8 cells, 9,880 states: 10^8) the rest are not guessed.
PAIR_TERMS = 2_000_000


def guards(t: Table) -> list[str]:
    """The globals a request waits on (a step that reads it spins at some value) or writes
    without reading (its value is then the one the request's own steps left): those
    whose values at a local state the invariant may need."""
    spins = {x for m in t.moves if t.is_stutter(m) for x in t.reads[m.src]}
    blind = {x for loc in t.reads for x in t.writes[loc] if x not in t.reads[loc]}
    return sorted(spins | blind)


def value_sets(t: Table, live: list[Move], skip: set[Local]) -> list[Conjunct]:
    found: list[Conjunct] = []
    for x in guards(t):
        every = frozenset(t.domains[x])
        groups: dict[tuple[str, frozenset[int]], list[Local]] = {}
        for loc, (vals, _, mine) in sorted(guarded_values(t, live, x).items()):
            if vals != every and len(vals) <= MAX_CASES and loc not in skip and \
                    loc in t.reads and loc not in t.entries:  # fmt: skip
                found.append(clause(unused(loc), *[equals(("value", x), v) for v in sorted(vals)]))
                if mine:
                    groups.setdefault((loc[0], vals), []).append(loc)
        found += [Linear(tuple(sorted((("local", *loc), 1) for loc in locs)), -1, "<=")
                  for locs in groups.values()]  # fmt: skip
    return found


def conservation_laws(t: Table, live: list[Move]) -> list[Linear]:
    """Laws Σ a(X)·X + Σ w(l)·M(l) = Σ a(X)·X0 over several globals at once (a bounded
    buffer: the free slots, the items and the requests between their P and V add up to
    the capacity). Along each request's steps from its first state (w = 0), w(l) is a
    linear form in a; where two paths meet, or at an answer (w = 0), a must make them
    agree, and a global some step writes without reading it gets a = 0, unless the
    request's own steps leave it one value there (`guarded_values`). Every solution a (a
    basis of them, exact) is a candidate."""
    Vec = dict[str, Fraction]
    blind = sorted({x for m in [*live, *t.escapes] for x in t.touched[m.src]
                    if x not in t.reads[m.src]})  # the escapes' steps are walked too (below)
    known = {x: guarded_values(t, live, x) for x in blind}

    def before(m: Move, x: str) -> int | None:
        """x's value before m: read, or (written blindly) the one value the request's own
        steps left it (under a lock: the value it read into a local)."""
        if x in t.reads[m.src]:
            return m.reads[t.reads[m.src].index(x)]
        vals, seen, _ = known[x].get(m.src, (frozenset(), False, False))
        return next(iter(vals)) if seen and len(vals) == 1 else None

    rows: list[Vec] = [{x: Fraction(1)} for m in live for x in t.touched[m.src]
                       if before(m, x) is None]
    w: dict[Local, Vec] = {e: {} for e in t.entries}
    out_of: dict[Local, list[Move]] = {}
    for m in [*live, *t.escapes]:  # escapes too: states only they reach have steps as well
        out_of.setdefault(m.src, []).append(m)
    todo = list(w)
    while todo:
        src = todo.pop()
        for m in out_of.get(src, ()):
            new = dict(w[src])
            for x, after in zip(t.touched[m.src], m.after, strict=True):
                old = before(m, x)
                if old is not None:
                    new[x] = new.get(x, Fraction(0)) - (after - old)
            new = {x: c for x, c in new.items() if c}
            if m.dst not in w:
                w[m.dst] = new
                todo.append(m.dst)
            elif new != w[m.dst]:
                rows.append(_minus(new, w[m.dst]))
    rows += [w[f] for f in t.final if w.get(f)]
    out = []
    for a in _nullspace(rows, sorted(t.domains)):
        coeffs: dict[Key, int] = {("value", x): c for x, c in a.items()}
        for loc, vec in w.items():
            c = sum((a.get(x, 0) * v for x, v in vec.items()), Fraction(0))
            if c:
                coeffs[("local", *loc)] = int(c)
        out.append(linear(coeffs, -sum(c * t.initial.get(x, 0) for x, c in a.items()), "="))
    return out


def _minus(a: dict[str, Fraction], b: dict[str, Fraction]) -> dict[str, Fraction]:
    out = dict(a)
    for k, v in b.items():
        out[k] = out.get(k, Fraction(0)) - v
    return {k: v for k, v in out.items() if v}


def _nullspace(rows: list[dict[str, Fraction]], names: list[str]) -> list[dict[str, int]]:
    """Integer vectors a over `names`, a basis of {a : row·a = 0 for every row}."""
    pivots: dict[str, dict[str, Fraction]] = {}  # reduced row echelon form, by pivot
    for row in rows:
        for p, r in pivots.items():
            if row.get(p):
                row = _minus(row, {k: row[p] * v for k, v in r.items()})
        if not row:
            continue
        p = min(row, key=names.index)
        row = {k: v / row[p] for k, v in row.items()}
        pivots = {q: _minus(r, {k: r[p] * v for k, v in row.items()}) if r.get(p) else r
                  for q, r in pivots.items()}  # fmt: skip
        pivots[p] = row
    out = []
    for free in names:
        if free in pivots:
            continue
        vec = {free: Fraction(1)} | {p: -r[free] for p, r in pivots.items() if r.get(free)}
        scale = lcm(*(c.denominator for c in vec.values()))
        ints = {k: int(c * scale) for k, c in vec.items()}
        g = gcd(*ints.values())
        out.append({k: c // g for k, c in ints.items()})
    return out


def sampled(t: Table, live: list[Move], seen: Observed, skip: set[Local]
            ) -> tuple[list[Conjunct], list[Conjunct]]:  # fmt: skip
    """Candidates read off the runs (prover/reduction/samples.py), for Houdini to prove or
    drop: per request and global, `Σ M(l) = 0 ∨ X ∈ V` over the states at which the runs
    saw X take just the values V (readers past their lock see the writer flag up); per
    group of states that own a lock value and each request, `Σ_A M = 0 ∨ Σ_B M = 0` with B
    the states the runs never saw beside A (a writer inside and its readers reading).
    Apart (the second list), the pairs whose A holds a state no run visited: the runs
    could not test them, and they are mostly about unreachable states and not inductive,
    each a satisfiable query of Houdini's (rwcount-24: 48 of its 247 pairs, none of them
    inductive)."""
    out: list[Conjunct] = []
    far: list[Conjunct] = []
    out_of: dict[Local, list[Move]] = {}
    for m in live:
        out_of.setdefault(m.src, []).append(m)
    for x in guards(t):
        every = frozenset(t.domains[x])
        groups: dict[tuple[str, frozenset[int]], list[Local]] = {}
        for loc, vals in sorted(_filled(t, out_of, x, seen).items()):
            if vals != every and len(vals) <= MAX_CASES and loc in t.reads and \
                    loc not in skip and loc not in t.entries:  # fmt: skip
                groups.setdefault((loc[0], vals), []).append(loc)
        for (_, vals), locs in groups.items():
            if len(locs) > 1:
                out.append(clause(_none(locs), *[equals(("value", x), v) for v in sorted(vals)]))
    by_request: dict[str, list[Local]] = {}
    for loc in sorted(t.reads):
        if loc not in t.entries:
            by_request.setdefault(loc[0], []).append(loc)
    beside: dict[Local, set[Local]] = {}  # the pairs the runs saw, by their first state
    for one, other in seen.together:
        beside.setdefault(one, set()).add(other)
    terms = 0
    for a in _owned(t, live):
        near = set[Local]().union(*(beside.get(loc, ()) for loc in a))
        for locs in by_request.values():
            terms += len(locs) + len(a)
            if terms > PAIR_TERMS:
                return out, far
            b = [loc for loc in locs if loc not in near and loc not in a]
            if b:
                (out if a <= seen.values.keys() else far).append(clause(_none(sorted(a)),
                                                                        _none(b)))
    return out, far


def _none(locs: list[Local]) -> Linear:
    """Σ M(l) <= 0: nobody in these states (`locs` sorted, as the terms must be)."""
    return Linear(tuple((("local", *loc), 1) for loc in locs), 0, "<=")


def _owned(t: Table, live: list[Move]) -> list[set[Local]]:
    """The groups of a request's states that own a value set of a global (the request
    wrote it), split by what its own steps read of the other small globals since (a writer
    that raised its flag, before and after it saw no reader registered)."""
    known = {x: guarded_values(t, live, x) for x in sorted(t.domains)
             if len(t.domains[x]) <= MAX_CASES}  # fmt: skip
    out = []
    for x, vs in known.items():
        groups: dict[tuple[Any, ...], set[Local]] = {}
        for loc, (vals, _, mine) in vs.items():
            if mine and loc in t.reads and vals != frozenset(t.domains[x]):
                sign = tuple((y, tuple(sorted(other[loc][0]))) for y, other in known.items()
                             if y != x and loc in other and other[loc][1] and not other[loc][2])
                groups.setdefault((loc[0], tuple(sorted(vals)), sign), set()).add(loc)
        out += [g for _, g in sorted(groups.items())]
    return out


def _filled(t: Table, out_of: dict[Local, list[Move]], x: str, seen: Observed
            ) -> dict[Local, frozenset[int]]:  # fmt: skip
    """The values of x the runs saw at each state, and at a state they never visited, the
    values its request's steps carry there from the states before it."""
    vs = {loc: got[x] for loc, got in seen.values.items() if x in got}
    todo = list(vs)
    while todo:
        src = todo.pop()
        for m in out_of.get(src, ()):
            if m.dst in seen.values:
                continue
            new = _after(t, m, x, (vs[src], True, False))[0]
            if not new <= vs.get(m.dst, frozenset()):
                vs[m.dst] = vs.get(m.dst, frozenset()) | new
                todo.append(m.dst)
    return vs
