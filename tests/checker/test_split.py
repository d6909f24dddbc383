"""Split requests (docs/certificates.md, "Split requests"): a request whose first
statements name no global and do not yield is proved with a `yield` after them, so an
index chosen by input is known before the first read of a global. The prover splits where
it chooses; the checker re-derives the split program itself and rejects a split that is
not of that form, of a request that is not there, or one the proof does not match."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from checker.api import check_certificate
from checker.model import expr_text
from checker.program import parse_program
from checker.steps import split as checker_split
from prover.frontend.parser import parse
from prover.frontend.split import split, split_program, splittable
from tests.checker.proved import proved, status

Json = Any

# Four counters modulo 2, each updated by a compare-and-swap on the one chosen by input.
CAS = """global C0 := 0, C1 := 1, C2 := 0, C3 := 1;
request inc {
  i := ?(0..3);
  ok := 0;
  while (!ok) {
    if (i == 0) { v := C0 } else if (i == 1) { v := C1 } else if (i == 2) { v := C2 }
    else { v := C3 };
    yield;
    if (i == 0) { if (C0 == v) { C0 := (v + 1) % 2; ok := 1 } else { 0 } }
    else if (i == 1) { if (C1 == v) { C1 := (v + 1) % 2; ok := 1 } else { 0 } }
    else if (i == 2) { if (C2 == v) { C2 := (v + 1) % 2; ok := 1 } else { 0 } }
    else { if (C3 == v) { C3 := (v + 1) % 2; ok := 1 } else { 0 } }
  };
  i * 10 + v
}
request get {
  i := ?(0..3);
  x := C0;  // every case names C0: no independent parts (tests/checker/test_cases.py)
  if (i == 0) { C0 } else if (i == 1) { C1 } else if (i == 2) { C2 } else { C3 }
}
"""


def test_the_local_prefix_is_split_off_alike_in_both_tools() -> None:
    program = parse(CAS)
    _, blocks = parse_program(CAS)
    for r in program.requests:
        assert splittable(r.body)
        assert split(r.body).text == expr_text(checker_split(dict(blocks)[r.name]))
    assert split(program.requests[0].body).text.startswith("i := ?(0..3); ok := 0; yield; ")
    assert not splittable(parse("request r { x := G; i := ?(0..1); i }").requests[0].body)
    assert not splittable(parse("request r { x := 1; G := x; 0 }").requests[0].body)
    assert split_program(program, frozenset({"get"})).requests[0] == program.requests[0]


@pytest.fixture(scope="module")
def cas(tmp_path_factory: pytest.TempPathFactory) -> Json:
    return proved(tmp_path_factory.mktemp("cas"), CAS)



def test_an_index_chosen_by_input_is_proved_split(cas: Json) -> None:
    assert cas["producer"]["engine"] == "reduction"
    assert cas["reduction"]["split"] == ["get", "inc"]
    assert "blocks" in cas["reduction"]  # compare-and-swap attempts, one per counter
    assert status(cas) == ("valid", None)


@pytest.mark.parametrize(("edit", "code"), [
    ("drop the split", "E-NAME"), ("split one only", "E-NAME"),
    ("a request that is not there", "E-NAME"), ("not a name", "E-SCHEMA"),
])
def test_a_split_the_proof_does_not_match_is_rejected(cas: Json, edit: str, code: str) -> None:
    cert = copy.deepcopy(cas)
    claim = cert["reduction"]
    if edit == "drop the split":
        del claim["split"]
    elif edit == "split one only":
        claim["split"] = ["inc"]
    elif edit == "a request that is not there":
        claim["split"] = ["get", "inc", "put"]
    else:
        claim["split"] = [1]
    r = check_certificate(cert, timeout_s=120)
    assert r.status != "valid" and r.code == code, (edit, r.code)
    if edit == "a request that is not there":
        assert "no request 'put'" in r.message  # the name that is not there, not another


def test_a_request_without_a_local_prefix_cannot_be_split(tmp_path: Path) -> None:
    src = "request r { X := 1; 0 }\n"
    cert = {"format": "ser-certificate/1", "verdict": "serializable",
            "producer": {"tool": "t", "version": "0"},
            "model": {"kind": "ser", "path": "r.ser", "source": src},
            "reduction": {"domains": [{"global": "X", "range": [0, 1]}], "invariant": True,
                          "labels": [], "split": ["r"]}}
    import hashlib

    cert["model"]["sha256"] = hashlib.sha256(src.encode()).hexdigest()  # type: ignore[index]
    assert status(cert) == ("invalid", "E-SPLIT")
