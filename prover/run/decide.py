"""One model decided inside its child process (prover/run/pipeline.py runs it under the
deadline and writes what it hands back): load, the engines in their schedule, the
certificate and the trusted checker's verdict on it.

Engine schedule (the engines stop at `ENGINE_SHARE` of the budget, the checker gets the
rest; slices between engines are counted in work, not seconds, so the same model gives
the same verdict, engine and certificate on an idle and on a loaded machine as long as
the deadline is not reached):

1. explicit counterexample search (prover/engines/explicit.py), shortest first, with a
   budget of FIRST_EXPLICIT_STATES states (one round of the unbounded and the
   concurrency-1 search): most violations are shallow;
2. a Ser program: the reduction engine with a budget of `schedule.PROBE_UNITS` z3
   resource units;
3. then, as `schedule.plan` reads what those found: the wide search (a budget of
   states) of a program with many global states, the reduction again with a larger
   budget when the first spent its budget, the proof portfolio
   (`prover.engines.portfolio`, imported lazily) until its engines end by their counts,
   the explicit search again with a larger state budget (its rounds up to their bound in
   states), and the symbolic BMC (prover/engines/bmc.py) with whatever remains, for deep
   violations.

No counterexample and no proof within the budget: `status="undecided"`, exit code 3. A
run-time error next to a counterexample follows docs/cli.md ("Errors next to a
counterexample").
"""
from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from functools import partial
from typing import TYPE_CHECKING, Any, Literal

from prover.certificate.write import (
    cases_certificate,
    counterexample_certificate,
    dump_certificate,
    locking_certificate,
    make_certificate,
    parts_certificate,
    producer,
    versions_certificate,
)
from prover.context import RunContext
from prover.engines import Counterexample
from prover.engines.explicit import (
    ProgramTables,
    SearchResult,
    Tables,
    find_counterexample,
    tables,
)
from prover.errors import RUNTIME_FAULTS, Diagnostic, SerError
from prover.frontend.steps import ProgramSteps
from prover.ns import NetworkSystem, reaching_requests
from prover.run.schedule import PROBE_UNITS, REDUCTION_UNITS, Evidence, Stage, plan
from prover.serial.ondemand import SoloTooLarge

if TYPE_CHECKING:  # the front end is imported inside the child, when it runs
    from prover.frontend.load import LoadedModel
    from prover.reduction.engine import Attempt
    from prover.reduction.invariant import Conjunct
    from prover.reduction.table import Bound, Limits, Table

from prover.run.result import (
    Decided,
    ProveResult,
    Status,
    peak_memory_mib,
    rejected_path,
)

NARROWED_REQUESTS = 3
"""A counterexample of the narrowed program with more requests is not kept: the search of
the serial runs of the whole program that shows it not serial (the prover's and the
checker's) grows with the requests and the inputs' values, past a run's budget."""

FIRST_EXPLICIT_STATES = 20_000
"""State budget of the first explicit search. Every violation among the paper benchmarks
is found within 1,200 states; 20,000 states is what the former 0.25 s slice reached on
an idle machine, so serializable models reach the proof engines as early as before."""

WIDE_GLOBALS = 200
"""Global states the first search may meet before a Ser program counts as wide (`_wide`):
every paper model meets at most 12, lock-based scale models hundreds to thousands."""

WIDE_SEARCH_STATES = 500_000
"""State budget of the search a wide program gets before its network system is built
(unlocked-16's smallest counterexample is found after 339,492 states, 3.3 s)."""

DIAGNOSTIC_VALUATIONS = 5_000
"""(local state, valuation) pairs the table that the model's warnings are read off may step
when no engine grew one, over all the rounds that grow its domains: a work
queue over four slots after a counterexample found in 0.1 s took 14 s to step its 400,000,
and a reference count's 34 rounds of 20,000 took 7.5 s; four optimistic records chosen by
input step at 3 ms a pair (20,000: 15 s after a counterexample found in 1.2 s); beyond this
the warnings about reach are left out."""

FIRST_DEADLOCK_STATES = 2_000
"""State budget of the deadlock search before a reduction proof's invariant is asked
(`_deadlocks`); the whole search's is `prover.engines.deadlock.DEADLOCK_STATES`."""

ENGINE_SHARE = 0.85
"""The engines stop at this fraction of the budget; the checker gets the rest (at least)."""


def check_text(text: str, source: str, timeout_s: float,
               state_bound: int | None = None) -> tuple[str, str]:
    """Run the trusted checker: (status, message); ("unavailable", why) if it cannot be
    imported, ("limit", message) for a certificate beyond the checker's limits.
    `state_bound`: ser-prove's --state-bound, which bounds the checker's NS too."""
    try:
        import checker
        import schemas
        from checker.api import check_certificate
        from checker.certificate import Limits
    except ImportError as exc:
        return "unavailable", f"the certificate checker is not available ({exc})"
    foreign = [m.__name__ for m in (checker, schemas)
               if getattr(m, "__distribution__", None) != "ser-prove"]
    if foreign:  # another distribution's package of the same name shadows ours
        return "unavailable", (f"the installed `{foreign[0]}` package is not ser-prove's; "
                               "install ser-prove in a virtual environment of its own")
    limits = Limits() if state_bound is None else Limits(state_bound=state_bound)
    result = check_certificate(text, model_text=source, timeout_s=timeout_s, limits=limits)
    if result.status == "unusable" and result.code == "E-LIMIT":
        return "limit", result.message
    return result.status, result.message


