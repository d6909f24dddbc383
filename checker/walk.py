"""Walk-labelled proofs (DESIGN.md, "Walk-labelled proofs"): the walk constraints
Walk(y, z, d) ∧ π(M) = labels(y), written by the checker from its own serial automaton.

Imported only by proofs that name walk variables.
"""

from __future__ import annotations

from typing import Any

from checker.errors import invalid
from checker.formula import Smt
from checker.net import Place
from checker.serial import Edge
from checker.serial_model import Json, Model, known


def walk_constraints(m: Model, w: Json, smt: Smt, mvar: dict[Place, Any],
                     xvar: dict[str, Any]) -> Any:
    """Walk(y, z, d) ∧ π(M) = labels(y) over the variables the certificate names, written
    from the checker's own automaton (docs/certificates.md, walk-labelled proofs); an edge,
    end or rank it does not name is 0 (a walk that avoids them is still a walk)."""
    aut, init = m.aut, m.aut.initial
    y: dict[Edge, Any] = {}
    for e in w["edges"]:
        if (edge := tuple(e["edge"])) not in aut.edges:
            raise invalid("E-NAME", f"walk: {list(edge)} is not a serial-automaton edge")
        y[edge] = xvar[e["aux"]]
    z, d = ({s["state"]: xvar[s["aux"]] for s in w.get(k, [])} for k in ("ends", "ranks"))
    for s in [*z, *d]:
        known("state", s, aut.states, "walk")
    zero, one = smt.const(0), smt.const(1)

    def used(vs: list[Any]) -> Any:
        return smt.cmp(">=", smt.lin([(1, v) for v in vs]), one)

    parts = [smt.cmp(">=", v, zero) for v in [*y.values(), *z.values()]]  # with Σ z = 1: z ≤ 1
    parts.append(smt.cmp("=", smt.lin([(1, v) for v in z.values()]), one))
    out: dict[str, list[Edge]] = {}
    into: dict[str, list[Edge]] = {}
    for e in y:
        out.setdefault(e[0], []).append(e)
        into.setdefault(e[3], []).append(e)
    for s in sorted({init, *z, *out, *into}):  # out − in = [s = init] − z_s
        flow = [(1, y[e]) for e in out.get(s, [])] + [(-1, y[e]) for e in into.get(s, [])]
        parts.append(smt.cmp("=", smt.lin([*flow, (1, z.get(s, zero))]), smt.const(int(s == init))))
    # Connectivity: a state a used edge touches is init or entered by a used edge from a
    # state of smaller rank; on acyclic named edges the ranks are a topological order.
    order = _topological({(e[0], e[3]) for e in y if e[0] != e[3]})
    if order is not None:
        d = {s: smt.const(i) for i, s in enumerate(order)}
    for s in sorted({*out, *into} - {init}):
        touch = [y[e] for e in out.get(s, []) + into.get(s, [])]
        opts = [smt.conj([used([y[e]]), smt.cmp("<", d.get(e[0], zero), d.get(s, zero))])
                for e in into.get(s, []) if e[0] != s]
        parts.append(smt.disj([smt.neg(used(touch)), *opts]))
    labels: dict[tuple[str, str], list[tuple[int, Any]]] = {}
    for e, v in y.items():
        labels.setdefault((e[1], e[2]), []).append((1, v))
    resp = {(p[1], p[2]): mvar[p] for p in m.net.places if p[0] == "response"}
    for k in sorted(labels.keys() | resp.keys()):
        parts.append(smt.cmp("=", resp.get(k, zero), smt.lin(labels.get(k, []))))
    return smt.conj(parts)


def _topological(arcs: set[tuple[str, str]]) -> list[str] | None:
    """The nodes of the arcs in a topological order (Kahn), or None if there is a cycle."""
    indeg: dict[str, int] = {}
    succ: dict[str, list[str]] = {}
    for a, b in sorted(arcs):
        indeg[b] = indeg.get(b, 0) + 1
        succ.setdefault(a, []).append(b)
    order = [a for a in succ if a not in indeg]
    for a in order:  # grows while it is read
        for b in succ.get(a, []):
            indeg[b] -= 1
            if not indeg[b]:
                order.append(b)
    return None if any(indeg.values()) else order
