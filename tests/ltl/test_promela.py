"""`ser-prove export MODEL --format promela --requests K [--formula F]` (prover/ltl/promela.py):
what it writes, its refusals, and, where SPIN is installed (`apt-get install spin`;
skipped otherwise), SPIN's verdicts on properties whose truth is known by hand."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from prover.frontend.load import load_model
from prover.ltl.formula import parse_formula
from prover.ltl.lasso import global_values, ser_globals
from prover.ltl.promela import to_promela

ROOT = Path(__file__).resolve().parents[2]
LOCK = ROOT / "examples" / "intro-lock.ser"
NONSER = ROOT / "examples" / "intro-nonser.ser"


def _export(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "prover.cli", "export", *args],
                          capture_output=True, text=True, cwd=ROOT)


def test_global_states_are_read_back() -> None:
    assert global_values("{}") == {}
    assert global_values("{A=1,B=-2}") == {"A": 1, "B": -2}


def test_the_encoding_names_everything_by_index() -> None:
    ns = load_model(str(LOCK)).ns
    f = parse_formula("G (L == 1 -> F L == 0)", ser_globals(ns), frozenset({"main"}))
    text = to_promela(ns, 3, f)
    assert "arrivals < 3" in text and ":: break" in text
    assert "int var_0 = 0; /* L */" in text and "int var_1 = 0; /* X */" in text
    assert text.rstrip().endswith("ltl property { ([] ((var_0 == 1) -> (<> (var_0 == 0)))) }")
    assert ser_globals(load_model(str(ROOT / "examples" / "mutex.json")).ns) == frozenset()


@pytest.mark.parametrize("args, words", [
    (["--requests", "0"], "1 <= K <= 200"),
    (["--requests", "100000"], "1 <= K <= 200"),
    ([], "needs --requests K"),
    (["--requests", "2", "--formula", "X L == 1"], "X (next) is not allowed"),
    (["--requests", "2", "--formula", "G (Q == 1)"], "unknown global Q"),
])
def test_refusals_exit_2(args: list[str], words: str) -> None:
    out = _export(str(LOCK), "--format", "promela", *args)
    assert out.returncode == 2 and words in out.stderr and "Traceback" not in out.stderr


def test_requests_and_formula_need_promela() -> None:
    out = _export(str(LOCK), "--format", "net", "--requests", "2")
    assert out.returncode == 2 and "--requests goes with --format promela or --what pdnet" \
        in out.stderr


SPIN = shutil.which("spin") is not None and shutil.which("gcc") is not None


@pytest.mark.skipif(not SPIN, reason="SPIN is not installed (apt-get install spin)")
@pytest.mark.parametrize("model, k, formula, fair, violated", [
    (LOCK, 2, "G (X <= 1)", False, False),
    (LOCK, 2, "G (inflight(main) <= 2)", False, False),
    (LOCK, 2, "G (inflight(main) <= 1)", False, True),
    (LOCK, 2, "F done(main) == 2", False, True),  # the environment may stop delivering
    (LOCK, 2, "G (L == 1 -> F L == 0)", False, True),  # a waiter spins, the holder starves
    (LOCK, 2, "G (L == 1 -> F L == 0)", True, False),  # not under weak fairness
    (LOCK, 2, "G (answered(main, 1) == done(main))", False, False),
    (NONSER, 2, "G (answered(main, 0) == 0)", False, True),  # the interleaving answers 0
    (NONSER, 1, "G (answered(main, 0) == 0)", False, False),
])
def test_spin_agrees_with_the_hand_verdicts(tmp_path: Path, model: Path, k: int, formula: str,
                                           fair: bool, violated: bool) -> None:
    pml = tmp_path / "m.pml"
    out = _export(str(model), "--format", "promela", "--requests", str(k), "--formula",
                  formula, "-o", str(pml))
    assert out.returncode == 0, out.stderr
    subprocess.run(["spin", "-a", "m.pml"], cwd=tmp_path, check=True, capture_output=True)
    subprocess.run(["gcc", "-O1", "-DNOREDUCE", "-o", "pan", "pan.c"], cwd=tmp_path,
                   check=True, capture_output=True)
    run = subprocess.run(["./pan", "-a", *(["-f"] if fair else [])], cwd=tmp_path,
                         capture_output=True, text=True)
    errors = [line for line in run.stdout.splitlines() if "errors:" in line]
    assert errors, run.stdout
    assert errors[0].strip().endswith("errors: 0") != violated, run.stdout
