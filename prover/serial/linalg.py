"""Exact integer and rational linear algebra for the serial set (no floating point).

Also the deterministic work budget (`Work`, `TooLarge`) the constructions of S share.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from math import gcd

IntVec = tuple[int, ...]


def _rref(rows: Sequence[Sequence[Fraction | int]]) -> tuple[list[list[Fraction]], list[int]]:
    """Reduced row echelon form and the pivot columns."""
    m = [[Fraction(x) for x in r] for r in rows]
    pivots: list[int] = []
    if not m:
        return m, pivots
    ncols = len(m[0])
    r = 0
    for c in range(ncols):
        piv = next((i for i in range(r, len(m)) if m[i][c] != 0), None)
        if piv is None:
            continue
        m[r], m[piv] = m[piv], m[r]
        pv = m[r][c]
        m[r] = [x / pv for x in m[r]]
        for i in range(len(m)):
            if i != r and m[i][c] != 0:
                f = m[i][c]
                m[i] = [a - f * b for a, b in zip(m[i], m[r], strict=True)]
        pivots.append(c)
        r += 1
        if r == len(m):
            break
    return m, pivots


def rank(vectors: Sequence[IntVec]) -> int:
    if not vectors:
        return 0
    return len(_rref(vectors)[1])


_PRIME = (1 << 61) - 1


def _full_rank_mod_p(vectors: Sequence[IntVec]) -> bool:
    """Are the vectors independent modulo a large prime? Sparse elimination: the
    period matrices of S are sparse, so this is fast where the rational rref is not.
    The rank modulo p never exceeds the rational rank, so True is a proof."""
    pivots: dict[int, dict[int, int]] = {}  # pivot column -> row with 1 there
    for v in vectors:
        row = {j: x % _PRIME for j, x in enumerate(v) if x % _PRIME}
        while row:
            col = min(row)
            prow = pivots.get(col)
            if prow is None:
                inv = pow(row[col], _PRIME - 2, _PRIME)
                pivots[col] = {j: x * inv % _PRIME for j, x in row.items()}
                break
            f = row[col]
            for j, x in prow.items():
                y = (row.get(j, 0) - f * x) % _PRIME
                if y:
                    row[j] = y
                else:
                    row.pop(j, None)
        else:
            return False
    return True


def independent(vectors: Sequence[IntVec]) -> bool:
    if _full_rank_mod_p(vectors):
        return True
    return rank(vectors) == len(vectors)


def kernel_vector(vectors: Sequence[IntVec]) -> IntVec | None:
    """A primitive integer α ≠ 0 with Σ α_i·vectors[i] = 0, or None if independent."""
    n = len(vectors)
    if n == 0:
        return None
    d = len(vectors[0])
    cols = [[vectors[j][i] for j in range(n)] for i in range(d)]  # d x n matrix
    m, pivots = _rref(cols)
    free = [j for j in range(n) if j not in pivots]
    if not free:
        return None
    f = free[0]
    alpha: list[Fraction] = [Fraction(0)] * n
    alpha[f] = Fraction(1)
    for row, pc in enumerate(pivots):
        alpha[pc] = -m[row][f]
    den = 1
    for fr in alpha:
        den = den * fr.denominator // gcd(den, fr.denominator)
    ints = [int(fr * den) for fr in alpha]
    g = 0
    for v in ints:
        g = gcd(g, abs(v))
    return tuple(v // g for v in ints)


def solve_periods(y: Sequence[int], periods: Sequence[IntVec]) -> list[Fraction] | None:
    """The unique rational λ with Σ λ_i·periods[i] = y (periods independent), or None."""
    k = len(periods)
    d = len(y)
    if k == 0:
        return [] if all(v == 0 for v in y) else None
    rows = [[periods[j][i] for j in range(k)] + [y[i]] for i in range(d)]
    m, pivots = _rref(rows)
    if k in pivots:
        return None
    lam = [Fraction(0)] * k
    for row, pc in enumerate(pivots):
        lam[pc] = m[row][k]
    return lam


def in_simple_linear_set(x: Sequence[int], base: Sequence[int], periods: Sequence[IntVec]) -> bool:
    """x ∈ base + N·periods, periods linearly independent (exact)."""
    y = [a - b for a, b in zip(x, base, strict=True)]
    lam = solve_periods(y, periods)
    return lam is not None and all(v >= 0 and v.denominator == 1 for v in lam)


class TooLarge(Exception):
    """A construction exceeded its deterministic work budget (the caller may try another
    construction; nothing partial is ever returned)."""


class Work:
    """A deterministic work budget shared by the steps of one construction.

    Counting steps instead of measuring time keeps the outcome (and so S) the same on a
    loaded and an idle machine. Mutable on purpose: one instance per construction run.
    """

    def __init__(self, steps: int | None) -> None:
        self.steps = steps

    def charge(self, n: int = 1) -> None:
        if self.steps is None:
            return
        self.steps -= n
        if self.steps < 0:
            raise TooLarge("work budget exhausted")


class _Budget:
    def __init__(self, n: int) -> None:
        self.n = n


def in_monoid(
    t: IntVec, gens: Sequence[IntVec], budget: int = 20000, work: Work | None = None
) -> bool:
    """Is the non-negative vector t a non-negative integer combination of the non-negative
    vectors gens? Exact when True; False may also mean "search budget exhausted".
    Every search node is also charged to `work` (TooLarge when it runs out)."""
    if any(v < 0 for v in t):
        return False
    if all(v == 0 for v in t):
        return True
    gs = [g for g in gens if any(g)]
    if not gs:
        return False
    d = len(t)
    suffix: list[set[int]] = [set() for _ in range(len(gs) + 1)]
    for j in range(len(gs) - 1, -1, -1):
        suffix[j] = suffix[j + 1] | {i for i in range(d) if gs[j][i] > 0}
    b = _Budget(budget)
    seen: set[tuple[int, IntVec]] = set()

    def rec(j: int, rest: IntVec) -> bool:
        if all(v == 0 for v in rest):
            return True
        if j == len(gs) or b.n <= 0:
            return False
        if any(rest[i] > 0 and i not in suffix[j] for i in range(d)):
            return False
        if (j, rest) in seen:
            return False
        seen.add((j, rest))
        b.n -= 1
        if work is not None:
            work.charge()
        g = gs[j]
        cmax = min(rest[i] // g[i] for i in range(d) if g[i] > 0)
        for c in range(cmax, -1, -1):
            if rec(j + 1, tuple(r - c * x for r, x in zip(rest, g, strict=True))):
                return True
        return False

    return rec(0, t)
