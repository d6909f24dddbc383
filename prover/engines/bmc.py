"""Symbolic bounded model checking (z3) for counterexamples the explicit search misses.

The unrolling is over the same *fused moves* as the explicit search (see the reductions
documented in prover/engines/explicit.py, all of which keep every reachable quiescent
marking reachable): one move is one NS step of one instance, fused with the instance's
spawn when it is its first step, and with its response when it responds right after;
plus "spawn and respond at once" and a stutter move (allowed only at the end, so that a
depth-K query covers every shorter execution exactly once). Counters:

* `g_j` the global state (an integer id), `c_j[t]` the instances in flight per token
  `(request, local)` that can be kept in flight, `d_j[p]` the completed pairs;
* `c_{j+1}[x] = c_j[x] + Σ_moves [m_j = move]·δ_move(x)`, guards `g_j = from-global`,
  `c_j[token] ≥ 1` for a step of an in-flight instance.

Goal at depth K: nothing in flight and the completed vector violates serializability.
The violation condition is built from, in this order of strength:

1. pairs that no serial execution from the initial state produces (`d[p] ≥ 1`), from
   the exact membership oracle;
2. the quantifier-free `π(M) ∉ S` clauses of the serial set (prover/target.py helpers
   over prover/serial/parikh.py), when that construction is available and succeeds;
3. otherwise CEGAR: any quiescent completed vector is accepted as a candidate.

Every candidate the solver returns is replayed on the NS and checked with the exact
membership oracle (prover/serial/membership.py); a serial one is blocked (`d ≠ v`)
and the query repeated. So the engine never reports a spurious counterexample even if
an optional piece above were wrong; the checker re-verifies the certificate anyway.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from prover.context import RunContext
from prover.engines import Counterexample, Event, replay
from prover.engines.explicit import _Tables
from prover.ns import NetworkSystem
from prover.serial.automaton import SerialAutomaton
from prover.serial.membership import SerialMembership

if TYPE_CHECKING:
    from prover.serial.parikh import SerialSet


@dataclass(frozen=True)
class BmcResult:
    counterexample: Counterexample | None
    reason: str
    depth: int = 0


@dataclass(frozen=True)
class _Move:
    """kind: "step" (token in flight steps), "spawn" (new instance steps), "spawn_respond",
    "stutter". `keep` is the token kept in flight afterwards (None: responds with
    `response`)."""

    kind: str
    request: str
    local: int
    glob: int
    to_local: int
    to_glob: int
    response: str | None


def _moves(tab: _Tables) -> list[_Move]:
    ns = tab.ns
    # Locals each request name can be in (local graph from its entries, any global).
    succ: dict[int, set[int]] = {}
    for t in ns.transitions:
        succ.setdefault(tab.lid[t.from_local], set()).add(tab.lid[t.to_local])
    reach: dict[str, set[int]] = {}
    for req, l0 in tab.entries:
        seen = reach.setdefault(req, set())
        todo = [l0]
        while todo:
            a = todo.pop()
            if a in seen:
                continue
            seen.add(a)
            todo.extend(succ.get(a, ()))
    moves: list[_Move] = []

    def outcomes(kind: str, req: str, loc: int, g: int, l2: int, g2: int) -> None:
        for v in tab.responses.get(l2, ()):
            moves.append(_Move(kind, req, loc, g, l2, g2, v))
        if l2 in tab.keep:
            moves.append(_Move(kind, req, loc, g, l2, g2, None))

    for req in ns.request_names:
        for loc in sorted(reach.get(req, set()) & tab.keep):
            for (a, g), targets in sorted(tab.steps.items()):
                if a != loc:
                    continue
                for l2, g2 in targets:
                    outcomes("step", req, loc, g, l2, g2)
    for req, l0 in dict.fromkeys(tab.entries):
        for v in tab.responses.get(l0, ()):
            moves.append(_Move("spawn_respond", req, l0, -1, l0, -1, v))
        for (a, g), targets in sorted(tab.steps.items()):
            if a != l0:
                continue
            for l2, g2 in targets:
                outcomes("spawn", req, l0, g, l2, g2)
    moves.append(_Move("stutter", "", -1, -1, -1, -1, None))
    return moves


def _not_serial_clauses(
    serial_set: Callable[[], SerialSet], pair_index: dict[tuple[str, str], int], d: list[Any]
) -> Any | None:
    """`π(d) ∉ S` as a z3 formula from the serial set's simple linear sets, or None."""
    try:
        import z3

        from prover.target import FreshVars, active_labels, conjunction_to_z3, serial_set_atoms
    except ImportError:
        return None
    try:
        s = serial_set()
        active = active_labels(s)
        places = [pair_index.get(s.labels[j], -1) for j in active]
        if any(p < 0 for p in places):
            return None
        zs = {i: d[i] for i in range(len(d))}
        clauses = [
            z3.Or([conjunction_to_z3(f, zs, prefix="bmc_q") for a in atoms for f in a.fails])
            for atoms in serial_set_atoms(s, active, places, FreshVars())
        ]
        covered = {pair_index[s.labels[j]] for j in active if s.labels[j] in pair_index}
        outside = [d[i] >= 1 for i in range(len(d)) if i not in covered]
        return z3.Or(outside + [z3.And(clauses)])
    except Exception:  # optional accelerator only: fall back to CEGAR
        return None


