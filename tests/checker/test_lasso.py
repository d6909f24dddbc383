"""Lasso certificates (`ltl_violated`): hand-built, valid ones accepted; forged ones
rejected with the obligation and the reason named. Built from the checker's own
semantics here, never by the prover, so these tests also hold the prover to the format."""

from __future__ import annotations

import copy
import hashlib
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from checker.api import check_certificate
from checker.ltl import parse_formula
from checker.semantics import semantics
from checker.temporal import _truth
from tests.checker.helpers import EXAMPLES

Json = Any
LOCK = (EXAMPLES / "intro-lock.ser").read_text(encoding="utf-8")
MUTEX = (EXAMPLES / "mutex.json").read_text(encoding="utf-8")


def _cert(source: str, formula: str, prefix: list[Json], loop: list[Json], *, k: int = 2,
          fairness: str = "none", kind: str = "ser") -> Json:
    return {
        "format": "ser-certificate/1",
        "model": {"kind": kind, "source": source,
                  "sha256": hashlib.sha256(source.encode()).hexdigest()},
        "verdict": "ltl_violated",
        "producer": {"tool": "tests", "version": "1"},
        "ltl": {"formula": formula, "requests": k, "fairness": fairness, "prefix": prefix,
                "loop": loop},
    }


def _lock_events() -> tuple[list[Json], Json, Json]:
    """Two requests arrive; the first takes the lock (prefix); the second spins on it."""
    sem = semantics("ser", LOCK)
    (req, start), = sem.requests
    spawn = [{"event": "spawn", "instance": n, "request": req, "local": start} for n in (1, 2)]
    (taken,) = {t for t in sem.step(start, sem.initial) if t[1] != sem.initial}
    take = {"event": "step", "instance": 1, "from": [start, sem.initial], "to": list(taken)}
    (spun,) = sem.step(start, taken[1])
    spin = {"event": "step", "instance": 2, "from": [start, taken[1]], "to": list(spun)}
    return spawn, take, spin


def _livelock(**kw: Any) -> Json:
    spawn, take, spin = _lock_events()
    return _cert(LOCK, "F (done(main) >= 1)", [*spawn, take], [spin], **kw)


def _rejected(cert: Json, obligation: str, code: str) -> str:
    res = check_certificate(json.dumps(cert))
    assert res.status in ("invalid", "unusable"), res.message
    assert res.code == code, res.message
    assert res.message.startswith(obligation), res.message
    return res.message


def test_a_livelock_without_fairness_is_a_violation() -> None:
    res = check_certificate(json.dumps(_livelock()))
    assert res.status == "valid", res.message
    assert [o.name for o in res.obligations][-5:] == [
        "ltl-formula", "lasso-replay", "lasso-loop", "lasso-fair", "lasso-violates"]


def test_a_finite_maximal_execution_is_a_lasso_with_an_empty_loop() -> None:
    assert check_certificate(json.dumps(_cert(LOCK, "F (L == 1)", [], [], k=1))).status \
        == "valid"  # no request arrives: L stays 0, nothing can move
    spawn, take, _ = _lock_events()
    message = _rejected(_cert(LOCK, "G (L == 0)", [spawn[0], take], []), "lasso-loop",
                        "E-LTL-LOOP")  # instance 1 can still move: not maximal
    assert "instance 1 can still move" in message


def test_a_loop_that_does_not_close_is_rejected() -> None:
    spawn, take, spin = _lock_events()
    cert = _cert(LOCK, "F (done(main) >= 1)", spawn, [take, spin])
    assert "does not return" in _rejected(cert, "lasso-loop", "E-LTL-LOOP")


def test_an_event_that_is_not_enabled_is_rejected() -> None:
    cert = _livelock()
    cert["ltl"]["loop"][0]["from"][1] = "{}"  # the lock is taken: the global is not {}
    assert "global state is" in _rejected(cert, "lasso-replay", "E-REPLAY")
    cert = _livelock()
    cert["ltl"]["prefix"][1]["request"] = "mainx"  # a name that almost matches
    _rejected(cert, "lasso-replay", "E-REPLAY")
    cert = _livelock()
    cert["ltl"]["prefix"][1]["instance"] = 1  # instance 1 arrives twice
    assert "used before" in _rejected(cert, "lasso-replay", "E-REPLAY")


def test_a_lasso_that_satisfies_the_formula_is_rejected() -> None:
    for formula in ("G (L <= 1)", "F (L == 1)", "G F inflight(main) == 2", "true",
                    "(L == 0) U (L == 1)", "done(main) == 0 W (L == 1)"):
        cert = _livelock()
        cert["ltl"]["formula"] = formula
        assert "holds on this lasso" in _rejected(cert, "lasso-violates", "E-LTL-HOLDS")


