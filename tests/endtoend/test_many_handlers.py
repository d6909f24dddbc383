"""Programs with many handlers (bench/many_handlers.py) end to end: the counterexample
search combines only requests that interact, so its work follows the bug, not the
number of handlers (issue 40); the checker accepts what it finds."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.many_handlers import (
    FAMILIES,
    cache_unlocked_get,
    independent_lost_updates,
    main,
    one_global,
)
from prover.run.pipeline import prove_model

CASES = {
    "independent-200": (independent_lost_updates(200), 2, 5_000),
    "one-global-200": (one_global(200), 2, 100),
    "cache-unlocked-16": (cache_unlocked_get(16), 3, 10_000),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_refuted_with_few_states(name: str, tmp_path: Path) -> None:
    text, requests, states = CASES[name]
    model = tmp_path / f"{name}.ser"
    model.write_text(text)
    res = prove_model(str(model), cert_path=str(tmp_path / "cert.json"), timeout_s=60)
    assert res.status == "not_serializable" and res.check_status == "valid"
    assert res.engine == "explicit"
    assert res.counterexample is not None and res.counterexample.requests == requests
    assert res.counterexample.minimal
    assert res.stats["explicit_states"] <= states


def test_explanation_lists_the_interacting_requests_only(tmp_path: Path) -> None:
    model = tmp_path / "cache.ser"
    model.write_text(cache_unlocked_get(3))
    res = prove_model(str(model), cert_path=str(tmp_path / "cert.json"), timeout_s=60)
    assert res.explanation is not None
    answers = res.explanation[1]["serial_answers"]
    assert sorted(answers) == ["add0", "get0", "incr0"]


def test_generator_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cache_locked", "2"]) == 0
    assert capsys.readouterr().out == FAMILIES["cache_locked"][0](2)
    assert main(["nope", "2"]) == 2
