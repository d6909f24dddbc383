"""The proof portfolio: run the proof engines under one time budget, self-check every
invariant with z3 (initiation, consecution on every transition of the full net,
refutation), and return the `proof` evidence of the first one that passes.

Never claims anything it has not checked itself; the pipeline then runs the trusted
checker (cvc5) on the certificate. On failure `attempt_proof` says which engines ran and
how far each got; `find_proof` is the short form returning None.

Engines, in order (`ENGINES`):
0. `locked-walk` (prover/engines/locked_walk.py): the serial walk with a commit point at
   each request's first effectful step and the lock holder's completion; linear apart
   from connectivity, and on a restricted NS it implies exclusion by itself (no I_KM).
   Cheap to build and to check; applies to lock-style programs (locked-NN, e1, c2, g2).
1. `state-equation` (prover/engines/state_equation.py): M = M0 + C·x with counters per
   live transition, refined by traps, topological (read-arc style) implications and the
   connectivity of the walk of the global state machine; the invariant is then cut down
   to an unsat core of the refutation (closed for consecution), falling back to the full
   one. Proves all 27 serializable paper benchmarks.
2. `serial-walk` (prover/engines/templates.py): the serializability template "completed
   and finished requests label a connected walk of the serial automaton"; applies to
   models whose requests wait without effect and then finish in one atomic step.
3. `pdr` (prover/engines/pdr.py): IC3 with clause frames over the place counters, on top
   of the state-equation invariant (even when that one does not refute the target); at
   most `PDR_UNITS` of z3 work (resource units, so the same on a loaded machine).
4. `sliced-state-equation` (prover/engines/sliced.py): per target disjunct, the
   bidirectionally sliced net, its state equation, lifted back (backward-removed places:
   ∨ place ≥ 1; forward-removed: ∧ place = 0) and stitched into one invariant of the full
   net. Last, because the clause-form target is usually refuted in one query on the full
   net; it also proves all 27 serializable paper benchmarks when run alone.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

from prover.certificate.proof import proof_evidence
from prover.context import RunContext
from prover.engines.holders import HolderRow, holder_rows
from prover.engines.outcome import ProofOutcome
from prover.ns import NetworkSystem, Restriction
from prover.petri.net import PetriNet
from prover.serial.automaton import SerialAutomaton
from prover.serial.parikh import SerialSet
from prover.serial.walk import WalkNames, walk_formula
from prover.smt.formula import And, Formula, conj, size
from prover.smt.invariant import (
    Hint,
    Invariant,
    exclusion_check,
    ideal_formula,
    lift_hints,
    self_check,
)
from prover.target import Target

if TYPE_CHECKING:  # the engine itself is imported when it runs
    from prover.engines.state_equation import SEResult

ENGINES: tuple[str, ...] = (
    "locked-walk", "state-equation", "serial-walk", "pdr", "sliced-state-equation"
)
"""The proof engines, in the order the portfolio runs them."""

KM_HINTS_FROM = 300
"""The same (the invariant's and I_KM's cores, each renumbered in their conjunction) for a
proof on a restricted NS, from this many transitions. Measured on pool-k3 (455
transitions, 65 conjuncts of I_KM over 64 global states, a loaded 2-core machine):
check 33.8 s -> 17.3 s, self-check 3.5 s -> 2.7 s; the paper models (at most 279
transitions) are below it."""

HINTS_FROM = 1_000
"""Consecution hints (unsat cores of the self-check) for nets of at least this many
transitions. Measured on locked-03 (2,460 transitions): check 13.4 s -> 8.8 s, self-check
2.0 s -> 3.6 s; on the paper models (at most 279 transitions) they only make the
certificate larger."""


class _HasNS(Protocol):
    @property
    def ns(self) -> NetworkSystem: ...


@dataclass(frozen=True)
class EngineAttempt:
    engine: str
    proved: bool
    seconds: float
    detail: str




@dataclass(frozen=True)
class ProofAttempt:
    outcome: ProofOutcome | None
    attempts: tuple[EngineAttempt, ...]

    @property
    def reasons(self) -> tuple[str, ...]:
        """Why no proof was found, one item per engine attempt (never empty without a
        proof)."""
        if self.outcome is not None:
            return ()
        if not self.attempts:
            return ("no proof engine ran (budget exhausted before start)",)
        return tuple(f"{a.engine}: {a.detail} ({a.seconds:.2f} s)" for a in self.attempts)

    @property
    def reason(self) -> str:
        return "; ".join(self.reasons)


def attempt_proof(
    model: _HasNS | NetworkSystem,
    *,
    budget_s: float,
    net: PetriNet | None = None,
    serial_set: SerialSet | None = None,
    target: Target | None = None,
    engines: tuple[str, ...] = ENGINES,
    automaton: SerialAutomaton | None = None,
    run: RunContext | None = None,
) -> ProofAttempt:
    """Run `engines` in order until one yields a self-checked invariant. The objects of
    the run come from `run` (or are the ones given, else built when an engine first needs
    them): locked-walk needs no serial set, so a model it proves never builds one."""
    start = time.monotonic()
    deadline = start + max(0.0, budget_s)
    ns = model if isinstance(model, NetworkSystem) else model.ns
    if run is None:
        run = RunContext.of(ns, net=net, automaton=automaton, serial_set=serial_set,
                            target=target)
    attempts: list[EngineAttempt] = []
    background: list[Invariant] = []
    km: _Km | None = None  # built for the first engine that reads it (not locked-walk)
    for engine in engines:
        if time.monotonic() >= deadline:
            attempts.append(EngineAttempt(engine, False, 0.0, "not started: budget exhausted"))
            continue
        if engine == "locked-walk":
            outcome = _guarded(engine, attempts, _run_locked_walk, run, deadline, attempts)
            if outcome is not None:
                return ProofAttempt(outcome, tuple(attempts))
            continue
        try:
            net, serial_set, target = run.net, run.serial_set, run.target
        except Exception as exc:  # e.g. S is too large: "unknown", never a verdict
            detail = f"could not build the serial set and target ({type(exc).__name__}: {exc})"
            attempts.append(EngineAttempt("setup", False, time.monotonic() - start, detail))
            return ProofAttempt(None, tuple(attempts))
        if km is None and ns.restriction is not None:
            km = _Km(ns.restriction, ideal_formula(net, ns.restriction),
                     tuple(holder_rows(net, ns.restriction)))
        if engine == "state-equation":
            outcome = _guarded(engine, attempts, _run_state_equation, net, serial_set,
                               target, deadline, attempts, background, km)
        elif engine == "pdr":
            outcome = _guarded(engine, attempts, _run_pdr, net, serial_set, target,
                               deadline, attempts, background, km)
        elif engine == "serial-walk":
            outcome = _guarded(engine, attempts, _run_serial_walk, ns, net, run.automaton,
                               serial_set, target, deadline, attempts, km)
        elif engine == "sliced-state-equation":
            outcome = _guarded(engine, attempts, _run_sliced, ns, net, serial_set, deadline,
                               attempts)
        else:
            raise ValueError(f"unknown proof engine {engine!r}")
        if outcome is not None and km is not None and outcome.proof.get("pairs") is None:
            # an engine that wrote its own evidence (sliced): conjoin I_KM here
            t0 = time.monotonic()
            if outcome.invariant is None:
                restricted: ProofOutcome | str = "no invariant to conjoin with I_KM"
            else:
                restricted = _finish(net, serial_set, target, outcome.invariant, engine,
                                     outcome.stats, deadline, km)
            if isinstance(restricted, str):
                attempts.append(EngineAttempt(engine, False, time.monotonic() - t0, restricted))
                outcome = None
            else:
                outcome = restricted
        if outcome is not None:
            return ProofAttempt(outcome, tuple(attempts))
    return ProofAttempt(None, tuple(attempts))


def _guarded(engine: str, attempts: list[EngineAttempt],
             run: Callable[..., ProofOutcome | None], *args: Any) -> ProofOutcome | None:
    """An engine's failure is its own "unknown" (recorded), and the next engine runs: a
    RecursionError in locked-walk once left a serializable model undecided."""
    t0 = time.monotonic()
    try:
        return run(*args)
    except Exception as exc:  # noqa: BLE001 (no verdict comes from a failed engine)
        attempts.append(EngineAttempt(engine, False, time.monotonic() - t0,
                                      f"failed ({type(exc).__name__}: {exc})"))
        return None


def _run_sliced(ns: NetworkSystem, net: PetriNet, serial_set: SerialSet, deadline: float,
                attempts: list[EngineAttempt]) -> ProofOutcome | None:
    from prover.engines.sliced import attempt_sliced

    t0 = time.monotonic()
    outcome, detail = attempt_sliced(ns, budget_s=max(0.0, deadline - time.monotonic()),
                                     net=net, serial_set=serial_set)
    if outcome is None:
        attempts.append(EngineAttempt("sliced-state-equation", False,
                                      time.monotonic() - t0, detail))
    return outcome


@dataclass(frozen=True)
class _Km:
    """A restricted NS's pairs and its coverability invariant I_KM (`ideal_formula`)."""

    restriction: Restriction
    formula: Formula
    holders: tuple[HolderRow, ...] = ()
    # [True] once I_KM passed its own self-check (a one-slot memo shared by the engines)
    checked: list[bool] = field(default_factory=list, compare=False)
    # that self-check's consecution hints (unsat cores), when it was asked for them
    hints: list[Hint] = field(default_factory=list, compare=False)


