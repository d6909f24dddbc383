"""Counterexample certificates: schema, determinism, accepted by the checker, explanation."""

from __future__ import annotations

import json
import time
from pathlib import Path

import jsonschema
import pytest

from prover.certificate.explain import (
    counterexample_to_dot,
    explain,
    explanation_json,
    render_text,
)
from prover.certificate.write import (
    counterexample_certificate,
    dump_certificate,
    make_certificate,
    producer,
)
from prover.engines.explicit import find_counterexample
from prover.errors import CertificateError
from prover.frontend.load import load_model

from .conftest import BENCH, EXAMPLES, bench_names, needs_bench

SCHEMA = json.loads(
    (Path(__file__).resolve().parents[2] / "schemas" / "certificate.schema.json").read_text()
)


def _cert(path: Path) -> tuple[dict[str, object], str]:
    model = load_model(path)
    res = find_counterexample(model.ns, deadline=time.monotonic() + 5)
    assert res.counterexample is not None
    cert = counterexample_certificate(model, res.counterexample)
    return cert, dump_certificate(cert)


def test_envelope_order_and_hash() -> None:
    cert, text = _cert(EXAMPLES / "e2-i3.ser")
    assert list(cert) == ["format", "model", "verdict", "producer", "counterexample"]
    model = cert["model"]
    assert isinstance(model, dict)
    assert list(model) == ["kind", "path", "source", "sha256"]
    assert model["path"] == "e2-i3.ser"
    jsonschema.validate(json.loads(text), SCHEMA)
    completed = json.loads(text)["counterexample"]["completed"]
    assert completed == sorted(completed, key=lambda d: (d["request"], d["response"]))


def test_bytes_are_deterministic() -> None:
    _, a = _cert(EXAMPLES / "e2-i4.ser")
    _, b = _cert(EXAMPLES / "e2-i4.ser")
    assert a == b


def test_envelope_rejects_mismatched_evidence() -> None:
    with pytest.raises(CertificateError):
        make_certificate({"kind": "ser", "source": "1"}, "serializable", "counterexample", {},
                         producer("x"))


def test_explanation_a2_like() -> None:
    model = load_model(EXAMPLES / "intro-nonser.ser")
    cex = find_counterexample(model.ns, deadline=time.monotonic() + 5).counterexample
    assert cex is not None
    expl = explain(model.ns, cex)
    text = render_text(expl)
    assert "fewest possible" in text
    data = explanation_json(expl)
    assert data["requests"] == 2 and data["minimal"] is True
    assert all(step["lines"] for step in data["steps"] if step["action"] == "step")
    assert counterexample_to_dot(model.ns, cex).startswith("digraph counterexample {")


def test_explanation_names_never_finishing_request() -> None:
    model = load_model(EXAMPLES / "e2-i3.ser")
    cex = find_counterexample(model.ns, deadline=time.monotonic() + 5).counterexample
    assert cex is not None
    expl = explain(model.ns, cex)
    assert any("main never finishes" in r for r in expl.reasons)
    assert dict(expl.serial_answers)["main"] == ()


@needs_bench
@pytest.mark.parametrize("name", bench_names("not_serializable"))
def test_checker_accepts_within_5s(name: str) -> None:
    check = pytest.importorskip("checker.api")
    start = time.monotonic()
    model = load_model(BENCH / name)
    res = find_counterexample(model.ns, deadline=start + 5)
    assert res.counterexample is not None
    text = dump_certificate(counterexample_certificate(model, res.counterexample))
    result = check.check_certificate(text, model_text=model.source, timeout_s=10)
    assert result.status == "valid", result.message


def test_the_counterexample_table_fits_the_terminal() -> None:
    """On a terminal of 100 columns (prover.run.decide._columns), the table shortens the
    local states and globals it shows; to a file, nothing is cut."""
    from prover.certificate.explain import explain, render_text
    from prover.frontend.load import load_model

    m = load_model(str(EXAMPLES / "intro-nonser.ser"), lazy=True)
    assert m.steps is not None
    cex = find_counterexample(m.steps, deadline=time.monotonic() + 5).counterexample
    assert cex is not None
    expl = explain(m.steps, cex)
    assert max(map(len, render_text(expl, columns=100).splitlines())) <= 100
    assert max(map(len, render_text(expl).splitlines())) > 100
