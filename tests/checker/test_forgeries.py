"""Hand-built forgeries (tests/checker/forgeries.py) against every not-serializable example,
and every number of every archived certificate respelled: all must be rejected."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from checker.api import check_certificate
from tests.benchmarks import PAPER, absent
from tests.checker import certs
from tests.checker.forgeries import (
    SPELLINGS,
    circulation_forgery,
    not_serializable_models,
    number_paths,
    proof_forgeries,
    rehash,
    with_spelling,
)

ROOT = Path(__file__).resolve().parents[2]
ARCHIVE = ROOT / "certificates"
MODELS = list(not_serializable_models([ARCHIVE]))
assert MODELS, "the archive has not-serializable certificates"


def _rejected(text: str) -> str:
    r = check_certificate(text, timeout_s=30)
    assert r.status in ("invalid", "unusable"), (r.status, r.message)
    assert r.code is not None
    return r.code


@pytest.mark.parametrize("name,model", MODELS, ids=[n for n, _ in MODELS])
def test_proof_forgeries_for_not_serializable_models(name: str, model: Any) -> None:
    codes = {label: _rejected(text) for label, text in proof_forgeries(model)}
    for label, code in codes.items():
        if any(s in label for s in ("1e", "1E", "0.0", "1.0")):
            assert code == "E-JSON", label  # refused while decoding, before anything else
    assert codes["aux beyond 64 bits"] == "E-LIMIT"
    assert codes["invariant true, empty serial set"] == "E-REFUTATION"
    assert codes["invariant false"] == "E-INITIATION"
    assert codes["place name with a trailing space"] == "E-NAME"
    assert codes["pairs unsorted"] == "E-SCHEMA"
    assert codes["pairs naming unknown states"] == "E-PAIRS"




def _paper_models() -> list[tuple[str, Any]]:
    if not (PAPER / "expected.json").is_file():
        return []
    expected = json.loads((PAPER / "expected.json").read_text(encoding="utf-8"))
    out = []
    for name, row in sorted(expected.items()):
        if row["expected"] == "not_serializable":
            src = (PAPER / name).read_text(encoding="utf-8")
            kind = "ser" if name.endswith(".ser") else "ns-json"
            out.append((name, rehash({"kind": kind, "source": src, "sha256": ""})))
    return out


@pytest.mark.skipif(not _paper_models(), reason=absent("paper"))
def test_proof_forgeries_for_not_serializable_paper_models() -> None:
    for name, model in _paper_models():
        for label, text in proof_forgeries(model):
            assert _rejected(text), (name, label)


def test_float_counts_do_not_balance_a_circulation() -> None:
    _, model = MODELS[0]
    edge = ["{}", "main", "0", "{X=1}"]  # a one-way edge, balanced only by float rounding
    loop = ["{X=1}", "main", "1", "{X=1}"]
    assert _rejected(circulation_forgery(model, edge, loop)) == "E-JSON"


def _archive() -> list[tuple[str, Any]]:
    """The archive's certificates that have numbers (a two-phase locking claim has none:
    its names are tried in tests/checker/test_locking.py)."""
    out = [(p.name, cert) for p in sorted(ARCHIVE.glob("*.cert.json"))
           if "locking" not in (cert := json.loads(p.read_text(encoding="utf-8")))]
    return out + [("hand:ns-nonser", certs.counterexamples()["ns-nonser.json"]),
                  ("hand:ns-state-equation", certs.proof_ns_state_equation())]


@pytest.mark.parametrize("name,cert", _archive(), ids=[n for n, _ in _archive()])
def test_every_number_respelled_is_rejected(name: str, cert: Any) -> None:
    assert check_certificate(cert).status == "valid"
    paths = list(number_paths({k: v for k, v in cert.items() if k != "producer"}))
    assert paths, "a certificate without numbers tests nothing"
    for path in paths:
        for spelling in SPELLINGS:
            code = _rejected(with_spelling(cert, path, spelling))
            assert code == ("E-SCHEMA" if spelling == "true" else "E-JSON"), (path, spelling)


def test_float_in_a_python_object_is_refused() -> None:
    cert = certs.proof_incr_decr()
    cert["proof"]["serial_set"]["components"][0]["periods"][0][0]["count"] = 1.0
    assert _rejected(cert) == "E-JSON"


# ------------------------------------------------------------------ restricted NS (pairs)


def _lock_pairs() -> list[list[str]]:
    body = "({}, while(L == 1){ yield }; L := 1; X := 1; yield; y := X; X := 0; L := 0; y)"
    mid = "({}, y := X; X := 0; L := 0; y)"
    # the lock keeps `mid` away from the unlocked global {}
    return [[body, "{L=1,X=1}"], [body, "{}"], [mid, "{L=1,X=1}"]]


def _with_pairs(pairs: list[list[str]]) -> Any:
    cert = certs.proof_intro_lock()
    cert["proof"] = {"pairs": pairs, **cert["proof"]}
    # names must resolve in the restricted net: answer 0 comes only from `mid` at {}
    formula = cert["proof"]["invariant"]["formula"]
    formula["and"] = [f for f in formula["and"] if "0)" not in json.dumps(f)
                      and "\"0\"]" not in json.dumps(f)]
    return cert


def test_restricted_proof_is_valid_and_discharges_exclusion() -> None:
    r = check_certificate(_with_pairs(_lock_pairs()))
    assert r.status == "valid", r.message
    names = [o.name for o in r.obligations]
    assert names.count("exclusion: {}") == 1 and "exclusion: {L=1,X=1}" not in names
    model = next(o for o in r.obligations if o.name == "model")
    assert "restricted to 3 pairs" in model.detail


def test_pair_left_out_that_co_occurs_is_rejected() -> None:
    pairs = _lock_pairs()
    waiting = pairs.pop(0)  # the waiting request does co-occur with the held lock
    assert waiting[1] == "{L=1,X=1}"
    r = check_certificate(_with_pairs(pairs))
    assert (r.status, r.code) == ("invalid", "E-EXCLUSION"), r.message


def test_pair_that_cuts_off_discovery_is_rejected() -> None:
    pairs = [p for p in _lock_pairs() if p[1] != "{}"]  # nothing ever moves: mid unreachable
    r = check_certificate(_with_pairs(pairs))
    assert (r.status, r.code) == ("invalid", "E-PAIRS"), r.message


def test_final_local_cannot_be_listed() -> None:
    r = check_certificate(_with_pairs(sorted([*_lock_pairs(), ["({y=1}, 1)", "{}"]])))
    assert (r.status, r.code) == ("invalid", "E-PAIRS"), r.message


def test_pairs_must_be_sorted_and_unique() -> None:
    pairs = _lock_pairs()
    for bad in (pairs[::-1], [*pairs, pairs[-1]]):
        r = check_certificate(_with_pairs(bad))
        assert (r.status, r.code) == ("unusable", "E-SCHEMA"), r.message
