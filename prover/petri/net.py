"""Petri-net data structures (place/transition nets with unit arc weights as built here,
general weights allowed)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Literal

PlaceKind = Literal["global", "local", "response"]
TransitionKind = Literal["spawn", "respond", "step"]


@dataclass(frozen=True, order=True)
class Place:
    """A place named by NS objects.

    - `global`: `state` is a global state, `request` is None;
    - `local`: a request of name `request` in local state `state`;
    - `response`: completed requests of name `request` answered `state` (a response value).
    """

    kind: PlaceKind
    request: str | None
    state: str

    def label(self) -> str:
        """Human-readable name (not an identifier: may contain any character)."""
        if self.kind == "global":
            return f"G {self.state}"
        if self.kind == "local":
            return f"L {self.request} {self.state}"
        return f"R {self.request}/{self.state}"


@dataclass(frozen=True)
class NetTransition:
    """A transition; `pre`/`post` are (place index, weight) pairs sorted by place index.

    The NS objects it stems from are kept so that traces and invariants can be named
    canonically: `local`/`global_` are the source states, `to_local`/`to_global` the
    targets (for `step`), `response` the answer (for `respond`).
    """

    kind: TransitionKind
    request: str
    pre: tuple[tuple[int, int], ...]
    post: tuple[tuple[int, int], ...]
    local: str
    global_: str | None = None
    to_local: str | None = None
    to_global: str | None = None
    response: str | None = None

    def label(self) -> str:
        if self.kind == "spawn":
            return f"spawn {self.request} {self.local}"
        if self.kind == "respond":
            return f"respond {self.request} {self.local} -> {self.response}"
        return (
            f"step {self.request} ({self.local}, {self.global_}) -> "
            f"({self.to_local}, {self.to_global})"
        )


@dataclass(frozen=True)
class PetriNet:
    places: tuple[Place, ...]
    transitions: tuple[NetTransition, ...]
    initial: tuple[tuple[int, int], ...]

    @cached_property
    def place_index(self) -> dict[Place, int]:
        return {p: i for i, p in enumerate(self.places)}

    def initial_vector(self) -> list[int]:
        m = [0] * len(self.places)
        for i, w in self.initial:
            m[i] += w
        return m

    def sizes(self) -> dict[str, int]:
        return {"places": len(self.places), "transitions": len(self.transitions)}
