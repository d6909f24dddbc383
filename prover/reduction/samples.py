"""Candidates that a reachable configuration refutes, found by running the program.

A few seeded random runs of the counter system over the table's steps (arrivals of at most
a few requests, steps inside the domains, answers) visit configurations that are all
reachable; a candidate false in one is no invariant and is dropped before Houdini asks
z3 about it (Houdini drops most wrong guesses this way instead of one query each). Only
the candidates whose atoms a step changes are evaluated again. Deterministic: the seed
and the number of steps are fixed, so the result never depends on the machine."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from prover.reduction.invariant import Clause, Conjunct, Key, Linear
from prover.reduction.table import Local, Move, Table

RUNS = 12
STEPS = 400  # per run
REQUESTS = 3  # in flight at once, at most


def _runs(t: Table, live: list[Move], seed: int
          ) -> Iterator[tuple[dict[Local, int], dict[str, int], dict[Key, int] | None]]:
    """The seeded runs: after each step, the requests in each local state, the globals and
    what the step changed (None when a run starts, from the initial configuration)."""
    by_group: dict[tuple[Local, tuple[int, ...]], list[Move]] = {}
    for m in live:
        by_group.setdefault((m.src, m.reads), []).append(m)
    rng = random.Random(seed)
    for _ in range(RUNS):
        glob = {x: t.initial.get(x, 0) for x in t.domains}
        here: dict[Local, int] = {}
        yield here, glob, None
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
            change: dict[Key, int] = {}
            for loc, d in ((src, -1), (dst, 1)):
                if loc is not None:
                    change[("local", *loc)] = change.get(("local", *loc), 0) + d
            _move(here, src, dst)
            for x, v in zip(t.touched[step.src], step.after, strict=True) if step else ():
                if glob[x] != v:
                    change[("value", x)], glob[x] = v - glob[x], v
            yield here, glob, change


def refuted_by_runs(t: Table, live: list[Move], cands: Sequence[Conjunct],
                    seed: int = 0) -> set[Conjunct]:  # fmt: skip
    """The candidates false at some configuration the runs visit after their first step.

    A candidate can turn false only when one of its comparisons turns false, so only the
    candidates of the comparisons a step turned false are evaluated (a clause guarded by
    M(l) <= 0 is so woken when a request enters l). The comparisons are numbered and their
    sums kept in a list: equal comparisons of different clauses are one entry."""
    index: dict[Linear, int] = {}
    shapes = [_shape(c, index) for c in cands]
    lins = list(index)
    users: list[list[int]] = [[] for _ in lins]
    for ci, shape in enumerate(shapes):
        for i in dict.fromkeys(i for case in shape for i in case):
            users[i].append(ci)
    terms: dict[Key, list[tuple[int, int]]] = {}  # the sums each atom is in
    for i, lin in enumerate(lins):
        for k, n in lin.coeffs:
            terms.setdefault(k, []).append((i, n))
    ops = [_OPS[lin.op] for lin in lins]
    out: set[int] = set()
    sums: list[int] = []
    truth: list[bool] = []
    for _, glob, change in _runs(t, live, seed):
        if change is None:  # a run starts: the initial configuration (not asked)
            sums = [lin.const + sum(n * glob[k[1]] for k, n in lin.coeffs if k[0] == "value")
                    for lin in lins]  # fmt: skip
            truth = [_true(op, v) for op, v in zip(ops, sums, strict=True)]
            continue
        fell: set[int] = set()
        for k, d in change.items():
            for i, n in terms.get(k, ()):
                sums[i] += n * d
                now = _true(ops[i], sums[i])
                if truth[i] and not now:
                    fell.add(i)
                truth[i] = now
        for i in sorted(fell):
            for ci in users[i]:
                if ci not in out and not any(all(truth[j] for j in case) for case in shapes[ci]):
                    out.add(ci)
    return {cands[ci] for ci in out}


_OPS = {"=": 0, "<=": 1, ">=": 2}


def _true(op: int, v: int) -> bool:
    return v == 0 if op == 0 else v <= 0 if op == 1 else v >= 0


def _shape(c: Conjunct, index: dict[Linear, int]) -> tuple[tuple[int, ...], ...]:
    """The candidate as cases of numbered comparisons (a comparison: one case of one)."""
    cases = ((c,),) if isinstance(c, Linear) else c.cases
    return tuple(tuple(index.setdefault(x, len(index)) for x in case) for case in cases)


def _move(here: dict[Local, int], src: Local | None, dst: Local | None) -> None:
    if src is not None:
        here[src] -= 1
        if not here[src]:
            del here[src]
    if dst is not None:
        here[dst] = here.get(dst, 0) + 1


def guard(c: Conjunct) -> Key | None:
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
    values: dict[Local, dict[str, set[int]]] = {}
    together: set[tuple[Local, Local]] = set()
    for here, glob, change in _runs(t, live, seed):
        if change is None:
            continue
        for loc, n in here.items():
            seen = values.setdefault(loc, {})
            for x, v in glob.items():
                seen.setdefault(x, set()).add(v)
            together.update((loc, other) for other in here if other != loc or n > 1)
    return Observed({loc: {x: frozenset(v) for x, v in vs.items()}
                     for loc, vs in values.items()}, frozenset(together))
