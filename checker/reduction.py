"""Reduction certificates (docs/certificates.md): Lipton movers under an inductive invariant."""
# Blocks (layers.py) are reduced first; labels R, L, B (both), N (commit), D (dead); every
# path reads (R|B)* N? (L|B)*.

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any, cast

from checker import steps
from checker.certificate import Limits
from checker.errors import SchemaError, invalid
from checker.invariant import Inductive, shown
from checker.steps import Blocks, Composite, Foot, Local, Step, Steps, group, refuted
from checker.waits import deferred

Json = Any
Thunk = Callable[[], str]
MOVES = {0: {"R": 0, "B": 0, "N": 1, "L": 1}, 1: {"L": 1, "B": 1}}  # phase -> label -> phase


def _assign(entries: list[Json], foot: dict[Local, Foot], moves: list[Step]) -> dict[Step, str]:
    """Each step's label: the entry for its local state at its reads, else for its state."""
    given: dict[tuple[Local, tuple[int, ...] | None], str] = {}
    for e in entries:
        loc: Local = (e["local"][0], e["local"][1])
        if loc not in foot:
            raise invalid("E-NAME", f"label for {loc}: not a local state that can step here")
        reads = tuple(v for _, v in sorted(e["reads"].items())) if "reads" in e else None
        if reads is not None and tuple(sorted(e["reads"])) != foot[loc].reads:
            raise invalid("E-NAME", f"label for {loc[1]}: reads {sorted(e['reads'])}, "
                          f"the footprint reads {list(foot[loc].reads)}")
        if (loc, reads) in given:
            raise SchemaError(f"two labels for {loc[1]} at the same reads")
        given[(loc, reads)] = e["label"]
    out = {}
    for m in moves:
        if (lab := given.get((m.src, m.reads)) or given.get((m.src, None))) is None:
            raise invalid("E-LABEL", f"no label for the step of {m.src[1]} at {shown(m)}")
        out[m] = lab
    return out


def _co(final: dict[Local, int], edges: list[tuple[Local, Local, str]]) -> set[Local]:
    """Local states from which an answer can be reached."""
    back = group((dst, src) for src, dst, _ in edges)
    return steps.reach(final, lambda loc: back.get(loc, ()))


def _phases(starts: list[tuple[Local, int]], edges: list[tuple[Local, Local, str]],
            co: set[Local], code: str) -> str:  # fmt: skip
    """Every path from the starts, in their phases, reads (R|B)* N? (L|B)* to its end."""
    out = group((src, (dst, lab)) for src, dst, lab in edges if dst in co)

    def succ(n: tuple[Local, int]) -> Iterator[tuple[Local, int]]:
        for dst, lab in out.get(n[0], ()):
            if (nxt := MOVES[n[1]].get(lab)) is None:
                raise invalid(code, f"request {n[0][0]}: {lab} after the commit, at {n[0][1]}")
            yield dst, nxt

    steps.reach(starts, succ)
    return "every request's path reads (R|B)* N? (L|B)*"


