"""A violation found by the search, as the events of a lasso certificate (docs/ltl.md).

The search's states may be kept up to which request is which (slots sorted), so its
lasso names no request. Here it is replayed from the initial state, one move at a time,
each move chosen among the program's own moves from the actual state so that it reaches
the search's next state up to that renaming: the events then name instances, which the
checker replays, and the loop returns to its start up to which instance is which (all
that the atoms and the future can see; under fairness the states are exact).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from prover.certificate.write import event_json, make_certificate, producer
from prover.engines import Event
from prover.frontend.load import LoadedModel
from prover.ltl.explore import DONE, ENV, STUTTER, LtlResult, SysState, System, search, system_for
from prover.ltl.formula import Formula, Unary, is_safety
from prover.ltl.pdnet import PDNet, Step
from prover.ltl.replay import fairly, lasso, violation
from prover.ltl.unfold import Unfolded, unfold_safety
from prover.ltl.unfold_ltl import unfold_ltl


def _moved(before: SysState, after: SysState, process: int) -> int | None:
    """The slot a move changes: its process, or for the environment the slot it filled
    (None: it stopped delivering)."""
    if process != ENV:
        return process
    return next((i for i, (a, b) in enumerate(zip(before[1], after[1], strict=True))
                 if a is None and b is not None), None)


def _event(before: SysState, after: SysState, slot: int, instance: int) -> Event:
    was, now = before[1][slot], after[1][slot]
    if was is None:
        assert now is not None
        return Event("spawn", instance, now[0], now[1])
    if now == DONE:
        gained = dict(after[2])
        for key, n in before[2]:
            gained[key] -= n
        (_, answer), = [k for k, n in gained.items() if n > 0]
        return Event("respond", instance, was[0], was[1], response=answer)
    assert now is not None
    return Event("step", instance, was[0], was[1], global_=before[0], to_local=now[1],
                 to_global=after[0])


def lasso_events(system: System, result: LtlResult
                 ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The (prefix, loop) events of a violation's lasso."""
    assert result.lasso is not None
    states, loop = result.lasso
    targets: Sequence[SysState] = [*states[1:], states[loop]]
    cur = system.initial()
    numbers: list[int | None] = [None] * system.k  # slot -> instance number
    spawned = 0
    prefix: list[dict[str, Any]] = []
    cycle: list[dict[str, Any]] = []
    movers = result.movers if not system.symmetric else ()  # symmetric: slots reordered
    for i, target in enumerate(targets):
        want = system.canonical(target)
        found = next(((p, t) for p, t in system.raw_moves(cur) or [(STUTTER, cur)]
                      if system.canonical(t) == want and (not movers or p == movers[i])),
                     None)
        if found is None:
            raise AssertionError("internal error: a lasso step is no move of the program")
        process, nxt = found
        slot = None if process == STUTTER else _moved(cur, nxt, process)
        if slot is not None:
            if numbers[slot] is None:
                spawned += 1
                numbers[slot] = spawned
            number = numbers[slot]
            assert number is not None
            (prefix if i < loop else cycle).append(event_json(_event(cur, nxt, slot, number)))
        cur = nxt
    return prefix, cycle


def violation_certificate(model: LoadedModel, formula: str, k: int, fairness: str,
                          result: LtlResult, engine: str = "ltl-explicit") -> dict[str, Any]:
    """The `ltl_violated` certificate of a violation found on `model` (by `search`, or
    by the unfolding through prover/ltl/replay.py)."""
    prefix, loop = lasso_events(system_for(model.ns, k, fairness), result)
    evidence = {"formula": formula, "requests": k, "fairness": fairness, "prefix": prefix,
                "loop": loop}
    return make_certificate(model, "ltl_violated", "ltl", evidence, producer(engine))


def by_unfolding(model: LoadedModel, text: str, formula: Formula, k: int, fairness: str,
                 budget: int, progress: Callable[[str], None] | None = None,
                 tree: bool = False) -> tuple[Unfolded, dict[str, Any] | None]:
    """`formula` (written `text`) decided on an unfolding, and a violation's certificate
    (under weak fairness, with a fair loop): `G p`, p without temporal operators, on the
    PDNet's (prover/ltl/unfold.py), any other on its Büchi product's (prover/ltl/
    unfold_ltl.py), whose verdict may then be "unfair" (only unfair lassos found).
    `tree`: every formula on the product, its prefix grown by the exploration tree."""
    net = PDNet(model.ns, k)
    system = System(model.ns, k, symmetric=False)
    fair = fairness == "weak"
    if is_safety(formula) and not tree:
        assert isinstance(formula, Unary)
        found = unfold_safety(net, formula.arg, budget, progress)
        if found.verdict != "violated":
            return found, None
        result = violation(net, system, found.run, formula, found.events, fair=fair)
        return found, violation_certificate(model, text, k, fairness, result,
                                            engine="ltl-unfold")

    def accept(prefix: tuple[Step, ...], loop: tuple[Step, ...], kind: str
               ) -> LtlResult | None:
        return lasso(net, system, prefix, loop, formula, 0, fair)

    decided = unfold_ltl(net, formula, budget, accept, progress, tree=tree)
    out = Unfolded(decided.verdict, decided.events, decided.cutoffs, decided.conditions,
                   limit=decided.limit, runs=decided.runs)
    if decided.found is None:
        return out, None
    result = replace(decided.found, states=decided.events)
    return out, violation_certificate(model, text, k, fairness, result, engine="ltl-unfold")


def safety_fairly(model: LoadedModel, text: str, formula: Unary, k: int, max_states: int,
                  progress: Callable[[str], None] | None = None
                  ) -> tuple[LtlResult, dict[str, Any] | None]:
    """`G p` under weak fairness, by the search without fairness (ample sets, exact
    states for the fair continuation); a violation continued fairly (prover/ltl/
    replay.py: every finite execution has a weakly fair continuation), certified."""
    result = search(model.ns, formula, k, max_states=max_states, symmetry=False,
                    progress=progress)
    if result.verdict != "violated":
        return result, None
    fair = fairly(System(model.ns, k, symmetric=False), result, formula)
    return result, violation_certificate(model, text, k, "weak", fair)
