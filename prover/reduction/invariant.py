"""The invariant of a reduction proof: Houdini over linear candidates read off the table.

The invariant I ranges over the counters M(l) of local states and the values of the
globals (with their domains assumed, as the checker conjoins them). Candidates:

- conservation laws: for a global X, weights w(l) with w = 0 at the requests' initial and
  answering local states and X - Σ w(l)·M(l) unchanged by every step, found by pushing
  each step's change of X along the requests' graphs (a step that writes X without
  reading it is read as ending with X at its written value: a lock's release). A lock L
  gets `L = Σ holders`;
- bounds: X + Σ u(l)·M(l) ≤ max D(X), u(l) the largest increase of X that the next step
  of l makes (its pending increments: `A1 := A1 + 1` after a checked `yield`), and the
  lower bound with the decreases.

Houdini (prover/reduction/houdini.py) keeps the largest inductive subset of them. All
queries run in one z3 context (`Solver`) with a resource-unit cap.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import z3
else:  # loaded when a query is first made (prover/smt/z3_on_use.py)
    from prover.smt.z3_on_use import z3

from prover.reduction.table import Local, Move, Table

Key = tuple[str, ...]  # ("local", request, text) or ("value", global)
Delta = dict[Key, int | None]  # a step's change of each atom (None: not a constant)


FLIPPED = {"=": "=", "<=": ">=", ">=": "<="}


@dataclass(frozen=True, order=True)
class Linear:
    """Σ c·atom + const  OP  0, OP one of "=", "<=", ">="."""

    coeffs: tuple[tuple[Key, int], ...]
    const: int
    op: str

    def __hash__(self) -> int:  # cached: candidates are looked up in sets all the time
        got = self.__dict__.get("_hash")
        if got is None:
            got = self.__dict__["_hash"] = hash((self.coeffs, self.const, self.op))
        return got

    @cached_property
    def terms(self) -> dict[Key, int]:
        return dict(self.coeffs)

    @cached_property
    def keys(self) -> frozenset[Key]:
        return frozenset(k for k, _ in self.coeffs)

    def kept(self, d: Delta) -> bool:
        """Sure to hold after a step with changes `d` when it held before: the sum changes
        by a constant that keeps the comparison (Houdini asks this of every conjunct a
        step moves, 120,000 times on rwcount-24, so it is one loop)."""
        total, terms = 0, self.terms
        for key, change in d.items():
            c = terms.get(key)
            if c is not None and change != 0:
                if change is None:
                    return False
                total += c * change
        op = self.op
        return total == 0 if op == "=" else total <= 0 if op == "<=" else total >= 0

    @cached_property
    def signs(self) -> tuple[bool, bool] | None:
        """A sum of counters alone: whether every coefficient is positive, negative."""
        return _signs(self.coeffs)

    @cached_property
    def unit_keys(self) -> tuple[Key, ...] | None:
        """The atoms, when every coefficient is 1 (a sum of counters)."""
        return tuple(k for k, _ in self.coeffs) if all(c == 1 for _, c in self.coeffs) else None

    def value(self, atoms: Callable[[Key], int]) -> bool:
        unit = self.unit_keys  # a sum over hundreds of counters: summed without a genexpr
        s = self.const + (sum(map(atoms, unit)) if unit is not None
                          else sum(c * atoms(k) for k, c in self.coeffs))  # fmt: skip
        return s == 0 if self.op == "=" else s <= 0 if self.op == "<=" else s >= 0

    def z3(self, atoms: Callable[[Key], Any], ctx: z3.Context) -> z3.BoolRef:
        """The terms z3's Python operators would make, made through its C API: the
        operators check and coerce every argument, which costs more than the queries on
        a thousand conjuncts."""
        ref, cmp = ctx.ref(), {"=": z3.Z3_mk_eq, "<=": z3.Z3_mk_le, ">=": z3.Z3_mk_ge}
        if len(self.coeffs) == 1 and self.coeffs[0][1] in (1, -1):  # x OP k: the usual case
            (key, c), k = self.coeffs[0], z3.IntVal(-self.const * self.coeffs[0][1], ctx)
            op = self.op if c == 1 else FLIPPED[self.op]
            x = atoms(key)  # `x OP k` was `k OP' x`: Python asks a subclass's operator first
            return z3.BoolRef(cmp[FLIPPED[op]](ref, k.as_ast(), x.as_ast()), ctx)
        terms = [atoms(k) if c == 1 else z3.ArithRef(z3.Z3_mk_unary_minus(ref, atoms(k).as_ast()),
                                                     ctx) if c == -1
                 else _nary(z3.Z3_mk_mul, [z3.IntVal(c, ctx), atoms(k)], ctx)
                 for k, c in self.coeffs]  # fmt: skip
        s = _nary(z3.Z3_mk_add, [z3.IntVal(self.const, ctx), *terms] if self.const or not terms
                  else terms, ctx)  # fmt: skip
        return z3.BoolRef(cmp[self.op](ref, s.as_ast(), z3.IntVal(0, ctx).as_ast()), ctx)

    def json(self) -> dict[str, Any]:
        terms = [[c, {"place": {"value": k[1]} if k[0] == "value"
                                else {k[0]: list(k[1:])}}] for k, c in self.coeffs]  # fmt: skip
        op = {"=": "=", "<=": "<=", ">=": ">="}[self.op]
        lhs = terms[0][1] if len(terms) == 1 and terms[0][0] == 1 else {"sum": terms}
        return {"cmp": op, "lhs": lhs, "rhs": {"const": -self.const}}


def linear(coeffs: dict[Key, int], const: int, op: str) -> Linear:
    return Linear(tuple(sorted((k, c) for k, c in coeffs.items() if c)), const, op)


@dataclass(frozen=True, order=True)
class Clause:
    """A disjunction of conjunctions of linear comparisons: the guarded conjuncts of
    attempts and value sets (`M(l) = 0 ∨ V ≠ v ∨ X = x`), settled by z3 unless a step
    changes none of its atoms."""

    cases: tuple[tuple[Linear, ...], ...]

    def __hash__(self) -> int:
        got = self.__dict__.get("_hash")
        if got is None:
            got = self.__dict__["_hash"] = hash(self.cases)
        return got

    @cached_property
    def keys(self) -> frozenset[Key]:
        return frozenset(k for case in self.cases for c in case for k, _ in c.coeffs)

    def kept(self, d: Delta) -> bool:
        """Sure to hold after a step that changes the atoms by `d` when it held before:
        every case that held still holds, each of its comparisons changing by a constant
        that keeps it (none at all, an `=` by 0, a `<=` by ≤ 0, a `>=` by ≥ 0)."""
        for case in self.cases:
            for c in case:
                if not c.kept(d):
                    return False
        return True

    @cached_property
    def on_globals(self) -> tuple[tuple[frozenset[str], tuple[Linear, ...]], ...]:
        """The cases that read globals only, with those globals."""
        out = []
        for case in self.cases:
            keys = {k for c in case for k, _ in c.coeffs}
            if all(k[0] == "value" for k in keys):
                out.append((frozenset(k[1] for k in keys), case))
        return tuple(out)

    def settled(self, after: dict[str, int]) -> bool:
        """True after any step that leaves the globals of `after` so: a case reads only
        those, and holds there."""
        return any(names <= after.keys() and all(c.value(lambda k: after[k[1]]) for c in case)
                   for names, case in self.on_globals)  # fmt: skip

    def value(self, atoms: Callable[[Key], int]) -> bool:
        return any(all(c.value(atoms) for c in case) for case in self.cases)

    def z3(self, atoms: Callable[[Key], Any], ctx: z3.Context) -> z3.BoolRef:
        return z3_or([z3_and([c.z3(atoms, ctx) for c in case], ctx) for case in self.cases], ctx)

    def json(self) -> dict[str, Any]:
        parts = [case[0].json() if len(case) == 1 else {"and": [c.json() for c in case]}
                 for case in self.cases]  # fmt: skip
        return {"or": parts}


Conjunct = Linear | Clause


def merged(inv: Sequence[Conjunct]) -> list[Conjunct]:
    """The same invariant, written shorter: clauses `M(l) = 0 ∨ G` with the same G become
    one `Σ M(l) = 0 ∨ G` (counters are never negative)."""
    groups: dict[tuple[tuple[Linear, ...], ...], list[Key]] = {}
    out: list[Conjunct] = []
    for c in inv:
        guard = next((case[0] for case in c.cases if len(case) == 1 and case[0].op == "<="
                      and case[0].const == 0 and len(case[0].coeffs) == 1
                      and case[0].coeffs[0][1] == 1 and case[0].coeffs[0][0][0] == "local"),
                     None) if isinstance(c, Clause) else None  # fmt: skip
        if guard is None or not isinstance(c, Clause):
            out.append(c)
        else:
            rest = tuple(case for case in c.cases if case != (guard,))
            groups.setdefault(rest, []).append(guard.coeffs[0][0])
    for rest, keys in groups.items():
        sum_ = Linear(tuple(sorted((k, 1) for k in set(keys))), 0, "<=")
        out.append(Clause(tuple(sorted([(sum_,), *rest]))))
    return out


def clause(*cases: list[Linear] | Linear) -> Clause:
    return Clause(tuple(sorted({tuple(sorted(c)) if isinstance(c, list) else (c,)
                                for c in cases})))  # fmt: skip


def unused(loc: Local) -> Linear:
    """M(loc) = 0 (as M(loc) <= 0: counters are >= 0)."""
    return linear({("local", *loc): 1}, 0, "<=")


def equals(key: Key, value: int) -> Linear:
    return linear({key: 1}, -value, "=")


def differs(key: Key, value: int) -> list[Linear]:
    """key != value, as the two cases key <= value - 1 and key >= value + 1."""
    return [linear({key: 1}, -(value - 1), "<="), linear({key: 1}, -(value + 1), ">=")]


@dataclass(frozen=True)
class Change:
    """A transition of the counter abstraction: a step, an arrival or an answer."""

    what: str
    src: Local
    low: int  # M(src) ≥ low before
    fixed: dict[str, int]  # globals read, with their values
    delta: Delta
    after: dict[str, int]  # globals touched, with their values after

    @cached_property
    def effects(self) -> tuple[tuple[Key, int | None, int], ...]:
        """Each atom the change moves: the value it leaves (a global it touches, whatever
        its change) or None, and else its shift by a constant (a counter)."""
        out: list[tuple[Key, int | None, int]] = []
        for k, d in self.delta.items():
            if k[0] == "value" and k[1] in self.after:
                out.append((k, self.after[k[1]], 0))
            else:
                assert d is not None, "a global the change moves, it sets"
                out.append((k, None, d))
        return tuple(out)


def step_change(t: Table, m: Move) -> Change:
    before = dict(zip(t.reads[m.src], m.reads, strict=True))
    after = dict(zip(t.touched[m.src], m.after, strict=True))
    d: Delta = {("local", *m.src): -1}
    d[("local", *m.dst)] = (d.get(("local", *m.dst)) or 0) + 1
    for x, v in after.items():
        d[("value", x)] = v - before[x] if x in before else None
    return Change(f"step of {m.src[1]}", m.src, 1, before, d, after)


def changes(t: Table, live: list[Move], counts: bool = False) -> Iterator[Change]:
    """`counts`: an answer also adds 1 to the counter C(r, v) of r's answers v."""
    for m in live:
        yield step_change(t, m)
    for loc in t.entries:
        yield Change(f"arrival of {loc[0]}", loc, 0, {}, {("local", *loc): 1}, {})
    for loc, v in t.final.items():
        d: Delta = {("local", *loc): -1}
        if counts:
            d[("response", loc[0], str(v))] = 1
        yield Change(f"answer at {loc[1]}", loc, 1, {}, d, {})


