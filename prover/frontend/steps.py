"""Per-variable steps: the one step semantics of a Ser program that every view reads.

A step of a local state l is evaluated on a valuation of its footprint's reads R(l) only
(prover/frontend/footprint.py), not on the valuation of every global: its outcomes are
the next local state and the values of the globals it touches. Everything is computed on
demand and cached per (local state, valuation of R(l)), so a program with many globals
costs what its requests touch (DESIGN.md, "Per-variable steps and reduction proofs").

The views are built from it: `step_global` composes a step with a full global valuation
(the network system, the explicit search), and the reduction engine enumerates the steps
on the valuations of finite domains (prover/reduction/).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from prover.errors import CompileError
from prover.frontend import ast
from prover.frontend.ast import local_text
from prover.frontend.choices import DEFAULT_STATE_BOUND
from prover.frontend.compile import (
    Env,
    FootprintError,
    Lines,
    _Local,
    _Runner,
    env_get,
    request_starts,
    step_local,
)
from prover.frontend.footprint import Footprint, footprint

UNWRITTEN = 2**63  # outside signed 64 bits: never a value, marks a must-write not yet done

Values = tuple[int, ...]


@dataclass(frozen=True)
class Outcome:
    """One outcome of a step: the next local state and the values of the touched
    globals (aligned with `Footprint.touched_names`), with the source lines it ran."""

    local: str
    values: Values
    lines: Lines


class ProgramSteps:
    """The steps of one program. Not frozen: it owns caches, whose contents are pure
    functions of the program (the same queries give the same answers in any order)."""

    def __init__(self, program: ast.Program, *, source: str = "", path: str = "<string>",
                 state_bound: int = DEFAULT_STATE_BOUND) -> None:
        self.program = program
        self.initial: Env = program.initial
        self.state_bound = state_bound
        self._runner = _Runner(state_bound, source, path)
        self._source, self._path = source, path
        self._locals: dict[str, _Local] = {}
        self._footprints: dict[str, tuple[Footprint, _Runner]] = {}
        self._by_expr: dict[tuple[int, Footprint], tuple[ast.Expr, tuple[Footprint, _Runner]]] = {}
        self._steps: dict[tuple[str, Values], tuple[Outcome, ...]] = {}
        entries = []
        for start in request_starts(program):
            self._locals.setdefault(start.text, start)
            entries.append((start.request, start.text))
        self.entries: tuple[tuple[str, str], ...] = tuple(entries)

    def with_program(self, program: ast.Program) -> ProgramSteps:
        """The steps of another program of the same file (a split one: prover/frontend/
        split.py), with the same source, path and state bound."""
        return ProgramSteps(program, source=self._source, path=self._path,
                            state_bound=self.state_bound)

    @property
    def globals(self) -> tuple[str, ...]:
        """Every global the program names or declares, sorted."""
        names = set(self.program.declared) | {k for k, _ in self.initial}
        stack: list[ast.Expr] = [r.body for r in self.program.requests]
        while stack:
            node = stack.pop()
            if isinstance(node, (ast.Var, ast.Assign)) and not ast.is_local_name(node.name):
                names.add(node.name)
            stack.extend(c for c in vars(node).values() if isinstance(c, ast.Expr))
        return tuple(sorted(names))

    @property
    def known_locals(self) -> int:
        return len(self._locals)

    def local(self, name: str) -> _Local:
        return self._locals[name]

    def request_of(self, name: str) -> str:
        return self._locals[name].request

    def response(self, name: str) -> int | None:
        """The value a local state answers, or None if it has a step to take."""
        expr = self._locals[name].expr
        return expr.value if isinstance(expr, ast.Num) else None

    def footprint(self, name: str) -> Footprint:
        return self._scoped(name)[0]

    def _scoped(self, name: str) -> tuple[Footprint, _Runner]:
        got = self._footprints.get(name)
        if got is None:
            # A footprint is a function of the residual program and the locals its
            # conditions read: local states that differ elsewhere share one (and its runner).
            loc = self._locals[name]
            fp = footprint(loc.expr, loc.env)
            shared = self._by_expr.get((id(loc.expr), fp))
            if shared is None or shared[0] is not loc.expr:  # ids outlive no node: kept here
                shared = self._by_expr[(id(loc.expr), fp)] = (
                    loc.expr, (fp, replace(self._runner, readable=fp.reads, writable=fp.touched)))
            got = self._footprints[name] = shared[1]
        return got

    def step(self, name: str, values: Values) -> tuple[Outcome, ...]:
        """The outcomes of local state `name` when its reads have `values` (aligned with
        `Footprint.read_names`)."""
        key = (name, values)
        got = self._steps.get(key)
        if got is None:
            got = self._evaluate(name, values)
            self._steps[key] = got
        return got

    def _evaluate(self, name: str, values: Values) -> tuple[Outcome, ...]:
        fp, runner = self._scoped(name)
        cur = self._locals[name]
        given = [(x, v) for x, v in zip(fp.read_names, values, strict=True) if v != 0]
        glo: Env = tuple(sorted(given + [(x, UNWRITTEN) for x in fp.writes - fp.reads]))
        try:
            raw = step_local(runner, cur, glo, source=self._source, path=self._path)
        except FootprintError as exc:
            raise CompileError(f"internal error (a bug): request '{cur.request}' {exc} "
                               f"in {cur.text}") from None  # fmt: skip
        out: dict[tuple[str, Values], Lines] = {}
        for resid, value, l2, g2, lines in raw:
            expr = resid if resid is not None else ast.Num(value)
            text = local_text(l2, expr)
            if text not in self._locals:
                self._locals[text] = _Local(l2, expr, text, cur.request)
            after = tuple(env_get(g2, x) for x in fp.touched_names)
            if UNWRITTEN in after:
                raise CompileError(f"internal error (a bug): a step of request "
                                   f"'{cur.request}' skips a write its footprint says is "
                                   f"certain, in {cur.text}")  # fmt: skip
            out[(text, after)] = out.get((text, after), frozenset()) | lines
        return tuple(Outcome(loc, vals, lines) for (loc, vals), lines in out.items())

    def step_global(self, name: str, glo: Env) -> list[tuple[str, Env, Lines]]:
        """The outcomes of local state `name` at the full global valuation `glo`."""
        fp = self.footprint(name)
        values = tuple(env_get(glo, x) for x in fp.read_names)
        touched = fp.touched_names
        result = []
        for o in self.step(name, values):
            after = dict(glo)
            for x, v in zip(touched, o.values, strict=True):
                if v:
                    after[x] = v
                else:
                    after.pop(x, None)
            result.append((o.local, tuple(sorted(after.items())), o.lines))
        return result
