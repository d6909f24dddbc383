"""Serial-walk template with commit points, for lock-based programs on a restricted NS.

Idea: every request commits at its first effectful step (the step that takes the lock
or first changes the global). The committed requests (completed, finished-but-unanswered,
and the one in-flight request that holds the lock) label a walk of the serial automaton
from the initial global state. Its end is the current global when nobody holds the lock;
while a request holds it at (l, g), the end is where the holder's *completion* leads:
running it alone from (l, g) along the steps of N_P (deterministic, never blocked: the
listed pairs of the coverability set say at which globals l can step).

Classification of the markable local places (r, l) (`_classify`):
* *waiting* (W): a spawn target, or reached from W by a step that keeps the global and
  enters a local that cannot answer (e.g. `while (L == 1) { yield }`);
* *holder* (H): reached by a *commit* (a step from W that changes the global or enters an
  answering local) or from H, and cannot answer;
* *finished* (F): exactly one response, no step.
A commit from W at h into H at (l1, g1) takes the serial edge h --r/v--> g' with (v, g')
the completion of (l1, g1); into F at g1 the edge h --r/v--> g1. Every such edge must be
an edge of the serial automaton, and no commit may start at a global where some holder
can step (so nobody holds the lock when a commit happens).

Invariant (all linear except the connectivity implications):
* never-markable places 0 (one equality each: cvc5 substitutes them away); one global
  token;
* H = Σ holder places ≤ 1, and each holder place only at a global where it can step:
  M(r, l) ≤ Σ_{g ∈ steps(r, l)} M(G g). This implies exclusion for holders by itself;
  waiting locals get `M(w) ≥ 1 ⇒ ∨ listed globals` only where some global is unlisted;
* edge counters y_e ≥ 0, end indicators e_s ≥ 0 with Σ e_s = 1, flow
  Σ_in y − Σ_out y = e_s − [s = init];
* at a global where no holder can step, the walk ends there: M(G s) ≤ e_s; a holder at
  (l, g) with completion end g': M(r, l) + Σ_{g ↦ g'} M(G g) − 1 ≤ e_g' (the sum over
  the globals of l with that end);
* labels: per response place (r, v): Σ_{e: r/v} y_e = M(R r/v) + Σ_F M(L r l) + c_rv with
  c_rv ≥ 0 the holder's committed label, Σ c = H, and
  M(r, l) + Σ_{g ↦ v} M(G g) − 1 ≤ c_rv;
* connectivity: when the commit edges without self-loops form a DAG, a loop at s ≠ init
  used ⇒ some edge into s used (the flow is then one simple path plus loops on it);
  otherwise visited flags and first-visit ranks as in templates.py.
Updates: a commit adds 1 to y_e, moves the end (e_h − 1, e_g' + 1), (ranks only) marks
g' visited with rank d_h + 1 if new, and adds 1 to c_rv if it enters a holder; the
holder's last step subtracts 1 from c_rv. At a quiescent marking c = 0 and nothing is
finished-unanswered: y is a connected walk from the initial state labelled π(M). The
proof is walk-labelled (prover/serial/walk.py): the certificate names y, e and d, and
the checker writes the walk constraints itself, so no serial set is built or carried.

Checker cost (cvc5, one query per transition over the whole invariant) is what this
encoding is shaped by; measured on locked-03 (2,460 transitions): rank encoding 56 s,
DAG connectivity 29 s, dead places one equality each 10 s. A fully linear connectivity
(tree-edge indicators with big-M ranks) was far slower (>200 s: integer branching).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from prover.engines.state_equation import live_structure
from prover.engines.templates import TemplateResult
from prover.ns import NetworkSystem, Restriction
from prover.petri.net import PetriNet, Place
from prover.serial.automaton import SerialAutomaton, SerialEdge
from prover.serial.walk import WalkNames, topological
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


class NotApplicable(Exception):
    pass


@dataclass(frozen=True)
class _Shape:
    """The classification and the commit structure of a net."""

    waiting: frozenset[int]
    holders: frozenset[int]
    finished: dict[int, str]  # place -> its one response
    steps_at: dict[int, dict[str, int]]  # holder place -> global -> its one transition
    completion: dict[tuple[int, str], tuple[str, str]]  # (holder place, g) -> (v, g')
    commits: dict[int, SerialEdge]  # transition -> the serial edge it takes
    into_holder: frozenset[int]  # commits entering a holder place
    releases: dict[int, str]  # holder -> finished steps: transition -> response


def _classify(ns: NetworkSystem, net: PetriNet, live: Sequence[int],
              markable: frozenset[int], edges: set[SerialEdge]) -> _Shape:
    index = net.place_index
    out: dict[int, list[int]] = {}
    for ti in live:
        t = net.transitions[ti]
        if t.kind == "step":
            out.setdefault(index[Place("local", t.request, t.local)], []).append(ti)
    finished: dict[int, str] = {}
    for i in markable:
        p = net.places[i]
        resp = ns.responses_of.get(p.state, ()) if p.kind == "local" else ()
        if resp:
            if len(resp) != 1 or i in out:
                raise NotApplicable(f"{p.label()} both answers and steps, or answers twice")
            finished[i] = resp[0]
    waiting: set[int] = set()
    todo: list[int] = []
    for ti in live:
        t = net.transitions[ti]
        if t.kind == "spawn":
            dst = index[Place("local", t.request, t.local)]
            if dst in finished:
                raise NotApplicable(f"{t.label()}: a request answers without a step")
            if dst not in waiting:
                waiting.add(dst)
                todo.append(dst)
    commit_ts: list[int] = []
    holders: set[int] = set()
    htodo: list[int] = []
    while todo:
        src = todo.pop()
        for ti in out.get(src, []):
            t = net.transitions[ti]
            dst = index[Place("local", t.request, t.to_local or "")]
            if t.to_global == t.global_ and dst not in finished:
                if dst not in waiting:
                    waiting.add(dst)
                    todo.append(dst)
            else:
                commit_ts.append(ti)
                if dst not in finished and dst not in holders:
                    holders.add(dst)
                    htodo.append(dst)
    while htodo:
        src = htodo.pop()
        for ti in out.get(src, []):
            t = net.transitions[ti]
            dst = index[Place("local", t.request, t.to_local or "")]
            if dst not in finished and dst not in holders:
                holders.add(dst)
                htodo.append(dst)
    if waiting & holders:
        raise NotApplicable("a local state is both before and after a commit")
    steps_at: dict[int, dict[str, int]] = {}
    releases: dict[int, str] = {}
    for h in holders:
        at: dict[str, int] = {}
        for ti in out.get(h, []):
            g = net.transitions[ti].global_ or ""
            if g in at:
                raise NotApplicable(f"{net.places[h].label()} is not deterministic at {g}")
            at[g] = ti
            dst = index[Place("local", net.transitions[ti].request,
                              net.transitions[ti].to_local or "")]
            if dst in finished:
                releases[ti] = finished[dst]
        if not at:
            raise NotApplicable(f"{net.places[h].label()} never steps")
        steps_at[h] = at
    completion: dict[tuple[int, str], tuple[str, str]] = {}

    def complete(h: int, g: str) -> tuple[str, str]:
        """Where the holder at h, running alone from g, finishes: (its answer, the global
        then). Iterative: a holder's run can be longer than Python's recursion limit."""
        path: list[tuple[int, str]] = []
        while (h, g) not in completion:
            if (h, g) in path or g not in steps_at.get(h, {}):
                raise NotApplicable(f"{net.places[h].label()} blocks or loops at {g}")
            path.append((h, g))
            t = net.transitions[steps_at[h][g]]
            dst = index[Place("local", t.request, t.to_local or "")]
            g2 = t.to_global or ""
            if dst in finished:
                completion[(h, g)] = (finished[dst], g2)
                break
            h, g = dst, g2
        got = completion[(h, g)]
        completion.update((key, got) for key in path)
        return got

    for h in sorted(holders):
        for g in sorted(steps_at[h]):
            complete(h, g)
    holder_globals = {g for at in steps_at.values() for g in at}
    commits: dict[int, SerialEdge] = {}
    into: set[int] = set()
    for ti in commit_ts:
        t = net.transitions[ti]
        g0, g1 = t.global_ or "", t.to_global or ""
        if g0 in holder_globals:
            raise NotApplicable(f"{t.label()} commits where a holder can step")
        dst = index[Place("local", t.request, t.to_local or "")]
        if dst in finished:
            e = SerialEdge(g0, t.request, finished[dst], g1)
        else:
            got = completion.get((dst, g1))
            if got is None:
                raise NotApplicable(f"{t.label()} enters a holder that cannot step")
            e = SerialEdge(g0, t.request, got[0], got[1])
            into.add(ti)
        if e not in edges:
            raise NotApplicable(f"{t.label()} has no serial edge {e.as_list()}")
        commits[ti] = e
    return _Shape(frozenset(waiting), frozenset(holders), finished, steps_at, completion,
                  commits, frozenset(into), releases)


def prove_locked_walk(
    ns: NetworkSystem, net: PetriNet, automaton: SerialAutomaton,
    restriction: Restriction | None,
) -> TemplateResult:
    start = time.monotonic()
    try:
        inv, walk = _build(ns, net, automaton, restriction)
    except NotApplicable as exc:
        return TemplateResult(None, f"not applicable: {exc}", time.monotonic() - start)
    return TemplateResult(inv, "", time.monotonic() - start, walk)


class _Names:
    """The invariant's vocabulary: place counters (M, G for a global's place), and per
    commit edge its count y, per serial state its end flag, visited flag and rank."""

    def __init__(self, net: PetriNet, shape: _Shape, init: str) -> None:
        self.net, self.init = net, init
        self.gplace = {p.state: i for i, p in enumerate(net.places) if p.kind == "global"}
        if init not in self.gplace:
            raise NotApplicable("no initial global place")
        self.order = sorted(set(shape.commits.values()))
        self.yname = {e: f"y{k}" for k, e in enumerate(self.order)}
        self.states = sorted({e.source for e in self.order} | {e.target for e in self.order}
                             | {init})
        self.sid = {s: k for k, s in enumerate(self.states)}
        self.labels = sorted({(e.request, e.response) for ti, e in shape.commits.items()
                              if ti in shape.into_holder})
        self.cname = {rv: f"c{k}" for k, rv in enumerate(self.labels)}
        # Where the serial edges the commits take form a DAG apart from self-loops, a flow
        # with one unit leaving the initial state is one simple path plus loops; otherwise
        # visited flags and first-visit ranks say that it is connected.
        self.ranked = topological({(e.source, e.target) for e in self.order
                                   if e.source != e.target}) is None

    def M(self, i: int) -> Term:
        return PlaceVar(self.net.places[i])

    def G(self, g: str) -> Term:
        return self.M(self.gplace[g]) if g in self.gplace else const(0)

    def y(self, e: SerialEdge) -> Term:
        return Aux(self.yname[e])

    def end(self, s: str) -> Term:
        return Aux(f"e{self.sid[s]}") if s in self.sid else const(0)

    def vis(self, s: str) -> Term:
        return const(1) if s == self.init else Aux(f"v{self.sid[s]}")

    def rank(self, s: str) -> Term:
        return const(0) if s == self.init else Aux(f"d{self.sid[s]}")


def _build(ns: NetworkSystem, net: PetriNet, automaton: SerialAutomaton,
           restriction: Restriction | None) -> tuple[Invariant, WalkNames]:
    markable, live = live_structure(net)
    shape = _classify(ns, net, live, markable, set(automaton.edges))
    if not shape.commits:
        raise NotApplicable("no commit step")
    n = _Names(net, shape, ns.initial_global)
    parts = (_places(n, shape, markable, restriction) + _walk(n) + _ends(n, shape)
             + _labels(n, shape) + (_ranks(n) if n.ranked else _loops(n)))
    init, sid, states = n.init, n.sid, n.states
    aux = (tuple(n.yname[e] for e in n.order) + tuple(f"e{sid[s]}" for s in states)
           + tuple(f"v{sid[s]}" for s in states if s != init and n.ranked)
           + tuple(f"d{sid[s]}" for s in states if s != init and n.ranked)
           + tuple(n.cname[rv] for rv in n.labels))
    initial = tuple((a, int(a == f"e{sid[init]}")) for a in aux)
    walk = WalkNames(init, tuple((e, n.yname[e]) for e in n.order),
                     tuple((s, f"e{sid[s]}") for s in states),
                     tuple((s, f"d{sid[s]}") for s in states if s != init and n.ranked))
    return Invariant(aux, initial, conj(parts), _updates(n, shape)), walk


def _places(n: _Names, shape: _Shape, markable: frozenset[int] | set[int],
            restriction: Restriction | None) -> list[Formula]:
    """One global place marked, at most one holder, each holder at a global where it
    steps, and waiting locals only at the globals the restriction lists."""
    net, M, G = n.net, n.M, n.G
    # Never-markable places (other requests' locals among them) hold nothing: one
    # equality each, which cvc5 substitutes away (as one sum they cost every transition
    # of another request's local a real query: locked-03 check 29 s -> 16 s).
    parts = [cmp("=", M(i), const(0)) for i in range(len(net.places)) if i not in markable]
    parts.append(cmp("=", linear((1, M(i)) for i in sorted(n.gplace.values())), const(1)))
    holders = sorted(shape.holders)
    if holders:
        parts.append(cmp("<=", linear((1, M(h)) for h in holders), const(1)))
    # (per global instead, G(g) + Σ holders that cannot step at g ≤ 1: measured slower)
    for h in holders:
        parts.append(cmp("<=", M(h), linear((1, G(g)) for g in sorted(shape.steps_at[h]))))
    if restriction is not None:  # exclusion of waiting locals at unlisted globals
        listed: dict[str, set[str]] = {}
        for loc, g in restriction.pairs:
            listed.setdefault(loc, set()).add(g)
        for w in sorted(shape.waiting):
            ok = listed.get(net.places[w].state, set())
            if any(g not in ok for g in n.gplace):
                parts.append(implies(cmp(">=", M(w), const(1)),
                                     cmp(">=", linear((1, G(g)) for g in sorted(ok)),
                                         const(1))))
    return parts


def _walk(n: _Names) -> list[Formula]:
    """The commit counts form a walk from the initial state to the one state it ends at."""
    y, end = n.y, n.end
    parts = [cmp(">=", y(e), const(0)) for e in n.order]
    parts += [cmp(">=", end(s), const(0)) for s in n.states]
    parts.append(cmp("=", linear((1, end(s)) for s in n.states), const(1)))
    for s in n.states:
        flow = linear([(1, y(e)) for e in n.order if e.target == s]
                      + [(-1, y(e)) for e in n.order if e.source == s])
        parts.append(cmp("=", flow, linear([(1, end(s))], -1 if s == n.init else 0)))
    return parts


def _ends(n: _Names, shape: _Shape) -> list[Formula]:
    """Where the walk ends, and which label the lock's holder will add."""
    M, G, end = n.M, n.G, n.end
    parts: list[Formula] = []
    # Nobody holds the lock at a global where no holder can step: there the walk ends at
    # the current global. (Where a holder can step the pair constraints below say where
    # it ends; no commit starts there, so nothing more is needed. Leaving H out keeps
    # these conjuncts untouched by the holder's own steps.)
    holder_globals = {g for h in shape.holders for g in shape.steps_at[h]}
    for g in sorted(n.gplace):
        if g not in holder_globals:
            parts.append(cmp("<=", G(g), end(g)))
    for h in sorted(shape.holders):
        by_end: dict[str, list[str]] = {}
        by_label: dict[str, list[str]] = {}
        for g in sorted(shape.steps_at[h]):
            v, g2 = shape.completion[(h, g)]
            by_end.setdefault(g2, []).append(g)
            by_label.setdefault(v, []).append(g)
        for g2, gs in sorted(by_end.items()):
            parts.append(cmp("<=", linear([(1, M(h))] + [(1, G(g)) for g in gs], -1), end(g2)))
        r = n.net.places[h].request or ""
        for v, gs in sorted(by_label.items()):
            if (r, v) not in n.cname:
                raise NotApplicable(
                    f"{n.net.places[h].label()} completes with an uncommitted label")
            parts.append(cmp("<=", linear([(1, M(h))] + [(1, G(g)) for g in gs], -1),
                             Aux(n.cname[(r, v)])))
    return parts


