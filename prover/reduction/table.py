"""Finite domains and the transitions of every local state on them.

The domains grow from the initial values by the program's own steps: every value a step
writes joins its global's domain, as long as it lies within the program's constants (the
smallest and largest integer literal or initial value). A value outside stays an
*escape*: a step the invariant will have to show dead (locked-K: `A1 := A1 + 1` after a
`yield`, at A1 = 2, where the guard before the `yield` keeps A1 below 2).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from math import prod

from prover.frontend import ast
from prover.frontend.liveness import live_text
from prover.frontend.steps import ProgramSteps, Values

Local = tuple[str, str]  # (request, canonical local text)
Domains = dict[str, tuple[int, ...]]


class TableTooLarge(Exception):
    """More local states, valuations or domain values than the engine's limits."""


Bound = tuple[tuple[tuple[str, int], ...], int]  # ((global, c), ...), k: Σ c·X + k ≤ 0


def valuations(xs: tuple[str, ...], domains: Domains, bounds: tuple[Bound, ...] = ()
               ) -> Iterator[tuple[int, ...]]:  # fmt: skip
    """The valuations of `xs` within their domains, in itertools.product's order, that the
    other globals' domains can extend to one meeting every bound (docs/certificates.md,
    "Bounds"): a depth-first search, cut where a bound's least value is above 0."""
    near = [b for b in bounds if any(x in xs for x, _ in b[0])]
    if not near:
        yield from itertools.product(*(domains[x] for x in xs))
        return

    def least(b: Bound, fixed: dict[str, int]) -> int:
        return b[1] + sum(c * fixed[x] if x in fixed else c * (domains[x][0] if c > 0
                                                                else domains[x][-1])
                          for x, c in b[0])  # fmt: skip

    todo: list[dict[str, int]] = [{}]
    while todo:
        fixed = todo.pop()
        if any(least(b, fixed) > 0 for b in near):
            continue
        if len(fixed) == len(xs):
            yield tuple(fixed[x] for x in xs)
            continue
        x = xs[len(fixed)]
        todo.extend({**fixed, x: v} for v in reversed(domains[x]))


@dataclass(frozen=True)
class Limits:
    max_locals: int = 20_000
    max_valuations: int = 400_000  # (local state, valuation of its reads) pairs stepped
    max_domain: int = 4_096  # values of one global
    # (local state, valuation) pairs stepped over all the rounds that grow the domains
    # (each round steps a table again): None, no bound but the rounds'.
    max_total: int | None = None


@dataclass(frozen=True)
class Move:
    """A transition: local state `src` at the values `reads` of its footprint's reads
    goes to `dst` with the values `after` of its touched globals."""

    src: Local
    reads: Values
    dst: Local
    after: Values


@dataclass(frozen=True)
class Table:
    domains: Domains
    initial: dict[str, int]  # the globals' initial values (0 when not listed)
    entries: tuple[Local, ...]
    final: dict[Local, int]  # local states that answer, with the answer
    reads: dict[Local, tuple[str, ...]]  # every local state that steps: its footprint
    touched: dict[Local, tuple[str, ...]]
    writes: dict[Local, frozenset[str]]  # must-writes
    moves: tuple[Move, ...]  # inside the domains
    escapes: tuple[Move, ...]  # a written value outside its domain
    # A local state is named by its live locals (prover/frontend/liveness.py); `program`
    # gives, for each such name, one name of the state in the program's steps, and
    # `canonical` the live name of every program name the table met.
    program: dict[str, str] = field(default_factory=dict)
    canonical: dict[str, str] = field(default_factory=dict)
    # Bounds Σ c·X + k ≤ 0 over globals that the invariant must keep: only valuations
    # that the domains can extend to one meeting them are stepped (`valuations`).
    bounds: tuple[Bound, ...] = ()
    stepped: int = 0  # (local state, valuation) pairs stepped to build it

    def lines(self, steps: ProgramSteps, m: Move) -> frozenset[int]:
        """The source lines of the outcomes of `m`'s step that end where `m` ends."""
        return frozenset().union(*(o.lines for o in steps.step(self.program[m.src[1]], m.reads)
                                   if self.canonical.get(o.local) == m.dst[1]))  # fmt: skip

    @cached_property
    def targets(self) -> dict[tuple[Local, Values], frozenset[Local]]:
        """Where the steps of each local state at each valuation of its reads lead."""
        out: dict[tuple[Local, Values], set[Local]] = {}
        for m in self.moves:
            out.setdefault((m.src, m.reads), set()).add(m.dst)
        return {g: frozenset(d) for g, d in out.items()}

    def is_stutter(self, m: Move) -> bool:
        return m.dst == m.src and len(self.touched[m.src]) == len(m.reads) \
            and m.after == m.reads

    @property
    def locals(self) -> list[Local]:
        return [*self.reads, *self.final]

    def sizes(self) -> dict[str, int]:
        """What `ser-prove inspect` reports next to the network system's sizes."""
        widths = [len(x) for x in self.touched.values()] or [0]
        return {"globals": len(self.domains), "domain_values": sum(map(len, self.domains.values())),
                "local_states": len(self.locals), "transitions": len(self.moves),
                "stutters": sum(1 for m in self.moves if self.is_stutter(m)),
                "escapes": len(self.escapes), "widest_footprint": max(widths)}


