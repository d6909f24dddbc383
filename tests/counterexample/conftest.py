"""Shared fixtures: the paper benchmarks (read in place, never copied) and a hand-built a2."""

from __future__ import annotations

import json
from pathlib import Path

from prover.ns import NetworkSystem, RequestEntry, ResponseEntry, Transition
from tests.benchmarks import PAPER, needs_paper

BENCH = PAPER
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def expected() -> dict[str, str]:
    if not (BENCH / "expected.json").exists():
        return {}
    data = json.loads((BENCH / "expected.json").read_text())
    return {name: row["expected"] for name, row in sorted(data.items())}


def bench_names(verdict: str) -> list[str]:
    return [n for n, v in expected().items() if v == verdict]


needs_bench = needs_paper

A2_BODY = "({}, X := 1; yield; y := X; X := 0; y)"
A2_MID = "({}, y := X; X := 0; y)"


def a2_ns() -> NetworkSystem:
    """ser-reference §2.4's worked example, built by hand."""
    return NetworkSystem.make(
        "{}",
        [RequestEntry("main", A2_BODY)],
        [ResponseEntry("({}, 0)", "0"), ResponseEntry("({y=1}, 1)", "1")],
        [
            Transition(A2_BODY, "{}", A2_MID, "{X=1}"),
            Transition(A2_BODY, "{X=1}", A2_MID, "{X=1}"),
            Transition(A2_MID, "{X=1}", "({y=1}, 1)", "{}"),
            Transition(A2_MID, "{}", "({}, 0)", "{}"),
        ],
        kind="ser",
    )
