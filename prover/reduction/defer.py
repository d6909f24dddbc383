"""Deferred steps: a step into a wait that the request could as well have taken later.

`i := ?(0..2); …; while (L[i] == 1) { yield }` runs its local choices and its first test
of the lock in one step: at L = 1 it lands in a new local state S, the wait, which writes
nothing. Such a step E → S is *deferred* when it changes no global and E can do, at every
valuation, whatever S does there but stutter. Then every finished execution stays one
with the same requests and answers when the request stays in E until S's next step and
takes E's matching step instead (docs/certificates.md, "Deferred steps"), so the movers
need not commute with it: it is not labelled and pairs with no step, while the invariant
still holds of S (its consecution keeps the step).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from prover.reduction.table import Local, Move, Table, valuations

Row = tuple[Local, tuple[int, ...]]


def deferred(t: Table, live: Iterable[Move]) -> frozenset[Move]:
    """The steps of `live` that are deferred."""
    out: dict[tuple[Local, Local], bool] = {}
    outcomes: dict[Row, set[tuple[Local, tuple[int, ...]]]] = {}
    for m in (*t.moves, *t.escapes):
        outcomes.setdefault((m.src, m.reads), set()).add((m.dst, m.after))
    found = []
    for m in live:
        if not _writes_nothing(t, m) or m.dst in t.final:
            continue
        key = (m.src, m.dst)
        if key not in out:
            out[key] = _covers(t, m.src, m.dst, outcomes)
        if out[key]:
            found.append(m)
    return frozenset(found)


def without_waits(t: Table, heads: frozenset[Local] = frozenset()) -> Table:
    """`t` without its deferred steps (those into the states `heads` excepted): what the
    checker's views have, at layer 0 and on the top layer alike (docs/certificates.md,
    "Deferred steps"), so that no mover check of the prover's uses a step the checker's
    swaps may not."""
    waits = {m for m in deferred(t, t.moves) if m.dst not in heads}
    return replace(t, moves=tuple(m for m in t.moves if m not in waits)) if waits else t


def _writes_nothing(t: Table, m: Move) -> bool:
    return t.touched[m.src] == t.reads[m.src] and m.after == m.reads and m.dst != m.src


def _covers(t: Table, e: Local, s: Local,
            outcomes: dict[Row, set[tuple[Local, tuple[int, ...]]]]) -> bool:  # fmt: skip
    """Does e have, at every valuation of its reads, each outcome s has there (but s's
    stutters), with the same globals after?"""
    er, et, sr, st = t.reads[e], t.touched[e], t.reads[s], t.touched[s]
    if not set(sr) <= set(er) or not set(st) <= set(et):
        return False
    for vals in valuations(er, t.domains, t.bounds):
        at = dict(zip(er, vals, strict=True))
        mine = outcomes.get((e, vals), set())
        for dst, after in outcomes.get((s, tuple(at[x] for x in sr)), ()):
            if dst == s and after == tuple(at[x] for x in st):
                continue  # a stutter of the wait
            end = {**at, **dict(zip(st, after, strict=True))}
            if (dst, tuple(end[x] for x in et)) not in mine:
                return False
    return True
