"""Which requests of a Ser program a counterexample needs to combine.

Two reductions of the explicit search's spawns (prover/engines/explicit.py), read off the
syntax of the handlers:

1. **Interaction groups.** A handler's static footprint is every global its body names:
   the ones it may read and the ones it may write. Two handlers *conflict* when one may
   write a global the other names. The groups are the connected components of this
   relation. Take a finished execution whose requests come from two sets of groups A and
   B. Steps of A never read what B writes and vice versa, so the execution's projection
   on A is a finished execution of A's requests alone (each step sees the same values),
   and likewise for B. If both projections' multisets were serial, running A's serial
   execution and then B's would be serial (B's steps read nothing A writes, so they run
   as from the initial state) and give the whole multiset. So a non-serial multiset has a
   non-serial projection on one group, with no more requests: every counterexample with
   k requests gives one with at most k requests *inside one group*, and a search that
   combines requests of one group only loses no shortest counterexample.
2. **Twins.** Handlers with the same initial local states (the same body) take the same
   steps and give the same responses; only their names differ. Renaming every twin to
   the first of its kind maps executions to executions, and a multiset to one that is
   serial exactly when it is (a serial execution of the renamed multiset is one of the
   original once the runs are named back, matching responses). So spawning the first of
   each kind only loses no counterexample either, and keeps the number of requests.

Both keep the layered search's claims: a counterexample with k requests still appears
in layer k or earlier, and no counterexample is lost when a layer is exhausted.
"""

from __future__ import annotations

from collections.abc import Sequence

from prover.frontend import ast
from prover.frontend.parts import Names, names, partition

__all__ = ["Names", "WIDE_GROUP", "groups", "names", "twins"]

WIDE_GROUP = 8
"""Requests one interaction group spawns from which a round of `find_counterexample`
first searches the executions of one request alone, on a quarter of its state budget:
with many requests that all interact, every layer holds every pair of them, while a bug
of one request needs only its own instances (200 distinct lost updates of one global:
one layer of pairs is 180,000 states, the bug of one of them is found in a few hundred).
No paper benchmark has a group this wide. An explanation of a counterexample of such a
group explores the serial executions of its own requests only
(prover/certificate/explain.py)."""


def groups(program: ast.Program) -> dict[str, int]:
    """Each request's interaction group: the index of the first request of its connected
    component of the conflict relation (deterministic: program order), the independent
    parts of prover/frontend/parts.py."""
    first = {r.name: i for i, r in reversed(list(enumerate(program.requests)))}
    return {name: first[part[0]] for part in partition(program) for name in part}


def twins(entries: Sequence[tuple[str, str]]) -> dict[str, str]:
    """Each request's representative: the first request with the same initial local
    states (for a Ser program its one start, the whole body as text; a network system
    may give a request several)."""
    starts: dict[str, set[str]] = {}
    for request, start in entries:
        starts.setdefault(request, set()).add(start)
    first: dict[tuple[str, ...], str] = {}
    return {r: first.setdefault(tuple(sorted(ss)), r) for r, ss in starts.items()}
