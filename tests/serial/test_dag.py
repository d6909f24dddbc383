"""The self-loop-DAG construction of S (prover/serial/dag.py): exactness against
brute-force Parikh enumeration, the trusted checker's acceptance of every component,
determinism, the union-cover pass, and its place in `compute_serial_set`."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sls_helpers import (
    SCALE_DIR,
    automaton,
    checker_accepts,
    exact_upto,
    in_s,
    members,
    vectors_upto,
)

from prover.serial import dag
from prover.serial.automaton import SerialAutomaton
from prover.serial.parikh import (
    SELF_LOOP_DAG,
    SerialSet,
    compute_serial_set,
    serial_set_to_json,
)
from tests.benchmarks import absent


def _dag(aut: SerialAutomaton) -> SerialSet:
    comps = dag.build_components(aut)
    assert comps is not None
    return SerialSet(aut.labels, comps, SELF_LOOP_DAG)


def grid(n: int) -> SerialAutomaton:
    """States (i, j) with 0 ≤ i, j ≤ n: `a` raises i, `b` raises j (no-op loop at the
    bound), `look` answers i + j everywhere (a loop): the shape of the locked models."""
    edges = []
    for i in range(n + 1):
        for j in range(n + 1):
            s = f"{i}.{j}"
            edges.append((s, "look", str(i + j), s))
            edges.append((s, "a", "0", f"{i + 1}.{j}" if i < n else s))
            edges.append((s, "b", "0", f"{i}.{j + 1}" if j < n else s))
    return automaton("0.0", edges)


# a DAG over a < b < c < d (edges go up only) plus arbitrary self-loops
dag_edge = st.tuples(st.sampled_from("abcd"), st.sampled_from(["r", "q"]),
                     st.sampled_from("01"), st.sampled_from("abcd")).filter(
    lambda e: e[0] <= e[3])  # fmt: skip


@settings(max_examples=80, deadline=None)
@given(st.lists(dag_edge, min_size=0, max_size=9))
def test_random_self_loop_dags_exact(edges: list[tuple[str, str, str, str]]) -> None:
    aut = automaton("a", edges)
    s = _dag(aut)
    exact_upto(aut, s, 5)
    checker_accepts(aut, s)


def test_grid_exact_and_accepted() -> None:
    for n in (1, 2):
        aut = grid(n)
        s = _dag(aut)
        exact_upto(aut, s, 5)
        checker_accepts(aut, s)


def test_not_applicable_with_a_longer_cycle() -> None:
    aut = automaton("a", [("a", "r", "0", "b"), ("b", "r", "1", "a")])
    assert not dag.applicable(aut)
    assert dag.build_components(aut) is None


def _scale_automaton(name: str) -> SerialAutomaton:
    path = SCALE_DIR / name
    if not path.is_file():
        pytest.skip(absent("scale"))
    from prover.frontend.load import load_model
    from prover.serial.automaton import build_serial_automaton

    return build_serial_automaton(load_model(str(path)).ns).reachable()


def test_cover_pass_drops_only_redundant_components() -> None:
    """The union-cover pass keeps S (locked-03: 97 → 55 components, same vectors)."""
    aut = _scale_automaton("locked-03.ser")
    full = _dag(aut)
    saved = dag.COVER_SPLITS
    try:
        dag.COVER_SPLITS = 0  # every cover test gives up: the plain antichain
        plain = _dag(aut)
    finally:
        dag.COVER_SPLITS = saved
    assert (len(full.components), len(plain.components)) == (55, 97)
    exact_upto(aut, full, 3)
    ms_plain, ms_full = members(plain), members(full)
    for v in vectors_upto(len(full.labels), 4):
        assert in_s(ms_plain, v) == in_s(ms_full, v), v
    checker_accepts(aut, full)


def test_deterministic() -> None:
    a, b = _dag(grid(3)), _dag(grid(3))
    assert a == b and serial_set_to_json(a) == serial_set_to_json(b)


def test_choice_large_self_loop_dag() -> None:
    """More than DAG_FIRST states: straight to the dynamic programme."""
    s = compute_serial_set(grid(4))
    assert s.construction == SELF_LOOP_DAG
    assert s == _dag(grid(4))


def test_locked_04_fits_the_budget() -> None:
    """locked-04: 81 states, 81 million paths; cycle covers and elimination both ran out
    of budget. The dynamic programme fits (274 components)."""
    s = compute_serial_set(_scale_automaton("locked-04.ser"))
    assert s.construction == SELF_LOOP_DAG
    assert len(s.components) <= 300
