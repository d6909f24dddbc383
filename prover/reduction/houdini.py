"""Houdini (Flanagan and Leino) over the reduction's candidates: drop every candidate that
some step can break from a state where all the candidates left hold, until what is left is
inductive. The result, the largest inductive subset, does not depend on the order of the
drops, so every shortcut below only saves queries:

- a conjunct that a step's constant changes keep, or whose case on the globals the step
  sets holds, needs no query (`at_risk`);
- the open conjuncts of a few steps are asked in one query, and a counter-model drops
  every conjunct it breaks at any step of the batch that it enables;
- every counter-model is kept with the conjuncts it satisfies (a `Witness`); a later run
  on the same solver (the reduction's rounds with more candidates) first replays those
  still valid, in Python, and asks z3 only about what they leave.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import z3
else:  # loaded when a query is first made (prover/smt/z3_on_use.py)
    from prover.smt.z3_on_use import z3

from prover.reduction.invariant import (
    Change,
    Clause,
    Conjunct,
    Key,
    Solver,
    Witness,
    changes,
    shifted,
    z3_and,
    z3_not,
    z3_or,
)
from prover.reduction.table import Move, Table


def houdini(t: Table, live: list[Move], cands: Sequence[Conjunct], solver: Solver,
            deadline: float | None, counts: bool = False,
            known: frozenset[Conjunct] = frozenset()) -> list[Conjunct] | None:  # fmt: skip
    """The largest inductive subset of `cands` (None when the deadline passes); `counts`:
    answers count in C(r, v) too. A conjunct that a step's constant changes keep, or whose
    case on the globals the step sets holds, needs no query; the others at one step are
    asked at once, and those false in the counter-model are dropped. `known`: conjuncts
    already shown inductive among themselves, which a larger set keeps (not asked again).
    The solver's witnesses drop what they can first; the new counter-models join them."""
    initial = t.initial
    active = [c for c in dict.fromkeys(cands)  # one object per conjunct: cheap lookups
              if c.value(lambda k: initial.get(k[1], 0) if k[0] == "value" else 0)]
    steps = list(changes(t, live, counts))
    by_atom = by_atoms(active)
    active = replayed(solver.witnesses, active, by_atom, counts)
    risky: list[list[Conjunct]] = []  # once: later passes only drop conjuncts
    for ch in steps:
        if len(risky) % 256 == 0 and deadline is not None and time.monotonic() > deadline:
            return None
        risky.append([c for c in moved(by_atom, ch) if c not in known and at_risk(c, ch)])
    moving = steps_by_atom(steps)
    every = range(len(steps))
    todo: Iterable[int] = every
    while True:
        dropped = _pass(solver, active, steps, risky, todo, counts, deadline)
        if dropped is None:
            return None
        if not dropped and todo is every:
            return active
        active = [c for c in active if c not in dropped]
        # Steps next to what fell first (a chain of drops along a request's states falls
        # one link a pass, at a pass over the steps that move its atoms); then all of them
        todo = sorted({i for c in dropped for k in c.keys for i in moving.get(k, ())}) \
            if dropped else every


def steps_by_atom(steps: list[Change]) -> dict[Key, list[int]]:
    """The steps (by index) that move each atom."""
    moving: dict[Key, list[int]] = {}
    for i, ch in enumerate(steps):
        for k, d in ch.delta.items():
            if d != 0:
                moving.setdefault(k, []).append(i)
    return moving


def _pass(solver: Solver, active: list[Conjunct], steps: list[Change],
          risky: list[list[Conjunct]], todo: Iterable[int], counts: bool,
          deadline: float | None) -> set[Conjunct] | None:  # fmt: skip
    """One pass of Houdini's queries over the steps `todo` (indices into `steps`), all
    assuming `active`: the conjuncts that fell (None when the deadline passes). Its solver
    is made at the first query; a pass without one leaves it `unused` (z3 not loaded)."""
    s: z3.Solver | None = None
    alive, dropped = frozenset(active), set[Conjunct]()
    batch: list[tuple[Change, list[Conjunct]]] = []
    size = 1
    order = list(todo)
    for n, i in enumerate(order):
        if deadline is not None and time.monotonic() > deadline:
            if s is None:
                solver.unused(active)
            return None
        open_ = [c for c in risky[i] if c in alive and c not in dropped]
        if open_:
            batch.append((steps[i], open_))
        if batch and (len(batch) >= size or n == len(order) - 1):
            if s is None:
                s = solver.solver(active)
            broken = _refuted_among(solver, s, batch, alive, counts)
            size = 1 if broken else min(2 * size, BATCH_STEPS)
            dropped |= broken
            batch = []
    if s is None:
        solver.unused(active)
    return dropped


