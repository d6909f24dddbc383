"""`assert(e)` (docs/language.md, "Assertions") and the assertion claim (docs/certificates.md,
"Assertions"): the prover's certificate of a failing assertion passes, and hand-built
forgeries, grafts onto twins whose assertion holds, and wrong types are rejected."""

from __future__ import annotations

import copy
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from checker.api import check_certificate
from checker.model import expr_text, parse_source
from prover.certificate.assertion import assertion_certificate
from prover.engines.assertions import find_assertion_failure, has_assertion
from prover.frontend.load import load_model
from prover.frontend.parser import parse
from tests.checker.forgeries import rehash
from tests.strategies import ser_programs

Json = dict[str, Any]

# Two requests inside at once break the assertion: a 2-request failure.
COUNTER = """request enter {
  n := IN; IN := n + 1;
  yield;
  assert(IN <= 1);
  IN := IN - 1;
  n
}
"""
# The same with a lock: the assertion holds.
LOCKED = """request enter {
  while (M == 1) { yield }; M := 1;
  IN := IN + 1;
  yield;
  assert(IN <= 1);
  IN := IN - 1;
  M := 0;
  0
}
"""
# A request that fails at its very first step once another has run.
FIRST = "request once { assert(X == 0); X := 1; 0 }\n"


def _certificate(tmp_path: Path, source: str, name: str = "m.ser") -> Json | None:
    path = tmp_path / name
    path.write_text(source, encoding="utf-8")
    model = load_model(path, lazy=True)
    assert model.steps is not None and has_assertion(model.steps.program)
    found = find_assertion_failure(model.steps).failure
    return None if found is None else assertion_certificate(model, found)


@pytest.fixture
def counter(tmp_path: Path) -> Json:
    cert = _certificate(tmp_path, COUNTER)
    assert cert is not None
    return cert


def _check(cert: Json) -> tuple[str, str | None]:
    r = check_certificate(json.dumps(cert), timeout_s=30)
    return r.status, r.code


def test_a_failing_assertion_is_certified_and_accepted(counter: Json) -> None:
    r = check_certificate(json.dumps(counter), timeout_s=30)
    assert r.status == "valid", r.message
    assert [o.name for o in r.obligations][-2:] == ["assertion-replay", "assertion-fails"]
    assert counter["verdict"] == "assertion_violated"
    section = counter["assertion"]
    assert section["global"] == "{IN=2}" and section["request"] == "enter"
    assert "if(IN <= 1){0}else{exit}" in section["local"]


def test_a_request_that_fails_at_its_first_step_ends_the_trace_with_its_arrival(
        tmp_path: Path) -> None:
    cert = _certificate(tmp_path, FIRST)
    assert cert is not None
    assert cert["assertion"]["events"][-1]["event"] == "spawn"
    assert _check(cert) == ("valid", None)


def test_no_failure_is_claimed_where_the_assertion_holds(tmp_path: Path) -> None:
    path = tmp_path / "locked.ser"
    path.write_text(LOCKED, encoding="utf-8")
    model = load_model(path, lazy=True)
    assert model.steps is not None
    search = find_assertion_failure(model.steps)
    assert search.failure is None and search.complete  # two states: nobody in, one in


@pytest.mark.parametrize("source", [COUNTER, LOCKED, FIRST, "request r { assert(1); 7 }",
                                    "request r { x := ?; assert(x || X); assert(0) }"])
def test_both_tools_write_assert_as_the_same_if(source: str) -> None:
    checker_text = expr_text(parse_source(source)[2][0][1])
    prover_text = parse(source).requests[0].body.text
    assert checker_text == prover_text
    if "IN <= 1" in source:
        assert "if(IN <= 1){0}else{exit}" in checker_text


def _graft(cert: Json, source: str) -> Json:
    out = copy.deepcopy(cert)
    out["model"]["source"] = source
    rehash(out["model"])
    return out