@dataclass
class _Run:
    """One model's run inside its child: what every stage reads, and what the stages
    have found so far (times, statistics, why no engine succeeded)."""

    path: str
    model: LoadedModel
    ctx: RunContext
    start: float
    hard: float  # the hard deadline of the whole run
    deadline: float  # the engines stop here (ENGINE_SHARE of the budget)
    say: Callable[[str], None]
    sizes: dict[str, dict[str, int]]
    times: dict[str, float] = field(default_factory=dict)
    stats: dict[str, Any] = field(default_factory=dict)
    reasons: list[str] = field(default_factory=list)
    warnings: tuple[Diagnostic, ...] = ()
    table: Table | None = None  # the reduction engine's per-variable steps on its domains
    # A reduction proof of the program itself (not a split one): its table and Houdini's
    # invariant, which may show that no configuration deadlocks (prover/reduction/stuck.py)
    proof_view: tuple[Table, tuple[Conjunct, ...], dict[str, Any]] | None = None
    fault: SerError | None = None  # a run-time error a stage met (RUNTIME_FAULTS)
    fallback: Callable[[], dict[str, Any]] | None = None  # a reduction proof's unpruned evidence
    table_tried: bool = False  # the reduction engine grew `table` (None: it failed to)
    split_tried: bool = False  # the reduction of the split program ran (at most once)
    proved: bool = False  # by reduction: the table's escapes are dead
    first_states: int = 0  # the states the first explicit search explored
    first_complete: bool = False  # it searched every run (no counterexample at any size)
    state_bound: int | None = None  # --state-bound: the NS's, and the checker's
    search: Tables | None = None  # the explicit search's view, kept for its later rounds
    deadlock: tuple[str, dict[str, Any]] | None = None  # the deadlock search's report
    assertion: tuple[str, dict[str, Any]] | None = None  # a failing assertion's report
    reduction: Literal["none", "failed", "finding", "after"] = "none"  # the last reduction's end
    locking: bool = True  # the two-phase locking claim is asked first (not: --no-locking)
    locks_in_order: bool = False  # its requests wait only for locks, taken in one order
    ns_choice: str = "reachable"  # --ns
    searches: bool = True  # counterexample searches run (not: a part with holders, whose
    # counterexamples are no executions of the program)
    part: bool = False  # a part's run: not split into parts again (a part has no parts)

    def left(self, margin: float = 0.0) -> bool:
        return time.monotonic() < self.deadline - margin

    def result(self, status: Status, reason: str = "", **kw: Any) -> ProveResult:
        self.times["total_s"] = time.monotonic() - self.start
        self.stats["peak_memory_mib"] = peak_memory_mib()
        return ProveResult(self.path, status, reason, kw.pop("cert_path", None),
                           kw.pop("engine", None), kw.pop("cex", None), kw.pop("check", None),
                           kw.pop("message", ""), self.times, self.stats,
                           self.ctx.ns if self.ctx.ns_built else None, self.sizes,
                           warnings=self.warnings, deadlock=self.deadlock, **kw)

    def undecided(self, why: str, parts: tuple[str, ...] = ()) -> Decided:
        return Decided(self.result("undecided", why, reasons=parts), None, None)


def decide(
    path: str,
    dest: str,
    *,
    timeout_s: float,
    check_timeout_s: float,
    progress: Callable[[str], None] | None,
    use_proofs: bool,
    state_bound: int | None = None,
    ns_choice: str = "reachable",
    data: bytes | None = None,
    defines: tuple[tuple[str, int], ...] = (),
    locking: bool = True,
) -> Decided:
    """One model, in its child process: never writes a file (`data`: the model file's
    bytes, read by the caller, e.g. on another machine). Stages: load, a first
    explicit search, a reduction attempt, then the stages of `schedule.plan` (the
    reduction again, the wide search, the proof portfolio, a second explicit search,
    BMC), then the certificate and its check."""
    run = _load(path, timeout_s, progress, state_bound, ns_choice, data, defines)
    run.locking = locking
    if timeout_s <= 0:  # docs/cli.md: the model is read and checked, no engine runs
        return run.undecided("--timeout 0: the model was read, no engine ran")
    rejected: Decided | None = None  # the last certificate the checker refused
    failed = _assertions(run, dest, check_timeout_s)
    if failed is not None and failed.result.status != "error":
        return failed
    if failed is not None:  # a bug: said in the reasons, and the engines go on
        rejected = failed
        run.reasons.append(failed.result.reason)
    for cex, cert in _candidates(run, use_proofs):
        decided = _conclude(run, dest, cex, cert, check_timeout_s)
        if decided.result.status != "error":
            return decided
        rejected = decided  # a bug: said in the reasons, and the next engine goes on
        run.reasons.append(decided.result.reason)
    fault = _fault(run)
    if fault is not None:  # docs/cli.md: "Errors next to a counterexample"
        raise fault
    run.times["engines_s"] = time.monotonic() - run.start
    _deadlock_when_undecided(run)
    head = "no counterexample and no proof within the budget"
    undecided = run.undecided(f"{head}: " + "; ".join(run.reasons), tuple(run.reasons))
    if rejected is None:
        return undecided
    return Decided(undecided.result, rejected.text, rejected.dest)  # the bug report is kept


def _fault(run: _Run) -> SerError | None:
    """The run-time error a stage or the explicit search met, if any."""
    return run.fault or (run.search.fault if run.search is not None else None)


def _candidates(run: _Run, use_proofs: bool
                ) -> Iterator[tuple[Counterexample | None, dict[str, Any] | None]]:  # fmt: skip
    """Each engine's answer in the schedule's order (a counterexample, or a proof's
    certificate); the caller checks each and asks for the next when the checker refuses
    one. A run-time error an engine meets ends the engines: the second search may still
    find a counterexample beside it."""
    try:
        yield from _engines(run, use_proofs)
    except RUNTIME_FAULTS as met:  # e.g. the network system meets a division by zero
        run.fault = met
        cex = _second_search(run)
        if cex is not None:
            yield cex, None


def _conclude(run: _Run, dest: str, cex: Counterexample | None, cert: dict[str, Any] | None,
              check_timeout_s: float) -> Decided:
    """One engine's answer made a certificate, with the model's warnings and the deadlock
    search, and checked; status "error" when the checker refuses it."""
    fault = _fault(run)
    if fault is not None and cex is None:  # docs/cli.md: "Errors next to a counterexample"
        raise fault
    engine = None if cert is None else str(cert["producer"].get("engine", "proof"))
    if cex is not None:
        engine = cex.engine
        cert = counterexample_certificate(run.model, cex)
        run.stats.update(requests=cex.requests, lower_bound=cex.lower_bound,
                         events=len(cex.events))
    assert cert is not None
    run.times["engines_s"] = time.monotonic() - run.start
    t0 = time.monotonic()
    run.warnings = _diagnostics(run) + (() if fault is None else (_fault_warning(run, fault),))
    t1 = time.monotonic()
    _deadlocks(run, cert)
    if run.model.steps is not None:  # a Ser program: its warnings' table, the deadlock search
        run.times.update(diagnostics_s=t1 - t0, deadlock_s=time.monotonic() - t1)
    if run.warnings:  # informational: the checker never reads them
        cert["producer"]["warnings"] = [w.json() for w in run.warnings]
    return _certify(run, dest, cert, str(engine), cex, check_timeout_s)


def _engines(run: _Run, use_proofs: bool
             ) -> Iterator[tuple[Counterexample | None, dict[str, Any] | None]]:  # fmt: skip
    """The stages in their order, each answer as it comes: a counterexample, or a proof's
    certificate."""
    if use_proofs and run.locking:  # locks taken in two phases: no engine needed
        cert = _locking(run)
        if cert is not None:
            yield None, cert
    if use_proofs:  # before the first search: the whole's steps read every case's globals
        cex, cert = _cases(run)
        if cex is not None or cert is not None:
            yield cex, cert
    cex = (_narrowed(run) or _first_search(run)) if run.searches else None
    if cex is not None:
        yield cex, None
    cex = _random_runs(run, later=False) if run.searches else None
    if cex is not None:
        yield cex, None
    if use_proofs:
        # before the reduction's probe: a version that never wraps is a global it cannot bound
        cert = _versions(run)
        if cert is not None:
            yield None, cert
        cert = _reduction(run, PROBE_UNITS) if run.searches else None  # else: after proof
        if cert is not None:
            yield None, cert
        cex, cert = _parts(run)
        if cex is not None or cert is not None:
            yield cex, cert
    cex = _random_runs(run, later=True) if run.searches else None
    if cex is not None:
        yield cex, None
    evidence = Evidence(run.model.steps is not None, _wide(run), run.reduction)
    for stage in plan(evidence, use_proofs, run.searches):
        cex, cert = _stage(run, stage)
        if cex is not None or cert is not None:
            yield cex, cert


