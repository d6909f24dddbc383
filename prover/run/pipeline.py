"""The prover pipeline: load → build → engines → certificate → check, under one budget.

`prove_model` never reports a verdict that the trusted checker has not accepted: the
certificate text is checked in memory with `checker.api.check_certificate` first, and
written to its destination only when the checker says "valid". A certificate the checker
does not accept (or a checker that cannot be imported) is an internal error: the result
is `status="error"` with exit code 4, and the rejected certificate is saved next to the
requested destination as `*.rejected.json` for the bug report.

**One hard deadline.** `timeout_s` bounds everything one model costs: reading,
compiling, the serial set, the target, the engines, the self-check and the checker. The
whole run happens in a forked child process (prover/run/deadline.py) that the parent kills
at the deadline (+ `deadline.GRACE_S`), with an address-space limit
(`deadline.MEMORY_LIMIT_BYTES`); a killed run is "undecided" (exit 3), a run that runs
out of memory too. The child never writes a file: it hands the certificate text back and
the parent writes it atomically (temporary file in the same folder + rename), so an
interrupted or killed run leaves no partial file.

**One set of limits** (prover/run/limits.py): model files are regular files of at most 4 MiB;
a model the checker's own front end refuses is refused here (exit 2), before any engine.

Inside the child, prover/run/decide.py decides the model (the engine schedule is there).
"""
from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING

from prover.errors import CertificateError, SerError
from prover.run.deadline import MEMORY_LIMIT_BYTES, ChildOutcome, run_isolated_many
from prover.run.output import check_destination, write_atomically
from prover.run.warm import warm

if TYPE_CHECKING:  # the front end is imported inside the child, when it runs
    pass

from prover.run.decide import check_text, decide
from prover.run.result import (
    EXIT_INTERNAL,
    EXIT_NOT_SERIALIZABLE,
    EXIT_OF,
    EXIT_SERIALIZABLE,
    EXIT_UNDECIDED,
    EXIT_USAGE,
    Decided,
    ProveResult,
    Status,
    default_certificate_path,
    describe_times,
)

__all__ = ["EXIT_INTERNAL", "EXIT_NOT_SERIALIZABLE", "EXIT_OF", "EXIT_SERIALIZABLE",
           "EXIT_UNDECIDED", "EXIT_USAGE", "ProveResult", "Status", "check_text",
           "default_certificate_path", "describe_times", "model_exists", "prove_model",
           "prove_models"]

def prove_model(
    path: str,
    *,
    cert_path: str | None = None,
    timeout_s: float = 60.0,
    check_timeout_s: float = 30.0,
    progress: Callable[[str], None] | None = None,
    use_proofs: bool = True,
    state_bound: int | None = None,
    ns_choice: str = "reachable",
    defines: tuple[tuple[str, int], ...] = (),
    locking: bool = True,
) -> ProveResult:
    """Decide one model file under a hard deadline (`ns_choice`: "reachable" or "closure",
    see `prover.frontend.load`). Input errors raise `prover.errors.SerError`."""
    out = prove_models(
        [(path, cert_path)], timeout_s=timeout_s, check_timeout_s=check_timeout_s,
        progress=progress, use_proofs=use_proofs, state_bound=state_bound, ns_choice=ns_choice,
        defines=defines, locking=locking,
    )[0]
    if isinstance(out, SerError):
        raise out
    return out


