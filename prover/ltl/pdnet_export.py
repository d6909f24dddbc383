"""The PDNet of a program with at most K requests (prover/ltl/pdnet.py) as a P/T net for
other tools (`ser-prove export MODEL --what pdnet --requests K --format net|pnml`): a safe
net whose unfolding tools such as Mole or Cunf take. Identifiers p<i>, t<i>; names say
the variable and its value (a local state by its index in the NS, as `l<j>`)."""

from __future__ import annotations

from prover.ltl.pdnet import PDNet, Place, Step, every_step
from prover.petri.dynamic_slice import PTNet


def pdnet_to_ptnet(net: PDNet, name: str) -> PTNet:
    locals_ = {loc: j for j, loc in enumerate(net.ns.local_states)}
    steps = every_step(net)
    places: dict[Place, int] = {}
    for pl in [*net.initial, *(pl for s in steps for pl in s.pre + s.post)]:
        places.setdefault(pl, len(places))
    ordered = sorted(places, key=places.__getitem__)
    initial = set(net.initial)
    return PTNet(
        name=name,
        place_ids=tuple(f"p{i}" for i in range(len(ordered))),
        place_names=tuple(_place_name(net, pl, locals_) for pl in ordered),
        transition_ids=tuple(f"t{j}" for j in range(len(steps))),
        transition_names=tuple(_step_name(net, s, locals_) for s in steps),
        pre=tuple(tuple(sorted((places[pl], 1) for pl in s.pre)) for s in steps),
        post=tuple(tuple(sorted((places[pl], 1) for pl in s.post)) for s in steps),
        initial=tuple(int(pl in initial) for pl in ordered),
    )


def _place_name(net: PDNet, place: Place, locals_: dict[str, int]) -> str:
    var, value = place
    if var < net.width:
        return f"{net.names[var]}={value}"
    if var >= net.width + net.k:
        typ = "none" if value is None else net.ns.requests[int(str(value))].request
        return f"type{var - net.width - net.k}={typ}"
    slot = f"slot{var - net.width}"
    if value is None:
        return f"{slot}=free"
    assert isinstance(value, tuple)
    if value[0] == "ready":
        return f"{slot}=ready:{net.ns.requests[int(value[1])].request}"
    if value[0] == "flying":
        return f"{slot}={value[1]}@l{locals_[str(value[2])]}"
    return f"{slot}={value[1]}:answered:{value[2]}"


def _step_name(net: PDNet, step: Step, locals_: dict[str, int]) -> str:
    moved = _place_name(net, step.pre[0], locals_)
    after = _place_name(net, step.post[0], locals_).split("=", 1)[1]
    return f"{step.kind} {moved}->{after}"