def test_grafted_onto_a_twin_whose_assertion_holds_it_is_rejected(counter: Json) -> None:
    # the same trace replays, but at IN = 2 the twin's assertion `IN <= 2` holds
    twin = COUNTER.replace("assert(IN <= 1)", "assert(IN <= 2)")
    forged = _graft(counter, twin)
    forged["assertion"]["local"] = forged["assertion"]["local"].replace("<= 1", "<= 2")
    for ev in forged["assertion"]["events"]:
        for key in ("local",):
            if key in ev:
                ev[key] = ev[key].replace("<= 1", "<= 2")
        for key in ("from", "to"):
            if key in ev:
                ev[key][0] = ev[key][0].replace("<= 1", "<= 2")
    assert _check(forged) == ("invalid", "E-ASSERTION")


def test_an_exit_is_not_an_assertion(counter: Json) -> None:
    """A twin that reaches `exit` where the original asserts: the same texts, but the
    checker's semantics says E-FAULT there, not E-ASSERT, so no assertion fails."""
    twin = COUNTER.replace("assert(IN <= 1)", "if (IN <= 1) { 0 } else { exit }")
    status, code = _check(_graft(counter, twin))
    assert status != "valid" and code == "E-FAULT"


def _other_global(c: Json) -> None:
    c["assertion"]["global"] = "{IN=1}"


def _other_instance(c: Json) -> None:
    c["assertion"]["instance"] = 2 if c["assertion"]["instance"] == 1 else 1


def _not_in_flight(c: Json) -> None:
    c["assertion"]["instance"] = 7


def _shorter_trace(c: Json) -> None:  # one request in, at IN = 1: its assertion holds
    events = c["assertion"]["events"]
    first = events[0]["instance"]
    c["assertion"]["events"] = [e for e in events if e["instance"] == first]
    c["assertion"]["instance"] = first
    c["assertion"]["global"] = "{IN=1}"


def _near_name(c: Json) -> None:
    c["assertion"]["request"] = "enter "


def _bad_step(c: Json) -> None:
    step = next(e for e in c["assertion"]["events"] if e["event"] == "step")
    step["to"][1] = "{IN=5}"


@pytest.mark.parametrize("forge,code", [
    (_other_global, "E-ASSERTION"), (_other_instance, "E-ASSERTION"),
    (_not_in_flight, "E-ASSERTION"), (_shorter_trace, "E-ASSERTION"),
    (_near_name, "E-ASSERTION"), (_bad_step, "E-REPLAY")])
def test_forged_sections_are_rejected(counter: Json, forge: Any, code: str) -> None:
    forged = copy.deepcopy(counter)
    forge(forged)
    assert _check(forged) == ("invalid", code)


@pytest.mark.parametrize("value", [1.0, "1", True, None, 2**70, -1, 0])
def test_the_instance_must_be_a_count(counter: Json, value: Any) -> None:
    forged = copy.deepcopy(counter)
    forged["assertion"]["instance"] = value
    status, code = _check(forged)
    assert status != "valid" and code in ("E-SCHEMA", "E-ASSERTION", "E-LIMIT", "E-JSON")


def test_the_verdict_and_its_evidence_go_together(counter: Json) -> None:
    as_serializable = {**copy.deepcopy(counter), "verdict": "serializable"}
    assert _check(as_serializable)[1] == "E-SCHEMA"
    as_counterexample = copy.deepcopy(counter)
    as_counterexample["counterexample"] = {"events": as_counterexample.pop("assertion")[
        "events"], "completed": []}
    assert _check(as_counterexample)[1] == "E-SCHEMA"
    with_deadlock = copy.deepcopy(counter)
    with_deadlock["deadlock"] = {"events": [], "global": "{}", "blocked": [
        {"instance": 1, "request": "enter", "local": "x"}]}
    assert _check(with_deadlock)[1] == "E-SCHEMA"


def test_a_network_system_has_no_assertion_trace(counter: Json) -> None:
    forged = copy.deepcopy(counter)
    forged["model"] = rehash({"kind": "ns-json", "source": json.dumps(
        {"initial_global": "G", "requests": [["r", "L"]], "responses": [["L", "0"]],
         "transitions": []}), "sha256": ""})
    assert _check(forged) == ("invalid", "E-ASSERTION")


