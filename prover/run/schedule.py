"""What the pipeline runs after its cheap first attempts, from what they found.

Every engine first gets a cheap attempt: the explicit search a budget of states
(`FIRST_EXPLICIT_STATES` in pipeline.py), the reduction engine a budget of solver queries
(`PROBE_QUERIES`). Then the rest of the budget goes where the evidence points: a
reduction that spent its queries while still finding its invariant continues first, with
a larger budget of queries, before the wide search of a program with many global states
(which explores every execution of two requests and can take half of a minute); a
reduction that failed for a reason of the program leaves the time to the searches and the
proof engines on the network system. Every budget is a count (states, queries), so the
schedule, the verdict and the certificate do not depend on the machine's speed; the
run's deadline is the only wall-clock cut.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Stage = Literal["reduction", "wide-search", "proof", "search", "bmc"]

PROBE_QUERIES = 2_000
"""Solver queries of the reduction's cheap attempt: every serializable idiom family at
size 24 (bench/idioms.py), locked-16 and a lock per account at 16 accounts decide within
1,600."""

REDUCTION_QUERIES = 60_000
"""Solver queries of the reduction's second attempt, when the first one spent its
budget: the first attempt's queries are asked again (it starts over on the same table)."""


@dataclass(frozen=True)
class Evidence:
    """What the cheap attempts found."""

    ser_program: bool  # per-variable steps exist: the reduction engine and wide search apply
    wide: bool  # the first search met many global states (pipeline.WIDE_GLOBALS)
    reduction: Literal["none", "failed", "spent"]  # "none": it did not run


def plan(e: Evidence, use_proofs: bool = True) -> tuple[Stage, ...]:
    """The stages after the cheap attempts (none of which decided), in order."""
    first: tuple[Stage, ...] = ("reduction",) if use_proofs and e.reduction == "spent" else ()
    wide: tuple[Stage, ...] = ("wide-search",) if e.ser_program and e.wide else ()
    proof: tuple[Stage, ...] = ("proof",) if use_proofs else ()
    return (*first, *wide, *proof, "search", "bmc")
