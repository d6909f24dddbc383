"""Walk-labelled refutation (DESIGN.md, "Walk-labelled proofs"): the prover's side.

A walk-labelled proof names, among its invariant's auxiliary variables, edge counters
y_e, end indicators z_g and (for cyclic walks) ranks d_g of the serial automaton, and
carries no serial set. The checker writes Walk(y, z, d) ∧ π(M) = labels(y) itself from
its own automaton; `walk_formula` writes the same constraints in the prover's formula
language, for the z3 self-check, so that a proof the checker would reject is caught
before it is written. `walk_json` is the certificate's `proof.walk` member.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from prover.petri.net import PetriNet
from prover.serial.automaton import SerialEdge
from prover.smt.formula import Aux, Formula, PlaceVar, Term, cmp, conj, const, disj, linear, neg


@dataclass(frozen=True)
class WalkNames:
    """Which aux variable counts which serial edge, marks which end state, ranks which
    state. Everything unnamed is 0 for the checker."""

    initial: str
    edges: tuple[tuple[SerialEdge, str], ...]
    ends: tuple[tuple[str, str], ...]
    ranks: tuple[tuple[str, str], ...] = ()


def walk_json(names: WalkNames) -> dict[str, Any]:
    out: dict[str, Any] = {
        "edges": [{"edge": e.as_list(), "aux": a} for e, a in names.edges],
        "ends": [{"state": s, "aux": a} for s, a in names.ends],
    }
    if names.ranks:
        out["ranks"] = [{"state": s, "aux": a} for s, a in names.ranks]
    return out


def topological(arcs: set[tuple[str, str]]) -> list[str] | None:
    """The nodes of the arcs in a topological order (Kahn), or None if there is a cycle;
    the same order as the checker's."""
    indeg: dict[str, int] = {}
    succ: dict[str, list[str]] = {}
    for a, b in sorted(arcs):
        indeg[b] = indeg.get(b, 0) + 1
        succ.setdefault(a, []).append(b)
    order = [a for a in succ if a not in indeg]
    for a in order:
        for b in succ.get(a, []):
            indeg[b] -= 1
            if not indeg[b]:
                order.append(b)
    return None if any(indeg.values()) else order


def walk_formula(names: WalkNames, net: PetriNet) -> Formula:
    """Walk(y, z, d) ∧ π(M) = labels(y), as the checker writes it (docs/certificates.md)."""
    init = names.initial
    y: dict[SerialEdge, Term] = {e: Aux(a) for e, a in names.edges}
    z = {s: Aux(a) for s, a in names.ends}
    d: dict[str, Term] = {s: Aux(a) for s, a in names.ranks}

    def used(vs: Sequence[Term]) -> Formula:
        return cmp(">=", linear((1, v) for v in vs), const(1))

    parts: list[Formula] = [cmp(">=", v, const(0)) for v in [*y.values(), *z.values()]]
    parts.append(cmp("=", linear((1, v) for v in z.values()), const(1)))
    out: dict[str, list[SerialEdge]] = {}
    into: dict[str, list[SerialEdge]] = {}
    for e in y:
        out.setdefault(e.source, []).append(e)
        into.setdefault(e.target, []).append(e)
    for s in sorted({init, *z, *out, *into}):
        flow = [(1, y[e]) for e in out.get(s, [])] + [(-1, y[e]) for e in into.get(s, [])]
        parts.append(cmp("=", linear([*flow, (1, z.get(s, const(0)))]), const(int(s == init))))
    # connectivity: ranks from the certificate, or a topological order on acyclic edges
    order = topological({(e.source, e.target) for e in y if e.source != e.target})
    if order is not None:
        d = {s: const(i) for i, s in enumerate(order)}
    for s in sorted({*out, *into} - {init}):
        touch = [y[e] for e in out.get(s, []) + into.get(s, [])]
        opts = [conj([used([y[e]]), cmp("<", d.get(e.source, const(0)), d.get(s, const(0)))])
                for e in into.get(s, []) if e.source != s]
        parts.append(disj([neg(used(touch)), *opts]))
    labels: dict[tuple[str, str], list[tuple[int, Term]]] = {}
    for e, v in y.items():
        labels.setdefault((e.request, e.response), []).append((1, v))
    resp: dict[tuple[str, str], Term] = {
        (p.request or "", p.state): PlaceVar(p) for p in net.places if p.kind == "response"
    }
    for k in sorted(labels.keys() | resp.keys()):
        parts.append(cmp("=", resp.get(k, const(0)), linear(labels.get(k, []))))
    return conj(parts)