def _fault_warning(run: _Run, fault: SerError) -> Diagnostic:
    """A run-time error beside a counterexample: the counterexample is the verdict."""
    at = fault.location
    return Diagnostic("W-RUNTIME-ERROR", f"an execution runs into {fault.code}: "
                      f"{fault.message}; the verdict is the counterexample, which does not",
                      run.path, at.line if at else 0, at.column if at else 0)


def _stage(run: _Run, stage: Stage) -> tuple[Counterexample | None, dict[str, Any] | None]:
    """Run one stage of the plan: a counterexample, or a certificate, or neither."""
    if stage == "reduction":
        return None, _reduction(run, REDUCTION_UNITS)
    if stage == "proof":
        return None, _proof(run)
    searches: dict[str, Callable[[_Run], Counterexample | None]] = {
        "wide-search": partial(_first_search, budget=WIDE_SEARCH_STATES),
        "search": _second_search, "bmc": _bmc}
    search = searches[stage]
    return search(run), None


def _load(path: str, timeout_s: float, progress: Callable[[str], None] | None,
          state_bound: int | None, ns_choice: str, data: bytes | None,
          defines: tuple[tuple[str, int], ...] = ()) -> _Run:
    """Read and parse the model, refuse what the checker could not read, and make the
    run's context. A Ser program's network system is built only when an engine reads it
    (the explicit search and the reduction engine read its per-variable steps)."""
    from prover.frontend.load import NsChoice, load_model
    from prover.run.limits import preflight

    start = time.monotonic()
    ns_kind: NsChoice = "closure" if ns_choice == "closure" else "reachable"
    model = (load_model(path, ns=ns_kind, data=data, lazy=True, defines=dict(defines))
             if state_bound is None else
             load_model(path, state_bound=state_bound, ns=ns_kind, data=data, lazy=True,
                        defines=dict(defines)))
    preflight(model.kind, model.source, path, model.constants)
    loaded = time.monotonic() - start
    ctx = RunContext(lambda: model.ns)
    run = _Run(path, model, ctx, start, start + max(0.0, timeout_s),
               start + ENGINE_SHARE * max(0.0, timeout_s),
               progress if progress is not None else (lambda msg: None), {})
    run.times["load_s"] = loaded
    run.state_bound = state_bound
    run.ns_choice = ns_choice
    return run


def _parts(run: _Run) -> tuple[Counterexample | None, dict[str, Any] | None]:
    """A Ser program whose request kinds fall into independent parts
    (prover/frontend/parts.py): each part decided as a program of its own, in turn, with
    an equal share of what is left, its engines' answers checked one by one. Every part
    serializable: the parts' certificates under one (docs/certificates.md, "Independent
    parts"); a part's counterexample is one of the whole program. Else neither, and the
    first undecided part says why."""
    from checker.errors import CheckerError
    from prover.frontend.parts import part_source, partition, settled_parts, with_holders

    steps = run.model.steps
    if steps is None or run.part:
        return None, None
    t0, before = time.monotonic(), run.times.get("parts_s", 0.0)  # after a split's own
    try:
        found = settled_parts(run.model.source, dict(run.model.constants) or None)
    except CheckerError:  # the checker's parse refuses what the prover's took
        found = tuple((kinds, ()) for kinds in partition(steps.program))
    run.times["parts_s"] = before + time.monotonic() - t0  # the look-up is a stage too
    groups = [kinds for kinds, _ in found]
    if len(groups) < 2:
        return None, None
    sources = [part_source(run.model.source, kinds) for kinds in groups]
    if None in sources:  # a family whose members the partition leaves with gaps
        return None, None
    taken = {r.name for r in steps.program.requests} | {n for g in groups for n in g}
    certs: list[dict[str, Any]] = []
    for k, (kinds, locks) in enumerate(found, 1):
        named = f"part {k} of {len(groups)} ({', '.join(kinds)})"
        sub = _other_program(run, named, with_holders(str(sources[k - 1]), locks, set(taken))
                             if locks else str(sources[k - 1]), 1 / (len(groups) - k + 1),
                             run.model.constants)  # fmt: skip
        sub.searches, sub.part = run.searches and not locks, True
        cex, cert = _part(sub, named)
        run.fault = run.fault or (None if locks else _fault(sub))  # (a holder's: not ours)
        if cert is None:
            run.times["parts_s"] = before + time.monotonic() - t0
            if cex is None or locks:  # a holder's run is no execution of the program
                run.reasons.append(f"{named}: " + ("not serializable with holders of "
                                   f"{', '.join(locks)}" if cex else "undecided: " + "; ".join(
                                       sub.reasons)))  # fmt: skip
                return None, None
            return cex, None
        certs.append(cert)
    run.times["parts_s"] = before + time.monotonic() - t0
    run.stats["parts"] = [{"requests": list(kinds), "engine": c["producer"].get("engine")} | (
        {"holders": list(locks)} if locks else {}) for (kinds, locks), c in zip(
            found, certs, strict=True)]  # fmt: skip
    return None, parts_certificate(run.model, certs)


def _locking(run: _Run) -> dict[str, Any] | None:
    """A Ser program whose requests take locks (`while (L == 1) { yield }; L := 1`) in two
    phases and touch each global written only under its lock (prover/frontend/locking.py;
    docs/certificates.md, "Two-phase locking"); asked only when some request loops over
    a global (a wait for a lock, a retry), so other programs pay neither the checker's
    parse nor its import (about 30 ms)."""
    from prover.frontend import ast

    steps = run.model.steps
    if run.model.kind != "ser" or steps is None or not any(
            isinstance(n, ast.While) and any(
                isinstance(m, (ast.Var, ast.Assign)) and not ast.is_local_name(m.name)
                for m in ast.nodes(n))
            for r in steps.program.requests for n in ast.nodes(r.body)):  # fmt: skip
        return None
    from prover.frontend.locking import find

    t0 = time.monotonic()
    found = find(run.model.source, dict(run.model.constants) or None)
    run.times["locking_s"] = time.monotonic() - t0
    if found is None:
        return None
    run.stats["locking"] = found.claim
    run.locks_in_order = found.deadlock_free
    return locking_certificate(run.model, found.claim)


