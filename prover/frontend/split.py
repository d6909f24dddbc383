"""Split requests (docs/certificates.md, "Split requests"): a request whose first
statements name no global and do not yield (`i := ?(0..7); d := 1; ok := 0; while …`) runs
them as a step of their own, with a `yield` after them. A step that touches no global
commutes with every step of every other request, so the split program has the model's
finished executions, each prefix run apart, and the same serial ones: one is serializable
exactly when the other is. What it buys: the choice is made before the first step that
reads a global, so that step knows the index (its footprint is one cell's, and an
attempt's head is a state with the index chosen)."""

from __future__ import annotations

from dataclasses import replace

from prover.frontend import ast
from prover.frontend.ast import nodes


def splittable(body: ast.Expr) -> bool:
    """Does `body` begin with statements that name no global and do not yield, and choose
    there a local (`i := ?(0..7)`) that an `if` later tests (an index chosen by input)?
    Only then is the split worth it: a choice used as data (`d := ?`) gains nothing."""
    firsts, rest = _prefix(body)
    chosen = {n.name for s in firsts for n in nodes(s)
              if isinstance(n, ast.Assign) and isinstance(n.value, ast.Nondet)}
    tested = {v.name for n in nodes(rest) if isinstance(n, ast.If)
              for v in nodes(n.cond) if isinstance(v, ast.Var)}
    return bool(chosen & tested)


def split(body: ast.Expr) -> ast.Expr:
    """`s1; …; sk; rest` → `s1; …; sk; yield; rest`, s1 … sk the longest run of first
    statements that name no global and do not yield (the checker's `split`)."""
    firsts, rest = _prefix(body)
    if not firsts:
        raise ValueError("no local prefix to split off")
    out: ast.Expr = ast.Seq(ast.Yield(line=rest.line, col=rest.col), rest,
                            line=rest.line, col=rest.col)
    for first in reversed(firsts):
        out = ast.Seq(first, out, line=first.line, col=first.col)
    return out


def split_program(program: ast.Program, names: frozenset[str]) -> ast.Program:
    return replace(program, requests=tuple(
        replace(r, body=split(r.body)) if r.name in names else r for r in program.requests))


def _prefix(body: ast.Expr) -> tuple[list[ast.Expr], ast.Expr]:
    firsts, rest = [], body
    while isinstance(rest, ast.Seq) and _local_only(rest.first):
        firsts.append(rest.first)
        rest = rest.rest
    return firsts, rest


def _local_only(e: ast.Expr) -> bool:
    return not any(isinstance(n, (ast.Yield, ast.Exit)) or isinstance(n, (ast.Var, ast.Assign))
                   and not ast.is_local_name(n.name) for n in nodes(e))
