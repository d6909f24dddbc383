"""The z3 BMC finds the same violations on small models, with and without the serial set."""

from __future__ import annotations

import time

import pytest

from prover.engines import replay
from prover.engines.bmc import find_counterexample_bmc
from prover.frontend.load import load_model
from prover.serial.automaton import build_serial_automaton
from prover.serial.membership import SerialMembership

from .conftest import BENCH, a2_ns, needs_bench


@pytest.mark.parametrize("use_serial_set", [True, False])
def test_a2(use_serial_set: bool) -> None:
    ns = a2_ns()
    res = find_counterexample_bmc(ns, deadline=time.monotonic() + 10,
                                  use_serial_set=use_serial_set)
    cex = res.counterexample
    assert cex is not None and cex.engine == "bmc" and cex.requests == 2
    assert replay(ns, cex.events) == cex.completed


@needs_bench
@pytest.mark.parametrize("name", ["c1.ser", "d5.ser", "f3.ser", "e3.ser"])
def test_benchmarks(name: str) -> None:
    ns = load_model(BENCH / name).ns
    res = find_counterexample_bmc(ns, deadline=time.monotonic() + 10)
    assert res.counterexample is not None, res.reason
    assert not SerialMembership(build_serial_automaton(ns)).is_serial(res.counterexample.completed)


@needs_bench
@pytest.mark.parametrize("name", ["a4.ser", "b1.json", "e1.ser"])
def test_serializable_not_refuted(name: str) -> None:
    ns = load_model(BENCH / name).ns
    res = find_counterexample_bmc(ns, deadline=time.monotonic() + 1.0, max_depth=6)
    assert res.counterexample is None


@needs_bench
def test_bmc_certificate_is_accepted() -> None:
    check = pytest.importorskip("checker.api")
    from prover.certificate.write import counterexample_certificate, dump_certificate

    model = load_model(BENCH / "g1.ser")
    res = find_counterexample_bmc(model.ns, deadline=time.monotonic() + 20)
    assert res.counterexample is not None
    text = dump_certificate(counterexample_certificate(model, res.counterexample))
    assert check.check_certificate(text, model_text=model.source).status == "valid"


@needs_bench
def test_serial_set_clauses_are_used() -> None:
    """The optional `π ∉ S` accelerator builds (else BMC silently degrades to CEGAR)."""
    import z3

    from prover.context import RunContext
    from prover.engines.bmc import _not_serial_clauses

    ns = load_model(BENCH / "c1.ser").ns
    run = RunContext.of(ns)
    pairs = sorted({(r, v) for r in ns.request_names for v in ns.response_values})
    d = [z3.Int(f"d{i}") for i in range(len(pairs))]
    index = {p: i for i, p in enumerate(pairs)}
    assert _not_serial_clauses(lambda: run.serial_set, index, d) is not None