def _cases(run: _Run) -> tuple[Counterexample | None, dict[str, Any] | None]:
    """A Ser program whose requests, split by the value of the input they begin by
    choosing, fall into more independent parts (prover/frontend/cases.py): the split
    program decided in parts with half of what is left; its proof is the program's
    (docs/certificates.md, "Cases by input"). A counterexample of a part is one of the
    program when, with every case named by its request, its answers are still not those
    of a serial run of the program (a serial run may reach them with other choices)."""
    if not _chooses(run, first=True):  # no input: not the checker's parse
        return None, None
    from checker.errors import CheckerError
    from prover.frontend.cases import find

    t0 = time.monotonic()
    try:
        found = find(run.model.source, dict(run.model.constants) or None)
    except CheckerError:  # the checker's parse refuses what the prover's took: no claim
        found = None
    if found is None:
        return None, None
    named = "split by input " + ", ".join(f"{r}'s {k}" for r, k in found.inputs)
    sub = _other_program(run, named, found.source, 1 / 2)
    cex, cert = _parts(sub)
    run.times["parts_s"] = time.monotonic() - t0
    run.fault = run.fault or _fault(sub)
    if cex is not None:
        whole = _unsplit(run, sub, dict(found.origin), cex)
        if whole is not None:
            return whole, None
    if cert is None:
        run.reasons.extend(f"{named}: {why}" for why in sub.reasons or
                           ["a part of the split program is not serializable"])
        return None, None
    inputs = [{"request": r, "input": k} for r, k in found.inputs]
    run.stats["parts"] = sub.stats["parts"]
    run.stats["cases"] = inputs
    return None, cases_certificate(run.model, inputs, cert)


def _chooses(run: _Run, first: bool) -> bool:
    """Whether some request of a Ser program chooses a local (`k := ?(0..3)`), as its
    first statement (`first`) or anywhere: read on the prover's own parse, so that other
    programs pay neither the checker's parse nor its import for the claims that split or
    narrow such inputs."""
    from prover.frontend import ast

    steps = run.model.steps
    return run.model.kind == "ser" and steps is not None and any(
        isinstance(n, ast.Assign) and isinstance(n.value, ast.Nondet)
        for r in steps.program.requests
        for n in ((r.body.first if isinstance(r.body, ast.Seq) else r.body,) if first
                  else ast.nodes(r.body)))


def _narrowed(run: _Run) -> Counterexample | None:
    """Before the first search of a program whose requests choose among many values of
    their inputs in their first step (at least WIDE_INPUTS combinations): the same search
    on the program whose requests choose among at most three values of each
    (prover/frontend/narrow.py), and random runs of it, with a quarter of what is left; a
    counterexample there is one of the program when its answers are not serial in it."""
    steps = run.model.steps
    if steps is None or not _chooses(run, first=False):  # no choice: no checker's parse
        return None
    from prover.frontend.narrow import narrowed

    source = narrowed(run.model.source, dict(run.model.constants) or None)
    if source is None:
        return None
    sub = _other_program(run, "inputs narrowed", source, 1 / 4)
    cex = _first_search(sub) or _random_runs(sub, later=False)
    for key in ("explicit_s", "random_s"):
        run.times[key] = run.times.get(key, 0.0) + sub.times.get(key, 0.0)
    if cex is None or cex.requests > NARROWED_REQUESTS or _serial_in(run, cex.completed):
        return None
    return _renamed(run, sub, {r: r for r, _ in steps.entries}, cex)


def _serial_in(run: _Run, completed: tuple[tuple[tuple[str, str], int], ...]) -> bool:
    """Whether requests run one at a time in the program answer `completed`: the search
    of serial runs of exactly those requests (the checker's, which the certificate meets
    anyway; the prover's serial automaton covers every multiset and costs far more on a
    program with wide inputs). True when the search cannot tell: no claim then."""
    from checker.errors import CheckerError
    from checker.semantics import ser_semantics
    from checker.serial_search import is_serial

    try:
        sem = ser_semantics(run.model.source, dict(run.model.constants) or None)
        return is_serial(sem, dict(completed))
    except CheckerError:
        return True


def _unsplit(run: _Run, sub: _Run, origin: dict[str, str], cex: Counterexample
             ) -> Counterexample | None:  # fmt: skip
    """A counterexample of the split program as one of the program: each case named by
    its request, and its first state by the request's, which chooses (the states after
    the choice are the same text in both); None when its answers are serial there."""
    whole = _renamed(run, sub, origin, cex)
    search = _search(run)
    return None if search is None or search.is_serial(whole.completed) else whole


def _renamed(run: _Run, sub: _Run, origin: dict[str, str], cex: Counterexample
             ) -> Counterexample:  # fmt: skip
    """A counterexample of another program (cases, or narrowed inputs) in the program's
    names: each request by its `origin`, and its first state by the request's, which
    chooses (the states after the choice are the same text in both)."""
    assert run.model.steps is not None and sub.model.steps is not None
    first = dict(run.model.steps.entries)
    sub_first = dict(sub.model.steps.entries)
    events = tuple(replace(e, request=origin[e.request], local=first[origin[e.request]]
                            if e.local == sub_first[e.request] else e.local)
                   for e in cex.events)
    counts: dict[tuple[str, str], int] = {}
    for (r, v), n in cex.completed:
        counts[(origin[r], v)] = counts.get((origin[r], v), 0) + n
    return replace(cex, events=events, completed=tuple(sorted(counts.items())))


def _versions(run: _Run) -> dict[str, Any] | None:
    """A Ser program whose versions never wrap (prover/frontend/versions.py): its abstract
    program decided with half of what is left; its proof is the program's
    (docs/certificates.md, "Versions that never wrap"). A counterexample of the abstract
    program is none of the program's: only the reason is kept."""
    from checker.errors import CheckerError
    from prover.frontend.versions import find

    if run.model.kind != "ser" or run.model.steps is None:
        return None
    t0 = time.monotonic()
    try:
        found, why = find(run.model.source, dict(run.model.constants) or None)
    except CheckerError as exc:  # the checker's parse refuses what the prover's took: no claim
        found, why = None, f"the checker's parse: {exc}"
    run.times["versions_s"] = time.monotonic() - t0  # the look-up is a stage too
    if found is None:
        if "only ever raised" not in why:  # a global that grows, not as a version does
            run.reasons.append(f"versions that never wrap: {why}")
        return None
    named = "without versions " + ", ".join(v for v, _ in found.versions)
    sub = _other_program(run, named, found.source, 1 / 2)
    cex, cert = _part(sub, named)
    run.times["versions_s"] = time.monotonic() - t0
    if cert is None:
        run.reasons.append(f"{named}: " + ("the abstract program is not serializable"
                                           if cex is not None else "; ".join(sub.reasons)))
        return None
    run.stats["versions"] = [{"version": v, "guards": list(xs)} for v, xs in found.versions]
    return versions_certificate(run.model, run.stats["versions"], cert)


