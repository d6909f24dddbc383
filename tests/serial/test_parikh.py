"""Exactness of the serial set S (prover/serial/parikh.py, semilinear.py)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sls_helpers import (
    automaton,
    benchmark_names,
    exact_upto,
    in_s,
    is_serial,
    load_automaton,
    members,
    needs_bench,
)

from prover.serial.parikh import compute_serial_set, serial_set_summary, serial_set_to_json

BENCHMARKS = benchmark_names()
SCHEMA = Path(__file__).resolve().parents[2] / "schemas" / "certificate.schema.json"


def test_single_loop() -> None:
    aut = automaton("a", [("a", "r", "1", "a")])
    s = compute_serial_set(aut)
    assert s.labels == (("r", "1"),)
    assert [(c.base, c.periods) for c in s.components] == [((0,), ((1,),))]
    exact_upto(aut, s, 6)


def test_no_edges() -> None:
    aut = automaton("a", [])
    s = compute_serial_set(aut)
    assert [(c.base, c.periods) for c in s.components] == [((), ())]
    assert serial_set_to_json(s) == {
        "components": [{"base": [], "periods": [], "walk": {"end": "a", "edges": []},
                        "circulations": []}]
    }


def test_loop_away_from_initial_needs_two_components() -> None:
    # a -r/0-> b, loop b -r/1-> b: S = {0} ∪ (r0 + N·r1)
    aut = automaton("a", [("a", "r", "0", "b"), ("b", "r", "1", "b")])
    s = compute_serial_set(aut)
    assert sorted((c.base, c.periods) for c in s.components) == [
        ((0, 0), ()), ((1, 0), ((0, 1),))
    ]
    exact_upto(aut, s, 6)


def test_dependent_cycles_are_split() -> None:
    # two cycles at a with labels x+y and ... forcing a dependency x, y, x+y, 2x
    aut = automaton(
        "a",
        [("a", "r", "x", "a"), ("a", "r", "y", "b"), ("b", "r", "x", "a"),
         ("b", "r", "y", "c"), ("c", "r", "y", "a")],
    )
    s = compute_serial_set(aut)
    exact_upto(aut, s, 7)


def test_mod3() -> None:
    # a cycle of length 3 with one label, no loop: S = {0,1,2} + N·3
    aut = automaton("a", [("a", "r", "1", "b"), ("b", "r", "1", "c"), ("c", "r", "1", "a")])
    s = compute_serial_set(aut)
    exact_upto(aut, s, 10)
    assert len(s.components) == 3


def test_json_matches_schema() -> None:
    aut = automaton("a", [("a", "r", "0", "b"), ("b", "r", "1", "b"), ("b", "q", "2", "a")])
    s = compute_serial_set(aut)
    schema = json.loads(SCHEMA.read_text())
    comp_schema = {"$defs": schema["$defs"], "$ref": "#/$defs/component"}
    for comp in serial_set_to_json(s)["components"]:  # type: ignore[union-attr]
        jsonschema.validate(comp, comp_schema)
    assert serial_set_summary(s) == {"components": len(s.components), "periods": s.num_periods}


edge_st = st.tuples(
    st.sampled_from("abc"), st.sampled_from(["r", "q"]), st.sampled_from("01"),
    st.sampled_from("abc"),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(edge_st, min_size=0, max_size=7))
def test_random_automata_exact(edges: list[tuple[str, str, str, str]]) -> None:
    aut = automaton("a", edges)
    s = compute_serial_set(aut)
    exact_upto(aut, s, 5)


@needs_bench
@pytest.mark.parametrize("name", BENCHMARKS)
def test_benchmark_serial_set_exact(name: str) -> None:
    aut = load_automaton(name)
    s = compute_serial_set(aut)
    assert s.labels == aut.labels
    # witnesses, Ser ∩ {size ≤ 6} = S ∩ {size ≤ 6}
    exact_upto(aut, s, 6)
    ms = members(s)
    rng = random.Random(name)
    idx = {lab: i for i, lab in enumerate(s.labels)}
    # random longer serial walks are in S
    for _ in range(40):
        state = aut.initial
        v = [0] * len(s.labels)
        for _ in range(rng.randint(7, 30)):
            out = aut.edges_from.get(state, ())
            if not out:
                break
            e = rng.choice(out)
            v[idx[(e.request, e.response)]] += 1
            state = e.target
        assert in_s(ms, tuple(v))
    # random larger elements of S are serial (brute force)
    for _ in range(30):
        c = rng.choice(s.components)
        v = list(c.base)
        for p in c.periods:
            k = rng.randint(0, 3)
            v = [a + k * b for a, b in zip(v, p, strict=False)]
        if sum(v) <= 24:
            assert is_serial(aut, s.labels, tuple(v))
    # random larger non-members of S are not serial
    for _ in range(30):
        v = tuple(rng.randint(0, 3) for _ in s.labels)
        if not in_s(ms, v) and sum(v) <= 24:
            assert not is_serial(aut, s.labels, v)
