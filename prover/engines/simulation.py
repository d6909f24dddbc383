"""Random runs of a Ser program (`ser-prove simulate`, docs/cli.md): a modeller watches
the model before proving it, as with SPIN's `spin -p` or TLC's `-simulate`.

A run is an execution of the program's one step semantics, the per-variable steps
(prover/frontend/steps.py, `ProgramSteps.step_global`, which the explicit search and the
network systems read too): nothing here evaluates an expression. K requests arrive, one
at a time, at random points; at each point the run picks uniformly among the enabled
moves, and then uniformly among the outcomes of the chosen move (a step that evaluates
`?` has several). The moves are:

* the arrival of the next request of the run (while one is left to arrive): it is then
  in flight at its initial local state, and has run nothing yet;
* a step of a request in flight whose step changes something (its local state or the
  globals): a step that changes nothing (a failed wait, `while (L == 1) { yield }` while
  L is 1) is not enabled, so a run never picks a spin forever. A step that runs into a
  run-time error (division by zero, an index out of range, ...) is enabled: picked, it
  ends the run with that error.

A request answers as soon as its body is fully evaluated (an answer changes no global, so
answering at once gives every multiset of answers that answering later does). When no
move is enabled while requests are in flight, every one of them waits: a deadlock of this
run (every request of the run has arrived, and none can change anything).

Everything is a function of the seed: `random.Random(seed)` draws every choice, among
moves listed in a fixed order (instances by number, then the arrival) and outcomes sorted
by their text; no clock, no hash order. Only the `deadline` can cut a run short.

A finished run's multiset of (request, response) pairs is serial when a serial execution
of the same requests, one at a time from the initial globals, gives it: asked of the
serial automaton of the run's requests near the initial state (prover/serial/ondemand.py,
the same runs alone the explicit search reads), which tries every order of the requests,
at most K! of them, sharing what orders have in common; only for K ≤ `MAX_SERIAL_CHECK`.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass

from prover.engines import Event
from prover.engines.deadlock import Blocked
from prover.errors import CompileError
from prover.frontend import ast
from prover.frontend.ast import env_text
from prover.frontend.compile import Env
from prover.frontend.steps import ProgramSteps
from prover.serial.membership import Multiset, make_multiset
from prover.serial.ondemand import SerialOnDemand, SoloTooLarge

MAX_SERIAL_CHECK = 8
"""Requests of a finished run whose serial orders are tried (K! orders); beyond, the run
is "not checked"."""

SERIAL_WORK = 100_000
"""(Local, global) pairs the runs alone behind one set of requests' serial check may visit
together: eight accounts with transfers of any amount have serial executions of four
requests beyond any budget, and the check had no other bound (the random runs of a
30 s run never returned); past it, the run is not checked (its serial answers unknown)."""
MOVES_CACHE = 200_000
"""Steps kept for the runs that follow; past it the cache starts again empty (what it
holds never changes a draw, only how often a step is evaluated)."""

END_FINISHED = "finished"  # every request arrived and answered
END_DEADLOCK = "deadlock"  # requests in flight, none can change anything
END_MAX_STEPS = "max_steps"  # --max-steps reached with moves still enabled
END_ERROR = "error"  # a step ran into a run-time error
END_TIMEOUT = "timeout"  # the command's deadline passed
ENDS = (END_FINISHED, END_DEADLOCK, END_MAX_STEPS, END_ERROR, END_TIMEOUT)


@dataclass(frozen=True)
class Failure:
    """The step that ran into a run-time error: its instance and the error (with its
    position in the model)."""

    instance: int
    request: str
    local: str
    error: CompileError


@dataclass(frozen=True)
class SerialCheck:
    """Whether a finished run's answers are those of a serial order of its requests:
    `serializable` is None when that was not checked (`why`); `order` is such an order."""

    serializable: bool | None
    order: tuple[tuple[str, str], ...] = ()
    why: str = ""


@dataclass(frozen=True)
class Run:
    """One random run: the requests in the order they arrive, its events (as the explicit
    search's traces: spawn, step, respond), the answers in the order given, how it ended,
    and what was in flight then."""

    seed: int
    requests: tuple[str, ...]
    events: tuple[Event, ...]
    answers: tuple[tuple[int, str, str], ...]  # (instance, request, response)
    end: str
    steps: int
    global_: str
    # in flight when it stopped, where they stand and the lines they run there (a
    # deadlock's wait for ever; those of a cut run might still move)
    waiting: tuple[Blocked, ...] = ()
    failure: Failure | None = None
    left: int = 0  # requests of the run that had not arrived yet

    @property
    def finished(self) -> bool:
        return self.end == END_FINISHED

    @property
    def completed(self) -> Multiset:
        return make_multiset((r, v) for _, r, v in self.answers)


_Next = tuple[str, Env, frozenset[int]]  # (local, global, lines) of one outcome


class Simulator:
    """Random runs of one program. Not frozen: it caches the steps it met, which are
    functions of the program only (a run's draw never depends on what was cached)."""

    def __init__(self, steps: ProgramSteps) -> None:
        self.steps = steps
        self.starts = dict(steps.entries)  # request name -> its initial local state
        self._moves: dict[tuple[str, str], tuple[_Next, ...] | CompileError] = {}
        self._serial: dict[frozenset[str], SerialOnDemand] = {}

    @property
    def requests(self) -> tuple[str, ...]:
        return tuple(self.starts)

    def choose(self, rng: random.Random, k: int) -> tuple[str, ...]:
        names = self.requests
        return tuple(names[rng.randrange(len(names))] for _ in range(k))

    def moves(self, local: str, glob: Env) -> tuple[_Next, ...] | CompileError:
        """The outcomes of a step of `local` at `glob` that change something, sorted by
        their text; or the run-time error the step runs into."""
        key = (local, env_text(glob))
        got = self._moves.get(key)
        if got is None:
            try:
                outcomes = self.steps.step_global(local, glob)
            except CompileError as exc:  # a run-time error, or E-STATE-BOUND in one step
                got = exc
            else:
                got = tuple(sorted(((l2, g2, lines) for l2, g2, lines in outcomes
                                    if (l2, g2) != (local, glob)),
                                   key=lambda o: (o[0], env_text(o[1]))))
            if len(self._moves) >= MOVES_CACHE:
                self._moves.clear()
            self._moves[key] = got
        return got

    def run(self, seed: int, *, k: int = 3, requests: Sequence[str] | None = None,
            max_steps: int = 1000, deadline: float | None = None, burst: float = 0.0) -> Run:
        """One run drawn from `seed`: `requests` arrive in that order (None: K drawn at
        random among the program's requests). `burst`: the chance that the request that
        moved last moves again when it can (runs of one request's steps, between which
        the others catch up: what a stale read that a whole other request overtakes
        needs, which uniform draws almost never give)."""
        rng = random.Random(seed)
        order = tuple(requests) if requests is not None else self.choose(rng, k)
        glob: Env = self.steps.initial
        inflight: list[tuple[int, str, str]] = []  # (instance, request, local), by instance
        events: list[Event] = []
        answers: list[tuple[int, str, str]] = []
        arrived = steps = 0
        last = -1  # the instance that moved last

        def answer(inst: int, req: str, local: str) -> bool:
            value = self.steps.response(local)
            if value is None:
                return False
            events.append(Event("respond", inst, req, local, response=str(value)))
            answers.append((inst, req, str(value)))
            return True

        def stop(end: str, failure: Failure | None = None) -> Run:
            waiting = tuple(Blocked(i, r, loc, self._lines(loc, glob)) for i, r, loc in inflight)
            return Run(seed, order, tuple(events), tuple(answers), end, steps,
                       env_text(glob), waiting, failure, len(order) - arrived)

        while True:
            if not inflight and arrived == len(order):
                return stop(END_FINISHED)
            enabled: list[tuple[int, tuple[_Next, ...] | CompileError]] = []
            for n, (_, _, loc) in enumerate(inflight):
                got = self.moves(loc, glob)
                if got:  # a non-empty tuple of outcomes, or an error
                    enabled.append((n, got))
            if arrived < len(order):
                enabled.append((-1, ()))
            if not enabled:
                return stop(END_DEADLOCK)
            if deadline is not None and time.monotonic() > deadline:
                return stop(END_TIMEOUT)
            n, got = enabled[rng.randrange(len(enabled))]
            if burst > 0:
                again = [e for e in enabled if e[0] >= 0 and inflight[e[0]][0] == last]
                if again and rng.random() < burst:
                    n, got = again[0]
            if n < 0:  # the next request arrives
                arrived += 1
                req, start = order[arrived - 1], self.starts[order[arrived - 1]]
                events.append(Event("spawn", arrived, req, start))
                if not answer(arrived, req, start):
                    inflight.append((arrived, req, start))
                continue
            if steps >= max_steps:
                return stop(END_MAX_STEPS)
            inst, req, loc = inflight[n]
            last = inst
            if isinstance(got, CompileError):
                return stop(END_ERROR, Failure(inst, req, loc, got))
            l2, g2, _ = got[rng.randrange(len(got))]
            steps += 1
            events.append(Event("step", inst, req, loc, global_=env_text(glob),
                                to_local=l2, to_global=env_text(g2)))
            glob = g2
            if answer(inst, req, l2):
                del inflight[n]
            else:
                inflight[n] = (inst, req, l2)

    def _lines(self, local: str, glob: Env) -> tuple[int, ...]:
        """The source lines a request at `local` runs at `glob` (where it waits)."""
        try:
            outcomes = self.steps.step_global(local, glob)
        except CompileError:
            return ()
        return tuple(sorted(set().union(*(lines for _, _, lines in outcomes))))

    def serial(self, run: Run) -> SerialCheck:
        """Whether a finished run's answers are those of some serial order of its
        requests (None, with the reason, when not checked)."""
        if not run.finished:
            return SerialCheck(None, why="the run did not finish")
        k = len(run.requests)
        if k > MAX_SERIAL_CHECK:
            return SerialCheck(None, why=f"{k} requests (their orders are tried for at "
                               f"most {MAX_SERIAL_CHECK})")
        names = frozenset(run.requests)
        oracle = self._serial.get(names)
        if oracle is None:
            oracle = self._serial[names] = SerialOnDemand(self.steps, names, SERIAL_WORK)
        try:
            order = oracle.membership(k).serial_order(run.completed)
        except SoloTooLarge as exc:
            return SerialCheck(None, why=str(exc))
        if order is None:
            return SerialCheck(False)
        return SerialCheck(True, tuple((e.request, e.response) for e in order))


def start_position(expr: ast.Expr) -> tuple[int, int]:
    """(line, column) where the code of a local state starts: its first evaluated node
    (the left end of sequences and binary operators); (0, 0) when unknown."""
    node = expr
    while True:
        if isinstance(node, ast.Seq):
            node = node.first
        elif isinstance(node, ast.Binary):
            node = node.left
        else:
            return node.line, node.col