def _run_locked_walk(
    run: RunContext, deadline: float, attempts: list[EngineAttempt]
) -> ProofOutcome | None:
    """The commit-point walk template (locked_walk.py), as a walk-labelled proof: no
    serial set. On a restricted NS its invariant implies exclusion by itself, so I_KM is
    not conjoined (it made invariants huge)."""
    from prover.engines.locked_walk import prove_locked_walk

    t0 = time.monotonic()
    res = prove_locked_walk(run.ns, run.net, run.automaton, run.ns.restriction)
    if res.invariant is None or res.walk is None:
        attempts.append(EngineAttempt("locked-walk", False, time.monotonic() - t0, res.reason))
        return None
    outcome = _finish_walk(run.net, res.invariant, res.walk, "locked-walk", deadline,
                           run.ns.restriction)
    if isinstance(outcome, str):
        attempts.append(EngineAttempt("locked-walk", False, time.monotonic() - t0, outcome))
        return None
    return outcome


def _finish_walk(
    net: PetriNet,
    inv: Invariant,
    walk: WalkNames,
    engine: str,
    deadline: float,
    exclusive: Restriction | None,
) -> ProofOutcome | str:
    """Self-check a walk-labelled invariant (refuted against the walk constraints, not a
    target) and build its evidence; on a restricted NS `inv` alone must imply exclusion."""
    until = max(deadline, time.monotonic() + 1.0)
    check = self_check(net, inv, None, deadline=until, walk=walk_formula(walk, net),
                       hints=len(net.transitions) >= HINTS_FROM)
    inv = replace(inv, hints=check.hints)
    if check.ok and exclusive is not None:
        check = exclusion_check(net, inv.formula, exclusive, deadline=until)
    if not check.ok:
        return f"invariant failed its z3 self-check: {check.failed}"
    stats: dict[str, Any] = {"aux": len(inv.aux), "formula_size": size(inv.formula),
                             "self_check_s": round(check.seconds, 3),
                             "walk_edges": len(walk.edges)}
    pairs = None if exclusive is None else exclusive.pairs
    if pairs is not None:
        stats["pairs"] = len(pairs)
    return ProofOutcome(proof_evidence(net, None, inv, pairs, walk=walk), engine, stats, inv)


