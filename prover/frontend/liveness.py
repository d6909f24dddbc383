"""Live locals of a residual program (DESIGN.md, "Beyond plain reduction", live-local
naming): the locals that some run may read before writing them. The others are dead: two
local states that differ only in dead locals have the same futures, so the per-variable
steps name a local state by its residual program and its live locals only. The checker
computes the same sets on its own syntax (checker/model.py, `live_locals`)."""

from __future__ import annotations

from prover.frontend import ast

Names = frozenset[str]


def live_locals(e: ast.Expr, out: Names = frozenset()) -> Names:
    """The locals `e` may read before writing them, `out` those read after it."""
    if isinstance(e, ast.Seq):  # along the right spine, without a frame per statement
        parts: list[ast.Expr] = []
        node: ast.Expr = e
        while isinstance(node, ast.Seq):
            parts.append(node.first)
            node = node.rest
        out = live_locals(node, out)
        for part in reversed(parts):
            out = live_locals(part, out)
        return out
    if isinstance(e, ast.Var):
        return out | {e.name} if ast.is_local_name(e.name) else out
    if isinstance(e, ast.Assign):
        return live_locals(e.value, out - {e.name})
    if isinstance(e, (ast.And, ast.Or)):  # the right operand may be skipped
        return live_locals(e.left, live_locals(e.right, out) | out)
    if isinstance(e, ast.Binary):
        return live_locals(e.left, live_locals(e.right, out))
    if isinstance(e, (ast.Not, ast.Neg)):
        return live_locals(e.arg, out)
    if isinstance(e, ast.If):
        return live_locals(e.cond, live_locals(e.then, out) | live_locals(e.orelse, out))
    if isinstance(e, ast.While):  # the least x with x = live(cond, out ∪ live(body, x))
        x: Names = frozenset()
        while True:
            nxt = live_locals(e.cond, out | live_locals(e.body, x))
            if nxt == x:
                return x
            x = nxt
    return out  # Num, Nondet, Yield, Exit


def live_text(env: tuple[tuple[str, int], ...], expr: ast.Expr,
              known: dict[str, Names] | None = None) -> str:
    """The canonical name of a local state with its dead locals dropped; `known`: the live
    locals of the residual programs met so far, by their text (states that differ in their
    locals only share them: a table steps thousands of valuations of one program)."""
    keep = None if known is None else known.get(expr.text)
    if keep is None:
        keep = live_locals(expr)
        if known is not None:
            known[expr.text] = keep
    return ast.local_text(tuple((k, v) for k, v in env if k in keep), expr)
