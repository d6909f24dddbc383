"""Helpers for the serial-set tests: benchmark loading, hand-built automata, and
independent oracles (brute-force serial membership, witness checks, exact
simple-linear-set membership) written for the tests only."""

from __future__ import annotations

import itertools
import json
from collections import defaultdict
from fractions import Fraction
from functools import cache
from pathlib import Path

import pytest

from prover.ns import NetworkSystem, RequestEntry, ResponseEntry, Transition
from prover.serial.automaton import SerialAutomaton, SerialEdge, build_serial_automaton
from prover.serial.parikh import SerialSet, SimpleLinearSet, serial_set_to_json
from prover.target import Conjunction, Var
from tests.benchmarks import PAPER, SCALE, needs_paper

BENCH_DIR = PAPER
SCALE_DIR = SCALE
needs_bench = needs_paper


def benchmark_names() -> list[str]:
    if not BENCH_DIR.is_dir():
        return []
    return sorted(
        p.name
        for p in BENCH_DIR.iterdir()
        if p.suffix in (".ser", ".json") and p.name != "expected.json"
    )


def _ns_from_json(path: Path) -> NetworkSystem:
    d = json.loads(path.read_text())
    return NetworkSystem.make(
        d["initial_global"],
        [RequestEntry(*r) for r in d["requests"]],
        [ResponseEntry(*r) for r in d["responses"]],
        [Transition(*t) for t in d["transitions"]],
    )


@cache
def load_ns(name: str) -> NetworkSystem:
    path = BENCH_DIR / name
    try:
        from prover.frontend.load import load_model
    except ImportError:  # front end not there yet: only the JSON benchmarks
        if path.suffix == ".json":
            return _ns_from_json(path)
        pytest.skip("front end not available")
    return load_model(path).ns


@cache
def load_automaton(name: str) -> SerialAutomaton:
    return build_serial_automaton(load_ns(name))


def automaton(initial: str, edges: list[tuple[str, str, str, str]]) -> SerialAutomaton:
    es = tuple(sorted(SerialEdge(*e) for e in edges))
    states = [initial] + [s for e in es for s in (e.source, e.target)]
    return SerialAutomaton(initial, tuple(dict.fromkeys(states)), es)


# ---- oracles --------------------------------------------------------------------------

Vec = tuple[int, ...]


def serial_vectors_upto(
    aut: SerialAutomaton, labels: tuple[tuple[str, str], ...], n: int
) -> set[Vec]:
    """Label vectors of all walks of length ≤ n from the initial state (BFS)."""
    idx = {lab: i for i, lab in enumerate(labels)}
    frontier = {(aut.initial, (0,) * len(labels))}
    seen = set(frontier)
    for _ in range(n):
        nxt = set()
        for s, v in frontier:
            for e in aut.edges:
                if e.source == s:
                    w = list(v)
                    w[idx[(e.request, e.response)]] += 1
                    cfg = (e.target, tuple(w))
                    if cfg not in seen:
                        seen.add(cfg)
                        nxt.add(cfg)
        frontier = nxt
    return {v for _, v in seen}


def is_serial(aut: SerialAutomaton, labels: tuple[tuple[str, str], ...], x: Vec) -> bool:
    """Brute-force: is there a walk from the initial state with label counts x?"""
    idx = {lab: i for i, lab in enumerate(labels)}
    out = defaultdict(list)
    for e in aut.edges:
        out[e.source].append((idx[(e.request, e.response)], e.target))
    failed: set[tuple[str, Vec]] = set()

    def go(s: str, rest: Vec) -> bool:
        if not any(rest):
            return True
        if (s, rest) in failed:
            return False
        for i, t in out[s]:
            if rest[i] > 0:
                r = list(rest)
                r[i] -= 1
                if go(t, tuple(r)):
                    return True
        failed.add((s, rest))
        return False

    return go(aut.initial, x)


def _rank(rows: list[list[Fraction]]) -> int:
    m = [list(r) for r in rows]
    rk = 0
    ncols = len(m[0]) if m else 0
    for c in range(ncols):
        piv = next((i for i in range(rk, len(m)) if m[i][c] != 0), None)
        if piv is None:
            continue
        m[rk], m[piv] = m[piv], m[rk]
        for i in range(len(m)):
            if i != rk and m[i][c] != 0:
                f = m[i][c] / m[rk][c]
                m[i] = [a - f * b for a, b in zip(m[i], m[rk], strict=False)]
        rk += 1
    return rk


