"""The mover checks' reuse (prover/reduction/movers.py): a view that takes over the yes
answers of a view under fewer conjuncts (`Prior`) answers, and records what it used, as a
view that checks everything itself; a fork shares the answers, not the record."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.idioms import BY_NAME
from prover.frontend.load import load_source
from prover.reduction import houdini, invariant
from prover.reduction.defer import without_waits
from prover.reduction.engine import RLIMIT
from prover.reduction.guards import conservation_laws, value_sets
from prover.reduction.invariant import Conjunct, Solver
from prover.reduction.movers import Movers, Swaps, Used
from prover.reduction.table import Limits, Move, Table, grow_domains

# bank-k2: some yes answers ask z3 (the idioms' intervals refute every pair they meet).
MODELS = {"rwcount-3": BY_NAME["rwcount"].text(3), "buffer-3": BY_NAME["buffer"].text(3),
          "bank-k2": (Path(__file__).parents[2] / "bench/blind/c/bank-k2.ser").read_text()}


def _setup(name: str) -> tuple[Table, list[Move], list[Conjunct], list[Conjunct], Solver]:
    """A model's table without deferred steps, its live steps, and two sets of conjuncts,
    Houdini's (the second) and it without its first."""
    model = load_source(MODELS[name], "ser", lazy=True)
    assert model.steps is not None
    t = grow_domains(model.steps, Limits())
    live = [m for m in t.moves if not t.is_stutter(m)]
    solver = Solver(t, None, RLIMIT)
    more = houdini.houdini(t, live, invariant.candidates(t, live) + value_sets(t, live, set())
                           + conservation_laws(t, live), solver, None)
    assert more is not None and len(more) > 1
    few = more[1:]
    t0 = without_waits(t)
    kept = set(t0.moves)
    return t0, [m for m in live if m in kept], few, more, solver


def _key(u: Used) -> tuple[tuple[Conjunct, ...], tuple[int, ...]]:
    return u.by_intervals, tuple(x.get_id() for x in u.asked)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_a_prior_view_s_yes_answers_are_taken_over_exactly(name: str) -> None:
    t0, live, few, more, solver = _setup(name)
    swaps = Swaps(t0)
    asks = [(m, right) for m in live for right in (True, False)]
    before = Movers(t0, live, few, solver, swaps=swaps)
    for m, right in asks:
        before.mover(m, right)
    fresh = Movers(t0, live, more, solver, swaps=swaps)
    start = solver.queries
    expected = [fresh.mover(m, right) for m, right in asks]
    alone = solver.queries - start
    again = Movers(t0, live, more, solver, swaps=swaps, prior=before.prior())
    start = solver.queries
    assert [again.mover(m, right) for m, right in asks] == expected
    assert again._prior is not None and solver.queries - start <= alone
    assert {k: _key(u) for k, u in again.used.items()} == \
        {k: _key(u) for k, u in fresh.used.items()}  # fmt: skip


def test_a_prior_under_other_conjuncts_is_not_taken_over() -> None:
    t0, live, few, more, solver = _setup("rwcount-3")
    wider = Movers(t0, live, more, solver)
    for m in live:
        wider.mover(m, True)
    narrower = Movers(t0, live, few, solver, prior=wider.prior())
    assert narrower._prior is None


def test_a_fork_shares_the_answers_not_what_they_used() -> None:
    t0, live, _, more, solver = _setup("rwcount-3")
    movers = Movers(t0, live, more, solver)
    yes = next(m for m in live if movers.mover(m, True))
    other = movers.fork()
    assert not other.used
    start = solver.queries
    assert other.mover(yes, True)
    assert solver.queries == start and set(other.used) == {(yes, True)}
