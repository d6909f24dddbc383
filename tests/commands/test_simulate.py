"""`ser-prove simulate` (prover/commands/simulate.py, prover/engines/simulation.py): random
runs of a Ser program, the same bytes for the same seed, one JSON object per run, and
what a run can end in: finished (serializable or not), a deadlock, a run-time error,
cut at --max-steps, the deadline."""

from __future__ import annotations

import importlib.resources
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from prover.cli import main
from prover.engines.simulation import END_DEADLOCK, END_FINISHED, Simulator
from prover.frontend.load import load_source

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
LOST_UPDATE = "request inc { x := X; yield; X := x + 1; x }\n"
DIVIDES = ("request inc { x := X; yield; X := x + 1; x }\n"
           "request bad { y := 0; if (X == 1) { y := 1 / (X - 1) } else { y := 0 }; y }\n")
SCHEMA = json.loads((importlib.resources.files("schemas") / "simulate-run.schema.json")
                    .read_text("utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SER_PROVE_NO_SERVER": "1"}
    return subprocess.run([sys.executable, "-m", "prover.cli", "simulate", *args],
                          capture_output=True, text=True, env=env, timeout=120)


def _runs(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[dict[str, Any]]]:
    code = main(["simulate", *args, "--json"])
    lines = capsys.readouterr().out.splitlines()
    records = [json.loads(line) for line in lines]
    for record in records:
        VALIDATOR.validate(record)
    return code, records


def _model(tmp_path: Path, text: str, name: str = "m.ser") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_the_same_seed_prints_the_same_bytes_in_any_process() -> None:
    args = [str(EXAMPLES / "bank-array.ser"), "--runs", "4", "--seed", "11", "-k", "4"]
    outs = []
    for hash_seed in ("1", "2"):
        env = {**os.environ, "SER_PROVE_NO_SERVER": "1", "PYTHONHASHSEED": hash_seed}
        p = subprocess.run([sys.executable, "-m", "prover.cli", "simulate", *args],
                           capture_output=True, env=env, timeout=120)
        assert p.returncode == 0, p.stderr
        outs.append(p.stdout)
    assert outs[0] == outs[1]
    text = outs[0].decode()
    assert text.startswith("run 1 (seed 11): ")
    assert "run 4 (seed 14): " in text
    assert text.rstrip().splitlines()[-1].startswith("4 runs (seeds 11 to 14): ")
    other = _cli(*args[:-4], "--seed", "12", "--runs", "1", "-k", "4")
    assert other.returncode == 0
    # run 2 of seed 11 is the run of seed 12 alone
    second = text.split("run 2 (seed 12): ")[1].split("run 3 (seed 13)")[0]
    assert other.stdout.replace("run 1 (seed 12): ", "") == second


def test_json_gives_one_object_per_run_of_a_stable_shape(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, records = _runs(capsys, str(EXAMPLES / "intro-lock.ser"), "--runs", "3",
                          "--seed", "5")
    assert code == 0
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert [(r["run"], r["seed"]) for r in records] == [(1, 5), (2, 6), (3, 7)]
    for r in records:
        assert r["format"] == "simulate-run/1" and r["requests"] == ["main"] * 3
        assert r["finished"] and r["end"] == "finished" and r["serializable"] is True
        assert [p["response"] for p in r["responses"]] == ["1", "1", "1"]
        assert sorted(p["instance"] for p in r["responses"]) == [1, 2, 3]
        assert r["in_flight"] == [] and r["error"] is None and r["not_arrived"] == 0
        assert r["atomic_steps"] == len(r["steps"]) == 6
        first = r["steps"][0]
        assert first["arrives"] and first["line"] == 5 and first["column"] == 3
        assert r["steps"][-1]["globals_after"] == {} and r["globals"] == {}
        assert len(r["serial_order"]) == 3


def test_a_lost_update_is_found_among_the_first_seeds(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = _model(tmp_path, LOST_UPDATE)
    code, records = _runs(capsys, model, "-k", "2", "--runs", "50")
    assert code == 1
    bad = [r for r in records if r["serializable"] is False]
    assert bad, "no seed among the first 50 lost an update"
    assert all(sorted(p["value"] for p in r["responses"]) == [0, 0] for r in bad)
    assert all(r["serializable"] is True for r in records if r not in bad)
    assert bad[0]["reasons"] == [
        "every pair can occur serially, but not all together: the longest serial order using "
        "only these pairs completes inc/0 and then, at global {X=1}, no request can answer "
        "what is left (inc/0)"]
    seed = str(bad[0]["seed"])
    alone = _cli(model, "-k", "2", "--seed", seed)
    assert alone.returncode == 1
    assert "run 1 is not serializable: no serial order of these requests answers so; " \
        "prove the model to get a certificate" in alone.stdout


def test_a_deadlock_says_who_waits_where(capsys: pytest.CaptureFixture[str]) -> None:
    model = str(EXAMPLES / "deadlock-abba.ser")
    code, records = _runs(capsys, model, "--runs", "10", "--request", "ab",
                          "--request", "ba")
    assert code == 0
    stuck = [r for r in records if r["end"] == "deadlock"]
    assert stuck and all(not r["finished"] and r["serializable"] is None for r in stuck)
    waits = {(b["request"], tuple(b["lines"])) for b in stuck[0]["in_flight"]}
    assert waits == {("ab", (10,)), ("ba", (23,))}
    assert stuck[0]["globals"] == {"A": 1, "B": 1}
    seed = str(stuck[0]["seed"])
    text = _cli(model, "--request", "ab", "--request", "ba", "--seed", seed)
    assert text.returncode == 0
    assert "deadlock: every request in flight waits, at global {A=1,B=1}" in text.stdout
    assert "  ab#1 (line 10) waits at " in text.stdout
    assert "  ba#2 (line 23) waits at " in text.stdout


def test_a_spin_that_changes_nothing_is_never_picked() -> None:
    """Three requests behind one lock: every run finishes, and no row is a failed wait."""
    steps = load_source((EXAMPLES / "intro-lock.ser").read_text(), "ser").steps
    assert steps is not None
    sim = Simulator(steps)
    for seed in range(20):
        run = sim.run(seed, k=3, max_steps=50)
        assert run.end == END_FINISHED and run.steps == 6
        assert all(e.local != e.to_local for e in run.events if e.kind == "step")
    stuck = load_source("request w { while (L == 0) { yield }; 1 }", "ser").steps
    assert stuck is not None
    assert Simulator(stuck).run(0, k=2).end == END_DEADLOCK


def test_a_run_time_error_prints_the_trail_and_the_position(tmp_path: Path) -> None:
    model = _model(tmp_path, DIVIDES)
    for seed in range(30):
        p = _cli(model, "--request", "inc", "--request", "bad", "--seed", str(seed))
        if "run-time error" in p.stdout:
            break
    else:
        pytest.fail("no run of the first 30 seeds divided by zero")
    assert p.returncode == 2 and "Traceback" not in p.stderr
    lines = p.stdout.splitlines()
    assert lines[1].split()[:3] == ["#", "instance", "executes"]
    assert any(line.startswith("1  inc#1 (new)") for line in lines)
    assert f"  {model}:2:44: error[E-DIV-ZERO]: request 'bad': 1 / (X - 1) divides by zero" \
        in p.stdout
    assert "run-time error at step 3: bad#2 at " in p.stdout


def test_an_index_out_of_range_is_a_run_time_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = _model(tmp_path, "const K := 2;\nglobal A[K];\n"
                   "request set { i := A[0] + 2; A[i] := 1; i }\n")
    code, records = _runs(capsys, model, "-k", "1")
    assert code == 2
    (r,) = records
    assert r["end"] == "error" and not r["finished"] and r["steps"] == []
    assert {k: r["error"][k] for k in ("code", "line", "column", "request")} == \
        {"code": "E-INDEX", "line": 3, "column": 30, "request": "set"}


def test_defines_size_an_array_model(capsys: pytest.CaptureFixture[str]) -> None:
    model = str(EXAMPLES / "bank-array.ser")
    code, records = _runs(capsys, model, "-D", "K=5", "--runs", "5", "-k", "4")
    assert code == 0
    members = {f"move[{j}]" for j in range(5)} | {"audit"}
    assert all(r["constants"] == {"K": 5} for r in records)
    assert all(set(r["requests"]) <= members and len(r["requests"]) == 4 for r in records)
    cells = {f"{a}[{j}]" for a in "AL" for j in range(5)}
    assert all(set(s["globals_after"]) <= cells for r in records for s in r["steps"])
    assert all(r["finished"] and r["serializable"] is True for r in records)
    total = sum(r["globals"].get(f"A[{j}]", 0) for r in records for j in range(5))
    assert total == 5 * len(records)  # the moves keep the sum
    assert main(["simulate", model, "-D", "N=3"]) == 2
    assert main(["simulate", model, "-D", "K=2..4"]) == 2


def test_max_steps_cuts_a_run_and_says_so(tmp_path: Path) -> None:
    model = _model(tmp_path, "request r { n := 0; while (1) { n := (n + 1) % 3; yield }; n }\n")
    p = _cli(model, "-k", "2", "--max-steps", "7")
    assert p.returncode == 0
    assert "cut: --max-steps 7 reached, 2 requests in flight, 0 yet to arrive:" in p.stdout
    assert sum(1 for line in p.stdout.splitlines() if line[:1].isdigit()) == 7


def test_more_than_eight_requests_are_not_checked(capsys: pytest.CaptureFixture[str]) -> None:
    code, records = _runs(capsys, str(EXAMPLES / "intro-lock.ser"), "-k", "9")
    assert code == 0
    (r,) = records
    assert r["finished"] and r["serializable"] is None and "9 requests" in r["not_checked"]


def test_the_deadline_prints_what_was_done() -> None:
    p = _cli(str(EXAMPLES / "intro-lock.ser"), "--runs", "1000000", "--timeout", "1.5")
    assert p.returncode == 3 and "Traceback" not in p.stderr
    last = p.stdout.splitlines()[-1]
    assert "of 1,000,000, stopped by --timeout 1.5 s: " in last
    assert p.stdout.startswith("run 1 (seed 0): main, main, main arrive")


@pytest.mark.parametrize("args, message", [
    (["--runs", "0"], "--runs must be at least 1"),
    (["--seed", "-1"], "--seed must be at least 0"),
    (["-k", "0"], "-k/--requests must be at least 1"),
    (["--request", "nope"], "--request nope: the model has no such request"),
    (["--request", "main", "-k", "2"], "give one or the other"),
    (["--max-steps", "0"], "--max-steps must be at least 1"),
    (["--timeout", "0"], "give a number of seconds above 0"),
])
def test_bad_options_exit_2(args: list[str], message: str) -> None:
    p = _cli(str(EXAMPLES / "intro-lock.ser"), *args)
    assert p.returncode == 2 and message in p.stderr and "Traceback" not in p.stderr
    assert p.stdout == ""


def test_a_bad_model_is_the_same_error_as_for_the_prover(tmp_path: Path) -> None:
    model = _model(tmp_path, "request a { x := ; }\n")
    p = _cli(model)
    assert p.returncode == 2 and "Traceback" not in p.stderr and p.stdout == ""
    assert p.stderr.startswith(f"{model}:1:18: error[E-SYNTAX]: ")
    env = {**os.environ, "SER_PROVE_NO_SERVER": "1"}
    prove = subprocess.run([sys.executable, "-m", "prover.cli", model, "--timeout", "10"],
                           capture_output=True, text=True, env=env, timeout=120)
    assert prove.returncode == 2 and prove.stderr == p.stderr
    for other, code in ((str(EXAMPLES / "mutex.json"), "E-USAGE"),
                        (str(tmp_path / "missing.ser"), "E-INPUT")):
        q = _cli(other)
        assert q.returncode == 2 and code in q.stderr and "Traceback" not in q.stderr


def test_help_names_every_option() -> None:
    p = _cli("--help")
    assert p.returncode == 0
    for option in ("--requests", "--request", "--seed", "--runs", "--max-steps", "--define",
                   "--json", "--timeout", "--width", "--state-bound"):
        assert option in p.stdout
    top = subprocess.run([sys.executable, "-m", "prover.cli", "--help"], capture_output=True,
                         text=True, timeout=120)
    assert "  simulate   random runs of a Ser program" in top.stdout