def _run_serial_walk(
    ns: NetworkSystem,
    net: PetriNet,
    automaton: SerialAutomaton,
    serial_set: SerialSet,
    target: Target,
    deadline: float,
    attempts: list[EngineAttempt],
    km: _Km | None = None,
) -> ProofOutcome | None:
    from prover.engines.templates import prove_serial_walk

    t0 = time.monotonic()
    res = prove_serial_walk(ns, net, automaton)
    if res.invariant is None:
        attempts.append(EngineAttempt("serial-walk", False, time.monotonic() - t0, res.reason))
        return None
    return _finish_or_record(
        net, serial_set, target, res.invariant, "serial-walk", {}, deadline, attempts, t0, km
    )


def _state_equation(
    net: PetriNet, target: Target, deadline: float, km: _Km | None
) -> SEResult:
    """The state-equation engine, with I_KM and its holder rows as background if given."""
    from prover.engines.state_equation import prove_state_equation

    return prove_state_equation(
        net, target, deadline=deadline, background=None if km is None else km.formula,
        holders=() if km is None else km.holders,
    )


def _run_pdr(
    net: PetriNet,
    serial_set: SerialSet,
    target: Target,
    deadline: float,
    attempts: list[EngineAttempt],
    background: list[Invariant],
    km: _Km | None = None,
) -> ProofOutcome | None:
    from prover.engines.pdr import prove_pdr

    t0 = time.monotonic()
    if not background:
        se = _state_equation(net, target, deadline, km)
        if se.full_invariant is None:
            attempts.append(EngineAttempt("pdr", False, 0.0, "no background invariant"))
            return None
        background.append(se.full_invariant)
    base = background[0]
    if km is not None:  # PDR strengthens relative to I_KM too; its result contains it
        base = replace(base, formula=conj([base.formula, km.formula]))
    res = prove_pdr(net, target, base, deadline=deadline)
    if res.invariant is None:
        detail = f"{res.reason} ({res.clauses} clauses)"
        attempts.append(EngineAttempt("pdr", False, time.monotonic() - t0, detail))
        return None
    stats = {"frames": res.frames, "clauses": res.clauses}
    return _finish_or_record(
        net, serial_set, target, res.invariant, "pdr", stats, deadline, attempts, t0, km
    )