def shifted(c: Conjunct, ch: Change) -> Conjunct | bool:
    """`c` after the change, over the atoms before it: a global the change sets is its
    value, a counter it moves is shifted by a constant; a comparison of counters alone
    whose sign settles it (counters are never negative) is its truth, and so is a clause
    that this leaves true or without a case. What z3 would be asked of the substituted
    conjunct, with less for it to rewrite and decide: a sum over hundreds of counters
    that a step moves within is the same sum again (the same term), not a new one."""
    if isinstance(c, Linear):
        return _shifted(c, ch)
    cases = []
    for case in c.cases:
        kept: list[Linear] = []
        for comparison in case:
            after = _shifted(comparison, ch)
            if after is False:
                break
            if after is not True:
                kept.append(after)
        else:
            if not kept:
                return True
            cases.append(tuple(kept))
    if not cases:
        return False
    return c if tuple(cases) == c.cases else Clause(tuple(cases))


def _shifted(c: Linear, ch: Change) -> Linear | bool:
    const, terms, gone = c.const, c.terms, list[Key]()
    for k, value, d in ch.effects:  # a few atoms; the comparison may have hundreds
        n = terms.get(k)
        if n is not None:
            if value is not None:
                const += n * value
                gone.append(k)
            else:
                const += n * d
    if not gone:
        if const == c.const:
            return c
        coeffs, signs = c.coeffs, c.signs
    else:
        coeffs = tuple((k, n) for k, n in c.coeffs if k not in gone)
        signs = _signs(coeffs)
    op = c.op
    if signs is not None:  # counters alone: settled by the signs?
        up, down = signs
        if up and const > 0 and op in ("<=", "=") or down and const < 0 and op in (">=", "="):
            return False  # Σ ≥ 0 (up) or Σ ≤ 0 (down)
        if not coeffs:
            return const == 0 if op == "=" else const <= 0 if op == "<=" else const >= 0
        if up and const >= 0 and op == ">=" or down and const <= 0 and op == "<=":
            return True
    return Linear(coeffs, const, op)


