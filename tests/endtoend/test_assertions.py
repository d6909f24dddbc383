"""`assert(e)` end to end (docs/cli.md, "Assertions"): a failing assertion is the verdict
*assertion violated* (exit 1) with its trace and a checked certificate; an assertion that
holds leaves the verdict to the engines; one the search cannot reach is `E-ASSERT`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from checker.api import check_certificate
from prover.cli import main
from tests.checker.test_assertion import LOCKED
from tests.endtoend.test_machine_interface import _assert_valid

# A critical section guarded by a counter read and bumped in two steps: two requests can
# both get in, and the assertion that at most one is inside fails.
COUNTER = """// two can get in
request enter {
  n := IN; IN := n + 1;
  yield;
  // at most one inside?
  // (line 7 asserts it)
  assert(IN <= 1);
  IN := IN - 1;
  n
}
"""


def _run(tmp_path: Path, source: str, capsys: pytest.CaptureFixture[str], *extra: str
         ) -> tuple[int, dict[str, Any], Path]:  # fmt: skip
    m = tmp_path / "m.ser"
    m.write_text(source, encoding="utf-8")
    cert = tmp_path / "m.cert.json"
    code = main([str(m), "--json", "-o", str(cert), "--timeout", "20", *extra])
    record = json.loads(capsys.readouterr().out.splitlines()[-1])
    _assert_valid([record])
    return code, record, cert


def test_a_failing_assertion_is_the_verdict_with_its_trace(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, record, cert = _run(tmp_path, COUNTER, capsys)
    assert code == 1 and record["verdict"] == "assertion_violated"
    assert record["engine"] == "assertion-search" and record["counterexample"] is None
    failed = record["assertion"]
    assert (failed["line"], failed["column"], failed["global"]) == (7, 3, "{IN=2}")
    assert len(failed["steps"]) == 2  # two requests both past the bump
    assert record["times"]["assertions_s"] is not None and record["stats"]["assertion_states"]
    assert check_certificate(cert.read_text()).status == "valid"


def test_the_text_says_who_fails_where(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    m = tmp_path / "m.ser"
    m.write_text(COUNTER, encoding="utf-8")
    assert main([str(m), "-o", str(tmp_path / "c.json")]) == 1
    out = capsys.readouterr().out
    assert out.splitlines()[0].endswith(": assertion violated")
    assert "fails the assertion at line 7, column 3" in out


def test_an_assertion_that_holds_leaves_the_verdict_to_the_engines(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, record, cert = _run(tmp_path, LOCKED, capsys)
    assert code == 0 and record["verdict"] == "serializable" and record["assertion"] is None
    assert record["times"]["assertions_s"] is not None
    assert check_certificate(cert.read_text()).status == "valid"


def test_no_assertion_no_search(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, record, _ = _run(tmp_path, "request r { x := X; X := x + 1; x }\n", capsys)
    assert record["times"]["assertions_s"] is None and record["stats"]["assertion_states"] is None


def test_a_failure_beyond_the_search_is_the_error_e_assert(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    import prover.engines.assertions as assertions

    search = assertions.find_assertion_failure
    monkeypatch.setattr(assertions, "find_assertion_failure",
                        lambda steps, **kw: search(steps, max_states=1, **kw))
    code, record, _ = _run(tmp_path, COUNTER, capsys)
    assert code == 2 and record["verdict"] == "input_error"
    assert record["error"]["code"] == "E-ASSERT"


def test_a_bench_counts_the_verdict_as_decided(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "in-critical.ser").write_text(COUNTER, encoding="utf-8")
    (tmp_path / "expected.json").write_text(json.dumps(
        {"in-critical.ser": {"expected": "assertion_violated"}}))
    code = main(["bench", str(tmp_path), "--timeout", "20", "--out", str(tmp_path / "out")])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "assertion_violated" in out


def test_a_step_that_fails_on_one_choice_only_is_no_counterexample(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """r then s alone answers {r/7, s/9} (s's `?` = 1 avoids the division by zero), so the
    concurrent run that gives it is no counterexample: the error is the answer (exit 2),
    never *not serializable* (the red team's F1, prover side)."""
    source = ("request r { X := 1; yield; X := 0; 7 }\n"
              "request s { t := ?; u := X + 1 / (t + X); 9 }\n")
    code, record, _ = _run(tmp_path, source, capsys)
    assert record["verdict"] != "not_serializable"
    assert code == 2 and record["error"]["code"] == "E-DIV-ZERO"
