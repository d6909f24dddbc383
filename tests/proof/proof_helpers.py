"""Shared helpers for the proof tests."""

from __future__ import annotations

from dataclasses import dataclass

from prover.ns import NetworkSystem
from prover.petri.build import build_interleaving_net
from prover.petri.net import PetriNet
from prover.serial.automaton import build_serial_automaton
from prover.serial.parikh import SerialSet, compute_serial_set
from prover.target import Target
from tests.benchmarks import PAPER, needs_paper

BENCH = PAPER
needs_bench = needs_paper


def make_target(net: PetriNet, s: SerialSet) -> Target:
    from prover.target import build_target

    return build_target(net, s, split=False)


@dataclass(frozen=True)
class Prepared:
    net: PetriNet
    serial_set: SerialSet
    target: Target


def prepare(ns: NetworkSystem) -> Prepared:
    net = build_interleaving_net(ns)
    s = compute_serial_set(build_serial_automaton(ns).reachable())
    return Prepared(net, s, make_target(net, s))


def assert_checker_accepts(model: object, proof: dict[str, object], engine: str = "test") -> str:
    """Wrap `proof` in a certificate and require the trusted checker to accept it."""
    from checker.api import check_certificate
    from prover.certificate.write import dump_certificate, make_certificate, producer

    cert = make_certificate(model, "serializable", "proof", proof, producer(engine))  # type: ignore[arg-type]
    res = check_certificate(dump_certificate(cert), timeout_s=30)
    assert res.status == "valid", res.message
    return res.status