def _signs(coeffs: tuple[tuple[Key, int], ...]) -> tuple[bool, bool] | None:
    """For a sum of counters alone: whether every coefficient is positive, negative."""
    if any(k[0] == "value" for k, _ in coeffs):
        return None
    return all(n > 0 for _, n in coeffs), all(n < 0 for _, n in coeffs)


# --------------------------------------------------------------------------- candidates


def candidates(t: Table, live: list[Move]) -> list[Conjunct]:
    initial = t.initial
    out: list[Conjunct] = []
    for x in sorted(t.domains):
        w = _weights(t, live, x)
        if w is None:  # a branch that the law itself may show dead (a guarded release)
            w = _weights(t, live, x, tolerant=True)
        if w:
            law: dict[Key, int] = {("local", *loc): -c for loc, c in w.items()}
            law[("value", x)] = 1
            out.append(linear(law, -initial.get(x, 0), "="))
        for sign in (1, -1):
            for pick in (min, max):
                bound = max(t.domains[x]) if sign > 0 else min(t.domains[x])
                pending = _pending(t, live, x, sign, pick)
                if pending:
                    coeffs: dict[Key, int] = {("local", *loc): sign * v
                                              for loc, v in pending.items()}
                    coeffs[("value", x)] = 1
                    out.append(linear(coeffs, -bound, "<=" if sign > 0 else ">="))
    for terms, _ in t.bounds:  # the sum a bound guesses, with what requests hold in flight
        xs = frozenset(x for x, _ in terms)
        w = _weights(t, live, xs) or _weights(t, live, xs, tolerant=True)
        if w:
            law = {("local", *loc): -c for loc, c in w.items()}
            law.update((("value", x), 1) for x in xs)
            out.append(linear(law, -sum(initial.get(x, 0) for x in xs), "="))
    return sorted(set(out))


