"""The footprint of a local state: the globals its next atomic step may touch.

The next atomic step of a residual program runs up to its next `yield` (on every path)
or to its end. Its footprint (DESIGN.md, "Per-variable steps and reduction proofs") is

- `reads` R: the globals it may read, and those it writes on some paths only (their old
  value survives on the others, so the step's outcome depends on it);
- `writes` W: the globals it writes on every path that ends the step (must-writes). A
  global in W but not in R needs no valuation: its new value is a function of R's.

Read off the syntax: an over-approximation of what any run of the step reads and may
write, and an under-approximation of what every run writes, so that evaluating the step
on a valuation of R alone gives exactly its outcomes (the step function checks both
directions at run time: a read outside R and a must-write left unwritten are errors).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from prover.errors import SerError
from prover.frontend import ast
from prover.frontend.ast import nodes

Must = frozenset[str] | None  # globals surely written on the paths; None: there are none


@dataclass(frozen=True)
class Footprint:
    reads: frozenset[str]
    writes: frozenset[str]

    # Made once per footprint (cached_property writes the instance's __dict__, which a
    # frozen dataclass allows; equality and hash read the fields only): every step of a
    # search asks them, and sorting 32 names at each step was a tenth of the search.
    @cached_property
    def touched(self) -> frozenset[str]:
        return self.reads | self.writes

    @cached_property
    def read_names(self) -> tuple[str, ...]:
        return tuple(sorted(self.reads))

    @cached_property
    def touched_names(self) -> tuple[str, ...]:
        return tuple(sorted(self.touched))


Known = dict[str, int | None]  # locals' values at a point of the step; None: not known


@dataclass(frozen=True)
class _Walk:
    reads: frozenset[str]
    may: frozenset[str]
    ended: Must  # must-writes of the paths that stop at a `yield` inside
    falls: Must  # must-writes of the paths that run through to the end
    known: Known | None = None  # the locals' values where the paths fall through


def _meet(a: Must, b: Must) -> Must:
    if a is None:
        return b
    return a if b is None else a & b


def _join(a: Known | None, b: Known | None) -> Known | None:
    """What two paths agree on (a local unset on one reads 0 there)."""
    if a is None or b is None:
        return None
    if a == b:
        return a
    return {x: a.get(x, 0) if a.get(x, 0) == b.get(x, 0) else None for x in a.keys() | b.keys()}


def forget(k: Known | None, e: ast.Expr) -> Known | None:
    """`k` with every local that `e` assigns unknown."""
    if k is None:
        return None
    names = {n.name for n in nodes(e) if isinstance(n, ast.Assign) and ast.is_local_name(n.name)}
    return {**k, **dict.fromkeys(names)}


def value(e: ast.Expr, k: Known | None) -> int | None:
    """The value of `e` from the known locals alone, if it has one and no side effect:
    literals, locals, arithmetic and comparisons (`&&`, `||` not: quirk Q1)."""
    if k is None:
        return None
    if isinstance(e, ast.Num):
        return e.value
    if isinstance(e, ast.Var):
        return k.get(e.name, 0) if ast.is_local_name(e.name) else None
    try:
        if isinstance(e, (ast.Not, ast.Neg)):
            a = value(e.arg, k)
            return None if a is None else int(a == 0) if isinstance(e, ast.Not) else \
                ast.check_i64(-a, "value")
        if isinstance(e, ast.Binary) and not isinstance(e, (ast.And, ast.Or)):
            a, b = value(e.left, k), value(e.right, k)
            return None if a is None or b is None else ast.apply_binary(type(e), a, b)
    except SerError:  # a run-time error: the step decides, not the footprint
        return None
    return None


def truth(e: ast.Expr, k: Known | None) -> bool | None:
    """Whether the condition `e` holds, from the known locals alone, if that is settled."""
    if isinstance(e, (ast.And, ast.Or)):
        a = truth(e.left, k)
        if a is None or a != isinstance(e, ast.And):
            return a
        return truth(e.right, k)
    v = value(e, k)
    return None if v is None else v != 0


def _global(name: str) -> frozenset[str]:
    return frozenset() if ast.is_local_name(name) else frozenset({name})


def _then(first: _Walk, second: _Walk) -> _Walk:
    """`second` run after the paths of `first` that fall through."""
    return _Walk(first.reads | second.reads, first.may | second.may,
                 _meet(first.ended, second.ended), second.falls, second.known)


def _walk(e: ast.Expr, acc: frozenset[str], k: Known | None) -> _Walk:
    """What the step reads and writes in `e`, entered with `acc` surely written already
    and the locals `k` known (None: none known)."""
    none = frozenset[str]()
    if isinstance(e, ast.Yield):
        return _Walk(none, none, acc, None, k)
    if isinstance(e, ast.Exit):  # reaching it is an error: no outcome
        return _Walk(none, none, None, None, k)
    if isinstance(e, ast.Var):
        return _Walk(_global(e.name), none, None, acc, k)
    if isinstance(e, (ast.Num, ast.Nondet)):
        return _Walk(none, none, None, acc, k)
    if isinstance(e, ast.Assign):
        w = _walk(e.value, acc, k)
        name = _global(e.name)
        known = w.known
        if known is not None and not name:
            known = {**known, e.name: value(e.value, k)}
        return _Walk(w.reads, w.may | name, w.ended,
                     None if w.falls is None else w.falls | name, known)
    if isinstance(e, (ast.Not, ast.Neg)):
        return _walk(e.arg, acc, k)
    if isinstance(e, ast.Seq):
        return _sequence(e, acc, k)
    if isinstance(e, ast.Binary):
        left = _walk(e.left, acc, k)
        if left.falls is None:
            return left
        both = _then(left, _walk(e.right, left.falls, left.known))
        if isinstance(e, (ast.And, ast.Or)):  # the right operand may be skipped
            return _Walk(both.reads, both.may, both.ended, _meet(left.falls, both.falls),
                         _join(left.known, both.known))
        return both
    if isinstance(e, ast.If):
        return _branch(e, acc, k)
    if isinstance(e, ast.While):
        # Later iterations start with more surely written, so the first one bounds what
        # every path surely writes; the loop is left after a false condition. What the
        # loop assigns is not known in any round.
        k = forget(k, e)
        cond = _walk(e.cond, acc, k)
        if cond.falls is None:
            return cond
        body = _walk(e.body, cond.falls, cond.known)
        return _Walk(cond.reads | body.reads, cond.may | body.may,
                     _meet(cond.ended, body.ended), cond.falls, k)
    raise TypeError(f"not an expression node: {e!r}")


def _branch(e: ast.If, acc: frozenset[str], k: Known | None) -> _Walk:
    """An `if`: only the branch its condition takes when the known locals settle it."""
    cond = _walk(e.cond, acc, k)
    if cond.falls is None:
        return cond
    taken = truth(e.cond, k)
    if taken is not None:
        return _then(cond, _walk(e.then if taken else e.orelse, cond.falls, cond.known))
    yes = _walk(e.then, cond.falls, cond.known)
    no = _walk(e.orelse, cond.falls, cond.known)
    return _Walk(cond.reads | yes.reads | no.reads, cond.may | yes.may | no.may,
                 _meet(cond.ended, _meet(yes.ended, no.ended)), _meet(yes.falls, no.falls),
                 _join(yes.known, no.known))


def _sequence(e: ast.Seq, acc: frozenset[str], k: Known | None) -> _Walk:
    """A statement list along its right spine (no recursion per statement)."""
    parts: list[ast.Expr] = []
    node: ast.Expr = e
    while isinstance(node, ast.Seq):
        parts.append(node.first)
        node = node.rest
    parts.append(node)
    out = _walk(parts[0], acc, k)
    for part in parts[1:]:
        if out.falls is None:
            break
        out = _then(out, _walk(part, out.falls, out.known))
    return out


def footprint(e: ast.Expr, env: tuple[tuple[str, int], ...] | None = None) -> Footprint:
    """The footprint of the atomic step that runs the residual program `e` with the
    locals `env` (unset ones read 0; None: the footprint of any locals): an `if` whose
    condition the locals settle is walked into its branch only, so `i := 2; if (i == 0)
    { A0 := 1 } else { A2 := 1 }` touches A2 alone (DESIGN.md's per-cell footprints)."""
    w = _walk(e, frozenset(), None if env is None else dict(env))
    must = _meet(w.ended, w.falls) or frozenset()
    return Footprint(w.reads | (w.may - must), must)