# A step with a choice: `?` = 0 fails the assertion at X = 0, `?` = 1 goes on. Run alone
# after r, s answers 9 (with `?` = 1): {r/7, s/9} is serial, and no certificate may say
# otherwise (the red team's F1: the serial search read the whole step as a dead end).
CHOICE = "request r { X := 1; yield; X := 0; 7 }\nrequest s { assert(X == 1 || ?); 9 }\n"
R0, R1 = "({}, X := 1; yield; X := 0; 7)", "({}, X := 0; 7)"
S0 = "({}, if(X == 1 || ?){0}else{exit}; 9)"


def _choice_counterexample(source: str, s0: str) -> Json:
    from checker.semantics import replay
    model = rehash({"kind": "ser", "source": source, "sha256": ""})
    events = [
        {"event": "spawn", "instance": 1, "request": "r", "local": R0},
        {"event": "step", "instance": 1, "from": [R0, "{}"], "to": [R1, "{X=1}"]}]
    sem, _ = replay(model, events, 100, "E-TEST")
    s1 = sem.step(s0, "{X=1}")[0][0]  # s at X = 1: its assertion holds, whatever `?` is
    events += [
        {"event": "spawn", "instance": 2, "request": "s", "local": s0},
        {"event": "step", "instance": 2, "from": [s0, "{X=1}"], "to": [s1, "{X=1}"]},
        {"event": "respond", "instance": 2, "local": s1, "response": "9"},
        {"event": "step", "instance": 1, "from": [R1, "{X=1}"], "to": ["({}, 7)", "{}"]},
        {"event": "respond", "instance": 1, "local": "({}, 7)", "response": "7"}]
    return {"format": "ser-certificate/1", "model": model,
            "verdict": "not_serializable", "producer": {"tool": "hand", "version": "1"},
            "counterexample": {"events": events, "completed": [
                {"request": "r", "response": "7", "count": 1},
                {"request": "s", "response": "9", "count": 1}]}}


@pytest.mark.parametrize("source,s0", [
    (CHOICE, S0),
    (CHOICE.replace("assert(X == 1 || ?)", "t := ?; u := X + 1 / (t + X)"),
     "({}, t := ?; u := X + 1 / (t + X); 9)")])
def test_a_serial_run_that_fails_on_one_choice_only_is_no_dead_end(source: str,
                                                                   s0: str) -> None:
    assert _check(_choice_counterexample(source, s0)) == ("undecided", "E-UNDECIDED")


def test_a_failure_at_the_first_step_is_certified(tmp_path: Path) -> None:
    cert = _certificate(tmp_path, "request s { assert(X == 1); 9 }\n")
    assert cert is not None and cert["assertion"]["events"][-1]["event"] == "spawn"
    assert _check(cert) == ("valid", None)


CONDITIONS = ["X == 0", "Y == 1", "X == Y", "y == 0", "X == 0 || ?", "!(X == 1 && Y == 1)"]


@settings(max_examples=40, deadline=None)
@given(ser_programs(True, ["0", "1"]), st.sampled_from(CONDITIONS), st.integers(0, 1))
def test_random_assertions_are_written_alike_and_their_failures_accepted(
        program: str, cond: str, where: int) -> None:
    """Random programs with an assertion at the start or the end of a request: both tools
    write it out alike, and every failure the search finds is a certificate the checker
    accepts (it replays the trace and sees the assertion fail)."""
    body_at = program.index("{ ") + 2
    if where == 0:
        source = program[:body_at] + f"assert({cond}); " + program[body_at:]
    else:
        source = program.replace(" }", f"; assert({cond}); 0 }}", 1)
    blocks = parse_source(source)[2]
    assert [expr_text(b[1]) for b in blocks] == [r.body.text for r in parse(source).requests]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "m.ser"
        path.write_text(source, encoding="utf-8")
        model = load_model(path, lazy=True)
        assert model.steps is not None and has_assertion(model.steps.program)
        found = find_assertion_failure(model.steps, max_states=2_000).failure
        if found is not None:
            cert = assertion_certificate(model, found)
            assert _check(cert) == ("valid", None), source
