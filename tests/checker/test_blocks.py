"""Reduction proofs with blocks (attempts and sections, docs/certificates.md "Blocks"): the
prover's certificates of the idiom families are valid, and forgeries are rejected with the
obligation they fail named: certificates moved onto the buggy twins, versions that do not
validate, sections whose steps do not reduce, loops that do not undo what they did, blocks
that are not of their form, dead locals kept in a name, hostile values."""

from __future__ import annotations

import copy
import time
from typing import Any

import pytest

from bench.idioms import BY_NAME
from checker.api import check_certificate
from checker.certificate import Limits
from checker.program import parse_program
from checker.steps import enumerate_steps
from prover.certificate.write import make_certificate, producer
from prover.frontend.load import load_source
from prover.reduction.engine import prove_by_reduction
from tests.checker.forgeries import moved, reduction_forgeries

Json = Any
PROVED = ("cas", "occ", "seqlock", "rwcount", "backoff")


def _prove(source: str) -> Json:
    model = load_source(source, "ser", lazy=True)
    attempt = prove_by_reduction(model.steps, deadline=time.monotonic() + 120)
    assert attempt.evidence is not None, attempt.reason
    return make_certificate(model, "serializable", "reduction", attempt.evidence,
                            producer("reduction"))


@pytest.fixture(scope="module")
def proofs() -> dict[str, Json]:
    return {name: _prove(BY_NAME[name].text(2)) for name in PROVED}


def _rejected(cert: Json, codes: tuple[str, ...]) -> str:
    r = check_certificate(cert, timeout_s=60)
    assert r.status != "valid", r.message
    assert r.code in codes, (r.code, r.message)
    return r.obligations[-1].name


@pytest.mark.parametrize("name", PROVED)
def test_the_provers_certificates_are_valid(proofs: dict[str, Json], name: str) -> None:
    cert = proofs[name]
    r = check_certificate(cert, timeout_s=60)
    assert r.status == "valid", r.message
    kinds = {b["kind"] for b in cert["reduction"].get("blocks", [])}
    assert kinds >= ({"attempt"} if name in ("cas", "occ", "seqlock") else {"section"})
    assert [o.name for o in r.obligations][-4:] == ["reduction-attempts", "reduction-sections",
                                                    "reduction-shape", "reduction-movers"]


@pytest.mark.parametrize("name", PROVED)
def test_moved_onto_the_buggy_twin(proofs: dict[str, Json], name: str) -> None:
    """The valid certificate claimed of the twin, as it is and relabelled for its names."""
    twin = BY_NAME[f"{name}-bug"].text(2)
    for forged in reduction_forgeries(proofs[name], twin):
        r = check_certificate(forged, timeout_s=60)
        assert r.status != "valid" and r.code != "E-INTERNAL", (r.code, r.message)


def _states(source: str, domains: Json) -> Any:
    init, blocks = parse_program(source)
    dom = {d["global"]: tuple(range(d["range"][0], d["range"][1] + 1)) if "range" in d
           else tuple(d["values"]) for d in domains}
    return enumerate_steps(blocks, dom, Limits(), [], {})


@pytest.mark.parametrize("name, version", [("cas", "C0"), ("occ", "V0"), ("seqlock", "S")])
def test_an_attempt_grafted_onto_the_twin_is_not_validated(proofs: dict[str, Json], name: str,
                                                           version: str) -> None:
    """The twin's own attempt: its first state the head, what read-only steps reach the
    interior, the version of the correct idiom. The twin's commit does not find it."""
    twin = BY_NAME[f"{name}-bug"].text(2)
    forged = moved(proofs[name], twin)
    red = forged["reduction"]
    steps = _states(twin, red["domains"])
    request = {"cas": "inc0", "occ": "upd0", "seqlock": "read"}[name]
    head = next(e for e in steps.entries if e[0] == request)
    inside = sorted({m.dst for m in steps.moves if m.src[0] == request and m.dst != head
                     and m.dst not in steps.final and m.dst not in steps.entries})
    red["blocks"] = [{"kind": "attempt", "head": list(head), "states": [list(x) for x in inside],
                      "version": version}]
    red["labels"] = [{"local": list(loc), "label": "N"} for loc in sorted(steps.foot)
                     if loc not in inside]
    _rejected(forged, ("E-ATTEMPT", "E-BLOCK", "E-LABEL", "E-SHAPE", "E-MOVER", "E-ESCAPE",
                       "E-CONSECUTION", "E-NAME", "E-DOMAIN"))


