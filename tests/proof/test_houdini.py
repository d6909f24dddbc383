"""Houdini of the reduction engine (prover/reduction/houdini.py, samples.py): what it
settles by arithmetic agrees with z3, the runs' filter is the naive one made fast,
asking several steps at once finds the same invariant as asking them one by one, and so
does a run that first replays an earlier run's counter-models."""

from __future__ import annotations

import pytest
import z3
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.idioms import BY_NAME
from prover.frontend.load import load_source
from prover.reduction import houdini, invariant, samples
from prover.reduction.engine import RLIMIT, prove_by_reduction, spent
from prover.reduction.guards import conservation_laws, sampled, value_sets
from prover.reduction.invariant import Clause, Conjunct, Delta, Key, Linear, Solver, linear
from prover.reduction.table import Limits, Move, Table, grow_domains
from tests.benchmarks import SCALE

SHARED = SCALE

ATOMS: tuple[Key, ...] = (("local", "r", "a"), ("local", "r", "b"), ("value", "X"),
                          ("value", "Y"))


@st.composite
def comparisons(draw: st.DrawFn) -> Linear:
    coeffs = {k: draw(st.integers(-2, 2)) for k in draw(st.sets(st.sampled_from(ATOMS),
                                                               min_size=1))}  # fmt: skip
    return linear(coeffs, draw(st.integers(-3, 3)), draw(st.sampled_from(["=", "<=", ">="])))


conjuncts = st.one_of(comparisons(), st.builds(
    lambda cases: Clause(tuple(sorted({tuple(sorted(c)) for c in cases}))),
    st.lists(st.lists(comparisons(), min_size=1, max_size=2), min_size=1, max_size=3)))
deltas = st.dictionaries(st.sampled_from(ATOMS), st.one_of(st.none(), st.integers(-2, 2)),
                         max_size=4)


@settings(max_examples=300, deadline=None)
@given(conjuncts, deltas)
def test_what_a_step_keeps_by_arithmetic_z3_keeps_too(c: Conjunct, d: Delta) -> None:
    """`kept`: the conjunct held before, the atoms changed by `d` (None: to any value),
    so it holds after; z3 finds no state where it would not."""
    ctx = z3.Context()
    before = {k: z3.Int(f"b{i}", ctx) for i, k in enumerate(ATOMS)}
    after = {k: z3.Int(f"a{i}", ctx) for i, k in enumerate(ATOMS)}
    s = z3.Solver(ctx=ctx)
    for k in ATOMS:
        if k in d and d[k] is None:
            continue  # unconstrained after
        s.add(after[k] == before[k] + (d.get(k) or 0))
    s.add(c.z3(before.__getitem__, ctx), z3.Not(c.z3(after.__getitem__, ctx)))
    if c.kept(d):
        assert s.check() == z3.unsat
    if all(v == 0 for v in d.values()):  # a step that moves none of its atoms keeps it
        assert c.kept(d)


@st.composite
def changes(draw: st.DrawFn) -> invariant.Change:
    """A step: counters moved by constants, globals set (their change unknown: None)."""
    counters = [k for k in ATOMS if k[0] == "local"]
    delta: Delta = {k: draw(st.integers(-1, 1)) for k in draw(st.sets(st.sampled_from(
        counters)))}  # fmt: skip
    after = draw(st.dictionaries(st.sampled_from(["X", "Y"]), st.integers(-2, 2)))
    delta.update({("value", x): None for x in after})
    return invariant.Change("step", ("r", "a"), 1, {}, delta, after)


@settings(max_examples=400, deadline=None)
@given(conjuncts, changes(), st.tuples(*[st.integers(0, 3) if k[0] == "local"
                                         else st.integers(-2, 2) for k in ATOMS]))
def test_a_conjunct_shifted_before_a_step_is_its_value_after(
        c: Conjunct, ch: invariant.Change, values: tuple[int, ...]) -> None:
    """`shifted`: evaluated before the step (counters never negative), the conjunct's
    value after it; a truth it settles holds at every such state."""
    before = dict(zip(ATOMS, values, strict=True))
    after = {k: ch.after[k[1]] if k[0] == "value" and k[1] in ch.after
             else before[k] + (ch.delta.get(k) or 0) for k in ATOMS}  # fmt: skip
    if any(after[k] < 0 for k in ATOMS if k[0] == "local"):
        return  # no step leaves a counter negative
    got = invariant.shifted(c, ch)
    want = c.value(after.__getitem__)
    assert (got if isinstance(got, bool) else got.value(before.__getitem__)) == want


def _table(text: str) -> tuple[Table, list[Move]]:
    model = load_source(text, "ser", lazy=True)
    assert model.steps is not None
    t = grow_domains(model.steps, Limits())
    return t, [m for m in t.moves if not t.is_stutter(m)]


def _candidates(t: Table, live: list[Move]) -> list[Conjunct]:
    seen = samples.observe(t, live)
    return list(dict.fromkeys(invariant.candidates(t, live) + value_sets(t, live, set())
                              + conservation_laws(t, live) + _guesses(t, live, seen)))


def _guesses(t: Table, live: list[Move], seen: samples.Observed) -> list[Conjunct]:
    guessed, untested = sampled(t, live, seen, set())
    return [*guessed, *untested]


