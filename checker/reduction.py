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
from checker.errors import LimitError, SchemaError, invalid
from checker.formula import Backend, Query, Smt, Translator
from checker.model import Expr, parse_program
from checker.steps import Local, Step, Steps, enumerate_steps, is_stutter

Json = Any
Thunk = Callable[[], str]
Key = tuple[str, ...]  # ("local", request, text) or ("value", global)
Linear = tuple[dict[Key, int], int, str]  # Σ c·atom + k  OP  0
MOVES = {0: {"R": 0, "B": 0, "N": 1, "L": 1}, 1: {"L": 1, "B": 1}}  # phase -> label -> phase


def _globals(e: Expr, out: set[str]) -> None:
    if e[0] in ("var", "assign") and not "a" <= e[1][0] <= "z":
        out.add(e[1])
    for child in e[1:]:
        if isinstance(child, tuple):
            _globals(child, out)


def _domains(claim: Json, names: set[str], init: dict[str, int], limits: Limits
             ) -> dict[str, tuple[int, ...]]:  # fmt: skip
    out: dict[str, tuple[int, ...]] = {}
    size = 0
    for d in claim:
        x = d["global"]
        if x not in names or x in out:
            raise invalid("E-NAME", f"domain of {x!r}: not a global of the program, or twice")
        if "range" in d:
            lo, hi = (integer(v, f"domain of {x}") for v in d["range"])
            size += max(0, hi - lo + 1)
        else:
            size += len(d["values"])
        if size > limits.max_valuations:
            raise LimitError(f"domains of more than {limits.max_valuations} values in all")
        out[x] = tuple(range(lo, hi + 1)) if "range" in d else tuple(sorted(d["values"]))
        if init.get(x, 0) not in out[x]:
            raise invalid("E-DOMAIN", f"the domain of {x} misses its initial value")
    if names - set(out):
        raise invalid("E-DOMAIN", f"global {min(names - set(out))} has no domain")
    return out


def _linear(f: Json) -> Linear | None:
    """`lhs OP rhs` with linear sides as Σ c·atom + k OP 0; None for anything else."""
    if not isinstance(f, dict) or "cmp" not in f:
        return None
    coeffs: dict[Key, int] = {}
    const = 0
    todo = [(1, f["lhs"]), (-1, f["rhs"])]
    while todo:
        c, t = todo.pop()
        if "const" in t:
            const += c * t["const"]
        elif "place" in t:
            key = _key(t["place"])
            coeffs[key] = coeffs.get(key, 0) + c
        elif "sum" in t:
            todo.extend((c * k, s) for k, s in t["sum"])
        else:
            return None
    return coeffs, const, f["cmp"]


def _key(p: Json) -> Key:
    kind = next(iter(p))
    return ("value", p[kind]) if kind == "value" else (kind, *p[kind])


