"""Claims on a network system or on events: the one-step semantics (and NS), then the rest."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from checker.certificate import Limits
from checker.errors import LimitError
from checker.semantics import explore, semantics


def check_structure(data: dict[str, Any], limits: Limits) -> None:
    """What the schema cannot say, read with the certificate: the number of events to replay;
    a counterexample's counts and a proof's rules (checker/obligations.py: not a lasso's)."""
    ev = data.get("counterexample") or data.get("ltl") or {}
    if (n := sum(len(ev.get(k, [])) for k in ("events", "prefix", "loop"))) > limits.max_events:
        raise LimitError(f"{n} events, limit {limits.max_events}")
    if "counterexample" in data or "proof" in data:
        from checker import obligations

        obligations.check_structure(data, limits)


def network(data: dict[str, Any], limits: Limits, remaining: Callable[[], float]
            ) -> Iterator[tuple[str, Callable[[], str]]]:  # fmt: skip
    state: dict[str, Any] = {}

    def build() -> str:
        m = data["model"]
        state["sem"] = sem = semantics(m["kind"], m["source"], m.get("constants"))
        if "proof" not in data:
            return "one-step semantics (counterexamples and lassos are replayed on it)"
        from checker.serial_model import make_model  # a proof's NS, net and automaton

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
