"""Deferred steps together with blocks (docs/certificates.md, "Deferred steps", pass 0 and
pass 2½ of "Soundness with blocks"): a ring buffer behind one mutex, written by someone who
never read the prover (bench/blind/b), is proved with sections whose lock waits are
deferred; forgeries of that proof are rejected with the obligation they fail named."""

from __future__ import annotations

import copy
import time
from pathlib import Path
from typing import Any

import pytest

from checker.api import check_certificate
from checker.certificate import Limits
from checker.program import parse_program
from checker.steps import enumerate_steps
from checker.waits import deferred
from prover.certificate.write import make_certificate, producer
from prover.frontend.load import load_source
from prover.reduction.engine import prove_by_reduction
from tests.checker.forgeries import reduction_forgeries

Json = Any
BLIND = Path(__file__).resolve().parents[2] / "bench" / "blind" / "b"


@pytest.fixture(scope="module")
def ring2() -> Json:
    model = load_source((BLIND / "ring2.ser").read_text(encoding="utf-8"), "ser", lazy=True)
    attempt = prove_by_reduction(model.steps, deadline=time.monotonic() + 120)
    assert attempt.evidence is not None, attempt.reason
    return make_certificate(model, "serializable", "reduction", attempt.evidence,
                            producer("reduction"))


def _rejected(cert: Json, codes: tuple[str, ...]) -> None:
    r = check_certificate(cert, timeout_s=60)
    assert r.status != "valid", r.message
    assert r.code in codes, (r.code, r.message)


def test_a_ring_buffer_is_proved_with_sections_and_deferred_waits(ring2: Json) -> None:
    r = check_certificate(ring2, timeout_s=60)
    assert r.status == "valid", r.message
    red = ring2["reduction"]
    assert {b["kind"] for b in red["blocks"]} == {"section"}
    # the first test of the mutex, by either end, is a step into a wait the checker defers;
    # so is a get's whole round on an empty buffer (take M, find nothing, free M, yield)
    init, blocks = parse_program(ring2["model"]["source"])
    dom = {d["global"]: tuple(range(d["range"][0], d["range"][1] + 1)) if "range" in d
           else tuple(d["values"]) for d in red["domains"]}
    steps = enumerate_steps(blocks, dom, Limits(), [], {})
    waits = deferred(steps, dom, [])
    assert {m.src[0] for m in waits} == {"put", "get"}
    assert all(m.read_only() and (m.pre()["M"] == 1 or m.src[0] == "get" and m.pre()["Count"]
                                  == 0) for m in waits)  # fmt: skip


@pytest.mark.parametrize("twin", ["ring2-bug.ser", "ring2-cnt-bug.ser"])
def test_the_proof_moved_onto_a_buggy_twin(ring2: Json, twin: str) -> None:
    """The buggy twins test the count outside the mutex, or lower it after freeing it: the
    proof, as it is and relabelled for the twin's states, is never accepted."""
    for forged in reduction_forgeries(ring2, (BLIND / twin).read_text(encoding="utf-8")):
        r = check_certificate(forged, timeout_s=60)
        assert r.status != "valid" and r.code != "E-INTERNAL", (r.code, r.message)


def test_no_label_of_the_top_layer_is_left_to_the_waits(ring2: Json) -> None:
    """The top layer's labels the prover writes are of steps the checker does not defer:
    without any one of them, a step has no label."""
    for i in range(len(ring2["reduction"]["labels"])):
        forged = copy.deepcopy(ring2)
        del forged["reduction"]["labels"][i]
        _rejected(forged, ("E-LABEL",))


def test_no_label_of_a_section_is_left_to_the_waits(ring2: Json) -> None:
    """The same for the sections' labels of steps that are not dead (entering the section,
    inside it and leaving it): the lock's first test is deferred, taking the lock is not."""
    for i, b in enumerate(ring2["reduction"]["blocks"]):
        seen: set[tuple[str, str, str]] = set()  # one entry per state and label suffices
        for j, lab in enumerate(b["labels"]):
            if lab["label"] == "D" or (key := (*lab["local"], lab["label"])) in seen:
                continue
            seen.add(key)
            forged = copy.deepcopy(ring2)
            del forged["reduction"]["blocks"][i]["labels"][j]
            # a state's own entry gone, its steps left unlabelled must be dead: E-ESCAPE
            _rejected(forged, ("E-LABEL", "E-ESCAPE"))


def test_taking_the_mutex_is_no_left_mover(ring2: Json) -> None:
    """Entering a section (taking M) relabelled L: the section's shape or movers fail."""
    changed = 0
    for i, b in enumerate(ring2["reduction"]["blocks"]):
        for j, lab in enumerate(b["labels"]):
            if lab["label"] == "R":
                forged = copy.deepcopy(ring2)
                forged["reduction"]["blocks"][i]["labels"][j]["label"] = "L"
                _rejected(forged, ("E-SECTION",))
                changed += 1
                break
    assert changed


def test_a_section_left_out(ring2: Json) -> None:
    """Without one of its sections the top layer meets that section's steps one by one: the
    retry round of the full buffer is then no stutter and the labels do not fit."""
    for i in range(len(ring2["reduction"]["blocks"])):
        forged = copy.deepcopy(ring2)
        del forged["reduction"]["blocks"][i]
        _rejected(forged, ("E-LABEL", "E-SHAPE", "E-MOVER", "E-SECTION", "E-BLOCK"))


REDTEAM = Path(__file__).resolve().parents[2].parent / "shared" / "redteam"


@pytest.mark.parametrize("name", ["p01-occ02-lower.ser", "b17-occ02-blindwriter.ser"])
def test_the_red_teams_attempt_models_stay_rejected(name: str) -> None:
    """../shared/redteam: not serializable, and only rule 4 of the attempts stopped forged
    proofs. The proof of the model without its last request (the one that lowers the
    version, or writes blindly) moved onto it, as it is and relabelled for every local state
    in each shape (blocks kept): never accepted, now that steps into waits may be deferred
    beside blocks; nor is a reduction proof of the prover's own."""
    if not REDTEAM.is_dir():
        pytest.skip("../shared/redteam is not there")
    source = (REDTEAM / name).read_text(encoding="utf-8")
    base = source[:source.rstrip().rindex("\nrequest ")] + "\n"
    model = load_source(base, "ser", lazy=True)
    attempt = prove_by_reduction(model.steps, deadline=time.monotonic() + 120)
    assert attempt.evidence is not None, attempt.reason
    valid = make_certificate(model, "serializable", "reduction", attempt.evidence,
                             producer("reduction"))
    assert any(b["kind"] == "attempt" for b in valid["reduction"]["blocks"])
    for forged in reduction_forgeries(valid, source):
        r = check_certificate(forged, timeout_s=60)
        assert r.status != "valid" and r.code != "E-INTERNAL", (r.code, r.message)
    # and the prover's own reduction proves neither
    bad = prove_by_reduction(load_source(source, "ser", lazy=True).steps,
                             deadline=time.monotonic() + 120)
    if bad.evidence is not None:
        cert = make_certificate(load_source(source, "ser", lazy=True), "serializable",
                                "reduction", bad.evidence, producer("reduction"))
        assert check_certificate(cert, timeout_s=60).status != "valid"
