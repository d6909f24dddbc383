"""Versions that never wrap (docs/certificates.md, "Versions that never wrap"): the prover
takes out a version that only grows and proves the abstraction; the checker re-derives the
abstraction from its own parse and rejects every claim that breaks one of its rules, most
of them grafted from the correct optimistic update onto a twin that is not serializable."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from checker.program import parse_program
from checker.versions import abstraction
from prover.frontend.versions import candidates, find
from tests.checker.test_parts import _decide, _model, _status

Json = Any

OCC = """request update {
  ok := 0;
  while (ok == 0) {
    v := V; d := D;
    yield;
    if (V == v) { D := (d + 1) % 3; V := v + 1; ok := 1 } else { 0 }
  };
  d
}
request read { D }
"""
# Two records under one version, validated by `!=`, read again after the yield.
TABLE = """global X := 1, Y := 1;
request swap {
  fin := 0;
  while (fin == 0) {
    x := X; y := Y; t := TV;
    yield;
    if (TV == t) { X := y; Y := x; TV := t + 1; fin := 1 } else { 0 }
  };
  x * 10 + y
}
request bump {
  fin := 0;
  while (fin == 0) {
    t := TV; x := X;
    yield;
    if (TV != t) { 0 } else if (x < 2) { X := x + 1; TV := t + 1; fin := 1 }
    else { X := 0; TV := t + 1; fin := 1 }
  };
  x
}
request read {
  fin := 0;
  while (fin == 0) { t := TV; x := X; yield; y := Y; if (TV == t) { fin := 1 } else { 0 } };
  x * 10 + y
}
"""


def _twin(old: str, new: str) -> str:
    assert old in OCC
    return OCC.replace(old, new)


# Each breaks one rule; the comment says whether the twin is serializable at all.
BROKEN = {
    # D written a step after the one that raised V: two updates both answer 0 (not serial)
    "late commit": ("D is written in a step that does not raise V", _twin(
        "D := (d + 1) % 3; V := v + 1; ok := 1", "V := v + 1; yield; D := (d + 1) % 3; ok := 1")),
    "no raise": ("V is written with a value not known above its own", _twin(
        "V := v + 1", "V := v")),
    "version answered": ("is used other than in a version test", _twin("  d\n}", "  v\n}")),
    # an abort answers 0, which no serial run does: not serializable
    "no retry": ("outside a retry loop", """request update {
  v := V; d := D; yield;
  if (V == v) { D := (d + 1) % 3; V := v + 1; 1 } else { 0 }
}
request read { D }
"""),
    "failed round writes": ("a failed round of the retry loop writes a global", _twin(
        "} else { 0 }", "} else { Misses := Misses + 1 }")),
    # counts its rounds: 2 in a run, 1 alone (not serializable)
    "failed round counted": ("a failed round of the retry loop", _twin(
        "v := V; d := D;", "c := c + 1; v := V; d := D;").replace("  d\n}", "  c\n}")),
    "unguarded writer": ("D is written in a step that does not raise V",
                         OCC + "request reset { D := 0 }\n"),
    "test after a yield in its condition": ("V is written with a value not known above", _twin(
        "if (V == v)", "if (V == v && (yield; 1))")),
    # v and d read once, before the loop: after a passing round's raise, no later round's
    # test compares with a value read since (a fact of the first round only)
    "snapshot of the first round only": ("request update:", _twin(
        "ok := 0;\n  while (ok == 0) {\n    v := V; d := D;\n",
        "ok := 0; v := V; d := D;\n  while (ok == 0) {\n")),
    "test in a loop condition": ("a failed round of the retry loop", _twin(
        "while (ok == 0)", "while (ok == 0 && V == v)")),
}


@pytest.fixture(scope="module")
def occ(tmp_path_factory: pytest.TempPathFactory) -> Json:
    status, cert = _decide(tmp_path_factory.mktemp("occ"), OCC)
    assert status == "serializable" and cert["producer"]["engine"] == "versions"
    return cert


def test_the_abstraction_compares_the_data_read_since_and_chooses() -> None:
    initial, requests = parse_program(OCC)
    (init, reqs), problems = abstraction(initial, requests, {"V": ["D"]})
    assert problems == [] and init == ()
    found, why = find(OCC, None)
    assert found is not None and found.versions == (("V", ("D",)),), why
    assert "if(D == d && ?){D := (d + 1) % 3; ok := 1}else{0}" in found.source
    assert "V" not in found.source.replace("request", "")
    assert candidates(requests) == ["V"]


def test_the_provers_certificate_is_valid_and_names_its_versions(occ: Json) -> None:
    assert occ["versions"]["globals"] == [{"version": "V", "guards": ["D"]}]
    assert _status(occ)[0] == "valid"


def test_two_records_under_one_version_and_a_negated_test(tmp_path: Path) -> None:
    status, cert = _decide(tmp_path, TABLE)
    assert status == "serializable" and cert["versions"]["globals"] == [
        {"version": "TV", "guards": ["X", "Y"]}]
    src = cert["versions"]["abstract"]["model"]["source"]
    assert "if(!(X == x && ?)){0}" in src and "if(X == x && (Y == y && ?)){fin := 1}" in src
    assert _status(cert)[0] == "valid"


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_a_twin_that_breaks_a_rule_is_rejected(occ: Json, name: str) -> None:
    """The correct program's versions and abstraction grafted onto the twin: the checker's
    own analysis of the twin finds the broken rule, and names it."""
    why, source = BROKEN[name]
    forged = copy.deepcopy(occ)
    forged["model"] = _model(source)
    status, code, message = _status(forged)
    assert (status, code) == ("invalid", "E-VERSIONS") and why in message, message


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_the_prover_takes_out_no_version_that_breaks_a_rule(name: str) -> None:
    """Either nothing is taken out, or a version whose guards leave out what broke the
    rule (a test of V then only chooses: sound, and the abstraction is not proved)."""
    found, why = find(BROKEN[name][1], None)
    assert found is None and why or found is not None and found.versions == (("V", ()),)


def test_an_abstract_program_that_is_not_the_abstraction_is_rejected(occ: Json) -> None:
    for old, new in (("D == d && ?", "D == d"), ("?", "1"), ("d := D", "d := D + 0")):
        forged = copy.deepcopy(occ)
        inner = forged["versions"]["abstract"]
        source = inner["model"]["source"].replace(old, new)
        assert source != inner["model"]["source"]
        inner["model"] = _model(source)
        status, code, message = _status(forged)
        assert (status, code) == ("invalid", "E-VERSIONS") and "not the model" in message


def test_declarations_that_do_not_fit_are_rejected(occ: Json) -> None:
    cases: list[tuple[list[Json], str]] = [
        ([{"version": "V", "guards": ["D"]}, {"version": "V", "guards": []}], "twice"),
        ([{"version": "V", "guards": ["D", "D"]}], "named twice"),
        ([{"version": "V", "guards": ["V"]}], "named twice"),
        ([{"version": "v", "guards": ["D"]}], "a local"),
        ([{"version": "", "guards": ["D"]}], "a local"),
        ([{"version": "V", "guards": []}], "D is written"),  # D changes unseen: no claim
    ]
    for globals_, why in cases:
        forged = copy.deepcopy(occ)
        forged["versions"]["globals"] = globals_
        status, code, message = _status(forged)
        assert (status, code) == ("invalid", "E-VERSIONS") or status == "invalid", message
        assert why in message or "not the model" in message, (globals_, message)


def test_nesting_and_shapes_the_schema_refuses(occ: Json) -> None:
    nested = copy.deepcopy(occ)
    nested["versions"]["abstract"] = copy.deepcopy(occ)
    wrong = copy.deepcopy(occ)
    wrong["versions"]["globals"][0]["guards"] = "D"
    extra = copy.deepcopy(occ)
    extra["reduction"] = occ["versions"]["abstract"]["reduction"]
    for cert in (nested, wrong, extra):
        assert _status(cert)[:2] == ("unusable", "E-SCHEMA")


def test_the_abstract_programs_own_evidence_is_checked(occ: Json) -> None:
    forged = copy.deepcopy(occ)
    inner = forged["versions"]["abstract"]
    inner["verdict"] = "not_serializable"
    assert _status(forged)[0] in ("unusable", "invalid")
    forged = copy.deepcopy(occ)
    red = forged["versions"]["abstract"]["reduction"]
    red["domains"] = [{"global": "D", "range": [0, 1]}]  # D reaches 2
    status, _, message = _status(forged)
    assert status == "invalid" and message.startswith("abstract program"), message


def test_a_global_that_grows_otherwise_is_named_with_its_lines() -> None:
    """Issue 48, item 3: when a global grows without bound and is not a version that never
    wraps, say which global and which line."""
    seq = ("request write {\n  S := S + 1;\n  yield;\n  A := 1;\n  yield;\n  S := S + 1;\n"
           "  0\n}\nrequest read { s := S; a := A; yield; if (S == s) { a } else { 9 } }\n")
    found, why = find(seq, None)
    assert found is None and "A is written in a step that does not raise S" in why
    assert why.endswith("A is written at line 4"), why
