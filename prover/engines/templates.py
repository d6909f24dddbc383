"""Invariant templates specific to serializability.

Template "serial walk" (`prove_serial_walk`)
--------------------------------------------
Idea: the completed requests, together with the requests that have finished but not yet
responded, label a walk of the serial automaton from the initial global state to the
current global state.

Class of models it proves. Classify every markable local place (request r, local l):
* *finished* (F): l has exactly one response v and no live step leaves it;
* *waiting* (W): l has no response.
The template applies when every local place is F or W, every live step from a W place at
global g either stays in W without changing the global (a read-only or waiting step, e.g.
`while (X == 0) { yield }`) or reaches an F place with response v at global g' such that
the serial automaton has the edge g --r/v--> g' (the request run alone from its entry at
g can do the same), and every spawn into an F place (a constant body) has the self-loop
edge g --r/v--> g at every markable global g. Typical members: requests that only wait
(without effect) until their single atomic effect-and-finish step; g2, g7, c2 of the
paper benchmarks are of this kind.

Invariant, with one counter y_e per serial edge e that some step can take, and the
visited flags v_s / first-visit ranks d_s of the connectivity encoding:
* dead places (never markable) are 0;
* Σ_g M(G g) = 1 (one global token);
* flow: for every state s, Σ_in y − Σ_out y = M(G s) − [s = initial];
* labels: for every response place (r, v),
  Σ_{e labelled r/v} y_e = M(R r/v) + Σ_{F places (r, l) answering v} M(L r l);
* connectivity: M(G s) ≤ v_s, 0 ≤ v_s ≤ 1, y_e ≥ 1 ⇒ v_src = v_tgt = 1, and
  v_s = 1 ⇒ ∨_{e into s, not a loop} (y_e ≥ 1 ∧ d_src < d_s) for s not initial.
Updates: a W→F step g → g' increments y_(g,r,v,g') and marks g' visited (rank d_g + 1
if new); a spawn into an F place adds M(G g) to every loop counter y_(g,r,v,g).
At a quiescent marking the labels of y are π(M), and y is a connected walk from the
initial state (Euler), so π(M) ∈ S: the refutation holds.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from prover.engines.state_equation import live_structure
from prover.ns import NetworkSystem
from prover.petri.net import PetriNet, Place
from prover.serial.automaton import SerialAutomaton, SerialEdge
from prover.serial.walk import WalkNames
from prover.smt.formula import (
    FALSE,
    Aux,
    Formula,
    Ite,
    PlaceVar,
    Term,
    cmp,
    conj,
    const,
    disj,
    implies,
    linear,
)
from prover.smt.invariant import Invariant


@dataclass(frozen=True)
class TemplateResult:
    invariant: Invariant | None
    reason: str
    seconds: float
    # The walk variables of a walk-labelled invariant (refuted without S), if it is one.
    walk: WalkNames | None = None


def prove_serial_walk(
    ns: NetworkSystem, net: PetriNet, automaton: SerialAutomaton
) -> TemplateResult:
    start = time.monotonic()

    def fail(why: str) -> TemplateResult:
        return TemplateResult(None, f"not applicable: {why}", time.monotonic() - start)

    markable, live = live_structure(net)
    index = net.place_index
    edges = set(automaton.edges)
    init = ns.initial_global
    glob_place = {p.state: i for i, p in enumerate(net.places) if p.kind == "global"}
    if init not in glob_place:
        return fail("no initial global place")
    # classify local places
    has_step: set[int] = set()
    for ti in live:
        t = net.transitions[ti]
        if t.kind == "step":
            has_step.add(index[Place("local", t.request, t.local)])
    finished: dict[int, str] = {}
    for i in sorted(markable):
        p = net.places[i]
        if p.kind != "local":
            continue
        resp = ns.responses_of.get(p.state, ())
        if not resp:
            continue
        if len(resp) != 1 or i in has_step:
            return fail(f"local state {p.label()} both answers and steps, or answers twice")
        finished[i] = resp[0]
    used: dict[SerialEdge, int] = {}
    step_edge: dict[int, SerialEdge] = {}
    spawn_loops: dict[int, list[SerialEdge]] = {}
    markable_globals = sorted(
        net.places[i].state for i in markable if net.places[i].kind == "global"
    )
    for ti in live:
        t = net.transitions[ti]
        if t.kind == "step":
            src = index[Place("local", t.request, t.local)]
            dst = index[Place("local", t.request, t.to_local or "")]
            g, g2 = t.global_ or "", t.to_global or ""
            if src in finished:
                return fail(f"{t.label()} leaves a finished state")
            if dst in finished:
                e = SerialEdge(g, t.request, finished[dst], g2)
                if e not in edges:
                    return fail(f"{t.label()} has no serial edge")
                step_edge[ti] = e
                used[e] = 0
            elif g2 != g:
                return fail(f"{t.label()} changes the global before finishing")
        elif t.kind == "spawn":
            dst = index[Place("local", t.request, t.local)]
            if dst in finished:
                loops = []
                for g in markable_globals:
                    e = SerialEdge(g, t.request, finished[dst], g)
                    if e not in edges:
                        return fail(f"{t.label()}: constant answer without loop at {g}")
                    loops.append(e)
                    used[e] = 0
                spawn_loops[ti] = loops
    order = sorted(used)
    yname = {e: f"y{k}" for k, e in enumerate(order)}

    def y(e: SerialEdge) -> Term:
        return Aux(yname[e])

    def gterm(g: str) -> Term:
        return PlaceVar(net.places[glob_place[g]]) if g in glob_place else const(0)

    parts: list[Formula] = []
    for i, p in enumerate(net.places):
        if i not in markable:
            parts.append(cmp("=", PlaceVar(p), const(0)))
    parts.append(
        cmp("=", linear([(1, PlaceVar(net.places[i])) for i in sorted(glob_place.values())]),
            const(1))
    )
    parts += [cmp(">=", y(e), const(0)) for e in order]
    states = sorted({e.source for e in order} | {e.target for e in order} | {init})
    for s in states:
        flow = linear(
            [(1, y(e)) for e in order if e.target == s]
            + [(-1, y(e)) for e in order if e.source == s]
        )
        parts.append(cmp("=", flow, linear([(1, gterm(s))], -1 if s == init else 0)))
    for p in net.places:
        if p.kind != "response":
            continue
        lhs = linear([(1, y(e)) for e in order if (e.request, e.response) == (p.request, p.state)])
        rhs_items: list[tuple[int, Term]] = [(1, PlaceVar(p))]
        for j, answer in sorted(finished.items()):
            if net.places[j].request == p.request and answer == p.state:
                rhs_items.append((1, PlaceVar(net.places[j])))
        parts.append(cmp("=", lhs, linear(rhs_items)))
    # connectivity
    vname = {s: f"v{k}" for k, s in enumerate(states) if s != init}
    dname = {s: f"d{k}" for k, s in enumerate(states) if s != init}

    def v(s: str) -> Term:
        return const(1) if s == init else Aux(vname[s])

    def d(s: str) -> Term:
        return const(0) if s == init else Aux(dname[s])

    for s in states:
        if s == init:
            continue
        parts += [
            cmp(">=", v(s), const(0)), cmp("<=", v(s), const(1)), cmp("<=", gterm(s), v(s))
        ]
    for e in order:
        seen = [cmp("=", v(s), const(1)) for s in sorted({e.source, e.target}) if s != init]
        if seen:
            parts.append(implies(cmp(">=", y(e), const(1)), conj(seen)))
    for s in states:
        if s == init:
            continue
        options = [
            conj([cmp(">=", y(e), const(1)), cmp("<", d(e.source), d(s))])
            for e in order
            if e.target == s and e.source != s
        ]
        parts.append(implies(cmp("=", v(s), const(1)), disj(options) if options else FALSE))
    updates: list[tuple[int, tuple[tuple[str, Term], ...]]] = []
    for ti in live:
        assign: list[tuple[str, Term]] = []
        if ti in step_edge:
            e = step_edge[ti]
            assign.append((yname[e], linear([(1, y(e))], 1)))
            if e.target != e.source and e.target != init:
                assign.append((vname[e.target], const(1)))
                new_rank = linear([(1, d(e.source))], 1)
                assign.append(
                    (dname[e.target], Ite(cmp("=", v(e.target), const(1)), d(e.target), new_rank))
                )
        for e in spawn_loops.get(ti, []):
            assign.append((yname[e], linear([(1, y(e)), (1, gterm(e.source))])))
        if assign:
            updates.append((ti, tuple(assign)))
    aux = (
        tuple(yname[e] for e in order)
        + tuple(vname[s] for s in states if s != init)
        + tuple(dname[s] for s in states if s != init)
    )
    inv = Invariant(aux, tuple((a, 0) for a in aux), conj(parts), tuple(updates))
    return TemplateResult(inv, "", time.monotonic() - start)
