"""`check_certificate`: the one entry point of the trusted checker."""

from __future__ import annotations

import hashlib
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from checker.certificate import Limits, parse
from checker.errors import CheckerError, LimitError, Undecided, invalid

_RESULT = {"invalid": "failed", "undecided": "undecided"}  # an obligation's result by status


@dataclass(frozen=True)
class ObligationResult:
    name: str
    result: str  # "ok" | "failed" | "undecided" | "error"
    seconds: float
    detail: str


@dataclass(frozen=True)
class CheckResult:
    status: str  # "valid" | "invalid" | "undecided" | "unusable"
    code: str | None  # stable error code (docs/certificates.md), None when valid
    message: str  # the first failure, or a one-line summary when valid
    obligations: tuple[ObligationResult, ...]
    verdict: str | None  # the verdict the certificate claims (if it could be read)


def check_certificate(cert: dict[str, Any] | str | bytes, *, model_text: str | bytes | None = None,
                      timeout_s: float = 60.0, limits: Limits | None = None,
                      progress: Callable[[str, int], None] | None = None,
                      nested: bool = False) -> CheckResult:
    """Check a certificate within `timeout_s` seconds (else undecided); never raises.
    `model_text`: the model file (SHA-256 checked); `progress(name, done)`: each start;
    `nested`: a part of a whole whose schema check covered it (not validated again)."""
    limits = limits or Limits()
    done: list[ObligationResult] = []
    verdict: str | None = None
    at = time.monotonic() + timeout_s  # one wall-clock budget, cut between obligations
    expired = f"the check did not finish within its budget of {timeout_s:g} s"

    def remaining() -> float:  # what is left of it, for the solver calls too
        return at - time.monotonic()

    limit = sys.getrecursionlimit()
    try:
        # nested JSON is walked recursively by the validator (~10 frames a level)
        sys.setrecursionlimit(max(limit, 40 * limits.max_depth + 1000))
        with _alarm(timeout_s):
            for name, thunk in _obligations(cert, model_text, remaining, limits, nested):
                if remaining() <= 0:
                    raise Undecided(f"{expired} (before {name})", code="E-TIMEOUT")
                if progress is not None:
                    progress(name, len(done))
                start = time.perf_counter()
                try:
                    detail = thunk()
                except (Exception, _Expired) as exc:
                    err = _failure(exc, expired)
                    how = _RESULT.get(err.status, "error")
                    done.append(ObligationResult(name, how, time.perf_counter() - start, str(err)))
                    raise err from None
                done.append(ObligationResult(name, "ok", time.perf_counter() - start, detail))
                verdict = detail if name == "certificate" else verdict
    except (CheckerError, _Expired) as exc:
        err, where = _failure(exc, expired), done[-1].name if done else "checker"
        return CheckResult(err.status, err.code, f"{where}: {err}", tuple(done), verdict)
    except Exception as exc:  # outside any obligation: still never a traceback
        msg = f"internal error {type(exc).__name__}: {exc}"
        return CheckResult("unusable", "E-INTERNAL", msg, tuple(done), verdict)
    finally:
        sys.setrecursionlimit(limit)
    summary = f"{len(done)} obligations discharged in {sum(o.seconds for o in done):.2f} s"
    return CheckResult("valid", None, summary, tuple(done), verdict)


class _Expired(BaseException):
    """Raised by the timer signal; a BaseException so that no `except Exception` eats it."""


@contextmanager
def _alarm(seconds: float) -> Iterator[None]:
    """Interrupt pure-Python work at the deadline (main thread, no other timer armed)."""
    usable = threading.current_thread() is threading.main_thread()
    if not usable or signal.getitimer(signal.ITIMER_REAL)[0] > 0:
        yield
        return

    def fire(signum: int, frame: Any) -> None:
        raise _Expired

    old = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 0.001), 0.05)  # repeats if swallowed
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _obligations(cert: dict[str, Any] | str | bytes, model_text: str | bytes | None,
                 remaining: Callable[[], float], limits: Limits, nested: bool
                 ) -> Iterator[tuple[str, Callable[[], str]]]:  # fmt: skip
    state: dict[str, Any] = {}

    def read() -> str:
        data = state["cert"] = parse(cert, limits, schema=not nested)
        # Only the modules of the claim's own kind are imported (an auditor trusts those
        # alone): a per-variable reduction, two-phase locking or G p (no NS), parts, cases
        # or versions (what they nest alone), or on an NS.
        claims = ("parts", "cases", "versions", "locking", "reduction", "assertion")
        state["claim"] = claim = next((c for c in claims if c in data), "always" if
                                      "invariant" in data.get("always", {}) else "network")
        if claim == "network":  # what the schema cannot say of claims on an NS or on events
            from checker.network import check_structure

            check_structure(data, limits)
        return str(data["verdict"])

    def model_hash() -> str:
        m = state["cert"]["model"]
        try:
            digest = hashlib.sha256(m["source"].encode("utf-8")).hexdigest()
        except UnicodeEncodeError:
            raise invalid("E-HASH", "model.source is not valid Unicode") from None
        if digest != m["sha256"]:
            raise invalid("E-HASH", f"model.sha256 is {m['sha256']}, the source hashes to {digest}")
        raw = model_text.encode("utf-8") if isinstance(model_text, str) else model_text
        if raw is not None and hashlib.sha256(raw).hexdigest() != digest:
            raise invalid("E-MODEL-FILE", "the model file differs from the embedded model")
        return digest

    yield "certificate", read
    yield "model-hash", model_hash
    data, claim = state["cert"], state["claim"]
    steps = getattr(__import__(f"checker.{claim}", fromlist=[claim]), claim)(data, limits,
                                                                             remaining)
    if "deadlock" in data:  # a claim of its own, checked after the verdict's
        from checker.deadlock import deadlock

        steps = deadlock(data["model"], data["deadlock"], limits, steps)
    yield from steps


def _failure(exc: BaseException, expired: str) -> CheckerError:
    """Every failure of an obligation as a CheckerError: fail closed, never a traceback."""
    if isinstance(exc, _Expired):
        return Undecided(expired, code="E-TIMEOUT")
    if isinstance(exc, RecursionError | MemoryError):
        return LimitError(f"resource limit: {type(exc).__name__}")
    if not isinstance(exc, CheckerError):  # a checker bug must still reject, never accept
        return CheckerError(f"internal error {type(exc).__name__}: {exc}", code="E-INTERNAL")
    return exc
