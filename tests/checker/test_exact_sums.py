"""Consecution conjuncts settled without cvc5 where a conjunct `Σ M(p) = 1` or `Σ M(p) = 0`
the query holds decides them exactly (checker/obligations.py `_sum`, `settled`), and never
where it does not; exclusion asked first from the conjuncts on its global."""

from __future__ import annotations

import json
from typing import Any

import pytest

from checker import obligations
from checker.api import CheckResult, check_certificate
from checker.obligations import _sum
from tests.checker import certs
from tests.checker.helpers import P, const, eq

Json = Any
G0, GL = ("global", "{}"), ("global", "{L=1,X=1}")
BODY = "({}, while(L == 1){ yield }; L := 1; X := 1; yield; y := X; X := 0; L := 0; y)"
MID = ("local", "main", "({}, y := X; X := 0; L := 0; y)")
LOCK = f"step main ({BODY}, {{}}) -> (({{}}, y := X; X := 0; L := 0; y), {{L=1,X=1}})"


def _either(p: Any, q: Any, n: int) -> Json:
    """`p = 0 ∨ q = n`: when p is marked, q holds n requests."""
    return {"or": [eq(P(p), const(0)), eq(P(q), const(n))]}


def _lock(*, held: int = 1) -> Json:
    """intro-lock's proof with `mid = {L=1,X=1}` said per global, as the prover says it:
    `{} = 0 ∨ mid = 0` and `{L=1,X=1} = 0 ∨ mid = held` beside `{} + {L=1,X=1} = 1`."""
    cert = certs.proof_intro_lock()
    parts = cert["proof"]["invariant"]["formula"]["and"]
    assert parts[1] == eq(P(MID), P(GL))
    parts[1:2] = [_either(G0, MID, 0), _either(GL, MID, held)]
    return cert


def _goals(cert: Json, monkeypatch: pytest.MonkeyPatch) -> tuple[CheckResult, dict[str, int]]:
    """The check's result and, per transition, how many conjuncts went to cvc5."""
    asked: dict[str, int] = {}
    real = obligations._consecutive

    def spy(q: Any, smt: Any, key: Any, assumed: list[Any], after: list[Any],
            shown: Any) -> None:
        asked[obligations.transition_text(key)] = len(after)
        real(q, smt, key, assumed, after, shown)

    monkeypatch.setattr(obligations, "_consecutive", spy)
    return check_certificate(json.dumps(cert)), asked


