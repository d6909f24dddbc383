"""Finite domains and the transitions of every local state on them.

The domains grow from the initial values by the program's own steps: every value a step
writes joins its global's domain, as long as it lies within the program's constants (the
smallest and largest integer literal or initial value). A value outside stays an
*escape*: a step the invariant will have to show dead (locked-K: `A1 := A1 + 1` after a
`yield`, at A1 = 2, where the guard before the `yield` keeps A1 below 2).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from math import prod

from prover.frontend import ast
from prover.frontend.liveness import live_text
from prover.frontend.steps import ProgramSteps, Values

Local = tuple[str, str]  # (request, canonical local text)
Domains = dict[str, tuple[int, ...]]


class TableTooLarge(Exception):
    """More local states, valuations or domain values than the engine's limits."""


@dataclass(frozen=True)
class Limits:
    max_locals: int = 20_000
    max_valuations: int = 400_000  # (local state, valuation of its reads) pairs stepped
    max_domain: int = 4_096  # values of one global


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

    def lines(self, steps: ProgramSteps, m: Move) -> frozenset[int]:
        """The source lines of the outcomes of `m`'s step that end where `m` ends."""
        return frozenset().union(*(o.lines for o in steps.step(self.program[m.src[1]], m.reads)
                                   if self.canonical.get(o.local) == m.dst[1]))  # fmt: skip

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
        stack.extend(c for c in vars(node).values() if isinstance(c, ast.Expr))
    return min(values), max(values)


def build_table(steps: ProgramSteps, domains: Domains, limits: Limits) -> Table:
    """The transitions of every local state reached from the requests' initial ones."""
    program: dict[str, str] = {}
    canonical: dict[str, str] = {}

    def live(name: str) -> str:
        if name not in canonical:
            loc = steps.local(name)
            canonical[name] = text = live_text(loc.env, loc.expr)
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
        stepped += prod(len(domains[x]) for x in fp.read_names)
        if stepped > limits.max_valuations:
            raise TableTooLarge(f"more than {limits.max_valuations} (local state, valuation) "
                                "pairs")  # fmt: skip
        for vals in itertools.product(*(domains[x] for x in fp.read_names)):
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
                 tuple(moves), tuple(escapes), program, canonical)


def grow_domains(steps: ProgramSteps, limits: Limits) -> Table:
    """Domains closed under the steps within the program's constants, and their table."""
    lo, hi = constants(steps.program)
    initial = dict(steps.initial)
    domains: dict[str, set[int]] = {x: {initial.get(x, 0)} for x in steps.globals}
    while True:
        table = build_table(steps, {x: tuple(sorted(d)) for x, d in domains.items()}, limits)
        grown = False
        for m in table.escapes:
            for x, v in zip(table.touched[m.src], m.after, strict=True):
                if lo <= v <= hi and v not in domains[x]:
                    domains[x].add(v)
                    grown = True
                    if len(domains[x]) > limits.max_domain:
                        raise TableTooLarge(f"global {x} takes more than {limits.max_domain}"
                                            " values")  # fmt: skip
        if not grown:
            return table
