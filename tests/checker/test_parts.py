"""Independent parts (docs/certificates.md, "Independent parts"): the prover splits a
program whose request kinds share no written global and proves each part alone; the
checker re-derives the split and rejects every claim that is not exactly it: parts that
interfere (each alone serializable, the whole not), programs that are not the restriction
(a request edited, reordered, missing, repeated, other initial globals), parts that prove
something else, parts of parts, and a part's own evidence forged."""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from checker.api import check_certificate
from prover.frontend.parser import parse
from prover.frontend.parts import names, part_source, partition
from prover.run import decide

Json = Any

# Each request alone is serializable; together they are not (r reads w's intermediate 1).
INTERFERE = "request w { X := 1; yield; X := 0; 0 }\nrequest r { X }\n"
# The same shape with r on other globals: two independent parts.
APART = "global Y := 2;\nrequest w { X := 1; yield; X := 0; Y }\nrequest r { Z := 1; Y }\n"


def _decide(tmp_path: Path, source: str, name: str = "m.ser", locking: bool = False
            ) -> tuple[str, Json]:  # fmt: skip
    """The prover's verdict and certificate (without the locking claim unless asked: these
    tests read the parts, cases and reduction proofs of lock-based programs)."""
    path = tmp_path / name
    path.write_text(source, encoding="utf-8")
    d = decide.decide(str(path), str(path) + ".cert.json", timeout_s=60, check_timeout_s=30,
                      progress=None, use_proofs=True, locking=locking)
    return d.result.status, None if d.text is None else json.loads(d.text)


def _model(source: str) -> Json:
    return {"kind": "ser", "path": "m.ser", "source": source,
            "sha256": hashlib.sha256(source.encode()).hexdigest()}


def _status(cert: Json) -> tuple[str, str | None, str]:
    r = check_certificate(cert, timeout_s=60)
    return r.status, r.code, r.message


@pytest.fixture(scope="module")
def apart(tmp_path_factory: pytest.TempPathFactory) -> Json:
    status, cert = _decide(tmp_path_factory.mktemp("apart"), APART)
    assert status == "serializable" and "parts" in cert
    return cert


def test_partition_groups_kinds_by_written_globals() -> None:
    program = parse(APART + "request u { Z := Z + 1 }\nrequest c { Y + 1 }\n")
    assert partition(program) == (("w",), ("r", "u"), ("c",))  # Y is only read: a constant
    assert names(program.requests[1].body).writes == frozenset({"Z"})
    assert partition(parse(INTERFERE)) == (("w", "r"),)


def test_part_source_keeps_lines_and_columns() -> None:
    text = part_source(APART, ("r",))
    assert text.count("\n") == APART.count("\n") and len(text) == len(APART)
    assert [r.name for r in parse(text).requests] == ["r"]
    assert parse(text).requests[0].line == 3


def test_the_provers_parts_certificate_is_valid(apart: Json) -> None:
    assert [p["model"]["source"] for p in apart["parts"]] == [
        part_source(APART, ("w",)), part_source(APART, ("r",))]
    status, code, message = _status(apart)
    assert status == "valid", message


def test_parts_that_interfere_are_rejected(tmp_path: Path) -> None:
    """The graft that matters: each request of INTERFERE alone is proved, and the two
    proofs are claimed as the parts of the whole, which is not serializable."""
    assert _decide(tmp_path, INTERFERE, "whole.ser")[0] == "not_serializable"
    parts = [_decide(tmp_path, part_source(INTERFERE, (k,)), f"{k}.ser") for k in ("w", "r")]
    assert [s for s, _ in parts] == ["serializable", "serializable"]
    cert = {"format": "ser-certificate/1", "model": _model(INTERFERE),
            "verdict": "serializable", "producer": {"tool": "forger", "version": "1"},
            "parts": [c for _, c in parts]}
    status, code, message = _status(cert)
    assert (status, code) == ("invalid", "E-PARTS") and "not independent" in message


def _with_part_source(cert: Json, k: int, source: str) -> Json:
    forged = copy.deepcopy(cert)
    forged["parts"][k]["model"] = _model(source)
    return forged


