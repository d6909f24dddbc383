"""Reduction certificates: Lipton movers under an inductive invariant, checked on the
checker's own per-variable steps (checker/steps.py), with no network system and no
serial automaton (DESIGN.md, "Per-variable steps and reduction proofs";
docs/certificates.md gives the format, the obligations and the soundness argument).

The certificate gives a finite domain per global, an invariant I over the counters M(l)
of local states and the globals' values, and a mover label per transition: R, L, B
(both), N (the commit) or D (dead: never enabled). The checker enumerates the
transitions inside the domains itself and proves, in order: the domains and names, the
labels, initiation, that escapes and dead transitions are never enabled, consecution,
the shape (R|B)* N? (L|B)* of every request, and the mover pairs.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Any

from checker.certificate import Limits, integer
from checker.errors import SchemaError, invalid
from checker.formula import Query, Smt
from checker.invariant import Inductive, Key, Linear, shown
from checker.steps import Local, Step, Steps

Json = Any
Thunk = Callable[[], str]
MOVES = {0: {"R": 0, "B": 0, "N": 1, "L": 1}, 1: {"L": 1, "B": 1}}  # phase -> label -> phase


def _refuted(lin: list[Linear], low: dict[Key, int], fixed: dict[str, int],
             dom: dict[str, tuple[int, ...]]) -> bool:  # fmt: skip
    """Interval reasoning: some linear conjunct is false on every configuration with the
    globals in `fixed` fixed, the others in their domains, and M(l) ≥ low[l] (else ≥ 0)."""
    for coeffs, k, op in lin:
        lo: int | None = k
        hi: int | None = k
        for key, c in coeffs.items():
            v = fixed.get(key[1]) if key[0] == "value" else None
            a, b = (v, v) if v is not None else (min(dom[key[1]]), max(dom[key[1]])) \
                if key[0] == "value" else (low.get(key, 0), None)
            x, y = (a, b) if c > 0 else (b, a)
            lo = None if lo is None or x is None else lo + c * x
            hi = None if hi is None or y is None else hi + c * y
        if _false(lo, hi, op):
            return True
    return False


def _false(lo: int | None, hi: int | None, op: str) -> bool:
    """Is `e OP 0` false for every e in [lo, hi] (None: unbounded)?"""
    above = lo is not None and (lo > 0 or op == "<" and lo == 0)
    below = hi is not None and (hi < 0 or op == ">" and hi == 0)
    return above or below if op == "=" else above if op in ("<=", "<") else below


def reduction(model: Json, claim: Json, limits: Limits, remaining: Callable[[], float]
              ) -> Iterator[tuple[str, Thunk]]:  # fmt: skip
    ind = Inductive(model, claim["domains"], claim["invariant"], limits, remaining, False)
    st: dict[str, Any] = {}

    def labels() -> str:
        s: Steps = ind.steps
        given: dict[tuple[Local, tuple[int, ...] | None], str] = {}
        for e in claim["labels"]:
            loc: Local = (e["local"][0], e["local"][1])
            if loc not in s.foot:
                raise invalid("E-NAME", f"label for {loc}: not a local state that can step")
            reads = None
            if "reads" in e:
                if tuple(sorted(e["reads"])) != s.foot[loc].reads:
                    raise invalid("E-NAME", f"label for {loc[1]}: reads {sorted(e['reads'])}, "
                                  f"the footprint reads {list(s.foot[loc].reads)}")
                reads = tuple(integer(e["reads"][x], "reads") for x in sorted(e["reads"]))
            if (loc, reads) in given:
                raise SchemaError(f"two labels for {loc[1]} at the same reads")
            given[(loc, reads)] = e["label"]
        label: dict[Step, str] = {}
        st["label"] = label
        for m in ind.live:
            lab = given.get((m.src, m.reads)) or given.get((m.src, None))
            if lab is None:
                raise invalid("E-LABEL", f"no label for the step of {m.src[1]} at "
                              f"{shown(s, m)}")
            label[m] = lab
        ind.live = [m for m in ind.live if label[m] != "D"]
        return f"{len(label)} transitions labelled"

    def shape() -> str:
        s: Steps = ind.steps
        out: dict[Local, list[Step]] = {}
        back: dict[Local, set[Local]] = {}
        for m in ind.live:
            out.setdefault(m.src, []).append(m)
            back.setdefault(m.dst, set()).add(m.src)
        co, todo = set(s.final), list(s.final)
        while todo:
            for p in back.get(todo.pop(), ()):
                if p not in co:
                    co.add(p)
                    todo.append(p)
        st["co"] = co
        seen = {(loc, 0) for loc in s.entries}
        work = list(seen)
        while work:
            loc, phase = work.pop()
            for m in out.get(loc, ()):
                if m.dst not in co:
                    continue
                nxt = MOVES[phase].get(st["label"][m])
                if nxt is None:
                    raise invalid("E-SHAPE", f"request {loc[0]}: a step labelled "
                                  f"{st['label'][m]} after its commit, at {loc[1]}")
                if (m.dst, nxt) not in seen:
                    seen.add((m.dst, nxt))
                    work.append((m.dst, nxt))
        return "every request's path reads (R|B)* N? (L|B)*"

    def movers() -> str:
        st.update(steps=ind.steps, dom=ind.dom, live=ind.live, shown=ind.shown)
        return _movers(st, ind.query, ind.at, ind.lin, ind.smt)

    yield "model", ind.program
    yield "reduction-domains", ind.domains
    yield "reduction-steps", ind.enumerate
    yield "reduction-labels", labels
    yield "initiation", ind.initiation
    yield "reduction-dead", lambda: ind.dead([m for m, lab in st["label"].items() if lab == "D"])
    yield "consecution", ind.consecution
    yield "reduction-shape", shape
    yield "reduction-movers", movers


def _movers(st: dict[str, Any], query: Callable[[], Query], at: Callable[..., Any],
            lin: list[Linear], smt: Smt) -> str:  # fmt: skip
    """For each transition labelled R or B (L or B), every step of another instance that
    can follow (precede) it commutes with it, or the invariant excludes the pair."""
    s: Steps = st["steps"]
    dom: dict[str, tuple[int, ...]] = st["dom"]
    live = [m for m in st["live"] if m.src in st["co"]]
    outcomes: dict[tuple[Local, tuple[int, ...]], list[Step]] = {}
    for m in s.moves + s.escapes:
        outcomes.setdefault((m.src, m.reads), []).append(m)
    by_global: dict[str, list[Step]] = {}
    writes: dict[Step, frozenset[str]] = {}
    for m in live:
        fp = s.foot[m.src]
        before = dict(zip(fp.reads, m.reads, strict=True))
        writes[m] = frozenset(x for x, v in zip(fp.touched, m.after, strict=True)
                              if before.get(x) != v or x in fp.writes)  # fmt: skip
        for x in fp.touched:
            by_global.setdefault(x, []).append(m)

    def swapped(a: Step, b: Step, v0: dict[str, int], end: dict[str, int]) -> bool:
        fa, fb = s.foot[a.src], s.foot[b.src]
        for ob in outcomes.get((b.src, tuple(v0[x] for x in fb.reads)), ()):
            if ob.dst != b.dst:
                continue
            v1 = {**v0, **dict(zip(fb.touched, ob.after, strict=True))}
            for oa in outcomes.get((a.src, tuple(v1[x] for x in fa.reads)), ()):
                if oa.dst == a.dst and {**v1, **dict(zip(fa.touched, oa.after,
                                                         strict=True))} == end:  # fmt: skip
                    return True
        return False

    def failures(a: Step, b: Step) -> list[dict[str, int]]:
        """Pre-valuations where a then b runs, but b then a does not end the same."""
        fa, fb = s.foot[a.src], s.foot[b.src]
        if not (writes[a] & set(fb.touched) or writes[b] & set(fa.touched)):
            return []
        pre = dict(zip(fa.reads, a.reads, strict=True))
        post = dict(zip(fa.touched, a.after, strict=True))
        free = []
        for x, v in zip(fb.reads, b.reads, strict=True):
            if x in post and post[x] != v:
                return []
            if x in post and x not in pre:
                free.append(x)
            elif x not in post:
                pre[x] = v
        bad = []
        for vals in itertools.product(*(dom[x] for x in free)):
            v0 = {**pre, **dict(zip(free, vals, strict=True))}
            end = {**v0, **post, **dict(zip(fb.touched, b.after, strict=True))}
            if not swapped(a, b, v0, end):
                bad.append(v0)
        return bad

    pairs = asked = 0
    for t in live:
        lab = st["label"][t]
        others = dict.fromkeys(u for x in s.foot[t.src].touched for u in by_global.get(x, ()))
        for first in (True, False):
            if lab not in (("R", "B") if first else ("L", "B")):
                continue
            open_ = []
            for u in others:
                a, b = (t, u) if first else (u, t)
                for v0 in failures(a, b):
                    pairs += 1
                    low = {("local", *a.src): 1}
                    low[("local", *b.src)] = low.get(("local", *b.src), 0) + 1
                    if not _refuted(lin, low, v0, dom):
                        open_.append(smt.m.And(at(a.src, 1, v0), at(b.src, low[("local",
                                                                             *b.src)], {})))
            if open_:
                asked += 1
                bad = query().unsat(smt.m.Or(open_), st["shown"]())
                if bad is not None:
                    side = "right" if first else "left"
                    raise invalid("E-MOVER", f"the step of {t.src[1]} at {shown(s, t)} "
                                  f"(labelled {lab}) is not a {side} mover with a step of "
                                  f"another request that the invariant allows ({bad})")
    return f"{len(live)} transitions: {pairs} non-commuting pairs, refuted by the invariant " \
        f"({asked} solver queries)"