def test_a_unit_sum_settles_the_disjunct_the_step_empties(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    r, asked = _goals(_lock(), monkeypatch)
    assert r.status == "valid", r.message
    # taking the lock: {} was the one marked global, so it is 0 after; `{} = 0 ∨ mid = 0`
    # holds without cvc5, and only `{L=1,X=1} = 0 ∨ mid = 1` (now marked) is asked
    assert asked[LOCK] == 1


def test_a_disjunct_the_step_fills_is_not_settled(monkeypatch: pytest.MonkeyPatch) -> None:
    """Negative: `{L=1,X=1} = 0 ∨ mid = 0` is false after the lock is taken ({L=1,X=1} is
    then 1, not 0): it must reach cvc5, which refutes it."""
    r, asked = _goals(_lock(held=0), monkeypatch)
    assert (r.status, r.code) == ("invalid", "E-CONSECUTION"), r.message
    assert r.message.startswith(f"consecution: {LOCK}: {LOCK} leaves the invariant"), r.message
    assert asked[LOCK] == 1


def _hinted(cert: Json, frm: list[int]) -> Json:
    """`cert` with a hint: the lock's step proves conjuncts 1 and 2 from those of `frm`."""
    step = {"kind": "step", "request": "main", "from": [BODY, "{}"],
            "to": [MID[2], "{L=1,X=1}"]}
    cert["proof"]["invariant"]["hints"] = [
        {"transition": step, "checks": [{"prove": [1, 2], "from": frm}]}]
    return cert


def test_a_hint_that_holds_the_unit_sum_is_helped_by_it(monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    r, asked = _goals(_hinted(_lock(), [0, 1, 2]), monkeypatch)
    assert r.status == "valid", r.message
    assert asked[LOCK] == 1


def test_a_hint_without_the_unit_sum_gets_no_help_from_it(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    """Negative: from conjunct 2 alone, `{} = 0 ∨ mid = 0` does not follow after the step
    (without the unit sum, {} may hold 2): a hint that names too few is rejected, as before
    (the unit sum in I does not rescue it)."""
    r, asked = _goals(_hinted(_lock(), [2]), monkeypatch)
    assert (r.status, r.code) == ("invalid", "E-CONSECUTION"), r.message
    assert asked[LOCK] == 2


def test_a_false_unit_sum_is_rejected_where_it_breaks() -> None:
    """Forged: `{} + body = 1` (true at M0) would settle the lock's disjuncts if trusted; the
    check assumes it only as a conjunct of I, and rejects it at the spawn that breaks it."""
    cert = _lock()
    parts = cert["proof"]["invariant"]["formula"]["and"]
    parts[0] = eq({"sum": [[1, P(G0)], [1, P(("local", "main", BODY))]]}, const(1))
    r = check_certificate(json.dumps(cert))
    assert (r.status, r.code) == ("invalid", "E-CONSECUTION"), r.message
    assert r.message.startswith("consecution: spawn main"), r.message


@pytest.mark.parametrize("c, k, places", [
    (eq(P(G0), const(0)), 0, [G0]),
    (eq({"sum": [[1, P(G0)], [1, P(GL)]]}, const(1)), 1, [G0, GL]),
    (eq({"sum": [[1, P(G0)], [1, P(G0)]]}, const(0)), 0, [G0, G0]),
])
def test_the_exact_shapes(c: Json, k: int, places: list[Any]) -> None:
    assert _sum(c, k) == [P(p)["place"] for p in places]


@pytest.mark.parametrize("c, k", [
    (eq(P(G0), const(0)), 1),  # another constant
    (eq(P(G0), {"const": False}), 0),  # a boolean is no integer
    (eq({"sum": [[1, P(G0)], [1, P(GL)]]}, {"const": True}), 1),
    (eq({"sum": [[2, P(G0)], [1, P(GL)]]}, const(1)), 1),  # a coefficient other than 1
    (eq({"sum": [[1, P(G0)], [-1, P(GL)]]}, const(1)), 1),
    (eq({"sum": [[True, P(G0)], [1, P(GL)]]}, const(1)), 1),
    (eq({"sum": [[1, P(G0)], [1, const(0)]]}, const(1)), 1),  # a term not a place
    (eq({"sum": [[1, P(G0)], [1, {"aux": "x"}]]}, const(1)), 1),
    (eq({"sum": [[1, {"sum": [[1, P(G0)]]}]]}, const(0)), 0),  # nested
    (eq({"sum": []}, const(0)), 0),  # no places: nothing to set
    (eq(const(0), P(G0)), 0),  # the sides swapped
    (eq({"ite": [True, P(G0), P(G0)]}, const(0)), 0),
    ({"cmp": "<=", "lhs": P(G0), "rhs": const(0)}, 0),
    ({"cmp": ">=", "lhs": {"sum": [[1, P(G0)], [1, P(GL)]]}, "rhs": const(1)}, 1),
    ({"not": eq(P(G0), const(1))}, 0),
    ({"and": [eq(P(G0), const(0))]}, 0),
    (True, 0),
])
def test_other_shapes_are_left_to_cvc5(c: Json, k: int) -> None:
    assert _sum(c, k) == []


# ------------------------------------------------------------------------ exclusion


def _pairs(cert: Json) -> Json:
    """`cert` on the NS restricted to the pairs that co-occur (mid never with {})."""
    cert["proof"] = {"pairs": [[BODY, "{L=1,X=1}"], [BODY, "{}"], [MID[2], "{L=1,X=1}"]],
                     **cert["proof"]}
    formula = cert["proof"]["invariant"]["formula"]  # names the restricted net lacks
    formula["and"] = [f for f in formula["and"] if "0)" not in json.dumps(f)
                      and "\"0\"]" not in json.dumps(f)]
    return cert


def test_an_exclusion_settled_by_the_conjuncts_on_its_global() -> None:
    r = check_certificate(json.dumps(_pairs(_lock())))
    assert r.status == "valid", r.message
    ex = next(o for o in r.obligations if o.name == "exclusion: {}")
    assert ex.detail == "1 unlisted locals excluded by the conjuncts on {}"


def test_an_exclusion_those_conjuncts_do_not_settle_asks_the_whole_invariant() -> None:
    """intro-lock's own `mid = {L=1,X=1}` does not name {}: the first query is sat, and the
    one with the whole invariant excludes mid, as before."""
    r = check_certificate(json.dumps(_pairs(certs.proof_intro_lock())))
    assert r.status == "valid", r.message
    ex = next(o for o in r.obligations if o.name == "exclusion: {}")
    assert ex.detail == "1 unlisted locals excluded"


def test_an_exclusion_that_fails_is_rejected_after_both_queries() -> None:
    """Forged: the waiting request (body at {L=1,X=1}) left out of the pairs does co-occur:
    neither the conjuncts on {L=1,X=1} nor the whole invariant exclude it."""
    cert = _pairs(_lock())
    cert["proof"]["pairs"].remove([BODY, "{L=1,X=1}"])
    r = check_certificate(json.dumps(cert))
    assert (r.status, r.code) == ("invalid", "E-EXCLUSION"), r.message
