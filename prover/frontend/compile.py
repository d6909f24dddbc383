"""The step function of Ser (ser-reference §2.2): one atomic step of a residual program.

`run` executes a residual expression from a (local env, global env) pair up to the
next `yield` or to its end and returns every outcome (`?` forks). One outcome is one
atomic step. Programs are stepped through prover/frontend/steps.py, which evaluates a
step on the globals of its footprint only; the network systems are built from that
(prover/frontend/closure.py, the reference's closure; prover/frontend/reachable.py).

Deliberate differences from the reference (DESIGN.md):
* a `while` whose condition yields resumes the condition and then re-tests the
  ORIGINAL condition on the next iteration (the reference keeps the residual: Q2);
* reaching `exit` raises `ExitReachedError`;
* more than `state_bound` loop-head states inside one atomic step, or outcomes of one
  step, raises `StateBoundError` naming the request and the variables that keep
  growing, instead of running forever.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from prover.errors import (
    AssertionFailedError,
    CompileError,
    DivisionByZeroError,
    ExitReachedError,
    IndexRangeError,
    IntegerRangeError,
    SourceLocation,
    StateBoundError,
)
from prover.frontend import ast
from prover.frontend.ast import Expr, is_local_name, local_text
from prover.frontend.parser import location

Env = tuple[tuple[str, int], ...]
Lines = frozenset[int]
# An outcome: (residual or None when the expression returned, value, local, global, lines)
Outcome = tuple[Expr | None, int, Env, Env, Lines]

EMPTY: Env = ()


def env_get(env: Env, name: str) -> int:
    for k, v in env:
        if k == name:
            return v
    return 0


def env_set(env: Env, name: str, value: int) -> Env:
    """Zero-valued entries are dropped, so unset and 0 are the same state (§2.1)."""
    rest = [kv for kv in env if kv[0] != name]
    if value != 0:
        rest.append((name, value))
        rest.sort()
    return tuple(rest)


class _Bound(Exception):
    """Internal: a bound was exceeded inside `run`; the closure adds the context."""

    def __init__(self, what: str, states: Iterable[tuple[Env, Env]]) -> None:
        super().__init__(what)
        self.what = what
        self.states = list(states)


class FootprintError(Exception):
    """A step touched a global outside the footprint read off its syntax: a bug of the
    footprint analysis, never a property of the model (the step is not evaluated on a
    silent 0)."""


class _ExitHit(Exception):
    def __init__(self, node: Expr) -> None:
        super().__init__("exit")
        self.node = node


@dataclass
class _Runner:
    """The step function of §2.2, with the bound applied to loops and forks. `source` and
    `path` locate run-time arithmetic errors (division by zero, overflow)."""

    bound: int
    source: str = ""
    path: str = "<string>"
    # The footprint of the step being run (prover/frontend/footprint.py): the globals it
    # may read and those it may write. None: every global (a full valuation is given).
    readable: frozenset[str] | None = None
    writable: frozenset[str] | None = None

    def run(self, e: Expr, loc: Env, glo: Env, lines: Lines) -> list[Outcome]:
        if e.line and e.line not in lines:
            lines = lines | {e.line}
        if isinstance(e, ast.Num):
            return [(None, e.value, loc, glo, lines)]
        if isinstance(e, ast.Var):
            if is_local_name(e.name):
                return [(None, env_get(loc, e.name), loc, glo, lines)]
            if self.readable is not None and e.name not in self.readable:
                raise FootprintError(f"reads {e.name} outside its footprint")
            return [(None, env_get(glo, e.name), loc, glo, lines)]
        if isinstance(e, ast.Nondet):
            return [(None, v, loc, glo, lines) for v in range(e.lo, e.hi + 1)]
        if isinstance(e, ast.Yield):
            return [(ast.Num(0, line=e.line, col=e.col), 0, loc, glo, lines)]
        if isinstance(e, ast.Exit):
            raise _ExitHit(e)
        if isinstance(e, ast.Assign):
            return self._assign(e, loc, glo, lines)
        if isinstance(e, (ast.And, ast.Or)):
            return self._logic(e, loc, glo, lines)
        if isinstance(e, ast.Binary):
            return self._binary(e, loc, glo, lines)
        if isinstance(e, ast.Not):
            out: list[Outcome] = []
            for r, v, l2, g2, ln in self.run(e.arg, loc, glo, lines):
                if r is not None:
                    out.append((ast.mk_not(r, e.line, e.col), 0, l2, g2, ln))
                else:
                    out.append((None, 1 if v == 0 else 0, l2, g2, ln))
            return out
        if isinstance(e, ast.Neg):
            out = []
            for r, v, l2, g2, ln in self.run(e.arg, loc, glo, lines):
                if r is not None:
                    out.append((ast.mk_neg(r, e.line, e.col), 0, l2, g2, ln))
                else:
                    out.append((None, self._arith(e, v), l2, g2, ln))
            return out
        if isinstance(e, ast.Seq):
            return self._seq(e, loc, glo, lines)
        if isinstance(e, ast.If):
            out = []
            for r, v, l2, g2, ln in self.run(e.cond, loc, glo, lines):
                if r is not None:
                    out.append((ast.mk_if(r, e.then, e.orelse, e.line, e.col), 0, l2, g2, ln))
                else:
                    out.extend(self.run(e.then if v != 0 else e.orelse, l2, g2, ln))
            return self._finish(out)
        if isinstance(e, ast.While):
            return self._while(e, loc, glo, lines)
        raise TypeError(f"not an expression node: {e!r}")

    def _finish(self, out: list[Outcome]) -> list[Outcome]:
        """Merge outcomes that are the same step (their lines are united) and apply the
        bound. Merging is sound (the NS keeps each transition once anyway) and keeps
        chains of `?` from multiplying paths: `x := ?; x := x + ?; ...` has few states
        but exponentially many paths."""
        if len(out) > 1:
            merged: dict[tuple[str | None, int, Env, Env], Outcome] = {}
            for o in out:
                key = (None if o[0] is None else o[0].text, o[1], o[2], o[3])
                old = merged.get(key)
                merged[key] = o if old is None else (*old[:4], old[4] | o[4])
            out = list(merged.values())
        if len(out) > self.bound:
            raise _Bound(
                f"one atomic step has more than {self.bound} outcomes",
                ((o[2], o[3]) for o in out),
            )
        return out

    def _assign(self, e: ast.Assign, loc: Env, glo: Env, lines: Lines) -> list[Outcome]:
        out: list[Outcome] = []
        local = is_local_name(e.name)
        if not local and self.writable is not None and e.name not in self.writable:
            raise FootprintError(f"writes {e.name} outside its footprint")
        for r, v, l2, g2, ln in self.run(e.value, loc, glo, lines):
            if r is not None:
                out.append((ast.mk_assign(e.name, r, e.line, e.col), 0, l2, g2, ln))
            elif local:
                out.append((None, v, env_set(l2, e.name, v), g2, ln))
            else:
                out.append((None, v, l2, env_set(g2, e.name, v), ln))
        return out

    def _arith(self, e: ast.Binary | ast.Neg, n: int, m: int = 0) -> int:
        """`n OP m` (or `-n`) at run time, its errors located at the operator `e`."""
        try:
            if isinstance(e, ast.Neg):
                return ast.check_i64(-n, "value")
            return ast.apply_binary(type(e), n, m)
        except IntegerRangeError as exc:
            raise IntegerRangeError(
                f"{exc.message} in {e.text}", self._where(e)
            ) from None
        except DivisionByZeroError:
            assert isinstance(e, ast.Binary)
            raise DivisionByZeroError(
                f"{e.text} divides by zero (its right operand can be 0 here)", self._where(e)
            ) from None

    def _where(self, e: Expr) -> SourceLocation | None:
        return location(self.source, self.path, e.line, e.col) if e.line else None

    def _binary(self, e: ast.Binary, loc: Env, glo: Env, lines: Lines) -> list[Outcome]:
        out: list[Outcome] = []
        for r, n, l2, g2, ln in self.run(e.left, loc, glo, lines):
            if r is not None:
                out.append((ast.rebuild_binary(e, r, e.right), 0, l2, g2, ln))
                continue
            for r2, m, l3, g3, ln3 in self.run(e.right, l2, g2, ln):
                if r2 is not None:
                    lit = ast.Num(n, line=e.line, col=e.col)
                    out.append((ast.rebuild_binary(e, lit, r2), 0, l3, g3, ln3))
                else:
                    out.append((None, self._arith(e, n, m), l3, g3, ln3))
        return self._finish(out)

    def _logic(self, e: ast.And | ast.Or, loc: Env, glo: Env, lines: Lines) -> list[Outcome]:
        is_and = isinstance(e, ast.And)
        out: list[Outcome] = []
        for r, n, l2, g2, ln in self.run(e.left, loc, glo, lines):
            if r is not None:
                mk = ast.mk_and if is_and else ast.mk_or
                out.append((mk(r, e.right, e.line, e.col), 0, l2, g2, ln))
            elif (n == 0) if is_and else (n != 0):
                # short circuit: `&&` gives 0, `||` gives 1
                out.append((None, 0 if is_and else 1, l2, g2, ln))
            else:
                for r2, m, l3, g3, ln3 in self.run(e.right, l2, g2, ln):
                    # Quirk Q3: if the right operand yields, the wrapper is dropped.
                    out.append((r2, 0, l3, g3, ln3) if r2 is not None
                               else (None, 1 if m != 0 else 0, l3, g3, ln3))
        return self._finish(out)

    def _seq(self, e: ast.Seq, loc: Env, glo: Env, lines: Lines) -> list[Outcome]:
        # A statement list is iterated along its right spine (no recursion per statement).
        out: list[Outcome] = []
        pending: list[tuple[Env, Env, Lines]] = [(loc, glo, lines)]
        node: Expr = e
        while isinstance(node, ast.Seq) and pending:
            nxt: list[tuple[Env, Env, Lines]] = []
            for lo, gl, ln in pending:
                for r, _v, l2, g2, ln2 in self.run(node.first, lo, gl, ln):
                    if r is not None:
                        out.append((ast.mk_seq(r, node.rest, node.line, node.col), 0, l2, g2, ln2))
                    else:
                        nxt.append((l2, g2, ln2))
            pending = _merge_states(nxt)
            if len(pending) + len(out) > self.bound:
                raise _Bound(
                    f"one atomic step has more than {self.bound} outcomes",
                    [(p[0], p[1]) for p in pending],
                )
            node = node.rest
        for lo, gl, ln in pending:
            out.extend(self.run(node, lo, gl, ln))
        return self._finish(out)

    def _while(self, e: ast.While, loc: Env, glo: Env, lines: Lines) -> list[Outcome]:
        out: list[Outcome] = []
        visited: set[tuple[Env, Env]] = set()
        work: list[tuple[Env, Env, Lines]] = [(loc, glo, lines)]
        while work:
            lo, gl, ln = work.pop()
            if (lo, gl) in visited:
                # Revisiting a loop-head state: this path never terminates and is dropped.
                continue
            visited.add((lo, gl))
            if len(visited) > self.bound:
                raise _Bound(
                    f"a loop without yield visited more than {self.bound} states in one step",
                    visited,
                )
            for r, v, l2, g2, ln2 in self.run(e.cond, lo, gl, ln):
                if r is not None:
                    # Deliberate difference (DESIGN.md): finish the condition, then re-test
                    # the ORIGINAL condition: `if (r) { body; while (c) {body} } else {0}`.
                    again = ast.mk_seq(e.body, e, e.line, e.col)
                    out.append((ast.mk_if(r, again, ast.Num(0, line=e.line), e.line, e.col),
                                0, l2, g2, ln2))
                elif v == 0:
                    out.append((None, 0, l2, g2, ln2))
                else:
                    for rb, _vb, l3, g3, ln3 in self.run(e.body, l2, g2, ln2):
                        if rb is not None:
                            out.append((ast.mk_seq(rb, e, e.line, e.col), 0, l3, g3, ln3))
                        else:
                            work.append((l3, g3, ln3))
        return self._finish(out)


def _merge_states(states: list[tuple[Env, Env, Lines]]) -> list[tuple[Env, Env, Lines]]:
    """Identical intermediate states of a statement list are continued once."""
    if len(states) < 2:
        return states
    merged: dict[tuple[Env, Env], Lines] = {}
    for loc, glo, ln in states:
        old = merged.get((loc, glo))
        merged[(loc, glo)] = ln if old is None else old | ln
    return [(loc, glo, ln) for (loc, glo), ln in merged.items()]


def _growing_variables(states: Iterable[tuple[Env, Env]]) -> list[str]:
    """Variables with the most distinct values among `states`: the ones that keep growing."""
    values: dict[str, set[int]] = {}
    for loc, glo in states:
        for k, v in loc + glo:
            values.setdefault(k, set()).add(v)
    if not values:
        return []
    top = max(len(v) for v in values.values())
    if top < 2:
        return []
    keep = [k for k, v in values.items() if len(v) * 2 >= top]
    keep.sort(key=lambda k: (-len(values[k]), k))
    return [f"{k} ({len(values[k])} values)" for k in keep[:5]]


@dataclass(frozen=True)
class _Local:
    env: Env
    expr: Expr
    text: str
    request: str


def request_starts(program: ast.Program) -> list[_Local]:
    """Each request's initial local state (empty locals, the whole body), in order."""
    return [_Local(EMPTY, r.body, local_text(EMPTY, r.body), r.name) for r in program.requests]


