"""The obligations the checker generates itself, from its own NS, net and automaton: (name,
thunk) pairs run in order; a thunk returns a detail or raises a CheckerError."""

from __future__ import annotations

import json
from collections.abc import Callable, Container, Iterable, Iterator
from functools import partial
from types import SimpleNamespace
from typing import Any, cast

from checker.certificate import Limits
from checker.errors import LimitError, SchemaError, Undecided, invalid
from checker.formula import Query, Resolve, Smt, Translator
from checker.net import Place, TKey, place_text, transition_text
from checker.semantics import Semantics
from checker.serial_model import Json, Model, ascending, vector

# Exact evaluation over Python integers and booleans: a Translator's other back end (Smt)
EXACT = SimpleNamespace(
    const=lambda n: n, boolean=lambda v: v, lin=lambda terms: sum(c * t for c, t in terms),
    ite=lambda c, a, b: a if c else b, conj=all, disj=any, neg=lambda x: not x,
    cmp=lambda op, a, b: {"<=": a <= b, "<": a < b, "=": a == b, ">=": a >= b, ">": a > b}[op])
Thunk = Callable[[], str]


def check_structure(cert: Json, limits: Limits) -> None:
    """Rules of docs/certificates.md that the JSON Schema cannot express, of a counterexample
    (its events are counted before, checker/network.py) or a proof."""
    if "proof" not in cert:
        vector(cert["counterexample"]["completed"], "completed")
        return
    proof = cert["proof"]
    if not ascending([tuple(p) for p in proof.get("pairs", [])]):
        raise SchemaError("proof.pairs: not sorted by (local, global) or repeated")
    # (a name given twice only leaves a variable out of Walk: harmless, not checked)
    if not {e["aux"] for part in proof.get("walk", {}).values() for e in part} <= set(
            proof["invariant"]["aux"]):
        raise SchemaError("proof.walk: a walk variable is not a declared aux variable")
    for i, comp in enumerate(proof.get("serial_set", {"components": []})["components"]):
        if len(comp["periods"]) > limits.max_periods:
            raise LimitError(f"component {i}: {len(comp['periods'])} periods, limit "
                             f"{limits.max_periods}")
        for j, p in enumerate([comp["base"], *comp["periods"]]):  # the base first
            vector(p, f"component {i} " + (f"period {j - 1}" if j else "base"))
        if len(comp["circulations"]) != len(comp["periods"]):
            raise SchemaError(f"component {i}: one circulation per period required")
        for part in [comp["walk"], *comp["circulations"]]:
            edges = [tuple(e["edge"]) for e in part["edges"]]
            if len(set(edges)) != len(edges):
                raise SchemaError(f"component {i}: an edge is listed twice")
    inv, declared = proof["invariant"], proof["invariant"]["aux"]
    # the invariant: declared aux only, initial values for exactly the declared ones, sizes
    if len(declared) > limits.max_vars:
        raise LimitError(f"{len(declared)} auxiliary variables, limit {limits.max_vars}")
    if set(inv["initial_aux"]) != set(declared):
        raise SchemaError("initial_aux must give a value to exactly the declared aux variables")
    nodes, todo = 0, [inv["formula"], *(t for u in inv["updates"] for t in u["assign"].values())]
    while todo:
        node, nodes = todo.pop(), nodes + 1
        if nodes > limits.max_nodes:
            raise LimitError(f"invariant has more than {limits.max_nodes} nodes")
        if isinstance(node, dict):
            if "aux" in node and isinstance(node["aux"], str) and node["aux"] not in declared:
                raise SchemaError(f"aux variable {node['aux']!r} is not declared")
            if "place" not in node:  # place objects are names, not sub-formulas
                todo.extend(node.values())
        elif isinstance(node, list):
            todo.extend(node)
    if wrong := [name for u in inv["updates"] for name in u["assign"] if name not in declared]:
        raise SchemaError(f"update assigns undeclared aux variable {wrong[0]!r}")
    for key in ("updates", "hints"):
        seen = [json.dumps(u["transition"], sort_keys=True) for u in inv.get(key, [])]
        if len(set(seen)) != len(seen):
            raise SchemaError(f"invariant.{key}: a transition is listed twice")


# --------------------------------------------------------------------------- invariant


def _resolve(places: frozenset[Place], p: Json) -> Place:
    kind = next(iter(p))
    place: Place = (kind, p[kind]) if kind == "global" else (kind, *p[kind])
    if place not in places:
        raise invalid("E-NAME", f"{place_text(place)} is not a place of the net")
    return place


