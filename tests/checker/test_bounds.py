"""Bounds over several globals in a reduction proof (docs/certificates.md, "Bounds"): the
prover's bank proofs with a bound are valid, and the checker rejects bounds that are not
comparisons of globals alone (E-BOUND), bounds that are false (initiation), bounds that
the invariant does not keep (consecution), and a bounded proof grafted onto a buggy twin."""

from __future__ import annotations

import copy
import hashlib
import time
from typing import Any

import pytest

from checker.api import check_certificate
from checker.certificate import Limits
from checker.steps import enumerate_steps, valuations
from prover.certificate.write import make_certificate, producer
from prover.frontend.load import load_source
from prover.reduction.bounds import computed, guess_bounds, quantities
from prover.reduction.engine import prove_by_reduction

Json = Any


def bank(k: int, bug: bool = False) -> str:
    """k accounts, a lock each, transfers in lock order, an audit that takes every lock
    and sums (the bug: an audit that takes no lock, and sees money in transit)."""
    out = ["global A0 := 2;"]
    for i in range(k):
        j = (i + 1) % k
        a, b = min(i, j), max(i, j)
        out.append(f"request t{i} {{ while (L{a} == 1) {{ yield }}; L{a} := 1; yield;"
                   f" while (L{b} == 1) {{ yield }}; L{b} := 1; yield;"
                   f" m := 0; if (A{i} > 0) {{ A{i} := A{i} - 1; m := 1 }} else {{ 0 }};"
                   f" yield; A{j} := A{j} + m; L{b} := 0; L{a} := 0; m }}")
    locks = "" if bug else " ".join(f"while (L{i} == 1) {{ yield }}; L{i} := 1; yield;"
                                    for i in range(k))
    total = " + ".join(f"A{i}" for i in range(k))
    free = " ".join(f"L{i} := 0;" for i in range(k))
    out.append(f"request audit {{ {locks} s := {total}; {free} s }}")
    return "\n".join(out) + "\n"


def _prove(source: str) -> Json:
    model = load_source(source, "ser", lazy=True)
    assert model.steps is not None
    bounds = guess_bounds(model.steps.program, ())
    attempt = prove_by_reduction(model.steps, deadline=time.monotonic() + 120, bounds=bounds)
    assert attempt.evidence is not None, attempt.reason
    return make_certificate(model, "serializable", "reduction", attempt.evidence,
                            producer("reduction"))


@pytest.fixture(scope="module")
def bank4() -> Json:
    return _prove(bank(4))


def _status(cert: Json) -> tuple[str, str | None]:
    r = check_certificate(cert, timeout_s=120)
    return r.status, r.code


def test_the_guess_sums_the_accounts() -> None:
    program = load_source(bank(4), "ser", lazy=True).steps
    assert program is not None
    assert quantities(program.program) == ("A0", "A1", "A2", "A3")
    assert guess_bounds(program.program, [(("A1", 2),)]) == (
        ((("A0", 1), ("A1", 1), ("A2", 1), ("A3", 1)), -2),)
    assert guess_bounds(program.program, [(("A1", 3),)]) == ()  # a sum that grew: no guess
    one = load_source("request r { X := X + 1; 0 }", "ser", lazy=True).steps
    assert one is not None and guess_bounds(one.program, ()) == ()  # its domain bounds it
    two = load_source("request r { X := X + 1; Y := Y - 1; 0 }", "ser", lazy=True).steps
    assert two is not None and guess_bounds(two.program, ()) == (((("X", 1), ("Y", 1)), 0),)


def test_balances_written_from_locals_are_quantities_too() -> None:
    """A transfer that reads both balances into locals under its locks and writes back
    `bi - 1` and `bj + 1` conserves the sum as much as `A := A - 1` does; flags and locks
    that only ever get literals are not summed."""
    src = ("global B0 := 2, B1 := 1;\n"
           "request t { L := 1; bi := B0; bj := B1; yield; B0 := bi - 1; B1 := bj + 1; L := 0; 0 }")
    steps = load_source(src, "ser", lazy=True).steps
    assert steps is not None and quantities(steps.program) == ()
    assert computed(steps.program) == ("B0", "B1")
    assert guess_bounds(steps.program, [(("B0", 1), ("B1", 2))]) == (
        ((("B0", 1), ("B1", 1)), -3),)
    assert guess_bounds(steps.program, [(("B0", 2), ("B1", 2))]) == ()


def test_valuations_meet_the_bound_and_keep_product_order() -> None:
    dom = {x: (0, 1, 2) for x in "ABC"}
    bound = ({("value", "A"): 1, ("value", "B"): 1, ("value", "C"): 1}, -2, "<=")
    got = list(valuations(("A", "B"), dom, [bound]))
    assert got == [(a, b) for a in range(3) for b in range(3) if a + b <= 2]
    assert list(valuations(("A", "B"), dom, [])) == [(a, b) for a in range(3)
                                                     for b in range(3)]


def test_a_bounded_proof_is_valid_and_steps_fewer_valuations(bank4: Json) -> None:
    assert "bounds" in bank4["reduction"]
    assert _status(bank4) == ("valid", None)
    full = enumerate_steps([("r", ("var", "A0"))], {"A0": (0, 1, 2)}, Limits(), [], {})
    assert len(full.moves) == 3


@pytest.mark.parametrize("bound", [
    {"cmp": "<=", "lhs": {"place": {"local": ["audit", "x"]}}, "rhs": {"const": 2}},
    {"cmp": "<=", "lhs": {"place": {"value": "NOPE"}}, "rhs": {"const": 2}},
    {"cmp": "<=", "lhs": {"const": 0}, "rhs": {"const": 2}},
    {"and": [{"cmp": "<=", "lhs": {"place": {"value": "A0"}}, "rhs": {"const": 2}}]},
])
def test_a_bound_that_is_not_over_globals_alone_is_rejected(bank4: Json, bound: Json) -> None:
    forged = copy.deepcopy(bank4)
    forged["reduction"]["bounds"] = [bound]
    assert _status(forged) == ("invalid", "E-BOUND")


def test_a_false_or_unkept_bound_is_rejected(bank4: Json) -> None:
    tight = copy.deepcopy(bank4)  # the accounts hold 2 at first
    tight["reduction"]["bounds"][0]["rhs"] = {"const": 1}
    assert _status(tight)[1] == "E-INITIATION"
    alone = copy.deepcopy(bank4)  # the bound without the laws that keep it
    alone["reduction"]["invariant"] = {"cmp": "<=", "lhs": {"const": 0}, "rhs": {"const": 0}}
    assert _status(alone)[0] == "invalid"


def test_a_bounded_proof_grafted_onto_the_buggy_twin_is_rejected(bank4: Json) -> None:
    buggy = bank(4, bug=True)  # not serializable: the audit can see 1 while 1 is in transit
    graft = copy.deepcopy(bank4)
    graft["model"] = {"kind": "ser", "path": "b.ser", "source": buggy,
                      "sha256": hashlib.sha256(buggy.encode()).hexdigest()}
    assert _status(graft)[0] != "valid"
