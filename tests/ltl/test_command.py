"""`ser-prove ltl`: verdicts with their exit codes, certified violations, bounded holds,
and input errors that are one clear line (exit 2), never a traceback."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from checker.api import check_certificate
from prover.cli import main

ROOT = Path(__file__).resolve().parents[2]
LOCK = str(ROOT / "examples" / "intro-lock.ser")
LIVE = "G (inflight(main) >= 1 -> F done(main) >= 1)"


def _ltl(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["ltl", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_violation_is_certified_and_its_loop_shown(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    cert = tmp_path / "v.json"
    code, out, _ = _ltl(capsys, LOCK, "-f", LIVE, "-k", "2", "-o", str(cert))
    assert code == 1
    assert "VIOLATED" in out and "-- loop: the events below repeat forever --" in out
    res = check_certificate(cert.read_text(encoding="utf-8"))
    assert res.status == "valid" and res.verdict == "ltl_violated", res.message
    assert json.loads(cert.read_text())["ltl"]["formula"] == LIVE


def test_weak_fairness_rules_the_livelock_out(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    cert = tmp_path / "none.json"
    code, out, _ = _ltl(capsys, LOCK, "-f", LIVE, "-k", "2", "--fairness", "weak",
                        "-o", str(cert))
    assert code == 0
    assert "holds for every execution with at most 2 requests (weakly fair ones)" in out
    assert "bounded claim" in out
    assert not cert.exists()


def test_json_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _ltl(capsys, LOCK, "-f", "G (X == 0)", "-k", "1", "--json",
                        "-o", str(tmp_path / "c.json"))
    doc = json.loads(out)
    assert code == 1 and doc["verdict"] == "violated" and doc["bounded"] is True
    assert doc["checker"]["status"] == "valid" and doc["certificate"].endswith("c.json")


@pytest.mark.parametrize(("args", "needle"), [
    (["-f", "G (Q == 0)", "-k", "2"], "unknown global Q"),
    (["-f", "G (inflight(nosuch) == 0)", "-k", "2"], "unknown request nosuch"),
    (["-f", "X (L == 1)", "-k", "2"], "X (next) is not allowed"),
    (["-f", "G L", "-k", "2"], "is not a formula"),
    (["-f", "G (L == ", "-k", "2"], "column"),
    (["-f", "G (L == 0)", "-k", "0"], "--requests must be between 1 and 200"),
    (["-f", "G (L == 0)", "-k", "100000000000000000000"], "--requests must be between"),
    (["-f", "G (L == 0)", "-k", "2", "--timeout", "0"],
     "--timeout: '0': give a number of seconds above 0"),
])
def test_bad_input_is_one_line_and_exit_2(args: list[str], needle: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _ltl(capsys, LOCK, *args)
    assert code == 2, (out, err)
    assert needle in err and "Traceback" not in err


def test_a_missing_model_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _ltl(capsys, "nosuch.ser", "-f", "true", "-k", "1")
    assert code == 2 and "nosuch.ser" in err and "Traceback" not in err


def test_budgets_are_honoured(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # p is not linear: no unbounded proof by an invariant answers before the budgets bite
    model = tmp_path / "count.ser"
    model.write_text("request incr { while (X == 64) { yield }; X := X + 1 }\n"
                     "request decr { while (X == 0) { yield }; X := X - 1 }\n")
    product = "G (inflight(incr) * inflight(decr) >= 0)"
    code, out, _ = _ltl(capsys, str(model), "-f", product, "-k", "3", "--max-states", "50")
    assert code == 3 and "more than 50 product states" in out
    start = time.monotonic()
    code, out, _ = _ltl(capsys, str(model), "-f", product, "-k", "10", "--fairness", "weak",
                        "--timeout", "1", "--max-states", "100000000")
    assert code == 3 and "no verdict within 1 s" in out
    assert time.monotonic() - start < 10


def test_g_p_over_globals_is_proved_for_any_number_of_requests(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cert = tmp_path / "g.json"
    code, out, _ = _ltl(capsys, LOCK, "-f", "G (L == 0 || L == 1)", "-k", "1", "--json",
                        "-o", str(cert))
    doc = json.loads(out)
    assert code == 0 and doc["verdict"] == "holds" and doc["bounded"] is False
    assert check_certificate(cert.read_text(encoding="utf-8")).verdict == "ltl_holds"
    code, out, _ = _ltl(capsys, LOCK, "-f", "G (L == 0)", "-k", "2", "-o", str(cert))
    assert code == 1 and "VIOLATED" in out  # p fails in the closure: the bounded search


def test_a_fair_loop_names_the_request_that_moves(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Two requests spinning on the same states: the loop must show the move of the one
    that fairness needed, not the other's move between the same states."""
    cert = tmp_path / "fair.json"
    code, _, err = _ltl(capsys, str(ROOT / "examples" / "e2-i3.ser"), "-f", "F done(flip) > 0",
                        "-k", "2", "--fairness", "weak", "-o", str(cert))
    assert code == 1, err
    assert check_certificate(cert.read_text(encoding="utf-8")).status == "valid"