def bound_error(
    request: str, what: str, states: Iterable[tuple[Env, Env]], state_bound: int
) -> StateBoundError:
    """E-STATE-BOUND naming the request and the variables that keep growing."""
    growing = _growing_variables(states)
    tail = f"; variables that keep growing: {', '.join(growing)}" if growing else ""
    return StateBoundError(
        f"compiling request '{request}': {what} "
        f"(state bound {state_bound}, set with --state-bound){tail}"
    )


def step_local(
    runner: _Runner, cur: _Local, glo: Env, *, source: str, path: str
) -> list[Outcome]:
    """The one-step outcomes of a non-final local at a global, with the errors of the
    step turned into the front end's clear messages."""
    try:
        return runner.run(cur.expr, cur.env, glo, frozenset())
    except _Bound as exc:
        raise bound_error(cur.request, exc.what, exc.states, runner.bound) from None
    except _ExitHit as exc:
        if isinstance(exc.node, ast.IndexFault):
            node = exc.node
            raise IndexRangeError(
                f"request '{cur.request}': an index of {node.array} is outside 0..{node.cells - 1}",
                location(source, path, node.line, node.col) if node.line else None,
            ) from None
        if isinstance(exc.node, ast.AssertFault):
            raise AssertionFailedError(
                f"request '{cur.request}': an assertion fails",
                location(source, path, exc.node.line, exc.node.col) if exc.node.line else None,
            ) from None
        raise ExitReachedError(
            f"request '{cur.request}' reaches 'exit', whose meaning is undefined",
            location(source, path, exc.node.line, exc.node.col) if exc.node.line else None,
        ) from None
    except IntegerRangeError as exc:
        raise IntegerRangeError(
            f"request '{cur.request}': {exc.message} (arithmetic overflow)", exc.location
        ) from None
    except DivisionByZeroError as exc:
        raise DivisionByZeroError(f"request '{cur.request}': {exc.message}", exc.location) from None
    except RecursionError:
        raise CompileError(f"request '{cur.request}' is nested too deeply") from None
