"""Deterministic schedule and hard deadline: the explicit search's first slice and its
minimisation are budgets of states, so a slow clock (a loaded machine) changes neither
the verdict nor the certificate; --timeout is a deadline for the whole run."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from prover.cli import main
from prover.engines import explicit
from prover.run import decide
from tests.robust import SLOW

# e3 of the paper benchmarks: its violation needs about 1,200 explored states, so the
# explicit search looks at its clock on the way (every 1,024 expansions).
E3 = """request foo {
    b := 0;
    y := 0;
    while(y == 0 || y == 1 || y == 2) {
        tmp := X;
        yield;
        if(tmp == X){ b := 1 }else{0};
        y := y + 1
    };
    b
}

request set0 { X := 0 }
request set1 { X := 1 }
"""



def _certificate(path: Path) -> str:
    decided = decide.decide(str(path), str(path) + ".cert.json", timeout_s=600,
                               check_timeout_s=60, progress=None, use_proofs=True)
    assert decided.result.status == "not_serializable"
    assert decided.result.engine == "explicit"
    assert decided.text is not None
    return decided.text


def test_slow_clock_gives_the_same_certificate(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    model = tmp_path / "e3.ser"
    model.write_text(E3)
    normal = _certificate(model)
    # Every look at the clock in the explicit engine costs 0.2 s: the former 0.25 s slice
    # ended after two looks; a budget of states does not notice.
    ticks = itertools.count()
    monkeypatch.setattr(explicit.time, "monotonic", lambda: 1000.0 + 0.2 * next(ticks))
    assert _certificate(model) == normal


def test_first_slice_is_counted_in_states() -> None:
    assert decide.FIRST_EXPLICIT_STATES >= 1_200  # every paper violation fits
    assert not hasattr(decide, "FIRST_EXPLICIT_SLICE_S")


def test_timeout_is_a_deadline_for_the_whole_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = tmp_path / "slow.ser"
    model.write_text(SLOW)
    assert main([str(model), "--timeout", "1"]) == 3
    assert "undecided" in capsys.readouterr().out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["slow.ser"]


def test_nan_timeout_is_a_usage_error(tmp_path: Path) -> None:
    model = tmp_path / "m.ser"
    model.write_text("request main { 1 }\n")
    assert main([str(model), "--timeout", "nan"]) == 2
    assert main([str(model), "--timeout", "-1"]) == 2


def test_each_model_has_its_own_deadline_with_jobs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    slow = tmp_path / "slow.ser"
    slow.write_text(SLOW)
    quick = tmp_path / "quick.ser"
    quick.write_text("request main { X := 1; yield; y := X; X := 0; y }\n")
    code = main([str(slow), str(quick), "--jobs", "2", "--timeout", "2", "--quiet",
                 "--out-dir", str(tmp_path / "c")])
    assert code == 3  # undecided outranks not serializable
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"{slow}: undecided")
    assert lines[1] == f"{quick}: NOT serializable"
    assert [p.name for p in (tmp_path / "c").iterdir()] == ["quick.ser.cert.json"]


def test_process_age_is_known_here() -> None:
    from prover.run.deadline import process_age

    assert process_age() > 0.0


def test_progress_names_the_stage_and_what_it_counts(tmp_path: Path) -> None:
    """Each stage says what it is and what it counts, so a count never seems to reset."""
    model = tmp_path / "m.ser"
    model.write_text("request a { X := 1; yield; y := X; X := 0; y }\n"
                     "request b { while (L == 1) { yield }; L := 1; Y := Y + 1; L := 0; 0 }\n")
    said: list[str] = []
    decide.decide(str(model), str(tmp_path / "c.json"), timeout_s=60, check_timeout_s=30,
                     progress=said.append, use_proofs=True)
    search = [m for m in said if m.startswith("counterexample search (budget")]
    assert search and all("states" in m for m in search), said
    assert "checking the certificate" in said


@pytest.mark.parametrize("command", [[], ["ltl", "-f", "G (X <= 1)", "-k", "2"], ["bench"],
                                     ["export", "--format", "dot"], ["inspect"],
                                     ["explain", "--slice", "p0"],
                                     ["slice", "--criterion", "p0", "--algorithm", "maximal"]])
@pytest.mark.parametrize("value", ["inf", "1e19", "1e300", "nan", "-1", "abc", "86401"])
def test_budgets_a_deadline_cannot_hold_are_usage_errors(
        command: list[str], value: str, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """One parser for every command's --timeout: finite, above 0 (prove: 0 too), at most a
    day; anything else exits 2 with the option named, before any work."""
    model = tmp_path / "m.ser"
    model.write_text("request main { X := 1; 0 }\n")
    code = main([*command[:1], str(model), *command[1:], "--timeout", value])
    assert code == 2
    err = capsys.readouterr().err
    assert "--timeout" in err and "Traceback" not in err


@pytest.mark.parametrize("command", [["inspect"], ["export", "--format", "dot"],
                                     ["explain", "--slice", "p0"],
                                     ["slice", "--criterion", "p0", "--algorithm", "minimal"]])
def test_every_command_keeps_a_deadline(command: list[str], tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    """inspect, export, explain and slice run under --timeout like prove: a model too large
    for the budget ends with exit 3 and one line naming the deadline, no traceback."""
    model = tmp_path / "wide.ser"
    model.write_text("".join(f"request r{i} {{ X{i % 7} := 1; yield; X{i % 7} := 0; 0 }}\n"
                             for i in range(200)))
    assert main([command[0], str(model), *command[1:], "--timeout", "0.5"]) == 3
    err = capsys.readouterr().err
    assert "stopped: no answer within --timeout 0.5 s" in err and "Traceback" not in err


def test_the_second_search_has_the_deadline_not_a_share_of_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Both explicit searches stop at the engines' deadline: a share of the clock would cut
    the second short on a loaded machine, where an idle one finds the counterexample, and
    hand the rest to BMC, which may find another. The buggy reader count at 16 is found by
    the second search only (the first stops at its budget of states) when the random runs
    are left out (they find it first)."""
    from bench.idioms import BY_NAME

    model = tmp_path / "rwcount-bug-16.ser"
    model.write_text(BY_NAME["rwcount-bug"].text(16), encoding="utf-8")
    deadlines: list[float | None] = []
    real = decide.find_counterexample

    def spy(*args: object, **kwargs: object) -> object:
        deadlines.append(kwargs.get("deadline"))  # type: ignore[arg-type]
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(decide, "find_counterexample", spy)
    monkeypatch.setattr(decide, "_random_runs", lambda run, later: None)
    d = decide.decide(str(model), str(tmp_path / "c.json"), timeout_s=120, check_timeout_s=60,
                      progress=None, use_proofs=True)
    assert d.result.status == "not_serializable"
    assert len(deadlines) == 2 and deadlines[0] == deadlines[1] is not None
