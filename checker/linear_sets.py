"""Serial sets as simple linear sets (DESIGN.md, trust contract 4), imported only by proofs
that carry one: each component's witnesses (a walk and circulations of the checker's own
serial automaton, by arithmetic and graph search), non-membership, quantifier-free."""

from __future__ import annotations

from math import gcd
from typing import Any

from checker.errors import invalid
from checker.formula import Smt
from checker.net import Place
from checker.semantics import Vector
from checker.serial import Edge
from checker.serial_model import Json, Model, known, vector, vtext


def _rows(periods: list[Vector], coords: list[tuple[str, str]]) -> list[dict[int, int]]:
    """Periods as sparse integer rows over the positions of coords (zeros dropped)."""
    pos = {k: j for j, k in enumerate(coords)}
    return [{pos[k]: c for k, c in p.items() if k in pos and c} for p in periods]


def _reduce(rows: list[dict[int, int]]) -> list[tuple[int, dict[int, int]]]:
    """Fraction-free Gauss-Jordan on sparse integer rows: (pivot column, row) for each
    independent row, each zero at every other pivot. Columns are taken in ascending order,
    so column j is a pivot iff it is not in the span of the columns before it."""
    todo = [r for r in rows if r]
    done: list[tuple[int, dict[int, int]]] = []
    for col in sorted({j for r in rows for j in r}):
        if not todo:
            break
        # rows never hold a zero entry, so `col in row` means row[col] != 0; only those
        # rows change (in place: the order of the others is the order of the rows)
        hits = [i for i, row in enumerate(todo) if col in row]
        if hits:
            piv = todo.pop(hits[0])
            for i in hits[1:]:
                todo[i - 1] = _cancel(todo[i - 1], piv, col)
            if len(hits) > 1:
                todo = [row for row in todo if row]
            for n in [n for n, (_, row) in enumerate(done) if col in row]:
                done[n] = (done[n][0], _cancel(done[n][1], piv, col))
            done.append((col, piv))
    return done