def reduction(data: Json, limits: Limits, remaining: Callable[[], float]
              ) -> Iterator[tuple[str, Thunk]]:  # fmt: skip
    model, claim = data["model"], data["reduction"]
    blocks: list[Json] = claim.get("blocks", [])
    # Only a claim with blocks loads their module (each kind of claim's trusted core is what
    # it loads: tests/checker/test_cli_and_isolation.py)
    own: Any = __import__("checker.layers", fromlist=["checker"]) if blocks else None
    ind = Inductive(model, claim["domains"], claim["invariant"], limits, remaining, False,
                    *(claim.get(k, []) for k in ("groups", "bounds", "footprints", "split")))
    st: dict[str, Any] = {"b": Blocks(), "dead": [], "w0": set()}

    def local(p: Json) -> Local:
        return cast(Local, ind.resolve({"local": p})[1:])

    def read() -> str:
        # Pass 0 (docs/certificates.md, "Deferred steps"): the blocks are read on the steps
        # without those into a wait, which no finished execution needs once pass 0 is done.
        w0 = st["w0"] = deferred(ind.steps, ind.dom, ind.bounds)
        st["s0"] = ind.steps._replace(moves=tuple(m for m in ind.steps.moves if m not in w0))
        b = st["b"] = own.read_blocks(blocks, st["s0"], [m for m in ind.live if m not in w0],
                                      local)
        if any(c["version"] not in ind.dom for c in blocks if c["kind"] == "attempt"):
            raise invalid("E-NAME", "an attempt's version is not a global of the program")
        st["l1"] = _assign([e for c in blocks if c["kind"] == "section" for e in c["labels"]],
                           ind.steps.foot, [m for ms in b.section.values() for m in ms])
        st["dead"] = [m for m, lab in st["l1"].items() if lab == "D"]
        return f"{len(b.heads)} attempts, {len(blocks) - len(b.heads)} sections"

    def labels() -> str:
        s, dead = st.get("s0", ind.steps), set(st["dead"])
        gone = dead | {m for ms in st["b"].tried.values() for m in ms}  # tried: at the commit
        top = s if not blocks else own.top_view(s, [m for m in s.moves if m not in gone],
                                                st["b"], ind.dom, limits.max_valuations)
        # The top layer's steps into a wait are deferred too (a step into an attempt's head
        # is not: the head's composites are no steps of the top view), and no swap uses one.
        wait = {m for m in deferred(top, ind.dom, ind.bounds) if m.dst not in st["b"].heads}
        top = top._replace(moves=tuple(m for m in top.moves if m not in wait))
        live = [m for m in top.moves if not m.stutter()]
        label = st["label"] = _assign(claim["labels"], top.foot, live)
        st["top"], st["live"] = top, [m for m in live if label[m] != "D"]
        st["edges"] = [(m.src, m.dst, label[m]) for m in st["live"]] + [
            (c.head, c.commit.dst, "N") for c in st["b"].composites]  # a composite: its commit
        st["co"] = _co(top.final, st["edges"])
        st["dead"] += [m for m, lab in label.items() if lab == "D"]
        dead |= set(st["dead"])
        ind.live = [m for m in ind.live if m not in dead]
        return f"{len(label)} transitions labelled"

    def sections() -> str:
        s, b, w0 = st["s0"], st["b"], st["w0"]
        co = _co(s.final, [(m.src, m.dst, "") for m in ind.live if m not in w0])
        l1 = {m: lab for m, lab in st["l1"].items() if lab != "D"}
        edges = [(m.src, m.dst, lab) for m, lab in l1.items() if m.src in b.inner]
        starts = [(m.dst, MOVES[0][lab]) for m, lab in l1.items()
                  if m.src not in b.inner and m.dst in co]  # fmt: skip
        _phases(starts, edges, co, "E-SECTION")
        tried = {m for ms in b.tried.values() for m in ms}
        zero = {loc for loc, i in b.inner.items() if b.kinds[i] == "attempt"}
        return _movers(s, l1, [m for m in ind.live if m not in tried | w0], b.composites, zero,
                       co, ind, "E-SECTION")

    yield "model", ind.program
    yield "reduction-domains", ind.domains
    yield "reduction-steps", ind.enumerate
    if blocks:
        yield "reduction-blocks", read
    yield "reduction-labels", labels
    yield "initiation", ind.initiation
    yield "reduction-dead", lambda: ind.dead(st["dead"])
    yield "consecution", ind.consecution
    if blocks:
        yield "reduction-attempts", lambda: own.check_attempts(ind, st["s0"], st["b"], blocks,
                                                               local)
        yield "reduction-sections", sections
    yield "reduction-shape", lambda: _phases([(e, 0) for e in st["top"].entries], st["edges"],
                                             st["co"], "E-SHAPE")
    yield "reduction-movers", lambda: _movers(st["top"], st["label"], st["live"],
                                              st["b"].composites, set(st["b"].inner), st["co"],
                                              ind, "E-MOVER")


def _writes(m: Step) -> frozenset[str]:
    before = m.pre()
    return frozenset(x for x, v in m.post().items() if before.get(x) != v or x in m.foot.writes)


def _on(m: Step, xs: tuple[str, ...], after: bool) -> tuple[int, ...]:
    """`m`'s values on globals it touches: those it leaves (after), or those it reads."""
    v = m.post() if after else m.pre()
    return tuple(v[x] for x in xs)


def _meet(a: Step, b: Step) -> dict[str, int] | None:
    # The globals before `a` where a then b can run (b reads what a leaves where a touches
    # them; R ⊆ R ∪ W), or None.
    xs = tuple(x for x in b.foot.reads if x in a.foot.touched)
    if _on(a, xs, True) != _on(b, xs, False):
        return None
    return {**{x: v for x, v in b.pre().items() if x not in a.foot.touched}, **a.pre()}