def replayed(witnesses: list[Witness], active: list[Conjunct],
             by_atom: dict[Key, list[Conjunct]], counts: bool) -> list[Conjunct]:  # fmt: skip
    """`active` without what the witnesses refute: a witness that satisfies every conjunct
    still alive is a state of the candidates, so a conjunct one of its steps breaks is in
    no inductive subset of them (the drop Houdini would make, without its query)."""
    alive = dict.fromkeys(active)
    for w in witnesses:
        if w.counts != counts or not all(c.value(w.values) for c in alive if c not in w.basis):
            continue
        for ch in w.steps:
            post = _post_values(w.values, ch)
            for c in moved(by_atom, ch):
                if c in alive and not c.value(post):
                    del alive[c]
    return list(alive)


def by_atoms(cs: Sequence[Conjunct]) -> dict[Key, list[Conjunct]]:
    """The conjuncts by the atoms they read."""
    out: dict[Key, list[Conjunct]] = {}
    for c in cs:
        for k in c.keys:
            out.setdefault(k, []).append(c)
    return out


def moved(by_atom: dict[Key, list[Conjunct]], ch: Change) -> list[Conjunct]:
    """The conjuncts an atom of which `ch` changes (the others keep their value), once
    each, in the order of `by_atom`'s atoms."""
    return list(dict.fromkeys(c for k, d in ch.delta.items() if d != 0
                              for c in by_atom.get(k, ())))  # fmt: skip


def at_risk(c: Conjunct, ch: Change) -> bool:
    """May `ch` break `c`: neither its constant changes keep it, nor does a case on the
    globals it sets hold?"""
    return not c.kept(ch.delta) and not (isinstance(c, Clause) and c.settled(ch.after))


BATCH_STEPS = 8
"""Steps whose open conjuncts Houdini asks about in one query at most (a disjunction over
the steps): most steps break nothing, and one unsat answer settles them all; a
counter-model drops every conjunct it breaks at any step of the batch it enables. The
batch starts at one step, doubles after each batch that breaks nothing and is one step
again after one that breaks something (where conjuncts fall, small queries are cheaper)."""


def _refuted_among(solver: Solver, s: z3.Solver, batch: list[tuple[Change, list[Conjunct]]],
                   basis: frozenset[Conjunct], counts: bool) -> set[Conjunct]:  # fmt: skip
    """The conjuncts that some step of `batch` (a step, its open conjuncts) can break from
    states of `s`: each counter-model's pre-state is run through every step of the batch
    it enables. A query z3 cannot decide is asked again step by step. `basis`: what `s`
    assumes, which each counter-model satisfies (its witness)."""
    out: set[Conjunct] = set()
    while batch:
        if len(batch) == 1:
            return out | _refuted_at(solver, s, *batch[0], basis, counts)
        ctx = solver.ctx
        r = solver.ask(s, z3_or([z3_and([solver.pre(ch.src, ch.low, ch.fixed),
                                         broken(solver, ch, open_)], ctx)
                                 for ch, open_ in batch], ctx))
        if r == z3.unsat:
            return out
        if r != z3.sat:
            for ch, open_ in batch:
                out |= _refuted_at(solver, s, ch, [c for c in open_ if c not in out], basis,
                                  counts)
            return out
        before, failing = _model_values(solver, s.model()), set[Conjunct]()
        enabled = [(ch, open_) for ch, open_ in batch if before(("local", *ch.src)) >= ch.low
                   and all(before(("value", x)) == v for x, v in ch.fixed.items())]
        for ch, open_ in enabled:
            post = _post_values(before, ch)
            failing.update(c for c in open_ if not c.value(post))
        solver.witnesses.append(Witness(before, tuple(ch for ch, _ in enabled), basis, counts))
        assert failing, "a counter-model of the disjunction breaks a conjunct of some step"
        out |= failing
        batch = [(ch, kept) for ch, open_ in batch
                 if (kept := [c for c in open_ if c not in failing])]
    return out


