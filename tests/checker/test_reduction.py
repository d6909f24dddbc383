"""Reduction certificates (checker/reduction.py): a valid one, and forgeries, each rejected
with the obligation it fails named: movers that do not commute, an invariant that does not
keep a pair apart, a "stutter" that changes a local, an escaping domain, wrong shapes,
missing footprint globals, hostile sizes, and certificates moved onto a model that is
not serializable."""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from checker.api import check_certificate
from checker.model import local_text
from checker.program import parse_program
from checker.report import EXIT_CODES
from tests.benchmarks import SCALE, needs_scale
from tests.checker import certs
from tests.checker.forgeries import moved, reduction_forgeries
from tests.checker.helpers import EXAMPLES, P, const, eq

Json = Any
SHARED = SCALE
START, HELD = certs.INTRO_LOCK_START, certs.INTRO_LOCK_HELD


def _cert(source: str, domains: list[Json], invariant: Json, labels: list[Json],
          **more: Json) -> Json:  # more: blocks, groups
    return {"format": "ser-certificate/1",
            "model": {"kind": "ser", "source": source,
                      "sha256": hashlib.sha256(source.encode()).hexdigest()},
            "verdict": "serializable", "producer": {"tool": "tests", "version": "1"},
            "reduction": {"domains": domains, "invariant": invariant, "labels": labels,
                          **more}}


def _starts(source: str) -> dict[str, str]:
    """Each request's initial local state, named as the checker names it."""
    return {r: local_text((), body) for r, body in parse_program(source)[1]}


def _rejected(cert: Json, code: str, obligation: str) -> None:
    r = check_certificate(cert, timeout_s=30)
    assert r.status != "valid" and r.code == code, (r.code, r.message)
    assert r.obligations[-1].name == obligation, r.obligations[-1]


def test_the_hand_built_certificate_is_valid() -> None:
    r = check_certificate(certs.reduction_intro_lock())
    assert r.status == "valid", r.message
    names = [o.name for o in r.obligations]
    assert names[-6:] == ["reduction-labels", "initiation", "reduction-dead", "consecution",
                          "reduction-shape", "reduction-movers"]


def test_a_right_mover_that_does_not_commute() -> None:
    src = (EXAMPLES / "intro-nonser.ser").read_text()
    (start,) = _starts(src).values()
    labels = [{"local": ["main", start], "label": "R"},
              {"local": ["main", "({}, y := X; X := 0; y)"], "label": "L"}]
    _rejected(_cert(src, [{"global": "X", "range": [0, 1]}], True, labels),
              "E-MOVER", "reduction-movers")


@pytest.mark.parametrize("invariant", [True, {"cmp": "<=", "lhs": P(("value", "L")),
                                              "rhs": const(1)}])
def test_an_invariant_that_lets_two_lock_holders_coexist(invariant: Json) -> None:
    cert = certs.reduction_intro_lock()
    cert["reduction"]["invariant"] = invariant
    _rejected(cert, "E-MOVER", "reduction-movers")


def test_a_stutter_that_changes_a_local_needs_a_label() -> None:
    src = "request main { c := 0; while (X == 0) { c := 1 - c; yield }; c }"
    start = _starts(src)["main"]
    cert = _cert(src, [{"global": "X", "values": [0]}], True,
                 [{"local": ["main", start], "label": "N"}])
    _rejected(cert, "E-LABEL", "reduction-labels")


def test_a_domain_that_a_reachable_step_leaves() -> None:
    src = "request incr { if (X < 3) { X := X + 1 } else { 0 }; 0 }"
    cert = _cert(src, [{"global": "X", "range": [0, 2]}], True,
                 [{"local": ["incr", _starts(src)["incr"]], "label": "N"}])
    _rejected(cert, "E-ESCAPE", "reduction-dead")


def test_a_live_step_labelled_dead() -> None:
    cert = certs.reduction_intro_lock()
    cert["reduction"]["labels"][1]["label"] = "D"
    _rejected(cert, "E-ESCAPE", "reduction-dead")


