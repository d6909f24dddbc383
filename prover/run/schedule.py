"""What the pipeline runs after its cheap first attempts, from what they found.

Every engine first gets a cheap attempt: the explicit search a budget of states
(`FIRST_EXPLICIT_STATES` in decide.py), the reduction engine a budget of z3 resource
units (`PROBE_UNITS`, enough for every serializable idiom family at size 24 and for a
lock per account at 24 accounts). Then the rest of the budget goes where the evidence
points. A reduction that failed for a reason of the program (a step that is no mover, a
value it cannot bound) leaves the time to the searches and the proof engines on the
network system. A reduction that spent its budget still finding its invariant is far from
one Houdini round away: the wide search (a budget of states) of a program with many
global states comes first, since a counterexample there costs a fraction of the
reduction's second attempt (`REDUCTION_UNITS`), then that attempt, then the proof engines
and the searches. Every budget is a count (states, z3 resource units), so the schedule,
the verdict and the certificate do not depend on the machine's speed; the run's deadline
is the only wall-clock cut.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Stage = Literal["reduction", "wide-search", "proof", "search", "bmc"]

PROBE_UNITS = 40_000_000
"""z3 resource units of the reduction's cheap attempt. Measured: rwcount-24 decides in
11.6 M, buffer-24 in 6.3 M, backoff-24 in 7.0 M, seqlock-24 in 1.1 M, perlock-24 in 0.3 M,
locked-16 in 0.1 M (32 M, 8.3 M, 6 M, 1.3 M before Houdini asked under assumption
literals); a buggy twin that fails by a reason of the program spends less (rwcount-bug-24:
14.2 M)."""

REDUCTION_UNITS = 200_000_000
"""z3 resource units of the reduction's second attempt, when the first spent its budget
finding the invariant (it starts over on the same table)."""


@dataclass(frozen=True)
class Evidence:
    """What the cheap attempts found."""

    ser_program: bool  # per-variable steps exist: the wide search applies
    wide: bool  # the first search met many global states (decide.WIDE_GLOBALS)
    reduction: Literal["none", "failed", "finding", "after"]  # how the cheap attempt ended:
    # not run, a reason of the program, its budget spent finding the invariant, or after


def plan(e: Evidence, use_proofs: bool = True, searches: bool = True
         ) -> tuple[Stage, ...]:  # fmt: skip
    """The stages after the cheap attempts (none of which decided), in order; without
    `searches` (a part with holders: small), the proofs only, the network system's
    first."""
    again: tuple[Stage, ...] = ("reduction",) if use_proofs and e.reduction in (
        "finding", "after") else ()  # fmt: skip
    wide: tuple[Stage, ...] = ("wide-search",) if e.ser_program and e.wide else ()
    proof: tuple[Stage, ...] = ("proof",) if use_proofs else ()
    if not searches:
        return ("proof", "reduction") if use_proofs else ()
    return (*wide, *again, *proof, "search", "bmc")
