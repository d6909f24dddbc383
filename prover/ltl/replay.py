"""Runs of the PDNet as lassos of the explicit system (prover/ltl/explore.py), which the
certificate writer then names events for (prover/ltl/certify.py): a run to a state
where p is false (prover/ltl/unfold.py), as a violation of `G p` (`violation`), and a
candidate lasso of the product's unfolding (prover/ltl/unfold_ltl.py, `lasso`).

The run's steps are replayed in the order given, each as the program's own move from the
actual state: a PDNet slot becomes the system's slot of the same request when it
arrives (the system fills slots in order of arrival). The state reached is then followed
to a loop: the environment stops delivering, then the first move is taken until a state
repeats, or until none is left (the last state repeats forever). Any such continuation
will do: p is already false on the prefix.

Under weak fairness the continuation is fair: the requests take turns (the next one
after the last that moved, among those able to move), until a state repeats at the same
turn. In that loop every request either moves or, at its turn, cannot: weakly fair. So
every finite execution has a weakly fair continuation, and `G p` has the same verdict
with and without weak fairness: a violation is a finite prefix, continued fairly.
"""

from __future__ import annotations

from collections.abc import Sequence

from prover.ltl.explore import DONE, ENV, STUTTER, LtlResult, SysState, System
from prover.ltl.formula import Formula, is_safety
from prover.ltl.lasso import holds
from prover.ltl.pdnet import PDNet, Step


def violation(net: PDNet, system: System, run: Sequence[Step], formula: Formula,
              events: int, fair: bool = False) -> LtlResult:
    """The lasso of `run`, confirmed by the exact semantics to violate `formula`
    (`fair`: its loop weakly fair)."""
    assert not system.symmetric
    cur = system.initial()
    states, movers = [cur], []
    where: dict[int, int] = {}  # PDNet slot -> the system's slot
    for step in run:
        if step.kind == "choose":
            continue
        if step.kind == "arrive":
            where[step.slot] = sum(x is not None for x in cur[1])
        process, cur = _move(net, system, cur, step, where[step.slot])
        movers.append(process)
        states.append(cur)
    return _lasso(system, states, movers, formula, events, fair)


def lasso(net: PDNet, system: System, prefix: Sequence[Step], loop: Sequence[Step],
          formula: Formula, events: int, fair: bool = False) -> LtlResult | None:
    """The lasso of an unfolding's candidate (prover/ltl/unfold_ltl.py): `prefix`, then
    the environment stops and `loop` repeats forever (empty: the last state repeats, no
    request being able to move). None under `fair` if the loop is not weakly fair: some
    request can move in every state of the loop and does not. The lasso must violate
    `formula` by the exact semantics, else the engine is wrong (an internal error)."""
    assert not system.symmetric
    states: list[SysState] = [system.initial()]
    movers: list[int] = []
    where: dict[int, int] = {}  # PDNet slot -> the system's slot

    def play(steps: Sequence[Step]) -> None:
        for step in steps:
            if step.kind == "choose":
                continue
            cur = states[-1]
            if step.kind == "arrive":
                where[step.slot] = sum(x is not None for x in cur[1])
            process, nxt = _move(net, system, cur, step, where[step.slot])
            movers.append(process)
            states.append(nxt)

    play(prefix)
    _stop(states, movers)
    start = len(states) - 1
    play(loop)
    if loop:
        if states[-1] != states[start]:
            raise AssertionError("internal error: the unfolding's loop does not return")
        states.pop()
    else:
        if system.raw_moves(states[-1]):
            raise AssertionError("internal error: the unfolding's deadlock can move")
        movers.append(STUTTER)
    if fair and not _fair(system, states[start:], movers[start:]):
        return None
    word = [system.observe(s) for s in states]
    if holds(formula, word, start):
        raise AssertionError("internal error: the unfolding's lasso satisfies the formula")
    return LtlResult("violated", events, len(set(states)), (tuple(states), start),
                     tuple(movers))


def _fair(system: System, loop: Sequence[SysState], movers: Sequence[int]) -> bool:
    """Every process moves in the loop or cannot move in one of its states."""
    for p in [ENV, *range(system.k)]:
        if p not in movers and all(any(q == p for q, _ in system.raw_moves(s)) for s in loop):
            return False
    return True


def fairly(system: System, found: LtlResult, formula: Formula) -> LtlResult:
    """A violation of `G p` found without fairness (by `search` on exact states), cut
    at its first state where p is false and continued fairly."""
    assert found.lasso is not None and not system.symmetric and is_safety(formula)
    states = list(found.lasso[0])
    bad = next(i for i, s in enumerate(states)
               if not holds(formula.arg, [system.observe(s)], 0))
    return _lasso(system, states[:bad + 1], list(found.movers[:bad]), formula,
                  found.states, True)


def _lasso(system: System, states: list[SysState], movers: list[int], formula: Formula,
           explored: int, fair: bool) -> LtlResult:
    loop = _continue(system, states, movers, fair)
    word = [system.observe(s) for s in states]
    if holds(formula, word, loop):
        raise AssertionError("internal error: the violation's lasso satisfies the formula")
    return LtlResult("violated", explored, len(set(states)), (tuple(states), loop),
                     tuple(movers))


def _move(net: PDNet, system: System, cur: SysState, step: Step, slot: int
          ) -> tuple[int, SysState]:
    value = step.post[0][1]
    assert isinstance(value, tuple)
    for process, nxt in system.raw_moves(cur):
        now = nxt[1][slot]
        if step.kind == "arrive":
            ok = process == ENV and not nxt[3] and now == value[1:]
        elif step.kind == "step":
            g = net.values(nxt[0])
            ok = process == slot and now == value[1:] and \
                all(g[var] == v for var, v in step.post[1:])
        else:
            ok = process == slot and now == DONE and \
                dict(nxt[2]).get(value[1:], 0) > dict(cur[2]).get(value[1:], 0)
        if ok:
            return process, nxt
    raise AssertionError(f"internal error: the unfolding's step {step} is no move")


def _stop(states: list[SysState], movers: list[int]) -> SysState:
    """The environment stops delivering (in place, unless it has); the state then."""
    cur = states[-1]
    if not cur[3]:
        cur = (cur[0], cur[1], cur[2], True)
        movers.append(ENV)
        states.append(cur)
    return cur


def _continue(system: System, states: list[SysState], movers: list[int], fair: bool) -> int:
    """Extend `states` to a lasso (in place); the index where its loop starts. Each move
    is the first one, or under `fair` the first of the next request in turn."""
    cur, turn = _stop(states, movers), 0
    seen = {(cur, turn): len(states) - 1}
    while True:
        moves = system.raw_moves(cur)
        if not moves:
            movers.append(STUTTER)
            return len(states) - 1
        if fair:
            first = min((p for p, _ in moves), key=lambda p: (p - turn) % system.k)
            process, cur = next(m for m in moves if m[0] == first)
            turn = (first + 1) % system.k
        else:
            process, cur = moves[0]
        movers.append(process)
        if (cur, turn) in seen:
            return seen[(cur, turn)]
        seen[(cur, turn)] = len(states)
        states.append(cur)
