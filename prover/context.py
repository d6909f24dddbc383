"""The objects of one run, built once each and only when first asked for.

Data flows one way: the model's NS, then its interleaving net and serial automaton, then
the serial set S and the non-serializable target built on them. Every engine of a run
reads them from one `RunContext`, so nothing is rebuilt behind a default argument, and
what a run never needs is never built: a walk-labelled proof (locked-walk) needs no S,
and S is what costs most on lock-based models (locked-06: more than 21,000 components).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property, partial
from typing import TYPE_CHECKING

from prover.ns import NetworkSystem

if TYPE_CHECKING:  # built lazily: their modules are imported when first needed
    from prover.petri.net import PetriNet
    from prover.serial.automaton import SerialAutomaton
    from prover.serial.parikh import SerialSet
    from prover.target import Target


@dataclass(frozen=True)
class RunContext:
    """`ns` is built by `build` when first read (a Ser program's engines that read its
    per-variable steps never read it)."""

    build: Callable[[], NetworkSystem]

    @cached_property
    def ns(self) -> NetworkSystem:
        return self.build()

    @property
    def ns_built(self) -> bool:
        return "ns" in self.__dict__

    @classmethod
    def of(
        cls,
        ns: NetworkSystem,
        *,
        net: PetriNet | None = None,
        automaton: SerialAutomaton | None = None,
        serial_set: SerialSet | None = None,
        target: Target | None = None,
    ) -> RunContext:
        """A context whose objects are the given ones where given (a caller that built
        some already, e.g. a test or a benchmark), built on demand otherwise."""
        run = cls(partial(_given, ns))
        given = {"ns": ns, "net": net, "automaton": automaton, "serial_set": serial_set,
                 "target": target}
        run.__dict__.update({k: v for k, v in given.items() if v is not None})
        return run

    @cached_property
    def net(self) -> PetriNet:
        from prover.petri.build import build_interleaving_net

        return build_interleaving_net(self.ns)

    @cached_property
    def automaton(self) -> SerialAutomaton:
        from prover.serial.automaton import build_serial_automaton

        return build_serial_automaton(self.ns)

    @cached_property
    def serial_set(self) -> SerialSet:
        """S as simple linear sets with witnesses, over the reachable automaton (raises
        the serial-set module's TooLarge when it cannot be built within its budgets)."""
        from prover.serial.parikh import compute_serial_set

        return compute_serial_set(self.automaton.reachable())

    @cached_property
    def target(self) -> Target:
        """The quiescent markings outside S, in clause form only (the engines never need
        the DNF split, which can be large: c2 has 420 disjuncts, g2 more than 4096)."""
        from prover.target import build_target

        return build_target(self.net, self.serial_set, split=False)


def _given(ns: NetworkSystem) -> NetworkSystem:
    return ns
