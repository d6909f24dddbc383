"""Blocks of a reduction proof (docs/certificates.md, "Blocks"): attempts and sections."""
# Attempts: read-only steps run at their commit, validated by a version (one N step on top);
# sections: reduced first (layer 1), one macro step on top.

from __future__ import annotations

import itertools
from collections.abc import Callable
from math import prod
from typing import Any

from checker.errors import LimitError, invalid
from checker.steps import Blocks, Composite, Foot, Local, Step, Steps, group, reach

Json = Any


def read_blocks(claim: list[Json], s: Steps, live: list[Step], local: Any) -> Blocks:
    """The blocks' states and steps (E-BLOCK if not of their form)."""
    b = Blocks(kinds=[c["kind"] for c in claim])
    for i, c in enumerate(claim):
        for p in c["states"]:
            if (loc := local(p)) in b.inner or loc in s.entries or loc in s.final:
                raise invalid("E-BLOCK", f"{loc[1]}: in two blocks, or a first or answering state")
            b.inner[loc] = i
        if c["kind"] == "attempt":
            if (h := local(c["head"])) in b.heads or h in s.final:
                raise invalid("E-BLOCK", f"{h[1]}: the head of two attempts, or answers")
            b.heads[h] = i
    if set(b.heads) & set(b.inner):
        raise invalid("E-BLOCK", f"{min(set(b.heads) & set(b.inner))[1]}: a head inside a block")
    for m in live:
        src, dst = b.inner.get(m.src, b.heads.get(m.src)), b.inner.get(m.dst)
        if src is not None and b.kinds[src] == "attempt":
            if (dst == src or b.heads.get(m.dst) == src) and m.read_only():
                b.tried.setdefault(src, []).append(m)
            elif dst is not None:
                raise invalid("E-BLOCK", f"attempt at {m.src[1]}: writes inside, or enters a block")
            else:
                b.commits.setdefault(src, []).append(m)
        elif dst is not None and (b.kinds[dst] == "attempt" or src not in (None, dst)):
            raise invalid("E-BLOCK", f"a step of {m.src[1]} enters a block not from its boundary")
        elif (key := dst if src is None else src) is not None:
            b.section.setdefault(key, []).append(m)
    for h, i in b.heads.items():  # a commit the head could take is the head's own step
        seen = frozenset(x for m in b.tried.get(i, []) for x in m.foot.touched)
        own = _heads(s, h)
        b.composites += [Composite(h, c, seen | frozenset(c.foot.touched))
                         for c in b.commits.get(i, []) if not own(c)]
    return b


def _heads(s: Steps, h: Local) -> Callable[[Step], bool]:
    """Is a step one the head `h` could take (its own, or one of its state's twin)?"""
    own = {(m.reads, m.dst, m.after) for m in s.moves if m.src == h}
    return lambda t: t.src == h or t.foot == s.foot[h] and (t.reads, t.dst, t.after) in own


def top_view(s: Steps, moves: list[Step], b: Blocks, dom: dict[str, tuple[int, ...]],
             budget: int) -> Steps:  # fmt: skip
    # The top layer from the steps neither dead nor tried: a state that enters a section
    # steps through it at once on the footprints met (macro steps).
    groups = group(((m.src, m.reads), m) for m in moves)
    succ = {src: set(dst) for src, dst in group((m.src, m.dst) for m in moves).items()}
    sect = {loc for loc, i in b.inner.items() if b.kinds[i] == "section"}
    foot, out, macro = {}, [], set()
    for loc in (loc for loc in s.foot if loc not in b.inner):
        if not (entered := {b.inner[d] for d in succ.get(loc, set()) & sect}):
            foot[loc] = s.foot[loc]
            continue
        inside = {x for d, i in b.inner.items() if i in entered for x in s.foot[d].touched}
        reads = tuple(sorted({*s.foot[loc].touched, *inside}))
        if (budget := budget - prod(len(dom[x]) for x in reads)) < 0:
            raise LimitError("macro steps: too many (local state, valuation) pairs")
        foot[loc] = Foot(reads, reads, frozenset())
        macro.add(loc)
        for vals in itertools.product(*(dom[x] for x in reads)):
            out += _macro(loc, dict(zip(reads, vals, strict=True)), s, groups, sect, foot[loc])
    plain = [m for m in moves if m.src in foot and m.src not in macro]
    return Steps(s.entries, foot, s.final, tuple(dict.fromkeys(plain + out)), ())


