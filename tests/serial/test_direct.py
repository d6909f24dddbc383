"""The cycle-cover construction of S (prover/serial/direct.py) and the choice between it
and state elimination (prover/serial/parikh.py): exactness against brute-force Parikh
enumeration, the trusted checker's acceptance of every component, determinism."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sls_helpers import (
    SCALE_DIR,
    automaton,
    check_component,
    checker_accepts,
    exact_upto,
    in_s,
    is_serial,
    members,
)

from bench.sets import absent
from prover.serial import direct, semilinear
from prover.serial.automaton import SerialAutomaton
from prover.serial.linalg import TooLarge, independent, rank
from prover.serial.parikh import (
    CYCLE_COVERS,
    ELIMINATION,
    SerialSet,
    compute_serial_set,
    serial_set_to_json,
)


def _direct(aut: SerialAutomaton) -> SerialSet:
    return SerialSet(aut.labels, direct.build_components(aut), CYCLE_COVERS)


def chain(n: int, shared_labels: bool = False) -> SerialAutomaton:
    """States 0..n, `inc` i -> i+1 and `dec` i+1 -> i (the counter models' automaton);
    with `shared_labels` every inc answers "u" and every dec "d"."""
    edges = []
    for i in range(n):
        up = "u" if shared_labels else str(i + 1)
        down = "d" if shared_labels else str(i)
        edges += [(f"s{i}", "inc", up, f"s{i + 1}"), (f"s{i + 1}", "dec", down, f"s{i}")]
    return automaton("s0", edges)


def ring(n: int, shared_labels: bool = False) -> SerialAutomaton:
    edges = [
        (f"s{i}", f"st{0 if shared_labels else i}", "0", f"s{(i + 1) % n}") for i in range(n)
    ]
    return automaton("s0", edges)


# ---- exactness ----------------------------------------------------------------------


edge_st = st.tuples(
    st.sampled_from("abcd"), st.sampled_from(["r", "q"]), st.sampled_from("01"),
    st.sampled_from("abcd"),
)


@settings(max_examples=80, deadline=None)
@given(st.lists(edge_st, min_size=0, max_size=8))
def test_random_automata_exact(edges: list[tuple[str, str, str, str]]) -> None:
    aut = automaton("a", edges)
    s = _direct(aut)
    exact_upto(aut, s, 5)
    checker_accepts(aut, s)


@pytest.mark.parametrize("shared", [False, True])
@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_chain_exact(n: int, shared: bool) -> None:
    aut = chain(n, shared)
    s = _direct(aut)
    exact_upto(aut, s, 6 if n <= 3 else 5)
    checker_accepts(aut, s)


@pytest.mark.parametrize("shared", [False, True])
@pytest.mark.parametrize("n", [1, 2, 3, 5, 7])
def test_ring_exact(n: int, shared: bool) -> None:
    aut = ring(n, shared)
    s = _direct(aut)
    exact_upto(aut, s, 8)
    checker_accepts(aut, s)


def test_chain_sizes_quadratic() -> None:
    # one component per (highest state, end state) before merges: O(N²) components
    # with O(N) periods each, never the exponential blow-up of state elimination
    for n in (4, 8, 12):
        s = _direct(chain(n))
        assert len(s.components) <= (n + 1) * (n + 2) // 2
        assert all(len(c.periods) <= n for c in s.components)


def test_large_chain_members_are_serial() -> None:
    aut = chain(12)
    s = _direct(aut)
    rng = random.Random(7)
    for _ in range(40):
        c = rng.choice(s.components)
        v = list(c.base)
        for p in c.periods:
            k = rng.randint(0, 2)
            v = [a + k * b for a, b in zip(v, p, strict=True)]
        assert is_serial(aut, s.labels, tuple(v))
    # random walks are members
    ms = members(s)
    idx = {lab: i for i, lab in enumerate(s.labels)}
    for _ in range(40):
        state, v = aut.initial, [0] * len(s.labels)
        for _ in range(rng.randint(0, 40)):
            e = rng.choice(aut.edges_from[state])
            v[idx[(e.request, e.response)]] += 1
            state = e.target
        assert in_s(ms, tuple(v))


def test_dependent_periods_are_split() -> None:
    # three loops at a with labels x, y, x+y (via b): x+y is dropped as a combination;
    # a 2-cycle with labels 2x against the loop x is dropped too
    aut = automaton(
        "a",
        [("a", "r", "x", "a"), ("a", "r", "y", "a"), ("a", "r", "x", "b"),
         ("b", "r", "y", "a"), ("a", "r", "z", "c"), ("c", "r", "z", "a"),
         ("c", "r", "x", "c")],
    )
    s = _direct(aut)
    exact_upto(aut, s, 6)
    checker_accepts(aut, s)


# ---- budgets, choice, determinism -----------------------------------------------------------


def test_budget_raises_too_large() -> None:
    with pytest.raises(TooLarge):
        direct.build_components(chain(10), work_steps=50)
    with pytest.raises(TooLarge):
        semilinear.build_components(chain(10), work_steps=50)


def test_cover_cap_raises_too_large() -> None:
    """Covers are capped by count as well as work (memory: ring2 of the blind set filled
    1.7 GB within the work budget); under the cap the result is the same."""
    with pytest.raises(TooLarge, match="cycle covers"):
        direct.build_components(chain(10), max_covers=20)
    assert direct.build_components(chain(10)) == direct.build_components(
        chain(10), max_covers=direct.MAX_COVERS)
    assert direct.MAX_COVERS > 8_385  # counter-128's covers: S is built for it as before


def test_choice_elimination_on_small_cycle_covers_on_chains() -> None:
    small = compute_serial_set(automaton("a", [("a", "r", "1", "b"), ("b", "r", "0", "a")]))
    assert small.construction == ELIMINATION
    big = compute_serial_set(chain(10))
    assert big.construction == CYCLE_COVERS
    exact_upto(chain(10), big, 4)


def test_deterministic() -> None:
    for aut in (chain(6), chain(5, True), ring(6)):
        a, b = _direct(aut), _direct(aut)
        assert a == b and serial_set_to_json(a) == serial_set_to_json(b)
    a, b = compute_serial_set(chain(10)), compute_serial_set(chain(10))
    assert serial_set_to_json(a) == serial_set_to_json(b)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.integers(0, 3), min_size=4, max_size=4), min_size=0, max_size=5))
def test_independent_agrees_with_rational_rank(rows: list[list[int]]) -> None:
    vecs = [tuple(r) for r in rows]
    assert independent(vecs) == (rank(vecs) == len(vecs))


# ---- the scale models -----------------------------------------------------------------


@pytest.mark.parametrize("name", ["counter-03.ser", "counter-06.ser", "counter-10.ser",
                                  "ring-05.ser", "ring-08.ser"])
def test_scale_models_exact_and_checked(name: str) -> None:
    path = SCALE_DIR / name
    if not path.is_file():
        pytest.skip(absent("scale"))
    from prover.frontend.load import load_model
    from prover.serial.automaton import build_serial_automaton

    try:
        from checker.linear_sets import check_component as checker_check
        from checker.semantics import explore, semantics
        from checker.serial_model import make_model
    except ImportError:  # pragma: no cover - checker not there
        pytest.skip("checker not available")
    aut = build_serial_automaton(load_model(path).ns)
    m = make_model(explore(semantics("ser", path.read_text())))
    for s in (compute_serial_set(aut), _direct(aut)):
        exact_upto(aut.reachable(), s, 4)
        for i, comp in enumerate(serial_set_to_json(s)["components"]):  # type: ignore[arg-type]
            checker_check(m, i, comp)


# ---- one component on demand ------------------------------------------------------------


def _random_walk(aut: SerialAutomaton, rng: random.Random, steps: int) -> tuple:  # type: ignore[type-arg]
    state, walk = aut.initial, []
    for _ in range(steps):
        out = aut.edges_from.get(state, ())
        if not out:
            break
        e = rng.choice(out)
        walk.append(e)
        state = e.target
    return tuple(walk)


@settings(max_examples=60, deadline=None)
@given(st.lists(edge_st, min_size=0, max_size=8), st.integers(0, 2**16), st.integers(0, 25))
def test_component_containing_random_walks(
    edges: list[tuple[str, str, str, str]], seed: int, steps: int
) -> None:
    aut = automaton("a", edges)
    walk = _random_walk(aut, random.Random(seed), steps)
    c = direct.component_containing(aut, walk)
    s = SerialSet(aut.labels, (c,), CYCLE_COVERS)
    idx = {lab: i for i, lab in enumerate(aut.labels)}
    v = [0] * len(aut.labels)
    for e in walk:
        v[idx[(e.request, e.response)]] += 1
    assert in_s(members(s), tuple(v))
    check_component(aut, s.labels, c)
    checker_accepts(aut, s)
    # the component lies in Ser (brute force on its small elements)
    for k in range(3):
        for p in c.periods:
            w = tuple(b + k * x for b, x in zip(c.base, p, strict=True))
            if sum(w) <= 30:
                assert is_serial(aut, s.labels, w)


def test_component_containing_generalises_along_cycles() -> None:
    aut = chain(6)
    walk = _random_walk(aut, random.Random(1), 30)
    c = direct.component_containing(aut, walk)
    assert c.periods  # a long walk on a chain repeats 2-cycles
