"""Inductive invariants on the checker's own per-variable steps (docs/certificates.md)."""
# I is over the counters M(l) of local states, the globals and (`G p`) the answers C(r, v),
# with the domains and M, C ≥ 0; arithmetic settles a conjunct a step shifts by constants,
# cvc5 the rest.

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from functools import cached_property
from typing import Any

from checker.certificate import Limits
from checker.errors import LimitError, SchemaError, invalid
from checker.formula import Query, Smt, Translator
from checker.model import Expr, env_text, named
from checker.program import parse_program
from checker.steps import Foot, Key, Linear, Local, Step, enumerate_steps, group, split

Json = Any
Change = tuple[str, Local, dict[Key, int | None], dict[str, int], dict[str, int]]


def linear(f: Json) -> Linear | None:
    """`lhs OP rhs` with linear sides as Σ c·atom + k OP 0; None for anything else."""
    if not isinstance(f, dict) or "cmp" not in f:
        return None
    coeffs, const, todo = Counter[Key](), 0, [(1, f["lhs"]), (-1, f["rhs"])]
    while todo:
        c, t = todo.pop()
        if "const" in t:
            const += c * t["const"]
        elif "place" in t:
            coeffs[key_of(t["place"])] += c
        elif "sum" in t:
            todo.extend((c * k, s) for k, s in t["sum"])
        else:
            return None
    return dict(coeffs), const, f["cmp"]


def _places(f: Json) -> set[Key]:
    """The atoms a formula reads (its depth is bounded by the JSON depth limit)."""
    if isinstance(f, dict):
        return {key_of(f["place"])} if "place" in f else set().union(*map(_places, f.values()))
    return set().union(*map(_places, f)) if isinstance(f, list) else set()


def key_of(p: Json) -> Key:
    kind = next(iter(p))
    return (kind, p[kind]) if kind in ("value", "group") else (kind, *p[kind])


def _kept(li: Linear, d: dict[Key, int | None]) -> bool:
    """Does Σ OP 0 surely hold after a step changing its atoms by `d` (None: not by a constant)?"""
    if any(d[k] is None for k in li[0] if k in d):
        return False
    n = sum(c * (d[k] or 0) for k, c in li[0].items() if k in d)  # Σ after - Σ before
    return n == 0 if li[2] == "=" else n <= 0 if li[2] in ("<=", "<") else n >= 0


def shown(m: Step) -> str:
    return env_text(m.pre().items())


def _shown_name(k: Key) -> str:
    """A variable in a counter-model: a global, a `#r«local»` count, or an answer count."""
    if k[0] in ("value", "group"):
        return str(k[1]) if k[0] == "value" else f"#group{k[1]}"
    text = str(k[2]) if len(str(k[2])) <= 40 else str(k[2])[:37] + "..."
    return f"#{k[1]}«{text}»" if k[0] == "local" else f"answered({k[1]}, {text})"