def test_more_requests_than_claimed_is_rejected() -> None:
    assert "more than 1" in _rejected(_livelock(k=1), "lasso-replay", "E-LTL-REQUESTS")


def test_an_unfair_loop_under_weak_fairness_is_rejected() -> None:
    message = _rejected(_livelock(fairness="weak"), "lasso-fair", "E-LTL-FAIR")
    assert "instance 1 can move in every state of the loop" in message


def test_formulas_the_checker_refuses() -> None:
    for formula in ("X (L == 1)", "next L == 1", "G L", "F (L == ", "L == 1 U", "G (L >< 1)",
                    "G (1 / (L - L) == 0)", "F (done(main) >= done)"):
        cert = _livelock()
        cert["ltl"]["formula"] = formula
        _rejected(cert, "ltl-formula" if "/" not in formula else "lasso-violates",
                  "E-LTL-FORMULA")


def test_an_operator_letter_is_a_global_where_an_operand_fits() -> None:
    """G (X == 1) reads the global X; F - 1 > 0 compares the global F."""
    f = parse_formula("G (X == 1)")
    assert f == ("G", ("cmp", "==", ("var", "X"), ("num", 1)))
    assert parse_formula("F - 1 > 0")[0] == "cmp"
    assert parse_formula("FLAG == 1") == ("cmp", "==", ("var", "FLAG"), ("num", 1))
    assert parse_formula("a U b" if False else "L == 0 U L == 1")[0] == "U"


def test_an_ns_in_json_has_no_globals_to_read() -> None:
    sem = semantics("ns-json", MUTEX)
    (req, start), = sem.requests
    events: list[Json] = [{"event": "spawn", "instance": 1, "request": req, "local": start}]
    at = (start, sem.initial)
    while not sem.answers(at[0]):
        (to,) = sem.step(*at)
        events.append({"event": "step", "instance": 1, "from": list(at), "to": list(to)})
        at = to
    (answer,) = sem.answers(at[0])
    events.append({"event": "respond", "instance": 1, "local": at[0], "response": answer})
    good = _cert(MUTEX, "G (done(acquire) == 0)", events, [], k=1, kind="ns-json")
    assert check_certificate(json.dumps(good)).status == "valid"
    bad = copy.deepcopy(good)
    bad["ltl"]["formula"] = "G (L == 0)"
    assert "no global variables" in _rejected(bad, "ltl-formula", "E-LTL-FORMULA")


@pytest.mark.parametrize(("path", "value", "code"), [
    (("ltl", "requests"), "2.0", "E-JSON"),  # a float spelling, in the text itself
    (("ltl", "requests"), "2e0", "E-JSON"),
    (("ltl", "requests"), "0", "E-SCHEMA"),
    (("ltl", "requests"), "true", "E-SCHEMA"),
    (("ltl", "requests"), "1" + "0" * 40, "E-LIMIT"),
    (("ltl", "fairness"), '"Weak"', "E-SCHEMA"),
    (("ltl", "formula"), '""', "E-SCHEMA"),
    (("ltl", "loop"), '{"event": "step"}', "E-SCHEMA"),
    (("counterexample",), '{"events": [], "completed": []}', "E-SCHEMA"),
    (("verdict",), '"not_serializable"', "E-SCHEMA"),
    (("ltl", "extra"), "1", "E-SCHEMA"),
])
def test_hostile_spellings_are_unusable(path: tuple[str, ...], value: str, code: str) -> None:
    cert = _livelock()
    marker = "__HOSTILE__"
    node = cert
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = marker
    text = json.dumps(cert).replace(f'"{marker}"', value)
    res = check_certificate(text)
    assert res.status in ("unusable", "invalid") and res.code == code, res.message


# ------------------------------------------------ the checker's semantics against the prover's

_ATOMS = st.sampled_from(["V == 0", "V == 1", "V > 0", "V <= 1", "true", "false"])


def _formulas() -> st.SearchStrategy[str]:
    return st.recursive(_ATOMS, lambda inner: st.one_of(
        st.builds(lambda op, a: f"{op} ({a})", st.sampled_from(["G", "F", "!"]), inner),
        st.builds(lambda a, op, b: f"({a}) {op} ({b})", inner,
                  st.sampled_from(["U", "R", "W", "&&", "||", "->", "<->"]), inner),
    ), max_leaves=6)


