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


def test_many_sequential_assignments_are_refused_up_front(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = "; ".join(f"X := {i % 5}" for i in range(5000))
    m = tmp_path / "long.ser"
    m.write_text(f"request main {{ {body}; 0 }}\n")
    assert main([str(m), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "E-CHECKER-LIMIT" in err and "nested too deeply" in err
    assert not (tmp_path / "long.ser.cert.json").exists()


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
