"""Candidates that a reachable configuration refutes, found by running the program.

A few seeded random runs of the counter system over the table's steps (arrivals of at most
a few requests, steps inside the domains, answers) visit configurations that are all
reachable; a candidate false in one is no invariant and is dropped before Houdini asks
z3 about it (Houdini drops most wrong guesses this way instead of one query each). Only
the candidates whose atoms a step changes are evaluated again. Deterministic: the seed
and the number of steps are fixed, so the result never depends on the machine."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from prover.reduction.invariant import Clause, Conjunct, Key
from prover.reduction.table import Local, Move, Table

RUNS = 12
STEPS = 400  # per run
REQUESTS = 3  # in flight at once, at most


def refuted_by_runs(t: Table, live: list[Move], cands: Sequence[Conjunct],
                    seed: int = 0) -> set[Conjunct]:  # fmt: skip
    by_group: dict[tuple[Local, tuple[int, ...]], list[Move]] = {}
    for m in live:
        by_group.setdefault((m.src, m.reads), []).append(m)
    # A clause with a case M(l) <= 0 holds while l is empty: it is read only while some
    # request is in l (when one enters, or when a global it reads changes meanwhile).
    guarded: dict[Key, dict[Key, list[Conjunct]]] = {}  # l -> atom -> clauses
    by_atom: dict[Key, list[Conjunct]] = {}  # the other candidates
    for c in cands:
        g = _guard(c)
        keys = c.keys if isinstance(c, Clause) else {k for k, _ in c.coeffs}
        for k in keys:
            if g is None:
                by_atom.setdefault(k, []).append(c)
            else:
                guarded.setdefault(g, {}).setdefault(k, []).append(c)
    rng = random.Random(seed)
    out: set[Conjunct] = set()
    for _ in range(RUNS):
        glob = {x: t.initial.get(x, 0) for x in t.domains}
        here: dict[Local, int] = {}

        def value(k: Key, glob: dict[str, int] = glob, here: dict[Local, int] = here) -> int:
            return glob[k[1]] if k[0] == "value" else here.get((k[1], k[2]), 0) \
                if k[0] == "local" else 0

        for _ in range(STEPS):
            options: list[tuple[Local | None, Local | None, Move | None]] = [
                (m.src, m.dst, m) for loc in sorted(here) if loc in t.reads
                for m in by_group.get((loc, tuple(glob[x] for x in t.reads[loc])), ())]
            options += [(loc, None, None) for loc in sorted(here) if loc in t.final]
            if sum(here.values()) < REQUESTS:
                options += [(None, loc, None) for loc in t.entries]
            if not options:
                break
            src, dst, step = options[rng.randrange(len(options))]
            _move(here, src, dst)
            changed: list[Key] = [("local", *loc) for loc in (src, dst) if loc is not None]
            if step is not None:
                glob.update(zip(t.touched[step.src], step.after, strict=True))
                changed += [("value", x) for x in t.touched[step.src]]
            affected = [c for k in changed for c in by_atom.get(k, ())]
            for loc in here:  # a request in l: the clauses of l that read a changed atom
                near = guarded.get(("local", *loc), {})
                affected += [c for k in changed for c in near.get(k, ())]
            for c in affected:
                if c not in out and not c.value(value):
                    out.add(c)
    return out


def _move(here: dict[Local, int], src: Local | None, dst: Local | None) -> None:
    if src is not None:
        here[src] -= 1
        if not here[src]:
            del here[src]
    if dst is not None:
        here[dst] = here.get(dst, 0) + 1


def _guard(c: Conjunct) -> Key | None:
    """The counter l of a case M(l) <= 0 of a clause, if it has one."""
    if isinstance(c, Clause):
        for case in c.cases:
            if len(case) == 1 and len(case[0].coeffs) == 1 and case[0].op == "<=" \
                    and case[0].const == 0 and case[0].coeffs[0][1] == 1:  # fmt: skip
                return case[0].coeffs[0][0]
    return None


@dataclass(frozen=True)
class Observed:
    """What the runs saw: the values of each global while a request was in each local
    state, and which local states were occupied at once."""

    values: dict[Local, dict[str, frozenset[int]]]
    together: frozenset[tuple[Local, Local]]  # both orders


def observe(t: Table, live: list[Move], seed: int = 0) -> Observed:
    """The same seeded runs as `refuted_by_runs`, recording what they saw."""
    by_group: dict[tuple[Local, tuple[int, ...]], list[Move]] = {}
    for m in live:
        by_group.setdefault((m.src, m.reads), []).append(m)
    values: dict[Local, dict[str, set[int]]] = {}
    together: set[tuple[Local, Local]] = set()
    rng = random.Random(seed)
    for _ in range(RUNS):
        glob = {x: t.initial.get(x, 0) for x in t.domains}
        here: dict[Local, int] = {}
        for _ in range(STEPS):
            options: list[tuple[Local | None, Local | None, Move | None]] = [
                (m.src, m.dst, m) for loc in sorted(here) if loc in t.reads
                for m in by_group.get((loc, tuple(glob[x] for x in t.reads[loc])), ())]
            options += [(loc, None, None) for loc in sorted(here) if loc in t.final]
            if sum(here.values()) < REQUESTS:
                options += [(None, loc, None) for loc in t.entries]
            if not options:
                break
            src, dst, step = options[rng.randrange(len(options))]
            _move(here, src, dst)
            if step is not None:
                glob.update(zip(t.touched[step.src], step.after, strict=True))
            for loc, n in here.items():
                seen = values.setdefault(loc, {})
                for x, v in glob.items():
                    seen.setdefault(x, set()).add(v)
                together.update((loc, other) for other in here if other != loc or n > 1)
    return Observed({loc: {x: frozenset(v) for x, v in vs.items()}
                     for loc, vs in values.items()}, frozenset(together))