def constants(program: ast.Program) -> tuple[int, int]:
    """The smallest and largest integer the program writes down (0 included)."""
    values = {0} | {v for _, v in program.initial}
    stack: list[ast.Expr] = [r.body for r in program.requests]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Num):
            values.add(node.value)
        elif isinstance(node, ast.Nondet) and (node.lo, node.hi) != (0, 1):
            values.update((node.lo, node.hi))  # a ranged choice writes down its bounds
        stack.extend(c for c in vars(node).values() if isinstance(c, ast.Expr))
    return min(values), max(values)


def build_table(steps: ProgramSteps, domains: Domains, limits: Limits,
                bounds: tuple[Bound, ...] = (), deadline: float | None = None) -> Table:
    """The transitions of every local state reached from the requests' initial ones (by
    `deadline`, else TableTooLarge: the limits bound the work, the deadline the run)."""
    program: dict[str, str] = {}
    canonical: dict[str, str] = {}
    known: dict[str, frozenset[str]] = {}  # live locals by residual program

    def live(name: str) -> str:
        if name not in canonical:
            loc = steps.local(name)
            canonical[name] = text = live_text(loc.env, loc.expr, known)
            program.setdefault(text, name)
        return canonical[name]

    entries = tuple((r, live(loc)) for r, loc in steps.entries)
    seen = dict.fromkeys(entries)
    todo = list(entries)
    allowed = {x: frozenset(d) for x, d in domains.items()}
    final: dict[Local, int] = {}
    reads: dict[Local, tuple[str, ...]] = {}
    touched: dict[Local, tuple[str, ...]] = {}
    writes: dict[Local, frozenset[str]] = {}
    moves: list[Move] = []
    escapes: list[Move] = []
    stepped = 0
    while todo:
        src = todo.pop()
        name = program[src[1]]
        answer = steps.response(name)
        if answer is not None:
            final[src] = answer
            continue
        fp = steps.footprint(name)
        reads[src], touched[src], writes[src] = fp.read_names, fp.touched_names, fp.writes
        if not bounds:  # else counted as they come
            stepped += prod(len(domains[x]) for x in fp.read_names)
        for n, vals in enumerate(valuations(fp.read_names, domains, bounds)):
            if n % 1024 == 0 and deadline is not None and time.monotonic() > deadline:
                raise TableTooLarge("out of time stepping the local states")
            stepped += 1 if bounds else 0
            if stepped > limits.max_valuations:
                raise TableTooLarge(f"more than {limits.max_valuations} (local state, "
                                    "valuation) pairs")  # fmt: skip
            outs = dict.fromkeys(((src[0], live(o.local)), o.values)
                                 for o in steps.step(name, vals))  # fmt: skip
            for dst, after in outs:  # outcomes that differ in dead locals only are one
                m = Move(src, vals, dst, after)
                inside = all(v in allowed[x] for x, v in zip(fp.touched_names, after,
                                                              strict=True))  # fmt: skip
                (moves if inside else escapes).append(m)
                if dst not in seen:
                    if len(seen) >= limits.max_locals:
                        raise TableTooLarge(f"more than {limits.max_locals} local states")
                    seen[dst] = None
                    todo.append(dst)
    return Table(dict(domains), dict(steps.initial), entries, final, reads, touched, writes,
                 tuple(moves), tuple(escapes), program, canonical, bounds, stepped)


def grow_domains(steps: ProgramSteps, limits: Limits, bounds: tuple[Bound, ...] = (),
                 deadline: float | None = None) -> Table:
    """Domains closed under the steps, and their table: a written value joins its global's
    domain when it lies within the program's constants, or when the step reads the global
    and the request's own earlier steps read or wrote the value it reads here (a guard:
    `if (A <= 1) { ...; yield; A := A + 1 }` writes 2, never 3; `guarded_values`)."""
    lo, top = constants(steps.program)
    highest = _highest(bounds, lo, top)
    initial = dict(steps.initial)
    domains: dict[str, set[int]] = {x: {initial.get(x, 0)} for x in steps.globals}
    beyond: dict[str, int] = {}  # rounds in which a guarded write took x past the constants
    spent = 0
    while True:
        table = build_table(steps, {x: tuple(sorted(d)) for x, d in domains.items()}, limits,
                            bounds, deadline)
        spent += table.stepped
        if limits.max_total is not None and spent > limits.max_total:
            raise TableTooLarge(f"more than {limits.max_total} (local state, valuation) pairs "
                                "over the rounds that grow the domains")
        live = [m for m in table.moves if not table.is_stutter(m)]
        guards: dict[str, dict[Local, Guarded]] = {}
        grown: dict[str, Move] = {}  # the globals grown past the constants, by whom
        changed = False
        for m in table.escapes:
            for x, v in zip(table.touched[m.src], m.after, strict=True):
                hi = highest.get(x, top)
                if v in domains[x] or not (lo <= v <= hi or _guarded(table, live, m, x, guards)):
                    continue
                domains[x].add(v)
                changed = True
                if not lo <= v <= hi:
                    grown.setdefault(x, m)
                if len(domains[x]) > limits.max_domain:
                    raise TableTooLarge(f"global {x} takes more than {limits.max_domain}"
                                        " values")  # fmt: skip
        for x, m in grown.items():
            beyond[x] = beyond.get(x, 0) + 1
            if beyond[x] > GROWTH_ROUNDS:
                raise TableTooLarge(_unbounded(steps, table, x, m))
        if not changed:
            return table
        if not bounds:
            _next_round_fits(table, domains, limits, spent)