@pytest.mark.parametrize("first, second", [("N", "N"), ("L", "R"), ("N", "R")])
def test_labels_out_of_shape(first: str, second: str) -> None:
    cert = certs.reduction_intro_lock()
    cert["reduction"]["labels"][0]["label"] = first
    cert["reduction"]["labels"][1]["label"] = second
    _rejected(cert, "E-SHAPE", "reduction-shape")


def test_r_n_r_is_out_of_shape() -> None:
    src = "request main { X := 1; yield; X := 2; yield; X := 3; 0 }"
    start = _starts(src)["main"]
    labels = [{"local": ["main", start], "label": "R"},
              {"local": ["main", "({}, X := 2; yield; X := 3; 0)"], "label": "N"},
              {"local": ["main", "({}, X := 3; 0)"], "label": "R"}]
    _rejected(_cert(src, [{"global": "X", "range": [0, 3]}], True, labels),
              "E-SHAPE", "reduction-shape")


def test_an_invariant_that_is_not_inductive() -> None:
    cert = certs.reduction_intro_lock()
    cert["reduction"]["invariant"]["and"].append(eq(P(("value", "X")), const(0)))
    _rejected(cert, "E-CONSECUTION", "consecution")


def test_an_invariant_false_initially() -> None:
    cert = certs.reduction_intro_lock()
    cert["reduction"]["invariant"]["and"].append(eq(P(("value", "L")), const(1)))
    _rejected(cert, "E-INITIATION", "initiation")


def test_a_global_missing_from_the_domains() -> None:
    cert = certs.reduction_intro_lock()
    cert["reduction"]["domains"].pop(1)
    _rejected(cert, "E-DOMAIN", "reduction-domains")


def test_a_domain_without_its_initial_value() -> None:
    cert = certs.reduction_intro_lock()
    cert["reduction"]["domains"][0] = {"global": "L", "range": [1, 1]}
    _rejected(cert, "E-DOMAIN", "reduction-domains")


def test_a_label_whose_reads_miss_a_global_of_the_footprint() -> None:
    cert = certs.reduction_intro_lock()
    cert["reduction"]["labels"].append({"local": ["main", START], "reads": {"L": 0},
                                        "label": "N"})
    _rejected(cert, "E-NAME", "reduction-labels")


@pytest.mark.parametrize("where, value", [
    ("local", ["main", START + " "]), ("local", ["mian", START]),
    ("global", "L "), ("global", "x")])
def test_names_that_almost_match(where: str, value: Json) -> None:
    cert = certs.reduction_intro_lock()
    if where == "local":
        cert["reduction"]["labels"][0]["local"] = value
        _rejected(cert, "E-NAME", "reduction-labels")
    else:
        cert["reduction"]["domains"][0]["global"] = value
        _rejected(cert, "E-NAME", "reduction-domains")


def test_invariant_names_that_are_no_local_state_or_global() -> None:
    for place in ({"local": ["main", HELD + " "]}, {"value": "Y"}, {"global": "{}"}):
        cert = certs.reduction_intro_lock()
        cert["reduction"]["invariant"]["and"].append(eq({"place": place}, const(0)))
        r = check_certificate(cert)
        assert r.status == "invalid" and r.code == "E-NAME", (place, r.message)


def test_two_labels_for_one_local_state() -> None:
    cert = certs.reduction_intro_lock()
    cert["reduction"]["labels"].append(copy.deepcopy(cert["reduction"]["labels"][0]))
    r = check_certificate(cert)
    assert r.status == "unusable" and r.code == "E-SCHEMA", r.message


@pytest.mark.parametrize("text, code", [
    ('"range": [0, 1.0]', "E-JSON"), ('"range": [0, 1e0]', "E-JSON"),
    ('"label": "r"', "E-SCHEMA"), ('"range": [0, 1, 2]', "E-SCHEMA")])
def test_spellings_and_shapes(text: str, code: str) -> None:
    raw = json.dumps(certs.reduction_intro_lock())
    old = '"range": [0, 1]' if "range" in text else '"label": "R"'
    r = check_certificate(raw.replace(old, text, 1))
    assert r.status == "unusable" and r.code == code, r.message


