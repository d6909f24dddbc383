"""`ser-check-cert` exit codes and reports; the checker never loads `prover` or z3."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from checker.cli import main
from tests.checker import certs
from tests.checker.helpers import ROOT


@pytest.fixture(scope="module")
def files(tmp_path_factory: Any) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("certs")
    out = {}
    valid = {"ce": certs.counterexamples()["intro-nonser.ser"], "pf": certs.proof_intro_lock()}
    bad = json.loads(json.dumps(valid["pf"]))
    bad["proof"]["invariant"]["formula"]["and"].pop(2)
    for name, cert in {**valid, "bad": bad}.items():
        out[name] = d / f"{name}.json"
        out[name].write_text(json.dumps(cert))
    out["garbage"] = d / "garbage.json"
    out["garbage"].write_bytes(b"\x00\x01 not json")
    out["model"] = ROOT / "examples" / "intro-nonser.ser"
    return out


def test_exit_codes(files: dict[str, Path], capsys: Any) -> None:
    assert main([str(files["ce"])]) == 0
    assert main([str(files["pf"]), "--timeout", "5"]) == 0
    assert main([str(files["bad"])]) == 1
    assert main([str(files["garbage"])]) == 2
    assert main([str(files["ce"]), "--model", str(files["model"])]) == 0
    assert main([str(files["pf"]), "--model", str(files["model"])]) == 1
    assert main([str(files["ce"]) + ".missing"]) == 2
    assert main([]) == 2
    for bad in ("0", "-1", "nan", "inf", "x"):
        with pytest.raises(SystemExit) as exc:
            main([str(files["ce"]), "--timeout", bad])
        assert exc.value.code == 2
    for bad in ("0", "-5", "1.5"):
        with pytest.raises(SystemExit) as exc:
            main([str(files["ce"]), "--max-depth", bad])
        assert exc.value.code == 2
    with pytest.raises(SystemExit) as exc:
        main(["--no-such-flag"])
    assert exc.value.code == 2
    assert main([str(files["ce"]), "--max-bytes", "10"]) == 2


def test_only_regular_files_are_read(files: dict[str, Path], tmp_path: Path,
                                     capsys: Any) -> None:
    """A FIFO would hang a blocking open; a directory or a device is no certificate."""
    fifo = tmp_path / "cert.json"
    os.mkfifo(fifo)
    for path, why in ((fifo, "not a regular file"), (tmp_path, "is a directory"),
                      (Path("/dev/zero"), "not a regular file")):
        assert main([str(path)]) == 2
        assert main([str(files["ce"]), "--model", str(path)]) == 2
        err = capsys.readouterr().err
        assert err.count(f"error[E-USAGE]: cannot read: {path}: {why}") == 2, err


def test_human_report_names_failure_and_counter_model(files: dict[str, Path], capsys: Any) -> None:
    main([str(files["bad"])])
    out = capsys.readouterr().out
    assert "[FAIL] consecution: respond main at ({}, 0) with 0" in out
    assert "INVALID [E-CONSECUTION]" in out and "pre-state:" in out
    assert "Local(main, ({}, 0))=" in out
    assert "[ok  ] initiation" in out and " ms)" in out


def test_json_report(files: dict[str, Path], capsys: Any) -> None:
    assert main([str(files["pf"]), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == "valid" and data["exit_code"] == 0
    assert {o["name"] for o in data["obligations"]} >= {"initiation", "refutation"}


def test_all_table(files: dict[str, Path], capsys: Any) -> None:
    # an invalid certificate dominates the folder's exit code (then unusable, undecided)
    assert main(["--all", str(files["ce"].parent)]) == 1
    out = capsys.readouterr().out
    assert "ce.json" in out and "valid" in out and "E-CONSECUTION" in out and "E-JSON" in out


def test_never_a_traceback(files: dict[str, Path], tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 200_000)
    for arg in [str(files["garbage"]), str(deep), str(tmp_path), "/dev/null"]:
        p = subprocess.run([sys.executable, "-m", "checker.cli", arg], capture_output=True,
                           text=True, cwd=ROOT)
        assert p.returncode == 2, (arg, p.stdout, p.stderr)
        assert "Traceback" not in p.stderr + p.stdout


def test_fresh_interpreter_loads_neither_prover_nor_z3(files: dict[str, Path]) -> None:
    code = (
        "import sys; from checker.api import check_certificate\n"
        f"r = check_certificate(open({str(files['pf'])!r}).read())\n"
        "assert r.status == 'valid', r.message\n"
        "bad = [m for m in sys.modules if m == 'prover' or m.startswith(('prover.', 'z3'))]\n"
        "assert not bad, bad\n"
        "print('clean')\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0 and "clean" in p.stdout, p.stderr


def test_checker_sources_never_mention_the_prover_or_z3() -> None:
    for f in (ROOT / "checker").glob("*.py"):
        src = f.read_text()
        assert "import prover" not in src and "from prover" not in src, f
        assert "import z3" not in src and "from z3" not in src, f


def _code_lines(names: list[str]) -> int:
    return sum(1 for name in names
               for ln in (ROOT / "checker" / name).read_text(encoding="utf-8").splitlines()
               if ln.strip() and not ln.strip().startswith(("#", "//")))


# (model.py reads lark's tables of ser.lark from checker/ser_tables.json, data that
# tests/checker/test_tables.py matches to the automaton lark builds from the grammar)
ENVELOPE = ["__init__.py", "api.py", "certificate.py", "errors.py", "model.py", "ser.lark",
            "program.py"]
# What an auditor of each kind of claim must trust: the modules its check imports (the
# report and the command line only print), and the grammars they read.
NET = ENVELOPE + ["network.py", "semantics.py", "obligations.py", "serial_model.py",
                  "formula.py", "net.py", "serial.py"]
CLAIMS = {
    "not serializable (counterexamples)": NET + ["serial_search.py"],
    "serializable by an invariant of the net and a serial set": NET + ["linear_sets.py"],
    "serializable by a walk-labelled invariant of the net": NET + ["walk.py"],
    "temporal violations (lassos) and G p over globals": ENVELOPE + [
        "network.py", "semantics.py", "temporal.py", "ltl.py", "ltl.lark"],
    "serializable by reduction": ENVELOPE + ["formula.py", "steps.py", "live.py", "invariant.py",
                                           "waits.py", "reduction.py"],
    "serializable by reduction with blocks (attempts, sections)": ENVELOPE + [
        "formula.py", "steps.py", "live.py", "invariant.py", "layers.py", "waits.py",
        "reduction.py"],
    "G p with counts by an inductive invariant": ENVELOPE + ["formula.py", "steps.py", "live.py",
                                                             "invariant.py", "always.py",
                                                             "ltl.py", "ltl.lark"],
    # the split only: each part's certificate is checked by its own claim's modules
    "serializable in independent parts": ENVELOPE + ["parts.py"],
    # the split only: its certificate is checked by its claim's modules
    "serializable by cases of its inputs": ENVELOPE + ["cases.py"],
    # the rules and the abstraction only: its certificate is checked by its claim's modules
    "serializable by versions that never wrap": ENVELOPE + ["versions.py", "fold.py"],
    "serializable by two-phase locking": ENVELOPE + ["locking.py", "lock_walk.py", "fold.py",
                                                    "live.py"],
    # beside any verdict: checked apart, with the modules of the verdict's own claim
    "deadlocks (a replayed trace after which nothing can move)": ENVELOPE + [
        "semantics.py", "deadlock.py"],
    "a failing assertion (a replayed trace, then a step that fails one)": ENVELOPE + [
        "semantics.py", "assertion.py"],
}


@pytest.mark.parametrize("claim", sorted(CLAIMS))
def test_trusted_core_of_each_claim_stays_small(claim: str) -> None:
    """Readable in an afternoon: under 1,500 lines of code (blank and comment lines not
    counted) in everything an auditor of one kind of claim must trust."""
    assert _code_lines(CLAIMS[claim]) < 1500, _code_lines(CLAIMS[claim])


@pytest.mark.parametrize("claim", sorted(CLAIMS))
def test_trusted_core_of_each_claim_on_an_array_model_stays_small(claim: str) -> None:
    """The same budget for a claim on a model with constants, arrays, request families or
    `for`: checker/program.py then imports the writer of arrays, checker/sizes.py (a core
    model never loads it: tests/frontend/test_sizes.py), and the auditor of such a claim
    must trust it too."""
    core = [*CLAIMS[claim], "sizes.py"]
    assert "sizes.py" not in CLAIMS[claim] and _code_lines(core) < 1500, _code_lines(core)


def _loaded(cert: dict[str, Any]) -> set[str]:
    """The checker's modules a fresh interpreter has loaded after checking `cert`."""
    code = ("import sys, json; from checker.api import check_certificate\n"
            "r = check_certificate(sys.stdin.read())\n"
            "assert r.status == 'valid', r.message\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith('checker.'))))\n")
    p = subprocess.run([sys.executable, "-c", code], input=json.dumps(cert), text=True,
                       capture_output=True, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    return {m.removeprefix("checker.") + ".py" for m in json.loads(p.stdout)}


def _cas_proof() -> Any:
    from bench.idioms import BY_NAME
    from tests.checker.test_blocks import _prove
    cert = _prove(BY_NAME["cas"].text(2))
    assert "blocks" in cert["reduction"]
    return cert


def _lasso() -> Any:
    from tests.checker.test_lasso import _livelock
    return _livelock()


def _always_over_globals() -> Any:
    from tests.checker.test_lasso import LOCK, _always
    return _always(LOCK, "G (L == 0 || L == 1)")


@pytest.mark.parametrize("claim, cert", [
    ("serializable by an invariant of the net and a serial set", certs.proof_intro_lock),
    ("temporal violations (lassos) and G p over globals", _lasso),
    ("temporal violations (lassos) and G p over globals", _always_over_globals),
    ("serializable by a walk-labelled invariant of the net", certs.proof_two_walk),
    ("not serializable (counterexamples)", lambda: certs.counterexamples()["intro-nonser.ser"]),
    ("serializable by reduction", certs.reduction_intro_lock),
    ("serializable by reduction with blocks (attempts, sections)", lambda: _cas_proof()),
    ("G p with counts by an inductive invariant", certs.always_intro_lock),
])
def test_a_check_imports_only_its_claims_modules(claim: str, cert: Any) -> None:
    """The count above is honest: checking a certificate of the kind loads no other
    module of the checker."""
    assert _loaded(cert()) <= set(CLAIMS[claim]) | {"__init__.py"}


def test_an_array_model_loads_the_writer_of_arrays_beside_its_claims_modules() -> None:
    """What the array budget above counts is what an array model's check loads."""
    cert = json.loads((ROOT / "certificates" / "bank-array.ser.cert.json").read_text())
    assert cert["model"]["constants"] and "locking" in cert
    loaded = _loaded(cert)
    assert "sizes.py" in loaded
    assert loaded <= set(CLAIMS["serializable by two-phase locking"]) | {"__init__.py",
                                                                        "sizes.py"}


def test_a_locking_claim_loads_only_its_module() -> None:
    cert = json.loads((ROOT / "certificates" / "intro-lock.ser.cert.json").read_text())
    assert "locking" in cert
    assert _loaded(cert) <= set(CLAIMS["serializable by two-phase locking"]) | {"__init__.py"}


def test_a_versions_claim_loads_its_module_beside_its_abstractions_claims(
        tmp_path: Path) -> None:
    from tests.checker.test_versions import OCC, _decide
    status, cert = _decide(tmp_path, OCC)
    assert status == "serializable" and "reduction" in cert["versions"]["abstract"]
    assert _loaded(cert) <= set(CLAIMS["serializable by reduction with blocks (attempts, "
                                       "sections)"]) | {"versions.py", "fold.py", "__init__.py"}


def test_a_cases_claim_loads_its_module_beside_its_split_programs_claims(
        tmp_path: Path) -> None:
    from tests.checker.test_cases import KEYED, _split_cert
    cert = _split_cert(tmp_path, KEYED)
    parts = cert["cases"]["split"]["parts"]
    assert all("locking" in p or "blocks" not in p["reduction"] for p in parts)
    assert _loaded(cert) <= set(CLAIMS["serializable by reduction"]) | set(
        CLAIMS["serializable by two-phase locking"]) | {"cases.py", "parts.py", "__init__.py"}


def test_a_deadlock_section_loads_only_its_own_module_beside_its_claims() -> None:
    """A proof (two-phase locking) with a deadlock section loads that claim's modules and
    the deadlock claim's, nothing else: the verdict's core does not grow by it."""
    cert = json.loads((ROOT / "certificates" / "deadlock-abba.ser.cert.json").read_text())
    assert "deadlock" in cert and "locking" in cert
    deadlock = set(CLAIMS["deadlocks (a replayed trace after which nothing can move)"])
    assert _loaded(cert) <= set(CLAIMS["serializable by two-phase locking"]) | deadlock
    del cert["deadlock"]
    assert "deadlock.py" not in _loaded(cert)


def test_an_assertion_claim_loads_only_its_own_modules(tmp_path: Path) -> None:
    from tests.checker.test_assertion import COUNTER, _certificate
    cert = _certificate(tmp_path, COUNTER)
    assert cert is not None and cert["verdict"] == "assertion_violated"
    claim = "a failing assertion (a replayed trace, then a step that fails one)"
    assert _loaded(cert) <= set(CLAIMS[claim])


def test_a_lasso_check_never_reads_the_smt_net_or_automaton_modules() -> None:
    """What the lasso auditor skips must not run: the lasso path imports none of them."""
    code = (
        "import sys, json\n"
        "import checker.temporal\n"
        "bad = [m for m in ('checker.formula', 'checker.net', 'checker.serial',"
        " 'checker.serial_search') "
        "if m in sys.modules]\n"
        "print(bad)\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "[]"


def test_interrupt_is_one_line(files: dict[str, Path]) -> None:
    code = ("import os, signal, sys\nfrom checker import cli\n"
            "def slow(*a, **k):\n    os.kill(os.getpid(), signal.SIGTERM)\n"
            "    raise AssertionError('not interrupted')\n"
            f"cli.check_certificate = slow\nsys.argv[1:] = [{str(files['ce'])!r}]\n"
            "sys.exit(cli.run())\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 143, (p.stdout, p.stderr)
    assert p.stderr.strip() == "ser-check-cert: interrupted"


def test_lone_surrogate_in_a_name_prints(files: dict[str, Path], tmp_path: Path) -> None:
    cert = json.loads(files["ce"].read_text())
    cert["counterexample"]["events"][0]["request"] = "\ud800"
    bad = tmp_path / "surrogate.json"
    bad.write_text(json.dumps(cert))  # ASCII JSON: the escape survives to the checker
    p = subprocess.run([sys.executable, "-m", "checker.cli", str(bad)], capture_output=True,
                       text=True, cwd=ROOT)
    assert p.returncode in (1, 2), p.stderr
    assert "Traceback" not in p.stderr + p.stdout


def test_a_counterexample_is_checked_without_loading_a_solver() -> None:
    """pySMT and cvc5 are imported on first use only: a counterexample never needs them
    (issue 23: small runs cost little)."""
    cert = ROOT / "certificates" / "intro-nonser.ser.cert.json"
    code = ("import sys; from checker.api import check_certificate; "
            f"r = check_certificate(open({str(cert)!r}).read()); "
            "print(r.status, any(m.split('.')[0] in ('pysmt', 'cvc5', 'z3') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.stdout.split() == ["valid", "False"], out.stderr


def test_the_state_bound_reaches_the_checker(files: dict[str, Path]) -> None:
    """`ser-check-cert --state-bound N` bounds the NS a proof names, and ser-prove's own
    check uses ser-prove's --state-bound (prover.run.decide.check_text)."""
    from prover.run.decide import check_text

    assert main([str(files["pf"])]) == 0
    assert main([str(files["pf"]), "--state-bound", "3"]) == 2  # E-MODEL: beyond 3 states
    text = files["pf"].read_text()
    source = json.loads(text)["model"]["source"]
    assert check_text(text, source, 30)[0] == "valid"
    status, message = check_text(text, source, 30, state_bound=3)
    assert status == "unusable" and "exceeds 3 states" in message


@pytest.mark.parametrize("argv", [[], ["a.json", "--all", "."], ["--no-such-flag"],
                                  ["missing.cert.json"], ["--all", "/nonexistent-folder"]])
def test_every_usage_error_names_its_code(argv: list[str], capsys: Any) -> None:
    try:
        code = main(argv)
    except SystemExit as exc:
        code = int(exc.code or 0)
    assert code == 2
    assert "error[E-USAGE]" in capsys.readouterr().err


def test_a_check_longer_than_a_second_shows_its_obligation(capsys: Any) -> None:
    from checker.cli import _Progress

    shown = _Progress()
    shown("consecution", 3)  # under a second: nothing
    assert capsys.readouterr().err == ""
    shown.start -= 2.0
    shown("reduction-movers", 7)
    assert "checking: reduction-movers (7 obligations discharged, 2 s)" in capsys.readouterr().err
    shown.clear()
    assert capsys.readouterr().err == "\r\x1b[K"
