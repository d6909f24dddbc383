"""Exact serial membership against brute-force enumeration of serial walks."""

from __future__ import annotations

from itertools import product

from hypothesis import given, settings
from hypothesis import strategies as st

from prover.serial.automaton import SerialAutomaton, SerialEdge, build_serial_automaton
from prover.serial.membership import SerialMembership, make_multiset

from .conftest import a2_ns


def test_a2_membership() -> None:
    oracle = SerialMembership(build_serial_automaton(a2_ns()))
    assert oracle.is_serial({})
    assert oracle.is_serial({("main", "1"): 3})
    assert not oracle.is_serial({("main", "0"): 1, ("main", "1"): 1})
    assert not oracle.is_serial({("main", "0"): 1})
    assert not oracle.is_serial({("other", "1"): 1})
    assert oracle.producible_from_initial() == frozenset({("main", "1")})


def test_witness_is_a_walk() -> None:
    e = [
        SerialEdge("a", "r", "1", "b"),
        SerialEdge("b", "r", "2", "a"),
        SerialEdge("b", "s", "0", "b"),
    ]
    aut = SerialAutomaton("a", ("a", "b"), tuple(sorted(e)))
    oracle = SerialMembership(aut)
    order = oracle.serial_order(make_multiset([("r", "1"), ("r", "1"), ("r", "2"), ("s", "0")]))
    assert order is not None
    state = "a"
    for edge in order:
        assert edge.source == state
        state = edge.target
    assert not oracle.is_serial({("r", "2"): 1})
    assert not oracle.is_serial({("r", "1"): 2})


def _brute(aut: SerialAutomaton, depth: int) -> set[tuple[tuple[tuple[str, str], int], ...]]:
    out = {make_multiset([])}
    frontier = {(aut.initial, make_multiset([]))}
    for _ in range(depth):
        nxt = set()
        for g, ms in frontier:
            for e in aut.edges_from.get(g, ()):
                counts = dict(ms)
                counts[(e.request, e.response)] = counts.get((e.request, e.response), 0) + 1
                nxt.add((e.target, make_multiset(counts)))
        frontier = nxt
        out |= {ms for _, ms in frontier}
    return out


# up to seven edges among three states, labelled r or s answering 0 or 1
EDGES = st.lists(st.tuples(st.integers(0, 2), st.sampled_from(["r", "s"]),
                           st.sampled_from(["0", "1"]), st.integers(0, 2)), max_size=7)
LABELS = [("r", "0"), ("r", "1"), ("s", "0"), ("s", "1")]
BAGS = [make_multiset({p: n for p, n in zip(LABELS, counts, strict=True) if n})
        for counts in product(range(3), repeat=4) if sum(counts) <= 4]


def _automaton(raw: list[tuple[int, str, str, int]]) -> SerialAutomaton:
    states = ("g0", "g1", "g2")
    return SerialAutomaton("g0", states, tuple(sorted(
        {SerialEdge(states[a], r, v, states[b]) for a, r, v, b in raw})))


@settings(max_examples=60, deadline=None)
@given(EDGES)
def test_matches_brute_force(raw: list[tuple[int, str, str, int]]) -> None:
    aut = _automaton(raw)
    oracle = SerialMembership(aut)
    serial = _brute(aut, 4)
    for ms in BAGS:
        assert oracle.is_serial(ms) == (ms in serial), ms


@settings(max_examples=60, deadline=None)
@given(EDGES)
def test_the_witness_does_not_depend_on_earlier_questions(
        raw: list[tuple[int, str, str, int]]) -> None:
    """The memo of dead configurations is shared by all questions; each witness is still
    the one a fresh oracle finds (the first in edge order)."""
    aut = _automaton(raw)
    up, down = SerialMembership(aut), SerialMembership(aut)
    fresh = {ms: SerialMembership(aut).serial_order(ms) for ms in BAGS}
    assert [up.serial_order(ms) for ms in BAGS] == [fresh[ms] for ms in BAGS]
    assert [down.serial_order(ms) for ms in reversed(BAGS)] == [fresh[ms] for ms in
                                                                reversed(BAGS)]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.sampled_from(["r", "s", "t"]),
                          st.sampled_from(["0", "1"]), st.integers(0, 4)), max_size=12))
def test_reachable_labels_are_those_of_every_edge_a_walk_reaches(
        raw: list[tuple[int, str, str, int]]) -> None:
    from prover.serial.membership import _reachable_labels

    states = tuple(f"g{i}" for i in range(5))
    edges = tuple(sorted({SerialEdge(states[a], r, v, states[b]) for a, r, v, b in raw}))
    index = {p: i for i, p in enumerate(sorted({(e.request, e.response) for e in edges}))}
    got = _reachable_labels(SerialAutomaton("g0", states, edges), index)
    for s in states:
        seen, todo = {s}, [s]
        while todo:
            x = todo.pop()
            for e in edges:
                if e.source == x and e.target not in seen:
                    seen.add(e.target)
                    todo.append(e.target)
        assert got[s] == {index[(e.request, e.response)] for e in edges if e.source in seen}
