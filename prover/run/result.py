"""What one model's run answers (`ProveResult`, its exit code) and where its certificate
goes: shared by the parent (prover/run/pipeline.py) and the child that decides it
(prover/run/decide.py)."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any, Literal

from prover.engines import Counterexample
from prover.errors import Diagnostic
from prover.ns import NetworkSystem

Status = Literal["serializable", "not_serializable", "assertion_violated", "undecided", "error"]

EXIT_SERIALIZABLE = 0
EXIT_NOT_SERIALIZABLE = 1
EXIT_USAGE = 2
EXIT_UNDECIDED = 3
EXIT_INTERNAL = 4

EXIT_OF: dict[str, int] = {
    "serializable": EXIT_SERIALIZABLE,
    "not_serializable": EXIT_NOT_SERIALIZABLE,
    "assertion_violated": EXIT_NOT_SERIALIZABLE,
    "undecided": EXIT_UNDECIDED,
    "error": EXIT_INTERNAL,
}


@dataclass(frozen=True)
class ProveResult:
    """What one model's run produced. `status` is a verdict only if the checker said
    "valid"; `certificate_path` is then where the certificate was written.

    `sizes` (NS and Petri-net sizes) and `explanation` (text and JSON of a
    counterexample's explanation) are computed inside the run, under its deadline."""

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
    sizes: dict[str, dict[str, int]] | None = field(default=None, compare=False, repr=False)
    explanation: tuple[str, dict[str, Any]] | None = field(
        default=None, compare=False, repr=False
    )
    warnings: tuple[Diagnostic, ...] = ()  # the model's warnings (prover/frontend/lint.py,
    # prover/frontend/coverage.py; NS JSON: unknown keys)
    # The items of `reason` when it lists one reason per engine: kept apart because a
    # reason may quote program text, whose "; " must not be read as a separator.
    reasons: tuple[str, ...] = ()
    # (text, JSON) of the deadlock search after a verdict on a Ser program (W-DEADLOCK)
    deadlock: tuple[str, dict[str, Any]] | None = field(default=None, compare=False,
                                                        repr=False)

    @property
    def exit_code(self) -> int:
        return EXIT_OF[self.status]


@dataclass(frozen=True)
class Decided:
    """A child's answer: the result, and the text to write to `dest` (the certificate,
    or a rejected certificate for the bug report), written by the parent."""

    result: ProveResult
    text: str | None
    dest: str | None


def default_certificate_path(model_path: str) -> str:
    return f"{model_path}.cert.json"


def rejected_path(cert_path: str) -> str:
    base = cert_path[:-5] if cert_path.endswith(".json") else cert_path
    return f"{base}.rejected.json"


def describe_times(times: dict[str, float]) -> str:
    return ", ".join(f"{k[:-2]} {v:.2f} s" for k, v in times.items())


def peak_memory_mib() -> int | None:
    """The largest resident set this process has had, in MiB (None where the platform
    does not say): the run of one model happens in a child of its own."""
    try:
        import resource
    except ImportError:  # not on POSIX
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux, bytes on macOS
    return -(-peak // (1024 * 1024 if sys.platform == "darwin" else 1024))


def search_line(stats: dict[str, Any], times: dict[str, float]) -> str:
    """The search statistics a SPIN or TLC user looks for after a run: explicit states and
    their rate, the depth in requests every run of which was searched, peak memory."""
    parts = []
    states, seconds = stats.get("explicit_states"), times.get("explicit_s")
    if states:
        rate = f", {states / seconds:,.0f} states/s" if seconds else ""
        parts.append(f"{states:,} explicit states{rate}")
    if n := stats.get("exhausted_requests"):
        parts.append(f"every run of at most {n} request{'s' * (n != 1)} searched")
    reduction = stats.get("reduction") or {}
    if "local_states" in reduction:
        parts.append(f"{reduction['local_states']:,} local states and "
                     f"{reduction.get('transitions', 0):,} transitions stepped")
    if stats.get("solver_queries"):
        parts.append(f"{stats['solver_queries']:,} solver queries")
    if stats.get("peak_memory_mib"):
        parts.append(f"peak memory {stats['peak_memory_mib']:,} MiB")
    return "search: " + "; ".join(parts) if parts else ""