def _movers(view: Steps, labels: dict[Step, str], partners: list[Step],
            composites: list[Composite], zero: set[Local], co: set[Local], ind: Inductive,
            code: str) -> str:  # fmt: skip
    # A transition labelled R or B (L or B) commutes with each transition of another
    # instance that can follow (precede) it, or I excludes the pair, nobody in `zero` (an
    # attempt's composite: neither touches what the other writes, or I excludes them).
    foot, dom, m_ = view.foot, ind.dom, ind.smt.m
    live = [m for m in partners if m.src in co]
    outcomes = group(((m.src, m.reads), m) for m in view.moves + view.escapes)
    by_global = group((x, m) for m in live for x in m.foot.touched)
    near = {x: group((m.src, m) for m in ms) for x, ms in by_global.items()}  # by local state
    index: dict[tuple[Local, tuple[str, ...], bool], dict[tuple[int, ...], list[Step]]] = {}
    zeros = {("local", *z) for z in zero}
    none = m_.And([m_.Equals(ind.atom(k), m_.Int(0)) for k in sorted(zeros)])

    def swapped(a: Step, b: Step, v0: dict[str, int]) -> bool:  # b then a ends as a then b
        end = {**v0, **a.post(), **b.post()}
        return any(oa.dst == a.dst and {**v1, **oa.post()} == end
                   for ob in outcomes.get((b.src, tuple(v0[x] for x in b.foot.reads)), ())
                   if ob.dst == b.dst for v1 in [{**v0, **ob.post()}]
                   for oa in outcomes.get((a.src, tuple(v1[x] for x in a.foot.reads)), ()))

    def others(t: Step, first: bool) -> list[Step]:
        """The steps `_meet` lets run right after (first) or before `t`, by shared globals."""
        out, touched = [], {k: v for x in t.foot.touched for k, v in near.get(x, {}).items()}
        for src, ms in touched.items():
            fa, fb = (t.foot, foot[src])[::1 if first else -1]
            xs = tuple(x for x in fb.reads if x in fa.touched)
            if (key := (src, xs, first)) not in index:
                index[key] = group((_on(u, xs, not first), u) for u in ms)
            out += index[key].get(_on(t, xs, first), [])
        return out

    def failures(a: Step, b: Step) -> list[dict[str, int]]:
        """Pre-valuations where a then b runs and b then a ends elsewhere (blind writes free)."""
        pre, fa, fb = _meet(a, b), a.foot, b.foot
        if pre is None or not (_writes(a) & set(fb.touched) or _writes(b) & set(fa.touched)):
            return []
        free = [x for x in fb.reads if x in fa.touched and x not in fa.reads]
        return [v0 for vals in itertools.product(*(dom[x] for x in free))  # free: any value
                if not swapped(a, b, v0 := {**pre, **dict(zip(free, vals, strict=True))})]

    def meets(t: Step, c: Composite, first: bool) -> list[dict[str, int] | None]:
        # the pre-valuation where t and the composite meet, if they conflict
        return [_meet(*(t, c.commit)[::1 if first else -1])] if _writes(t) & c.footprint or \
            _writes(c.commit) & set(t.foot.touched) else []

    pairs, asks = 0, []
    for t, lab in labels.items():
        for first in (True, False):
            if t.src not in co or lab not in (("R", "B") if first else ("L", "B")):
                continue
            found = [(v0, u.src) for u in others(t, first)
                     for v0 in (failures(t, u) if first else failures(u, t))]
            found += [(v0, c.head) for c in composites if c.head in co
                      for v0 in meets(t, c, first) if v0 is not None]  # fmt: skip
            pairs, open_ = pairs + len(found), []
            for v0, other in found:  # both requests, and the groups their states are in
                two = [("local", *t.src), ("local", *other)]
                low = Counter(two + [g for k in two for g in ind.member.get(k, ())])
                if not refuted(ind.lin, low, v0, dom, zeros):
                    open_.append(m_.And(ind.at(t.src, 1, v0), ind.at(other, low[two[1]], {})))
            if open_:
                asks.append((t, lab, first, m_.And(none, m_.Or(open_))))
    # One query for all; only a failure is asked again step by step, to name the step.
    if asks and ind.query.unsat(m_.Or([q for *_, q in asks]), {}) is not None:
        for t, lab, first, q in asks:
            if (bad := ind.query.unsat(q, ind.named)) is not None:
                raise invalid(code, f"the step of {t.src[1]} at {shown(t)} ({lab}) is not "
                              f"a {('left', 'right')[first]} mover, under the invariant ({bad})")
        raise invalid(code, "cvc5 contradicts itself on the mover obligations")
    return f"{len(live)} transitions, {pairs} non-commuting pairs refuted ({len(asks)} asked)"
