"""Symbolic bounded model checking (placeholder until the z3 encoding lands)."""

from __future__ import annotations

from dataclasses import dataclass

from prover.engines import Counterexample
from prover.ns import NetworkSystem
from prover.serial.automaton import SerialAutomaton


@dataclass(frozen=True)
class BmcResult:
    counterexample: Counterexample | None
    reason: str


def find_counterexample_bmc(
    ns: NetworkSystem,
    *,
    automaton: SerialAutomaton | None = None,
    deadline: float | None = None,
    lower_bound: int = 0,
) -> BmcResult:
    return BmcResult(None, "not implemented")
