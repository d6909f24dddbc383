"""Why a proof by an invariant on the net holds, in the program's terms
(prover/certificate/invariant_text.py): the lock, then the conjuncts with the globals
and lines they name, summarized when there are many; in the text and in --json."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from prover.certificate.invariant_text import SHOWN, explain_invariant, render_invariant
from prover.cli import main

ROOT = Path(__file__).resolve().parents[2]


def _place(p: dict[str, object]) -> dict[str, object]:
    return {"place": p}


LOCAL = {"local": ["acquire", "({}, L := 0; 1)"]}
HELD = {"global": "{L=1}"}


def _lines(local: str) -> tuple[int, ...]:
    return (4, 5) if local == "({}, L := 0; 1)" else ()


def _proof(*conj: dict[str, object]) -> dict[str, object]:
    return {"invariant": {"aux": [], "formula": {"and": list(conj)}}}


def test_the_lock_and_its_holder_are_named_with_lines_and_globals() -> None:
    data = explain_invariant(_proof(
        {"cmp": "=", "lhs": _place({"response": ["acquire", "9"]}), "rhs": {"const": 0}},
        {"cmp": "<=", "lhs": _place(LOCAL), "rhs": {"const": 1}},
        {"cmp": "<=", "lhs": _place(LOCAL), "rhs": _place(HELD)},
        {"cmp": ">=", "lhs": {"aux": "y0"}, "rhs": {"const": 0}},
    ), "locked-walk", _lines)
    assert data is not None
    assert data["never_marked"] == 1 and data["counters"] == 1 and data["conjuncts"] == 4
    assert [c["text"] for c in data["lock"]] == ["#acquire@4 ≤ 1"]
    assert data["lock"][0]["lines"] == [4]
    need, = data["holder_needs"]
    assert need["text"] == "#acquire@4 ≤ [L=1]" and need["globals"] == ["L"]
    text = render_invariant(data)
    assert "Lock: at most one request at a time holds it: #acquire@4 ≤ 1   (lines 4)" in text
    assert "[L=1]   (globals L; lines 4)" in text


def test_a_big_invariant_is_summarized() -> None:
    many = [{"cmp": ">=", "lhs": {"aux": f"y{i}"}, "rhs": {"const": 0}} for i in range(25)]
    data = explain_invariant(_proof(*many), "state-equation", _lines)
    assert data is not None and len(data["invariant"]) == SHOWN
    assert data["more"] == 25 - SHOWN and not data["lock"]
    assert f"... and {25 - SHOWN} more (all in the certificate)" in render_invariant(data)


def test_no_invariant_no_explanation() -> None:
    assert explain_invariant({"pairs": []}, "locked-walk", _lines) is None


def test_program_points_come_first_and_locals_tell_points_apart() -> None:
    data = explain_invariant(_proof(
        {"cmp": ">=", "lhs": {"aux": "y0"}, "rhs": {"const": 0}},
        {"cmp": "<=", "lhs": {"sum": [[1, _place({"local": ["r", "({x=1}, 7)"]})],
                                      [-2, {"aux": "y0"}]]}, "rhs": {"const": 3}},
    ), "state-equation", _lines)
    assert data is not None
    assert data["invariant"][0]["text"] == "#r«7»{x=1} - 2·y0 ≤ 3"


@pytest.mark.parametrize("name", ["transfer-amount.ser", "mutex.json"])
def test_a_locked_walk_proof_explains_itself(name: str, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    model = tmp_path / name
    shutil.copy(ROOT / "examples" / name, model)
    assert main([str(model), "--no-locking"]) == 0  # transfer-amount: two-phase locking
    out = capsys.readouterr().out
    assert "Serializable by the locked walk" in out and "Lock: " in out
    assert "Invariant: " in out and "engine: locked-walk" in out
    assert main([str(model), "--json", "--no-locking"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["reduction"] is None and doc["invariant_proof"]["engine"] == "locked-walk"
    assert doc["invariant_proof"]["invariant"]


def test_transfer_amount_names_its_globals(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    model = tmp_path / "transfer-amount.ser"
    shutil.copy(ROOT / "examples" / "transfer-amount.ser", model)
    assert main([str(model), "--json", "--no-locking"]) == 0
    doc = json.loads(capsys.readouterr().out)
    named = {g for c in doc["invariant_proof"]["invariant"] for g in c["globals"]}
    assert named <= {"A", "B", "L", "MOVED"} and named & {"A", "B"}


def test_two_points_of_one_line_never_read_the_same() -> None:
    """`a := 1; yield; b := 2` on one line: two local states at line 4 with the same
    locals are two places, and the explanation must not print them alike."""
    first = {"local": ["r", "({}, a := 1; yield; b := 2; 0)"]}
    second = {"local": ["r", "({}, b := 2; 0)"]}
    data = explain_invariant(_proof(
        {"cmp": "<=", "lhs": {"sum": [[1, _place(first)], [1, _place(second)]]},
         "rhs": {"const": 1}},
        {"cmp": "=", "lhs": _place(first), "rhs": {"const": 0}},
    ), "state-equation", lambda local: (4,))
    assert data is not None
    text, = [c["text"] for c in data["lock"]]
    left, right = text.removesuffix(" ≤ 1").split(" + ")
    assert left != right and left.startswith("#r@4«") and right.startswith("#r@4«")
    alone = explain_invariant(_proof({"cmp": "<=", "lhs": _place(first),
                                      "rhs": {"const": 1}}), "state-equation", lambda _: (4,))
    assert alone is not None and alone["lock"][0]["text"] == "#r@4 ≤ 1"


def test_a_reduction_listing_never_shows_an_r_after_an_n_of_the_same_lines() -> None:
    from prover.certificate.reduction_text import render_reduction

    data = {"requests": [{"request": "audit", "answers_at_once": False, "steps": [
        {"lines": [24], "label": "R"}, {"lines": [25], "label": "R"},
        {"lines": [26, 27, 28], "label": "N"}, {"lines": [26, 27, 28], "label": "R"},
        {"lines": [29], "label": "L"}]}], "invariant": []}
    line = render_reduction(data).splitlines()[-1]
    assert line.strip() == "audit  R line 24, R line 25, R/N lines 26-28, L line 29"


def test_a_place_of_a_request_at_another_requests_code_is_left_out() -> None:
    """The net has a place for every request at every local state: `use` at the owner's
    line 13 is never marked, and the explanation neither names it under `use` nor shows
    a conjunct about such places alone."""
    mine = {"local": ["drop_owner", "({}, O := 0; 0)"]}
    theirs = {"local": ["use", "({}, O := 0; 0)"]}
    owners = {"({}, O := 0; 0)": frozenset({"drop_owner"})}
    data = explain_invariant(_proof(
        {"cmp": "<=", "lhs": {"sum": [[1, _place(mine)], [1, _place(theirs)]]},
         "rhs": {"const": 1}},
        {"cmp": "=", "lhs": _place(theirs), "rhs": _place(theirs)},
    ), "state-equation", lambda local: (13,), lambda t: owners.get(t, frozenset()))
    assert data is not None and data["never_marked"] == 1
    assert [c["text"] for c in data["lock"]] == ["#drop_owner@13 ≤ 1"]
    assert "#use" not in render_invariant(data)
