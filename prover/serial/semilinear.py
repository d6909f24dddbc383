"""Semilinear sets with walk witnesses (construction of S in progress)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from prover.serial.automaton import SerialAutomaton
    from prover.serial.parikh import SimpleLinearSet, Vector


def in_simple_linear_set(x: Vector, base: Vector, periods: tuple[Vector, ...]) -> bool:
    raise NotImplementedError


def build_components(automaton: SerialAutomaton) -> tuple[SimpleLinearSet, ...]:
    raise NotImplementedError
