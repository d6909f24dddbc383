"""The pipeline's schedule after its cheap attempts (prover/run/schedule.py): a pure
function of what they found, so the same budgets give the same stages, verdict and
certificate on any machine."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from bench.idioms import BY_NAME
from prover.run import decide
from prover.run.schedule import Evidence, plan


def test_the_plan_follows_the_evidence() -> None:
    spent = Evidence(True, False, "finding")
    assert plan(spent) == ("reduction", "proof", "search", "bmc")
    assert plan(Evidence(True, True, "finding")) == ("wide-search", "reduction", "proof",
                                                      "search", "bmc")
    assert plan(Evidence(True, True, "failed")) == ("wide-search", "proof", "search", "bmc")
    assert plan(Evidence(False, True, "none")) == ("proof", "search", "bmc")
    assert plan(spent, use_proofs=False) == ("search", "bmc")


def test_the_plan_depends_on_nothing_but_the_evidence() -> None:
    for ser, wide, red, proofs in itertools.product((True, False), (True, False),
                                                    ("none", "failed", "finding", "after"),
                                                    (True, False)):
        e = Evidence(ser, wide, red)  # type: ignore[arg-type]
        first = plan(e, proofs)
        assert plan(Evidence(ser, wide, red), proofs) == first  # type: ignore[arg-type]
        assert first[-2:] == ("search", "bmc")  # a counterexample is always looked for
        assert ("reduction" in first) == (proofs and red in ("finding", "after"))


def _decide(path: Path) -> tuple[str, str | None]:
    d = decide.decide(str(path), str(path) + ".cert.json", timeout_s=120,
                         check_timeout_s=60, progress=None, use_proofs=True)
    return d.result.status, d.text


@pytest.mark.parametrize("family", ["rwcount", "seqlock"])
def test_a_spent_cheap_attempt_gives_the_same_certificate(
        family: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A probe too small to decide: the reduction's second attempt proves it, with the
    very certificate the probe alone gives when it is large enough; twice the same."""
    path = tmp_path / f"{family}-03.ser"
    path.write_text(BY_NAME[family].text(3))
    status, text = _decide(path)
    assert status == "serializable" and text is not None
    monkeypatch.setattr(decide, "PROBE_UNITS", 1_000)
    again = [_decide(path) for _ in range(2)]
    assert again[0] == again[1] == (status, text)
    assert json.loads(text)["producer"]["engine"] == "reduction"
