"""Attempts (docs/certificates.md, "Blocks"): a request's read-only run from a head state to
a commit, deleted where it ran and replayed right before the commit, validated by a
version V: the head's steps read V, and a commit finds V as the last read of V left it, a
read its head could have made (the attempt restarts there); when the attempt reads other
globals too, V never decreases and every step that changes what the attempt read raises V
or runs only where V has no value a commit reads (a compare-and-swap on a counter: V is
the counter itself; an optimistic update: its version; a seqlock: its sequence number,
odd while a writer writes).

Found from the table: a head is a request's first local state, or one entered by a step
that writes or by a split request's first step (docs/certificates.md, "Split requests"),
with a read-only step to another state; its interior is what read-only
steps reach from it (answering states left out); the other steps of the interior (and of
the head) are its commits."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import z3
else:  # loaded when a query is first made (prover/smt/z3_on_use.py)
    from prover.smt.z3_on_use import z3

from prover.reduction.invariant import Solver
from prover.reduction.table import Local, Move, Table


@dataclass(frozen=True)
class Attempt:
    head: Local
    states: tuple[Local, ...]  # the interior
    tried: tuple[Move, ...]  # read-only steps from the head and the interior, inside
    commits: tuple[Move, ...]  # their other steps
    version: str = ""


def read_only(t: Table, m: Move) -> bool:
    return len(t.touched[m.src]) == len(t.reads[m.src]) and m.after == m.reads


def find_attempts(t: Table, live: list[Move], requests: set[str]) -> list[Attempt]:
    """The attempts of the given requests with a version, their interiors disjoint."""
    out: dict[Local, list[Move]] = {}
    entries = set(t.entries)
    entered: set[Local] = set(entries)
    for m in live:
        out.setdefault(m.src, []).append(m)
        if not read_only(t, m) or m.src in entries and not t.touched[m.src]:
            entered.add(m.dst)  # after a write, or after a split request's local first step
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
    order, seen, frontier = [], {h}, [h]
    while frontier:
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
    a = Attempt(h, tuple(order), tuple(tried), tuple(commits))
    for v in t.reads[h]:
        if versioned(t, a, v) is not None:
            return Attempt(h, tuple(order), tuple(tried), tuple(commits), v)
    return None


def _own(t: Table, a: Attempt) -> set[tuple[Any, ...]]:
    return {(m.reads, m.dst, m.after) for m in t.moves if m.src == a.head}


def restarts(t: Table, a: Attempt, m: Move, own: set[tuple[Any, ...]]) -> bool:
    """Is `m` a step of the head (the head itself, or same footprint, values, outcome)?"""
    h = a.head
    return m.src == h or (t.reads[m.src], t.touched[m.src], t.writes[m.src]) == \
        (t.reads[h], t.touched[h], t.writes[h]) and (m.reads, m.dst, m.after) in own


def composite_commits(t: Table, a: Attempt) -> list[Move]:
    """The commits that are no step the head could take: replayed with the attempt."""
    own = _own(t, a)
    return [m for m in a.commits if not restarts(t, a, m, own)]


def versioned(t: Table, a: Attempt, v: str) -> set[int] | None:
    """The values of v at which commits need the version, when v can be the attempt's
    version as far as its own steps tell; None when it cannot."""
    own = _own(t, a)
    last: dict[Local, set[int | None]] = {}  # None: read where the head could not
    for m in a.tried:
        if v in t.reads[m.src]:
            last.setdefault(m.dst, set()).add(m.reads[t.reads[m.src].index(v)]
                                              if restarts(t, a, m, own) else None)
        elif m.src == a.head:
            return None
    after: dict[Local, list[Move]] = {}
    for m in a.tried:
        after.setdefault(m.src, []).append(m)
    todo = list(last)
    while todo:
        loc = todo.pop()
        for m in after.get(loc, ()):
            if v not in t.reads[loc] and not last[loc] <= last.get(m.dst, set()):
                last[m.dst] = last.get(m.dst, set()) | last[loc]
                todo.append(m.dst)
    opened: set[int] = set()
    for m in a.commits:
        if restarts(t, a, m, own):
            continue
        if v not in t.reads[m.src] or last.get(m.src) != {m.reads[t.reads[m.src].index(v)]}:
            return None
        opened.add(m.reads[t.reads[m.src].index(v)])
    return opened


def validate(t: Table, a: Attempt, live: list[Move], solver: Solver, s: z3.Solver
             ) -> str | None:  # fmt: skip
    """The checker's obligations for the attempt's version (checker/layers.py) beyond its
    own steps, `s` holding the invariant; None when they hold, else why not."""
    need = exposed(t, a, live, solver)
    if isinstance(need, str):
        return need
    if need is not None:
        s.push()
        s.add(need)
        r = solver.check(s)
        s.pop()
        if r != z3.unsat:
            return f"a step changes what the attempt at {a.head[1]} read while {a.version} " \
                "has a value its commits read"
    return None


def exposed(t: Table, a: Attempt, live: list[Move], solver: Solver) -> str | z3.BoolRef | None:
    """Where a step may change what the attempt read while its version has a value its
    commits read: what the invariant must exclude (None: nowhere), or why the version
    cannot validate the attempt."""
    v, opened = a.version, versioned(t, a, a.version)
    if opened is None:
        return f"{a.version} does not validate the attempt at {a.head[1]}"
    reads = {x for m in a.tried for x in t.reads[m.src]} - {v}
    if not reads or not opened:
        return None
    need = []
    for m in live:
        pre = dict(zip(t.reads[m.src], m.reads, strict=True))
        post = dict(zip(t.touched[m.src], m.after, strict=True))
        if v in post and (v not in pre or post[v] < pre[v]):
            return f"the step of {m.src[1]} lowers {v}"
        if any(x in post and pre.get(x) != post[x] for x in reads) and not (
                v in post and post[v] > pre[v]):  # fmt: skip
            if v in pre and pre[v] in opened:
                return f"the step of {m.src[1]} changes what the attempt read while {v} is " \
                    f"{pre[v]}"
            if v not in pre:
                need.append(z3.And(solver.pre(m.src, 1, pre),
                                   z3.Or([solver.atom(("value", v)) == x for x in opened])))
    return z3.Or(need) if need else None