def _transition_key(u: Json, keys: Container[TKey], what: str) -> TKey:
    """The transition an update or a hint names (E-NAME if the net has no such one)."""
    t = u["transition"]
    key: TKey = (("spawn", t["request"], t["local"]) if t["kind"] == "spawn" else
                 ("respond", t["request"], t["local"], t["response"]) if t["kind"] == "respond"
                 else ("step", t["request"], *t["from"], *t["to"]))
    if key not in keys:
        raise invalid("E-NAME", f"{what} for {transition_text(key)}: no such transition")
    return key


def proof(m: Model, pf: Json, remaining: Callable[[], float],
          sem: Semantics) -> Iterator[tuple[str, Thunk]]:
    net, inv = m.net, pf["invariant"]
    comps = pf["serial_set"]["components"] if "serial_set" in pf else []
    resolve = partial(_resolve, frozenset(net.places))
    updates, hints = dict[TKey, dict[str, Json]](), dict[TKey, list[Json]]()
    parts: list[tuple[Json, set[Any]]] = []
    zeros: set[Place] = set()  # places a conjunct `place = 0` (exactly that shape) sets to 0
    sums: list[tuple[set[Place], set[Place]]] = []  # per conjunct: Σ M(p) = 0, = 1 (`_sum`)
    ors: list[list[set[Place]]] = []  # per conjunct `… ∨ Σ M(p) = 0 ∨ …`: those sums' places
    smt = Smt()
    mvar = {p: smt.var(f"p{i}") for i, p in enumerate(net.places)}
    xvar = {a: smt.var(f"a_{a}") for a in inv["aux"]}
    shown = {place_text(p): v for p, v in mvar.items()} | {a: v for a, v in xvar.items()}
    base = Translator(smt, mvar.__getitem__, xvar, resolve)
    state: dict[str, Any] = {}

    def names() -> str:
        keys = net.by_key()
        updates.update((_transition_key(u, keys, "update"), u["assign"]) for u in inv["updates"])
        f = inv["formula"]  # the top-level conjuncts with the places and aux each reads
        parts.extend((c, _names(c, resolve)) for c in (f["and"] if isinstance(f, dict) and
                                                        "and" in f else [f]))
        zeros.update(resolve(ps[0]) for c, _ in parts if (ps := _sum(c, 0)) and "place" in c["lhs"])
        sums.extend(({*map(resolve, _sum(c, 0))}, {*map(resolve, _sum(c, 1))}) for c, _ in parts)
        ors.extend([{*map(resolve, ps)} for d in c["or"] if (ps := _sum(d, 0))] if isinstance(
            c, dict) and "or" in c else [] for c, _ in parts)
        # translating once resolves every place name and gives I(M, x), conjunct by conjunct
        state["Ic"] = [base.form(c) for c, _ in parts]
        state["I"] = smt.conj(state["Ic"])
        for t in (t for assign in updates.values() for t in assign.values()):
            base.term(t)
        for h in inv.get("hints", []):
            key = _transition_key(h, keys, "hint")
            if any(i >= len(state["Ic"]) for c in h["checks"] for i in c["prove"] + c["from"]):
                raise invalid("E-HINT", f"hint for {transition_text(key)}: no such conjunct")
            hints[key] = h["checks"]
        if "walk" in pf:
            from checker.walk import walk_constraints

            state["walk"] = walk_constraints(m, pf["walk"], smt, mvar, xvar)
        return f"{len(net.places)} places, {len(updates)} updates, {len(hints)} hints resolved"

    def initiation() -> str:
        marking = Translator(EXACT, lambda p: int(p == net.initial), inv["initial_aux"], resolve)
        if not marking.form(inv["formula"]):
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
            if dead := [p for p, c in t.pre if c >= 1 and p in zeros]:
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

            # Exact, no solver: with M ≥ 0 and M ≥ pre(t), a conjunct `Σ M(p) = 1` among
            # `among` holding an input place g of t sets g to 1 and its other places to 0, as
            # `Σ M(p) = 0` does; places so 0 after t make a moved conjunct `… ∨ Σ M(p) = 0 ∨ …`
            # true (pool-k3: 63 of 64 a step). Only conjuncts a query holds are used: it is
            # then unsat, or sat, with the conjuncts so settled as without them.
            def settled(among: Iterable[int]) -> set[int]:
                val = {p: 0 for k in among for p in sums[k][0]}
                val.update((p, int(p == g)) for k in among for g, c in t.pre
                           if c >= 1 and g in sums[k][1] for p in sums[k][1])
                nil = {p for p, v in val.items() if v + cast(int, delta.get(p, 0)) == 0}
                return {k for k in todo if any(d <= nil for d in ors[k])}

            guard = [smt.cmp(">=", mvar[p], smt.const(c)) for p, c in pre.items()]
            # A hint proves its conjuncts from the conjuncts it names (weaker than I, so
            # sound); a hint that names too few makes its query sat: a rejection.
            for chk in hints.get(t.key, []):
                if goal := sorted(todo.intersection(chk["prove"]) - settled(chk["from"])):
                    held = [state["Ic"][j] for j in chk["from"]] + guard
                    goals = [step.form(parts[k][0]) for k in goal]
                    _consecutive(query(within=held + goals), smt, t.key, held, goals, shown)
                todo -= set(chk["prove"])
            if todo := todo - settled(range(len(parts))):
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
            claims = [not_member(smt, mvar, resp, comps, i) for i in range(len(comps))]
            where = f"{len(comps)} linear sets S"
        if (model := query(fresh=True).unsat(smt.conj(zero + claims), shown)) is not None:
            raise invalid("E-REFUTATION", f"a quiescent invariant marking lies outside {where}: "
                                          f"{model}")
        return f"unsat against {where}"

    def exclusion(g: str, locs: list[str]) -> Thunk:
        def run() -> str:
            marked = smt.disj([smt.cmp(">=", smt.lin(held[loc]), smt.const(1)) for loc in locs
                               if loc in held])
            busy = smt.cmp(">=", mvar[("global", g)], smt.const(1))
            # First from the conjuncts that read g and the `Σ M(p) = 0` (weaker than I, so
            # their unsat is I's) in a fresh solver: the one holding all of I takes 0.1 s a
            # query (workq3: 125 exclusions, 8 s -> 2 s); sat or no answer: all of I, as before.
            near = [state["Ic"][k] for k, (c, names) in enumerate(parts)
                    if ("global", g) in names or _sum(c, 0)] + [busy, marked]
            try:
                if query(within=near).unsat(smt.conj(near), shown) is None:
                    return f"{len(locs)} unlisted locals excluded by the conjuncts on {g}"
            except Undecided:
                pass
            if (model := query().unsat(smt.conj([busy, marked]), shown)) is not None:
                raise invalid("E-EXCLUSION", f"an unlisted local co-occurs with {g}: {model}")
            return f"{len(locs)} unlisted locals excluded"

        return run

    if comps:
        from checker.linear_sets import check_component, not_member
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
            if locs := [loc for loc in movers if (loc, g) not in listed]:
                yield f"exclusion: {g}", exclusion(g, locs)
    yield "refutation", refutation


