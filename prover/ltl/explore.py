"""Explicit search for a violation of an LTL-X property with at most K requests
(docs/ltl.md): the product of the program's states with the Büchi automaton of ¬φ,
explored in full (no reduction yet), its strongly connected components (Tarjan,
iterative), and a lasso through an accepting (and, under weak fairness, fair) one.

A system state: the global state, one slot per request that may arrive (None: not yet
arrived; DONE: answered; else (request name, local state)), the answers so far, and
whether the environment has stopped delivering. Processes, for fairness: the
environment (-1) and each slot. A state with no move repeats itself (the finite
execution is extended by repetition): a stutter edge of process -2.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from prover.errors import SerError
from prover.ltl.buchi import Automaton, translate
from prover.ltl.formula import Binary, Compare, Formula, Not, Unary
from prover.ltl.lasso import Observation, global_values, holds, satisfies
from prover.ltl.reduce import accesses, visible
from prover.ns import NetworkSystem

DONE = ("", "")
ENV, STUTTER = -1, -2

Slot = tuple[str, str] | None
SysState = tuple[str, tuple[Slot, ...], tuple[tuple[tuple[str, str], int], ...], bool]


@dataclass(frozen=True)
class LtlResult:
    """`violated` with a lasso (states, loop start) that the exact semantics confirms;
    `holds` when the whole product was explored; `undecided` past `max_states`."""

    verdict: str  # "holds" | "violated" | "undecided"
    states: int  # product states explored
    system_states: int
    lasso: tuple[tuple[SysState, ...], int] | None = None
    movers: tuple[int, ...] = ()  # the process of each lasso edge (the last: back to the loop)


class System:
    """`symmetric`: a state keeps its slots sorted, so that states that differ only in
    which request is which are one state. Exact for every formula here (atoms count
    requests, never name one), but it forgets which request moved, so not under
    fairness, which is judged per request."""

    def __init__(self, ns: NetworkSystem, k: int, symmetric: bool) -> None:
        self.ns, self.k, self.symmetric = ns, k, symmetric
        self.steps, self.answers = ns.transitions_from, ns.responses_of
        self.ser = ns.kind == "ser"

    def initial(self) -> SysState:
        return (self.ns.initial_global, (None,) * self.k, (), False)

    def moves(self, s: SysState) -> list[tuple[int, SysState]]:
        return self.kept(self.raw_moves(s))

    def kept(self, found: list[tuple[int, SysState]]) -> list[tuple[int, SysState]]:
        """Moves with their successors as the search keeps them, each successor once."""
        if not self.symmetric:
            return found
        seen: dict[SysState, int] = {}
        for p, t in found:
            seen.setdefault(self._canonical(t), p)
        return [(p, t) for t, p in seen.items()]

    def canonical(self, s: SysState) -> SysState:
        """`s` as the search keeps it."""
        return self._canonical(s) if self.symmetric else s

    @staticmethod
    def _canonical(s: SysState) -> SysState:
        g, slots, answered, stopped = s
        arrived = sorted((x for x in slots if x is not None), key=lambda x: (x != DONE, x))
        return (g, tuple(arrived) + (None,) * (len(slots) - len(arrived)), answered, stopped)

    def raw_moves(self, s: SysState) -> list[tuple[int, SysState]]:
        """Every move from `s` (process, successor), successors as they are."""
        g, slots, answered, stopped = s
        out: list[tuple[int, SysState]] = []
        arrived = sum(1 for x in slots if x is not None)
        if not stopped:
            if arrived < self.k:
                for e in self.ns.requests:
                    new = slots[:arrived] + ((e.request, e.local),) + slots[arrived + 1:]
                    out.append((ENV, (g, new, answered, False)))
            out.append((ENV, (g, slots, answered, True)))
        for i, x in enumerate(slots):
            if x is None or x == DONE:
                continue
            r, loc = x
            for t in self.steps.get((loc, g), ()):
                out.append((i, (t.to_global, slots[:i] + ((r, t.to_local),) + slots[i + 1:],
                                answered, stopped)))
            for v in self.answers.get(loc, ()):
                counts = dict(answered)
                counts[(r, v)] = counts.get((r, v), 0) + 1
                out.append((i, (g, slots[:i] + (DONE,) + slots[i + 1:],
                                tuple(sorted(counts.items())), stopped)))
        return out

    def observe(self, s: SysState) -> Observation:
        g, slots, answered, _ = s
        inflight: dict[str, int] = {}
        for x in slots:
            if x is not None and x != DONE:
                inflight[x[0]] = inflight.get(x[0], 0) + 1
        return Observation(global_values(g) if self.ser else {}, inflight, dict(answered))


Node = tuple[SysState, int]  # (program state, automaton node)
Succ = Callable[[Node], list[tuple[int, Node]]]
Moves = Callable[[SysState], list[tuple[int, SysState]]]
Need = tuple[Node, Node | None, int | None]  # (u, None, None): visit u;
# (u, v, p): take the edge u -> v of process p


def system_for(ns: NetworkSystem, k: int, fairness: str, symmetry: bool = True) -> System:
    """The system `search` explores: symmetric only without fairness (judged per request)."""
    return System(ns, k, symmetric=symmetry and fairness == "none")


def search(ns: NetworkSystem, formula: Formula, k: int, *, fairness: str = "none",
           max_states: int = 200_000, symmetry: bool = True,
           reduction: bool = True, progress: Callable[[str], None] | None = None) -> LtlResult:
    """Look for an execution with at most `k` requests that violates `formula`
    (`symmetry`: identify states up to which request is which; `reduction`: ample sets,
    prover/ltl/reduce.py; both without fairness only; `progress`: told the states so far
    every 2,000)."""
    system = system_for(ns, k, fairness, symmetry)
    aut = translate(Not(formula))
    ample = _ample_sets(system, formula) if reduction and fairness == "none" else None
    path: set[Node] = set()  # the depth-first path, for the cycle proviso
    obs_cache: dict[SysState, Observation] = {}

    def sat(q: int, s: SysState) -> bool:
        o = obs_cache.get(s)
        if o is None:
            o = obs_cache[s] = system.observe(s)
        return all(satisfies(a, o) for a in aut.label[q])

    moves_cache: dict[SysState, list[tuple[int, SysState]]] = {}

    def moves(s: SysState) -> list[tuple[int, SysState]]:
        m = moves_cache.get(s)
        if m is None:
            m = system.moves(s) or [(STUTTER, s)]
            moves_cache[s] = m
        return m

    s0 = system.initial()
    inits = [(s0, q) for q in sorted(aut.initial) if sat(q, s0)]
    edges: dict[Node, list[tuple[int, Node]]] = {}

    def product(q: int, step: list[tuple[int, SysState]]) -> list[tuple[int, Node]]:
        return [(p, (s2, q2)) for p, s2 in step for q2 in sorted(aut.succ[q]) if sat(q2, s2)]

    def succ(n: Node) -> list[tuple[int, Node]]:
        out = edges.get(n)
        if out is None:
            s, q = n
            few = None if ample is None else ample(s)
            out = None if few is None else product(q, few)
            if out is None or any(m in path for _, m in out):  # C3: expand in full
                out = product(q, moves(s))
            edges[n] = out
            if progress is not None and len(edges) % 2000 == 0:
                progress(f"{len(edges):,} product states")
        return out

    found: tuple[set[Node], list[Need]] | None = None
    try:
        for comp in _sccs(inits, succ, max_states, path):
            need = _requirements(comp, succ, aut, moves, fairness, k)
            if need is not None:
                found = comp, need
                break
    except _TooBig:
        return LtlResult("undecided", len(edges), len({n[0] for n in edges}))
    if found is None:
        return LtlResult("holds", len(edges), len({n[0] for n in edges}))
    states, loop, movers = _lasso(inits, found[1], found[0], succ)
    word = [system.observe(s) for s in states]
    if holds(formula, word, loop):  # the automaton is not trusted (docs/ltl.md)
        raise AssertionError("internal error: the lasso found satisfies the formula")
    return LtlResult("violated", len(edges), len({n[0] for n in edges}),
                     (tuple(states), loop), tuple(movers))


def _ample_sets(system: System, formula: Formula
                ) -> Callable[[SysState], list[tuple[int, SysState]] | None] | None:
    """The ample set of a state (prover/ltl/reduce.py): the moves of the smallest stubborn
    set of requests whose moves are invisible to the formula, if it is not every move;
    None when there is none (or, for NS JSON, never)."""
    try:
        acc = accesses(system.ns)
    except SerError:  # a residual the parser does not take back: reduce nothing
        return None
    if acc is None:
        return None
    seen_globals, seen_requests = visible(formula)
    arriving = frozenset().union(*(acc[e.local].later for e in system.ns.requests))

    def team(s: SysState, start: int, flying: dict[int, tuple[str, str]],
             more: bool) -> set[int] | None:
        """The requests that must move with `start` (a stubborn set of processes): every
        request whose remaining steps touch what a member's next step touches; None if a
        request still to arrive would have to, or a member's move is visible."""
        g = s[0]
        members, todo = {start}, [start]
        while todo:
            r, loc = flying[todo.pop()]
            now = acc[loc].now
            if (now & seen_globals and (loc, g) in system.steps
                    or r in seen_requests and loc in system.answers
                    or more and now & arriving):
                return None
            for j, (_, other) in flying.items():
                if j not in members and acc[other].later & now:
                    members.add(j)
                    todo.append(j)
        return members

    def ample(s: SysState) -> list[tuple[int, SysState]] | None:
        slots, stopped = s[1], s[3]
        flying = {i: x for i, x in enumerate(slots) if x is not None and x != DONE}
        more = not stopped and sum(x is not None for x in slots) < system.k
        every = system.raw_moves(s)
        best: list[tuple[int, SysState]] | None = None
        for start in flying:
            members = team(s, start, flying, more)
            if members is None:
                continue
            mine = [(p, t) for p, t in every if p in members]
            if mine and len(mine) < len(every) and (best is None or len(mine) < len(best)):
                best = mine
        return None if best is None else system.kept(best)

    return ample