def test_a_global_that_is_only_read_is_known(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    model = tmp_path / "y.ser"
    model.write_text("request r { if (Y == 0) { 1 } else { 0 } }\n")
    code, _, err = _ltl(capsys, str(model), "-f", "G (Y == 0)", "-k", "2",
                        "-o", str(tmp_path / "c.json"))
    assert code == 0, err


def test_the_unfolding_engine_certifies_a_violation(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    cert = tmp_path / "u.json"
    code, out, _ = _ltl(capsys, LOCK, "-f", "G inflight(main) <= 1", "-k", "2",
                        "--engine", "unfold", "--json", "-o", str(cert))
    doc = json.loads(out)
    assert code == 1 and doc["verdict"] == "violated" and doc["engine"] == "unfold"
    assert doc["checker"]["status"] == "valid" and doc["events"] >= 1
    assert json.loads(cert.read_text())["producer"]["engine"] == "ltl-unfold"


@pytest.mark.parametrize("engine", ["explicit", "unfold"])
def test_a_safety_violation_under_weak_fairness_has_a_fair_loop(
        engine: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cert = tmp_path / "f.json"
    code, out, _ = _ltl(capsys, LOCK, "-f", "G (X == 0)", "-k", "2", "--fairness", "weak",
                        "--engine", engine, "--json", "-o", str(cert))
    doc = json.loads(out)
    assert code == 1 and doc["checker"]["status"] == "valid"
    assert json.loads(cert.read_text())["ltl"]["fairness"] == "weak"


def test_the_unfolding_engine_gives_a_bounded_hold(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _ltl(capsys, LOCK, "-f", "G (done(main) <= 2)", "-k", "2",
                        "--engine", "unfold")
    assert code == 0 and "bounded claim" in out and "unfolding prefix of" in out


@pytest.mark.parametrize(("formula", "code"), [(LIVE, 1), ("F (X == 1)", 1),
                                               ("G (X == 0 U X == 1)", 1),
                                               ("G (inflight(main) <= 2 W done(main) >= 1)", 0)])
def test_the_unfolding_engine_decides_every_formula(
        tmp_path: Path, formula: str, code: int, capsys: pytest.CaptureFixture[str]) -> None:
    cert = tmp_path / "c.json"
    got, out, _ = _ltl(capsys, LOCK, "-f", formula, "-k", "2", "--engine", "unfold",
                       "--json", "-o", str(cert))
    doc = json.loads(out)
    assert got == code and doc["engine"] == "unfold" and doc["events"] > 0
    assert (doc["checker"] or {}).get("status", "valid") == "valid"


def test_a_global_named_with_an_underscore_first(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """Names starting with `_` are globals (docs/language.md): formulas can name them, in
    the prover's grammar and in the checker's."""
    model = tmp_path / "u.ser"
    model.write_text("request a { _Q := 1 - _Q; yield; _Q := 1 - _Q; 0 }\n")
    cert = tmp_path / "u.json"
    code, out, _ = _ltl(capsys, str(model), "-f", "G _Q == 0", "-k", "1", "--json",
                        "-o", str(cert))
    assert code == 1 and json.loads(out)["checker"]["status"] == "valid"
    code, out, _ = _ltl(capsys, str(model), "-f", "G (_Q <= 1)", "-k", "1", "--json",
                        "-o", str(cert))
    assert code == 0 and json.loads(out)["bounded"] is False


def test_an_atom_no_reachable_state_changes_is_said(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "c.json"
    args = ["ltl", str(LOCK), "--requests", "2", "--formula", "G (X <= 5) && F (L == 1)",
            "-o", str(out)]
    main(args)
    err = capsys.readouterr().err
    assert "`X <= 5` is always true" in err and "`L == 1`" not in err
    main([*args, "--json"])
    data = json.loads(capsys.readouterr().out)
    assert data["constant_atoms"] == [{"atom": "X <= 5", "value": True}]


@pytest.mark.parametrize("spin, ours", [("[] (X <= 1)", "G (X <= 1)"),
                                        ("<> (X == 1)", "F (X == 1)"),
                                        ("[](L == 1 -> <>(L == 0))", "G (L == 1 -> F (L == 0))")])
def test_spins_notation_means_ours(spin: str, ours: str, tmp_path: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    """`[]` and `<>` are G and F, in `ltl` and in the checker's formula reader alike."""
    model = str(ROOT / "examples" / "intro-lock.ser")
    got = []
    for i, f in enumerate((spin, ours)):
        cert = tmp_path / f"{i}.json"
        main(["ltl", model, "-f", f, "-k", "2", "--json", "-o", str(cert)])
        r = json.loads(capsys.readouterr().out)
        got.append(r["verdict"])
        if cert.exists():
            assert check_certificate(cert.read_text()).status == "valid"
    assert got[0] == got[1]


def test_a_bare_invariant_that_holds_gets_no_vacuity_note(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """`[] (X <= 1)` holds because `X <= 1` is always true: that is the answer, not a note
    (it read "the verdict does not depend on them", as a fault); an atom never true in a
    formula that holds is said, since the formula may hold vacuously."""
    out = tmp_path / "c.json"
    assert main(["ltl", LOCK, "-k", "2", "-f", "[] (X <= 1)", "-o", str(out)]) == 0
    assert "note:" not in capsys.readouterr().err
    assert main(["ltl", LOCK, "-k", "2", "-f", "G (X > 5 -> F (L == 1))", "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "`X > 5` is always false" in err and "vacuously" in err