@settings(max_examples=300, deadline=None)
@given(_formulas(), st.lists(st.integers(0, 2), min_size=1, max_size=6), st.data())
def test_truth_on_a_lasso_agrees_with_the_provers_definition(
        text: str, values: list[int], data: st.DataObject) -> None:
    from collections import Counter

    from prover.ltl.formula import parse_formula as prover_parse
    from prover.ltl.lasso import Observation, holds

    loop = data.draw(st.integers(0, len(values) - 1))
    ours = _truth(parse_formula(text), [({"V": v}, Counter(), {}) for v in values], loop)[0]
    theirs = holds(prover_parse(text, frozenset({"V"}), frozenset()),
                   [Observation({"V": v}, {}, {}) for v in values], loop)
    assert ours == theirs, (text, values, loop)


# ------------------------------------------------------------- unbounded G p (`always`)

OVERDRAFT = (EXAMPLES / "bank-overdraft.ser").read_text(encoding="utf-8")


def _always(source: str, formula: str, kind: str = "ser") -> Json:
    cert = _cert(source, formula, [], [], kind=kind)
    del cert["ltl"]
    cert["verdict"], cert["always"] = "ltl_holds", {"formula": formula}
    return cert


def test_g_p_over_globals_for_any_number_of_requests() -> None:
    res = check_certificate(json.dumps(_always(LOCK, "G (L == 0 || L == 1)")))
    assert res.status == "valid", res.message
    assert [o.name for o in res.obligations][-3:] == ["ltl-formula", "closure", "always"]


def test_a_false_g_p_is_rejected() -> None:
    message = _rejected(_always(OVERDRAFT, "G (A >= 0)"), "always", "E-LTL-ALWAYS")
    assert "violates p" in message


@pytest.mark.parametrize("formula", ["F (L == 0)", "G (inflight(main) <= 1)",
                                     "G F (L == 0)", "L == 0", "G (done(main) >= 0)"])
def test_only_g_p_over_globals_is_an_unbounded_claim(formula: str) -> None:
    _rejected(_always(LOCK, formula), "ltl-formula", "E-LTL-FORMULA")


def test_an_unbounded_claim_needs_a_ser_program_and_a_finite_closure() -> None:
    _rejected(_always(MUTEX, "G true", kind="ns-json"), "ltl-formula", "E-LTL-FORMULA")
    unbounded = "request incr { X := X + 1 }\n"
    # the closure grows to the state bound first (about 40 s here): a budget that a
    # loaded machine does not cut short
    res = check_certificate(json.dumps(_always(unbounded, "G (X >= 0)")), timeout_s=600)
    assert res.status == "unusable" and res.code == "E-MODEL", res.message


def test_red_team_findings_are_clean_rejections() -> None:
    """An integer literal beyond Python's digit limit, and a count of a request the model
    does not have (a typo would otherwise make a vacuous violation)."""
    huge = _livelock()
    huge["ltl"]["formula"] = "G (L <= " + "9" * 5000 + ")"
    _rejected(huge, "ltl-formula", "E-LTL-FORMULA")
    typo = _cert(LOCK, "F done(nosuch) >= 1", [], [], k=1)
    assert "no request of the model is named nosuch" in _rejected(typo, "ltl-formula",
                                                                  "E-LTL-FORMULA")
    _rejected(_always(LOCK, "G (L <= " + "9" * 5000 + ")"), "ltl-formula", "E-LTL-FORMULA")


@pytest.mark.parametrize("formula", ["F " * 3000 + "L == 7", "(" * 4000 + "L == 7" + ")" * 4000])
def test_a_deeply_nested_formula_is_refused_before_parsing(formula: str) -> None:
    """3,000 nested F once made the checker's Earley parser grow by 31 MB/s: bounded
    before parsing, it is refused at once (E-LIMIT, exit 2)."""
    import hashlib
    import time

    from checker.api import check_certificate

    src = "request main { L := 7; 0 }"
    cert = {"format": "ser-certificate/1",
            "model": {"kind": "ser", "source": src,
                      "sha256": hashlib.sha256(src.encode()).hexdigest()},
            "verdict": "ltl_violated", "producer": {"tool": "t", "version": "1"},
            "ltl": {"formula": formula[:10_000], "requests": 1, "fairness": "none",
                    "prefix": [], "loop": []}}
    start = time.monotonic()
    r = check_certificate(cert, timeout_s=60)
    assert r.status == "unusable" and r.code == "E-LIMIT", r.message
    assert time.monotonic() - start < 10