def _other_program(run: _Run, named: str, source: str, share: float,
                   constants: tuple[tuple[str, int], ...] = ()) -> _Run:
    """A run of another program (a part, or the program without its versions): `share` of
    what is left of this run's engines' time, under the same hard deadline."""
    sub = _load(run.path, max(0.0, run.hard - time.monotonic()), _prefixed(run.say, named),
                run.state_bound, run.ns_choice, source.encode("utf-8"), constants)
    sub.hard, sub.locking = run.hard, run.locking
    sub.deadline = time.monotonic() + max(0.0, share * (run.deadline - time.monotonic()))
    return sub


def _part(sub: _Run, named: str) -> tuple[Counterexample | None, dict[str, Any] | None]:
    """One part's first counterexample, or its first proof: checked with the whole (each
    part again there; a refusal is a bug, said in the reasons, and the next engine of the
    whole goes on), but a pruned reduction proof, checked here so that its unpruned one
    can stand in (`_certify`)."""
    import json

    for cex, cert in _candidates(sub, True):
        if cex is not None:
            return cex, None  # an execution of the whole too, certified and checked as one
        assert cert is not None
        if sub.fallback is None or "reduction" not in cert:
            return None, cert
        engine = str(cert["producer"].get("engine", "proof"))
        decided = _certify(sub, sub.path, cert, engine, None, sub.hard - time.monotonic())
        if decided.result.status == "serializable" and decided.text is not None:
            return None, json.loads(decided.text)
        got = decided.result
        sub.reasons.append(got.reason if got.status != "error" else
                           f"{engine}'s certificate of the part was not accepted by the checker "
                           f"({got.check_status}: {got.check_message}): a bug, please report it")
    return None, None


def _network_system(run: _Run) -> NetworkSystem | None:
    """The model's network system for the engines that read it, built on first use; None
    (with the reason recorded) when it cannot be built or the checker could not explore
    it. Its sizes are reported."""
    from prover.petri.build import interleaving_net_sizes
    from prover.run.limits import preflight_ns

    if "ns_error" in run.stats:
        return None
    try:
        ns = run.ctx.ns
        restriction = ns.restriction
        preflight_ns(run.model.kind, run.model.source, run.path,
                     None if restriction is None else frozenset(restriction.pairs),
                     run.state_bound, run.model.constants)
    except SerError as exc:
        run.stats["ns_error"] = exc.message
        run.reasons.append(f"network system: {exc.message}")
        return None
    run.sizes.update(network_system=ns.sizes(), petri_net=interleaving_net_sizes(ns))
    return ns


def _assertions(run: _Run, dest: str, check_timeout_s: float) -> Decided | None:
    """First, for a program with `assert`: the assertion search (bounded in states). A
    failing assertion is the verdict, certified by its trace and checked like any other;
    without one, the engines run as usual."""
    from prover.engines.assertions import find_assertion_failure, has_assertion

    steps = run.model.steps
    if steps is None or not has_assertion(steps.program):
        return None
    from prover.certificate.assertion import assertion_certificate, assertion_report

    t0 = time.monotonic()
    run.say("searching for a failing assertion")
    try:
        search = find_assertion_failure(steps, deadline=run.deadline)
    finally:
        run.times["assertions_s"] = time.monotonic() - t0
    run.stats["assertion_states"] = search.states
    if search.failure is None:
        return None
    run.assertion = assertion_report(run.model, search.failure, _columns())
    run.warnings = _diagnostics(run)
    run.times["engines_s"] = time.monotonic() - run.start
    return _certify(run, dest, assertion_certificate(run.model, search.failure),
                    "assertion-search", None, check_timeout_s)


def _deadlocks(run: _Run, cert: dict[str, Any]) -> None:
    """After the verdict, the deadlock search on a Ser program's steps (bounded in
    states): a deadlock found goes into the certificate, which the checker then checks
    with the rest, and becomes the warning W-DEADLOCK; the verdict does not depend on it."""
    from prover.certificate.deadlock import deadlock_report, deadlock_section, deadlock_warning
    from prover.engines.deadlock import (
        DEADLOCK_INFLIGHT,
        DEADLOCK_STATES,
        DeadlockSearch,
        find_deadlock,
    )

    steps = run.model.steps
    if steps is None:
        return
    if "locking" in cert and run.locks_in_order:  # prover/frontend/locking.py: none at all
        run.deadlock = deadlock_report(steps, DeadlockSearch(None, 0, True, DEADLOCK_INFLIGHT))
        return
    try:
        # A short search first: a small program's is complete, a deadlock of few steps
        # is found, in the same order as the whole search would (the same report). Cut,
        # the proof's invariant may show that no configuration deadlocks; else the whole
        # search runs.
        proved = run.proof_view is not None and cert.get("reduction") is run.proof_view[2]
        search = find_deadlock(steps, max_states=FIRST_DEADLOCK_STATES if proved
                               else DEADLOCK_STATES, deadline=run.deadline)  # else once
        if proved and search.deadlock is None and not search.complete:
            if _deadlock_free(run, cert):  # for any number of requests
                run.deadlock = deadlock_report(steps, DeadlockSearch(
                    None, search.states, True, search.max_inflight))
                return
            search = find_deadlock(steps, deadline=run.deadline)
    except SerError as exc:  # a step the engines never took fails: no report, say why
        run.reasons.append(f"deadlock search: {exc.message}")
        return
    run.deadlock = deadlock_report(steps, search, _columns())
    if search.deadlock is not None:
        cert["deadlock"] = deadlock_section(search.deadlock)
        warning = deadlock_warning(search.deadlock, search, run.path)
        run.warnings = tuple(sorted((*run.warnings, warning),
                                    key=lambda d: (d.line, d.column, d.code)))


def _deadlock_free(run: _Run, cert: dict[str, Any]) -> bool:
    """Whether `cert` is the reduction proof of the program itself, whose invariant
    excludes every configuration in which the requests in flight only wait: then no
    execution deadlocks, and the bounded search would find nothing (bank16's ran its
    20,000 states, a tenth of the run, to say it was cut)."""
    from prover.reduction.stuck import deadlock_free

    view = run.proof_view
    if view is None or cert.get("reduction") is not view[2]:
        return False
    run.say("deadlocks: asking the invariant")
    return deadlock_free(view[0], view[1], run.deadline)


