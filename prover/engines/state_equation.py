"""State equation with trap, topological and connectivity refinement (CEGAR).

The invariant, over place counters M and one auxiliary counter x_t per *live* transition
(witness update x_t' = x_t + 1, initial value 0):

    SE:     M(p) = M0(p) + Σ_t C(p,t)·x_t  for every place p,   x_t ≥ 0
    traps:  Σ_{p∈Q} M(p) ≥ 1                 (Q a trap of the live net, initially marked)
    topo:   x_t ≥ 1 ⇒ Σ_{u≠t, C(p,u)>0} x_u ≥ 1   (p an input of t not marked enough at M0)
    conn:   the global places form a one-token state machine; the fired global moves form
            a walk from the initial global (visited flags v_g, first-visit ranks d_g):
              M(G g) ≤ v_g,  0 ≤ v_g ≤ 1,  x_t ≥ 1 ⇒ v_src = 1 ∧ v_tgt = 1,
              v_g = 1 ⇒ ∨_{t: g'→g, g'≠g} (x_t ≥ 1 ∧ d_g' < d_g)   (g not initial)
            updates on a move g→g': v_g' := 1, d_g' := ite(v_g' = 1, d_g', d_g + 1).

Transitions that are structurally dead (an input place that no firing sequence can ever
mark, by the usual forward fixpoint) get no counter: x_t is 0, so the SE rows of dead
places read M(p) = 0 and every dead transition is disabled under the invariant, which
keeps consecution valid on the *full* net.

Each conjunct is inductive on its own given SE (standard arguments, recalled in the
comments of the builders), so the conjunction is inductive for every transition of the
full net with the updates above. The refinement loop asks z3 for a marking satisfying
the invariant and the target; on a solution it adds the first applicable refinement
(trap, then topological, then connectivity) and repeats; when the query is unsat the
invariant refutes the target.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

import z3

from prover.engines.holders import HolderRow
from prover.petri.net import PetriNet, Place
from prover.smt.formula import (
    FALSE,
    And,
    Aux,
    Cmp,
    Formula,
    Ite,
    Not,
    Or,
    PlaceVar,
    Sum,
    Term,
    cmp,
    conj,
    const,
    disj,
    formula_z3,
    implies,
    linear,
    substitute_all,
)
from prover.smt.invariant import Invariant, bound_query
from prover.smt.target_z3 import target_z3
from prover.target import Target

REFINE_RLIMIT = 400_000_000
"""z3 resource units of one refinement query (a count, as a self-check query's
`QUERY_RLIMIT`): with the run's deadline as the only wall-clock cut, the refinements end
at the same point on a loaded machine as on an idle one."""

CORE_RLIMIT = 200_000_000
"""z3 resource units of the unsat-core query that shrinks the invariant (about 18 s
idle; it used to get half of the remaining time, so its result depended on the load).
Past it the full invariant is used, which is always sound."""


@dataclass(frozen=True)
class SEStats:
    iterations: int = 0
    traps: int = 0
    topological: int = 0
    connectivity: bool = False
    live_transitions: int = 0
    seconds: float = 0.0


@dataclass(frozen=True)
class SEResult:
    """`invariant`: the reduced invariant (unsat-core based) or, failing that, the full one;
    `full_invariant`: every row and lemma (the fallback if the reduced one fails a check)."""

    invariant: Invariant | None
    stats: SEStats
    reason: str = ""
    full_invariant: Invariant | None = None


# ---------------------------------------------------------------- structure


def live_structure(net: PetriNet) -> tuple[frozenset[int], tuple[int, ...]]:
    """(places that may ever be marked, live transitions) by the forward fixpoint: a
    transition is live when all its input places may be marked."""
    markable = {i for i, w in net.initial if w > 0}
    live: set[int] = set()
    changed = True
    while changed:
        changed = False
        for ti, t in enumerate(net.transitions):
            if ti in live:
                continue
            if all(p in markable for p, _ in t.pre):
                live.add(ti)
                changed = True
                for p, w in t.post:
                    if w > 0:
                        markable.add(p)
    return frozenset(markable), tuple(sorted(live))


def _incidence(net: PetriNet) -> list[dict[int, int]]:
    """Per place: transition index -> C(p, t) (non-zero only)."""
    rows: list[dict[int, int]] = [{} for _ in net.places]
    for ti, t in enumerate(net.transitions):
        for p, w in t.pre:
            rows[p][ti] = rows[p].get(ti, 0) - w
        for p, w in t.post:
            rows[p][ti] = rows[p].get(ti, 0) + w
    for r in rows:
        for k in [k for k, v in r.items() if v == 0]:
            del r[k]
    return rows


def _global_moves(net: PetriNet) -> dict[int, tuple[int, int]] | None:
    """For nets whose global places form a one-token state machine: transition index ->
    (source global place, target global place) for every transition touching a global
    place. None if the structure does not hold."""
    glob = {i for i, p in enumerate(net.places) if p.kind == "global"}
    if sum(w for i, w in net.initial if i in glob) != 1:
        return None
    moves: dict[int, tuple[int, int]] = {}
    for ti, t in enumerate(net.transitions):
        ins = [(p, w) for p, w in t.pre if p in glob]
        outs = [(p, w) for p, w in t.post if p in glob]
        if not ins and not outs:
            continue
        if len(ins) != 1 or len(outs) != 1 or ins[0][1] != 1 or outs[0][1] != 1:
            return None
        moves[ti] = (ins[0][0], outs[0][0])
    return moves


# ---------------------------------------------------------------- the engine

@dataclass
class _Builder:
    net: PetriNet
    live: tuple[int, ...]
    markable: frozenset[int]
    m: dict[int, z3.ArithRef] = field(default_factory=dict)
    x: dict[int, z3.ArithRef] = field(default_factory=dict)
    lemmas: list[Formula] = field(default_factory=list)
    z3_lemmas: list[z3.BoolRef] = field(default_factory=list)
    lemma_info: list[tuple[str, tuple[int, ...]]] = field(default_factory=list)
    conn_z3: list[z3.BoolRef] = field(default_factory=list)
    aux_names: dict[int, str] = field(default_factory=dict)
    row_items: dict[int, list[tuple[int, int]]] = field(default_factory=dict)
    m0: list[int] = field(default_factory=list)
    ctx: z3.Context | None = None
    background: z3.BoolRef | None = None

    def xterm(self, ti: int) -> Term:
        return Aux(self.aux_names[ti])

    def place_term(self, pi: int) -> Term:
        return PlaceVar(self.net.places[pi])


def prove_state_equation(
    net: PetriNet,
    target: Target,
    *,
    deadline: float,
    max_iterations: int = 400,
    background: Formula | None = None,
    holders: Sequence[HolderRow] = (),
) -> SEResult:
    """`background`: a known inductive invariant over the places (e.g. the coverability
    invariant of a restricted NS), assumed in every query; the returned invariants are
    then inductive but refute the target only together with it (the caller conjoins).
    `holders`: flow rows of virtual places (prover/engines/holders.py), valid only
    together with `background`."""
    start = time.monotonic()
    markable, live = live_structure(net)
    live_set = set(live)
    rows = _incidence(net)
    m0 = net.initial_vector()
    b = _Builder(net, live, markable)
    b.m0 = m0
    for ti in live:
        b.aux_names[ti] = f"x{ti}"
    ctx = z3.Context()
    b.ctx = ctx
    b.m = {i: z3.Int(f"m{i}", ctx) for i in range(len(net.places))}
    b.x = {ti: z3.Int(f"x{ti}", ctx) for ti in live}
    xv = b.x
    mv = b.m

    solver = z3.Solver(ctx=ctx)
    solver.add([v >= 0 for v in mv.values()])
    # SE rows (AST and z3)
    row_ast: list[Formula] = []
    row_z3: list[z3.BoolRef] = []
    for pi in range(len(net.places)):
        items = [(c, ti) for ti, c in sorted(rows[pi].items()) if ti in live_set]
        b.row_items[pi] = items
        rhs = linear([(c, b.xterm(ti)) for c, ti in items], m0[pi])
        row_ast.append(cmp("=", b.place_term(pi), rhs))
        flow = z3.Sum([z3.IntVal(0, ctx)] + [c * xv[ti] for c, ti in items])
        row_z3.append(mv[pi] == m0[pi] + flow)
    solver.add(row_z3)
    for ti in live:
        solver.add(xv[ti] >= 0)
    solver.add(target_z3(target, mv, ctx, prefix="tk"))
    bg_z3 = None
    if background is not None:
        index = net.place_index
        bg_z3 = formula_z3(background, lambda p: mv[index[p]], lambda a: z3.Int(a, ctx), ctx)
        solver.add(bg_z3)
    b.background = bg_z3
    for row in holders:
        held = linear((1, b.place_term(i)) for i in row.local_places)
        when = cmp(">=", b.place_term(row.global_place), const(1))
        items = [(c, ti) for ti, c in row.coefficients if ti in live_set]
        b.lemmas.append(cmp("=", Ite(when, held, const(0)),
                            linear([(c, b.xterm(ti)) for c, ti in items])))
        held_z3 = z3.Sum([z3.IntVal(0, ctx)] + [mv[i] for i in row.local_places])
        b.z3_lemmas.append(
            z3.If(mv[row.global_place] >= 1, held_z3, z3.IntVal(0, ctx))
            == z3.Sum([z3.IntVal(0, ctx)] + [c * xv[ti] for c, ti in items])
        )
        b.lemma_info.append(("holder", (row.global_place, *row.local_places)))
        solver.add(b.z3_lemmas[-1])

    moves = _global_moves(net)
    traps = 0
    topo_added: set[tuple[int, int]] = set()
    conn_lemmas: list[Formula] = []
    conn_aux: list[str] = []
    conn_updates: dict[int, list[tuple[str, Term]]] = {}
    iterations = 0
    reason = ""
    proved = False
    # With a large target each query goes to a fresh solver: a solver that already
    # answered solves incrementally, without z3's preprocessing, and the refuting query
    # of counter-64 (231,440 target alternatives) then took 7.1 s instead of ~0.5 s.
    # Small targets keep the incremental solver (many cheap refinements). A count.
    fresh_queries = target.is_large()
    while iterations < max_iterations:
        iterations += 1
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            reason = f"budget exhausted after {iterations - 1} refinements"
            break
        query = solver
        if fresh_queries:  # `solver` only collects the assertions, never checks
            query = z3.Solver(ctx=ctx)
            query.add(solver.assertions())
        bound_query(query, deadline, REFINE_RLIMIT)
        r = query.check()
        if r == z3.unsat:
            proved = True
            break
        if r != z3.sat:
            reason = f"z3 answered {r} after {iterations - 1} refinements"
            break
        model = query.model()
        mval = [model.eval(mv[i], model_completion=True).as_long() for i in range(len(mv))]
        xval = {ti: model.eval(xv[ti], model_completion=True).as_long() for ti in live}
        # 1. trap
        q = _maximal_trap(net, live, markable, {i for i, v in enumerate(mval) if v > 0})
        if any(m0[i] > 0 for i in q):
            traps += 1
            qs = sorted(q)
            b.lemmas.append(cmp(">=", linear([(1, b.place_term(i)) for i in qs]), const(1)))
            b.z3_lemmas.append(z3.Sum([mv[i] for i in qs]) >= 1)
            b.lemma_info.append(("trap", tuple(qs)))
            solver.add(b.z3_lemmas[-1])
            continue
        # 2. topological
        new_topo = _topological_violations(net, live, rows, m0, xval, topo_added)
        if new_topo:
            for ti, pi in new_topo:
                topo_added.add((ti, pi))
                feeders = [
                    u for u, c in sorted(rows[pi].items()) if c > 0 and u != ti and u in live_set
                ]
                fired = cmp(">=", b.xterm(ti), const(1))
                if feeders:
                    fed = cmp(">=", linear([(1, b.xterm(u)) for u in feeders]), const(1))
                    b.lemmas.append(implies(fired, fed))
                    b.z3_lemmas.append(
                        z3.Implies(xv[ti] >= 1, z3.Sum([xv[u] for u in feeders]) >= 1)
                    )
                else:
                    b.lemmas.append(cmp("=", b.xterm(ti), const(0)))
                    b.z3_lemmas.append(xv[ti] == 0)
                b.lemma_info.append(("topo", (ti, pi)))
                solver.add(b.z3_lemmas[-1])
            continue
        # 3. connectivity of the global walk
        if (
            moves is not None
            and not conn_lemmas
            and not _walk_connected(net, moves, live, mval, xval)
        ):
            conn_lemmas, conn_aux, conn_updates, conn_z3 = _connectivity(net, moves, b)
            solver.add(conn_z3)
            b.conn_z3 = conn_z3
            continue
        reason = (
            f"the state equation with {iterations - 1} refinements admits a marking in the "
            f"target, and no trap, topological or connectivity constraint excludes it"
        )
        break
    stats = SEStats(
        iterations=iterations,
        traps=traps,
        topological=len(topo_added),
        connectivity=bool(conn_lemmas),
        live_transitions=len(live),
        seconds=time.monotonic() - start,
    )
    full = _assemble(
        net, b, range(len(net.places)), row_ast, range(len(b.lemmas)), conn_lemmas, conn_aux,
        conn_updates,
    )
    if not proved:
        # `full` is still inductive (every conjunct is): other engines strengthen it.
        why = reason or f"no proof after {max_iterations} refinements"
        return SEResult(None, stats, why, full_invariant=full)
    # A large target: z3 minimises a core by one refutation query per member, each as
    # hard as the target is large (counter-48, 99,500 alternatives: 39 s for a core of
    # 244 of 250 assertions, which the unminimised core already was), and the query for
    # the core alone costs another refutation: the full invariant is kept. A count, not
    # a time.
    reduced = None if target.is_large() else _reduce(
        net, b, target, rows, row_ast, row_z3, conn_lemmas, conn_aux, conn_updates, deadline
    )
    stats = replace(stats, seconds=time.monotonic() - start)
    return SEResult(reduced or full, stats, full_invariant=full)


def _assemble(
    net: PetriNet,
    b: _Builder,
    keep_rows: Iterable[int],
    row_ast: list[Formula],
    keep_lemmas: Iterable[int],
    conn_lemmas: list[Formula],
    conn_aux: list[str],
    conn_updates: dict[int, list[tuple[str, Term]]],
) -> Invariant:
    """The invariant made of the chosen SE rows and lemmas (plus the connectivity group
    when `conn_lemmas` is not empty), with `x_t ≥ 0` for every counter it mentions."""
    keep_rows = list(keep_rows)
    # A kept row with a single counter, M(p) = M0(p) ± x_t, defines x_t: substitute
    # x_t := ±(M(p) − M0(p)) everywhere and drop the row and the counter. Consecution is
    # unchanged because only t (among live transitions) changes M(p), by ±1.
    defined: dict[int, Term] = {}
    rest_rows: list[int] = []
    for pi in keep_rows:
        items = b.row_items.get(pi, [])
        if len(items) == 1 and abs(items[0][0]) == 1 and items[0][1] not in defined:
            c, ti = items[0]
            defined[ti] = linear([(c, b.place_term(pi))], -c * b.m0[pi])
        else:
            rest_rows.append(pi)
    kept_rows = [row_ast[i] for i in rest_rows]
    others = [b.lemmas[i] for i in keep_lemmas] + conn_lemmas
    mentioned: set[str] = set()
    for f in [row_ast[i] for i in keep_rows] + others:
        mentioned |= aux_names(f)
    counters = [ti for ti in b.live if b.aux_names[ti] in mentioned]
    nonneg = [cmp(">=", b.xterm(ti), const(0)) for ti in counters]
    formula = conj(kept_rows + nonneg + others)
    if defined:  # the defining terms mention places only: one simultaneous pass
        formula = substitute_all(formula, {b.aux_names[ti]: t for ti, t in defined.items()})
    counters = [ti for ti in counters if ti not in defined]
    aux = tuple(b.aux_names[ti] for ti in counters) + tuple(conn_aux)
    updates: list[tuple[int, tuple[tuple[str, Term], ...]]] = []
    counted = set(counters)
    for ti in b.live:
        assign: list[tuple[str, Term]] = []
        if ti in counted:
            assign.append((b.aux_names[ti], linear([(1, b.xterm(ti))], 1)))
        if conn_lemmas:
            assign.extend(conn_updates.get(ti, []))
        if assign:
            updates.append((ti, tuple(assign)))
    return Invariant(aux, tuple((a, 0) for a in aux), formula, tuple(updates))


def _reduce(
    net: PetriNet,
    b: _Builder,
    target: Target,
    rows: list[dict[int, int]],
    row_ast: list[Formula],
    row_z3: list[z3.BoolRef],
    conn_lemmas: list[Formula],
    conn_aux: list[str],
    conn_updates: dict[int, list[tuple[str, Term]]],
    deadline: float,
) -> Invariant | None:
    """A smaller invariant from an unsat core of the refutation query, closed under what
    consecution needs: every dead transition that touches a kept row, trap or the global
    walk gets the row `M(p) = 0` of one of its dead input places (so it stays disabled);
    topological lemmas keep the row of their place. None if no core was obtained."""
    remaining = deadline - time.monotonic()
    if remaining <= 0.2:
        return None
    ctx = b.ctx
    solver = z3.Solver(ctx=ctx)
    bound_query(solver, deadline, CORE_RLIMIT)
    # Measured on locked-03 with a background: the minimised core took 122 s of a 130 s
    # run (the refutation itself 5 s); an unminimised core is still a sound reduction.
    solver.set("core.minimize", b.background is None)
    solver.add([v >= 0 for v in b.m.values()])
    solver.add([x >= 0 for x in b.x.values()])
    solver.add(target_z3(target, b.m, ctx, prefix="tk"))
    if b.background is not None:
        solver.add(b.background)
    flags: dict[str, tuple[str, int]] = {}
    for pi, c in enumerate(row_z3):
        f = z3.Bool(f"keep_row{pi}", ctx)
        flags[str(f)] = ("row", pi)
        solver.assert_and_track(c, f)
    for li, c in enumerate(b.z3_lemmas):
        f = z3.Bool(f"keep_lemma{li}", ctx)
        flags[str(f)] = ("lemma", li)
        solver.assert_and_track(c, f)
    if b.conn_z3:
        f = z3.Bool("keep_conn", ctx)
        flags[str(f)] = ("conn", 0)
        solver.assert_and_track(z3.And(b.conn_z3), f)
    if solver.check() != z3.unsat:
        return None
    kept_rows: set[int] = set()
    kept_lemmas: set[int] = set()
    conn = False
    for lit in solver.unsat_core():
        kind, i = flags[str(lit)]
        if kind == "row":
            kept_rows.add(i)
        elif kind == "lemma":
            kept_lemmas.add(i)
        else:
            conn = True
    touched: set[int] = set()
    for li in kept_lemmas:
        kind, data = b.lemma_info[li]
        if kind == "topo":
            kept_rows.add(data[1])
        else:
            touched |= set(data)
    live = set(b.live)
    markable = b.markable
    globals_ = {i for i, p in enumerate(net.places) if p.kind == "global"}
    while True:
        watched = touched | kept_rows | (globals_ if conn else set())
        extra: set[int] = set()
        for ti, t in enumerate(net.transitions):
            if ti in live:
                continue
            places = {p for p, _ in t.pre} | {p for p, _ in t.post}
            if places & watched and not any(p in kept_rows for p, _ in t.pre if p not in markable):
                dead_inputs = sorted(p for p, _ in t.pre if p not in markable)
                extra.add(dead_inputs[0])
        if not extra - kept_rows:
            break
        kept_rows |= extra
    return _assemble(
        net, b, sorted(kept_rows), row_ast, sorted(kept_lemmas),
        conn_lemmas if conn else [], conn_aux if conn else [], conn_updates,
    )


def aux_names(f: Formula | Term) -> set[str]:
    """The auxiliary variables a formula or term mentions."""
    if isinstance(f, Aux):
        return {f.name}
    if isinstance(f, Sum):
        out: set[str] = set()
        for _, t in f.items:
            out |= aux_names(t)
        return out
    if isinstance(f, Ite):
        return aux_names(f.cond) | aux_names(f.then) | aux_names(f.other)
    if isinstance(f, (And, Or)):
        res: set[str] = set()
        for a in f.args:
            res |= aux_names(a)
        return res
    if isinstance(f, Not):
        return aux_names(f.arg)
    if isinstance(f, Cmp):
        return aux_names(f.lhs) | aux_names(f.rhs)
    return set()


def _maximal_trap(
    net: PetriNet, live: tuple[int, ...], markable: frozenset[int], marked: set[int]
) -> set[int]:
    """The largest trap of the live net inside the markable places unmarked in the
    solution (a union of traps is a trap, so it is unique)."""
    q = {i for i in markable if i not in marked}
    changed = True
    while changed:
        changed = False
        for ti in live:
            t = net.transitions[ti]
            if any(p in q for p, _ in t.pre) and not any(p in q for p, _ in t.post):
                for p, _ in t.pre:
                    if p in q:
                        q.discard(p)
                        changed = True
    return q


def _topological_violations(
    net: PetriNet,
    live: tuple[int, ...],
    rows: list[dict[int, int]],
    m0: list[int],
    xval: dict[int, int],
    done: set[tuple[int, int]],
) -> list[tuple[int, int]]:
    # Inductive given SE: when t fires for the first time (x_t = 0 before), its input p
    # holds ≥ Pre(t,p) > M0(p) tokens, and M(p) = M0(p) + Σ_{u≠t} C(p,u)·x_u, so some u
    # with C(p,u) > 0 has x_u ≥ 1. Counters never decrease afterwards.
    out: list[tuple[int, int]] = []
    for ti in live:
        if xval[ti] < 1:
            continue
        for pi, w in net.transitions[ti].pre:
            if m0[pi] >= w or (ti, pi) in done:
                continue
            fed = sum(xval.get(u, 0) for u, c in rows[pi].items() if c > 0 and u != ti)
            if fed == 0:
                out.append((ti, pi))
    return out


def _walk_connected(
    net: PetriNet,
    moves: dict[int, tuple[int, int]],
    live: tuple[int, ...],
    mval: list[int],
    xval: dict[int, int],
) -> bool:
    init = next(i for i, w in net.initial if w > 0 and net.places[i].kind == "global")
    adj: dict[int, set[int]] = {}
    used: list[tuple[int, int]] = []
    for ti in live:
        if ti in moves and xval[ti] > 0:
            s, d = moves[ti]
            used.append((s, d))
            adj.setdefault(s, set()).add(d)
            adj.setdefault(d, set()).add(s)
    seen = {init}
    todo = deque([init])
    while todo:
        s = todo.popleft()
        for d in adj.get(s, ()):
            if d not in seen:
                seen.add(d)
                todo.append(d)
    if any(s not in seen for s, _ in used):
        return False
    return all(
        mval[i] == 0 or i in seen for i, p in enumerate(net.places) if p.kind == "global"
    )


def _connectivity(
    net: PetriNet, moves: dict[int, tuple[int, int]], b: _Builder
) -> tuple[list[Formula], list[str], dict[int, list[tuple[str, Term]]], list[z3.BoolRef]]:
    init = next(i for i, w in net.initial if w > 0 and net.places[i].kind == "global")
    live_moves = [ti for ti in b.live if ti in moves]
    globals_ = sorted(
        {moves[ti][0] for ti in live_moves} | {moves[ti][1] for ti in live_moves} | {init}
    )
    vname = {g: f"v{g}" for g in globals_ if g != init}
    dname = {g: f"d{g}" for g in globals_ if g != init}
    vz = {g: z3.Int(n, b.ctx) for g, n in vname.items()}
    dz = {g: z3.Int(n, b.ctx) for g, n in dname.items()}

    def v_t(g: int) -> Term:
        return const(1) if g == init else Aux(vname[g])

    def d_t(g: int) -> Term:
        return const(0) if g == init else Aux(dname[g])

    def v_z(g: int) -> z3.ArithRef:
        return z3.IntVal(1, b.ctx) if g == init else vz[g]

    def d_z(g: int) -> z3.ArithRef:
        return z3.IntVal(0, b.ctx) if g == init else dz[g]

    lem: list[Formula] = []
    zl: list[z3.BoolRef] = []
    for g in globals_:
        if g == init:
            continue
        lem.append(cmp(">=", v_t(g), const(0)))
        lem.append(cmp("<=", v_t(g), const(1)))
        lem.append(cmp("<=", b.place_term(g), v_t(g)))
        zl += [vz[g] >= 0, vz[g] <= 1, b.m[g] <= vz[g]]
    for ti in live_moves:
        s, d = moves[ti]
        fired = cmp(">=", b.xterm(ti), const(1))
        seen = [cmp("=", v_t(g), const(1)) for g in sorted({s, d}) if g != init]
        if seen:
            lem.append(implies(fired, conj(seen)))
            zl.append(z3.Implies(b.x[ti] >= 1, z3.And([v_z(g) == 1 for g in sorted({s, d})])))
    for g in globals_:
        if g == init:
            continue
        preds = [ti for ti in live_moves if moves[ti][1] == g and moves[ti][0] != g]
        options = [
            conj([cmp(">=", b.xterm(ti), const(1)), cmp("<", d_t(moves[ti][0]), d_t(g))])
            for ti in preds
        ]
        lem.append(implies(cmp("=", v_t(g), const(1)), disj(options) if options else FALSE))
        zl.append(
            z3.Implies(
                vz[g] == 1,
                z3.Or([z3.And(b.x[ti] >= 1, d_z(moves[ti][0]) < dz[g]) for ti in preds])
                if preds
                else z3.BoolVal(False, b.ctx),
            )
        )
    updates: dict[int, list[tuple[str, Term]]] = {}
    for ti in live_moves:
        s, d = moves[ti]
        if d == s or d == init:
            continue
        updates[ti] = [
            (vname[d], const(1)),
            (
                dname[d],
                _ite_visited(v_t(d), d_t(d), linear([(1, d_t(s))], 1)),
            ),
        ]
    aux = [vname[g] for g in globals_ if g != init] + [dname[g] for g in globals_ if g != init]
    return lem, aux, updates, zl


def _ite_visited(v: Term, keep: Term, new: Term) -> Term:
    return Ite(cmp("=", v, const(1)), keep, new)


def place_of(net: PetriNet, i: int) -> Place:
    return net.places[i]
