"""The mutation suite: every valid certificate is accepted, every mutant rejected with
the expected reason."""

from __future__ import annotations

import functools
from typing import Any

import pytest

from checker.api import check_certificate
from checker.report import EXIT_CODES
from tests.checker import certs, mutants

NEEDED = {  # top-level conjuncts whose removal breaks the proof (argued in certs.py)
    "intro-lock.ser": [0, 1, 2, 3],
    "incr-decr.ser": list(range(12)),
    "bank-atomic.ser": list(range(7)),
    "ns-ser.json": [],
    "ns-ser-se.json": [],  # S is all of N there: no conjunct is needed
    "flag-else.ser": [],
    "ns-two-walk.json": [1, 2, 3, 4, 5, 7],
    "ns-two-walk-hinted.json": [1, 2, 3, 4, 5, 7],
}


@functools.cache
def valid() -> dict[str, Any]:
    return certs.all_valid()


def all_mutants() -> list[mutants.Mutant]:
    out: list[mutants.Mutant] = []
    for name, cert in valid().items():
        out += mutants.generic(name, cert)
        if "counterexample" in cert:
            out += mutants.counterexample(name, cert)
        else:
            out += mutants.proof(name, cert, NEEDED[name])
    return out


@pytest.mark.parametrize("name", sorted(valid()))
def test_valid_certificate_accepted(name: str) -> None:
    result = check_certificate(valid()[name])
    assert result.status == "valid", result.message
    assert EXIT_CODES[result.status] == 0


def test_mutation_suite() -> None:
    found = all_mutants()
    failures = []
    for label, cert, codes, kw in found:
        r = check_certificate(cert, **kw)
        if r.status == "valid" or r.code not in codes:
            got = f"{r.status} {r.code} ({r.message[:160]})"
            failures.append(f"{label}: got {got}, want {sorted(codes)}")
    print(f"\nmutants: {len(found)}, rejected as expected: {len(found) - len(failures)}")
    assert len(found) >= 300
    assert not failures, "\n".join(failures)