def find_counterexample_bmc(
    ns: NetworkSystem,
    *,
    automaton: SerialAutomaton | None = None,
    deadline: float | None = None,
    lower_bound: int = 0,
    max_depth: int = 200,
    use_serial_set: bool = True,
    run: RunContext | None = None,
) -> BmcResult:
    """Search executions of increasing length (in fused moves) with z3. The serial
    automaton and S come from `run` (built there once, S only if asked for)."""
    import z3

    run = run or RunContext.of(ns, automaton=automaton)
    aut = run.automaton
    oracle = SerialMembership(aut)
    tab = _Tables(ns)
    moves = _moves(tab)
    stutter = len(moves) - 1
    tokens = sorted({(m.request, m.to_local) for m in moves if m.kind != "stutter"
                     and m.response is None}
                    | {(m.request, m.local) for m in moves if m.kind == "step"})
    tok_index = {t: i for i, t in enumerate(tokens)}
    pairs = sorted({(m.request, m.response) for m in moves if m.response is not None})
    pair_index = {p: i for i, p in enumerate(pairs)}
    if not pairs:
        return BmcResult(None, "no request can ever respond")
    producible = oracle.producible_from_initial()

    solver = z3.Solver()
    g0 = z3.Int("g_0")
    c_vars = [[z3.Int(f"c_0_{i}") for i in range(len(tokens))]]
    d_vars = [[z3.Int(f"d_0_{i}") for i in range(len(pairs))]]
    g_vars = [g0]
    m_vars: list[Any] = []
    solver.add(g0 == tab.gid[ns.initial_global])
    solver.add(*[x == 0 for x in c_vars[0]], *[x == 0 for x in d_vars[0]])
    serial_clauses: Any | None = None
    blocked: list[tuple[int, ...]] = []

    def time_left() -> float:
        return float("inf") if deadline is None else deadline - time.monotonic()

    for k in range(1, max_depth + 1):
        if time_left() <= 0.05:
            return BmcResult(None, f"time limit at depth {k - 1}", k - 1)
        j = k - 1
        m = z3.Int(f"m_{j}")
        m_vars.append(m)
        g, c, d = g_vars[j], c_vars[j], d_vars[j]
        g2 = z3.Int(f"g_{k}")
        c2 = [z3.Int(f"c_{k}_{i}") for i in range(len(tokens))]
        d2 = [z3.Int(f"d_{k}_{i}") for i in range(len(pairs))]
        solver.add(m >= 0, m < len(moves))
        dc: list[list[Any]] = [[] for _ in tokens]
        dd: list[list[Any]] = [[] for _ in pairs]
        for idx, mv in enumerate(moves):
            sel = m == idx
            if mv.kind in ("stutter", "spawn_respond"):
                solver.add(z3.Implies(sel, g2 == g))
            else:
                solver.add(z3.Implies(sel, z3.And(g == mv.glob, g2 == mv.to_glob)))
            if mv.kind == "step":
                ti = tok_index[(mv.request, mv.local)]
                solver.add(z3.Implies(sel, c[ti] >= 1))
                dc[ti].append(z3.If(sel, -1, 0))
            if mv.kind == "stutter":
                continue
            if mv.response is not None:
                dd[pair_index[(mv.request, mv.response)]].append(z3.If(sel, 1, 0))
            else:
                dc[tok_index[(mv.request, mv.to_local)]].append(z3.If(sel, 1, 0))
        for i in range(len(tokens)):
            solver.add(c2[i] == c[i] + z3.Sum([z3.IntVal(0)] + dc[i]))
        for i in range(len(pairs)):
            solver.add(d2[i] == d[i] + z3.Sum([z3.IntVal(0)] + dd[i]))
        if j > 0:
            solver.add(z3.Implies(m_vars[j - 1] == stutter, m == stutter))
        g_vars.append(g2)
        c_vars.append(c2)
        d_vars.append(d2)
        if use_serial_set and k == 1:
            serial_clauses = _not_serial_clauses(lambda: run.serial_set, pair_index,
                                                 d_vars[0])
        while True:
            if time_left() <= 0.05:
                return BmcResult(None, f"time limit at depth {k}", k)
            solver.push()
            solver.add(*[x == 0 for x in c2])
            viol = [d2[pair_index[p]] >= 1 for p in pairs if p not in producible]
            if serial_clauses is not None:
                viol.append(z3.substitute(
                    serial_clauses, *[(d_vars[0][i], d2[i]) for i in range(len(pairs))]
                ))
            else:
                viol.append(z3.BoolVal(True))  # CEGAR: any quiescent vector is a candidate
            solver.add(z3.Or(viol))
            for v in blocked:
                solver.add(z3.Or([d2[i] != v[i] for i in range(len(pairs))]))
            left = time_left()
            solver.set("timeout", int(min(left, 3.6e6) * 1000) if left != float("inf") else 0)
            r = solver.check()
            if r != z3.sat:
                solver.pop()
                if r == z3.unknown:
                    why = "time limit" if time_left() <= 0.1 else "solver gave up"
                    return BmcResult(None, f"{why} at depth {k}", k)
                break
            model = solver.model()
            chosen = [model.eval(mv_var, model_completion=True).as_long() for mv_var in m_vars]
            vec = tuple(model.eval(x, model_completion=True).as_long() for x in d2)
            solver.pop()
            cex = _trace(tab, moves, chosen, lower_bound)
            if not oracle.is_serial(cex.completed):
                return BmcResult(cex, "found", k)
            blocked.append(vec)
    return BmcResult(None, f"depth bound {max_depth} reached", max_depth)


