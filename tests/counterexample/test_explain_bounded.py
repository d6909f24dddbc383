"""The explanation of a counterexample explores serial executions itself only within a
count of states (prover/certificate/explain.py, EXPLAIN_WORK): past it, it says that the
checker's own search found no serial execution and lists no serial answers; the verdict
and its certificate are the same."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prover.certificate import explain as explain_module
from prover.frontend.load import load_source
from prover.run import decide

LOST = "request inc { x := X; yield; X := x + 1; x }\n"


@pytest.mark.parametrize("work", [20_000, 1])
def test_a_counterexample_is_explained_within_its_budget(tmp_path: Path, work: int,
                                                         monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:  # fmt: skip
    monkeypatch.setattr(explain_module, "EXPLAIN_WORK", work)
    path = tmp_path / "lost.ser"
    path.write_text(LOST, encoding="utf-8")
    d = decide.decide(str(path), str(path) + ".json", timeout_s=60, check_timeout_s=30,
                      progress=None, use_proofs=True)
    assert d.result.status == "not_serializable" and d.text is not None
    assert "counterexample" in json.loads(d.text) and d.result.explanation is not None
    assert "explain_s" in d.result.times
    from prover.commands.jsonl import TIME_KEYS

    assert "explain_s" in TIME_KEYS  # --json prints it too
    # without the search's own serial automaton, the explanation explores them itself
    model, cex = load_source(LOST, "ser", "lost.ser", lazy=True), d.result.counterexample
    assert model.steps is not None and cex is not None
    expl = explain_module.explain(model.steps, cex)
    text, doc = explain_module.render_text(expl), explain_module.explanation_json(expl)
    if work == 1:
        assert "did not explore them itself" in text and doc["serial_answers"] == {}
    else:
        assert "can answer: inc:" in text and doc["serial_answers"]["inc"]
