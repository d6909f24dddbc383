"""Flow rows of "virtual places" (local l while the global is g), for the state equation
on a restricted NS.

The state equation lets a local state entered at one global leave from another (a
request holding a lock "teleports" between globals), which no execution does when
nobody else can change the global while l is held. The coverability ideals tell when
that is so. Let v(l, g) = [M(Global(g)) ≥ 1] · Σ_r M(Local(r, l)). Under I_KM, every
transition changes v(l, g) by a constant c_t when:

* a step that keeps the global changes it by [l2 = l] − [l1 = l] at g, by 0 elsewhere;
* a step from l1 that moves the global into or out of g finds, at its source global,
  no l other than (possibly) itself: the ideals of its source global with l1 present
  bound l by [l1 = l] (then c_t = [l2 = l] entering g, −[l1 = l] leaving g);
* spawns and responses must not touch l (l is neither initial nor able to respond).

Then `v(l, g) = Σ c_t · x_t` is an invariant together with I_KM and the state-equation
counters x_t (v is 0 initially: l is not initial), written with an `ite` term.
"""

from __future__ import annotations

from dataclasses import dataclass

from prover.ns import Restriction
from prover.petri.net import PetriNet

Bound = int | None  # None: ω


@dataclass(frozen=True)
class HolderRow:
    local_places: tuple[int, ...]
    global_place: int
    coefficients: tuple[tuple[int, int], ...]  # (transition index, c_t), c_t != 0


def holder_rows(net: PetriNet, restriction: Restriction, *, limit: int = 4000) -> list[HolderRow]:
    """Every valid row (l, g) over the listed pairs, at most `limit` of them."""
    non_final = set(restriction.non_final)
    ideals: dict[str, list[dict[str, Bound]]] = {}
    for ideal in restriction.ideals:
        b: dict[str, Bound] = {n: None for n in ideal.omega}
        b.update(ideal.finite)
        ideals.setdefault(ideal.global_, []).append(b)
    local_places: dict[str, list[int]] = {}
    global_place: dict[str, int] = {}
    for i, p in enumerate(net.places):
        if p.kind == "local":
            local_places.setdefault(p.state, []).append(i)
        elif p.kind == "global":
            global_place[p.state] = i
    untouchable: set[str] = set()
    for t in net.transitions:
        if t.kind != "step":
            untouchable.add(t.local)

    def alone(h: str, l1: str, loc: str) -> bool:
        """Under I_KM, at global h with l1 present, M(loc) is exactly [l1 = loc]."""
        for b in ideals.get(h, []):
            if b.get(l1, 0) == 0:
                continue
            got = b.get(loc, 0)
            if loc == l1:
                if got != 1:
                    return False
            elif got != 0:
                return False
        return True

    rows: list[HolderRow] = []
    for loc, g in restriction.pairs:
        if len(rows) >= limit:
            break
        if loc not in non_final or loc in untouchable or loc not in local_places:
            continue
        if g not in global_place:
            continue
        coeffs: list[tuple[int, int]] = []
        ok = True
        for ti, t in enumerate(net.transitions):
            if t.kind != "step":
                continue
            l1, g1, l2, g2 = t.local, t.global_, t.to_local, t.to_global
            assert g1 is not None and g2 is not None and l2 is not None
            if g1 == g2:
                c = (int(l2 == loc) - int(l1 == loc)) if g1 == g else 0
            elif g in (g1, g2):
                if not alone(g1, l1, loc):
                    ok = False
                    break
                c = int(l2 == loc) if g2 == g else -int(l1 == loc)
            else:
                c = 0
            if c:
                coeffs.append((ti, c))
        if ok and coeffs:
            rows.append(HolderRow(tuple(local_places[loc]), global_place[g], tuple(coeffs)))
    return rows