def _labels(n: _Names, shape: _Shape) -> list[Formula]:
    """The walk's labels are the answered requests, the finished ones and the holder's."""
    parts: list[Formula] = []
    if n.labels:
        parts += [cmp(">=", Aux(n.cname[rv]), const(0)) for rv in n.labels]
        parts.append(cmp("=", linear((1, Aux(n.cname[rv])) for rv in n.labels),
                         linear((1, n.M(h)) for h in sorted(shape.holders))))
    for i, p in enumerate(n.net.places):
        if p.kind != "response":
            continue
        rv = (p.request or "", p.state)
        lhs = linear([(1, n.y(e)) for e in n.order if (e.request, e.response) == rv])
        rhs: list[tuple[int, Term]] = [(1, n.M(i))]
        rhs += [(1, n.M(j)) for j, v in sorted(shape.finished.items())
                if (n.net.places[j].request, v) == rv]
        if rv in n.cname:
            rhs.append((1, Aux(n.cname[rv])))
        parts.append(cmp("=", lhs, linear(rhs)))
    return parts


def _loops(n: _Names) -> list[Formula]:
    """Connectivity when the commit edges form a DAG apart from self-loops: a loop is on
    the path when its state has an inflow (measured on locked-03: a fifth of the checker's
    consecution time of the rank encoding)."""
    parts: list[Formula] = []
    for s in n.states:
        loops = [e for e in n.order if e.source == s == e.target]
        if s == n.init or not loops:
            continue
        inflow = [e for e in n.order if e.target == s and e.source != s]
        parts.append(implies(cmp(">=", linear((1, n.y(e)) for e in loops), const(1)),
                             cmp(">=", linear((1, n.y(e)) for e in inflow), const(1))))
    return parts


