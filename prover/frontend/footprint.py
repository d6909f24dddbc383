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

from prover.frontend import ast

Must = frozenset[str] | None  # globals surely written on the paths; None: there are none


@dataclass(frozen=True)
class Footprint:
    reads: frozenset[str]
    writes: frozenset[str]

    @property
    def touched(self) -> frozenset[str]:
        return self.reads | self.writes

    @property
    def read_names(self) -> tuple[str, ...]:
        return tuple(sorted(self.reads))

    @property
    def touched_names(self) -> tuple[str, ...]:
        return tuple(sorted(self.touched))


@dataclass(frozen=True)
class _Walk:
    reads: frozenset[str]
    may: frozenset[str]
    ended: Must  # must-writes of the paths that stop at a `yield` inside
    falls: Must  # must-writes of the paths that run through to the end


def _meet(a: Must, b: Must) -> Must:
    if a is None:
        return b
    return a if b is None else a & b


def _global(name: str) -> frozenset[str]:
    return frozenset() if ast.is_local_name(name) else frozenset({name})


def _then(first: _Walk, second: _Walk) -> _Walk:
    """`second` run after the paths of `first` that fall through."""
    return _Walk(first.reads | second.reads, first.may | second.may,
                 _meet(first.ended, second.ended), second.falls)


def _walk(e: ast.Expr, acc: frozenset[str]) -> _Walk:
    """What the step reads and writes in `e`, entered with `acc` surely written already."""
    none = frozenset[str]()
    if isinstance(e, ast.Yield):
        return _Walk(none, none, acc, None)
    if isinstance(e, ast.Exit):  # reaching it is an error: no outcome
        return _Walk(none, none, None, None)
    if isinstance(e, ast.Var):
        return _Walk(_global(e.name), none, None, acc)
    if isinstance(e, (ast.Num, ast.Nondet)):
        return _Walk(none, none, None, acc)
    if isinstance(e, ast.Assign):
        w = _walk(e.value, acc)
        name = _global(e.name)
        return _Walk(w.reads, w.may | name, w.ended, None if w.falls is None else w.falls | name)
    if isinstance(e, (ast.Not, ast.Neg)):
        return _walk(e.arg, acc)
    if isinstance(e, ast.Seq):
        return _sequence(e, acc)
    if isinstance(e, ast.Binary):
        left = _walk(e.left, acc)
        if left.falls is None:
            return left
        both = _then(left, _walk(e.right, left.falls))
        if isinstance(e, (ast.And, ast.Or)):  # the right operand may be skipped
            return _Walk(both.reads, both.may, both.ended, _meet(left.falls, both.falls))
        return both
    if isinstance(e, ast.If):
        cond = _walk(e.cond, acc)
        if cond.falls is None:
            return cond
        yes, no = _walk(e.then, cond.falls), _walk(e.orelse, cond.falls)
        return _Walk(cond.reads | yes.reads | no.reads, cond.may | yes.may | no.may,
                     _meet(cond.ended, _meet(yes.ended, no.ended)), _meet(yes.falls, no.falls))
    if isinstance(e, ast.While):
        # Later iterations start with more surely written, so the first one bounds what
        # every path surely writes; the loop is left after a false condition.
        cond = _walk(e.cond, acc)
        if cond.falls is None:
            return cond
        body = _walk(e.body, cond.falls)
        return _Walk(cond.reads | body.reads, cond.may | body.may,
                     _meet(cond.ended, body.ended), cond.falls)
    raise TypeError(f"not an expression node: {e!r}")


def _sequence(e: ast.Seq, acc: frozenset[str]) -> _Walk:
    """A statement list along its right spine (no recursion per statement)."""
    parts: list[ast.Expr] = []
    node: ast.Expr = e
    while isinstance(node, ast.Seq):
        parts.append(node.first)
        node = node.rest
    parts.append(node)
    out = _walk(parts[0], acc)
    for part in parts[1:]:
        if out.falls is None:
            break
        out = _then(out, _walk(part, out.falls))
    return out


def footprint(e: ast.Expr) -> Footprint:
    """The footprint of the atomic step that runs the residual program `e`."""
    w = _walk(e, frozenset())
    must = _meet(w.ended, w.falls) or frozenset()
    return Footprint(w.reads | (w.may - must), must)