@pytest.mark.parametrize("source", [
    "global Y := 2;\nrequest w { X := 1; yield; X := 0; Y }\n",  # w again, not r
    "global Y := 3;\nrequest r { Z := 1; Y }\n",  # other initial globals
    "global Y := 2;\nrequest r { Z := 2; Y }\n",  # r edited
    "global Y := 2;\nrequest rr { Z := 1; Y }\n",  # a name that almost matches
    "global Y := 2;\nrequest r { Z := 1; Y }\nrequest w { X := 1; yield; X := 0; Y }\n",
])
def test_a_part_that_is_not_the_restriction_is_rejected(apart: Json, source: str) -> None:
    status, code, _ = _status(_with_part_source(apart, 1, source))
    assert (status, code) == ("invalid", "E-PARTS")


def test_a_missing_or_repeated_kind_is_rejected(apart: Json) -> None:
    missing = copy.deepcopy(apart)
    del missing["parts"][1]
    assert _status(missing)[:2] == ("invalid", "E-PARTS")
    repeated = copy.deepcopy(apart)
    repeated["parts"][1] = copy.deepcopy(repeated["parts"][0])
    assert _status(repeated)[:2] == ("invalid", "E-PARTS")


def test_a_part_that_proves_something_else_is_rejected(apart: Json) -> None:
    forged = copy.deepcopy(apart)
    forged["parts"][0]["model"]["kind"] = "ns-json"
    assert _status(forged)[0] != "valid"
    nested = copy.deepcopy(apart)
    nested["parts"][0] = copy.deepcopy(apart)
    assert _status(nested)[:2] == ("unusable", "E-SCHEMA")
    both = copy.deepcopy(apart)
    both["proof"] = apart["parts"][0].get("proof", {})
    assert _status(both)[:2] == ("unusable", "E-SCHEMA")
    empty = copy.deepcopy(apart)
    empty["parts"] = []
    assert _status(empty)[:2] == ("unusable", "E-SCHEMA")


def test_a_parts_claim_of_a_network_system_is_rejected(apart: Json) -> None:
    forged = copy.deepcopy(apart)
    forged["model"]["kind"] = "ns-json"
    assert _status(forged)[:2] == ("invalid", "E-PARTS")


def test_a_forged_part_fails_with_its_own_code(apart: Json) -> None:
    forged = copy.deepcopy(apart)
    forged["parts"][1]["model"]["sha256"] = "0" * 64
    status, code, message = _status(forged)
    assert (status, code) == ("invalid", "E-HASH") and message.startswith("part 2")


def test_a_not_serializable_part_in_a_parts_claim_is_rejected(tmp_path: Path) -> None:
    bad = "request w { X := 1; yield; y := X; X := 0; y }\nrequest r { Z := 1; 0 }\n"
    status, whole = _decide(tmp_path, bad)
    assert status == "not_serializable"
    part = copy.deepcopy(whole)
    part["model"] = _model(part_source(bad, ("w",)))
    ok = _decide(tmp_path, part_source(bad, ("r",)), "r.ser")[1]
    cert = {"format": "ser-certificate/1", "model": _model(bad), "verdict": "serializable",
            "producer": {"tool": "forger", "version": "1"}, "parts": [part, ok]}
    assert _status(cert)[:2] == ("invalid", "E-PARTS")
    part["verdict"] = "serializable"  # then a counterexample proves nothing serializable
    assert _status(cert)[:2] == ("unusable", "E-SCHEMA")


def test_a_parts_check_loads_the_split_and_the_parts_own_claims(apart: Json) -> None:
    """The split's own trusted core is parts.py beside the envelope; each part is checked
    by the modules of its own kind of claim, and nothing else is loaded."""
    from tests.checker.test_cli_and_isolation import CLAIMS, _loaded

    claims = [c for c in CLAIMS if c.startswith("serializable")]
    allowed = set().union(*(CLAIMS[c] for c in claims)) | {"__init__.py"}
    assert "parts.py" in _loaded(apart) <= allowed


def test_a_refused_part_proof_is_a_reason_not_a_verdict(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Every proof refused by the checker (a part's is checked with the whole): no
    verdict, the refusal among the reasons (decided in-process: `decide` is what the
    child runs)."""
    monkeypatch.setattr(decide, "check_text",
                        lambda text, source, timeout, bound=None: ("invalid", "boom"))
    path = tmp_path / "m.ser"
    path.write_text(APART, encoding="utf-8")
    d = decide.decide(str(path), str(path) + ".cert.json", timeout_s=20, check_timeout_s=10,
                      progress=None, use_proofs=True)
    assert d.result.status == "undecided"
    assert "engine parts was not accepted by the checker (invalid: boom)" in d.result.reason
