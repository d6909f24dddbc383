"""The `proof` evidence of a certificate: the serial set S with its witnesses and the
inductive invariant with its witness updates (docs/certificates.md, "Proof")."""

from __future__ import annotations

from typing import Any

from prover.petri.net import NetTransition, PetriNet
from prover.serial.parikh import SerialSet, serial_set_to_json
from prover.serial.walk import WalkNames, walk_json
from prover.smt.formula import formula_json, term_json
from prover.smt.invariant import Invariant


def transition_json(t: NetTransition) -> dict[str, Any]:
    if t.kind == "spawn":
        return {"kind": "spawn", "request": t.request, "local": t.local}
    if t.kind == "respond":
        return {"kind": "respond", "request": t.request, "local": t.local, "response": t.response}
    return {
        "kind": "step",
        "request": t.request,
        "from": [t.local, t.global_],
        "to": [t.to_local, t.to_global],
    }


def invariant_json(net: PetriNet, inv: Invariant) -> dict[str, Any]:
    out = {
        "aux": list(inv.aux),
        "initial_aux": dict(inv.initial_aux),
        "formula": formula_json(inv.formula),
        "updates": [
            {
                "transition": transition_json(net.transitions[ti]),
                "assign": {name: term_json(term) for name, term in assign},
            }
            for ti, assign in inv.updates
            if assign
        ],
    }
    if inv.hints:  # one entry per transition, with a check per hint
        checks: dict[int, list[dict[str, list[int]]]] = {}
        for ti, prove, using in inv.hints:
            checks.setdefault(ti, []).append({"prove": list(prove), "from": list(using)})
        out["hints"] = [{"transition": transition_json(net.transitions[ti]), "checks": c}
                        for ti, c in sorted(checks.items())]
    return out


def proof_evidence(
    net: PetriNet,
    serial_set: SerialSet | None,
    inv: Invariant,
    pairs: tuple[tuple[str, str], ...] | None = None,
    *,
    walk: WalkNames | None = None,
) -> dict[str, Any]:
    """`{"pairs"?, "serial_set" | "walk": ..., "invariant": ...}` in the key order of the
    contract. `pairs` (the restricted NS's P, sorted) is written only for a restricted NS:
    without it the checker builds the closure. A walk-labelled proof (`walk`) carries no
    serial set: the checker writes the walk constraints from its own automaton."""
    out: dict[str, Any] = {}
    if pairs is not None:
        out["pairs"] = [[loc, glo] for loc, glo in sorted(pairs)]
    if walk is not None:
        out["walk"] = walk_json(walk)
    elif serial_set is not None:
        out["serial_set"] = serial_set_to_json(serial_set)
    else:
        raise ValueError("a proof needs a serial set or walk variables")
    out["invariant"] = invariant_json(net, inv)
    return out