def _holds(d: int | None, op: str) -> bool:
    """Σ before OP 0 and Σ after = Σ before + d: is Σ after OP 0 sure?"""
    return d is not None and (d == 0 if op == "=" else d <= 0 if op in ("<=", "<") else d >= 0)


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
    st: dict[str, Any] = {}
    init: dict[str, int] = {}
    names: set[str] = set()
    smt = Smt()
    inv = claim["invariant"]
    conj = inv["and"] if isinstance(inv, dict) and "and" in inv else [inv]
    lin = [x for x in map(_linear, conj) if x is not None]
    var: dict[Key, Any] = {}

    def atom(key: Key) -> Any:
        if key not in var:
            var[key] = smt.var(f"v{len(var)}")
        return var[key]

    def resolve(p: Json) -> Key:
        key = _key(p)
        if key[0] == "value" and key[1] in st["dom"] or key[0] == "local" and (
                key[1:] in st["steps"].foot or key[1:] in st["steps"].final):
            return key
        raise invalid("E-NAME", f"the invariant names {p}, not a global or local state here")

    def formula(f: Json, places: Callable[[Key], Any]) -> Any:
        return Translator(smt, places, {}, resolve).form(f)

    def program() -> str:
        if model["kind"] != "ser":
            raise SchemaError("a reduction proof is for a Ser program, not an NS in JSON")
        todo, nodes = [inv], 0
        while todo:  # the formula grammar is shared: its aux terms mean nothing here
            node, nodes = todo.pop(), nodes + 1
            if isinstance(node, dict) and "aux" in node:
                raise SchemaError("a reduction invariant has no auxiliary variables")
            if nodes > limits.max_nodes:
                raise LimitError(f"invariant has more than {limits.max_nodes} nodes")
            todo.extend(node.values() if isinstance(node, dict) else
                        node if isinstance(node, list) else [])
        init_env, st["blocks"] = parse_program(model["source"])
        init.update(init_env)
        names.update(init)
        for _, body in st["blocks"]:
            _globals(body, names)
        return f"{len(st['blocks'])} requests over {len(names)} globals"

    def domains() -> str:
        st["dom"] = _domains(claim["domains"], names, init, limits)
        return f"{len(st['dom'])} globals with finite domains"

    def steps() -> str:
        st["steps"] = s = enumerate_steps(st["blocks"], st["dom"], limits)
        st["live"] = [m for m in s.moves if not is_stutter(m, s.foot[m.src])]
        return f"{len(s.foot) + len(s.final)} local states, {len(s.moves)} transitions " \
            f"({len(s.moves) - len(st['live'])} stutters), {len(s.escapes)} escapes"

    def labels() -> str:
        s: Steps = st["steps"]
        given: dict[tuple[Local, tuple[int, ...] | None], str] = {}
        foot = s.foot
        for e in claim["labels"]:
            loc: Local = (e["local"][0], e["local"][1])
            if loc not in s.foot:
                raise invalid("E-NAME", f"label for {loc}: not a local state that can step")
            reads = None
            if "reads" in e:
                if tuple(sorted(e["reads"])) != foot[loc].reads:
                    raise invalid("E-NAME", f"label for {loc[1]}: reads {sorted(e['reads'])}, "
                                  f"the footprint reads {list(foot[loc].reads)}")
                reads = tuple(integer(e["reads"][x], "reads") for x in sorted(e["reads"]))
            if (loc, reads) in given:
                raise SchemaError(f"two labels for {loc[1]} at the same reads")
            given[(loc, reads)] = e["label"]
        label: dict[Step, str] = {}
        st["label"] = label
        for m in st["live"]:
            lab = given.get((m.src, m.reads)) or given.get((m.src, None))
            if lab is None:
                raise invalid("E-LABEL", f"no label for the step of {m.src[1]} at "
                              f"{_shown(s, m)}")
            label[m] = lab
        st["live"] = [m for m in st["live"] if label[m] != "D"]
        return f"{len(label)} transitions labelled"

    def query() -> Query:
        if "q" not in st:
            q = st["q"] = Query(smt, remaining)
            q.add(formula(inv, atom))
            m = smt.m
            for x, d in st["dom"].items():
                xv = atom(("value", x))
                q.add(m.And(m.GE(xv, m.Int(d[0])), m.LE(xv, m.Int(d[-1]))))
                if len(d) != d[-1] - d[0] + 1:
                    q.add(m.Or([m.Equals(xv, m.Int(v)) for v in d]))
            for loc in [*st["steps"].foot, *st["steps"].final]:
                q.add(m.GE(atom(("local", *loc)), m.Int(0)))
        return st["q"]

    def at(loc: Local, low: int, fixed: dict[str, int]) -> Any:
        m = smt.m
        parts = [m.GE(atom(("local", *loc)), m.Int(low))]
        parts += [m.Equals(atom(("value", x)), m.Int(v)) for x, v in sorted(fixed.items())]
        return m.And(parts)

    def initiation() -> str:
        def value(key: Key) -> int:
            return init.get(key[1], 0) if key[0] == "value" else 0
        if not Translator(Backend(), value, {}, resolve).form(inv):
            raise invalid("E-INITIATION", "the invariant is false with no request and the "
                          "globals at their initial values")
        return "the invariant holds initially"

    def dead() -> str:
        s: Steps = st["steps"]
        gone = list(s.escapes) + [m for m, lab in st["label"].items() if lab == "D"]
        if gone:
            pre = [at(m.src, 1, dict(zip(s.foot[m.src].reads, m.reads, strict=True)))
                   for m in gone]
            bad = query().unsat(smt.m.Or(pre), {})
            if bad is not None:
                raise invalid("E-ESCAPE", f"a step that leaves a domain, or is labelled dead, "
                              f"can be taken ({bad})")
        return f"{len(gone)} escapes and dead transitions never enabled"

    def consecution() -> str:
        s: Steps = st["steps"]
        changes: list[tuple[str, Local, dict[Key, int | None], dict[str, int]]] = []
        for m in st["live"]:
            fp = s.foot[m.src]
            before = dict(zip(fp.reads, m.reads, strict=True))
            d: dict[Key, int | None] = {("local", *m.src): -1}
            d[("local", *m.dst)] = (d.get(("local", *m.dst)) or 0) + 1
            for x, v in zip(fp.touched, m.after, strict=True):
                d[("value", x)] = v - before[x] if x in before else None
            changes.append((f"step of {m.src[1]} at {_shown(s, m)}", m.src, d,
                            dict(zip(fp.touched, m.after, strict=True))))
        for loc in s.entries:
            changes.append((f"arrival of {loc[0]}", loc, {("local", *loc): 1}, {}))
        for loc in s.final:
            changes.append((f"answer of {loc[0]} at {loc[1]}", loc, {("local", *loc): -1}, {}))
        solved = 0
        for what, src, d, after in changes:
            open_ = [c for c, li in zip(conj, map(_linear, conj), strict=True)
                     if li is None or not _holds(_delta(li, d), li[2])]
            if not open_:
                continue
            solved += 1
            fixed = {k[1]: after[k[1]] - dv for k, dv in d.items()
                     if k[0] == "value" and dv is not None}  # fmt: skip

            def post(key: Key, d: dict[Key, int | None] = d, after: dict[str, int] = after
                     ) -> Any:  # fmt: skip
                if key[0] == "value" and key[1] in after:
                    return smt.const(after[key[1]])
                return smt.lin([(1, atom(key)), (1, smt.const(d.get(key) or 0))])
            low = 0 if what.startswith("arrival") else 1
            bad = query().unsat(smt.m.And(at(src, low, fixed),
                                          smt.m.Not(smt.m.And([formula(c, post) for c in open_]))),
                                {})  # fmt: skip
            if bad is not None:
                raise invalid("E-CONSECUTION", f"the {what} breaks the invariant ({bad})")
        return f"{len(changes)} transitions keep the invariant ({solved} needed the solver)"

    def shape() -> str:
        s: Steps = st["steps"]
        out: dict[Local, list[Step]] = {}
        back: dict[Local, set[Local]] = {}
        for m in st["live"]:
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
        return _movers(st, query, at, lin, smt)

    yield "model", program
    yield "reduction-domains", domains
    yield "reduction-steps", steps
    yield "reduction-labels", labels
    yield "initiation", initiation
    yield "reduction-dead", dead
    yield "consecution", consecution
    yield "reduction-shape", shape
    yield "reduction-movers", movers


def _delta(li: Linear, d: dict[Key, int | None]) -> int | None:
    total = 0
    for key, c in li[0].items():
        if key in d:
            change = d[key]
            if change is None:
                return None
            total += c * change
    return total


def _shown(s: Steps, m: Step) -> str:
    return "{" + ",".join(f"{x}={v}" for x, v in zip(s.foot[m.src].reads, m.reads,
                                                     strict=True)) + "}"  # fmt: skip


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
                bad = query().unsat(smt.m.Or(open_), {})
                if bad is not None:
                    side = "right" if first else "left"
                    raise invalid("E-MOVER", f"the step of {t.src[1]} at {_shown(s, t)} "
                                  f"(labelled {lab}) is not a {side} mover with a step of "
                                  f"another request that the invariant allows ({bad})")
    return f"{len(live)} transitions: {pairs} non-commuting pairs, refuted by the invariant " \
        f"({asked} solver queries)"


