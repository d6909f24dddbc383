"""Explicit interleaving search for non-serializable executions.

The search runs over the *counter abstraction* of the interleaving Petri net
(ser-reference §4.2): a state is

    (global state, multiset of in-flight (request, local) tokens, multiset of completed
     (request, response) pairs)

which is exactly a reachable marking of the net. A state with no token in flight is
*quiescent*; its completed multiset is checked with the exact serial-membership oracle
(prover/serial/membership.py). A quiescent state whose multiset is not serial is a
counterexample; the path to it is turned into a concrete trace with numbered instances.

Shortest first. States are explored in *layers* by the number of requests spawned so
far (= tokens in flight + pairs completed, a function of the state). Layer k is closed
under non-spawn moves before any state of layer k+1 is expanded, and quiescent states
are tested only when they are expanded, in layer order. So when the first
counterexample is found in layer k, every execution with fewer than k requests has been
explored: the counterexample uses the fewest requests possible (`lower_bound`).

Reductions (each keeps every reachable quiescent marking reachable, so no violation is
lost, and adds no behaviour, so nothing spurious is found):

1. **Symmetry (counters).** Instances of the same request in the same local state are
   interchangeable: every transition of the net depends only on the token counts. The
   state keeps counts, not identities; instance numbers are re-created when a path is
   turned into a trace (any instance at the right local state can take the step).
2. **Lazy spawning.** A spawn has an empty preset, so it is independent of every other
   transition: moving it later never disables anything in between, and the token it
   creates is touched only by its own instance. Every finished execution can therefore
   be reordered so that each spawn happens immediately before its instance's first
   step (or its immediate response). The search only spawns fused with that first
   move; tokens never wait in their initial local state.
3. **Eager responses.** A respond transition consumes its own instance's token and
   produces a response token that no transition consumes. Moving a respond earlier, to
   right after the instance's last step, keeps every transition in between enabled
   (none of them used that token) and reaches the same marking. So after every step the
   search either responds at once (one successor per available response) or keeps the
   instance in flight, and the latter only if the instance can still make a step that
   leads, in the NS local graph, to a state with a response. An instance that cannot is
   in flight forever (tokens leave only by responding), so its state never becomes
   quiescent: dropping it loses no quiescent marking. Keeping an instance in a state
   from which its only way out is responding right there is the same as responding now.
4. **No duplicate states.** States are identified by value across all layers
   (breadth-first visited set); a revisit adds no new reachable marking.
5. **Interacting requests only** (prover/engines/interaction.py). A Ser program's
   handlers fall into interaction groups (handlers that write what another names, read
   off the syntax) and twins (the same body). A state spawns only requests of its own
   group, and only the first of each kind of twins: every counterexample with k requests
   has a projection on one group, renamed to the first twins, that is a counterexample
   with at most k requests, and a non-serial multiset of one group's pairs is found
   non-serial by that group's serial automaton alone. So layer k still holds a
   counterexample whenever one with k requests exists, the first one found has the
   fewest requests, and an exhausted layer still means none with that many (at the
   least layer every counterexample is of one group anyway: on the paper benchmarks and
   the examples the search finds the very counterexample it found without this). N
   independent lost updates cost N small searches, not one over all their
   interleavings; a network system is one group (its twins still count).

Layer k's spawns are made once the layer is closed, from its states in the order they
were expanded: the next layer is the same, and none of it is built when a counterexample
ends layer k.

Optional *concurrency bound* `max_inflight`: only states with at most that many tokens in
flight between moves are kept. Because spawns and responses are fused with steps, an
atomic request (one step, then respond) never counts. This restricts the executions
searched (sound for finding counterexamples, but then `lower_bound` only speaks about
the unbounded layers explored before; see `find_counterexample`).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace

from prover.engines import Counterexample, Event, replay, replay_program
from prover.engines.interaction import WIDE_GROUP, groups, twins
from prover.errors import RUNTIME_FAULTS, CompileError
from prover.frontend.ast import env_text
from prover.frontend.compile import Env
from prover.frontend.steps import ProgramSteps
from prover.ns import NetworkSystem
from prover.serial.automaton import SerialAutomaton, build_serial_automaton
from prover.serial.membership import Multiset, SerialMembership
from prover.serial.ondemand import SerialOnDemand

# Move kinds (stored in the parent map, turned into events by `_trace`).
_STEP = 0  # an in-flight token steps (then maybe responds)
_SPAWN = 1  # a new instance spawns and steps (then maybe responds)
_SPAWN_RESPOND = 2  # a new instance spawns and responds at once (initial local answers)

MINIMISE_STATES = 200_000
"""State budget of the search for a smaller counterexample (about 2 s idle; a budget in
states, not seconds, keeps the certificate independent of the machine's load)."""

State = tuple[int, tuple[int, ...], tuple[int, ...]]
"""(global id, sorted in-flight token ids, sorted completed pair ids)."""

Move = tuple[int, int, int, int]
"""(kind, token id or request-entry index, step target index or -1, pair id or -1)."""


@dataclass(frozen=True)
class SearchResult:
    """Outcome of one explicit search.

    `counterexample` is None when none was found. `exhausted_requests` is the largest k
    such that every execution with at most k requests was explored (under the
    concurrency bound, if any). `complete` is True when the search space under the
    given bounds was explored entirely. `stop_reason`: "found", "bound", "time",
    "states".
    """

    counterexample: Counterexample | None
    exhausted_requests: int
    complete: bool
    states: int
    stop_reason: str


class _Ids:
    """Integer ids of tokens (request, local id) and completed pairs (request, response)."""

    def __init__(self) -> None:
        self.tokens: list[tuple[str, int]] = []
        self.tid: dict[tuple[str, int], int] = {}
        self.pairs: list[tuple[str, str]] = []
        self.pid: dict[tuple[str, str], int] = {}
        self.fault: CompileError | None = None  # the first run-time error a step met
        self.group: dict[str, int] = {}
        self.spawn_all: tuple[int, ...] = ()
        self.spawn_in: dict[int, tuple[int, ...]] = {}
        self.own: dict[str, tuple[int, ...]] = {}  # request -> its entries, if spawned
        self.widest = 0  # the most requests one group spawns

    def token(self, request: str, local: int) -> int:
        key = (request, local)
        t = self.tid.get(key)
        if t is None:
            t = len(self.tokens)
            self.tid[key] = t
            self.tokens.append(key)
        return t

    def pair(self, request: str, response: str) -> int:
        key = (request, response)
        p = self.pid.get(key)
        if p is None:
            p = len(self.pairs)
            self.pid[key] = p
            self.pairs.append(key)
        return p

    def restrict(self, requests: list[str], group: dict[str, int],
                 twin: dict[str, str]) -> None:
        """Spawn only the first of each kind of twins, and only requests of one
        interaction group per state (prover/engines/interaction.py); `requests` is the
        request of each entry."""
        self.group = group
        self.spawn_all = tuple(i for i, r in enumerate(requests) if twin[r] == r)
        by: dict[int, list[int]] = {}
        for i in self.spawn_all:
            by.setdefault(group[requests[i]], []).append(i)
        self.spawn_in = {g: tuple(es) for g, es in by.items()}
        own: dict[str, list[int]] = {}
        for i in self.spawn_all:
            own.setdefault(requests[i], []).append(i)
        self.own = {r: tuple(es) for r, es in own.items()}
        self.widest = max((len(es) for es in self.spawn_in.values()), default=0)

    def spawnable(self, inflight: tuple[int, ...], completed: tuple[int, ...],
                  alone: bool = False) -> tuple[int, ...]:
        """The entries a state may spawn: those of its requests' group (`alone`: its
        request's only)."""
        if inflight:
            request = self.tokens[inflight[0]][0]
        elif completed:
            request = self.pairs[completed[0]][0]
        else:
            return self.spawn_all
        return self.own[request] if alone else self.spawn_in[self.group[request]]

    def multiset(self, completed: tuple[int, ...]) -> Multiset:
        counts: dict[tuple[str, str], int] = {}
        for p in completed:
            key = self.pairs[p]
            counts[key] = counts.get(key, 0) + 1
        return tuple(sorted(counts.items()))


class _Tables(_Ids):
    """Integer-indexed view of an NS for fast successor generation."""

    def __init__(self, ns: NetworkSystem, membership: SerialMembership | None = None) -> None:
        super().__init__()
        self.ns = ns
        self.membership = membership
        self.globals = list(ns.global_states)
        self.gid = {g: i for i, g in enumerate(self.globals)}
        self.initial = self.gid[ns.initial_global]
        self.locals = list(ns.local_states)
        self.lid = {s: i for i, s in enumerate(self.locals)}
        # steps[(local id, global id)] -> ((to local id, to global id), ...)
        self.steps: dict[tuple[int, int], tuple[tuple[int, int], ...]] = {}
        for (loc, g), ts in ns.transitions_from.items():
            self.steps[(self.lid[loc], self.gid[g])] = tuple(
                (self.lid[t.to_local], self.gid[t.to_global]) for t in ts
            )
        self.responses: dict[int, tuple[str, ...]] = {
            self.lid[loc]: vs for loc, vs in ns.responses_of.items()
        }
        # Local graph ignoring globals; can_finish = some response reachable (≥ 0 steps).
        succ: dict[int, set[int]] = {}
        for t in ns.transitions:
            succ.setdefault(self.lid[t.from_local], set()).add(self.lid[t.to_local])
        pred: dict[int, set[int]] = {}
        for a, bs in succ.items():
            for b in bs:
                pred.setdefault(b, set()).add(a)
        can_finish = set(self.responses)
        todo = list(can_finish)
        while todo:
            b = todo.pop()
            for a in pred.get(b, ()):
                if a not in can_finish:
                    can_finish.add(a)
                    todo.append(a)
        # Keeping a token in flight at l is useful only if some step from l leads on to a
        # state that can finish (reduction 3).
        self.keep = frozenset(
            a for a, bs in succ.items() if any(b in can_finish for b in bs)
        )
        self.entries = [(r.request, self.lid[r.local]) for r in ns.requests]
        # A global state is opaque here: one interaction group.
        requests = [r.request for r in ns.requests]
        self.restrict(requests, dict.fromkeys(requests, 0),
                      twins([(r.request, r.local) for r in ns.requests]))

    def step(self, loc: int, g: int) -> tuple[tuple[int, int], ...]:
        return self.steps.get((loc, g), ())

    def answers(self, loc: int) -> tuple[str, ...]:
        return self.responses.get(loc, ())

    def keeps(self, loc: int) -> bool:
        return loc in self.keep

    def is_serial(self, ms: Multiset) -> bool:
        if self.membership is None:
            self.membership = SerialMembership(build_serial_automaton(self.ns))
        return self.membership.is_serial(ms)

    def replay(self, trace: tuple[Event, ...]) -> Multiset:
        return replay(self.ns, trace)


class _ProgramTables(_Ids):
    """The same view of a Ser program, stepped on demand through its per-variable steps
    (prover/frontend/steps.py): no network system is built, so no bound on the number of
    global states stops the search; only the states it visits are ever computed."""

    def __init__(self, steps: ProgramSteps) -> None:
        super().__init__()
        self.source = steps
        # The serial automaton of each interaction group's requests: a multiset of one
        # group's pairs is serial exactly when it is in that group's automaton (its
        # serial executions run no other request), which is built on demand; that of
        # one request alone for the multisets of its pairs only.
        self.serial: dict[int | str, SerialOnDemand] = {}  # by group, or by request
        self.genv: list[Env] = []
        self.globals: list[str] = []
        self.gid: dict[str, int] = {}
        self.locals: list[str] = []
        self.lid: dict[str, int] = {}
        self.answered: list[tuple[str, ...]] = []  # each local's answer, if it answers
        # A step's global successor is a function of the global before, the globals the
        # step touches and the values it leaves there: made once (the text and the sorted
        # valuation of 32 globals, at each of a search's steps, were half its time).
        self._gdict: list[dict[str, int]] = []  # each global's valuation, as a dict
        self._after: dict[tuple[int, tuple[str, ...], tuple[int, ...]], int] = {}
        self.initial = self._global(steps.initial)
        self.entries = [(r, self._local(loc)) for r, loc in steps.entries]
        self.restrict([r for r, _ in steps.entries], groups(steps.program),
                      twins(steps.entries))
        self._steps: dict[tuple[int, int], tuple[tuple[int, int], ...]] = {}
        self.failed: dict[tuple[int, int], CompileError] = {}  # the pairs whose step fails

    def _global(self, env: Env) -> int:
        text = env_text(env)
        g = self.gid.get(text)
        if g is None:
            g = self.gid[text] = len(self.globals)
            self.globals.append(text)
            self.genv.append(env)
            self._gdict.append(dict(env))
        return g

    def _next_global(self, g: int, touched: tuple[str, ...], values: tuple[int, ...]) -> int:
        """The id of the global after a step from `g` that leaves `values` in `touched`
        (ProgramSteps.step_global's valuation: a 0 is no entry)."""
        key = (g, touched, values)
        got = self._after.get(key)
        if got is None:
            after = dict(self._gdict[g])
            for x, v in zip(touched, values, strict=True):
                if v:
                    after[x] = v
                else:
                    after.pop(x, None)
            got = self._after[key] = self._global(tuple(sorted(after.items())))
        return got

    def _local(self, text: str) -> int:
        loc = self.lid.get(text)
        if loc is None:
            loc = self.lid[text] = len(self.locals)
            self.locals.append(text)
            v = self.source.response(text)  # asked of every successor: read once here
            self.answered.append(() if v is None else (str(v),))
        return loc

    def step(self, loc: int, g: int) -> tuple[tuple[int, int], ...]:
        got = self._steps.get((loc, g))
        if got is None:
            got = self._steps[(loc, g)] = self._step(loc, g)
        return got

    def _step(self, loc: int, g: int) -> tuple[tuple[int, int], ...]:
        """A step that fails (division by zero, overflow, `exit`, an assertion) has no
        outcome: its instance is stuck there, and the search goes on with the other
        executions; the first such error is kept for the verdict's rule
        (prover/run/decide.py), and each failing pair for the assertion search."""
        text = self.locals[loc]
        if self.source.response(text) is not None:
            return ()
        # ProgramSteps.step_global, with the global successors' ids made once (above)
        src = self.source
        try:
            fp = src.footprint(text)
            now = self._gdict[g]
            outcomes = src.step(text, tuple(now.get(x, 0) for x in fp.read_names))
        except RUNTIME_FAULTS as exc:
            self.fault = self.fault or exc
            self.failed[(loc, g)] = exc
            return ()
        touched = fp.touched_names
        return tuple(dict.fromkeys((self._local(o.local), self._next_global(g, touched, o.values))
                                   for o in outcomes))

    def answers(self, loc: int) -> tuple[str, ...]:
        return self.answered[loc]

    def keeps(self, loc: int) -> bool:
        return not self.answered[loc]

    def is_serial(self, ms: Multiset) -> bool:
        first = ms[0][0][0]
        if all(r == first for (r, _), _ in ms):  # one request: its automaton alone
            serial = self.serial.get(first)
            if serial is None:
                serial = self.serial[first] = SerialOnDemand(self.source, frozenset([first]))
        else:
            serial = self._serial(self.group[first])
        answer = serial.is_serial(ms)
        self.fault = self.fault or serial.fault  # a run alone that failed (its dead end)
        return answer

    def _serial(self, group: int) -> SerialOnDemand:
        serial = self.serial.get(group)
        if serial is None:  # twins included: they share their runs alone, and are listed
            members = frozenset(r for r, g in self.group.items() if g == group)
            serial = self.serial[group] = SerialOnDemand(self.source, members)
        return serial

    def oracle(self, ms: Multiset) -> SerialMembership | None:
        """The serial automaton an explanation of `ms` explores, as deep as `ms` is
        large, if the search built it: its group's, or for a group of `WIDE_GROUP` or
        more requests its one request's (prover/certificate/explain.py); else None."""
        used = {self.group.get(r, -1) for (r, _), _ in ms}
        if len(used) != 1 or -1 in used:
            return None
        group, depth = used.pop(), sum(n for _, n in ms)
        if sum(1 for g in self.group.values() if g == group) < WIDE_GROUP:
            return self._serial(group).membership(depth)
        alone = self.serial.get(ms[0][0][0])
        mine = {r for (r, _), _ in ms}
        return alone.membership(depth) if alone is not None and len(mine) == 1 else None

    def replay(self, trace: tuple[Event, ...]) -> Multiset:
        return replay_program(self.source, trace)


Tables = _Tables | _ProgramTables
ProgramTables = _ProgramTables  # the search's view of a program (its `oracle`, for explanations)


def tables(source: NetworkSystem | ProgramSteps | Tables, automaton: SerialAutomaton | None = None,
           membership: SerialMembership | None = None) -> Tables:  # fmt: skip
    """The search's view of a network system or of a program's per-variable steps."""
    if isinstance(source, (_Tables, _ProgramTables)):
        return source
    if isinstance(source, ProgramSteps):
        return _ProgramTables(source)
    if membership is None and automaton is not None:
        membership = SerialMembership(automaton)
    return _Tables(source, membership)


def _insert(items: tuple[int, ...], x: int) -> tuple[int, ...]:
    """`items` (sorted) with x, sorted: a few tokens, which `sorted` orders in C faster
    than a bisection in Python."""
    return tuple(sorted((*items, x)))


def _remove(items: tuple[int, ...], x: int) -> tuple[int, ...]:
    i = items.index(x)
    return items[:i] + items[i + 1:]


def search(
    ns: NetworkSystem | ProgramSteps | Tables,
    *,
    automaton: SerialAutomaton | None = None,
    membership: SerialMembership | None = None,
    max_requests: int = 64,
    max_inflight: int | None = None,
    max_states: int = 2_000_000,
    deadline: float | None = None,
    lower_bound_known: int = 0,
    alone: bool = False,
    progress: Callable[[str], None] | None = None,
) -> SearchResult:
    """Layered breadth-first search for a counterexample (see the module docstring).

    `alone`: only executions of several instances of one request (a restriction, like
    `max_inflight`: its counterexamples carry `lower_bound_known`).

    `ns`: a network system, a Ser program's per-variable steps (stepped on demand), or
    their tables. `deadline` is a `time.monotonic()` value. `lower_bound_known` is a
    number of requests below which no counterexample exists (from an earlier exhaustive
    search); it only feeds the reported lower bound.
    """
    tab = tables(ns, automaton, membership)
    serial_cache: dict[tuple[int, ...], bool] = {}
    start: State = (tab.initial, (), ())
    parent: dict[State, tuple[State, Move] | None] = {start: None}
    layer: deque[State] = deque([start])
    k = 0  # requests spawned in the current layer
    expanded = 0
    bounded = max_inflight is not None or alone
    cap = max_inflight if max_inflight is not None else 1 << 30

    while layer:
        if progress is not None:
            bound = "" if max_inflight is None else f", at most {max_inflight} in flight"
            progress(f"{k} requests{bound}: {len(parent):,} of {max_states:,} states")
        closed: list[State] = []  # the layer's states, in the order they were expanded
        while layer:
            state = layer.popleft()
            expanded += 1
            if expanded & 1023 == 0:
                if deadline is not None and time.monotonic() > deadline:
                    return SearchResult(None, k - 1, False, len(parent), "time")
                if len(parent) > max_states:
                    return SearchResult(None, k - 1, False, len(parent), "states")
            g, inflight, completed = state
            if not inflight and completed:
                ok = serial_cache.get(completed)
                if ok is None:
                    ok = tab.is_serial(tab.multiset(completed))
                    serial_cache[completed] = ok
                if not ok:
                    lb = k if not bounded else lower_bound_known
                    cex = _trace(tab, parent, state, lb, "explicit")
                    return SearchResult(cex, k - 1, False, len(parent), "found")
            _step_successors(tab, state, cap, parent, layer)
            closed.append(state)
        # The layer is closed: only now its spawns, in the order of expansion (so the
        # next layer is the one that spawning during the expansion made; none is made
        # when a counterexample ends the layer). Running out here, layer k is done.
        for n, state in enumerate(closed if k < max_requests else (), 1):
            if n & 1023 == 0:
                if deadline is not None and time.monotonic() > deadline:
                    return SearchResult(None, k, False, len(parent), "time")
                if len(parent) > max_states:
                    return SearchResult(None, k, False, len(parent), "states")
            _spawn_successors(tab, state, cap, parent, layer, alone)
        k += 1
    return SearchResult(None, min(k - 1, max_requests), True, len(parent), "bound")


def _step_successors(tab: Tables, state: State, cap: int,
                     parent: dict[State, tuple[State, Move] | None],
                     out: deque[State]) -> None:
    """In-flight steps (the same layer), each maybe fused with its response."""
    g, inflight, completed = state
    prev = -1
    for tok in inflight:
        if tok == prev:
            continue
        prev = tok
        req, loc = tab.tokens[tok]
        targets = tab.step(loc, g)
        if not targets:
            continue
        rest = _remove(inflight, tok)
        for ti, (l2, g2) in enumerate(targets):
            _after_step(tab, state, req, l2, g2, rest, (_STEP, tok, ti), cap, parent, out)


def _spawn_successors(tab: Tables, state: State, cap: int,
                      parent: dict[State, tuple[State, Move] | None],
                      out: deque[State], alone: bool) -> None:
    """Spawns (the next layer), fused with the instance's first move; only of the
    requests `tab.spawnable` allows (interaction groups and twins)."""
    g, inflight, completed = state
    for ei in tab.spawnable(inflight, completed, alone):
        req, l0 = tab.entries[ei]
        for resp in tab.answers(l0):
            p = tab.pair(req, resp)
            s2: State = (g, inflight, _insert(completed, p))
            if s2 not in parent:
                parent[s2] = (state, (_SPAWN_RESPOND, ei, -1, p))
                out.append(s2)
        for ti, (l2, g2) in enumerate(tab.step(l0, g)):
            _after_step(tab, state, req, l2, g2, inflight, (_SPAWN, ei, ti), cap, parent, out)


def _after_step(tab: Tables, state: State, req: str, l2: int, g2: int,
                others: tuple[int, ...], how: tuple[int, int, int], cap: int,
                parent: dict[State, tuple[State, Move] | None], out: deque[State]) -> None:
    """An instance of `req` stepped to (l2, g2) beside the tokens `others`: it answers at
    once (one successor per response), or stays in flight if it can still step."""
    completed = state[2]
    for resp in tab.answers(l2):
        p = tab.pair(req, resp)
        s2: State = (g2, others, _insert(completed, p))
        if s2 not in parent:
            parent[s2] = (state, (*how, p))
            out.append(s2)
    if tab.keeps(l2) and len(others) < cap:
        s2 = (g2, _insert(others, tab.token(req, l2)), completed)
        if s2 not in parent:
            parent[s2] = (state, (*how, -1))
            out.append(s2)



def _trace(
    tab: Tables,
    parent: dict[State, tuple[State, Move] | None],
    final: State,
    lower_bound: int,
    engine: str,
) -> Counterexample:
    """Turn the parent chain into a concrete trace with numbered instances."""
    path: list[tuple[State, Move]] = []
    state = final
    while True:
        link = parent[state]
        if link is None:
            break
        prev, move = link
        path.append((prev, move))
        state = prev
    path.reverse()
    events: list[Event] = []
    at: dict[tuple[str, int], list[int]] = {}  # token -> instances there (sorted)
    next_instance = 1
    for prev, (kind, a, ti, p) in path:
        g = prev[0]
        if kind == _STEP:
            req, loc = tab.tokens[a]
            inst = at[(req, loc)].pop(0)
        else:
            req, loc = tab.entries[a]
            inst = next_instance
            next_instance += 1
            events.append(Event("spawn", inst, req, tab.locals[loc]))
        if kind != _SPAWN_RESPOND:
            l2, g2 = tab.step(loc, g)[ti]
            events.append(
                Event(
                    "step", inst, req, tab.locals[loc],
                    global_=tab.globals[g], to_local=tab.locals[l2], to_global=tab.globals[g2],
                )
            )
            loc = l2
        if p >= 0:
            events.append(
                Event("respond", inst, req, tab.locals[loc], response=tab.pairs[p][1])
            )
        else:
            lst = at.setdefault((req, loc), [])
            lst.append(inst)
            lst.sort()
    trace = tuple(events)
    completed = tab.replay(trace)  # a trace we cannot replay is a bug: raise
    requests = next_instance - 1
    return Counterexample(trace, completed, requests, lower_bound, engine)


def find_counterexample(
    ns: NetworkSystem | ProgramSteps | Tables,
    *,
    automaton: SerialAutomaton | None = None,
    deadline: float | None = None,
    max_requests: int = 64,
    initial_states: int = 20_000,
    minimise_states: int = MINIMISE_STATES,
    minimise_deadline: float | None = None,
    max_states: int = 1_500_000,
    progress: Callable[[str], None] | None = None,
) -> SearchResult:
    """The explicit engine's schedule, shortest first.

    Rounds with a growing state budget (×4 per round). Each round first runs the
    unbounded layered search: a counterexample found there is minimal. If that search
    runs out of budget it still proves that no counterexample has ≤ `exhausted_requests`
    requests; the round then runs concurrency-bounded searches (at most 1, 2, …, round+1
    instances in flight between moves), which reach deep violations with many requests
    but few simultaneous ones (e.g. the e2 family) quickly. A counterexample from a
    bounded search carries the lower bound of the unbounded searches, so its minimality
    is reported honestly. Such a counterexample with K requests is then *minimised*: the
    unbounded search with at most K − 1 requests explores up to `minimise_states` states;
    if it completes, K is proven minimal; if it finds a counterexample, that one has the
    fewest requests (`minimise_deadline`, default `deadline`, bounds this step too). When
    some interaction group spawns `WIDE_GROUP` requests or more, each round first searches
    the executions of one request's instances alone (`alone`, a quarter of the round's
    budget), a restricted search treated like the bounded ones. Stops
    at the deadline; returns the last unbounded result when
    nothing was found. Each round's state budget is capped by `max_states` (memory).

    Every budget but the deadline is counted in states, not seconds, so the same model
    gives the same result on an idle and on a loaded machine (prover/run/decide.py).
    """
    tab = tables(ns, automaton)
    budget = min(initial_states, max_states)
    lower = 0
    rnd = 0
    while True:
        full = search(
            tab, max_requests=max_requests, max_states=budget,
            deadline=deadline, progress=progress,
        )
        if full.counterexample is not None or full.complete or full.stop_reason == "time":
            return full
        lower = max(lower, full.exhausted_requests + 1)
        # (alone, max_inflight, max_states) of the round's restricted searches
        narrow = [(True, None, budget // 4)] if tab.widest >= WIDE_GROUP else []
        for alone, c, states in narrow + [(False, c, budget) for c in range(1, rnd + 2)]:
            bounded = search(
                tab, max_requests=max_requests, max_inflight=c, max_states=states,
                deadline=deadline, lower_bound_known=lower, alone=alone, progress=progress,
            )
            if bounded.counterexample is not None:
                until = deadline if minimise_deadline is None else minimise_deadline
                return _minimise(tab, bounded, until, minimise_states, progress)
            if bounded.stop_reason == "time":
                return SearchResult(None, full.exhausted_requests, False, full.states, "time")
        if deadline is not None and time.monotonic() > deadline:
            return SearchResult(None, full.exhausted_requests, False, full.states, "time")
        if budget >= max_states:  # memory bound: the next round would be larger still
            return full
        budget = min(4 * budget, max_states)
        rnd += 1


def _minimise(
    tab: Tables,
    found: SearchResult,
    deadline: float | None,
    minimise_states: int,
    progress: Callable[[str], None] | None,
) -> SearchResult:
    cex = found.counterexample
    if cex is None or cex.minimal or minimise_states <= 0:
        return found
    sub = search(
        tab, max_requests=cex.requests - 1, max_states=minimise_states,
        deadline=deadline, progress=progress,
    )
    if sub.counterexample is not None:
        return sub
    if sub.complete:
        return replace(found, counterexample=replace(cex, lower_bound=cex.requests))
    if sub.exhausted_requests + 1 > cex.lower_bound:
        return replace(
            found, counterexample=replace(cex, lower_bound=sub.exhausted_requests + 1)
        )
    return found