class SimpleMember:
    """Exact membership in b + N·P (P independent) by an exact rational solve; the
    inverse of a maximal invertible row block is precomputed."""

    def __init__(self, c: SimpleLinearSet) -> None:
        self.b = c.base
        self.P = c.periods
        k = len(self.P)
        d = len(self.b)
        self.support = {i for i in range(d) if self.b[i] or any(p[i] for p in self.P)}
        # choose rows greedily
        rows: list[int] = []
        for i in range(d):
            cand = rows + [i]
            if _rank([[Fraction(p[j]) for p in self.P] for j in cand]) == len(cand):
                rows.append(i)
            if len(rows) == k:
                break
        assert len(rows) == k, "periods not independent"
        self.rows = rows
        a = [[Fraction(self.P[j][r]) for j in range(k)] for r in rows]
        # invert a by Gauss-Jordan
        inv = [[Fraction(int(i == j)) for j in range(k)] for i in range(k)]
        for c in range(k):
            piv = next(i for i in range(c, k) if a[i][c] != 0)
            a[c], a[piv] = a[piv], a[c]
            inv[c], inv[piv] = inv[piv], inv[c]
            f = a[c][c]
            a[c] = [x / f for x in a[c]]
            inv[c] = [x / f for x in inv[c]]
            for i in range(k):
                if i != c and a[i][c] != 0:
                    g = a[i][c]
                    a[i] = [x - g * y for x, y in zip(a[i], a[c], strict=False)]
                    inv[i] = [x - g * y for x, y in zip(inv[i], inv[c], strict=False)]
        self.inv = inv

    def __contains__(self, x: Vec) -> bool:
        if any(xi < bi for xi, bi in zip(x, self.b, strict=False)):
            return False
        if any(x[i] for i in range(len(x)) if i not in self.support):
            return False
        y = [xi - bi for xi, bi in zip(x, self.b, strict=False)]
        yr = [y[r] for r in self.rows]
        lam = [sum(self.inv[i][j] * yr[j] for j in range(len(yr))) for i in range(len(yr))]
        if any(v < 0 or v.denominator != 1 for v in lam):
            return False
        return all(
            sum(lam[j] * self.P[j][i] for j in range(len(lam))) == y[i] for i in range(len(y))
        )


def members(s: SerialSet) -> list[SimpleMember]:
    return [SimpleMember(c) for c in s.components]


def in_s(ms: list[SimpleMember], x: Vec) -> bool:
    return any(x in m for m in ms)


def vectors_upto(d: int, n: int) -> list[Vec]:
    out: list[Vec] = []
    for total in range(n + 1):
        for combo in itertools.combinations_with_replacement(range(d), total):
            v = [0] * d
            for i in combo:
                v[i] += 1
            out.append(tuple(v))
    return out


def check_component(
    aut: SerialAutomaton, labels: tuple[tuple[str, str], ...], c: SimpleLinearSet
) -> None:
    """The certificate's conditions on one component (docs/certificates.md)."""
    idx = {lab: i for i, lab in enumerate(labels)}
    edges = set(aut.edges)
    d = len(labels)
    # periods non-zero, independent
    assert all(any(p) for p in c.periods)
    if c.periods:
        assert _rank([[Fraction(x) for x in p] for p in c.periods]) == len(c.periods)
    assert len(c.circulations) == len(c.periods)

    def labcount(es: tuple) -> Vec:
        v = [0] * d
        for e, n in es:
            v[idx[(e.request, e.response)]] += n
        return tuple(v)

    def balance(es: tuple) -> dict[str, int]:
        b: dict[str, int] = defaultdict(int)
        for e, n in es:
            b[e.target] += n
            b[e.source] -= n
        return {k: v for k, v in b.items() if v}

    def components(es: tuple) -> list[set[str]]:
        adj: dict[str, set[str]] = defaultdict(set)
        for e, _ in es:
            adj[e.source].add(e.target)
            adj[e.target].add(e.source)
        seen: set[str] = set()
        comps = []
        for s in sorted(adj):
            if s in seen:
                continue
            comp = {s}
            todo = [s]
            while todo:
                u = todo.pop()
                for w in adj[u]:
                    if w not in comp:
                        comp.add(w)
                        todo.append(w)
            seen |= comp
            comps.append(comp)
        return comps

    w = c.walk.edges
    assert all(e in edges and n >= 1 for e, n in w)
    assert len({e for e, _ in w}) == len(w)
    assert labcount(w) == c.base
    bal = balance(w)
    if c.walk.end == aut.initial:
        assert bal == {}
    else:
        assert bal == {aut.initial: -1, c.walk.end: 1}
    walk_states = {s for e, _ in w for s in (e.source, e.target)}
    if w:
        comps = components(w)
        assert len(comps) == 1 and aut.initial in comps[0]
    else:
        assert c.walk.end == aut.initial and not any(c.base)
    for circ, p in zip(c.circulations, c.periods, strict=False):
        ce = circ.edges
        assert ce and all(e in edges and n >= 1 for e, n in ce)
        assert labcount(ce) == p
        assert balance(ce) == {}
        for comp in components(ce):
            assert comp & walk_states or aut.initial in comp


