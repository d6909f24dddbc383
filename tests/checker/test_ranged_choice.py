"""Hostile ranged choices in a certificate's embedded model: rejected before any outcome
is built (no unbounded allocation, no truncation, no traceback)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from checker.api import check_certificate
from checker.model import CHOICE_BOUND, run
from checker.program import parse_program

from .forgeries import rehash

ROOT = Path(__file__).resolve().parents[2]
ARCHIVE = ROOT / "certificates"


@pytest.mark.parametrize(("choice", "code"), [
    ("?(0..4000000000000000000)", "E-LIMIT"),  # huge: never enumerated
    (f"?(1..{CHOICE_BOUND + 1})", "E-LIMIT"),  # one past the bound: not truncated
    ("?(3..1)", "E-LIMIT"),  # inverted, empty
    ("?(1..99999999999999999999)", "E-FAULT"),  # beyond signed 64 bits
    ("?(1.." + "9" * 5000 + ")", None),  # beyond Python's digits: still no traceback
])
@pytest.mark.parametrize("name", ["transfer-amount.ser", "transfer-amount-nolock.ser"])
def test_hostile_ranges_are_rejected(name: str, choice: str, code: str | None) -> None:
    cert = json.loads((ARCHIVE / f"{name}.cert.json").read_text(encoding="utf-8"))
    assert "?(1..3)" in cert["model"]["source"]
    cert["model"]["source"] = cert["model"]["source"].replace("?(1..3)", choice)
    rehash(cert["model"])
    result = check_certificate(json.dumps(cert), timeout_s=60)
    assert result.status != "valid"
    assert "Traceback" not in result.message
    if code is not None:
        assert result.code == code, result.message


def test_a_widened_range_invalidates_the_proof(tmp_path: Path) -> None:
    """Editing the range changes the behaviours: the engines' proof (its steps, or its
    network system, enumerate the range) must not cover them. (The archive's two-phase
    locking claim does not depend on the range: it stays valid, rightly.)"""
    from tests.checker.proved import proved

    source = (ROOT / "examples" / "transfer-amount.ser").read_text(encoding="utf-8")
    cert = proved(tmp_path, source)
    assert "locking" not in cert
    cert["model"]["source"] = cert["model"]["source"].replace("?(1..3)", "?(1..4)")
    rehash(cert["model"])
    assert check_certificate(json.dumps(cert), timeout_s=60).status != "valid"


def test_the_largest_range_runs_every_value() -> None:
    (_, body), = parse_program(f"?(5..{5 + CHOICE_BOUND - 1})")[1]
    assert [v for _, v, _, _ in run(body, (), ())] == list(range(5, 5 + CHOICE_BOUND))
