"""`ser-prove --json`: one JSON object per model, one per line (JSON Lines).

Every record has the same keys whatever happened (absent facts are `null`), so a reader
can rely on them; `schemas/prove-result.schema.json` describes a record and the tests
validate real output against it. Records are printed as soon as a model is decided,
which with `--jobs` is the order in which the models finish: each carries its `model`.
"""

from __future__ import annotations

import json
from typing import Any

from prover.errors import Diagnostic
from prover.run.pipeline import EXIT_INTERNAL, EXIT_USAGE, ProveResult

SCHEMA_ID = "prove-result/1"

# Wall-clock seconds per stage, in pipeline order; a stage that did not run is null.
TIME_KEYS = ("load_s", "locking_s", "explicit_s", "reduction_s", "random_s", "versions_s",
             "parts_s", "proof_s", "explicit2_s", "bmc_s", "assertions_s", "engines_s",
             "diagnostics_s", "deadlock_s", "check_s", "explain_s", "total_s")
# Search statistics; the counterexample ones are null for a proof or no verdict, the
# solver queries are the reduction engine's (null when it did not run).
STAT_KEYS = ("explicit_states", "exhausted_requests", "requests", "lower_bound", "events",
             "solver_queries", "peak_memory_mib", "assertion_states")

# `ProveResult.status` -> the record's verdict (input errors never get a ProveResult).
_VERDICT = {"serializable": "serializable", "not_serializable": "not_serializable",
            "assertion_violated": "assertion_violated",
            "undecided": "undecided", "error": "internal_error"}


def _fixed(values: dict[str, Any], keys: tuple[str, ...], digits: int | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k in keys:
        v = values.get(k)
        out[k] = round(v, digits) if digits is not None and isinstance(v, float) else v
    return out


def _base(model: str, verdict: str, exit_code: int) -> dict[str, Any]:
    return {
        "format": SCHEMA_ID,
        "model": model,
        "verdict": verdict,
        "exit_code": exit_code,
        "certificate": None,
        "engine": None,
        "checker": None,
        "reason": None,
        "error": None,
        "warnings": [],
        "times": _fixed({}, TIME_KEYS, 3),
        "stats": _fixed({}, STAT_KEYS, None),
        "sizes": None,
        "counterexample": None,
        "reduction": None,
        "deadlock": None,
        "invariant_proof": None,
        "assertion": None,
    }


def result_record(result: ProveResult, *, warnings: tuple[Diagnostic, ...] = (),
                  sizes: dict[str, dict[str, int] | None] | None = None,
                  counterexample: dict[str, Any] | None = None,
                  reduction: dict[str, Any] | None = None,
                  deadlock: dict[str, Any] | None = None,
                  invariant_proof: dict[str, Any] | None = None,
                  assertion: dict[str, Any] | None = None) -> dict[str, Any]:
    """The record of a model that loaded (decided, undecided or an internal error)."""
    out = _base(result.model_path, _VERDICT[result.status], result.exit_code)
    out.update(
        certificate=result.certificate_path,
        engine=result.engine,
        checker=(None if result.check_status is None
                 else {"status": result.check_status, "message": result.check_message}),
        reason=result.reason or None,
        warnings=[w.json() for w in warnings],
        times=_fixed(result.times, TIME_KEYS, 3),
        stats=_fixed(result.stats, STAT_KEYS, None),
        sizes=sizes,
        counterexample=counterexample,
        reduction=reduction,
        deadlock=deadlock,
        invariant_proof=invariant_proof,
        assertion=assertion,
    )
    return out


def error_record(model: str, code: str, message: str) -> dict[str, Any]:
    """The record of a model that could not be used (unreadable, syntax, schema, bound)."""
    out = _base(model, "input_error", EXIT_USAGE)
    out["error"] = {"code": code, "message": message}
    return out


def crash_record(model: str, message: str) -> dict[str, Any]:
    """The record of an unexpected exception (a bug: exit 4, never a verdict)."""
    out = _base(model, "internal_error", EXIT_INTERNAL)
    out["reason"] = message
    out["error"] = {"code": "E-INTERNAL", "message": message}
    return out


def dumps(record: dict[str, Any]) -> str:
    """One line: no indentation, and ASCII escapes so any terminal or pipe can carry it."""
    return json.dumps(record, ensure_ascii=True, separators=(",", ":"))
