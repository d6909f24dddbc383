"""The deadlock section (docs/certificates.md, "Deadlock"): the archived AB/BA certificate
passes, and hand-built forgeries of its section are rejected with stable codes."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from checker.api import check_certificate
from checker.certificate import Limits
from checker.deadlock import deadlock
from checker.errors import CheckerError
from tests.checker import certs
from tests.checker.forgeries import rehash

ROOT = Path(__file__).resolve().parents[2]
ABBA = ROOT / "certificates" / "deadlock-abba.ser.cert.json"

Json = dict[str, Any]


@pytest.fixture(scope="module")
def abba() -> Json:
    cert: Json = json.loads(ABBA.read_text(encoding="utf-8"))
    return cert


def _check(cert: Json) -> tuple[str, str | None]:
    r = check_certificate(json.dumps(cert), timeout_s=30)
    return r.status, r.code


def test_the_abba_deadlock_is_accepted(abba: Json) -> None:
    r = check_certificate(json.dumps(abba), timeout_s=30)
    assert r.status == "valid", r.message
    names = [o.name for o in r.obligations]
    assert names[-2:] == ["deadlock-replay", "deadlock-stuck"]
    assert "2 requests wait forever at global {A=1,B=1}" in r.obligations[-1].detail


def test_the_verdict_does_not_need_the_section(abba: Json) -> None:
    cert = copy.deepcopy(abba)
    del cert["deadlock"]
    assert _check(cert) == ("valid", None)


def _drop_last_step(d: Json) -> None:  # ba never takes B: it is in flight at its start
    d["events"].pop()


def _only_ab(d: Json) -> None:  # ab alone holds A: its wait for B can end (B = 0)
    d["events"] = d["events"][:2]
    d["global"] = "{A=1}"
    d["blocked"] = d["blocked"][:1]


def _unknown_local(d: Json) -> None:
    d["events"][1]["to"][0] = "({}, no such state)"


def _wrong_global(d: Json) -> None:
    d["global"] = "{A=1,B=0}"


def _blocked_twice(d: Json) -> None:
    d["blocked"].append(dict(d["blocked"][0]))


def _wrong_request(d: Json) -> None:
    d["blocked"][0]["request"] = "ba"


def _missing_blocked(d: Json) -> None:
    d["blocked"].pop()


def _instance_reused(d: Json) -> None:
    d["events"][2]["instance"] = 1


FORGERIES: dict[str, tuple[Callable[[Json], None], str]] = {
    "a step left out": (_drop_last_step, "E-DEADLOCK"),
    "a blocked request that can step": (_only_ab, "E-DEADLOCK"),
    "a state the model lacks": (_unknown_local, "E-REPLAY"),
    "another global": (_wrong_global, "E-DEADLOCK"),
    "a blocked request listed twice": (_blocked_twice, "E-DEADLOCK"),
    "a blocked request with the wrong name": (_wrong_request, "E-DEADLOCK"),
    "a request in flight not listed": (_missing_blocked, "E-DEADLOCK"),
    "an instance number reused": (_instance_reused, "E-REPLAY"),
    "an instance that is a string": (lambda d: d["blocked"][0].update(instance="1"),
                                     "E-SCHEMA"),
    "an instance that is 0": (lambda d: d["blocked"][0].update(instance=0), "E-SCHEMA"),
    "nothing blocked": (lambda d: d.update(blocked=[]), "E-SCHEMA"),
    "an unknown member": (lambda d: d.update(extra=1), "E-SCHEMA"),
    "a global that is a number": (lambda d: d.update({"global": 3}), "E-SCHEMA"),
    "a huge instance number": (lambda d: d["blocked"][0].update(instance=2**70), "E-LIMIT"),
    "a huge event instance": (lambda d: d["events"][0].update(instance=2**64), "E-LIMIT"),
}


@pytest.mark.parametrize("label", sorted(FORGERIES))
def test_forged_sections_are_rejected(abba: Json, label: str) -> None:
    forge, code = FORGERIES[label]
    cert = copy.deepcopy(abba)
    forge(cert["deadlock"])
    status, got = _check(cert)
    expected = "invalid" if code in ("E-DEADLOCK", "E-REPLAY") else "unusable"
    assert (status, got) == (expected, code), label


def test_a_section_on_a_proof_where_nothing_is_stuck() -> None:
    """intro-lock: the holder of the lock can go on, so its section is a forgery."""
    cert = certs.reduction_intro_lock()
    start, held = certs.INTRO_LOCK_START, certs.INTRO_LOCK_HELD
    cert["deadlock"] = {
        "events": [{"event": "spawn", "instance": 1, "request": "main", "local": start},
                   {"event": "step", "instance": 1, "from": [start, "{}"],
                    "to": [held, "{L=1,X=1}"]}],
        "global": "{L=1,X=1}",
        "blocked": [{"instance": 1, "request": "main", "local": held}],
    }
    assert _check(cert) == ("invalid", "E-DEADLOCK")


def test_a_section_on_a_network_system_is_rejected(abba: Json) -> None:
    cert = json.loads((ROOT / "certificates" / "mutex.json.cert.json").read_text())
    cert["deadlock"] = copy.deepcopy(abba["deadlock"])
    assert _check(cert) == ("invalid", "E-DEADLOCK")


def _run(model: Json, section: Json) -> str:
    for _, thunk in deadlock(model, section, Limits(), iter(())):
        thunk()
    return "ok"


def _one_step(request: str, start: str, to: str, glob: str) -> Json:
    """A forged section: one instance of `request` spawns, takes one step from `start` to
    `to` (globals {} to `glob`), and is claimed blocked there."""
    return {"events": [{"event": "spawn", "instance": 1, "request": request, "local": start},
                       {"event": "step", "instance": 1, "from": [start, "{}"],
                        "to": [to, glob]}],
            "global": glob, "blocked": [{"instance": 1, "request": request, "local": to}]}


def test_a_blocked_request_that_can_answer_is_no_deadlock() -> None:
    """`r` takes the lock and could answer 1: it is not stuck, though its every step is."""
    src = "request r { L := 1; yield; 1 }"
    start, done = "({}, L := 1; yield; 1)", "({}, 1)"
    section = _one_step("r", start, done, "{L=1}")
    with pytest.raises(CheckerError) as exc:
        _run({"kind": "ser", "source": src}, section)
    assert exc.value.code == "E-DEADLOCK" and "can answer" in exc.value.message


def test_an_arrival_that_can_free_it_is_no_deadlock() -> None:
    """`w` waits for L, which an arriving `s` would set: not stuck; without `s` it is,
    though an arriving `w` still takes its first step (it changes no global)."""
    src = "request w { X := 1; yield; while (L == 0) { yield }; 0 }\nrequest s { L := 1; 0 }"
    start = "({}, X := 1; yield; while(L == 0){ yield }; 0)"
    wait = "({}, while(L == 0){ yield }; 0)"
    section = _one_step("w", start, wait, "{X=1}")
    with pytest.raises(CheckerError) as exc:
        _run({"kind": "ser", "source": src}, section)
    assert exc.value.code == "E-DEADLOCK" and "can step" in exc.value.message
    src2 = src.replace("request s { L := 1; 0 }", "request s { Y := 1; 0 }")
    assert _run({"kind": "ser", "source": src2}, section) == "ok"


def test_rehashed_model_change_is_caught(abba: Json) -> None:
    """A model where the locks are taken in the same order: the trace no longer replays."""
    cert = copy.deepcopy(abba)
    src = cert["model"]["source"]
    cert["model"]["source"] = src.replace("while (B == 1) { yield };\n  B := 1;\n  yield;",
                                          "while (A == 1) { yield };\n  A := 1;\n  yield;", 1)
    assert cert["model"]["source"] != src
    rehash(cert["model"])
    status, code = _check(cert)
    assert status in ("invalid", "unusable") and code is not None