def _pending(t: Table, live: list[Move], x: str, sign: int,
             pick: Callable[[list[int]], int]) -> dict[Local, int]:
    """Per local state, the increase (sign 1) or decrease (-1) of X its next step makes:
    the least one over its steps (what it surely adds), or the largest."""
    found: dict[Local, list[int]] = {}
    for m in live:
        if x in t.reads[m.src] and x in t.touched[m.src]:
            i, j = t.reads[m.src].index(x), t.touched[m.src].index(x)
            found.setdefault(m.src, []).append(sign * (m.after[j] - m.reads[i]))
    return {loc: v for loc, vs in found.items() if (v := pick(vs)) > 0}


def _weights(t: Table, live: list[Move], x: str | frozenset[str], tolerant: bool = False
             ) -> dict[Local, int] | None:  # fmt: skip
    """w(l) with X - Σ w·M conserved by every step (None if there is none but 0); with
    `tolerant`, where two steps disagree the weight nearer 0 is kept: conserved by the
    steps that the law leaves possible, if Houdini finds it inductive. For a set of
    globals, X is their sum (money moved among accounts, what a transfer holds in flight
    weighed in), and a step that writes one without reading it has no weight."""
    w: dict[Local, int] = dict.fromkeys(t.entries, 0)
    out: dict[Local, list[Move]] = {}
    for m in [*live, *t.escapes]:  # escapes too: states only they reach have steps as well
        out.setdefault(m.src, []).append(m)
    todo = list(t.entries)
    while todo:
        src = todo.pop()
        for m in out.get(src, ()):
            touched = t.touched[src]
            if isinstance(x, frozenset):
                if any(y in touched and y not in t.reads[src] for y in x):
                    return None
                new = w[src] + sum(m.after[touched.index(y)] - m.reads[t.reads[src].index(y)]
                                   for y in x if y in touched)
            elif x not in touched:
                new = w[src]
            else:
                v = m.after[touched.index(x)]
                new = w[src] + v - m.reads[t.reads[src].index(x)] if x in t.reads[src] else v
            if m.dst not in w:
                w[m.dst] = new
                todo.append(m.dst)
            elif w[m.dst] != new:
                if not tolerant:
                    return None
                if abs(new) < abs(w[m.dst]):
                    w[m.dst] = new
                    todo.append(m.dst)
    if any(w.get(loc, 0) for loc in t.final) or not any(w.values()):
        return None
    return {loc: c for loc, c in w.items() if c}


