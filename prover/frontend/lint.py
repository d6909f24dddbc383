"""Warnings read off the program text: valid Ser that is likely not what was meant.

- W-READ-ONLY: a global read but never assigned and without an initial value (always 0);
- W-CONSTANT: a global read but never assigned: it keeps its initial value;
- W-WRITE-ONLY: a global assigned but never read;
- W-UNSET-LOCAL: a local read on some path before any assignment to it (it reads 0: a
  misspelt local reads 0 with no other sign);
- W-SHADOW: a local with the name of a request.

What the executions reach (requests that never answer, unreached lines) is read off the
program's steps instead: prover/frontend/coverage.py.
"""

from __future__ import annotations

from prover.errors import Diagnostic
from prover.frontend import ast
from prover.frontend.ast import nodes
from prover.frontend.footprint import Known, forget, truth


def lint(program: ast.Program, path: str = "<string>") -> tuple[Diagnostic, ...]:
    reads, writes = _globals(program)
    said: dict[tuple[str, str, str], list[tuple[str, ast.Expr]]] = {}

    def remark(code: str, name: str, node: ast.Expr, rest: str) -> None:
        said.setdefault((code, name.partition("[")[0], rest), []).append((name, node))

    for name, v in sorted(reads.items()):
        if name in writes:
            continue
        if name not in program.declared:
            remark("W-READ-ONLY", name, v, "is read but never assigned and has no initial "
                   f"value, so it is always 0 (a misspelt name? or declare 'global {name} "
                   ":= N;')")
        else:
            value = dict(program.initial).get(name, 0)
            remark("W-CONSTANT", name, v, f"is never assigned: it keeps its initial value "
                   f"{value} (a constant)")
    for name, a in sorted(writes.items()):
        if name not in reads:
            remark("W-WRITE-ONLY", name, a, "is assigned but never read: no answer and no step "
                   "depends on it")
    out = [_at(path, min((n for _, n in items), key=lambda n: (n.line, n.col)), code,
               f"global '{_shown(array, [x for x, _ in items])}' {rest}")
           for (code, array, rest), items in said.items()]
    names = {r.name for r in program.requests}
    for r in program.requests:
        unset: dict[str, ast.Var] = {}
        _assigned(r.body, frozenset(), unset)
        for name, v in sorted(unset.items()):
            out.append(_at(path, v, "W-UNSET-LOCAL",
                           f"request '{r.name}' reads local '{name}' before any assignment to "
                           "it on some path: it reads 0 there (a misspelt name?)"))
        for node in nodes(r.body):
            if isinstance(node, (ast.Var, ast.Assign)) and node.name in names \
                    and ast.is_local_name(node.name):
                out.append(_at(path, node, "W-SHADOW",
                               f"request '{r.name}' has a local named '{node.name}', the "
                               "name of a request"))
                break
    return tuple(sorted(out, key=lambda d: (d.line, d.column, d.code)))


def _shown(array: str, names: list[str]) -> str:
    """One global by its name; several cells of one array with the same remark said once
    (`A[0..7]`, `A[1], A[3]`): an array of 16 constants is one warning, not 16."""
    if names == [array]:
        return array
    ks = sorted(int(x[len(array) + 1:-1]) for x in names)
    if len(ks) > 2 and ks == list(range(ks[0], ks[-1] + 1)):
        return f"{array}[{ks[0]}..{ks[-1]}]"
    return ", ".join(f"{array}[{k}]" for k in ks)


def _at(path: str, node: ast.Expr, code: str, message: str) -> Diagnostic:
    return Diagnostic(code, message, path, node.line, node.col)


def _globals(program: ast.Program) -> tuple[dict[str, ast.Expr], dict[str, ast.Expr]]:
    """The first read and the first assignment of every global, by position."""
    reads: dict[str, ast.Expr] = {}
    writes: dict[str, ast.Expr] = {}
    for r in program.requests:
        for node in nodes(r.body):
            if isinstance(node, (ast.Var, ast.Assign)) and not ast.is_local_name(node.name):
                seen = reads if isinstance(node, ast.Var) else writes
                old = seen.get(node.name)
                if old is None or (node.line, node.col) < (old.line, old.col):
                    seen[node.name] = node
    return reads, writes


def _assigned(e: ast.Expr, done: frozenset[str], unset: dict[str, ast.Var]) -> frozenset[str]:
    """The locals surely assigned after `e`, entered with `done`; a local read before it
    is surely assigned goes into `unset` (first read by position)."""
    if isinstance(e, ast.Var):
        if ast.is_local_name(e.name) and e.name not in done:
            old = unset.get(e.name)
            if old is None or (e.line, e.col) < (old.line, old.col):
                unset[e.name] = e
        return done
    if isinstance(e, ast.Assign):
        after = _assigned(e.value, done, unset)
        return after | {e.name} if ast.is_local_name(e.name) else after
    if isinstance(e, (ast.Not, ast.Neg)):
        return _assigned(e.arg, done, unset)
    if isinstance(e, ast.Seq):
        node: ast.Expr = e
        known: Known = dict.fromkeys(_locals(e))  # what the statements before set literally
        while isinstance(node, ast.Seq):  # along the right spine: no recursion per statement
            done = _statement(node.first, done, unset, known)
            node = node.rest
        return _statement(node, done, unset, known)
    if isinstance(e, ast.Binary):
        left = _assigned(e.left, done, unset)
        right = _assigned(e.right, left, unset)
        return left if isinstance(e, (ast.And, ast.Or)) else right
    if isinstance(e, ast.If):
        cond = _assigned(e.cond, done, unset)
        return _assigned(e.then, cond, unset) & _assigned(e.orelse, cond, unset)
    if isinstance(e, ast.While):
        cond = _assigned(e.cond, done, unset)
        _assigned(e.body, cond, unset)
        return cond
    return done


def _statement(e: ast.Expr, done: frozenset[str], unset: dict[str, ast.Var],
               known: Known) -> frozenset[str]:  # fmt: skip
    """One statement of a sequence, after statements that left the locals `known` (kept up
    to date): a `while` whose condition they make true runs its body at least once, so
    `ok := 0; while (ok == 0) { old := C; ... }; old` reads `old` after it is set."""
    if isinstance(e, ast.While) and truth(e.cond, known):
        after = _assigned(e.body, _assigned(e.cond, done, unset), unset)
    else:
        after = _assigned(e, done, unset)
    known.update(forget(known, e) or {})
    if isinstance(e, ast.Assign) and isinstance(e.value, ast.Num):
        known[e.name] = e.value.value
    return after


def _locals(e: ast.Expr) -> set[str]:
    return {n.name for n in nodes(e)
            if isinstance(n, (ast.Var, ast.Assign)) and ast.is_local_name(n.name)}