def _consecutive(q: Query, smt: Smt, key: TKey, assumed: list[Any], after: list[Any],
                 shown: dict[str, Any]) -> None:
    """`assumed ∧ ¬(∧ after)` must be unsat on top of what `q` holds."""
    if (model := q.unsat(smt.conj([*assumed, smt.neg(smt.conj(after))]), shown)) is not None:
        raise invalid("E-CONSECUTION", f"{transition_text(key)} leaves the invariant; "
                                       f"pre-state: {model}")


def _shift(t: Json, a: str, resolve: Resolve) -> int | None:
    """k when the update term of `a` is `a + k` (no ite, reads only `a`), else None."""
    if not _names(t, resolve) <= {a}:
        return None
    at = [Translator(EXACT, lambda p: 0, {a: v}, resolve).term(t) for v in (0, 1)]
    return cast(int, at[0]) if at[1] - at[0] == 1 else None


def _kept(c: Json, names: set[Any], delta: dict[Any, int | None], resolve: Resolve) -> bool:
    """Exact, no solver: a comparison without ite is affine in its names; when each moves
    by a constant, lhs − rhs moves by d = (lhs − rhs)(Δ) − (lhs − rhs)(0), and a d of the
    safe sign keeps the (true) comparison true."""
    if "cmp" not in c or None in names or any(delta.get(v, 0) is None for v in names):
        return False

    def side(val: dict[Any, Any]) -> int:
        tr = Translator(EXACT, val.__getitem__, val, resolve)
        return cast(int, tr.term(c["lhs"]) - tr.term(c["rhs"]))

    d = side({v: delta.get(v, 0) for v in names}) - side(dict.fromkeys(names, 0))
    return {"<=": d <= 0, "<": d <= 0, "=": d == 0, ">=": d >= 0, ">": d >= 0}[c["cmp"]]


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


# The places of `{"cmp": "=", "lhs": L, "rhs": {"const": k}}` where L is a place or a sum of
# [1, place] pairs (nothing else), and [] for any other formula.
def _sum(c: Json, k: int) -> list[Json]:
    if not isinstance(c, dict) or c.get("cmp") != "=" or c["rhs"] != {"const": k} or type(
            c["rhs"]["const"]) is not int:
        return []
    terms = [[1, c["lhs"]]] if set(c["lhs"]) == {"place"} else c["lhs"].get("sum", [])
    ok = all(type(n) is int and n == 1 and set(t) == {"place"} for n, t in terms)
    return [t["place"] for _, t in terms] if ok else []