def _deadlock_when_undecided(run: _Run) -> None:
    """No verdict: the deadlock search still runs (a SPIN user's cheap first check), in
    what is left before the hard deadline, and a deadlock it finds is said among the
    reasons, with its trace. It is not checked: no certificate is made without a verdict."""
    from prover.certificate.deadlock import deadlock_report
    from prover.engines.deadlock import find_deadlock

    steps, t0 = run.model.steps, time.monotonic()
    if steps is None or run.hard <= t0:
        return
    try:  # first a few states, whatever the load left of the budget (a short deadlock is
        # found however late the engines stopped), then the rest of the time, with a margin:
        # one step of a wide program can take most of a second
        search = find_deadlock(steps, max_states=FIRST_DEADLOCK_STATES, deadline=run.hard)
        if search.deadlock is None and not search.complete and run.hard - t0 >= 0.5:
            search = find_deadlock(steps, deadline=run.hard - min(1.0, (run.hard - t0) / 3))
    except SerError:
        return
    run.times["deadlock_s"] = time.monotonic() - t0
    if search.deadlock is not None:
        run.deadlock = deadlock_report(steps, search, _columns())
        run.reasons.append(f"deadlock: {len(search.deadlock.blocked)} requests can get stuck "
                           "for ever (found by the deadlock search, unchecked: no certificate "
                           "without a verdict; the trace is below)")


def _diagnostics(run: _Run) -> tuple[Diagnostic, ...]:
    """The model's warnings: those of its text, and what its executions cannot reach,
    read off an over-approximation of them (prover/frontend/coverage.py): the network system if
    an engine built it (the closer one), else the per-variable steps when their domains
    are closed or a reduction proof showed the escapes dead; else nothing about reach."""
    from prover.frontend import coverage
    from prover.reduction.table import Limits, TableTooLarge, grow_domains

    steps = run.model.steps
    if steps is None:
        return run.model.warnings
    table = run.table
    if run.ctx.ns_built and "ns_error" not in run.stats:  # the closer of the two
        reach = coverage.from_ns(run.ctx.ns, steps)
    else:
        if table is None:
            if run.table_tried or not run.left():  # growing it again fails again, or is late
                return run.model.warnings
            try:  # a bounded table: the warnings are informational, never worth a verdict
                table = grow_domains(steps, Limits(max_valuations=DIAGNOSTIC_VALUATIONS,
                                                   max_total=DIAGNOSTIC_VALUATIONS))
            except (TableTooLarge, SerError):
                return run.model.warnings
        if table.escapes and not run.proved:
            return run.model.warnings
        reach = coverage.from_table(table, steps)
    found = coverage.warnings(steps.program, steps, reach, run.path)
    return tuple(sorted(run.model.warnings + found, key=lambda d: (d.line, d.column, d.code)))


def _search_view(run: _Run) -> NetworkSystem | ProgramSteps | None:
    """What the explicit search steps: a Ser program's per-variable steps (on demand),
    else the network system."""
    return run.model.steps if run.model.steps is not None else _network_system(run)


def _search(run: _Run) -> Tables | None:
    """The explicit search's tables of the model, made on first use (None: no view)."""
    if run.search is None:
        view = _search_view(run)
        if view is None:
            return None
        run.search = tables(view)
    return run.search


def _first_search(run: _Run, budget: int = FIRST_EXPLICIT_STATES) -> Counterexample | None:
    """Explicit search, shortest first, with a budget of states (not seconds)."""
    search = _search(run)
    if search is None:
        return None
    t0 = time.monotonic()
    try:
        res = find_counterexample(
            search, deadline=run.deadline,
            progress=lambda said: run.say(f"counterexample search (budget {budget:,} states): "
                                          f"{said}"),
            max_states=budget, minimise_deadline=run.deadline,
        )
    except SoloTooLarge as exc:
        run.reasons.append(f"explicit: {exc}")
        return None
    run.times["explicit_s"] = run.times.get("explicit_s", 0.0) + time.monotonic() - t0
    _record(run.stats, res)
    run.first_states, run.first_complete = res.states, res.complete
    if res.counterexample is None:
        limit = "" if res.complete else f" ({res.stop_reason} limit)"
        run.reasons[:] = [r for r in run.reasons if not r.startswith("explicit:")]
        run.reasons.insert(0, f"explicit: no counterexample with ≤ {res.exhausted_requests} "
                           f"requests{limit}")  # fmt: skip
    return res.counterexample


def _random_runs(run: _Run, later: bool) -> Counterexample | None:
    """Random runs of a Ser program beyond what the first search exhausted, when it was
    cut (prover/engines/random_runs.py): the first ones, or (`later`) the rest."""
    steps, exhausted = run.model.steps, int(run.stats.get("exhausted_requests", 0))
    if steps is None or run.first_complete or not run.first_states or not run.left():
        return None
    from prover.engines.random_runs import FIRST_RUNS, MAX_REQUESTS, RUNS, search_randomly

    t0 = time.monotonic()
    seeds = range(FIRST_RUNS, RUNS) if later else range(FIRST_RUNS)
    found = search_randomly(steps, exhausted + 1, run.deadline, seeds)
    run.times["random_s"] = run.times.get("random_s", 0.0) + time.monotonic() - t0
    runs = run.stats["random_runs"] = run.stats.get("random_runs", 0) + found.runs
    run.reasons[:] = [r for r in run.reasons if not r.startswith("random runs:")]
    if found.counterexample is None and runs:
        run.reasons.append(f"random runs: none of {runs:,} runs of {exhausted + 1} to "
                           f"{MAX_REQUESTS} requests is a counterexample")
    return found.counterexample


def _wide(run: _Run) -> bool:
    """A Ser program whose first search met more than `WIDE_GLOBALS` global states: its
    network system is expensive to build (the reachable global states of unlocked-10 take
    15 s to pass the state bound), while a counterexample may be a few layers deeper in
    the search, which costs a fraction of it (a function of the model, not of the
    machine)."""
    return (run.model.steps is not None and run.search is not None
            and len(run.search.globals) > WIDE_GLOBALS)


def _reduction(run: _Run, units: int) -> dict[str, Any] | None:
    """A reduction proof on the per-variable steps of a Ser program (no network system),
    within `units` z3 resource units; `run.reduction` says how it ended."""
    steps = run.model.steps
    if steps is None or not run.left():
        return None
    from prover.reduction.bounds import guess_bounds
    from prover.reduction.engine import spent

    t0 = time.monotonic()
    run.say(f"reduction proof (per-variable steps, budget {units:,} z3 resource units)")
    bounds = () if run.table is not None else guess_bounds(
        steps.program, run.search.genv if isinstance(run.search, ProgramTables) else ())
    # A request that chooses before its first read of a global is proved split first: its
    # unsplit first step reads every cell it may choose (cas16's `get`: 2^16 valuations).
    attempt, plain = _split(run, steps, units, bounds), False
    if attempt is None:
        attempt = _attempt(run, steps, units, run.table, bounds)
        run.table = attempt.table
        plain = True
    run.times["reduction_s"] = run.times.get("reduction_s", 0.0) + time.monotonic() - t0
    run.proved = attempt.evidence is not None
    run.table_tried = True
    run.reduction = spent(attempt) or "failed"
    run.reasons[:] = [r for r in run.reasons if not r.startswith("reduction:")]
    if "local_states" in attempt.stats:
        run.sizes["per_variable"] = {k: attempt.stats[k]
                                     for k in ("local_states", "transitions", "escapes")}
    run.stats["solver_queries"] = attempt.stats.get("solver_queries")
    if attempt.evidence is None:
        run.reasons.append(attempt.reason)
        return None
    run.stats["reduction"] = attempt.stats
    run.stats["reduction_explanation"] = attempt.explanation
    run.fallback = attempt.fallback
    cert = make_certificate(run.model, "serializable", "reduction", attempt.evidence,
                            producer("reduction", solver="z3", solver_version=_z3_version()))
    if plain and attempt.table is not None:
        run.proof_view = (attempt.table, attempt.invariant, cert["reduction"])
    return cert


