"""The checker's exact integer elimination against a plain Fraction Gauss-Jordan."""

from __future__ import annotations

from fractions import Fraction
from math import lcm

from hypothesis import given, settings
from hypothesis import strategies as st

from checker.linear_sets import _inverse, _reduce

Dense = list[list[int]]


def ref_rref(rows: Dense) -> tuple[list[int], list[list[Fraction]]]:
    """Textbook Gauss-Jordan over Fractions: pivot columns and the reduced nonzero rows."""
    m = [[Fraction(x) for x in r] for r in rows]
    pivots: list[int] = []
    for col in range(len(m[0]) if m else 0):
        r = next((i for i in range(len(pivots), len(m)) if m[i][col] != 0), None)
        if r is None:
            continue
        k = len(pivots)
        m[k], m[r] = m[r], m[k]
        m[k] = [x / m[k][col] for x in m[k]]
        for i in range(len(m)):
            if i != k and m[i][col] != 0:
                f = m[i][col]
                m[i] = [a - f * b for a, b in zip(m[i], m[k], strict=True)]
        pivots.append(col)
    return pivots, m[: len(pivots)]


def sparse(rows: Dense) -> list[dict[int, int]]:
    return [{j: x for j, x in enumerate(r) if x} for r in rows]


def matrices(max_rows: int = 5, max_cols: int = 6) -> st.SearchStrategy[Dense]:
    """Small integer matrices, with duplicated, scaled, summed and zero rows mixed in."""

    @st.composite
    def build(draw: st.DrawFn) -> Dense:
        n = draw(st.integers(1, max_cols))
        cell = st.sampled_from([0, 0, 0, 1, -1, 2, -3, 5, 7])
        rows = draw(st.lists(st.lists(cell, min_size=n, max_size=n), max_size=max_rows))
        for _ in range(draw(st.integers(0, 2))):
            if rows:
                a, b = draw(st.sampled_from(rows)), draw(st.sampled_from(rows))
                c = draw(st.integers(-2, 2))
                rows.append([x + c * y for x, y in zip(a, b, strict=True)])
        if draw(st.booleans()):
            rows.append([0] * n)
        return draw(st.permutations(rows))

    return build()


@settings(max_examples=400, deadline=None)
@given(matrices())
def test_reduce_matches_fraction_rref(rows: Dense) -> None:
    pivots, ref = ref_rref(rows)
    got = _reduce(sparse(rows))
    assert [c for c, _ in got] == pivots
    for (col, row), want in zip(got, ref, strict=True):
        assert all(Fraction(row.get(j, 0), row[col]) == x for j, x in enumerate(want))


@settings(max_examples=400, deadline=None)
@given(matrices(max_rows=6, max_cols=6))
def test_inverse_matches_fraction_inverse(rows: Dense) -> None:
    pivots, _ = ref_rref(rows)
    k = len(pivots)
    # an invertible k x k matrix: the pivot columns of the independent rows, transposed
    # as in _not_member
    ind = [r for r in sparse(rows) if r]
    basis: list[dict[int, int]] = []
    for r in ind:
        if len(_reduce([*basis, r])) > len(basis):
            basis.append(r)
    piv = [c for c, _ in _reduce(basis)]
    a = [[b.get(j, 0) for b in basis] for j in piv]
    assert len(a) == k
    n = len(a)
    aug = [row + [int(i == j) for j in range(n)] for i, row in enumerate(a)]
    _, red = ref_rref(aug)
    want = [r[n:] for r in red]
    got = _inverse(sparse(a))
    assert len(got) == n
    for (num, d), w in zip(got, want, strict=True):
        den = lcm(*(x.denominator for x in w))
        assert d == den  # the least common denominator, as _not_member scales by
        assert [num.get(j, 0) for j in range(n)] == [int(x * den) for x in w]