def prove_models(
    jobs: Sequence[tuple[str, str | None]],
    *,
    timeout_s: float = 60.0,
    check_timeout_s: float = 30.0,
    parallel: int = 1,
    progress: Callable[[str], None] | None = None,
    use_proofs: bool = True,
    memory_bytes: int | None = MEMORY_LIMIT_BYTES,
    spent_s: float = 0.0,
    state_bound: int | None = None,
    on_result: Callable[[int, ProveResult | SerError], None] | None = None,
    ns_choice: str = "reachable",
    scheduler: str | None = None,
    defines: tuple[tuple[str, int], ...] = (),
    locking: bool = True,
) -> list[ProveResult | SerError]:
    """Decide each (model, certificate path or None) in its own child process, at most
    `parallel` at a time, each under its own deadline of `timeout_s`; the parent writes
    the certificates. Returns a result or the input error for each, in order.

    `spent_s`: time the caller already spent (the process's start-up), taken off the
    deadlines of the first `parallel` models. `on_result(i, result)` is called in the
    parent as each model settles (certificate written), for streaming output.

    `scheduler`: the address of a Dask scheduler; each model is then one task on the
    cluster (prover/run/cluster.py), which gets the model's bytes (read here) instead of its
    path, and runs the same isolated child on a worker."""
    dests = [cert or default_certificate_path(path) for path, cert in jobs]
    models = [path for path, _ in jobs]
    early: dict[int, SerError] = {}
    for i, dest in enumerate(dests):
        try:
            check_destination(dest, models)
        except SerError as refused:
            early[i] = refused
    data = {} if scheduler is None else _read_for_cluster(models, early)
    todo = [i for i in range(len(jobs)) if i not in early]

    first_wave = max(1, parallel) if scheduler is None else 0
    warm_start = time.monotonic()
    if scheduler is None:
        warm(batch=len(todo) > 1)
    spent_s += time.monotonic() - warm_start  # the first children's deadlines pay for it

    def task(k: int, i: int) -> Callable[[], Decided]:
        own = max(0.0, timeout_s - spent_s) if k < first_wave else timeout_s
        said = progress if scheduler is None else None  # a worker cannot print here
        return partial(decide, jobs[i][0], dests[i], timeout_s=own,
                       check_timeout_s=check_timeout_s, progress=said, use_proofs=use_proofs,
                       state_bound=state_bound, ns_choice=ns_choice, data=data.get(i),
                       defines=defines, locking=locking)

    results: list[ProveResult | SerError | None] = [None] * len(jobs)
    for i, problem in sorted(early.items()):
        results[i] = problem
        if on_result is not None:
            on_result(i, problem)

    def settled(k: int, outcome: ChildOutcome) -> None:
        i = todo[k]
        results[i] = result = _settle(jobs[i][0], outcome, timeout_s)
        if on_result is not None:
            on_result(i, result)

    tasks = [task(k, i) for k, i in enumerate(todo)]
    if scheduler is not None:
        from prover.run.cluster import run_on_cluster

        run_on_cluster(tasks, address=scheduler, timeout_s=timeout_s, memory_bytes=memory_bytes,
                       passthrough=(SerError,), on_done=settled)
    else:
        run_isolated_many(tasks, timeout_s=timeout_s, jobs=parallel, memory_bytes=memory_bytes,
                          passthrough=(SerError,), spent_s=spent_s, on_done=settled)
    return [r for r in results if r is not None]


def _read_for_cluster(models: list[str], early: dict[int, SerError]) -> dict[int, bytes]:
    """The bytes of each model a cluster's worker will decide (it may not see our disk);
    an unreadable one joins `early`. Unknown extensions are left to the child's message."""
    from prover.frontend.files import read_model_bytes
    from prover.frontend.load import MODEL_SUFFIXES

    data: dict[int, bytes] = {}
    for i, path in enumerate(models):
        if i in early or os.path.splitext(path)[1].lower() not in MODEL_SUFFIXES:
            continue
        try:
            data[i] = read_model_bytes(path)
        except SerError as unreadable:
            early[i] = unreadable
    return data


def _settle(path: str, outcome: ChildOutcome, timeout_s: float) -> ProveResult | SerError:
    """Turn a child's outcome into a result; write what it asked to be written."""
    if outcome.kind == "raised":
        err: SerError = outcome.value
        return err
    if outcome.kind == "ok":
        decided: Decided = outcome.value
        result = decided.result
        if decided.text is not None and decided.dest is not None:
            try:
                write_atomically(decided.text, decided.dest)
            except CertificateError as exc:
                if result.status == "error":  # the bug report could not be saved
                    return replace(result, reason=result.reason + f" ({exc.message})")
                return exc
        return result
    times = {"total_s": outcome.seconds}
    if outcome.kind == "timeout":
        why = f"time limit of {timeout_s:g} s reached"
        return ProveResult(path, "undecided", why, None, None, None, None, "", times)
    if outcome.kind == "memory":
        mib = MEMORY_LIMIT_BYTES // (1024 * 1024)
        why = f"memory limit of {mib} MiB reached (no verdict within the resources)"
        return ProveResult(path, "undecided", why, None, None, None, None, "", times)
    if outcome.kind == "lost":  # not a bug of ours: the machine that ran it went away
        why = f"no verdict: {outcome.detail or 'the cluster lost it'}"
        return ProveResult(path, "error", why, None, None, None, None, "", times)
    if outcome.kind == "died" and "CPU-time" in outcome.detail:
        why = f"time limit of {timeout_s:g} s reached"
        return ProveResult(path, "undecided", why, None, None, None, None, "", times)
    last = outcome.detail.strip().splitlines()[-1] if outcome.detail.strip() else outcome.kind
    msg = f"internal error (a bug, please report it): {last}"
    return ProveResult(path, "error", msg, None, None, None, None, "", times,
                       {"traceback": outcome.detail})



def model_exists(path: str) -> bool:
    return os.path.exists(path)