def test_a_reduction_of_an_ns_in_json_is_refused() -> None:
    cert = certs.reduction_intro_lock()
    src = certs.NS_SER
    cert["model"] = {"kind": "ns-json", "source": src,
                     "sha256": hashlib.sha256(src.encode()).hexdigest()}
    r = check_certificate(cert)
    assert r.status == "unusable" and r.code == "E-SCHEMA", r.message


# ---------------------------------------------------------------- hostile sizes (exit 2)


@pytest.mark.parametrize("domain", [{"range": [0, 10**6]}, {"range": [-(2**62), 2**62]},
                                    {"values": list(range(600_000))}])
def test_a_huge_domain_is_a_limit(domain: Json) -> None:
    cert = certs.reduction_intro_lock()
    cert["reduction"]["domains"][0] = {"global": "L", **domain}
    # the schema's pass over 600,000 values takes 25 s here idle: a budget that a loaded
    # machine does not cut short, since what is asserted is the refusal's code
    r = check_certificate(cert, timeout_s=600)
    assert r.status == "unusable" and r.code == "E-LIMIT" and EXIT_CODES[r.status] == 2, r.message


def test_a_footprint_that_names_every_global_is_a_limit() -> None:
    names = [f"G{i}" for i in range(40)]
    src = "request r { s := " + " + ".join(names) + "; s }"
    cert = _cert(src, [{"global": g, "values": [0, 1]} for g in names], True,
                 [{"local": ["r", _starts(src)["r"]], "label": "N"}])
    r = check_certificate(cert, timeout_s=30)
    assert r.status == "unusable" and r.code == "E-LIMIT", r.message


def test_a_domain_of_a_million_values_is_refused_quickly() -> None:
    """10^6 values of one global read by a step: refused before any step is taken."""
    src = "request r { y := X; y }"
    cert = _cert(src, [{"global": "X", "range": [0, 999_999]}], True,
                 [{"local": ["r", _starts(src)["r"]], "label": "N"}])
    r = check_certificate(cert, timeout_s=30)
    assert r.code == "E-LIMIT" and sum(o.seconds for o in r.obligations) < 5


# ------------------------------------------------- certificates of a non-serializable twin


def test_the_lock_proof_moved_onto_the_program_without_the_lock() -> None:
    src = (EXAMPLES / "intro-nonser.ser").read_text()
    forged = moved(certs.reduction_intro_lock(), src)
    assert check_certificate(forged).status != "valid"
    # and adapted to its names: a right mover before a left one, no lock to lean on
    (start,) = _starts(src).values()
    forged["reduction"]["domains"] = [{"global": "X", "range": [0, 1]}]
    forged["reduction"]["invariant"] = True
    forged["reduction"]["labels"] = [{"local": ["main", start], "label": "R"},
                                     {"local": ["main", "({}, y := X; X := 0; y)"],
                                      "label": "L"}]
    _rejected(forged, "E-MOVER", "reduction-movers")


@needs_scale
@pytest.mark.parametrize("locked, twin", [("locked-02", "unlocked-02"),
                                          ("locked-03", "unlocked-03"),
                                          ("twophase-02", "flipwait-03")])
def test_a_certificate_moved_onto_a_model_that_is_not_serializable(locked: str,
                                                                   twin: str) -> None:
    from prover.frontend.load import load_source
    from prover.reduction.engine import prove_by_reduction

    src = (SHARED / f"{locked}.ser").read_text()
    model = load_source(src, "ser", lazy=True)
    assert model.steps is not None
    attempt = prove_by_reduction(model.steps)
    assert attempt.evidence is not None, attempt.reason
    valid = _cert(src, **attempt.evidence)
    assert check_certificate(valid).status == "valid"
    for forged in reduction_forgeries(valid, (SHARED / f"{twin}.ser").read_text()):
        r = check_certificate(forged, timeout_s=30)
        assert r.status != "valid", r.message


