"""Cases by input (docs/certificates.md, "Cases by input"): a request that begins by
choosing a local is split into one request per value, and the program so split is proved
(here in independent parts: an `if` that the case's constant input decides names only the
branch it runs). The checker re-derives the split and the parts from its own parse and
rejects every claim that is not exactly them: a case edited, missing, repeated or out of
order, a request renamed, other initial globals, a request that does not begin with its
input, an input set again (so that the parts interfere), and a correct twin's proof
grafted onto a buggy program."""

from __future__ import annotations

import copy
import hashlib
from pathlib import Path
from typing import Any

import pytest

from checker.parts import reached
from checker.program import parse_program
from prover.certificate.write import cases_certificate, parts_certificate
from prover.frontend.cases import find
from prover.frontend.load import load_source
from prover.frontend.parts import part_source, settled_partition
from tests.checker.test_parts import _decide, _model, _status

Json = Any
ROOT = Path(__file__).resolve().parents[2]

# Two counters behind a lock each, the counter chosen by input; an audit of neither.
KEYED = """global A, B, C := 1;
request inc {
  k := ?(0..1);
  if (k == 0) { while (LA == 1) { yield }; LA := 1; x := A; yield; A := (x + 1) % 3; LA := 0 }
  else { while (LB == 1) { yield }; LB := 1; x := B; yield; B := (x + 1) % 3; LB := 0 };
  k * 10 + x
}
request get { C }
"""
# The same with the lock of counter 1 forgotten: two incs of B can both read 0.
BUGGY = KEYED.replace("while (LB == 1) { yield }; LB := 1; ", "").replace("; LB := 0", "")


def _split_cert(tmp_path: Path, source: str) -> Json:
    """The prover's split of `source`, its program proved in its parts, each alone,
    wrapped as a claim."""
    found = find(source, None)
    assert found is not None
    parts = []
    for k, kinds in enumerate(settled_partition(found.source, None)):
        status, part = _decide(tmp_path, str(part_source(found.source, kinds)), f"{k}.ser")
        assert status == "serializable"
        parts.append(part)
    split = parts_certificate(load_source(found.source, "ser", "split.ser", lazy=True), parts)
    model = load_source(source, "ser", "m.ser", lazy=True)
    return cases_certificate(model, [{"request": r, "input": k} for r, k in found.inputs],
                             split)


@pytest.fixture(scope="module")
def keyed(tmp_path_factory: pytest.TempPathFactory) -> Json:
    return _split_cert(tmp_path_factory.mktemp("keyed"), KEYED)


def _with_split_source(cert: Json, source: str) -> Json:
    out = copy.deepcopy(cert)
    out["cases"]["split"]["model"] = _model(source)
    return out


def test_the_split_has_one_request_per_value_and_more_parts() -> None:
    found = find(KEYED, None)
    assert found is not None and found.inputs == (("inc", "k"),)
    assert settled_partition(KEYED, None) == (("inc",), ("get",))
    assert settled_partition(found.source, None) == (("inc_k0",), ("inc_k1",), ("get",))
    _, reqs = parse_program(found.source)
    assert [r for r, _ in reqs] == ["inc_k0", "inc_k1", "get"]
    assert reached(reqs[0][1]) == ({"LA", "A"}, {"LA", "A"})


def test_reached_follows_only_what_the_constants_decide() -> None:
    def globals_of(body: str) -> tuple[set[str], set[str]]:
        return reached(parse_program(f"request r {{ {body} }}")[1][0][1])

    assert globals_of("k := 0; if (k && X) { A := 1 } else { B := 1 }") == ({"X"}, {"B"})
    assert globals_of("k := 2; if (k - 2 || 0) { A := 1 } else { B := 1 }") == (set(), {"B"})
    # set again, divided by zero, or chosen: both branches stay
    assert globals_of("k := 0; k := 1; if (k) { A := 1 } else { B := 1 }")[1] == {"A", "B"}
    assert globals_of("k := 0; if (1 / k) { A := 1 } else { B := 1 }")[1] == {"A", "B"}
    assert globals_of("k := ?(0..1); if (k) { A := 1 } else { B := 1 }")[1] == {"A", "B"}
    assert globals_of("k := 1; if (k == 1) { A := 1 } else { B := 1 }; k := 2")[1] == {"A", "B"}


def test_the_provers_cases_certificate_is_valid(keyed: Json) -> None:
    assert keyed["cases"]["requests"] == [{"request": "inc", "input": "k"}]
    assert "parts" in keyed["cases"]["split"]
    status, _, message = _status(keyed)
    assert status == "valid", message


def test_the_prover_decides_a_keyed_cache_by_cases() -> None:
    path = ROOT / "bench" / "blind" / "a" / "dcl4.ser"
    status, cert = _decide(path.parent, path.read_text(encoding="utf-8"), "dcl4.ser")
    assert status == "serializable" and cert["producer"]["engine"] == "cases"
    assert len(cert["cases"]["split"]["parts"]) == 4