def broken(solver: Solver, ch: Change, open_: list[Conjunct]) -> z3.BoolRef:
    """Some conjunct of `open_` is false after `ch` (each as `shifted` writes it)."""
    terms = []
    for c in open_:
        after = shifted(c, ch)
        if after is False:
            return z3.BoolVal(True, solver.ctx)
        if after is not True:
            terms.append(solver.term(after))
    return z3_not(z3_and(terms, solver.ctx), solver.ctx)


def _refuted_at(solver: Solver, s: z3.Solver, ch: Change, open_: list[Conjunct],
                basis: frozenset[Conjunct], counts: bool) -> set[Conjunct]:  # fmt: skip
    """The conjuncts of `open_` that the step `ch` can break (from states of `s`)."""
    out: set[Conjunct] = set()
    while open_:
        r = solver.ask(s, z3_and([solver.pre(ch.src, ch.low, ch.fixed), broken(solver, ch, open_)],
                                 solver.ctx))
        if r == z3.unsat:
            break
        failing = set(open_)
        if r == z3.sat:
            before = _model_values(solver, s.model())
            failing = {c for c in open_ if not c.value(_post_values(before, ch))} or failing
            solver.witnesses.append(Witness(before, (ch,), basis, counts))
        out |= failing
        open_ = [c for c in open_ if c not in failing]
    return out


def _model_values(solver: Solver, model: z3.ModelRef) -> Callable[[Key], int]:
    """The atoms' values in a counter-model, each read from z3 on first use."""
    return _Model(solver, model).__getitem__


class _Model(dict[Key, int]):
    """The atoms' values in a counter-model, read from z3 on first use through its C API
    (`model.eval(x, model_completion=True).as_long()` without the wrappers that cost
    more than the evaluation); a dict, so that a conjunct's sum over hundreds of counters
    looks them up without a Python call each."""

    def __init__(self, solver: Solver, model: z3.ModelRef) -> None:
        super().__init__()
        self.solver, self.model, self.out = solver, model, (z3.Ast * 1)()
        self.counted = False

    def __missing__(self, key: Key) -> int:
        if key[0] == "local" and not self.counted:  # every counter, a block at a time
            self.counted = True
            for total, keys in self.solver.blocks():
                if self.eval(total) == 0:
                    self.update(dict.fromkeys(keys, 0))
                else:
                    self.update({k: self.eval(self.solver.atom(k)) for k in keys})
            if key in self:
                return self[key]
        got = self[key] = self.eval(self.solver.atom(key))
        return got

    def eval(self, term: z3.ArithRef) -> int:
        ref, out = self.solver.ctx.ref(), self.out
        if not z3.Z3_model_eval(ref, self.model.model, term.as_ast(), True, out):
            raise z3.Z3Exception("failed to evaluate a counter in the model")
        z3.Z3_inc_ref(ref, out[0])
        got = int(z3.Z3_get_numeral_string(ref, out[0]))
        z3.Z3_dec_ref(ref, out[0])
        return got


def _post_values(before: Callable[[Key], int], ch: Change) -> Callable[[Key], int]:
    """The atoms' values after `ch` from those before it."""
    return _After(before, ch).__getitem__


class _After(dict[Key, int]):
    """The atoms' values after a change: those it moves set at once, the others read
    from before it on first use."""

    def __init__(self, before: Callable[[Key], int], ch: Change) -> None:
        super().__init__()
        self.before = before
        for key, value, d in ch.effects:
            if value is not None:
                self[key] = value
            elif d:
                self[key] = before(key) + d

    def __missing__(self, key: Key) -> int:
        got = self[key] = self.before(key)
        return got
