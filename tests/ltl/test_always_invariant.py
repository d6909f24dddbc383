"""`G p` for any number of requests by an inductive invariant on per-variable steps
(`always.invariant`): the prover finds one with counts, the checker proves it again, and
hand-built forgeries (false claims that are well-formed, swapped claims, names that almost
match, non-linear or temporal p, lying domains, float spellings) are all refused."""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from checker.api import check_certificate
from prover.cli import main
from prover.ltl.formula import parse_formula
from prover.ltl.inductive import invariant_certificate

LOCKED = """\
request deposit0 {
    while (L == 1) { yield }; L := 1; if (A0 == 2) {0} else { A0 := A0 + 1 }; L := 0;
    0
}
request move0 {
    while (L == 1) { yield }; L := 1;
    if (A0 == 0) {0} else { if (A1 == 2) {0} else { A0 := A0 - 1; yield; A1 := A1 + 1 } };
    L := 0;
    0
}
request audit {
    while (L == 1) { yield }; L := 1; s := 0; s := s + A0; yield; s := s + A1; L := 0;
    s
}
"""
GLOBALS = frozenset({"L", "A0", "A1"})
REQUESTS = frozenset({"deposit0", "move0", "audit"})


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("always") / "locked.ser"
    path.write_text(LOCKED, encoding="utf-8")
    return path


def _prove(model: Path, text: str) -> dict[str, Any] | None:
    return invariant_certificate(str(model), text, parse_formula(text, GLOBALS, REQUESTS))


@pytest.fixture(scope="module")
def valid(model: Path) -> dict[str, Any]:
    cert = _prove(model, "G (L <= inflight(audit) + inflight(move0) + inflight(deposit0))")
    assert cert is not None
    return cert


def _check(cert: dict[str, Any]) -> tuple[str, str | None]:
    res = check_certificate(json.dumps(cert))
    return res.status, res.code


@pytest.mark.parametrize("text", [
    "G (L <= 1)",
    "G (L <= inflight(audit) + inflight(move0) + inflight(deposit0))",
    "G (answered(audit, 7) == 0)",
    "G (A0 + A1 <= 4 && L >= 0)",
])
def test_invariants_with_counts_are_found_and_checked(model: Path, text: str) -> None:
    cert = _prove(model, text)
    assert cert is not None
    assert cert["verdict"] == "ltl_holds" and "invariant" in cert["always"]
    res = check_certificate(json.dumps(cert))
    assert res.status == "valid" and res.verdict == "ltl_holds", res.message


def test_a_false_property_gets_no_invariant(model: Path) -> None:
    assert _prove(model, "G (A0 <= 1)") is None  # two deposits make A0 = 2
    assert _prove(model, "G (done(audit) == 0)") is None


def _with(valid: dict[str, Any], *, formula: str | None = None,
          invariant: Any = None, domains: Any = None) -> dict[str, Any]:
    cert = copy.deepcopy(valid)
    if formula is not None:
        cert["always"]["formula"] = formula
    if invariant is not None:
        cert["always"]["invariant"]["formula"] = invariant
    if domains is not None:
        cert["always"]["invariant"]["domains"] = domains
    return cert


def _value(name: str) -> dict[str, Any]:
    return {"place": {"value": name}}


TRUE: dict[str, Any] = {"and": []}
A0_AT_MOST_1 = {"cmp": "<=", "lhs": {"sum": [[1, _value("A0")]]}, "rhs": {"const": 1}}
DOMAINS = [{"global": "A0", "range": [0, 2]}, {"global": "A1", "range": [0, 2]},
           {"global": "L", "range": [0, 1]}]


@pytest.mark.parametrize(("change", "code"), [
    # a claim swapped under a valid proof of another one
    ({"formula": "G (A0 <= 1)"}, "E-LTL-ALWAYS"),
    ({"formula": "G (done(audit) == 0)"}, "E-LTL-ALWAYS"),
    # the invariant dropped: it no longer keeps the lock in its domain
    ({"invariant": TRUE}, "E-ESCAPE"),
    ({"formula": "G (A0 <= 1)", "invariant": A0_AT_MOST_1}, "E-ESCAPE"),
    # names that almost match
    ({"formula": "G (inflight(Audit) == 0)"}, "E-LTL-FORMULA"),
    ({"formula": "G (A2 == 0)"}, "E-LTL-FORMULA"),
    ({"invariant": {"cmp": "<=", "lhs": {"sum": [[1, _value("A2")]]}, "rhs": {"const": 1}}},
     "E-NAME"),
    # not a state formula, or not linear
    ({"formula": "G F (L == 0)"}, "E-LTL-FORMULA"),
    ({"formula": "F (L == 0)"}, "E-LTL-FORMULA"),
    ({"formula": "G (A0 * A1 <= 4)"}, "E-LTL-FORMULA"),
    # domains that lie or are missing
    ({"domains": [{"global": "A0", "range": [0, 1]}, *DOMAINS[1:]]}, "E-NAME"),
    ({"domains": [{"global": "A0", "range": [0, 1]}, *DOMAINS[1:]], "invariant": TRUE},
     "E-ESCAPE"),
    ({"domains": [{"global": "A0", "range": [1, 2]}, *DOMAINS[1:]]}, "E-DOMAIN"),
    ({"domains": DOMAINS[1:]}, "E-DOMAIN"),
    ({"domains": [{"global": "B", "range": [0, 1]}, *DOMAINS]}, "E-NAME"),
    # spellings the schema refuses
    ({"domains": [{"global": "A0", "range": [0, 2.0]}, *DOMAINS[1:]]}, "E-JSON"),
    ({"invariant": {"cmp": "<=", "lhs": {"sum": [[1.0, _value("A0")]]}, "rhs": {"const": 2}}},
     "E-JSON"),
    ({"invariant": {"cmp": "<=", "lhs": {"sum": [[1, _value("A0")]]}, "rhs": {"const": "2"}}},
     "E-SCHEMA"),
    ({"invariant": {"cmp": "<=", "lhs": {"sum": [[1, _value("A0")]]},
                    "rhs": {"const": 10 ** 400}}}, "E-LIMIT"),
])
def test_forgeries_are_refused(valid: dict[str, Any], change: dict[str, Any],
                               code: str) -> None:
    status, got = _check(_with(valid, **change))
    assert status != "valid" and got == code