class _TooBig(Exception):
    pass


def _sccs(inits: list[Node], succ: Succ, max_states: int,
          path: set[Node]) -> Iterator[set[Node]]:
    """Tarjan's algorithm, iterative, over what is reachable from `inits`; `path` holds
    the depth-first path while a node's successors are asked for (and after)."""
    index: dict[Node, int] = {}
    low: dict[Node, int] = {}
    on_stack: set[Node] = set()
    stack: list[Node] = []
    for root in inits:
        if root in index:
            continue
        path.add(root)
        work = [(root, iter(succ(root)))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, it = work[-1]
            advanced = False
            for _, nxt in it:
                if nxt not in index:
                    if len(index) >= max_states:
                        raise _TooBig
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    path.add(nxt)
                    work.append((nxt, iter(succ(nxt))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            path.discard(work.pop()[0])
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                comp: set[Node] = set()
                while True:
                    x = stack.pop()
                    on_stack.discard(x)
                    comp.add(x)
                    if x == node:
                        break
                yield comp


def _requirements(comp: set[Node], succ: Succ, aut: Automaton, moves: Moves, fairness: str,
                  k: int) -> list[Need] | None:
    """What a cycle through `comp` must visit: a node of each acceptance set, and under
    weak fairness, per process, an edge of it or a node where it cannot move; None if
    some requirement cannot be met inside `comp`."""
    inner = [(n, p, m) for n in comp for p, m in succ(n) if m in comp]
    if not inner:
        return None
    ordered = sorted(comp, key=repr)
    need: list[Need] = []
    for acc in aut.accepting:
        hit = next((n for n in ordered if n[1] in acc), None)
        if hit is None:
            return None
        need.append((hit, None, None))
    if fairness == "weak":
        for proc in [ENV, *range(k)]:
            edge = next(((n, m, q) for n, q, m in inner if q == proc), None)
            if edge is not None:
                need.append(edge)
                continue
            idle = next((n for n in ordered if all(q != proc for q, _ in moves(n[0]))), None)
            if idle is None:
                return None
            need.append((idle, None, None))
    if not need:
        need.append((inner[0][0], inner[0][2], inner[0][1]))
    return need


def _path(src: Node, goal: Node, succ: Succ, within: set[Node]) -> list[Node]:
    """The nodes after `src` up to and including `goal` on a shortest path inside
    `within` (at least one edge, also when goal is src)."""
    prev: dict[Node, Node] = {}
    todo = deque([src])
    while todo:
        n = todo.popleft()
        for _, m in succ(n):
            if m in within and m not in prev:
                prev[m] = n
                if m == goal:
                    out = [m]
                    while prev[out[-1]] != src:
                        out.append(prev[out[-1]])
                    return out[::-1]
                todo.append(m)
    raise AssertionError("internal error: no path inside a strongly connected component")


def _lasso(inits: list[Node], need: list[Need], comp: set[Node], succ: Succ
           ) -> tuple[list[SysState], int, list[int]]:
    """A prefix from an initial node to a cycle inside `comp` that meets every need, and
    the process of each edge (a fairness need is met by its own process's edge, which
    another process's move between the same states would not do)."""
    start = need[0][0]
    cycle, moved = [start], []  # moved[i]: the process of the edge out of cycle[i]

    def walk(nodes: list[Node]) -> None:
        for b in nodes:
            moved.append(_mover(cycle[-1], b, succ))
            cycle.append(b)

    for u, v, p in need:
        if cycle[-1] != u:
            walk(_path(cycle[-1], u, succ, comp))
        if v is not None:
            assert p is not None
            moved.append(p)
            cycle.append(v)
    walk(_path(cycle[-1], start, succ, comp))
    cycle.pop()  # back at start: the loop closes there
    prefix = [] if start in inits else _prefix(set(inits), start, succ)
    before = [_mover(a, b, succ) for a, b in zip(prefix, [*prefix[1:], start], strict=True)]
    return [n[0] for n in prefix + cycle], len(prefix), before + moved


def _mover(a: Node, b: Node, succ: Succ) -> int:
    return next(p for p, m in succ(a) if m == b)


def _prefix(roots: set[Node], goal: Node, succ: Succ) -> list[Node]:
    """A shortest path from some root to just before `goal` (its nodes, root first)."""
    prev: dict[Node, Node | None] = {r: None for r in roots}
    todo = deque(sorted(roots, key=repr))
    while todo:
        n = todo.popleft()
        if n == goal:
            break
        for _, m in succ(n):
            if m not in prev:
                prev[m] = n
                todo.append(m)
    out: list[Node] = []
    back = prev[goal]
    while back is not None:
        out.append(back)
        back = prev[back]
    return out[::-1]


def constant_atoms(ns: NetworkSystem, formula: Formula, k: int,
                   max_states: int = 200_000) -> list[tuple[Compare, bool]] | None:
    """The comparisons of `formula` that have one truth value on every state reachable
    with at most `k` requests, each with it; None when the states are too many to tell
    (breadth first, stopping as soon as every comparison has been seen both ways)."""
    atoms = list(dict.fromkeys(_compares(formula)))
    system = system_for(ns, k, "none")
    seen: dict[Compare, set[bool]] = {a: set() for a in atoms}
    start = system.initial()
    known, todo = {start}, [start]
    for s in todo:  # grows while it is read
        o = system.observe(s)
        for a in atoms:
            seen[a].add(satisfies(a, o))
        if all(len(v) == 2 for v in seen.values()):
            return []
        for _, t in system.moves(s):
            if t not in known:
                if len(known) >= max_states:
                    return None
                known.add(t)
                todo.append(t)
    return [(a, next(iter(v))) for a, v in seen.items() if len(v) == 1]


def _compares(f: Formula) -> Iterator[Compare]:
    if isinstance(f, Compare):
        yield f
    elif isinstance(f, (Not, Unary)):
        yield from _compares(f.arg)
    elif isinstance(f, Binary):
        yield from _compares(f.a)
        yield from _compares(f.b)