def _next_round_fits(table: Table, domains: dict[str, set[int]], limits: Limits,
                     spent: int) -> None:
    """Raise the next round's TableTooLarge now when the local states of this round alone,
    on the grown domains, step more valuations than the limits allow: the domains only
    grow, so the next round meets these states again (and maybe more), each at every
    valuation of its reads (without bounds, the count `build_table` charges up front).
    buffer8 of the shared set: its eighth round would step 22 s to find out."""
    need = sum(prod(len(domains[x]) for x in reads) for reads in table.reads.values())
    if need > limits.max_valuations:
        raise TableTooLarge(f"more than {limits.max_valuations} (local state, valuation) "
                            "pairs")  # fmt: skip
    if limits.max_total is not None and spent + need > limits.max_total:
        raise TableTooLarge(f"more than {limits.max_total} (local state, valuation) pairs "
                            "over the rounds that grow the domains")


def _highest(bounds: tuple[Bound, ...], lo: int, top: int) -> dict[str, int]:
    """The largest value each global of a sum bound `x1 + ... + xn <= c` takes when the
    others hold at least the least constant `lo`: balances moved among accounts reach the
    whole sum (three accounts of 1 each: one of them holds 3), which no literal says."""
    out: dict[str, int] = {}
    for terms, c in bounds:
        if all(k == 1 for _, k in terms):
            cap = -c - (len(terms) - 1) * lo
            out.update((x, max(out.get(x, top), cap)) for x, _ in terms)
    return out


GROWTH_ROUNDS = 24
"""Rounds in which the same global's domain may grow past every constant of the program
before it is taken to grow without bound (a version `V := v + 1` after `v := V`): each
round rebuilds the table, so 4,096 values would cost minutes, not a verdict."""


def _unbounded(steps: ProgramSteps, t: Table, x: str, m: Move) -> str:
    """Which global grows without bound, and the line of a step that makes it grow."""
    from prover.frontend.parts import assignments

    ran = {ln for o in steps.step(t.program[m.src[1]], m.reads) for ln in o.lines}
    lines = sorted(ran & assignments(steps.program, x)) or sorted(ran)
    at = f"line {lines[0]}" if lines else f"a step of {m.src[0]}"
    return (f"global {x} grows without bound ({at} keeps writing values past every constant of "
            f"the program, {max(t.domains[x]) + 1} and more): no finite domain holds it")


def _guarded(t: Table, live: list[Move], m: Move, x: str,
             guards: dict[str, dict[Local, Guarded]]) -> bool:  # fmt: skip
    """Does m read x at a value that the request's own earlier steps left it?"""
    if x not in t.reads[m.src]:
        return False
    if x not in guards:
        guards[x] = guarded_values(t, live, x)
    got = guards[x].get(m.src)
    return got is not None and got[1] and m.reads[t.reads[m.src].index(x)] in got[0]


Guarded = tuple[frozenset[int], bool, bool]  # values; read or written by the request; written


def guarded_values(t: Table, live: list[Move], x: str) -> dict[Local, Guarded]:
    """Per local state of a request whose steps touch x: the values x can have there if no
    other request changed it since the request's own steps last read or wrote it (from its
    first state, where any value is possible, along its steps), whether those steps read
    or wrote it, and whether they wrote it."""
    own = {m.src[0] for m in live if x in t.touched[m.src]}
    out_of: dict[Local, list[Move]] = {}
    for m in live:
        out_of.setdefault(m.src, []).append(m)
    every = frozenset(t.domains[x])
    vs: dict[Local, Guarded] = {e: (every, False, False) for e in t.entries if e[0] in own}
    todo = list(vs)
    while todo:
        src = todo.pop()
        for m in out_of.get(src, ()):
            new, known, mine = _after(t, m, x, vs[src])
            old, was_known, was_mine = vs.get(m.dst, (frozenset(), True, True))
            if new and not (new <= old and was_known <= known and was_mine <= mine):
                vs[m.dst] = (old | new, was_known and known, was_mine and mine)
                todo.append(m.dst)
    return vs


def _after(t: Table, m: Move, x: str, here: Guarded) -> Guarded:
    """The values of x after m from those before it (none if m reads another), whether
    m's request read or wrote them, and whether it wrote them."""
    if x not in t.touched[m.src]:
        return here
    before = dict(zip(t.reads[m.src], m.reads, strict=True)).get(x)
    if before is not None and before not in here[0]:
        return frozenset(), False, False
    after = m.after[t.touched[m.src].index(x)]
    return frozenset({after}), True, before is None or after != before
