"""A failing assertion found by prover/engines/assertions.py, as the certificate (verdict
`assertion_violated`, checked by ser-check-cert's assertion claim) and as the trace that
`ser-prove` prints. Presentation only: nothing here decides anything."""

from __future__ import annotations

from typing import Any

from prover.certificate.explain import build_rows, rows_json, table_lines
from prover.certificate.write import event_json, make_certificate, producer
from prover.engines.assertions import AssertionFailure
from prover.frontend.load import LoadedModel


def assertion_certificate(model: LoadedModel, found: AssertionFailure) -> dict[str, Any]:
    section = {"events": [event_json(e) for e in found.events], "instance": found.instance,
               "request": found.request, "local": found.local, "global": found.global_}
    return make_certificate(model, "assertion_violated", "assertion", section,
                            producer("assertion-search"))


def assertion_report(model: LoadedModel, found: AssertionFailure,
                     columns: int | None = None) -> tuple[str, dict[str, Any]]:
    """(text, JSON) of the failure: the trace as the counterexample table, then who fails
    where."""
    assert model.steps is not None
    rows = build_rows(model.steps, found.events)
    at = found.error.location
    where = f"line {at.line}, column {at.column}" if at else "an assertion"
    data = {"steps": rows_json(rows), "instance": found.instance, "request": found.request,
            "local": found.local, "global": found.global_,
            "line": at.line if at else 0, "column": at.column if at else 0}
    lead = "after this interleaving" if rows else "at its very first step"
    lines = [f"Assertion violated: {lead}, {found.request}#{found.instance}"
             f" fails the assertion at {where}:", *(table_lines(rows, columns=columns)
                                                     if rows else []),
             f"  {found.request}#{found.instance} at {found.local}",
             f"  global {found.global_}"]
    return "\n".join(lines), data
