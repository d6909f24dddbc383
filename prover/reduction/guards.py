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

from prover.reduction.invariant import Conjunct, Linear, clause, equals, unused
from prover.reduction.table import Local, Move, Table

MAX_DOMAIN = 16  # globals with more values give no candidate (too many cases)
Values = tuple[frozenset[int], bool]  # the values, and whether the request's steps wrote them


def value_sets(t: Table, live: list[Move], skip: set[Local]) -> list[Conjunct]:
    own: dict[str, set[str]] = {}  # request -> the globals its steps touch
    out_of: dict[Local, list[Move]] = {}
    for m in live:
        own.setdefault(m.src[0], set()).update(t.touched[m.src])
        out_of.setdefault(m.src, []).append(m)
    found: list[Conjunct] = []
    for x in sorted(t.domains):
        if len(t.domains[x]) > MAX_DOMAIN:
            continue
        every = frozenset(t.domains[x])
        vs: dict[Local, Values] = {e: (every, False) for e in t.entries if x in own.get(e[0], ())}
        todo = list(vs)
        while todo:
            src = todo.pop()
            for m in out_of.get(src, ()):
                new, mine = _after(t, m, x, vs[src])
                old, was = vs.get(m.dst, (frozenset(), True))
                if new and not (new <= old and was <= mine):
                    vs[m.dst] = (old | new, was and mine)
                    todo.append(m.dst)
        groups: dict[tuple[str, frozenset[int]], list[Local]] = {}
        for loc, (vals, mine) in sorted(vs.items()):
            if vals != every and loc not in skip and loc in t.reads and loc not in t.entries:
                found.append(clause(unused(loc), *[equals(("value", x), v) for v in sorted(vals)]))
                if mine:
                    groups.setdefault((loc[0], vals), []).append(loc)
        found += [Linear(tuple(sorted((("local", *loc), 1) for loc in locs)), -1, "<=")
                  for locs in groups.values()]  # fmt: skip
    return found


def _after(t: Table, m: Move, x: str, here: Values) -> Values:
    """The values of x after m from those before it (none if m reads another), and
    whether the request's own steps wrote them."""
    if x not in t.touched[m.src]:
        return here
    before = dict(zip(t.reads[m.src], m.reads, strict=True)).get(x)
    if before is not None and before not in here[0]:
        return frozenset(), False
    after = m.after[t.touched[m.src].index(x)]
    return frozenset({after}), before is None or after != before