def test_a_version_that_does_not_validate(proofs: dict[str, Json]) -> None:
    forged = copy.deepcopy(proofs["occ"])
    for b in forged["reduction"]["blocks"]:
        if b["kind"] == "attempt" and b["version"] == "V0":
            b["version"] = "X0"  # the value is written back by every update: it can repeat
    _rejected(forged, ("E-ATTEMPT",))
    forged["reduction"]["blocks"][0]["version"] = "NOSUCH"
    _rejected(forged, ("E-NAME",))


def test_a_section_labelled_a_mover_it_is_not(proofs: dict[str, Json]) -> None:
    cert = proofs["rwcount"]
    for i, b in enumerate(cert["reduction"]["blocks"]):
        if b["kind"] != "section":
            continue
        for j, lab in enumerate(b["labels"]):
            if lab["label"] == "N":
                forged = copy.deepcopy(cert)
                forged["reduction"]["blocks"][i]["labels"][j]["label"] = "R"
                r = check_certificate(forged, timeout_s=60)
                assert r.status != "valid" or r.code is None, r.message
                if r.status != "valid":
                    assert r.code in ("E-SECTION", "E-SHAPE", "E-MOVER"), (r.code, r.message)
                    return
    pytest.fail("no section commit whose relabelling is caught")


def test_a_loop_that_does_not_undo_its_registration(proofs: dict[str, Json]) -> None:
    """The back-off loop whose failed round forgets to unregister: its rounds are no
    stutter at the top layer, and the certificate of the correct one does not carry it."""
    src = BY_NAME["backoff"].text(2).replace("if (W == 1) { R := R - 1; yield }",
                                             "if (W == 1) { yield }")
    assert src != BY_NAME["backoff"].text(2)
    r = check_certificate(moved(proofs["backoff"], src), timeout_s=60)
    assert r.status != "valid" and r.code != "E-INTERNAL", (r.code, r.message)


def _block_forgery(cert: Json, edit: Any) -> Json:
    forged = copy.deepcopy(cert)
    edit(forged["reduction"]["blocks"])
    return forged


def test_blocks_not_of_their_form(proofs: dict[str, Json]) -> None:
    cert = proofs["cas"]
    blocks = cert["reduction"]["blocks"]
    entry = blocks[0]["head"]
    # a state in two blocks
    _rejected(_block_forgery(cert, lambda b: b.append({"kind": "section",
                                                       "states": [b[0]["states"][0]],
                                                       "labels": []})), ("E-BLOCK",))
    # a request's first state inside a block
    _rejected(_block_forgery(cert, lambda b: b[0]["states"].append(entry)), ("E-BLOCK",))
    # a head inside another block
    _rejected(_block_forgery(cert, lambda b: b.append({"kind": "section", "states": [entry],
                                                       "labels": []})), ("E-BLOCK",))
    # an answering state inside
    final = ["inc0", "({}, 0)"]
    _rejected(_block_forgery(cert, lambda b: b[0]["states"].append(final)), ("E-BLOCK",))


def test_a_dead_local_kept_in_a_name(proofs: dict[str, Json]) -> None:
    """`v` is dead once the seqlock writer has read d: a name that keeps it is no state."""
    cert = proofs["seqlock"]
    forged = copy.deepcopy(cert)
    for lab in forged["reduction"]["labels"]:
        if lab["local"][1].startswith("({}, S := S + 1; 0)"):
            lab["local"][1] = "({d=1}, S := S + 1; 0)"
            break
    else:
        pytest.skip("no label on the writer's release")
    _rejected(forged, ("E-NAME",))


@pytest.mark.parametrize("block", [
    {"kind": "attempt", "head": ["inc0", "x"], "states": [], "version": 1},
    {"kind": "retry", "states": []},
    {"kind": "attempt", "head": ["inc0"], "states": [], "version": "C0"},
    {"kind": "section", "states": [[1, 2]], "labels": []},
    {"kind": "section", "states": [], "labels": [{"local": ["a", "b"], "label": "X"}]},
    {"kind": "attempt", "head": ["inc0", "x"], "states": [], "version": "C0", "replay": []},
])
def test_hostile_blocks(proofs: dict[str, Json], block: Json) -> None:
    forged = copy.deepcopy(proofs["cas"])
    forged["reduction"]["blocks"].append(block)
    _rejected(forged, ("E-SCHEMA", "E-NAME"))


