"""The interleaving Petri net of a network system (ser-reference §4.2).

Places: Global(g) for every global state mentioned (initial or in a transition);
Local(req, l) for every request name and local state used by a transition below;
Response(req, resp) for every request name and response entry.
Transitions, in this order: spawns (one per request entry), responds (request name ×
response entry), steps (request name × NS transition). The counts reproduce the
reference's recorded sizes.
"""

from __future__ import annotations

from prover.ns import NetworkSystem
from prover.petri.net import NetTransition, PetriNet, Place


def _arcs(places: list[int]) -> tuple[tuple[int, int], ...]:
    counts: dict[int, int] = {}
    for p in places:
        counts[p] = counts.get(p, 0) + 1
    return tuple(sorted(counts.items()))


def build_interleaving_net(ns: NetworkSystem) -> PetriNet:
    places: list[Place] = []
    index: dict[Place, int] = {}

    def place(p: Place) -> int:
        i = index.get(p)
        if i is None:
            i = len(places)
            index[p] = i
            places.append(p)
        return i

    for g in ns.global_states:
        place(Place("global", None, g))
    transitions: list[NetTransition] = []
    for r in ns.requests:
        loc = place(Place("local", r.request, r.local))
        transitions.append(NetTransition("spawn", r.request, (), ((loc, 1),), local=r.local))
    for name in ns.request_names:
        for resp in ns.responses:
            loc = place(Place("local", name, resp.local))
            out = place(Place("response", name, resp.response))
            transitions.append(
                NetTransition(
                    "respond", name, ((loc, 1),), ((out, 1),),
                    local=resp.local, response=resp.response,
                )
            )
    for name in ns.request_names:
        for t in ns.transitions:
            src = place(Place("local", name, t.from_local))
            gsrc = place(Place("global", None, t.from_global))
            dst = place(Place("local", name, t.to_local))
            gdst = place(Place("global", None, t.to_global))
            transitions.append(
                NetTransition(
                    "step", name, _arcs([src, gsrc]), _arcs([dst, gdst]),
                    local=t.from_local, global_=t.from_global,
                    to_local=t.to_local, to_global=t.to_global,
                )
            )
    init = index[Place("global", None, ns.initial_global)]
    return PetriNet(tuple(places), tuple(transitions), ((init, 1),))


def interleaving_net_sizes(ns: NetworkSystem) -> dict[str, int]:
    """`build_interleaving_net(ns).sizes()` without building the net: a counterexample
    run reports the sizes but may never need the net (hundreds of thousands of
    transitions for a dozen request names)."""
    names = ns.request_names
    used = {t.from_local for t in ns.transitions} | {t.to_local for t in ns.transitions} \
        | {r.local for r in ns.responses}
    own = {(r.request, r.local) for r in ns.requests if r.local not in used}
    answers = {r.response for r in ns.responses}
    places = len(ns.global_states) + len(names) * len(used) + len(own) + \
        len(names) * len(answers)
    transitions = len(ns.requests) + len(names) * (len(ns.responses) + len(ns.transitions))
    return {"places": places, "transitions": transitions}
