"""A deliberately naive reference search (no reductions) used to validate explicit.py.

Markings of the interleaving net: (global, sorted in-flight (request, local) tokens,
sorted completed pairs). Spawn, step and respond are separate transitions, spawns may
happen at any time. Returns the least number of requests of a quiescent marking whose
completed multiset is not serial, searching all executions with at most `max_requests`.
"""

from __future__ import annotations

from prover.ns import NetworkSystem
from prover.serial.automaton import build_serial_automaton
from prover.serial.membership import SerialMembership, make_multiset


def naive_min_requests(
    ns: NetworkSystem, max_requests: int, max_states: int = 400_000
) -> int | None:
    oracle = SerialMembership(build_serial_automaton(ns))
    Mark = tuple[str, tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]
    start: Mark = (ns.initial_global, (), ())
    seen: set[Mark] = {start}
    todo: list[Mark] = [start]
    best: int | None = None
    while todo:
        g, fl, done = todo.pop()
        if not fl and done and not oracle.is_serial(make_multiset(done)):
            n = len(done)
            best = n if best is None else min(best, n)
        succ: list[Mark] = []
        if len(fl) + len(done) < max_requests:
            for r in ns.requests:
                succ.append((g, tuple(sorted(fl + ((r.request, r.local),))), done))
        for i, (req, loc) in enumerate(fl):
            rest = fl[:i] + fl[i + 1:]
            for t in ns.transitions_from.get((loc, g), ()):
                succ.append((t.to_global, tuple(sorted(rest + ((req, t.to_local),))), done))
            for v in ns.responses_of.get(loc, ()):
                succ.append((g, rest, tuple(sorted(done + ((req, v),)))))
        for s in succ:
            if s not in seen:
                seen.add(s)
                todo.append(s)
                if len(seen) > max_states:
                    raise RuntimeError("naive search too large")
    return best
