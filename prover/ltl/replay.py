"""A run of the PDNet that reaches a state where p is false (prover/ltl/unfold.py), as a
violation of `G p`: a lasso of the explicit system (prover/ltl/explore.py), which the
certificate writer then names events for (prover/ltl/certify.py).

The run's steps are replayed in the order given, each as the program's own move from the
actual state: a PDNet slot becomes the system's slot of the same request when it
arrives (the system fills slots in order of arrival). The state reached is then followed
to a loop: the environment stops delivering, then the first move is taken until a state
repeats, or until none is left (the last state repeats forever). Any such continuation
will do: p is already false on the prefix.
"""

from __future__ import annotations

from collections.abc import Sequence

from prover.ltl.explore import DONE, ENV, STUTTER, LtlResult, SysState, System
from prover.ltl.formula import Formula
from prover.ltl.lasso import holds
from prover.ltl.pdnet import PDNet, Step


def violation(net: PDNet, system: System, run: Sequence[Step], formula: Formula,
              events: int) -> LtlResult:
    """The lasso of `run`, confirmed by the exact semantics to violate `formula`."""
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
    loop = _continue(system, states, movers)
    word = [system.observe(s) for s in states]
    if holds(formula, word, loop):
        raise AssertionError("internal error: the unfolding's run satisfies the formula")
    return LtlResult("violated", events, len(set(states)), (tuple(states), loop),
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


def _continue(system: System, states: list[SysState], movers: list[int]) -> int:
    """Extend `states` to a lasso (in place); the index where its loop starts."""
    cur = states[-1]
    if not cur[3]:
        cur = (cur[0], cur[1], cur[2], True)
        movers.append(ENV)
        states.append(cur)
    seen = {cur: len(states) - 1}
    while True:
        moves = system.raw_moves(cur)
        if not moves:
            movers.append(STUTTER)
            return len(states) - 1
        process, cur = moves[0]
        movers.append(process)
        if cur in seen:
            return seen[cur]
        seen[cur] = len(states)
        states.append(cur)