MODELS = {"rwcount-3": BY_NAME["rwcount"].text(3), "backoff-3": BY_NAME["backoff"].text(3),
          "buffer-3": BY_NAME["buffer"].text(3), "seqlock-2": BY_NAME["seqlock"].text(2)}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_the_runs_refute_what_the_naive_evaluation_refutes(name: str) -> None:
    """Every candidate false at a configuration some run visits after a step (the runs'
    own configurations, every candidate evaluated at each)."""
    t, live = _table(MODELS[name])
    cands = _candidates(t, live)
    naive: set[Conjunct] = set()
    for here, glob, change in samples._runs(t, live, 0):
        if change is None:
            continue
        def atom(k: Key, here: dict = here, glob: dict = glob) -> int:  # noqa: B008
            return glob[k[1]] if k[0] == "value" else here.get(k[1:], 0)
        naive.update(c for c in cands if c not in naive and not c.value(atom))
    assert samples.refuted_by_runs(t, live, cands) == naive
    assert naive, "the runs refute some candidate"


@pytest.mark.parametrize("name", sorted(MODELS))
def test_no_guess_read_off_the_runs_is_false_in_them(name: str) -> None:
    """The engine skips the runs' filter on `sampled`'s guesses (never beside, values
    seen): the same runs cannot refute them, which this pins."""
    t, live = _table(MODELS[name])
    guessed, untested = sampled(t, live, samples.observe(t, live), set())
    assert guessed, "the runs' guesses are there to test"
    assert not samples.refuted_by_runs(t, live, [*guessed, *untested])


@pytest.mark.parametrize("name", sorted(MODELS))
def test_steps_asked_together_find_the_invariant_asked_one_by_one(
        name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Houdini's answer is the largest inductive subset, whatever the batches."""
    t, live = _table(MODELS[name])
    cands = _candidates(t, live)
    found = []
    for batch in (1, 8, 64):
        monkeypatch.setattr(houdini, "BATCH_STEPS", batch)
        solver = Solver(t, None, RLIMIT)
        found.append(houdini.houdini(t, live, cands, solver, None))
        if batch == 1:
            one_by_one = solver.queries
        else:
            assert solver.queries <= one_by_one
    assert found[0] is not None and found[0] == found[1] == found[2]


@pytest.mark.parametrize("name", sorted(MODELS))
def test_a_second_run_replays_the_first_ones_counter_models(name: str) -> None:
    """The engine's rounds share one solver: a run after one on half the candidates finds
    the largest inductive subset still, as a fresh solver does; a run after one on the
    same candidates replays its way to it and asks z3 only the pass that confirms it."""
    t, live = _table(MODELS[name])
    cands = _candidates(t, live)
    fresh = Solver(t, None, RLIMIT)
    alone = houdini.houdini(t, live, cands, fresh, None)
    half = Solver(t, None, RLIMIT)
    houdini.houdini(t, live, cands[::2], half, None)
    assert half.witnesses, "the first run met counter-models"
    assert houdini.houdini(t, live, cands, half, None) == alone
    before = fresh.queries
    assert houdini.houdini(t, live, cands, fresh, None) == alone
    assert fresh.queries - before < before


def test_a_witness_that_breaks_a_live_conjunct_is_not_replayed() -> None:
    """A counter-model is a state of the candidates only while it satisfies all of them:
    one that falsifies a conjunct still alive drops nothing."""
    t, live = _table(MODELS[sorted(MODELS)[0]])
    cands = _candidates(t, live)
    step = next(iter(invariant.changes(t, live)))
    by_atom = houdini.by_atoms(cands)
    moved = houdini.moved(by_atom, step)
    assert moved, "the first step moves a candidate"
    never = houdini.Witness(lambda key: -1, (step,), frozenset(), False)  # falsifies M >= 0 ones
    assert houdini.replayed([never], cands, by_atom, False) == cands


def test_a_budget_of_units_is_spent_the_same_way_each_time() -> None:
    """A count of z3's work, not seconds: the same budget stops at the same point, with
    the same reason; a large enough one proves, with the same evidence as no budget."""
    steps = load_source(BY_NAME["rwcount"].text(3), "ser", lazy=True).steps
    assert steps is not None
    full = prove_by_reduction(steps)
    assert full.evidence is not None
    small = [prove_by_reduction(steps, units=full.stats["solver_units"] // 3) for _ in range(2)]
    assert all(spent(a) == "finding" and a.evidence is None for a in small)
    assert small[0].reason == small[1].reason and small[0].stats == small[1].stats
    assert small[0].stats["solver_units"] >= full.stats["solver_units"] // 3
    again = prove_by_reduction(steps, units=full.stats["solver_units"], table=small[0].table)
    assert again.evidence == full.evidence and not spent(again)


def test_laws_walk_escapes_that_write_a_global_blindly() -> None:
    """A bound too tight for the program leaves escapes, among them steps that write the
    mutex M without reading it where no live step does: the conservation laws walk them
    too and must know M's values there (they raised KeyError: 'M')."""
    from prover.reduction.bounds import guess_bounds

    steps = load_source(BY_NAME["rwcount"].text(2), "ser", lazy=True).steps
    tight = guess_bounds(steps.program, ())  # no states observed: C0 + C1 + RC <= 0
    a = prove_by_reduction(steps, units=10**8, bounds=tight)
    assert a.evidence is None and "is not inductive" in a.reason
