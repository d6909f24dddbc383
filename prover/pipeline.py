"""The prover pipeline: load → build → engines → certificate → check, under one budget.

`prove_model` never reports a verdict that the trusted checker has not accepted: the
certificate text is checked in memory with `checker.api.check_certificate` first, and
written to its destination only when the checker says "valid". A certificate the checker
does not accept (or a checker that cannot be imported) is an internal error: the result
is `status="error"` with exit code 4, and the rejected certificate is saved next to the
requested destination as `*.rejected.json` for the bug report.

Engine schedule (`timeout_s` is the engines' budget; the checker has its own per-query
timeout):

1. explicit counterexample search (prover/engines/explicit.py), shortest first, for a
   quarter of the budget (at most FIRST_EXPLICIT_SLICE_S; minimising a counterexample
   may take longer): most violations are shallow;
2. the proof portfolio (`prover.engines.portfolio.find_proof`, imported lazily; skipped
   if it is not installed) for most of what is left;
3. the explicit search again with 70 % of the remaining time and a larger state budget;
4. the symbolic BMC (prover/engines/bmc.py) with whatever remains, for deep violations.

No counterexample and no proof within the budget: `status="undecided"`, exit code 3.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from prover.certificate.write import (
    counterexample_certificate,
    dump_certificate,
    make_certificate,
    producer,
    write_certificate,
)
from prover.engines import Counterexample
from prover.engines.explicit import SearchResult, find_counterexample
from prover.errors import CertificateError
from prover.ns import NetworkSystem
from prover.serial.automaton import build_serial_automaton

Status = Literal["serializable", "not_serializable", "undecided", "error"]

# Measured on the paper benchmarks: every shallow violation is found within 0.1 s, while
# serializable models spend the whole slice here, so keep it short and give the proof
# engines their turn early; the search resumes afterwards with the remaining budget.
FIRST_EXPLICIT_SLICE_S = 0.25

EXIT_SERIALIZABLE = 0
EXIT_NOT_SERIALIZABLE = 1
EXIT_USAGE = 2
EXIT_UNDECIDED = 3
EXIT_INTERNAL = 4

EXIT_OF: dict[str, int] = {
    "serializable": EXIT_SERIALIZABLE,
    "not_serializable": EXIT_NOT_SERIALIZABLE,
    "undecided": EXIT_UNDECIDED,
    "error": EXIT_INTERNAL,
}


@dataclass(frozen=True)
class ProveResult:
    """What one model's run produced. `status` is a verdict only if the checker said
    "valid"; `certificate_path` is then where the certificate was written."""

    model_path: str
    status: Status
    reason: str
    certificate_path: str | None
    engine: str | None
    counterexample: Counterexample | None
    check_status: str | None
    check_message: str
    times: dict[str, float] = field(default_factory=dict)
    stats: dict[str, Any] = field(default_factory=dict)
    ns: NetworkSystem | None = field(default=None, compare=False, repr=False)

    @property
    def exit_code(self) -> int:
        return EXIT_OF[self.status]


def default_certificate_path(model_path: str) -> str:
    return f"{model_path}.cert.json"


def _rejected_path(cert_path: str) -> str:
    base = cert_path[:-5] if cert_path.endswith(".json") else cert_path
    return f"{base}.rejected.json"


def _check(text: str, source: str, timeout_s: float) -> tuple[str, str]:
    """Run the trusted checker; ("unavailable", why) if it cannot be imported."""
    try:
        from checker.api import check_certificate
    except ImportError as exc:
        return "unavailable", f"the certificate checker is not available ({exc})"
    result = check_certificate(text, model_text=source, timeout_s=timeout_s)
    return result.status, result.message


def prove_model(
    path: str,
    *,
    cert_path: str | None = None,
    timeout_s: float = 60.0,
    check_timeout_s: float = 30.0,
    progress: Callable[[str], None] | None = None,
    use_proofs: bool = True,
    ns_choice: str = "reachable",
) -> ProveResult:
    """Decide one model file (`ns_choice`: "reachable" or "closure", see
    `prover.frontend.load`). Input errors raise `prover.errors.SerError`."""
    from prover.frontend.load import load_model

    start = time.monotonic()
    deadline = start + max(0.0, timeout_s)
    times: dict[str, float] = {}
    stats: dict[str, Any] = {}
    model = load_model(path, ns="closure" if ns_choice == "closure" else "reachable")
    times["load_s"] = time.monotonic() - start
    ns = model.ns
    automaton = build_serial_automaton(ns)
    dest = cert_path or default_certificate_path(path)

    def say(msg: str) -> None:
        if progress is not None:
            progress(msg)

    cert: dict[str, Any] | None = None
    engine: str | None = None
    cex: Counterexample | None = None
    reasons: list[str] = []

    # 1. Explicit search, shortest first.
    t0 = time.monotonic()
    first_deadline = min(deadline, t0 + min(FIRST_EXPLICIT_SLICE_S, 0.25 * max(0.0, timeout_s)))
    res = find_counterexample(
        ns, automaton=automaton, deadline=first_deadline, progress=say,
        minimise_deadline=deadline,
    )
    times["explicit_s"] = time.monotonic() - t0
    _record(stats, res)
    if res.counterexample is not None:
        cex = res.counterexample
    elif res.complete:
        reasons.append(f"explicit: no counterexample with ≤ {res.exhausted_requests} requests")
    else:
        reasons.append(
            f"explicit: no counterexample with ≤ {res.exhausted_requests} requests "
            f"({res.stop_reason} limit)"
        )

    # 2. Proof portfolio (hook; skipped while it is not available).
    if cex is None and use_proofs and time.monotonic() < deadline:
        t0 = time.monotonic()
        budget = 0.8 * (deadline - t0)
        say("proof engines")
        outcome, why = _find_proof(model, budget)
        times["proof_s"] = time.monotonic() - t0
        if outcome is not None:
            engine = str(getattr(outcome, "engine", "proof"))
            cert = make_certificate(
                model, "serializable", "proof", outcome.proof,
                producer(engine, solver="z3", solver_version=_z3_version()),
            )
        elif why:
            reasons.append(why)

    # 3. Explicit search again with what is left.
    if cex is None and cert is None and time.monotonic() < deadline - 0.05:
        t0 = time.monotonic()
        res2 = find_counterexample(
            ns, automaton=automaton, deadline=t0 + 0.7 * (deadline - t0), progress=say,
            initial_states=max(20_000, 4 * res.states),
        )
        times["explicit2_s"] = time.monotonic() - t0
        _record(stats, res2)
        if res2.counterexample is not None:
            cex = res2.counterexample
        else:
            reasons[0:1] = [
                f"explicit: no counterexample with ≤ {res2.exhausted_requests} requests"
            ]

    # 4. Symbolic BMC for deep violations.
    if cex is None and cert is None and time.monotonic() < deadline - 0.05:
        from prover.engines.bmc import find_counterexample_bmc

        t0 = time.monotonic()
        say("bmc")
        bmc = find_counterexample_bmc(
            ns, automaton=automaton, deadline=deadline,
            lower_bound=int(stats.get("exhausted_requests", 0)) + 1,
        )
        times["bmc_s"] = time.monotonic() - t0
        if bmc.counterexample is not None:
            cex = bmc.counterexample
        else:
            reasons.append(f"bmc: {bmc.reason}")

    if cex is not None:
        engine = cex.engine
        cert = counterexample_certificate(model, cex)
        stats["requests"] = cex.requests
        stats["lower_bound"] = cex.lower_bound
        stats["events"] = len(cex.events)
    times["engines_s"] = time.monotonic() - start

    if cert is None:
        return ProveResult(
            path, "undecided",
            "no counterexample and no proof within the budget: " + "; ".join(reasons),
            None, None, None, None, "", times, stats, ns,
        )

    text = dump_certificate(cert)
    t0 = time.monotonic()
    say("checking the certificate")
    status, message = _check(text, model.source, check_timeout_s)
    times["check_s"] = time.monotonic() - t0
    times["total_s"] = time.monotonic() - start
    if status != "valid":
        saved = _rejected_path(dest)
        try:
            write_certificate(cert, saved)
        except CertificateError:
            saved = "(could not be saved)"
        return ProveResult(
            path, "error",
            f"internal error (a bug, please report it): the {cert['verdict']} certificate "
            f"from engine {engine} was not accepted by the checker ({status}: {message}); "
            f"certificate kept at {saved}",
            None, engine, cex, status, message, times, stats, ns,
        )
    write_certificate(cert, dest)
    verdict: Status = "serializable" if cert["verdict"] == "serializable" else "not_serializable"
    return ProveResult(path, verdict, "", dest, engine, cex, status, message, times, stats, ns)


def _record(stats: dict[str, Any], res: SearchResult) -> None:
    stats["explicit_states"] = stats.get("explicit_states", 0) + res.states
    stats["exhausted_requests"] = max(
        int(stats.get("exhausted_requests", 0)), res.exhausted_requests
    )


def _find_proof(model: Any, budget_s: float) -> tuple[Any, str]:
    """Call the proof portfolio if it exists: (outcome with `.proof`/`.engine`, reason)."""
    try:
        from prover.engines import portfolio
    except ImportError:
        return None, ""
    attempt = getattr(portfolio, "attempt_proof", None)
    try:
        if attempt is not None:
            result = attempt(model, budget_s=budget_s)
            return result.outcome, (f"proof: {result.reason}" if result.outcome is None else "")
        return portfolio.find_proof(model, budget_s=budget_s), ""
    except NotImplementedError as exc:
        return None, f"proof: not available ({exc})"
    except Exception as exc:  # an engine failure is "unknown", never a verdict
        return None, f"proof: engine failed ({type(exc).__name__}: {exc})"


def _z3_version() -> str:
    try:
        import z3

        return str(z3.get_version_string())
    except ImportError:  # pragma: no cover
        return ""


def describe_times(times: dict[str, float]) -> str:
    return ", ".join(f"{k[:-2]} {v:.2f} s" for k, v in times.items())


def model_exists(path: str) -> bool:
    return os.path.exists(path)
