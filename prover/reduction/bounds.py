"""A guess of a bound over many globals for the reduction's table (docs/certificates.md,
"Bounds"): an audit that sums K accounts reads K globals in one step, and stepping it
at every valuation of their domains costs 3^K; a bank only ever holds what it started
with, so the valuations whose sum exceeds that cannot occur, and the table steps only the
others. The guess is checked like every conjunct: the invariant must keep it, else the
proof fails and the engine tries again without it.

The quantities are the globals that every assignment in the program changes by an
amount (`X := X + e`, `X := X - e`, `X := e + X`); the bound is their sum at most its
initial value, guessed only when no global state a search met has a larger sum (money is
moved, not made: deposits that raise the sum, as in the scale set's locked-K, would make
the guess fail and the proof run twice).
"""

from __future__ import annotations

from collections.abc import Iterable

from prover.frontend import ast
from prover.frontend.parts import nodes
from prover.reduction.table import Bound

MIN_QUANTITIES = 3
"""Fewer quantities than this: no bound (a product of two domains is cheap to step)."""


def _changes_by_amount(a: ast.Assign) -> bool:
    v = a.value
    return (isinstance(v, ast.Add | ast.Sub) and isinstance(v.left, ast.Var)
            and v.left.name == a.name) or (isinstance(v, ast.Add) and isinstance(
                v.right, ast.Var) and v.right.name == a.name)  # fmt: skip


def quantities(program: ast.Program) -> tuple[str, ...]:
    """The globals assigned somewhere, always by an amount, sorted."""
    by_amount: dict[str, bool] = {}
    for r in program.requests:
        for n in nodes(r.body):
            if isinstance(n, ast.Assign) and not ast.is_local_name(n.name):
                by_amount[n.name] = by_amount.get(n.name, True) and _changes_by_amount(n)
    return tuple(sorted(x for x, ok in by_amount.items() if ok))


def guess_bounds(program: ast.Program, seen: Iterable[tuple[tuple[str, int], ...]]
                 ) -> tuple[Bound, ...]:  # fmt: skip
    """Σ quantities ≤ their initial sum, when no state of `seen` (global states, zeros left
    out) has a larger one; none when there are fewer than MIN_QUANTITIES quantities."""
    xs = quantities(program)
    if len(xs) < MIN_QUANTITIES:
        return ()
    first = sum(dict(program.initial).get(x, 0) for x in xs)
    if any(sum(dict(env).get(x, 0) for x in xs) > first for env in seen):
        return ()
    return ((tuple((x, 1) for x in xs), -first),)