def test_an_invariant_that_is_not_inductive_is_refused(valid: dict[str, Any]) -> None:
    """False but initial and within the domains: a deposit breaks it."""
    both = {"and": [valid["always"]["invariant"]["formula"], A0_AT_MOST_1]}
    assert _check(_with(valid, formula="G (A0 <= 1)", invariant=both)) == \
        ("invalid", "E-CONSECUTION")


def test_an_invariant_on_a_network_system_is_refused(valid: dict[str, Any]) -> None:
    lock = Path(__file__).resolve().parents[2] / "examples" / "intro-lock.ser"
    cert = copy.deepcopy(valid)
    cert["model"]["kind"] = "ns"
    assert _check(cert)[0] != "valid"
    text = lock.read_text(encoding="utf-8")
    cert["model"] = {**valid["model"], "source": text,
                     "sha256": hashlib.sha256(text.encode()).hexdigest()}
    assert _check(cert) == ("invalid", "E-LTL-FORMULA")  # p names requests it lacks


def test_the_command_proves_g_p_with_counts(model: Path, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    cert = tmp_path / "c.json"
    code = main(["ltl", str(model), "-f", "G (answered(audit, 7) == 0)", "-k", "2",
                 "-o", str(cert)])
    out = capsys.readouterr().out
    assert code == 0 and "with any number of requests" in out, out
    res = check_certificate(cert.read_text(encoding="utf-8"))
    assert res.status == "valid" and res.verdict == "ltl_holds", res.message


def test_a_counting_semaphore_is_bounded_by_its_holders(tmp_path: Path) -> None:
    """S = #inside needs its guarded release shown dead by the law itself."""
    semaphore = Path(__file__).resolve().parents[2] / "examples" / "semaphore.ser"
    text = "G (S <= inflight(worker))"
    cert = invariant_certificate(str(semaphore), text,
                                 parse_formula(text, frozenset({"S"}), frozenset({"worker"})))
    assert cert is not None
    assert check_certificate(json.dumps(cert)).status == "valid"


def test_no_network_system_within_the_bound_is_undecided(
        capsys: pytest.CaptureFixture[str]) -> None:
    lock = Path(__file__).resolve().parents[2] / "examples" / "intro-lock.ser"
    code = main(["ltl", str(lock), "-f", "G (X == 0)", "-k", "2", "--state-bound", "3"])
    out = capsys.readouterr().out
    assert code == 3 and "undecided" in out and "the bounded search needs" in out


def test_an_answer_count_only_p_names_is_at_least_zero(valid: dict[str, Any]) -> None:
    """A true claim on an answer count that the invariant leaves out is still proved: a
    count is ≥ 0 (found by a red-team pass: the counter could go negative)."""
    assert _check(_with(valid, formula="G (answered(audit, 3) >= 0)")) == ("valid", None)
    assert _check(_with(valid, formula="G (answered(audit, 3) + done(move0) >= 0)")) == \
        ("valid", None)


def test_a_refused_claim_shows_its_counter_model(valid: dict[str, Any]) -> None:
    """The state the solver found, in the program's names, not "all variables 0"."""
    res = check_certificate(json.dumps(_with(valid, formula="G (L + A0 <= 0)")))
    assert res.code == "E-LTL-ALWAYS", res.message
    assert "all variables 0" not in res.message
    assert "L=1" in res.message or "A0=" in res.message, res.message


def test_the_prover_proves_what_the_red_team_found_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """ser-prove wrote this proof and its own check refused it (exit 4) before answer
    counts were bounded below."""
    src = tmp_path / "r.ser"
    src.write_text("request r0 { x := 0; while (X == 2) { yield }; yield; Z }\n"
                   "request r1 { x := 0; yield; 0 }\n", encoding="utf-8")
    formula = "G ((done(r0) + inflight(r1) >= inflight(r1)) || (done(r0) + done(r0) == 0))"
    code = main(["ltl", str(src), "-f", formula, "-k", "2", "-o", str(tmp_path / "c.json")])
    out = capsys.readouterr().out
    assert code == 0 and "with any number of requests" in out, out


def test_groups_belong_to_reduction_proofs(valid: dict[str, Any]) -> None:
    """A G p invariant naming a group of local states: there are none here (E-NAME)."""
    group = {"cmp": ">=", "lhs": {"place": {"group": 0}}, "rhs": {"const": 0}}
    assert _check(_with(valid, invariant={"and": [group]}))[1] == "E-NAME"
