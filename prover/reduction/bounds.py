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
from prover.frontend.ast import nodes
from prover.reduction.table import Bound

MIN_QUANTITIES = 2
"""Fewer quantities than this: no bound (one global's own domain bounds it)."""


def _changes_by_amount(a: ast.Assign) -> bool:
    v = a.value
    return (isinstance(v, ast.Add | ast.Sub) and isinstance(v.left, ast.Var)
            and v.left.name == a.name) or (isinstance(v, ast.Add) and isinstance(
                v.right, ast.Var) and v.right.name == a.name)  # fmt: skip


def _assigned(program: ast.Program) -> dict[str, list[ast.Assign]]:
    out: dict[str, list[ast.Assign]] = {}
    for r in program.requests:
        for n in nodes(r.body):
            if isinstance(n, ast.Assign) and not ast.is_local_name(n.name):
                out.setdefault(n.name, []).append(n)
    return out


def quantities(program: ast.Program) -> tuple[str, ...]:
    """The globals assigned somewhere, always by an amount, sorted."""
    return tuple(sorted(x for x, assigns in _assigned(program).items()
                        if all(map(_changes_by_amount, assigns))))


def computed(program: ast.Program) -> tuple[str, ...]:
    """The globals some assignment gives a computed value (not a literal), sorted: the
    balances of a transfer that reads them into locals under a lock and writes `bi - 1`
    back, beside the flags and locks that only ever get literals."""
    return tuple(sorted(x for x, assigns in _assigned(program).items()
                        if any(not isinstance(a.value, ast.Num) for a in assigns)))


def guess_bounds(program: ast.Program, seen: Iterable[tuple[tuple[str, int], ...]]
                 ) -> tuple[Bound, ...]:  # fmt: skip
    """Σ quantities ≤ their initial sum, when no state of `seen` (global states, zeros left
    out) has a larger one; the quantities are those changed by an amount, else the globals
    given computed values (the same law, however the program spells the move); none when
    there are fewer than MIN_QUANTITIES of them."""
    states = [dict(env) for env in seen]
    initial = dict(program.initial)
    for xs in dict.fromkeys((quantities(program), computed(program))):
        if len(xs) < MIN_QUANTITIES:
            continue
        first = sum(initial.get(x, 0) for x in xs)
        if all(sum(env.get(x, 0) for x in xs) <= first for env in states):
            return ((tuple((x, 1) for x in xs), -first),)
    return ()