# --------------------------------------------------------------------------- z3


FINDING = "finding the invariant"


@dataclass(frozen=True)
class Witness:
    """A pre-state a Houdini query (houdini.py) found: it satisfies every conjunct of
    `basis` (what the query assumed) and the domains, and enables `steps` (with `counts`:
    answers counted)."""

    values: Callable[[Key], int]
    steps: tuple[Change, ...]
    basis: frozenset[Conjunct]
    counts: bool


class UnitsSpent(Exception):
    """The queries spent the solver's budget of z3 resource units (a count of z3's work,
    so the same on any machine)."""


class Solver:
    """z3 queries over the counters and globals of one table, in a private context, which
    stop once they spent `budget` z3 resource units (None: when the deadline passes)."""

    def __init__(self, t: Table, deadline: float | None, rlimit: int,
                 budget: int | None = None) -> None:  # fmt: skip
        self.table, self.deadline, self.rlimit, self.budget = t, deadline, rlimit, budget
        self.vars: dict[Key, z3.ArithRef] = {}
        self.unasked: list[list[Conjunct]] = []  # `unused` solvers, not made yet
        self.queries = self.units = self.stat_at = 0
        self.phase = FINDING  # what the queries are for, as a spent budget tells
        self.terms: dict[Conjunct, z3.BoolRef] = {}
        self.pres: dict[Any, z3.BoolRef] = {}
        self.witnesses: list[Witness] = []  # Houdini's counter-models (houdini.py)
        self._blocks: list[tuple[z3.ArithRef, tuple[Key, ...]]] | None = None
        self._nums: dict[int, z3.ArithRef] = {}

    @cached_property
    def ctx(self) -> z3.Context:
        """z3's context, made (and z3 loaded) when a term is first made: a proof that asks
        no query never makes one. Then, in the order they always were, the domains'
        constraints `base` and the solvers that were `unused` before: each one's
        assertions count in the context's resource units, and so in the budget."""
        ctx = self.__dict__["ctx"] = z3.Context()
        t = self.table
        base = [self.atom(("local", *loc)) >= 0 for loc in t.locals]
        for x, d in sorted(t.domains.items()):
            xv = self.atom(("value", x))
            base += [xv >= d[0], xv <= d[-1]]
            if len(d) != d[-1] - d[0] + 1:
                base.append(z3.Or([xv == v for v in d]))
        self.base = base
        for inv in self.unasked:
            self.solver(inv)
        self.unasked.clear()
        return ctx

    @cached_property
    def base(self) -> list[z3.BoolRef]:
        """The domains' constraints (made with the context)."""
        _ = self.ctx  # which makes them
        base: list[z3.BoolRef] = self.__dict__["base"]
        return base

    def unused(self, inv: list[Conjunct]) -> None:
        """The solver of `inv` that a stage asking no query would have made: made now if
        the context exists, else when it is made."""
        if "ctx" in self.__dict__:
            self.solver(inv)
        else:
            self.unasked.append(list(inv))

    def blocks(self) -> list[tuple[z3.ArithRef, tuple[Key, ...]]]:
        """The counters in blocks of 16, each with its sum: a model's counters are read a
        block at a time, and a block that sums to 0 is all 0 (counters are never negative;
        a counter-model has few requests, so most blocks do)."""
        if self._blocks is None:
            keys = [("local", *loc) for loc in sorted(self.table.locals)]
            self._blocks = [(_nary(z3.Z3_mk_add, [self.atom(k) for k in keys[i:i + 16]],
                                   self.ctx), tuple(keys[i:i + 16]))
                            for i in range(0, len(keys), 16)]  # fmt: skip
        return self._blocks

    def atom(self, key: Key) -> z3.ArithRef:
        if key not in self.vars:
            self.vars[key] = z3.Int(f"v{len(self.vars)}", self.ctx)
        return self.vars[key]

    def term(self, c: Conjunct) -> z3.BoolRef:
        """The conjunct over the atoms (made once: z3's Python API is slow to build terms)."""
        got = self.terms.get(c)
        if got is None:
            got = self.terms[c] = c.z3(self.atom, self.ctx)
        return got

    def solver(self, inv: list[Conjunct]) -> z3.Solver:
        s = solver_for_lia(self.ctx)
        s.add(*self.base)
        s.add(*[self.term(c) for c in inv])
        s.add(*[v >= 0 for k, v in self.vars.items() if k[0] == "response"])  # answers
        return s

    def check(self, s: z3.Solver, *assumptions: z3.BoolRef) -> z3.CheckSatResult:
        if self.budget is not None and self.units >= self.budget:
            raise UnitsSpent(f"{self.budget:,} z3 resource units spent {self.phase}")
        from prover.smt.invariant import bound_query  # with z3: not before a query

        self.queries += 1
        bound_query(s, self.deadline, self.rlimit)
        ref = self.ctx.ref()
        flags, n = z3.z3._to_ast_array(list(assumptions))  # s.check, without its coercions
        r = z3.CheckSatResult(z3.Z3_solver_check_assumptions(ref, s.solver, n, flags))
        self.units, self.stat_at = rlimit_count(s, self.stat_at)  # the context's
        return r

    def ask(self, s: z3.Solver, query: z3.BoolRef) -> z3.CheckSatResult:
        """`query` on top of what `s` holds, without a push and a pop: guarded by a fresh
        literal that only this check assumes, so z3 keeps what it learnt between the
        queries of one solver (measured: a fifth of Houdini's z3 time on rwcount-24). A
        model of a satisfiable answer is `s.model()`, as after a push."""
        ref, flag = self.ctx.ref(), z3.Bool(f"q{self.queries}", self.ctx)
        z3.Z3_solver_assert(ref, s.solver, z3.Z3_mk_implies(ref, flag.as_ast(), query.as_ast()))
        return self.check(s, flag)

    def pre(self, src: Local, low: int, fixed: dict[str, int]) -> z3.BoolRef:
        key = (src, low, tuple(sorted(fixed.items())))
        got = self.pres.get(key)
        if got is None:
            # Through z3's C API: z3py's operators and And coerce every argument, which
            # cost more than the mover checks' queries (an audit's step fixes 16 globals).
            # The terms are the ones z3py makes (z3 shares equal terms), so are the answers.
            # Each result is wrapped at once: z3py's context counts references, and a term
            # nobody holds may be freed by the next call.
            ref = self.ctx.ref()
            parts = [z3.BoolRef(z3.Z3_mk_ge(ref, self.atom(("local", *src)).as_ast(),
                                            self._num(low).as_ast()), self.ctx)]
            parts += [z3.BoolRef(z3.Z3_mk_eq(ref, self.atom(("value", x)).as_ast(),
                                             self._num(v).as_ast()), self.ctx)
                      for x, v in key[2]]  # fmt: skip
            got = self.pres[key] = z3_and(parts, self.ctx)
        return got

    def _num(self, v: int) -> z3.ArithRef:
        """The integer numeral `v`, as z3.IntVal makes it (made once)."""
        got = self._nums.get(v)
        if got is None:
            got = self._nums[v] = z3.IntVal(v, self.ctx)
        return got