def _ranks(n: _Names) -> list[Formula]:
    """Connectivity by visited flags and first-visit ranks, as in templates.py."""
    vis, rank, init = n.vis, n.rank, n.init
    parts: list[Formula] = []
    for s in n.states:
        if s != init:
            parts += [cmp(">=", vis(s), const(0)), cmp("<=", vis(s), const(1)),
                      cmp("<=", n.end(s), vis(s))]
    for e in n.order:
        seen = [cmp("=", vis(s), const(1)) for s in sorted({e.source, e.target}) if s != init]
        if seen:
            parts.append(implies(cmp(">=", n.y(e), const(1)), conj(seen)))
    for s in n.states:
        if s == init:
            continue
        options = [conj([cmp(">=", n.y(e), const(1)), cmp("<", rank(e.source), rank(s))])
                   for e in n.order if e.target == s and e.source != s]
        parts.append(implies(cmp("=", vis(s), const(1)), disj(options) if options else FALSE))
    return parts


def _updates(n: _Names, shape: _Shape) -> tuple[tuple[int, tuple[tuple[str, Term], ...]], ...]:
    """The aux variables' witness updates on the commit and release transitions."""
    updates: list[tuple[int, tuple[tuple[str, Term], ...]]] = []
    for ti in sorted(set(shape.commits) | set(shape.releases)):
        assign: list[tuple[str, Term]] = []
        if ti in shape.commits:
            assign += _commit(n, shape.commits[ti], ti in shape.into_holder)
        if ti in shape.releases:
            rv = (n.net.transitions[ti].request, shape.releases[ti])
            if rv not in n.cname:
                raise NotApplicable(
                    f"{n.net.transitions[ti].label()} releases an uncommitted label")
            c = n.cname[rv]
            assign.append((c, linear([(1, Aux(c))], -1)))
        if assign:
            updates.append((ti, tuple(assign)))
    return tuple(updates)


def _commit(n: _Names, e: SerialEdge, into_holder: bool) -> list[tuple[str, Term]]:
    """A commit extends the walk by its edge (moving its end, visiting its target)."""
    assign: list[tuple[str, Term]] = [(n.yname[e], linear([(1, n.y(e))], 1))]
    if e.target != e.source:
        assign.append((f"e{n.sid[e.source]}", linear([(1, n.end(e.source))], -1)))
        assign.append((f"e{n.sid[e.target]}", linear([(1, n.end(e.target))], 1)))
        if e.target != n.init and n.ranked:
            k = n.sid[e.target]
            assign.append((f"v{k}", const(1)))
            old = cmp("=", n.vis(e.target), const(1))
            assign.append((f"d{k}", Ite(old, n.rank(e.target),
                                        linear([(1, n.rank(e.source))], 1))))
    if into_holder:
        c = n.cname[(e.request, e.response)]
        assign.append((c, linear([(1, Aux(c))], 1)))
    return assign