def _trace(
    tab: _Tables, moves: list[_Move], chosen: list[int], lower_bound: int
) -> Counterexample:
    events: list[Event] = []
    at: dict[tuple[str, int], list[int]] = {}
    nxt = 1
    glob = tab.gid[tab.ns.initial_global]
    for idx in chosen:
        mv = moves[idx]
        if mv.kind == "stutter":
            break
        if mv.kind == "step":
            inst = at[(mv.request, mv.local)].pop(0)
        else:
            inst = nxt
            nxt += 1
            events.append(Event("spawn", inst, mv.request, tab.locals[mv.local]))
        loc = mv.local
        if mv.kind != "spawn_respond":
            events.append(Event(
                "step", inst, mv.request, tab.locals[mv.local], global_=tab.globals[glob],
                to_local=tab.locals[mv.to_local], to_global=tab.globals[mv.to_glob],
            ))
            glob = mv.to_glob
            loc = mv.to_local
        if mv.response is not None:
            events.append(Event("respond", inst, mv.request, tab.locals[loc],
                                response=mv.response))
        else:
            lst = at.setdefault((mv.request, loc), [])
            lst.append(inst)
            lst.sort()
    trace = tuple(events)
    completed = replay(tab.ns, trace)
    return Counterexample(trace, completed, nxt - 1, lower_bound, "bmc")
