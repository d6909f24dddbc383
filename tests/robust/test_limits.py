"""One set of limits: a model the checker would refuse is refused up front (exit 2, the
limit named), never after the engines as "internal error" (exit 4)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prover.cli import main
from prover.errors import CheckerLimitError
from prover.run.limits import (
    certificate_over_limits,
    check_source_fits,
    checker_limits,
    preflight,
)

pytest.importorskip("checker.model")


def test_limits_are_the_checkers() -> None:
    from checker.certificate import Limits

    assert checker_limits().max_bytes == Limits().max_bytes
    assert checker_limits().max_events == Limits().max_events


def test_many_sequential_assignments_are_decided_and_checked(tmp_path: Path) -> None:
    """5,000 assignments in one request: read by both front ends with the same limits,
    proved, and the certificate accepted by the checker on its own."""
    from checker.api import check_certificate

    body = "; ".join(f"X := {i % 5}" for i in range(5000))
    m = tmp_path / "long.ser"
    m.write_text(f"request main {{ {body}; 0 }}\n")
    assert main([str(m), "--quiet"]) == 0
    cert = (tmp_path / "long.ser.cert.json").read_text()
    assert check_certificate(cert, model_text=m.read_text()).status == "valid"


def test_long_sum_is_refused_with_exit_2(tmp_path: Path) -> None:
    m = tmp_path / "sum.ser"
    m.write_text("request main { y := " + " + ".join(["X"] * 1000) + "; y }\n")
    assert main([str(m), "--quiet"]) == 2


def test_source_over_the_certificate_limit(tmp_path: Path) -> None:
    limit = checker_limits().max_bytes
    with pytest.raises(CheckerLimitError, match=f"limit of {limit} bytes"):
        check_source_fits("//" + "\x01" * (limit // 6 + 10), "m.ser")  # \u0001: 6 bytes
    check_source_fits("request main { 1 }", "m.ser")


def test_preflight_accepts_what_the_checker_accepts() -> None:
    preflight("ser", "request main { X := 1; yield; y := X; X := 0; y }", "m.ser")
    ns = {"initial_global": "g", "requests": [["r", "l"]], "responses": [["l", "ok"]],
          "transitions": []}
    preflight("ns-json", json.dumps(ns), "m.json")


def test_certificate_over_limits_names_the_limit() -> None:
    lim = checker_limits()
    assert certificate_over_limits("{}", 10) is None
    why = certificate_over_limits("{}", lim.max_events + 1)
    assert why is not None and str(lim.max_events) in why
    big = certificate_over_limits("x" * (lim.max_bytes + 1), None)
    assert big is not None and str(lim.max_bytes) in big


@pytest.mark.parametrize("n", [250, 600])
def test_a_long_flat_request_is_read_alike_by_both(n: int) -> None:
    """The preflight reads with the checker's own recursion limit: a flat request the
    checker reads is not refused as "nested too deeply" up front."""
    from checker.api import check_certificate  # noqa: F401 (the checker is installed)
    from checker.semantics import semantics

    body = " ".join(f"X := {i % 5}; yield;" for i in range(n))
    source = f"request main {{ {body} 0 }}"
    preflight("ser", source, "m.ser")
    import sys

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 40 * checker_limits().max_depth + 1000))
    try:
        semantics("ser", source)  # what check_certificate runs under its own limit
    finally:
        sys.setrecursionlimit(limit)


def test_the_checker_reads_a_long_sequence_without_recursion() -> None:
    """Sequences are not nesting: the checker's parser builds the program as it reduces,
    so 5,000 statements with yields parse at Python's default recursion limit, and the
    prover's preflight (the checker's whole front end) accepts them."""
    import sys

    from checker.program import parse_program

    body = " ".join(f"X := {i}; yield;" for i in range(5000))
    source = f"request main {{ {body} X }}"
    assert sys.getrecursionlimit() <= 5000
    _, blocks = parse_program(source)
    assert [name for name, _ in blocks] == ["main"]
    preflight("ser", source, "m.ser")


def test_errors_inside_the_checkers_parser_stay_model_errors() -> None:
    from checker.errors import ModelError
    from checker.program import parse_program

    for text, why in [("request a { 1 / 0 }", "division by zero"),
                      ("request a { true }", "write 1 or 0"),
                      ("global x := 1; request a { 1 }", "only globals"),
                      ("request a { x := ; 1 }", "unexpected token")]:
        with pytest.raises(ModelError, match=why):
            parse_program(text)