def holds(d: Conjunction, marking: list[int]) -> bool:
    """Exact evaluation, fresh variables existential (each occurs in one or two
    constraints of the disjunct and in no other variable's constraints)."""
    bounds: dict[Var, list[float]] = {}
    for c in d.constraints:
        rest = c.constant + sum(k * marking[v.index] for v, k in c.coeffs if v.kind == "place")
        fr = [(v, k) for v, k in c.coeffs if v.kind == "fresh"]
        if not fr:
            if not (rest == 0 if c.relation == "=" else rest >= 0):
                return False
            continue
        assert len(fr) == 1
        q, k = fr[0]
        lo, hi = bounds.setdefault(q, [float("-inf"), float("inf")])
        if c.relation == "=":
            if (-rest) % k:
                return False
            val = -rest // k
            lo, hi = max(lo, val), min(hi, val)
        elif k > 0:
            lo = max(lo, -(rest // k))  # ceil(-rest / k)
        else:
            hi = min(hi, rest // -k)  # floor(rest / -k)
        bounds[q] = [lo, hi]
    return all(lo <= hi for lo, hi in bounds.values())


# ---- the two checks every construction of S must pass ----------------------------------


def exact_upto(aut: SerialAutomaton, s: SerialSet, n: int) -> None:
    """Every component's witnesses are valid and S ∩ {size ≤ n} = Ser ∩ {size ≤ n}."""
    for c in s.components:
        check_component(aut, s.labels, c)
    ser = serial_vectors_upto(aut, s.labels, n)
    ms = members(s)
    for v in vectors_upto(len(s.labels), n):
        assert (v in ser) == in_s(ms, v), (v, v in ser)


def _ns_json(aut: SerialAutomaton) -> str:
    """A network system whose serial automaton is `aut`: request r starts at local
    `r.start`, one step per edge g --r/v--> g' to local `r.v`, which answers v (plus a
    request that never answers, so that no list is empty)."""
    requests = sorted({e.request for e in aut.edges} | {"idle"})
    responses = sorted({(f"{e.request}.{e.response}", e.response) for e in aut.edges})
    transitions = sorted(
        {(f"{e.request}.start", e.source, f"{e.request}.{e.response}", e.target) for e in aut.edges}
    )
    return json.dumps(
        {
            "initial_global": aut.initial,
            "requests": [[r, f"{r}.start"] for r in requests],
            "responses": [list(r) for r in responses] + [["idle.done", "none"]],
            "transitions": [list(t) for t in transitions],
        }
    )


def checker_accepts(aut: SerialAutomaton, s: SerialSet) -> None:
    """The trusted checker's own witness check accepts every component of S."""
    try:
        from checker.linear_sets import check_component as checker_check
        from checker.semantics import explore, semantics
        from checker.serial_model import make_model
    except ImportError:  # pragma: no cover - checker not there
        pytest.skip("checker not available")
    m = make_model(explore(semantics("ns-json", _ns_json(aut))))
    assert set(m.aut.edges) == {tuple(e.as_list()) for e in aut.edges}
    comps = serial_set_to_json(s)["components"]
    assert isinstance(comps, list)
    for i, comp in enumerate(comps):
        checker_check(m, i, comp)
