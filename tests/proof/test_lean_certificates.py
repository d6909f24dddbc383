"""Reduction certificates that check faster (prover/reduction/engine.py, prune.py): steps
the invariant shows never enabled are labelled D, conjuncts the others imply are left
out, and a local state's most common label is its own entry; the checker accepts them,
and they are the same on every run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import z3

from checker.api import check_certificate
from prover.frontend.load import load_source
from prover.reduction.engine import RLIMIT, bound_conjuncts, prove_by_reduction
from prover.reduction.invariant import Solver, linear
from prover.reduction.prune import without_implied
from tests.checker.test_bounds import bank


def _certificate(tmp_path: Path, k: int) -> tuple[str, dict[str, Any]]:
    """The model's text and the certificate ser-prove makes of it (its first search
    guesses the bound A0 + … ≤ 2 that the table steps within)."""
    from prover.run.decide import decide

    path = tmp_path / f"bank{k}.ser"
    path.write_text(bank(k))
    got = decide(str(path), str(path) + ".cert.json", timeout_s=60, check_timeout_s=30,
                 progress=None, use_proofs=True, locking=False)  # its reduction proof
    assert got.result.status == "serializable" and got.text is not None
    return path.read_text(), json.loads(got.text)


def test_a_bank_certificate_is_lean_and_valid(tmp_path: Path) -> None:
    source, cert = _certificate(tmp_path, 8)  # (with fewer accounts the proof has sections)
    labels = cert["reduction"]["labels"]
    own = [lab["local"] for lab in labels if "reads" not in lab]
    assert len(own) == len({json.dumps(x) for x in own})  # one entry of its own per state
    default = {json.dumps(lab["local"]): lab["label"] for lab in labels if "reads" not in lab}
    assert all(lab["label"] != default[json.dumps(lab["local"])] for lab in labels
               if "reads" in lab)  # only the valuations labelled otherwise are listed
    # the audit's sum while it holds every lock: both units are in the accounts, so its
    # step at a smaller sum is never enabled (the checker proves it), at the others N
    final = [lab for lab in labels if lab["local"][0] == "audit"
             and lab["local"][1].startswith("({}, s := ")]
    assert [lab["label"] for lab in final if "reads" not in lab] == ["N"]
    dead = [lab["reads"] for lab in final if "reads" in lab]
    assert len(dead) == 9 and all(sum(r.values()) < 2 for r in dead)
    assert all(lab["label"] == "D" for lab in final if "reads" in lab)
    # the transfers' A1 + #t0«…» ≤ 2: the conservation law implies them
    assert len(cert["reduction"]["invariant"]["and"]) == 1 + 8 + 1
    assert check_certificate(json.dumps(cert), model_text=source).status == "valid"
    assert _certificate(tmp_path, 8)[1]["reduction"] == cert["reduction"]  # every run


def test_conjuncts_the_others_imply_are_left_out() -> None:
    """A1 + #t0«…» ≤ 2 and its like follow from the conservation law and M ≥ 0: none of
    the certificate's conjuncts but the bounds follows from the others."""
    model = load_source(bank(3), "ser", lazy=True)
    assert model.steps is not None
    attempt = prove_by_reduction(model.steps)
    assert attempt.evidence is not None and attempt.table is not None
    t, inv = attempt.table, list(attempt.invariant)
    solver = Solver(t, None, RLIMIT)
    kept = without_implied(inv, frozenset(bound_conjuncts(t)), solver)
    assert len(kept) < len(inv) and set(bound_conjuncts(t)) <= set(kept)
    assert kept == [c for c in inv if c in kept]  # in Houdini's order
    s = solver.solver(kept)
    for c in inv:  # the conjuncts left out follow from those kept
        s.push()
        s.add(z3.Not(solver.term(c)))
        assert s.check() == z3.unsat
        s.pop()
    # of two copies the last is left out, the first follows from nothing and is kept
    # (A0 ≤ 1: the domains allow A0 = 2)
    lone = linear({("value", "A0"): 1}, -1, "<=")
    assert without_implied([lone, lone], frozenset(), solver) == [lone]