def _macro(start: Local, v0: dict[str, int], s: Steps, groups: dict[Any, list[Step]],
           sect: set[Local], fp: Foot) -> list[Step]:  # fmt: skip
    # Every run from `start` at `v0` through section states to a state outside them, as a
    # step on the macro footprint `fp`.
    out, stack, seen = [], [(start, v0)], set()
    while stack:
        loc, v = stack.pop()
        for m in groups.get((loc, tuple(v[x] for x in s.foot[loc].reads)), ()):
            w = {**v, **m.post()}
            key = (m.dst, tuple(w[x] for x in fp.reads))
            if m.dst not in sect:
                out.append(Step(start, tuple(v0[x] for x in fp.reads), m.dst, key[1], fp))
            elif key not in seen:
                seen.add(key)
                stack.append((m.dst, w))
    return out


def check_attempts(ind: Any, s: Steps, b: Blocks, claim: list[Json], local: Any) -> str:
    # Each attempt's version V, as docs/certificates.md says (the head reads it, a commit
    # finds it as a step the head could take last read it; when the attempt reads more than
    # V: V never lowered, writes under it).
    m = ind.smt.m  # `s`: the steps without the deferred ones (pass 0)
    bad: list[Any] = []
    for i, c in enumerate(claim):
        if c["kind"] != "attempt":
            continue
        h, v, tried = local(c["head"]), c["version"], b.tried.get(i, [])
        own = _heads(s, h)
        if any(t.src == h and v not in t.foot.reads for t in tried):
            raise invalid("E-ATTEMPT", f"a step of the head {h[1]} does not read {v}")
        last = _last_read(tried, v, own)
        opened: set[int] = set()
        for t in b.commits.get(i, []):
            if own(t):
                continue  # a step of the head: the request can take it from there
            if v not in t.foot.reads or set(last.get(t.src, ())) != {t.pre()[v]}:
                raise invalid("E-ATTEMPT", f"{t.src[1]}: a commit not reading {v} as last read")
            opened.add(t.pre()[v])
        reads = {x for t in tried for x in t.foot.reads} - {v}
        for t in ind.live if reads and opened else ():
            if not (reads | {v}).isdisjoint(t.foot.touched):  # else: nothing to ask
                pre, post = t.pre(), t.post()
                if v in post and (v not in pre or post[v] < pre[v]):
                    raise invalid("E-ATTEMPT", f"the step of {t.src[1]} lowers the version {v}")
                if any(x in post and pre.get(x) != post[x] for x in reads) and not (
                        v in post and post[v] > pre[v]):  # fmt: skip
                    if v not in pre:
                        bad.append(m.And(ind.at(t.src, 1, pre), m.Or([m.Equals(
                            ind.atom(("value", v)), m.Int(x)) for x in sorted(opened)])))
                    elif pre[v] in opened:
                        raise invalid("E-ATTEMPT", f"{t.src[1]} changes an attempt's read at {v}")
    if bad and (why := ind.query.unsat(m.Or(bad), ind.named)) is not None:
        raise invalid("E-ATTEMPT", f"a step changes what an attempt read, validated ({why})")
    return f"{len(b.heads)} attempts validated by their versions"


def _last_read(tried: list[Step], v: str, own: Callable[[Step], bool]
               ) -> dict[Local, list[int | None]]:  # fmt: skip
    """The values of V last read in each state (None: read where the head could not)."""
    seeds = [(t.dst, t.pre()[v] if own(t) else None) for t in tried if v in t.foot.reads]
    succ = group((t.src, t.dst) for t in tried if v not in t.foot.reads)
    return group(reach(seeds, lambda n: ((d, n[1]) for d in succ.get(n[0], ()))))
