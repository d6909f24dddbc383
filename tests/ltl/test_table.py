"""The violation table of `ser-prove ltl` (prover/ltl/table.py): source lines, folded
repeats, and a `G p` violation shown up to its first bad state."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prover.cli import main
from prover.ltl.formula import parse_formula
from prover.ltl.table import first_bad, fold, render

ROOT = Path(__file__).resolve().parents[2]
LOCK = str(ROOT / "examples" / "intro-lock.ser")
LIVE = "G (inflight(main) >= 1 -> F done(main) >= 1)"


def _spawn(n: int) -> dict[str, object]:
    return {"event": "spawn", "instance": n, "request": "r", "local": "({}, x)"}


def _step(n: int, g1: str, g2: str) -> dict[str, object]:
    return {"event": "step", "instance": n, "from": ["a", g1], "to": ["b", g2]}


def _no_lines(_: object) -> tuple[int, ...]:
    return ()


def test_identical_consecutive_events_are_folded() -> None:
    events = [_spawn(1), _step(1, "{}", "{}"), _step(1, "{}", "{}"), _step(1, "{}", "{}"),
              _step(2, "{}", "{}")]
    rows = fold(events, _no_lines)
    assert [(r.first, r.count, r.instance) for r in rows] == [(1, 1, 1), (2, 3, 1), (5, 1, 2)]
    text = render({"prefix": events, "loop": []}, _no_lines, None)
    assert any(line.startswith("2-4") and line.endswith("(×3)") for line in text)


def test_the_first_bad_state_of_g_p() -> None:
    f = parse_formula("G (X <= 0)", frozenset({"X"}), frozenset({"r"}))
    events = [_spawn(1), _step(1, "{}", "{X=1}"), _step(1, "{X=1}", "{}")]
    assert first_bad(f, events, "{}") == 2
    assert first_bad(f, events[:1], "{}") is None
    counts = parse_formula("G inflight(r) <= 0", frozenset(), frozenset({"r"}))
    assert first_bad(counts, events, "{}") == 1
    other = parse_formula("F (X >= 1)", frozenset({"X"}), frozenset({"r"}))
    assert first_bad(other, events, "{}") is None  # not G p: the lasso is shown whole


def test_answers_leave_flight_and_count_as_done() -> None:
    f = parse_formula("G done(r) <= 0", frozenset(), frozenset({"r"}))
    events = [_spawn(1), {"event": "respond", "instance": 1, "response": "1"}]
    assert first_bad(f, events, "{}") == 2
    gone = parse_formula("G (inflight(r) >= 1 -> done(r) <= 0)", frozenset(), frozenset({"r"}))
    assert first_bad(gone, events, "{}") is None


def test_the_initial_globals_are_the_programs() -> None:
    """Before any step the globals are the declared ones, not all zero."""
    f = parse_formula("G (A == 100 || inflight(r) == 0)", frozenset({"A"}), frozenset({"r"}))
    assert first_bad(f, [_spawn(1)], "{A=100}") is None
    assert first_bad(f, [_spawn(1)], "{}") == 1
    opaque = [_spawn(1), {"event": "step", "instance": 1, "from": ["a", "free"],
                          "to": ["b", "taken"]}]
    counts = parse_formula("G inflight(r) <= 1", frozenset(), frozenset({"r"}))
    assert first_bad(counts, opaque, None) is None  # an NS's opaque globals are not read


def test_a_g_p_violation_stops_at_its_first_bad_state(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["ltl", LOCK, "-f", "G (L <= 0)", "-k", "2", "-o", str(tmp_path / "c.json")])
    out = capsys.readouterr().out
    assert code == 1
    rows = [line for line in out.splitlines() if line[:3].strip().isdigit()]
    assert len(rows) == 3 and rows[-1].split()[:3] == ["3", "1", "5-8"]
    assert "so G p is violated (the certificate continues the run to a lasso of 8 events)" \
        in out
    cert = json.loads((tmp_path / "c.json").read_text())
    assert len(cert["ltl"]["prefix"]) + len(cert["ltl"]["loop"]) == 8  # the lasso is kept


def test_a_lasso_shows_source_lines_in_text_and_json(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["ltl", LOCK, "-f", LIVE, "-k", "2", "--json", "-o", str(tmp_path / "c.json")])
    doc = json.loads(capsys.readouterr().out)
    assert code == 1 and doc["first_bad_event"] is None
    steps = [e for e in doc["lasso"] if e["event"] == "step"]
    assert steps and all(e["lines"] for e in steps)
    assert steps[-1]["loop"] and steps[-1]["lines"] == [5]  # the waiter spins on line 5
    code = main(["ltl", LOCK, "-f", LIVE, "-k", "2", "-o", str(tmp_path / "d.json")])
    out = capsys.readouterr().out
    assert "  line  " in out and "-- loop: the events below repeat forever --" in out