def _attempt(run: _Run, steps: ProgramSteps, units: int, table: Table | None,
             bounds: tuple[Bound, ...], limits: Limits | None = None) -> Attempt:  # fmt: skip
    """One reduction proof, again without the guessed bound if that one fails."""
    from prover.reduction.engine import prove_by_reduction, spent

    attempt = prove_by_reduction(steps, deadline=run.deadline, units=units, table=table,
                                 bounds=bounds, limits=limits)
    if bounds and attempt.evidence is None and not spent(attempt) and run.left():
        run.say("reduction proof again, without the bound on the globals it guessed")
        attempt = prove_by_reduction(steps, deadline=run.deadline, units=units, limits=limits)
    return attempt


SPLIT_PROBE = 50_000
"""(local state, valuation) pairs the first, probing reduction of a split program steps."""


def _split(run: _Run, steps: ProgramSteps, units: int, bounds: tuple[Bound, ...]
           ) -> Attempt | None:  # fmt: skip
    """The reduction proof of the program whose requests make their choices in a step of
    their own (docs/certificates.md, "Split requests"), once per run: the proof, with the
    requests it split named in its evidence, or None."""
    from prover.frontend.split import split_program, splittable
    from prover.reduction.engine import spent
    from prover.reduction.table import Limits

    names = tuple(sorted(r.name for r in steps.program.requests if splittable(r.body)))
    if not names or run.split_tried or not run.left():
        return None
    run.say("reduction proof with each request's first choices made in a step of their own")
    # The probe steps few valuations (a count: the same on any machine), so that a split
    # program too large to step quickly leaves the searches their turn (occ8rec-bug's
    # counterexample); the later reduction stage steps it in full.
    probe = units <= PROBE_UNITS
    attempt = _attempt(run, steps.with_program(split_program(steps.program, frozenset(names))),
                       units, None, bounds, Limits(max_valuations=SPLIT_PROBE) if probe else None)
    run.split_tried = not spent(attempt) and not (probe and attempt.table is None)
    if attempt.evidence is None:
        return None
    full = attempt.fallback
    return replace(attempt, evidence={**attempt.evidence, "split": list(names)},
                   fallback=None if full is None else (lambda: {**full(), "split": list(names)}))


def _proof(run: _Run) -> dict[str, Any] | None:
    """The proof portfolio; the certificate, or None. Its engines end by counts (z3
    resource units, refinements, frames), so it gets the engines' deadline and no share
    of the clock: a share cut short on a loaded machine what an idle one proves, and left
    the searches after it a different start."""
    if not run.left() or _network_system(run) is None:
        return None
    t0 = time.monotonic()
    run.say("proof engines on the network system")
    outcome, why = _find_proof(run.model, run.deadline - t0, run.ctx)
    run.times["proof_s"] = time.monotonic() - t0
    if outcome is None:
        run.reasons.extend(why)
        return None
    engine = str(getattr(outcome, "engine", "proof"))
    return make_certificate(run.model, "serializable", "proof", outcome.proof,
                            producer(engine, solver="z3", solver_version=_z3_version()))


def _second_search(run: _Run) -> Counterexample | None:
    """The explicit search again, with a larger state budget: its rounds, up to their bound
    in states, or the deadline. Never a share of the clock: on a loaded machine a share
    would cut it short where an idle one finds a counterexample, and hand the rest to BMC,
    which may find another."""
    if run.search is None or not run.left(0.05):
        return None
    t0 = time.monotonic()
    try:
        res = find_counterexample(
            run.search, deadline=run.deadline,
            progress=lambda said: run.say(f"counterexample search (the rest of the time): "
                                          f"{said}"),
            initial_states=max(20_000, 4 * run.first_states), minimise_deadline=run.deadline,
        )
    except SoloTooLarge as exc:
        run.reasons.append(f"explicit: {exc}")
        return None
    run.times["explicit2_s"] = time.monotonic() - t0
    _record(run.stats, res)
    if res.counterexample is None:
        run.reasons[0:1] = [f"explicit: no counterexample with ≤ {res.exhausted_requests} "
                            "requests"]
    return res.counterexample


def _bmc(run: _Run) -> Counterexample | None:
    """Symbolic BMC with whatever remains, for deep violations."""
    if not run.left(0.05) or _network_system(run) is None:
        return None
    from prover.engines.bmc import find_counterexample_bmc

    t0 = time.monotonic()
    run.say("bounded model checking (SMT)")
    bmc = find_counterexample_bmc(
        run.ctx.ns, run=run.ctx, deadline=run.deadline,
        lower_bound=int(run.stats.get("exhausted_requests", 0)) + 1,
    )
    run.times["bmc_s"] = time.monotonic() - t0
    if bmc.counterexample is None:
        run.reasons.append(f"bmc: {bmc.reason}")
    return bmc.counterexample


def _certify(run: _Run, dest: str, cert: dict[str, Any], engine: str,
             cex: Counterexample | None, check_timeout_s: float) -> Decided:
    """Check the certificate with the trusted checker; a verdict only if it is valid."""
    from prover.run.limits import certificate_over_limits

    text = dump_certificate(cert)
    over = certificate_over_limits(text, len(cex.events) if cex is not None else None)
    if over is not None:
        return run.undecided(f"{engine} found a {cert['verdict']} certificate, but {over}")
    t0 = time.monotonic()
    run.say("checking the certificate")
    left = run.hard - time.monotonic()
    if left <= 0:
        return run.undecided("no time left to check the certificate within the budget")
    status, message = check_text(text, run.model.source, min(check_timeout_s, left),
                                 run.state_bound)
    run.times["check_s"] = time.monotonic() - t0
    if status == "undecided" or (status != "valid" and time.monotonic() >= run.hard):
        # The checker could not finish (its budget is the rest of ours): no verdict, and
        # no sign of a bug either.
        return run.undecided(f"the checker did not decide the certificate in time ({message})")
    if status == "limit":
        return run.undecided(f"{engine}'s certificate exceeds a limit of the checker ({message})")
    if status != "valid" and run.fallback is not None and "reduction" in cert:
        # The pruned invariant left out something the checker needed (prune.py): the
        # same proof with Houdini's whole invariant, once. Still no verdict unless valid.
        run.stats["pruned_rejected"] = f"{status}: {message}"
        full, run.fallback = {**cert, "reduction": run.fallback()}, None
        return _certify(run, dest, full, engine, cex, check_timeout_s)
    if status != "valid":
        saved = rejected_path(dest)
        why = (f"internal error (a bug, please report it): the {cert['verdict']} certificate "
               f"from engine {engine} was not accepted by the checker ({status}: {message}); "
               f"certificate kept at {saved}")
        return Decided(run.result("error", why, engine=engine, cex=cex, check=status,
                                   message=message), text, saved)
    t0 = time.monotonic()
    expl = _explanation(run, cex) if cex is not None else run.assertion if cert[
        "verdict"] == "assertion_violated" else _proof_explanation(run, cert, engine)
    run.times["explain_s"] = time.monotonic() - t0
    verdict: Status = cert["verdict"] if cert["verdict"] in (
        "serializable", "assertion_violated") else "not_serializable"
    return Decided(run.result(verdict, cert_path=dest, engine=engine, cex=cex, check=status,
                               message=message, explanation=expl), text, dest)