@pytest.mark.parametrize("edit", [
    ("inc_k0 { k := 0;", "inc_k0 { k := 1;"),  # a case for the wrong value
    ("request inc_k1", "request inc_kx"),  # the free name of a case: accepted below
    ("request get { C }", "request got { C }"),  # a kept request renamed: free too
    ("C := 1", "C := 2"),  # other initial globals
])
def test_a_split_program_that_is_not_the_split_is_rejected(keyed: Json, edit: tuple[str, str]
                                                           ) -> None:  # fmt: skip
    source = keyed["cases"]["split"]["model"]["source"]
    assert edit[0] in source
    status, code, message = _status(_with_split_source(keyed, source.replace(*edit)))
    if edit[1] in ("request inc_kx", "request got { C }"):  # names are free (their place maps
        # them back); the nested proof, of the program before the edit, then fails
        assert status != "valid" and code != "E-CASES"
        return
    assert (status, code) == ("invalid", "E-CASES"), message


def test_a_missing_repeated_or_reordered_case_is_rejected(keyed: Json) -> None:
    source = keyed["cases"]["split"]["model"]["source"]
    lines = source.splitlines(keepends=True)
    k0 = next(x for x in lines if x.startswith("request inc_k0"))
    k1 = next(x for x in lines if x.startswith("request inc_k1"))
    for forged in (source.replace(k1, ""), source.replace(k1, k1 + k0.replace("inc_k0", "c2")),
                   source.replace(k0, "@").replace(k1, k0).replace("@", k1)):
        status, code, message = _status(_with_split_source(keyed, forged))
        assert (status, code) == ("invalid", "E-CASES"), message


@pytest.mark.parametrize("requests", [
    [{"request": "get", "input": "k"}],  # no choice first
    [{"request": "inc", "input": "x"}],  # not the input chosen
    [{"request": "inc", "input": "k"}, {"request": "inc", "input": "k"}],  # twice
    [{"request": "nope", "input": "k"}],
])
def test_a_request_that_does_not_begin_with_its_input_is_rejected(keyed: Json,
                                                                  requests: Json) -> None:
    forged = copy.deepcopy(keyed)
    forged["cases"]["requests"] = requests
    status, code, message = _status(forged)
    assert (status, code) == ("invalid", "E-CASES"), message


def test_a_correct_twins_split_grafted_onto_a_buggy_program_is_rejected(keyed: Json) -> None:
    forged = copy.deepcopy(keyed)
    forged["model"] = _model(BUGGY)  # the split is KEYED's, not BUGGY's
    status, code, message = _status(forged)
    assert (status, code) == ("invalid", "E-CASES"), message
    # BUGGY's own split, with KEYED's parts under it: each part's program is not the
    # restriction of BUGGY's split
    found = find(BUGGY, None)
    assert found is not None
    forged = _with_split_source(forged, found.source)
    status, code, message = _status(forged)
    assert (status, code) == ("invalid", "E-PARTS"), message


def test_the_buggy_twin_is_not_serializable(tmp_path: Path) -> None:
    """Found in the split program's part of counter 1, and written (and checked) as a
    counterexample of the model: its cases named by their request."""
    status, cert = _decide(tmp_path, BUGGY)
    assert status == "not_serializable"
    assert {e["request"] for e in cert["counterexample"]["events"] if "request" in e} == {"inc"}
    assert cert["producer"]["engine"] == "explicit"


def test_an_input_set_again_makes_the_parts_interfere(keyed: Json) -> None:
    """A case that sets its input again runs the other branch too: the parts of the split
    program then interfere, and the parts claim nested in it is rejected."""
    source = keyed["cases"]["split"]["model"]["source"]
    again = source.replace("request inc_k0 { k := 0;", "request inc_k0 { k := 0; k := 1;")
    forged = _with_split_source(keyed, again)
    status, code, _ = _status(forged)
    assert status == "invalid" and code in ("E-CASES", "E-PARTS")


def test_a_nested_split_must_prove_serializable(keyed: Json) -> None:
    forged = copy.deepcopy(keyed)
    forged["cases"]["split"]["verdict"] = "not_serializable"
    assert _status(forged)[:2] == ("unusable", "E-SCHEMA")
    forged = copy.deepcopy(keyed)
    forged["cases"]["split"]["cases"] = copy.deepcopy(keyed["cases"])
    assert _status(forged)[:2] == ("unusable", "E-SCHEMA")


def test_the_hash_of_the_split_program_is_checked(keyed: Json) -> None:
    forged = copy.deepcopy(keyed)
    forged["cases"]["split"]["model"]["sha256"] = hashlib.sha256(b"x").hexdigest()
    assert _status(forged)[:2] == ("invalid", "E-HASH")


def test_a_family_kept_whole_is_named_in_core_ser(tmp_path: Path) -> None:
    """The members of a family (`f[0]`) have no name of core Ser: in the split program
    they are `f_0`, `f_1` (names are free, their place maps them back), and each key's
    requests are a part of their own."""
    family = ("const K := 2;\nglobal A[K];\nrequest f[j in 0..K-1] { A[j] := 1; 0 }\n"
              "request g { i := ?(0..K-1); if (i == 0) { A[0] } else { A[1] } }\n")
    found = find(family, {"K": 2})
    assert found is not None and found.origin == (("f_0", "f[0]"), ("f_1", "f[1]"),
                                                  ("g_i0", "g"), ("g_i1", "g"))
    status, cert = _decide(tmp_path, family)
    assert status == "serializable" and cert["producer"]["engine"] == "cases"
