"""The interleaving Petri net of an NS (ser-reference §4.2), rebuilt by the checker. Places:
("global", g), ("local", request, loc), ("response", request, v); transition keys:
("spawn", r, loc), ("respond", r, loc, v), ("step", r, loc, g, l2, g2)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from checker.semantics import NS

Place = tuple[str, ...]
TKey = tuple[str, ...]


@dataclass(frozen=True)
class Transition:
    key: TKey
    pre: tuple[tuple[Place, int], ...]
    post: tuple[tuple[Place, int], ...]


@dataclass(frozen=True)
class Net:
    initial: Place
    places: tuple[Place, ...]
    transitions: tuple[Transition, ...]

    def by_key(self) -> dict[TKey, Transition]:
        return {t.key: t for t in self.transitions}


def _bag(*places: Place) -> tuple[tuple[Place, int], ...]:
    return tuple(Counter(places).items())  # in first-seen order


def build_net(ns: NS) -> Net:
    names = tuple(dict.fromkeys(r for r, _ in ns.requests))
    ts: dict[TKey, Transition] = {}  # identical transitions are merged
    for r, loc in ns.requests:
        ts.setdefault(("spawn", r, loc), Transition(("spawn", r, loc), (), _bag(("local", r, loc))))
    # respond and step exist for every request name, reachable or not (§4.2, C7)
    for r in names:
        for loc, v in ns.responses:
            key: TKey = ("respond", r, loc, v)
            ts.setdefault(key, Transition(key, _bag(("local", r, loc)), _bag(("response", r, v))))
    for r in names:
        for loc, g, l2, g2 in ns.transitions:
            skey: TKey = ("step", r, loc, g, l2, g2)
            pre = _bag(("local", r, loc), ("global", g))
            ts.setdefault(skey, Transition(skey, pre, _bag(("local", r, l2), ("global", g2))))
    places = dict.fromkeys([("global", ns.initial),
                            *(p for t in ts.values() for p, _ in t.pre + t.post)])
    return Net(("global", ns.initial), tuple(places), tuple(ts.values()))


def transition_text(key: TKey) -> str:
    """Human-readable name of a transition for reports."""
    if key[0] == "spawn":
        return f"spawn {key[1]} at {key[2]}"
    if key[0] == "respond":
        return f"respond {key[1]} at {key[2]} with {key[3]}"
    return f"step {key[1]} ({key[2]}, {key[3]}) -> ({key[4]}, {key[5]})"


def place_text(p: Place) -> str:
    return f"{p[0].capitalize()}({', '.join(p[1:])})"
