"""The serial automaton of a Ser program near its initial state, built on demand.

Whether a multiset of n (request, response) pairs is serial depends only on the walks of
n edges from the initial global state. So the automaton is built from the program's
per-variable steps (prover/frontend/steps.py) one level of edges at a time, as deep as
the largest multiset asked about, and never as a whole (locked-K has 3^K global states,
of which a multiset of three pairs reaches a handful). Each request's runs alone from a
global state are explored once and kept.
"""

from __future__ import annotations

from prover.errors import RUNTIME_FAULTS, CompileError
from prover.frontend.ast import env_text
from prover.frontend.compile import Env
from prover.frontend.steps import ProgramSteps
from prover.serial.automaton import SerialAutomaton, SerialEdge
from prover.serial.membership import Multiset, SerialMembership

MAX_SOLO_PAIRS = 200_000
"""(local, global) pairs one request's run alone may visit: past it, the run is not
finished exploring and membership is not decided (`SoloTooLarge`)."""


class SoloTooLarge(Exception):
    """A request's runs alone from a global state visit too many states."""


class SerialOnDemand:
    """Membership in the serial set of a program, levels of the automaton built as asked.
    Not frozen: it owns caches whose contents are functions of the program only."""

    def __init__(self, steps: ProgramSteps, requests: frozenset[str] | None = None,
                 max_work: int | None = None) -> None:
        """`requests`: build the automaton of these requests only (all if None); exact
        for the multisets of their pairs, whose serial executions run nothing else.
        `max_work`: the (local, global) pairs all its runs alone may visit together (None:
        no cap); past it, `SoloTooLarge`, now and at every later question."""
        self.steps = steps
        self.max_work, self.work = max_work, 0
        self.entries = tuple((r, start) for r, start in steps.entries
                             if requests is None or r in requests)
        self.initial = env_text(steps.initial)
        self.envs: dict[str, Env] = {self.initial: steps.initial}
        self.levels: list[list[str]] = [[self.initial]]  # global states by first depth
        self.placed = {self.initial}  # the states in `levels`
        self.edges: list[SerialEdge] = []
        self._next: dict[tuple[str, str, str], str] = {}  # (global, request, response): a target
        # Where a serial walk of each multiset answered so far ends (one walk, whichever
        # was found first: only whether one exists is read off it)
        self._ends: dict[Multiset, str] = {(): self.initial}
        self._solo: dict[tuple[str, str], list[tuple[str, str]]] = {}
        self._oracles: dict[int, SerialMembership] = {}
        self.fault: CompileError | None = None  # the first run-time error a run alone met

    def membership(self, depth: int) -> SerialMembership:
        """The oracle of the automaton's walks of at most `depth` edges."""
        oracle = self._oracles.get(depth)
        if oracle is None:
            if self.max_work is not None and self.work > self.max_work:
                raise SoloTooLarge(f"the runs alone of these requests visit more than "
                                   f"{self.max_work} states")
            while len(self.levels) <= depth:
                self._grow()
            states = [g for level in self.levels[: depth + 1] for g in level]
            inner = set(g for level in self.levels[:depth] for g in level)
            aut = SerialAutomaton(self.initial, tuple(states),
                                  tuple(sorted(e for e in self.edges if e.source in inner)))
            oracle = self._oracles[depth] = SerialMembership(aut)
        return oracle

    def is_serial(self, ms: Multiset) -> bool:
        """First, a walk of `ms` less one pair (a search asks the smaller ones first)
        extended by an edge with that pair: each such answer costs a few lookups, not a
        search of the automaton."""
        oracle = self.membership(sum(n for _, n in ms))  # grows the levels it needs
        for i, ((request, response), n) in enumerate(ms):
            end = self._ends.get((*ms[:i], *((((request, response), n - 1),) if n > 1
                                             else ()), *ms[i + 1:]))
            target = None if end is None else self._next.get((end, request, response))
            if target is not None:
                self._remember(ms, target)
                return True
        walk = oracle.serial_order(ms)
        if walk is not None:
            self._remember(ms, walk[-1].target if walk else self.initial)
        return walk is not None

    def _remember(self, ms: Multiset, end: str) -> None:
        if len(self._ends) > 1_000_000:  # bound the memory: the searches answer anyway
            self._ends = {(): self.initial}
        self._ends[ms] = end

    def _grow(self) -> None:
        nxt: list[str] = []
        for g in self.levels[-1]:
            for request, start in self.entries:
                for response, g2 in self._alone(start, g):
                    self.edges.append(SerialEdge(g, request, response, g2))
                    self._next.setdefault((g, request, response), g2)
                    if g2 not in self.placed:
                        self.placed.add(g2)
                        nxt.append(g2)
        self.levels.append(nxt)

    def _alone(self, start: str, g: str) -> list[tuple[str, str]]:
        """(response, global) of every run of a request alone from `start` at `g`."""
        key = (start, g)
        got = self._solo.get(key)
        if got is not None:
            return got
        seen = {(start, g)}
        todo = [(start, g)]
        out: dict[tuple[str, str], None] = {}
        while todo:
            loc, glo = todo.pop()
            answer = self.steps.response(loc)
            if answer is not None:
                out[(str(answer), glo)] = None
                continue
            for l2, env2, _ in self._step(loc, glo):
                g2 = env_text(env2)
                self.envs.setdefault(g2, env2)
                if (l2, g2) not in seen:
                    self.work += 1
                    if self.max_work is not None and self.work > self.max_work:
                        raise SoloTooLarge(f"the runs alone of these requests visit more "
                                           f"than {self.max_work} states")
                    if len(seen) >= MAX_SOLO_PAIRS:
                        raise SoloTooLarge(f"a request run alone visits more than "
                                           f"{MAX_SOLO_PAIRS} states")  # fmt: skip
                    seen.add((l2, g2))
                    todo.append((l2, g2))
        got = self._solo[key] = sorted(out)
        return got

    def _step(self, loc: str, glo: str) -> list[tuple[str, Env, frozenset[int]]]:
        """A run alone that fails (division by zero, overflow, `exit`, an assertion)
        answers nothing: a dead end, as in the checker's serial search; the first failure
        is kept. A step stops at its first failing outcome, so where its rest has a choice
        (`?`) the outcomes that finish are unknown: membership is not decided (as in the
        checker, which then cannot accept a counterexample)."""
        try:
            return self.steps.step_global(loc, self.envs[glo])
        except RUNTIME_FAULTS as exc:
            self.fault = self.fault or exc
            if "?" in loc:
                raise SoloTooLarge(f"a request run alone runs into {exc.code} in a step with "
                                   "choices, whose other outcomes may finish") from None
            return []