def _cancel(row: dict[int, int], piv: dict[int, int], col: int) -> dict[int, int]:
    """piv[col]·row − row[col]·piv (zero at col, no division), divided by its content."""
    if not row.get(col):
        return row
    a, f = piv[col], row[col]
    new = {j: a * row.get(j, 0) - f * piv.get(j, 0) for j in row.keys() | piv.keys()}
    g = gcd(*new.values())  # 0 only if every entry is, and then none is divided
    return {j: x // g for j, x in new.items() if x}


def _inverse(a: list[dict[int, int]]) -> list[tuple[dict[int, int], int]]:
    """Rows of a⁻¹ (a invertible, k x k) as (L, D): row i is L / D with D > 0 minimal."""
    k = len(a)
    out: list[tuple[dict[int, int], int]] = []
    for i, row in _reduce([r | {k + j: 1} for j, r in enumerate(a)]):
        g = gcd(*row.values()) * (-1 if row[i] < 0 else 1)
        out.append(({j - k: x // g for j, x in row.items() if j >= k}, row[i] // g))
    return out


def _resolve_edges(m: Model, part: Json, where: str) -> dict[Edge, int]:
    flow: dict[Edge, int] = {}
    for e in part["edges"]:
        g, r, v, g2 = edge = tuple(e["edge"])
        for s in (g, g2):
            known("state", s, frozenset(m.aut.states), where)
        known("request", r, m.requests, where)
        known("response", v, m.responses, where)
        if edge not in m.aut.edges:
            raise invalid("E-WITNESS", f"{where}: {list(edge)} is not a serial-automaton edge")
        flow[edge] = e["count"]
    return flow


def _labels(flow: dict[Edge, int]) -> Vector:
    out: Vector = {}
    for (_, r, v, _), c in flow.items():
        out[(r, v)] = out.get((r, v), 0) + c
    return out


def _imbalance(flow: dict[Edge, int]) -> dict[str, int]:
    """out-degree minus in-degree, per state, zeros dropped."""
    bal: dict[str, int] = {}
    for (g, _, _, g2), c in flow.items():
        bal[g] = bal.get(g, 0) + c
        bal[g2] = bal.get(g2, 0) - c
    return {s: d for s, d in bal.items() if d != 0}


def _components(flow: dict[Edge, int]) -> list[set[str]]:
    """Weakly connected components of the support, by union-find."""
    parent: dict[str, str] = {}

    def find(s: str) -> str:
        while parent.setdefault(s, s) != s:
            s = parent[s]
        return s

    for g, _, _, g2 in flow:
        parent[find(g)] = find(g2)
    groups: dict[str, set[str]] = {}
    for s in list(parent):
        groups.setdefault(find(s), set()).add(s)
    return list(groups.values())


def check_component(m: Model, i: int, comp: Json) -> str:
    where = f"component {i}"
    keys = {(p[1], p[2]) for p in m.net.places if p[0] == "response"}
    vecs = [vector(comp["base"], where)] + [vector(p, where) for p in comp["periods"]]
    if wrong := [k for v in vecs for k in v if k not in keys]:
        raise invalid("E-NAME", f"{where}: {wrong[0][0]}/{wrong[0][1]} is not a Response place")
    base, periods = vecs[0], vecs[1:]
    if len(_reduce(_rows(periods, sorted(keys)))) < len(periods):
        raise invalid("E-WITNESS", f"{where}: periods are linearly dependent")
    init, end = m.aut.initial, comp["walk"]["end"]
    known("state", end, frozenset(m.aut.states), where)
    walk = _resolve_edges(m, comp["walk"], f"{where} walk")
    if _labels(walk) != base:
        raise invalid("E-WITNESS", f"{where}: walk labels {vtext(_labels(walk))} != base")
    want = {} if end == init else {init: 1, end: -1}
    if _imbalance(walk) != want:
        raise invalid("E-WITNESS", f"{where}: walk is not balanced as a walk {init} -> {end}")
    parts = _components(walk)
    if walk and (len(parts) != 1 or init not in parts[0]):
        raise invalid("E-WITNESS", f"{where}: walk support not connected to the initial state")
    anchor = {init}.union(*parts)
    for j, (p, circ) in enumerate(zip(periods, comp["circulations"], strict=True)):
        flow = _resolve_edges(m, circ, f"{where} circulation {j}")
        if _labels(flow) != p:
            raise invalid("E-WITNESS", f"{where}: circulation {j} labels != period {j}")
        if _imbalance(flow):
            raise invalid("E-WITNESS", f"{where}: circulation {j} is not balanced")
        if any(not (c & anchor) for c in _components(flow)):
            raise invalid("E-WITNESS", f"{where}: circulation {j} does not touch the walk")
    return f"{len(periods)} independent periods, witnesses check"


def not_member(smt: Smt, mvar: dict[Place, Any], resp: list[Place], comps: Json, c: int) -> Any:
    """π(M) ∉ b + N·p1 + … + N·pk, quantifier-free (periods independent, checked before).

    n = B⁻¹ (v − b)_R on k independent coordinates R; n_i = L_i / D_i with integer L_i;
    fresh q_i, r_i: L_i = D_i q_i + r_i, 0 ≤ r_i < D_i fix q_i = ⌊L_i / D_i⌋ uniquely, so
    membership ⟺ all r_i = 0 ∧ q ≥ 0 ∧ v − b = P q, and its negation needs no quantifier.
    Where D_i = 1, q_i is the term L_i itself (no r_i): fewer variables for the solver.
    """
    comp = comps[c]
    coords = [(p[1], p[2]) for p in resp]
    b = vector(comp["base"], "base")
    periods = [vector(p, "period") for p in comp["periods"]]
    diff = [smt.lin([(1, mvar[p]), (-b.get((p[1], p[2]), 0), smt.const(1))]) for p in resp]
    if not periods:
        return smt.disj([smt.neg(smt.cmp("=", d, smt.const(0))) for d in diff])
    rows = _rows(periods, coords)
    pivots = [j for j, _ in _reduce(rows)]
    inv = _inverse([{i: r[j] for i, r in enumerate(rows) if j in r} for j in pivots])
    cons, bad, q = [], [], []
    for i, (row, d) in enumerate(inv):
        li = smt.lin([(row.get(n, 0), diff[j]) for n, j in enumerate(pivots)])
        if d == 1:  # n_i = L_i is an integer term already: no fresh variables needed
            bad.append(smt.cmp("<", li, smt.const(0)))
            q.append(li)
            continue
        qi, ri = smt.var(f"q_{c}_{i}"), smt.var(f"r_{c}_{i}")
        cons.append(smt.cmp("=", li, smt.lin([(d, qi), (1, ri)])))
        cons += [smt.cmp(">=", ri, smt.const(0)), smt.cmp("<", ri, smt.const(d))]
        bad += [smt.neg(smt.cmp("=", ri, smt.const(0))), smt.cmp("<", qi, smt.const(0))]
        q.append(qi)
    cols: dict[tuple[str, str], list[tuple[int, Any]]] = {}  # (P q)_k: its terms, sparse
    for p, qi in zip(periods, q, strict=True):
        for k, n in p.items():
            cols.setdefault(k, []).append((n, qi))
    for j, k in enumerate(coords):
        bad.append(smt.neg(smt.cmp("=", diff[j], smt.lin(cols.get(k, [])))))
    return smt.conj([*cons, smt.disj(bad)])
