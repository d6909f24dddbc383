"""The obligations the checker generates itself, from its own NS, net and automaton.

Each obligation is a (name, thunk) pair; a thunk returns a short detail on success and
raises a CheckerError (Invalid with a stable code, or Undecided) on failure. The thunks
of one certificate run in order and share state through closures.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from math import gcd
from typing import Any, cast

from checker.certificate import Limits, integer
from checker.errors import LimitError, SchemaError, invalid
from checker.formula import Backend, Query, Resolve, Smt, Translator, check_shape
from checker.model import NS, Run, Semantics, Vector, apply
from checker.net import Net, Place, TKey, build_net, place_text, transition_text
from checker.serial import Edge, Serial, build_serial, is_serial

Json = Any
Thunk = Callable[[], str]


@dataclass(frozen=True)
class Model:
    ns: NS
    net: Net
    aut: Serial
    locals_: frozenset[str]
    globals_: frozenset[str]
    requests: frozenset[str]
    responses: frozenset[str]


def make_model(ns: NS) -> Model:
    locs = {loc for _, loc in ns.requests} | {loc for loc, _ in ns.responses}
    locs |= {loc for t in ns.transitions for loc in (t[0], t[2])}
    globs = {ns.initial} | {g for t in ns.transitions for g in (t[1], t[3])}
    return Model(ns, build_net(ns), build_serial(ns), frozenset(locs), frozenset(globs),
                 frozenset(r for r, _ in ns.requests), frozenset(v for _, v in ns.responses))


def _known(kind: str, name: str, pool: frozenset[str], where: str) -> None:
    if name not in pool:
        raise invalid("E-NAME", f"{where}: unknown {kind} {name!r}")


def vector(entries: list[Json], where: str) -> Vector:
    """Sparse vector; the format demands strictly sorted (request, response) pairs."""
    keys = [(e["request"], e["response"]) for e in entries]
    if not _ascending(keys):
        raise SchemaError(f"{where}: entries not sorted by (request, response) or repeated")
    return {k: integer(e["count"], where) for k, e in zip(keys, entries, strict=True)}


def _ascending(keys: list[Any]) -> bool:
    """Strictly sorted: in order and no repeats."""
    return all(a < b for a, b in zip(keys, keys[1:], strict=False))


def check_structure(cert: Json, limits: Limits) -> None:
    """Rules of docs/certificates.md that the JSON Schema cannot express."""
    if "proof" not in cert:  # a counterexample or a lasso: events to replay
        ev = cert.get("counterexample") or cert.get("ltl") or {}
        n = len(ev.get("events", [])) + len(ev.get("prefix", [])) + len(ev.get("loop", []))
        if n > limits.max_events:
            raise LimitError(f"{n} events, limit {limits.max_events}")
        vector(ev.get("completed", []), "completed")
        return
    proof = cert["proof"]
    if not _ascending([tuple(p) for p in proof.get("pairs", [])]):
        raise SchemaError("proof.pairs: not sorted by (local, global) or repeated")
    # (a name given twice only leaves a variable out of Walk: harmless, not checked)
    if not {e["aux"] for part in proof.get("walk", {}).values() for e in part} <= set(
            proof["invariant"]["aux"]):
        raise SchemaError("proof.walk: a walk variable is not a declared aux variable")
    for i, comp in enumerate(proof.get("serial_set", {"components": []})["components"]):
        if len(comp["periods"]) > limits.max_periods:
            raise LimitError(f"component {i}: {len(comp['periods'])} periods, limit "
                             f"{limits.max_periods}")
        vector(comp["base"], f"component {i} base")
        for j, p in enumerate(comp["periods"]):
            vector(p, f"component {i} period {j}")
        if len(comp["circulations"]) != len(comp["periods"]):
            raise SchemaError(f"component {i}: one circulation per period required")
        for part in [comp["walk"], *comp["circulations"]]:
            edges = [tuple(e["edge"]) for e in part["edges"]]
            if len(set(edges)) != len(edges):
                raise SchemaError(f"component {i}: an edge is listed twice")
    inv = proof["invariant"]
    check_shape(inv, inv["aux"], limits.max_nodes, limits.max_vars)
    for key in ("updates", "hints"):
        seen = [json.dumps(u["transition"], sort_keys=True) for u in inv.get(key, [])]
        if len(set(seen)) != len(seen):
            raise SchemaError(f"invariant.{key}: a transition is listed twice")


# --------------------------------------------------------------------------- counterexample


def counterexample(sem: Semantics, ce: Json) -> Iterator[tuple[str, Thunk]]:
    """Replayed on the one-step semantics itself, so no NS (and no pair list) is needed."""
    run = Run(sem.initial, {}, {}, set())
    inflight, done = run.inflight, run.done

    def replay() -> str:
        for i, ev in enumerate(ce["events"], 1):
            apply(sem, run, ev, i)
        return f"{len(ce['events'])} events replayed"

    def quiescent() -> str:
        if inflight:
            left = ", ".join(f"{n} at {loc}" for n, (_, loc) in sorted(inflight.items()))
            raise invalid("E-QUIESCENT", f"instances still in flight: {left}")
        return "nothing in flight"

    def completed() -> str:
        claimed = vector(ce["completed"], "completed")
        if claimed != done:
            raise invalid("E-COMPLETED", f"claimed {_vtext(claimed)}, replay gives {_vtext(done)}")
        return _vtext(done)

    def not_serial() -> str:
        if is_serial(sem, done):
            raise invalid("E-SERIAL", f"{_vtext(done)} is produced by a serial execution")
        return f"no serial walk produces {_vtext(done)}"

    yield "replay", replay
    yield "quiescent", quiescent
    yield "completed", completed
    yield "not-serial", not_serial


def _vtext(v: Vector) -> str:
    return " ".join(f"{r}/{s}^{c}" for (r, s), c in sorted(v.items())) or "(empty)"


# --------------------------------------------------------------------------- serial set


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
            _known("state", s, frozenset(m.aut.states), where)
        _known("request", r, m.requests, where)
        _known("response", v, m.responses, where)
        if edge not in m.aut.edges:
            raise invalid("E-WITNESS", f"{where}: {list(edge)} is not a serial-automaton edge")
        flow[edge] = integer(e["count"], where)
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
    for k in (k for v in vecs for k in v):
        if k not in keys:
            raise invalid("E-NAME", f"{where}: {k[0]}/{k[1]} is not a Response place")
    base, periods = vecs[0], vecs[1:]
    if len(_reduce(_rows(periods, sorted(keys)))) < len(periods):
        raise invalid("E-WITNESS", f"{where}: periods are linearly dependent")
    init = m.aut.initial
    end = comp["walk"]["end"]
    _known("state", end, frozenset(m.aut.states), where)
    walk = _resolve_edges(m, comp["walk"], f"{where} walk")
    if _labels(walk) != base:
        raise invalid("E-WITNESS", f"{where}: walk labels {_vtext(_labels(walk))} != base")
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


# --------------------------------------------------------------------------- invariant


def _resolve(places: frozenset[Place], p: Json) -> Place:
    kind = next(iter(p))
    place: Place = (kind, p[kind]) if kind == "global" else (kind, *p[kind])
    if place not in places:
        raise invalid("E-NAME", f"{place_text(place)} is not a place of the net")
    return place


def _transition_key(t: Json) -> TKey:
    if t["kind"] == "spawn":
        return ("spawn", t["request"], t["local"])
    if t["kind"] == "respond":
        return ("respond", t["request"], t["local"], t["response"])
    return ("step", t["request"], *t["from"], *t["to"])


def proof(m: Model, pf: Json, remaining: Callable[[], float],
          sem: Semantics) -> Iterator[tuple[str, Thunk]]:
    net, inv = m.net, pf["invariant"]
    comps = pf["serial_set"]["components"] if "serial_set" in pf else []
    resolve = partial(_resolve, frozenset(net.places))
    updates: dict[TKey, dict[str, Json]] = {}
    hints: dict[TKey, list[Json]] = {}
    parts: list[tuple[Json, set[Any]]] = []
    zeros: set[Place] = set()  # places a conjunct `place = 0` (exactly that shape) sets to 0
    smt = Smt()
    mvar = {p: smt.var(f"p{i}") for i, p in enumerate(net.places)}
    xvar = {a: smt.var(f"a_{a}") for a in inv["aux"]}
    shown = {place_text(p): v for p, v in mvar.items()} | {a: v for a, v in xvar.items()}
    base = Translator(smt, mvar.__getitem__, xvar, resolve)
    state: dict[str, Any] = {}

    def names() -> str:
        keys = net.by_key()
        for u in inv["updates"]:
            key = _transition_key(u["transition"])
            if key not in keys:
                raise invalid("E-NAME", f"update for {transition_text(key)}: no such transition")
            updates[key] = u["assign"]
        f = inv["formula"]  # the top-level conjuncts with the places and aux each reads
        parts.extend((c, _names(c, resolve)) for c in (f["and"] if isinstance(f, dict) and
                                                        "and" in f else [f]))
        zeros.update(resolve(c["lhs"]["place"]) for c, _ in parts if _is_zero(c))
        # translating once resolves every place name and gives I(M, x), conjunct by conjunct
        state["Ic"] = [base.form(c) for c, _ in parts]
        state["I"] = smt.conj(state["Ic"])
        for assign in updates.values():
            for t in assign.values():
                base.term(t)
        for h in inv.get("hints", []):
            key = _transition_key(h["transition"])
            if key not in keys:
                raise invalid("E-NAME", f"hint for {transition_text(key)}: no such transition")
            if any(i >= len(state["Ic"]) for c in h["checks"] for i in c["prove"] + c["from"]):
                raise invalid("E-HINT", f"hint for {transition_text(key)}: no such conjunct")
            hints[key] = h["checks"]
        if "walk" in pf:
            state["walk"] = _walk(m, pf["walk"], smt, mvar, xvar)
        return f"{len(net.places)} places, {len(updates)} updates, {len(hints)} hints resolved"

    def initiation() -> str:
        def marking(p: Place) -> int:
            return int(p == net.initial)

        if not Translator(Backend(), marking, inv["initial_aux"], resolve).form(inv["formula"]):
            raise invalid("E-INITIATION", "the invariant is false at the initial marking")
        return "true at M0 (exact evaluation)"

    def query(fresh: bool = False, within: list[Any] | None = None) -> Query:
        """The solver holding M ≥ 0 ∧ I (one for all queries, or a `fresh` one), or a
        fresh one holding M(p) ≥ 0 for the places the formulas `within` read (hinted
        queries: one incremental cvc5 slows down as it accumulates a thousand queries'
        terms; locked-04: 2 s for a query it settles in 0.1 s fresh)."""
        if "q" not in state or fresh or within is not None:
            q = Query(smt, remaining)
            read = set().union(*(f.get_free_variables() for f in within or []))
            q.add(smt.conj([smt.cmp(">=", v, smt.const(0)) for v in mvar.values()
                            if within is None or v in read]))
            if within is not None:
                return q
            q.add(state["I"])
            if fresh:
                return q
            state["q"] = q
        return cast(Query, state["q"])

    def consecution(t_index: int) -> Thunk:
        t = net.transitions[t_index]

        def run() -> str:
            # I ∧ M ≥ pre(t) is unsat when I sets an input place of t to 0, as it does for
            # the steps of a request in another request's locals: no query (ring-24: 95%
            # of its 14,424 transitions, 10 s of its 13 s check).
            dead = [p for p, c in t.pre if c >= 1 and p in zeros]
            if dead:
                return f"disabled: I sets {place_text(dead[0])} to 0"
            pre, post = dict(t.pre), dict(t.post)
            delta: dict[Any, int | None] = {p: post.get(p, 0) - pre.get(p, 0) for p in
                                            pre.keys() | post.keys() if post.get(p) != pre.get(p)}
            after = {p: smt.lin([(1, mvar[p]), (1, smt.const(d))]) for p, d in delta.items() if d}
            assign = updates.get(t.key, {})
            x2 = {a: base.term(assign[a]) if a in assign else v for a, v in xvar.items()}
            delta.update((a, _shift(assign[a], a, resolve)) for a in assign)
            step = Translator(smt, lambda p: after.get(p, mvar[p]), x2, resolve)
            # A top-level conjunct over no changed counter keeps its (true) value, and so does
            # one that `_kept` settles exactly: only the others are negated.
            todo = {k for k, (c, names) in enumerate(parts)
                    if names & delta.keys() and not _kept(c, names, delta, resolve)}
            guard = [smt.cmp(">=", mvar[p], smt.const(c)) for p, c in pre.items()]
            # A hint proves its conjuncts from the conjuncts it names (weaker than I, so
            # sound); a hint that names too few makes its query sat: a rejection.
            for chk in hints.get(t.key, []):
                goal = sorted(todo.intersection(chk["prove"]))
                if goal:
                    held = [state["Ic"][j] for j in chk["from"]] + guard
                    goals = [step.form(parts[k][0]) for k in goal]
                    _consecutive(query(within=held + goals), smt, t.key, held, goals, shown)
                    todo -= set(goal)
            if todo:
                _consecutive(query(), smt, t.key, guard,
                             [step.form(parts[k][0]) for k in sorted(todo)], shown)
            return "unsat" + (" (hinted)" if t.key in hints else "")

        return run

    def refutation() -> str:
        zero = [smt.cmp("=", v, smt.const(0)) for p, v in mvar.items() if p[0] == "local"]
        if "walk" in pf:  # DESIGN.md, walk-labelled proofs
            claims, where = [smt.neg(state["walk"])], "walks of the serial automaton"
        else:
            resp = [p for p in net.places if p[0] == "response"]
            claims = [_not_member(smt, mvar, resp, comps, i) for i in range(len(comps))]
            where = f"{len(comps)} linear sets S"
        model = query(fresh=True).unsat(smt.conj(zero + claims), shown)
        if model is not None:
            raise invalid("E-REFUTATION", f"a quiescent invariant marking lies outside {where}: "
                                          f"{model}")
        return f"unsat against {where}"

    def exclusion(g: str, locs: list[str]) -> Thunk:
        def run() -> str:
            marked = smt.disj([smt.cmp(">=", smt.lin(held[loc]), smt.const(1)) for loc in locs
                               if loc in held])
            model = query().unsat(smt.conj([smt.cmp(">=", mvar[("global", g)], smt.const(1)),
                                            marked]), shown)  # fmt: skip
            if model is not None:
                raise invalid("E-EXCLUSION", f"an unlisted local co-occurs with {g}: {model}")
            return f"{len(locs)} unlisted locals excluded"

        return run

    for i, comp in enumerate(comps):
        yield f"serial-set[{i}]", partial(check_component, m, i, comp)
    yield "names", names
    yield "initiation", initiation
    for k, t in enumerate(net.transitions):
        yield f"consecution: {transition_text(t.key)}", consecution(k)
    held: dict[str, list[tuple[int, Any]]] = {}  # local l -> the terms of Σ_r M(Local(r, l))
    for p, v in mvar.items():
        if p[0] == "local":
            held.setdefault(p[2], []).append((1, v))
    if "pairs" in pf:  # DESIGN.md, restricted network systems
        listed = {tuple(p) for p in pf["pairs"]}
        movers = sorted(loc for loc in m.locals_ if sem.can_step(loc))
        for g in sorted(m.globals_):
            locs = [loc for loc in movers if (loc, g) not in listed]
            if locs:
                yield f"exclusion: {g}", exclusion(g, locs)
    yield "refutation", refutation


def _consecutive(q: Query, smt: Smt, key: TKey, assumed: list[Any], after: list[Any],
                 shown: dict[str, Any]) -> None:
    """`assumed ∧ ¬(∧ after)` must be unsat on top of what `q` holds."""
    model = q.unsat(smt.conj([*assumed, smt.neg(smt.conj(after))]), shown)
    if model is not None:
        raise invalid("E-CONSECUTION", f"{transition_text(key)} leaves the invariant; "
                                       f"pre-state: {model}")


def _walk(m: Model, w: Json, smt: Smt, mvar: dict[Place, Any], xvar: dict[str, Any]) -> Any:
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
        _known("state", s, aut.states, "walk")
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


def _shift(t: Json, a: str, resolve: Resolve) -> int | None:
    """k when the update term of `a` is `a + k` (no ite, reads only `a`), else None."""
    if not _names(t, resolve) <= {a}:
        return None
    at = [Translator(Backend(), lambda p: 0, {a: v}, resolve).term(t) for v in (0, 1)]
    return cast(int, at[0]) if at[1] - at[0] == 1 else None


def _kept(c: Json, names: set[Any], delta: dict[Any, int | None], resolve: Resolve) -> bool:
    """Exact, no solver: a comparison without ite is affine in its names; when each moves
    by a constant, lhs − rhs moves by d = (lhs − rhs)(Δ) − (lhs − rhs)(0), and a d of the
    safe sign keeps the (true) comparison true."""
    if "cmp" not in c or None in names or any(delta.get(v, 0) is None for v in names):
        return False

    def side(val: dict[Any, Any]) -> int:
        tr = Translator(Backend(), val.__getitem__, val, resolve)
        return cast(int, tr.term(c["lhs"]) - tr.term(c["rhs"]))

    d = side({v: delta.get(v, 0) for v in names}) - side(dict.fromkeys(names, 0))
    return {"<=": d <= 0, "<": d <= 0, "=": d == 0, ">=": d >= 0, ">": d >= 0}[c["cmp"]]


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


def _names(f: Json, resolve: Callable[[Json], Place]) -> set[Any]:
    """Every place (resolved) and aux name a formula or term reads, and None if an ite."""
    out: set[Any] = set()
    todo = [f]
    while todo:
        node = todo.pop()
        if isinstance(node, dict):
            if "place" in node:
                out.add(resolve(node["place"]))
            elif "aux" in node:
                out.add(node["aux"])
            else:
                out.update([None] if "ite" in node else [])  # None: not affine
                todo.extend(node.values())
        elif isinstance(node, list):
            todo.extend(node)
    return out


def _is_zero(c: Json) -> bool:
    """`{"cmp": "=", "lhs": {"place": …}, "rhs": {"const": 0}}` and nothing else."""
    if not (isinstance(c, dict) and set(c) == {"cmp", "lhs", "rhs"} and c["cmp"] == "="):
        return False
    lhs, rhs = c["lhs"], c["rhs"]
    return (isinstance(lhs, dict) and set(lhs) == {"place"} and isinstance(rhs, dict)
            and set(rhs) == {"const"} and type(rhs["const"]) is int and rhs["const"] == 0)


def _not_member(smt: Smt, mvar: dict[Place, Any], resp: list[Place], comps: Json, c: int) -> Any:
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