class Inductive:
    """One invariant of one Ser program on its domains, filled in by its obligations in order."""

    def __init__(self, model: Json, domains: Json, inv: Json, limits: Limits,
                 remaining: Callable[[], float], counts: bool, groups: Json = (),
                 bounds: Json = (), footprints: Json = (), split: Json = ()) -> None:
        self.model, self.claim_domains, self.inv, self.limits = model, domains, inv, limits
        self.remaining, self.counts, self.groups = remaining, counts, groups
        self.grouped, self.member = dict[Key, list[Key]](), dict[Key, list[Key]]()
        self.conj = [*(inv["and"] if isinstance(inv, dict) and "and" in inv else [inv]),
                     *bounds]  # conjuncts of I over globals: only valuations meeting them step
        self.inv, self.bound_json = ({"and": self.conj} if bounds else inv), bounds
        self.lin = [x for x in map(linear, self.conj) if x is not None]
        self.smt, self.var, self.init = Smt(), dict[Key, Any](), dict[str, int]()
        self.names, self.requests = set[str](), set[str]()  # globals, request names
        self.blocks, self.dom = list[tuple[str, Expr]](), dict[str, tuple[int, ...]]()
        self.bounds, self.live = list[Linear](), list[Step]()
        self.split = set(split)  # requests run with a yield after their local prefix
        self.given = {(f["local"][0], f["local"][1]): Foot(  # checked as the steps run
            tuple(sorted(set(f["reads"]))), tuple(sorted({*f["reads"], *f["writes"]})),
            frozenset(f["writes"])) for f in footprints}
        # the atoms a counter-model shows, as made; a comparison's Σ lhs - rhs, by JSON node
        self.named, self._sums = dict[str, Any](), dict[int, Any]()

    def atom(self, key: Key) -> Any:
        if key not in self.var:
            self.var[key] = self.named[_shown_name(key)] = self.smt.var(f"v{len(self.var)}")
        return self.var[key]

    def resolve(self, p: Json) -> Key:
        key, s = key_of(p), self.steps
        if key[0] == "value" and key[1] in self.dom or key[0] == "local" and (
                key[1:] in s.foot or key[1:] in s.final) or key[0] == "response" and \
                self.counts and key[1] in self.requests or key in self.grouped:  # fmt: skip
            return key
        raise invalid("E-NAME", f"{p}: no such global, local state, answer or group here")

    def formula(self, f: Json, places: Callable[[Key], Any]) -> Any:
        return Translator(self.smt, places, {}, self.resolve).form(f)

    def program(self) -> str:
        if self.model["kind"] != "ser":
            raise SchemaError("a proof on per-variable steps is for a Ser program")
        todo, nodes = [self.inv], 0
        while todo:  # the formula grammar is shared: its aux terms mean nothing here
            node, nodes = todo.pop(), nodes + 1
            if isinstance(node, dict) and "aux" in node:
                raise SchemaError("an invariant on per-variable steps has no aux variables")
            if nodes > self.limits.max_nodes:
                raise LimitError(f"formulas of more than {self.limits.max_nodes} nodes")
            todo.extend(node.values() if isinstance(node, dict) else
                        node if isinstance(node, list) else [])
        init_env, blocks = parse_program(self.model["source"], self.model.get("constants"))
        self.blocks = [(r, split(b) if r in self.split else b) for r, b in blocks]
        if unknown := self.split - {r for r, _ in blocks}:
            raise invalid("E-NAME", f"split: no request {min(unknown)!r}")
        self.init.update(init_env)
        self.requests.update(r for r, _ in self.blocks)
        self.names.update(self.init, *(named(body) for _, body in self.blocks))
        return f"{len(self.blocks)} requests over {len(self.names)} globals"

    def domains(self) -> str:
        size = 0
        for d in self.claim_domains:
            x = d["global"]
            if x not in self.names or x in self.dom:
                raise invalid("E-NAME", f"domain of {x!r}: no global of the program, or twice")
            if "range" in d:
                lo, hi = d["range"]
            size += max(0, hi - lo + 1) if "range" in d else len(d["values"])
            if size > self.limits.max_valuations:
                raise LimitError(f"domains of more than {self.limits.max_valuations} values")
            self.dom[x] = tuple(range(lo, hi + 1)) if "range" in d else tuple(sorted(d["values"]))
            if self.init.get(x, 0) not in self.dom[x]:
                raise invalid("E-DOMAIN", f"the domain of {x} misses its initial value")
        if self.names - set(self.dom):
            raise invalid("E-DOMAIN", f"global {min(self.names - set(self.dom))} has no domain")
        self.bounds = [li for li in map(linear, self.bound_json) if li and li[0] and all(
            k[0] == "value" and k[1] in self.dom for k in li[0])]
        if len(self.bounds) != len(self.bound_json):
            raise invalid("E-BOUND", "a bound is not a linear comparison of the globals alone")
        return f"{len(self.dom)} globals with finite domains"

    def enumerate(self) -> str:
        self.steps = s = enumerate_steps(self.blocks, self.dom, self.limits, self.bounds,
                                             self.given)
        self.live = [m for m in s.moves if not m.stutter()]
        for i, g in enumerate(self.groups):  # {"group": i}: the requests in any state of g
            self.grouped[key_of({"group": i})] = [self.resolve({"local": p}) for p in g]
        self.member = group((k, g) for g, ks in self.grouped.items() for k in ks)
        return f"{len(s.foot) + len(s.final)} local states, {len(s.moves)} transitions " \
            f"({len(s.moves) - len(self.live)} stutters), {len(s.escapes)} escapes"

    @cached_property
    def query(self) -> Query:
        """A solver holding I, the domains and M, C ≥ 0 (made when first asked)."""
        q, m = Query(self.smt, self.remaining), self.smt.m
        q.add(self.formula(self.inv, self.atom))
        for x, d in self.dom.items():
            xv = self.atom(("value", x))
            q.add(m.And(m.GE(xv, m.Int(d[0])), m.LE(xv, m.Int(d[-1]))))
            if len(d) != d[-1] - d[0] + 1:
                q.add(m.Or([m.Equals(xv, m.Int(v)) for v in d]))
        for key in [("local", *loc) for loc in [*self.steps.foot, *self.steps.final]] + [
                k for k in self.var if k[0] == "response"]:
            q.add(m.GE(self.atom(key), m.Int(0)))
        for g, ks in self.grouped.items():  # a group's counter: the sum of its states'
            q.add(m.Equals(self.atom(g), self.smt.lin([(1, self.atom(k)) for k in ks])))
        return q

    def at(self, loc: Local, low: int, fixed: dict[str, int]) -> Any:
        m = self.smt.m
        return m.And(m.GE(self.atom(("local", *loc)), m.Int(low)), *[
            m.Equals(self.atom(("value", x)), m.Int(v)) for x, v in sorted(fixed.items())])

    def initiation(self) -> str:
        at = self.formula(self.inv, lambda k: self.smt.const(self.init.get(k[1], 0) if k[0]
                                                            == "value" else 0))  # fmt: skip
        if not at.simplify().is_true():  # a closed formula: pySMT evaluates it
            raise invalid("E-INITIATION", "the invariant is false initially (no request)")
        return "the invariant holds initially"

    def dead(self, also: list[Step]) -> str:
        """Escapes, and the steps `also` (labelled dead), are never enabled under I."""
        gone = [*self.steps.escapes, *also]
        pre = [self.at(m.src, 1, m.pre()) for m in gone]
        if gone and (bad := self.query.unsat(self.smt.m.Or(pre), self.named)) is not None:
            raise invalid("E-ESCAPE", f"an escape or a step labelled dead can be taken ({bad})")
        return f"{len(gone)} escapes and dead transitions never enabled"

    def changes(self) -> list[Change]:
        """Every live step, arrival and answer: (what, local, changes, reads, globals after)."""
        s = self.steps
        out: list[Change] = []
        for m in self.live:
            before, after = m.pre(), m.post()
            d: dict[Key, int | None] = {("local", *m.src): -1}
            d[("local", *m.dst)] = (d.get(("local", *m.dst)) or 0) + 1
            for x, v in after.items():
                d[("value", x)] = v - before[x] if x in before else None
            out.append((f"step of {m.src[1]} at {shown(m)}", m.src, d, before, after))
        out += [(f"arrival of {loc[0]}", loc, {("local", *loc): 1}, {}, {}) for loc in s.entries]
        for loc, v in s.final.items():
            d = {("local", *loc): -1}
            if self.counts:
                d[("response", loc[0], str(v))] = 1
            out.append((f"answer of {loc[0]} at {loc[1]}", loc, d, {}, {}))
        for _, _, d, _, _ in out:  # a group's counter changes by its states' changes
            for k, dv in [(k, dv) for k, dv in d.items() if k in self.member]:
                for g in self.member[k]:
                    d[g] = (d.get(g) or 0) + (dv or 0)
        return out

    def after(self, f: Json, d: dict[Key, int | None], after: dict[str, int]) -> Any:
        # `f` after a step (atoms changed by `d`, globals set to `after`): a linear comparison
        # is its sum before (made once) plus the step's change, any other is made anew.
        m, smt = self.smt.m, self.smt
        if isinstance(f, dict) and ("and" in f or "or" in f):
            parts = [self.after(g, d, after) for g in f["and" if "and" in f else "or"]]
            return m.And(parts) if "and" in f else m.Or(parts)
        li = linear(f)
        if li is None:
            return self.formula(f, lambda k: smt.const(after[k[1]]) if k[0] == "value" and k[
                1] in after else smt.lin([(1, self.atom(k)), (1, smt.const(d.get(k) or 0))]))
        if id(f) not in self._sums:
            self._sums[id(f)] = Translator(smt, self.atom, {}, self.resolve).term(
                {"sum": [[1, f["lhs"]], [-1, f["rhs"]]]})
        shift = [(c, smt.lin([(1, smt.const(after[k[1]])), (-1, self.atom(k))]))
                 if (dk := d[k]) is None or k[0] == "value" and k[1] in after
                 else (c * dk, smt.const(1)) for k, c in li[0].items() if d.get(k, 0) != 0]
        return smt.cmp(li[2], smt.lin([(1, self._sums[id(f)]), *shift]), smt.const(0))

    def consecution(self) -> str:
        solved, found, m = 0, self.changes(), self.smt.m
        lins = [linear(c) for c in self.conj]
        reads = group((k, i) for i, c in enumerate(self.conj) for k in _places(c))
        for what, src, d, before, after in found:  # a conjunct whose atoms stay is kept
            moved = sorted({i for k, dv in d.items() if dv != 0 for i in reads.get(k, ())})
            open_ = [self.conj[i] for i in moved if (li := lins[i]) is None or not _kept(li, d)]
            if not open_:
                continue
            solved += 1
            pre = self.at(src, 0 if what.startswith("arrival") else 1, before)
            goal = m.Not(m.And([self.after(c, d, after) for c in open_]))
            if (bad := self.query.unsat(m.And(pre, goal), self.named)) is not None:
                raise invalid("E-CONSECUTION", f"the {what} breaks the invariant ({bad})")
        return f"{len(found)} transitions keep the invariant ({solved} needed the solver)"
