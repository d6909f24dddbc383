"""Claims on a network system or on events: the one-step semantics (and NS), then the rest."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from checker.certificate import Limits
from checker.semantics import explore, semantics


def network(data: dict[str, Any], limits: Limits, remaining: Callable[[], float]
            ) -> Iterator[tuple[str, Callable[[], str]]]:  # fmt: skip
    state: dict[str, Any] = {}

    def build() -> str:
        from checker.serial_model import make_model

        m = data["model"]
        state["sem"] = sem = semantics(m["kind"], m["source"], m.get("constants"))
        if "proof" not in data:
            return "one-step semantics (counterexamples and lassos are replayed on it)"
        pairs = data["proof"].get("pairs")
        ns = explore(sem, None if pairs is None else frozenset(tuple(p) for p in pairs),
                     limits.state_bound)
        state["model"] = model = make_model(ns)
        kind = "closure" if pairs is None else f"restricted to {len(pairs)} pairs"
        return f"NS {kind}: {len(model.net.places)} places, {len(model.net.transitions)} " \
            f"transitions, {len(model.aut.edges)} serial edges"

    yield "model", build
    if "counterexample" in data:
        from checker.serial_search import counterexample

        yield from counterexample(state["sem"], data["counterexample"])
    elif "ltl" in data or "always" in data:
        from checker.temporal import temporal

        yield from temporal(state["sem"], data["model"]["kind"], data)
    else:
        from checker.obligations import proof

        yield from proof(state["model"], data["proof"], remaining, state["sem"])