def solver_for_lia(ctx: z3.Context) -> z3.Solver:
    """z3.SolverFor("QF_LIA", ctx=ctx) without the process's main context, which SolverFor
    makes (about 10 ms) only to name the logic: the same solver."""
    return z3.Solver(z3.Z3_mk_solver_for_logic(ctx.ref(), z3.to_symbol("QF_LIA", ctx)), ctx)


def _nary(mk: Any, args: list[z3.ArithRef], ctx: z3.Context) -> z3.ArithRef:
    """mk (Z3_mk_add, Z3_mk_mul) applied to `args` in one call of the C API."""
    array, n = z3.z3._to_ast_array(args)
    return z3.ArithRef(mk(ctx.ref(), n, array), ctx)


def rlimit_count(s: z3.Solver, at: int = 0) -> tuple[int, int]:
    """z3's count of resource units spent in the solver's context,
    `s.statistics().get_key_value("rlimit count")` through the C API, and where the
    statistics had it: looked for first at `at`, where the last call found it (the keys
    stay in one order, and scanning them all was a tenth of the mover checks' time)."""
    ref = s.ctx.ref()
    stats = z3.Statistics(z3.Z3_solver_get_statistics(ref, s.solver), s.ctx)
    n = z3.Z3_stats_size(ref, stats.stats)
    for i in (at, *range(n)) if at < n else range(n):
        if z3.Z3_stats_get_key(ref, stats.stats, i) == "rlimit count":
            return int(z3.Z3_stats_get_uint_value(ref, stats.stats, i)), i
    raise z3.Z3Exception("z3 reports no rlimit count")


def z3_and(terms: list[z3.BoolRef], ctx: z3.Context) -> z3.BoolRef:
    """z3.And of terms made in `ctx`, without z3.And's checks and coercions of each term
    (on a few hundred conjuncts they cost more than the query)."""
    args, n = z3.z3._to_ast_array(terms)
    return z3.BoolRef(z3.Z3_mk_and(ctx.ref(), n, args), ctx)


def z3_not(term: z3.BoolRef, ctx: z3.Context) -> z3.BoolRef:
    """z3.Not as `z3_and` makes z3.And."""
    return z3.BoolRef(z3.Z3_mk_not(ctx.ref(), term.as_ast()), ctx)


def z3_or(terms: list[z3.BoolRef], ctx: z3.Context) -> z3.BoolRef:
    """z3.Or as `z3_and` makes z3.And."""
    args, n = z3.z3._to_ast_array(terms)
    return z3.BoolRef(z3.Z3_mk_or(ctx.ref(), n, args), ctx)
