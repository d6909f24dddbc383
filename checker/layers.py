"""Blocks of a reduction proof (docs/certificates.md, "Blocks"): attempts, whose read-only
steps are replayed from their head right before their commit, and sections, reduced first
(layer 1); the top layer sees an attempt as one step (N) and a section as macro steps."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from math import prod
from typing import Any

from checker.errors import LimitError, invalid
from checker.steps import Foot, Local, Step, Steps

Json = Any


@dataclass(frozen=True)
class Composite:
    """An attempt's replay and commit, as the layers above it see them."""

    head: Local
    commit: Step
    footprint: frozenset[str]  # every global the attempt's states and its commit touch


@dataclass
class Blocks:
    inner: dict[Local, int] = field(default_factory=dict)  # interior state -> block
    heads: dict[Local, int] = field(default_factory=dict)  # attempt head -> block
    kinds: list[str] = field(default_factory=list)
    tried: dict[int, list[Step]] = field(default_factory=dict)  # attempt -> read-only steps
    commits: dict[int, list[Step]] = field(default_factory=dict)
    section: dict[int, list[Step]] = field(default_factory=dict)  # entering, inside, leaving
    composites: list[Composite] = field(default_factory=list)



def read_blocks(claim: list[Json], s: Steps, live: list[Step],
                local: Any) -> Blocks:  # fmt: skip
    """The blocks' states and steps; E-BLOCK for anything outside the forms above."""
    b = Blocks(kinds=[c["kind"] for c in claim])
    for i, c in enumerate(claim):
        for p in c["states"]:
            loc = local(p)
            if loc in b.inner or loc in s.entries or loc in s.final:
                raise invalid("E-BLOCK", f"{loc[1]}: in two blocks, or a request's first "
                              "local state, or one that answers")  # fmt: skip
            b.inner[loc] = i
        if c["kind"] == "attempt":
            h = local(c["head"])
            if h in b.heads or h in s.final:
                raise invalid("E-BLOCK", f"{h[1]}: the head of two attempts, or answers")
            b.heads[h] = i
    if set(b.heads) & set(b.inner):
        raise invalid("E-BLOCK", f"{min(set(b.heads) & set(b.inner))[1]} is an attempt's head "
                      "and inside a block")  # fmt: skip
    for m in live:
        src, dst = b.inner.get(m.src, b.heads.get(m.src)), b.inner.get(m.dst)
        if src is not None and b.kinds[src] == "attempt":
            fp = s.foot[m.src]  # read-only: W ⊆ R, nothing changes
            if (dst == src or b.heads.get(m.dst) == src) and len(fp.touched) == len(fp.reads) \
                    and m.after == m.reads:
                b.tried.setdefault(src, []).append(m)
            elif dst is not None:
                raise invalid("E-BLOCK", f"attempt at {m.src[1]}: a step that writes inside "
                              "it or enters another block")  # fmt: skip
            else:
                b.commits.setdefault(src, []).append(m)
        elif dst is not None and (b.kinds[dst] == "attempt" or src not in (None, dst)):
            raise invalid("E-BLOCK", f"a step of {m.src[1]} enters a block other than from "
                          "its head or boundary")  # fmt: skip
        elif (key := dst if src is None else src) is not None:
            b.section.setdefault(key, []).append(m)
    for h, i in b.heads.items():
        seen = frozenset(x for m in b.tried.get(i, []) for x in s.foot[m.src].touched)
        for c in b.commits.get(i, []):
            b.composites.append(Composite(h, c, seen | frozenset(s.foot[c.src].touched)))
    return b