def _run_state_equation(
    net: PetriNet,
    serial_set: SerialSet,
    target: Target,
    deadline: float,
    attempts: list[EngineAttempt],
    background: list[Invariant],
    km: _Km | None = None,
) -> ProofOutcome | None:
    """On a restricted NS, first the plain state equation (measured: cheaper where it
    suffices, e.g. ring-12), then with I_KM as background and the holder rows."""
    modes: list[_Km | None] = [None] if km is None else [None, km]
    for mode in modes:
        if time.monotonic() >= deadline:
            break
        outcome = _state_equation_once(net, serial_set, target, deadline, attempts,
                                       background, km, mode)
        if outcome is not None:
            return outcome
    return None


def _state_equation_once(
    net: PetriNet,
    serial_set: SerialSet,
    target: Target,
    deadline: float,
    attempts: list[EngineAttempt],
    background: list[Invariant],
    km: _Km | None,
    mode: _Km | None,
) -> ProofOutcome | None:
    t0 = time.monotonic()
    se = _state_equation(net, target, deadline, mode)
    if se.full_invariant is not None and mode is None:
        background.append(se.full_invariant)  # inductive on its own: PDR's background
    name = "state-equation" if mode is None else "state-equation+coverability"
    if se.invariant is None:
        attempts.append(EngineAttempt(name, False, time.monotonic() - t0, se.reason))
    else:
        stats = {
            "iterations": se.stats.iterations,
            "traps": se.stats.traps,
            "topological": se.stats.topological,
            "connectivity": se.stats.connectivity,
            "live_transitions": se.stats.live_transitions,
        }
        candidates = [se.invariant]
        if se.full_invariant is not None and se.full_invariant != se.invariant:
            candidates.append(se.full_invariant)
        failures: list[str] = []
        for inv in candidates:
            outcome = _finish(net, serial_set, target, inv, "state-equation", stats, deadline, km)
            if isinstance(outcome, ProofOutcome):
                return outcome
            failures.append(outcome)
        attempts.append(EngineAttempt(name, False, time.monotonic() - t0, "; ".join(failures)))
    return None


