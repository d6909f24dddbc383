"""Human and JSON renderings of a CheckResult (not part of the trusted core)."""

from __future__ import annotations

import json
from dataclasses import asdict

from checker.api import CheckResult

EXIT_CODES = {"valid": 0, "invalid": 1, "unusable": 2, "undecided": 3}

_MARK = {"ok": "ok  ", "failed": "FAIL", "undecided": "UNDC", "error": "ERR "}


def human(result: CheckResult, label: str) -> str:
    lines = [f"certificate: {label}", f"claimed verdict: {result.verdict or '?'}"]
    for o in result.obligations:
        lines.append(f"  [{_MARK.get(o.result, o.result)}] {o.name}  ({o.seconds * 1000:.1f} ms)")
        if o.result != "ok":
            lines.append(f"         {o.detail}")
    if result.status == "valid":
        lines.append(f"VALID: {result.message}")
    else:
        lines.append(f"{result.status.upper()} [{result.code}]: {result.message}")
    return "\n".join(lines)


def as_json(result: CheckResult, label: str) -> str:
    data = {"certificate": label, **asdict(result), "exit_code": EXIT_CODES[result.status]}
    return json.dumps(data, indent=2, sort_keys=False)


def table(rows: list[tuple[str, CheckResult]]) -> str:
    width = max([len(name) for name, _ in rows] + [11])
    out = [f"{'certificate':<{width}}  {'verdict':<18}  {'status':<9}  {'code':<15}  seconds"]
    for name, r in rows:
        secs = sum(o.seconds for o in r.obligations)
        verdict, code = r.verdict or "?", r.code or "-"
        out.append(f"{name:<{width}}  {verdict:<18}  {r.status:<9}  {code:<15}  {secs:.2f}")
    return "\n".join(out)


def as_json_rows(rows: list[tuple[str, CheckResult]]) -> str:
    data = [{"certificate": name, **asdict(r), "exit_code": EXIT_CODES[r.status]}
            for name, r in rows]
    return json.dumps(data, indent=2, sort_keys=False)