def top_view(s: Steps, moves: list[Step], b: Blocks, dom: dict[str, tuple[int, ...]],
             budget: int) -> Steps:  # fmt: skip
    """The top layer, from the steps that are not dead (stutters included): plain states
    keep their steps, a state that enters a section steps through its interior at once on
    the union of the footprints met (a macro step); attempts are left to the caller."""
    groups: dict[tuple[Local, tuple[int, ...]], list[Step]] = {}
    succ: dict[Local, set[Local]] = {}
    for m in moves:
        groups.setdefault((m.src, m.reads), []).append(m)
        succ.setdefault(m.src, set()).add(m.dst)
    sect = {loc for loc, i in b.inner.items() if b.kinds[i] == "section"}
    foot, out, macro = {}, [], set()
    for loc in s.foot:
        if loc in b.inner or loc in b.heads:
            continue
        if not succ.get(loc, set()) & sect:
            foot[loc] = s.foot[loc]
            continue
        seen, todo, names = {loc}, [loc], set(s.foot[loc].touched)
        while todo:
            for d in succ.get(todo.pop(), ()):
                if d in sect and d not in seen:
                    seen.add(d)
                    todo.append(d)
                    names |= set(s.foot[d].touched)
        reads = tuple(sorted(names))
        budget -= prod(len(dom[x]) for x in reads)
        if budget < 0:
            raise LimitError("macro steps: too many (local state, valuation) pairs")
        foot[loc] = Foot(reads, reads, frozenset())
        macro.add(loc)
        for vals in itertools.product(*(dom[x] for x in reads)):
            out += _macro(loc, dict(zip(reads, vals, strict=True)), s, groups, sect, reads)
    plain = [m for m in moves if m.src in foot and m.src not in macro]
    return Steps(s.entries, foot, s.final, tuple(dict.fromkeys(plain + out)), ())


def _macro(start: Local, v0: dict[str, int], s: Steps, groups: dict[Any, list[Step]],
           sect: set[Local], reads: tuple[str, ...]) -> list[Step]:  # fmt: skip
    """Every run from `start` at `v0` through section states to a state outside them."""
    out, stack, seen = [], [(start, v0)], set()
    while stack:
        loc, v = stack.pop()
        fp = s.foot[loc]
        for m in groups.get((loc, tuple(v[x] for x in fp.reads)), ()):
            w = {**v, **dict(zip(fp.touched, m.after, strict=True))}
            key = (m.dst, tuple(w[x] for x in reads))
            if m.dst not in sect:
                out.append(Step(start, tuple(v0[x] for x in reads), m.dst, key[1]))
            elif key not in seen:
                seen.add(key)
                stack.append((m.dst, w))
    return out


def check_attempts(ind: Any, b: Blocks, claim: list[Json], local: Any) -> str:
    """Every replay summary holds only where a read-only step of its attempt leads to its
    state from the head or from a state whose summary is listed before it and holds, and
    every commit runs only where its state's summary holds (under the invariant: both are
    read at one reachable configuration, the commit's), unless it is a step of the head."""
    m, s = ind.smt.m, ind.steps
    chain, commits = [], []
    for i, c in enumerate(claim):
        if c["kind"] != "attempt":
            continue
        h, rep = local(c["head"]), dict[Local, Any]()
        for e in c["replay"]:
            loc = local(e["local"])
            if b.inner.get(loc) != i or loc in rep:
                raise invalid("E-BLOCK", f"replay summary of {loc[1]}: not a state of this "
                              "attempt, or twice")  # fmt: skip
            ways = [m.And(ind.at(t.src, 0, _fixed(s, t)), rep.get(t.src, m.TRUE()))
                    for t in b.tried.get(i, []) if t.dst == loc and (t.src == h or t.src in rep)]
            rep[loc] = f = ind.formula(e["formula"], ind.atom)
            chain.append(m.And(f, m.Not(m.Or(ways))))
        own = {(t.reads, t.dst, t.after) for t in s.moves if t.src == h}  # the head's steps
        commits += [m.And(ind.at(t.src, 1, _fixed(s, t)), m.Not(rep.get(t.src, m.FALSE())))
                    for t in b.commits.get(i, []) if t.src != h and not (
                        s.foot[t.src] == s.foot[h] and (t.reads, t.dst, t.after) in own)]
    for parts, what in ((chain, "a replay summary holds where no read-only step leads to its "
                         "state from the head or a summary listed before"),
                        (commits, "a commit can run where its state's replay summary does "
                         "not hold")):  # fmt: skip
        bad = ind.query().unsat(m.Or(parts), ind.shown()) if parts else None
        if bad is not None:
            raise invalid("E-ATTEMPT", f"{what} ({bad})")
    return f"{len(b.heads)} attempts: {len(chain)} replay summaries, {len(commits)} commits " \
        "validated"


def _fixed(s: Steps, m: Step) -> dict[str, int]:
    return dict(zip(s.foot[m.src].reads, m.reads, strict=True))
