"""Unbounded proofs of `G p`, p over the globals of a Ser program (docs/ltl.md).

The closure NS (ser-reference §2.4: every local state seen stepped at every global state
seen) holds every global state that any execution reaches, with any number of requests:
the set of its global states is an inductive invariant of the interleaving net. When p
holds in each of them, `G p` holds for every execution. The certificate names only the
formula; the checker builds the closure itself and evaluates p on each global state.
"""

from __future__ import annotations

from typing import Any

from prover.certificate.write import make_certificate, producer
from prover.errors import CompileError
from prover.frontend.load import load_model
from prover.ltl.formula import Formula, is_safety, is_state_formula
from prover.ltl.lasso import Observation, global_values, holds
from prover.ltl.reduce import visible

CLOSURE_STATES = 20_000
"""States of the closure the unbounded `G p` attempt builds at most (the checker explores
20,000): a closure that keeps growing (a counter of the requests inside) costs the
bounded search its time otherwise, 4 s of a ticket lock's 5 s."""


def over_globals(f: Formula) -> bool:
    """Whether `f` is a state formula (no temporal operator) that reads only globals."""
    return is_state_formula(f) and not visible(f)[1]


def always_certificate(path: str, text: str, formula: Formula,
                       state_bound: int) -> dict[str, Any] | None:
    """The `ltl_holds` certificate of `formula` (text `text`) for the model at `path`, or
    None when it is no `G p` over globals, the closure is too large, or p fails in one of
    its global states (the closure over-approximates: the bounded search decides then)."""
    if not (is_safety(formula) and over_globals(formula.arg)):
        return None
    try:
        model = load_model(path, state_bound=min(state_bound or CLOSURE_STATES,
                                                 CLOSURE_STATES), ns="closure")
    except CompileError:
        return None
    if model.ns.kind != "ser":
        return None
    for g in model.ns.global_states:
        if not holds(formula.arg, [Observation(global_values(g), {}, {})], 0):
            return None
    return make_certificate(model, "ltl_holds", "always", {"formula": text},
                            producer("ltl-closure"))
