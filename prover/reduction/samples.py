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

    Kept up to date as the runs step, never evaluated afresh: the comparisons are numbered
    (equal comparisons of different clauses are one entry) with their sums; each case
    counts its false comparisons, each candidate its true cases. A step changes the sums of
    the comparisons its atoms are in, a comparison that turns changes the counts of the
    cases it is in, and a candidate is false when no case is true once the step is done."""
    if not cands:  # the runs would refute nothing (4,800 steps for a1's empty set)
        return set()
    index: dict[Linear, int] = {}
    shapes = [_shape(c, index) for c in cands]
    lins = list(index)
    owner: list[int] = []  # each case's candidate
    in_cases: list[list[int]] = [[] for _ in lins]  # the cases each comparison is in
    for ci, shape in enumerate(shapes):
        for case in shape:
            for i in case:
                in_cases[i].append(len(owner))
            owner.append(ci)
    cases = [case for shape in shapes for case in shape]
    terms: dict[Key, list[tuple[int, int]]] = {}  # the sums each atom is in
    for i, lin in enumerate(lins):
        for k, n in lin.coeffs:
            terms.setdefault(k, []).append((i, n))
    ops = [_OPS[lin.op] for lin in lins]
    out: set[int] = set()
    sums: list[int] = []
    truth: list[bool] = []
    false_in: list[int] = []  # per case: its false comparisons
    true_of: list[int] = []  # per candidate: its true cases
    for _, glob, change in _runs(t, live, seed):
        if change is None:  # a run starts: the initial configuration (not asked)
            sums = [lin.const + sum(n * glob[k[1]] for k, n in lin.coeffs if k[0] == "value")
                    for lin in lins]  # fmt: skip
            truth = [_true(op, v) for op, v in zip(ops, sums, strict=True)]
            false_in = [sum(not truth[i] for i in case) for case in cases]
            true_of = [0] * len(cands)
            for c, n in zip(owner, false_in, strict=True):
                true_of[c] += not n
            continue
        emptied: list[int] = []  # candidates left with no true case while the step applies
        for k, d in change.items():
            for i, n in terms.get(k, ()):
                sums[i] += n * d
                now = _true(ops[i], sums[i])
                if truth[i] == now:
                    continue
                truth[i] = now
                for at in in_cases[i]:
                    c = owner[at]
                    if now:
                        false_in[at] -= 1
                        true_of[c] += not false_in[at]
                    else:
                        false_in[at] += 1
                        if false_in[at] == 1:
                            true_of[c] -= 1
                            if not true_of[c]:
                                emptied.append(c)
        out.update(c for c in emptied if not true_of[c])  # after the whole step
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
