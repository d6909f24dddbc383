"""`prover.target.component_atoms` (sparse exact elimination): x ∉ L iff one of the
alternatives of the negation is satisfiable, on random simple linear sets, including
sparse 0/1 period matrices of the shape the cycle-cover construction produces."""

from __future__ import annotations

import random

import pytest
import z3
from hypothesis import given, settings
from hypothesis import strategies as st

from prover.serial.linalg import in_simple_linear_set, independent
from prover.target import FreshVars, component_atoms, conjunction_to_z3


def _outside_by_atoms(base: list[int], periods: list[tuple[int, ...]], x: list[int]) -> bool:
    places = list(range(len(base)))
    zs = {i: z3.IntVal(v) for i, v in enumerate(x)}
    for atom in component_atoms(base, periods, places, FreshVars()):
        for f in atom.fails:
            solver = z3.Solver()
            solver.add(conjunction_to_z3(f, zs))
            if solver.check() == z3.sat:
                return True
    return False


vec = st.lists(st.integers(0, 3), min_size=3, max_size=3)


@settings(max_examples=60, deadline=None)
@given(vec, st.lists(vec, min_size=0, max_size=3), st.lists(vec, min_size=4, max_size=4))
def test_atoms_decide_membership(
    base: list[int], periods: list[list[int]], xs: list[list[int]]
) -> None:
    ps = [tuple(p) for p in periods]
    if not independent(ps):
        with pytest.raises(ValueError):
            component_atoms(base, ps, [0, 1, 2], FreshVars())
        return
    for x in [*xs, [b + sum(p[j] for p in ps) for j, b in enumerate(base)]]:
        assert _outside_by_atoms(base, ps, x) == (not in_simple_linear_set(x, base, ps))


def test_sparse_cycle_matrices() -> None:
    # periods = 2-cycles of a chain (forward + backward label), as for the counters
    rng = random.Random(3)
    n = 8
    d = 2 * n
    periods = [tuple(int(j in (i, n + i)) for j in range(d)) for i in range(n)]
    base = [1] * n + [0] * n
    for _ in range(60):
        lam = [rng.randint(0, 2) for _ in range(n)]
        x = [b + sum(lam[i] * periods[i][j] for i in range(n)) for j, b in enumerate(base)]
        assert not _outside_by_atoms(base, periods, x)
        y = list(x)
        y[rng.randrange(d)] += rng.choice([-1, 1])
        assert _outside_by_atoms(base, periods, y) == (not in_simple_linear_set(y, base, periods))