def test_a_huge_number_of_blocks_is_bounded(proofs: dict[str, Json]) -> None:
    forged = copy.deepcopy(proofs["cas"])
    forged["reduction"]["blocks"] += [{"kind": "section", "states": [], "labels": []}] * 700_000
    r = check_certificate(forged, timeout_s=60)
    assert r.status == "unusable" and r.code == "E-LIMIT", (r.code, r.message)


def test_a_commit_that_does_not_read_the_version() -> None:
    """Found by the red team: a commit from a state whose version was last read where the
    head could not read it, and that does not read the version itself, is E-ATTEMPT (it
    was an internal error)."""
    import hashlib

    src = "request p { v := X; yield; u := X + Y; yield; Z := 1; v + u }"
    rest = ("u := X + Y; yield; Z := 1; v + u", "Z := 1; v + u")
    states = [["p", f"({env}, {r})"] for r, envs in zip(rest, (
        ("{v=1}", "{}"), ("{u=2,v=1}", "{u=1,v=1}", "{v=1}", "{u=2}", "{u=1}", "{}")),
        strict=True) for env in envs]
    cert = {"format": "ser-certificate/1", "verdict": "serializable",
            "model": {"kind": "ser", "source": src,
                      "sha256": hashlib.sha256(src.encode()).hexdigest()},
            "producer": {"tool": "tests", "version": "1"},
            "reduction": {"domains": [{"global": g, "range": [0, 1]} for g in "XYZ"],
                          "invariant": True, "labels": [],
                          "blocks": [{"kind": "attempt", "version": "X", "states": states,
                                      "head": ["p", "({}, v := X; yield; " + rest[0] + ")"]}]}}
    assert _rejected(cert, ("E-ATTEMPT",)) == "reduction-attempts"


def _with_groups(proof: Json) -> Json:
    assert "groups" in proof["reduction"], "the prover names groups of these readers"
    return copy.deepcopy(proof)


def test_groups_are_read_as_their_sums(proofs: dict[str, Json]) -> None:
    """A certificate with groups, and the same one with every group written out as the sum
    of its states: both valid."""
    cert = _with_groups(proofs["rwcount"])
    groups = cert["reduction"].pop("groups")

    def expand(f: Any) -> Any:
        if isinstance(f, list):
            return [expand(x) for x in f]
        if not isinstance(f, dict):
            return f
        if "place" in f and "group" in f["place"]:
            return {"sum": [[1, {"place": {"local": loc}}] for loc in groups[f["place"]["group"]]]}
        return {k: expand(v) for k, v in f.items()}

    cert["reduction"]["invariant"] = expand(cert["reduction"]["invariant"])
    assert check_certificate(cert, timeout_s=60).status == "valid"
    assert check_certificate(proofs["rwcount"], timeout_s=60).status == "valid"


@pytest.mark.parametrize("change", ["unknown-state", "index", "drop-state", "extra-state",
                                    "no-groups"])
def test_groups_that_do_not_hold(proofs: dict[str, Json], change: str) -> None:
    cert = _with_groups(proofs["rwcount"])
    groups = cert["reduction"]["groups"]
    if change == "unknown-state":
        groups[0][0] = [groups[0][0][0], groups[0][0][1] + " "]
    elif change == "index":
        cert["reduction"]["invariant"] = {"and": [cert["reduction"]["invariant"], {
            "cmp": ">=", "lhs": {"place": {"group": len(groups)}}, "rhs": {"const": 0}}]}
    elif change == "drop-state":
        groups[0].pop()
    elif change == "extra-state":  # a state the group does not count: its conjuncts break
        others = [g for g in groups[1:] if g[0] not in groups[0]]
        groups[0].append(others[0][0])
    else:
        del cert["reduction"]["groups"]
    _rejected(cert, ("E-NAME", "E-CONSECUTION", "E-INITIATION", "E-MOVER", "E-ESCAPE",
                     "E-ATTEMPT", "E-SECTION"))


def test_groups_on_a_buggy_twin_are_rejected(proofs: dict[str, Json]) -> None:
    cert = _with_groups(proofs["rwcount"])
    cert = moved(cert, BY_NAME["rwcount-bug"].text(2))
    _rejected(cert, ("E-NAME", "E-CONSECUTION", "E-INITIATION", "E-MOVER", "E-ESCAPE",
                     "E-ATTEMPT", "E-SECTION", "E-HASH", "E-LABEL", "E-BLOCK", "E-SHAPE"))