def test_an_aux_term_in_a_reduction_invariant_is_refused() -> None:
    """Found by a red-team pass: the formula grammar is shared with the net's proofs,
    whose aux variables mean nothing here (it was an internal error)."""
    cert = certs.reduction_intro_lock()
    cert["reduction"]["invariant"]["and"].append(eq({"aux": "a"}, const(0)))
    r = check_certificate(cert)
    assert r.status == "unusable" and r.code == "E-SCHEMA", r.message


def test_the_node_limit_bounds_a_reduction_invariant() -> None:
    from checker.certificate import Limits

    cert = certs.reduction_intro_lock()
    r = check_certificate(cert, limits=Limits(max_nodes=10))
    assert r.status == "unusable" and r.code == "E-LIMIT", r.message


def _not_not(c: Json) -> Json:
    return {"not": {"not": c}}


def test_conjuncts_in_any_form_mean_the_same_after_a_step() -> None:
    """Consecution reads a linear comparison as its sum before the step plus the step's
    change, anything else anew on the values after the step: both ways agree."""
    cert = certs.reduction_intro_lock()
    inv = cert["reduction"]["invariant"]["and"]
    cert["reduction"]["invariant"]["and"] = [_not_not(c) for c in inv]
    assert check_certificate(cert, timeout_s=30).status == "valid"
    swapped = certs.reduction_intro_lock()  # lhs and rhs exchanged: the same comparison
    swapped["reduction"]["invariant"]["and"] = [
        {**c, "lhs": c["rhs"], "rhs": c["lhs"]} if c.get("cmp") == "=" else c for c in inv]
    assert check_certificate(swapped, timeout_s=30).status == "valid"


@pytest.mark.parametrize("wrap", [
    _not_not,
    lambda c: {"cmp": "=", "lhs": {"ite": [True, c["lhs"], const(5)]}, "rhs": c["rhs"]},
    lambda c: {"or": [False, c]},
])
def test_a_non_inductive_conjunct_in_any_form(wrap: Any) -> None:
    cert = certs.reduction_intro_lock()
    cert["reduction"]["invariant"]["and"].append(wrap(eq(P(("value", "X")), const(0))))
    _rejected(cert, "E-CONSECUTION", "consecution")


def test_interval_refutation_counts_a_group_as_the_sum_of_its_states() -> None:
    """`L - #group0 = 0` with L fixed to 0 excludes a request in a state of the group: the
    group's lower bound is the number of the pair's requests among its states (it was 0,
    and every such pair went to cvc5). Without a member in the pair, nothing is excluded."""
    from collections import Counter

    from checker.steps import refuted as _refuted

    g, a, b = ("group", 0), ("local", "r", "a"), ("local", "r", "b")
    lin = [({("value", "L"): 1, g: -1}, 0, "=")]
    dom = {"L": (0, 1)}
    assert _refuted(lin, Counter([a, g]), {"L": 0}, dom, set())
    assert not _refuted(lin, Counter([a]), {"L": 0}, dom, set())
    assert not _refuted(lin, Counter([a, g]), {"L": 1}, dom, set())
    assert _refuted(lin, Counter([a, b, g, g]), {"L": 1}, dom, set())  # two holders of one lock


@pytest.mark.parametrize("seconds", [0.0, 0.001])
def test_a_check_past_its_budget_is_undecided_naming_where_it_stopped(seconds: float) -> None:
    """The timer interrupts an obligation in Python work, or the budget is gone before the
    first: either way E-TIMEOUT, undecided, with the obligation and the budget named."""
    root = Path(__file__).resolve().parents[2]
    text = (root / "certificates" / "intro-lock.ser.cert.json").read_text(encoding="utf-8")
    r = check_certificate(text, timeout_s=seconds)
    if seconds and r.status == "valid":  # a fast machine: nothing to interrupt
        return
    assert (r.status, r.code) == ("undecided", "E-TIMEOUT"), r
    assert f"did not finish within its budget of {seconds:g} s" in r.message
    assert r.message.split(":")[0] in {o.name for o in r.obligations} | {"checker"}
