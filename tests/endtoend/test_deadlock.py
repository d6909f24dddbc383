"""Deadlock reports (docs/cli.md, "Deadlocks"): the search on the per-variable steps, the
warning W-DEADLOCK with its trace in text and --json, --strict, and the certificate's
deadlock section, which the checker accepts; the verdict does not depend on it."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from checker.api import check_certificate
from prover.cli import main
from prover.engines.deadlock import find_deadlock
from prover.frontend.load import load_model, load_source
from tests.checker.test_bounds import bank
from tests.frontend.strategies import PRELUDES, PROGRAMS

ROOT = Path(__file__).resolve().parents[2]
ABBA = ROOT / "examples" / "deadlock-abba.ser"

# ab and ba as in the example, and a request c that keeps arriving and running: they
# still wait forever (c never touches A or B)
WITH_OTHERS = ABBA.read_text() + "request c {\n  Y := 1 - Y;\n  0\n}\n"
# a request that takes the lock and then waits for it: it waits on itself
SELF = "request r {\n  L := 1;\n  yield;\n  while (L == 1) { yield };\n  0\n}\n"
# w waits for a flag that an arriving s sets: no deadlock, whatever arrives
FREED = "request w {\n  X := 1;\n  yield;\n  while (L == 0) { yield };\n  0\n}\n" \
    "request s { L := 1; 0 }\n"
# the locks taken in the same order: no deadlock
ORDERED = ABBA.read_text().replace("while (B == 1) { yield };\n  B := 1;\n  yield;\n  "
                                   "while (A == 1) { yield };\n  A := 1;",
                                   "while (A == 1) { yield };\n  A := 1;\n  yield;\n  "
                                   "while (B == 1) { yield };\n  B := 1;")


def _search(tmp_path: Path, source: str, **kw: Any) -> Any:
    model = tmp_path / "m.ser"
    model.write_text(source)
    steps = load_model(str(model), lazy=True).steps
    assert steps is not None
    return find_deadlock(steps, **kw)


def test_abba_deadlocks_with_two_requests() -> None:
    steps = load_model(str(ABBA), lazy=True).steps
    assert steps is not None
    found = find_deadlock(steps)
    assert found.deadlock is not None and not found.complete
    assert [(b.instance, b.request, b.lines) for b in found.deadlock.blocked] == \
        [(1, "ab", (10,)), (2, "ba", (23,))]
    assert found.deadlock.global_ == "{A=1,B=1}"
    assert [e.kind for e in found.deadlock.events] == ["spawn", "step", "spawn", "step"]
    assert found == find_deadlock(steps)  # deterministic


def test_the_locks_in_one_order_do_not_deadlock(tmp_path: Path) -> None:
    assert ORDERED != ABBA.read_text()
    found = _search(tmp_path, ORDERED)
    assert found.deadlock is None and found.complete and found.states > 1


@pytest.mark.parametrize("source, blocked", [
    (WITH_OTHERS, ["ab", "ba"]),
    (SELF, ["r"]),
    (FREED, None),
])
def test_what_counts_as_a_deadlock(tmp_path: Path, source: str,
                                   blocked: list[str] | None) -> None:
    found = _search(tmp_path, source).deadlock
    assert (found and [b.request for b in found.blocked]) == blocked


def test_the_budget_cuts_the_search(tmp_path: Path) -> None:
    found = _search(tmp_path, ORDERED, max_states=2)
    assert found.deadlock is None and not found.complete and found.states <= 8


def _prove(tmp_path: Path, model: Path, *args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(model), "-o", str(tmp_path / "m.cert.json"), *args])
    return code, out.getvalue(), err.getvalue()


def test_abba_is_serializable_with_a_certified_deadlock(tmp_path: Path) -> None:
    code, out, err = _prove(tmp_path, ABBA)
    assert code == 0 and "deadlock-abba.ser: serializable" in out
    assert "deadlock-abba.ser:10:1: warning[W-DEADLOCK]: deadlock: ab#1 (line 10), ba#2 " \
        "(line 23) wait forever at global {A=1,B=1}" in err
    assert "Deadlock (W-DEADLOCK)" in out and "ab#1 (new)" in out and "ba#2 (new)" in out
    cert = json.loads((tmp_path / "m.cert.json").read_text())
    assert cert["verdict"] == "serializable" and "locking" in cert
    assert [b["request"] for b in cert["deadlock"]["blocked"]] == ["ab", "ba"]
    assert cert["producer"]["warnings"][0]["code"] == "W-DEADLOCK"
    r = check_certificate(json.dumps(cert))
    assert r.status == "valid" and r.obligations[-1].name == "deadlock-stuck"
    assert cert == json.loads((ROOT / "certificates" / "deadlock-abba.ser.cert.json")
                              .read_text())  # the archive is current


def test_json_and_strict(tmp_path: Path) -> None:
    code, out, _ = _prove(tmp_path, ABBA, "--json")
    record = json.loads(out)
    assert code == 0 and record["verdict"] == "serializable"
    assert [w["code"] for w in record["warnings"]] == ["W-DEADLOCK"]
    dl = record["deadlock"]
    assert dl["found"] and dl["global"] == "{A=1,B=1}" and len(dl["steps"]) == 2
    assert [b["lines"] for b in dl["blocked"]] == [[10], [23]]
    code, out, _ = _prove(tmp_path, ABBA, "--json", "--strict")
    assert code == 2 and json.loads(out)["error"]["code"] == "E-STRICT"


def test_no_deadlock_is_no_warning(tmp_path: Path) -> None:
    model = tmp_path / "ordered.ser"
    model.write_text(ORDERED)
    code, out, err = _prove(tmp_path, model, "--json", "--strict")
    record = json.loads(out)
    assert code == 0 and record["warnings"] == [] and "warning" not in err
    assert record["deadlock"]["found"] is False and record["deadlock"]["complete"] is True
    assert "deadlock" not in json.loads((tmp_path / "m.cert.json").read_text())


def test_a_cut_search_says_so(tmp_path: Path) -> None:
    from prover.certificate.deadlock import deadlock_report

    model = tmp_path / "m.ser"
    model.write_text(ORDERED)
    steps = load_model(str(model), lazy=True).steps
    assert steps is not None
    text, data = deadlock_report(steps, find_deadlock(steps, max_states=2))
    assert text.startswith("deadlocks: none found; the search was cut at its budget")
    assert data == {"found": False, "states": data["states"], "complete": False,
                    "max_inflight": 3}
    assert deadlock_report(steps, find_deadlock(steps))[0] == ""


def _proof(model: Path) -> tuple[Any, Any]:
    """The reduction proof's table and Houdini's invariant."""
    from prover.reduction.engine import prove_by_reduction

    steps = load_model(str(model), lazy=True).steps
    assert steps is not None
    attempt = prove_by_reduction(steps)
    assert attempt.evidence is not None and attempt.table is not None
    return attempt.table, attempt.invariant


def test_the_invariant_shows_no_deadlock_for_ordered_locks(tmp_path: Path) -> None:
    """prover/reduction/stuck.py: with the locks in one order, the proof's invariant
    excludes every configuration whose requests only wait, so the search stops (complete:
    for any number of requests); with AB/BA it does not, and the search finds the
    deadlock."""
    from prover.reduction.stuck import deadlock_free

    model = tmp_path / "ordered.ser"
    model.write_text(ORDERED)
    assert deadlock_free(*_proof(model))
    assert not deadlock_free(*_proof(ABBA))
    # eight accounts: the search is cut at its first 2,000 states (decide.py), then the
    # invariant answers for every number of requests (the whole search was cut at 20,000)
    path8 = tmp_path / "bank8.ser"
    path8.write_text(bank(8))
    _, out, _ = _prove(tmp_path, path8, "--json", "--no-locking")  # a reduction proof
    found = json.loads(out)["deadlock"]
    assert found == {"found": False, "states": found["states"], "complete": True,
                     "max_inflight": 3} and 2_000 < found["states"] < 2_100


# SELF, its wait writing a global blindly: a stutter where that global has the value
BLIND = "request r {\n  L := 1;\n  yield;\n  while (L == 1) { Y := 0; yield };\n  0\n}\n"


@pytest.mark.parametrize("source", [WITH_OTHERS, SELF, BLIND])
def test_the_invariant_never_hides_a_deadlock(tmp_path: Path, source: str) -> None:
    from prover.reduction.engine import prove_by_reduction
    from prover.reduction.stuck import deadlock_free

    model = tmp_path / "m.ser"
    model.write_text(source)
    steps = load_model(str(model), lazy=True).steps
    assert steps is not None and find_deadlock(steps).deadlock is not None
    attempt = prove_by_reduction(steps)
    if attempt.table is not None:  # the search finds these (above): the query is sat
        assert not deadlock_free(attempt.table, attempt.invariant)


def _closure(tab: Any, g: int) -> set[int]:
    """The globals that any number of arriving requests reach from `g`: every local found
    stepped at every global found (small programs only: no bound)."""
    globs, locs, grew = {g}, {loc for _, loc in tab.entries}, True
    while grew:
        pairs = [(a, b) for a in locs for b in globs]
        new = [t for a, b in pairs for t in tab.step(a, b)]
        grew = not ({a for a, _ in new} <= locs and {b for _, b in new} <= globs)
        locs |= {a for a, _ in new}
        globs |= {b for _, b in new}
    return globs


def _frozen_agree(source: str) -> int:
    """Over the configurations of up to two requests in flight: whether those in flight
    are frozen, with the closure stopped at the first global where one of them moves,
    is what the whole closure and a look at each of its globals say."""
    from prover.engines.deadlock import Tables, _frozen, _successors
    from prover.errors import SerError

    try:
        steps = load_source(source, "ser", lazy=True).steps
    except SerError:
        return 0
    assert steps is not None
    tab, reach, seen = Tables(steps), {}, {(tab_initial := Tables(steps).initial, ())}
    todo, frozen = [(tab_initial, ())], 0
    while todo and len(seen) < 400:
        g, inflight = todo.pop()
        if inflight:
            locs = {tab.tokens[t][1] for t in inflight}
            expected = all(t == (loc, g2) for g2 in _closure(tab, g) for loc in locs
                           for t in tab.step(loc, g2))
            assert _frozen(tab, g, inflight, reach, [0]) == expected, (source, g, inflight)
            frozen += expected
        for state, _ in _successors(tab, (g, inflight), 2):
            if state not in seen:
                seen.add(state)
                todo.append(state)
    return frozen


def test_a_closure_cut_at_the_first_move_answers_as_the_whole_one() -> None:
    assert _frozen_agree(ABBA.read_text()) and _frozen_agree(SELF)
    assert not _frozen_agree(FREED) and not _frozen_agree(ORDERED)
    _frozen_agree(WITH_OTHERS)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(PRELUDES, PROGRAMS)
def test_frozen_requests_are_found_so_in_any_program(prelude: str,
                                                     reqs: list[tuple[str, str]]) -> None:
    _frozen_agree(prelude + "\n".join(f"request {n} {{ {body} }}" for n, body in reqs))