def _explanation(run: _Run, cex: Counterexample) -> tuple[str, dict[str, Any]]:
    from prover.certificate.explain import explain, explanation_json, render_text

    view = run.model.steps if run.model.steps is not None and not run.ctx.ns_built \
        else run.ctx.ns
    # On the per-variable steps, the serial automaton the search built for the
    # counterexample's interaction group is the one the explanation explores.
    search = run.search if isinstance(view, ProgramSteps) else None
    oracle = search.oracle(cex.completed) if isinstance(search, ProgramTables) else None
    expl = explain(view, cex, membership=oracle)
    return render_text(expl, columns=_columns()), explanation_json(expl)


def _columns() -> int | None:
    """The width of the terminal the verdict is printed on, or None when it goes to a
    file or a pipe (then the table is not cut to fit)."""
    import shutil
    import sys

    if not sys.stdout.isatty():
        return None
    return shutil.get_terminal_size((0, 0)).columns or None


def _proof_explanation(run: _Run, cert: dict[str, Any], engine: str
                       ) -> tuple[str, dict[str, Any]] | None:  # fmt: skip
    """Why a proof holds, in the program's terms: a reduction's movers and invariant, or
    the lock and the invariant of a proof on the net (None for other proofs)."""
    if "parts" in cert or "cases" in cert:
        return _parts_explanation(run.stats.get("parts", []), run.stats.get("cases", []))
    if "locking" in cert:
        return _locking_explanation(cert["locking"])
    data = run.stats.pop("reduction_explanation", None)
    if data is None:
        return _invariant_explanation(run, cert.get("proof", {}), engine)
    from prover.certificate.reduction_text import render_reduction

    return render_reduction(data), data


def _prefixed(say: Callable[[str], None], named: str) -> Callable[[str], None]:
    return lambda msg: say(f"{named}: {msg}")


def _parts_explanation(parts: list[dict[str, Any]], cases: list[dict[str, str]]
                       ) -> tuple[str, dict[str, Any]]:  # fmt: skip
    from prover.certificate.reduction_text import render_parts

    return render_parts(parts, cases), {"parts": parts, **({"cases": cases} if cases else {})}


def _locking_explanation(claim: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    from prover.certificate.reduction_text import render_locking

    return render_locking(claim), {"locking": claim}


def _invariant_explanation(run: _Run, proof: dict[str, Any], engine: str
                           ) -> tuple[str, dict[str, Any]] | None:  # fmt: skip
    from prover.certificate.invariant_text import explain_invariant, render_invariant

    data = explain_invariant(proof, engine, _local_lines(run), _owners(run))
    return None if data is None else (render_invariant(data), data)


def _local_lines(run: _Run) -> Callable[[str], tuple[int, ...]]:
    """A local state's text -> the source lines of the steps it takes (none for an NS
    given in JSON, or one not built)."""
    at: dict[str, set[int]] = {}
    ns = run.ctx.ns if run.ctx.ns_built else None
    if ns is not None and ns.origins is not None:
        for t, o in zip(ns.transitions, ns.origins, strict=False):
            at.setdefault(t.from_local, set()).update(o.lines)
    return lambda local: tuple(sorted(at.get(local, ())))


def _owners(run: _Run) -> Callable[[str], frozenset[str]] | None:
    """A local state's text -> the requests whose runs reach it in the network system (the
    net has a place for every request at every local state; the others are never marked),
    or None without a built NS."""
    ns = run.ctx.ns if run.ctx.ns_built else None
    if ns is None:
        return None
    owners = reaching_requests(ns)
    return lambda local: owners.get(local, frozenset())


def _record(stats: dict[str, Any], res: SearchResult) -> None:
    stats["explicit_states"] = stats.get("explicit_states", 0) + res.states
    stats["exhausted_requests"] = max(
        int(stats.get("exhausted_requests", 0)), res.exhausted_requests
    )


def _find_proof(model: Any, budget_s: float, ctx: RunContext) -> tuple[Any, tuple[str, ...]]:
    """Call the proof portfolio if it exists: (outcome with `.proof`/`.engine`, reasons,
    one per engine attempt, the first prefixed with "proof: ")."""
    try:
        from prover.engines import portfolio
    except ImportError:
        return None, ()
    try:
        result = portfolio.attempt_proof(model, budget_s=budget_s, run=ctx)
        if result.outcome is not None:
            return result.outcome, ()
        first, *rest = result.reasons
        return None, (f"proof: {first}", *rest)
    except NotImplementedError as exc:
        return None, (f"proof: not available ({exc})",)
    except Exception as exc:  # an engine failure is "unknown", never a verdict
        return None, (f"proof: engine failed ({type(exc).__name__}: {exc})",)


def _z3_version() -> str:
    """z3's version for the certificate's producer, without loading z3 when no engine did
    (a proof that asked no query): the version its distribution was installed as."""
    import sys

    if "z3" not in sys.modules and (installed := _installed_z3_version()) is not None:
        return installed
    try:
        import z3

        return str(z3.get_version_string())
    except ImportError:  # pragma: no cover
        return ""


def _installed_z3_version() -> str | None:
    """z3's version string read off the z3-solver wheel beside the z3 package, whose version
    is z3's MAJOR.MINOR.BUILD and a fourth number (tests/proof/test_startup.py compares
    the two); None where there is not exactly one."""
    import importlib.util
    import re
    from pathlib import Path

    spec = importlib.util.find_spec("z3")
    if spec is None or spec.origin is None:
        return None
    found = [m for d in Path(spec.origin).parent.parent.glob("z3_solver-*.dist-info")
             if (m := re.fullmatch(r"z3_solver-(\d+\.\d+\.\d+)\.\d+\.dist-info", d.name))]
    return found[0].group(1) if len(found) == 1 else None