def find_proof(
    model: _HasNS | NetworkSystem,
    *,
    budget_s: float,
    net: PetriNet | None = None,
    serial_set: SerialSet | None = None,
    target: Target | None = None,
    engines: tuple[str, ...] = ENGINES,
) -> ProofOutcome | None:
    """The `proof` evidence of a self-checked invariant, or None ("unknown")."""
    return attempt_proof(
        model, budget_s=budget_s, net=net, serial_set=serial_set, target=target, engines=engines
    ).outcome


def _finish_or_record(
    net: PetriNet,
    serial_set: SerialSet,
    target: Target,
    inv: Invariant,
    engine: str,
    stats: dict[str, Any],
    deadline: float,
    attempts: list[EngineAttempt],
    t0: float,
    km: _Km | None = None,
) -> ProofOutcome | None:
    """`_finish`, or None after recording the failed self-check in `attempts` (timed
    from `t0`)."""
    outcome = _finish(net, serial_set, target, inv, engine, stats, deadline, km)
    if isinstance(outcome, ProofOutcome):
        return outcome
    attempts.append(EngineAttempt(engine, False, time.monotonic() - t0, outcome))
    return None


def km_hints(inv: Formula, km: _Km, both: Formula, found: tuple[Hint, ...]) -> tuple[Hint, ...]:
    """The hints of `inv`'s self-check relative to I_KM (its conjuncts, then I_KM's) and of
    I_KM's own, as hints for their conjunction `both`, sorted by transition."""
    km_parts: list[Formula] = list(km.formula.args) if isinstance(km.formula, And) else [
        km.formula]
    own: list[Formula] = list(inv.args) if isinstance(inv, And) else [inv]
    out = lift_hints(found, own + km_parts, both) + lift_hints(km.hints, km_parts, both)
    return tuple(sorted(out))


def _finish(
    net: PetriNet,
    serial_set: SerialSet,
    target: Target,
    inv: Invariant,
    engine: str,
    stats: dict[str, Any],
    deadline: float,
    km: _Km | None = None,
) -> ProofOutcome | str:
    """Self-check `inv` and build the evidence. On a restricted NS the certificate's
    invariant is `inv ∧ I_KM` (I_KM is inductive and implies exclusion; `inv` may be
    inductive and refuting only relative to it) and the evidence lists the pairs."""
    # The self-check gets at least one second even when the engines used the budget up:
    # an invariant already found should not be lost to a rounding of the budget.
    until = max(deadline, time.monotonic() + 1.0)
    if km is not None:
        hints = len(net.transitions) >= KM_HINTS_FROM
        if not km.checked:
            # I_KM on its own, once per model: initiation, consecution, exclusion
            check = self_check(net, Invariant((), (), km.formula, ()), None, deadline=until,
                               hints=hints)
            km.hints[:] = check.hints
            if check.ok:
                check = exclusion_check(net, km.formula, km.restriction, deadline=until)
            if not check.ok:
                return f"coverability invariant failed its z3 self-check: {check.failed}"
            km.checked.append(True)
        # inv relative to I_KM: together inductive and refuting (the certificate's one)
        check = self_check(net, inv, target, deadline=until, assume=km.formula, hints=hints)
        both = conj([inv.formula, km.formula])
        if isinstance(both, And):  # PDR's invariant already contains I_KM (its background)
            both = And(tuple(dict.fromkeys(both.args)))
        inv = replace(inv, formula=both, hints=km_hints(inv.formula, km, both, check.hints))
    else:
        check = self_check(net, inv, target, deadline=until)
    if not check.ok:
        # A failed self-check is a bug in an engine, never a result.
        return f"invariant failed its z3 self-check: {check.failed}"
    full = dict(stats)
    full["aux"] = len(inv.aux)
    full["formula_size"] = size(inv.formula)
    full["self_check_s"] = round(check.seconds, 3)
    pairs = None
    if km is not None:
        pairs = km.restriction.pairs
        full["pairs"] = len(pairs)
        full["coverability_ideals"] = len(km.restriction.ideals)
    return ProofOutcome(proof_evidence(net, serial_set, inv, pairs), engine, full, inv)
