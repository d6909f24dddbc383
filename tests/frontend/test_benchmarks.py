"""Front end on the paper's 47 benchmarks: sizes of the NS, the interleaving Petri net
(ser-reference §4.2, `expected.json`) and the serial automaton (§4.3)."""

from __future__ import annotations

import json

import pytest

from prover.frontend.load import load_model
from prover.ns import NetworkSystem
from prover.petri.build import build_interleaving_net, interleaving_net_sizes
from prover.serial.automaton import build_serial_automaton
from tests.benchmarks import PAPER, absent

BENCH = PAPER
EXPECTED = json.loads((BENCH / "expected.json").read_text()) if BENCH.is_dir() else {}
NAMES = sorted(EXPECTED)

pytestmark = pytest.mark.skipif(not NAMES, reason=absent("paper"))

# ser-reference §10, column "NS req/resp/trans".
NS_SIZES: dict[str, tuple[int, int, int]] = {
    "a1.ser": (1, 1, 1),
    "a2.ser": (1, 2, 4),
    "a3.ser": (1, 1, 1),
    "a4.ser": (2, 2, 4),
    "a5.ser": (3, 3, 9),
    "a6.ser": (2, 2, 6),
    "a7.ser": (1, 1, 3),
    "b1.json": (2, 2, 2),
    "b2.json": (3, 3, 4),
    "b3.json": (3, 3, 2),
    "b4.json": (3, 3, 3),
    "c1.ser": (2, 6, 32),
    "c2.ser": (2, 4, 8),
    "c3.ser": (2, 2, 4),
    "c4.ser": (2, 3, 6),
    "c5.ser": (2, 4, 18),
    "c6.ser": (2, 3, 12),
    "c7.ser": (3, 3, 15),
    "c8.ser": (2, 4, 6),
    "d1.ser": (1, 3, 15),
    "d2.ser": (1, 4, 20),
    "d3.ser": (1, 4, 20),
    "d4.ser": (1, 4, 20),
    "d5.ser": (1, 3, 6),
    "e1.ser": (1, 2, 4),
    "e2.ser": (2, 3, 16),
    "e3.ser": (3, 6, 26),
    "e4.ser": (3, 6, 34),
    "e5.ser": (1, 1, 3),
    "e6.ser": (1, 1, 17),
    "e7.ser": (1, 2, 4),
    "f1.ser": (1, 1, 13),
    "f2.ser": (1, 3, 21),
    "f3.ser": (2, 4, 8),
    "f4.ser": (2, 4, 8),
    "f5.ser": (1, 3, 6),
    "f6.ser": (1, 3, 9),
    "f7.ser": (1, 2, 6),
    "f8.ser": (1, 2, 8),
    "f9.ser": (1, 2, 8),
    "g1.ser": (3, 9, 85),
    "g2.ser": (3, 8, 36),
    "g3.ser": (3, 8, 44),
    "g4.ser": (2, 12, 34),
    "g5.ser": (2, 6, 10),
    "g6.ser": (1, 7, 16),
    "g7.ser": (1, 6, 8),
}


def test_table_covers_all_benchmarks() -> None:
    assert sorted(NS_SIZES) == NAMES
    assert len(NAMES) == 47


@pytest.mark.parametrize("name", NAMES)
def test_petri_sizes_match_reference(name: str) -> None:
    ns = load_model(BENCH / name, ns="closure").ns
    net = build_interleaving_net(ns)
    assert net.sizes() == interleaving_net_sizes(ns) == {
        "places": EXPECTED[name]["reference_petri_places"],
        "transitions": EXPECTED[name]["reference_petri_transitions"],
    }


@pytest.mark.parametrize("name", NAMES)
def test_ns_sizes_match_reference_table(name: str) -> None:
    s = load_model(BENCH / name, ns="closure").ns.sizes()
    assert (s["requests"], s["responses"], s["transitions"]) == NS_SIZES[name]


def _independent_serial_edges(ns: NetworkSystem) -> set[tuple[str, str, str, str]]:
    """§4.3 written from scratch: solo runs from every considered global state, then the
    part reachable from the initial state."""
    succ: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for t in ns.transitions:
        succ.setdefault((t.from_local, t.from_global), []).append((t.to_local, t.to_global))
    answers: dict[str, list[str]] = {}
    for r in ns.responses:
        answers.setdefault(r.local, []).append(r.response)
    considered = {ns.initial_global}
    for t in ns.transitions:
        considered.update((t.from_global, t.to_global))
    edges: set[tuple[str, str, str, str]] = set()
    for g in considered:
        for entry in ns.requests:
            frontier = [(entry.local, g)]
            reached = set(frontier)
            while frontier:
                for nxt in succ.get(frontier.pop(), []):
                    if nxt not in reached:
                        reached.add(nxt)
                        frontier.append(nxt)
            for loc, g2 in reached:
                for resp in answers.get(loc, []):
                    edges.add((g, entry.request, resp, g2))
    live = {ns.initial_global}
    changed = True
    while changed:
        changed = False
        for g, _r, _v, g2 in edges:
            if g in live and g2 not in live:
                live.add(g2)
                changed = True
    return {e for e in edges if e[0] in live}


@pytest.mark.parametrize("name", NAMES)
def test_serial_automaton_reachable_edges(name: str) -> None:
    ns = load_model(BENCH / name, ns="closure").ns
    got = {tuple(e.as_list()) for e in build_serial_automaton(ns).reachable().edges}
    assert got == _independent_serial_edges(ns)


def test_inspect_json_reports_reference_petri_sizes(capsys: pytest.CaptureFixture[str]) -> None:
    """The acceptance check of issue 2, through the command line: `inspect --json`."""
    from prover.cli import main

    for name in NAMES:
        assert main(["inspect", "--json", "--no-target", "--ns", "closure", str(BENCH / name)]) == 0
        info = json.loads(capsys.readouterr().out)
        assert info["petri_net"] == {
            "places": EXPECTED[name]["reference_petri_places"],
            "transitions": EXPECTED[name]["reference_petri_transitions"],
        }, name
        ns = load_model(BENCH / name, ns="closure").ns
        edges = {tuple(e) for e in info["serial_automaton"]["edges"]}
        assert edges == _independent_serial_edges(ns), name
        assert info["serial_automaton"]["initial"] == ns.initial_global

