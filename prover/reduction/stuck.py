"""No deadlock at all, read off a reduction proof's invariant (docs/cli.md, "Deadlocks").

The deadlock search after a verdict (prover/engines/deadlock.py) is bounded in states and
in requests in flight. When the verdict is a reduction proof, its invariant I holds in
every reachable configuration (it holds initially and every step keeps it; the escapes
are dead under it), and the table steps every local state at every valuation of its reads
that such a configuration can have. A deadlock of the search is such a configuration,
with every request that has reached an answer gone, at least one request in flight, and
each one in flight at a local state whose every step at the current globals ends in the
same local state and globals (or that has no step there). One z3 query asks whether I
allows any configuration of that shape; unsat means there is no deadlock with any number
of requests, so the bounded search has nothing to find.

Over-approximations only ever make the query satisfiable (then the search runs as
before): the arrivals' closure of the definition is left out, and a step is a stutter
here only when its local state's live name does not change (a step that changes only a
dead local changes the search's state, not the table's), and it leaves each global it
touches at the value it had (a blind write of the same value is one).

Bounded by z3 resource units (a count, the same on any machine); the deadline is a
safety net. No answer, or too large a table: the search runs as before."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import z3
else:  # loaded when a query is first made (prover/smt/z3_on_use.py)
    from prover.smt.z3_on_use import z3

from prover.reduction.invariant import Conjunct, Solver, z3_and, z3_not, z3_or
from prover.reduction.table import Table

STUCK_RLIMIT = 50_000_000
"""z3 resource units of the one query (bank16's takes about 0.3 M)."""

STUCK_MOVES = 200_000
"""Transitions beyond which the query is not asked (its formula grows with them)."""


def deadlock_free(t: Table, inv: Sequence[Conjunct], deadline: float | None = None) -> bool:
    """Whether `inv` excludes every configuration of `t` whose requests in flight (at
    least one) can only stutter: then no execution deadlocks (module docstring)."""
    moves = (*t.moves, *t.escapes)
    if len(moves) > STUCK_MOVES:
        return False
    s = Solver(t, deadline, STUCK_RLIMIT)
    query = s.solver(list(inv))
    ctx = s.ctx
    parts: list[z3.BoolRef] = []
    for m in moves:
        before = dict(zip(t.reads[m.src], m.reads, strict=True))
        after = dict(zip(t.touched[m.src], m.after, strict=True))
        enabled = s.pre(m.src, 1, before)  # a request at m.src, m's reads as they are
        if m.dst != m.src or any(before.get(x, v) != v for x, v in after.items()):
            parts.append(z3_not(enabled, ctx))  # a step that moves: not enabled
            continue
        blind = [s.atom(("value", x)) == v for x, v in after.items() if x not in before]
        if blind:  # a stutter only where the globals it writes blindly have those values
            parts.append(z3_or([z3_not(enabled, ctx), z3_and(blind, ctx)], ctx))
    flight = [s.atom(("local", *loc)) for loc in t.locals if loc not in t.final]
    if not flight:
        return True
    parts += [s.atom(("local", *loc)) == 0 for loc in t.final]  # an answer leaves at once
    parts.append(z3.Sum(flight) >= 1)
    query.add(*parts)
    return bool(s.check(query) == z3.unsat)
