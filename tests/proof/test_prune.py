"""The small invariant of reduction certificates (prover/reduction/prune.py): a subset of
Houdini's set, inductive on its own, the same on every run, the full set when the budget
runs out or a query is not unsat, and certificates with it that the checker accepts."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
import z3

from bench.idioms import BY_NAME
from checker.api import check_certificate
from prover.certificate.write import make_certificate, producer
from prover.frontend.load import load_source
from prover.reduction import houdini, invariant
from prover.reduction.engine import RLIMIT, prove_by_reduction
from prover.reduction.guards import conservation_laws, sampled, value_sets
from prover.reduction.invariant import Conjunct, Solver
from prover.reduction.prune import Needs, pruned
from prover.reduction.samples import observe
from prover.reduction.table import Limits, Move, Table, grow_domains

MODELS = {"rwcount-3": BY_NAME["rwcount"].text(3), "backoff-3": BY_NAME["backoff"].text(3),
          "buffer-3": BY_NAME["buffer"].text(3), "seqlock-2": BY_NAME["seqlock"].text(2)}


def _houdini(name: str) -> tuple[Table, list[Move], list[Conjunct]]:
    """A model's table, its live steps and Houdini's largest inductive set."""
    model = load_source(MODELS[name], "ser", lazy=True)
    assert model.steps is not None
    t = grow_domains(model.steps, Limits())
    live = [m for m in t.moves if not t.is_stutter(m)]
    seen = observe(t, live)
    near, far = sampled(t, live, seen, set())
    cands = list(dict.fromkeys(invariant.candidates(t, live) + value_sets(t, live, set())
                               + conservation_laws(t, live) + [*near, *far]))
    inv = houdini.houdini(t, live, cands, Solver(t, None, RLIMIT), None)
    assert inv is not None and len(inv) > 4
    return t, live, inv


def _bounds_needs(inv: list[Conjunct]) -> Needs:
    """Needs of a few conjuncts: the last two (mostly the guarded ones, which need
    others) and the first."""
    return Needs((inv[0], *inv[-2:]), ())


@pytest.mark.parametrize("name", sorted(MODELS))
def test_the_pruned_set_is_an_inductive_subset_holding_what_is_needed(name: str) -> None:
    t, live, inv = _houdini(name)
    needs = _bounds_needs(inv)
    got = pruned(t, live, inv, needs, Solver(t, None, RLIMIT), least=0)
    assert not got.why and got.queries > 0
    assert set(needs.conjuncts) <= set(got.invariant) <= set(inv)
    assert got.invariant == [c for c in inv if c in got.invariant]  # Houdini's order
    # Houdini drops nothing from an inductive set.
    again = houdini.houdini(t, live, got.invariant, Solver(t, None, RLIMIT), None)
    assert again == got.invariant


def test_an_exclusion_adds_the_conjuncts_its_core_uses() -> None:
    """A configuration the invariant excludes (a reader holding W while W = 0 is one the
    lock law excludes) brings in a conjunct that refutes it, closed for consecution."""
    t, live, inv = _houdini("rwcount-3")
    solver = Solver(t, None, RLIMIT)
    phi = z3.Or([solver.pre(m.src, 1, dict(zip(t.reads[m.src], m.reads, strict=True)))
                 for m in t.escapes])
    got = pruned(t, live, inv, Needs((), (phi,)), solver, least=0)
    assert not got.why and got.invariant
    s = solver.solver(got.invariant)
    s.add(phi)
    assert s.check() == z3.unsat
    nothing = pruned(t, live, inv, Needs((), ()), Solver(t, None, RLIMIT), least=0)
    assert nothing.invariant == [] and nothing.queries == 0


@pytest.mark.parametrize("name", ["rwcount-3", "seqlock-2"])
def test_pruning_is_deterministic(name: str) -> None:
    t, live, inv = _houdini(name)
    runs = [pruned(t, live, inv, _bounds_needs(inv), Solver(t, None, RLIMIT), least=0)
            for _ in range(2)]
    assert runs[0] == runs[1]


def test_a_pruned_certificate_is_the_same_on_every_run() -> None:
    steps = load_source(BY_NAME["rwcount"].text(6), "ser", lazy=True).steps
    assert steps is not None
    proofs = [prove_by_reduction(steps) for _ in range(2)]
    assert proofs[0].evidence is not None and proofs[0].evidence == proofs[1].evidence
    assert proofs[0].stats["conjuncts_kept"] < proofs[0].stats["conjuncts"]


def test_the_full_set_is_kept_when_the_budget_runs_out_or_a_query_is_not_unsat() -> None:
    t, live, inv = _houdini("backoff-3")
    poor = pruned(t, live, inv, _bounds_needs(inv), Solver(t, None, RLIMIT), budget=1, least=0)
    assert poor.invariant == inv and "z3 resource units spent" in poor.why
    solver = Solver(t, None, RLIMIT)
    possible = pruned(t, live, inv, Needs((), (z3.BoolVal(True, solver.ctx),)), solver, least=0)
    assert possible.invariant == inv and possible.why == "a core query was sat"
    few = pruned(t, live, inv, _bounds_needs(inv), Solver(t, None, RLIMIT), least=len(inv) + 1)
    assert few.invariant == inv and few.queries == 0 and "fewer than" in few.why


@pytest.mark.parametrize("family,size", [("rwcount", 6), ("backoff", 6), ("seqlock", 8),
                                         ("buffer", 4), ("ring2pl", 3), ("occ", 3)])
def test_certificates_with_the_pruned_invariant_are_accepted(family: str, size: int) -> None:
    model = load_source(BY_NAME[family].text(size), "ser", lazy=True)
    assert model.steps is not None
    a = prove_by_reduction(model.steps, deadline=time.monotonic() + 120)
    assert a.evidence is not None, a.reason
    assert a.stats["conjuncts_kept"] <= a.stats["conjuncts"]
    if family in ("rwcount", "backoff", "seqlock"):  # 188, 146, 116 conjuncts: pruned
        assert a.stats["conjuncts_kept"] < a.stats["conjuncts"] // 2
    cert = make_certificate(model, "serializable", "reduction", a.evidence,
                            producer("reduction"))
    r = check_certificate(cert, timeout_s=120)
    assert r.status == "valid", r.message


def test_a_rejected_pruned_certificate_falls_back_to_the_whole_invariant(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """If the checker ever rejects the pruned invariant (prune.py's one risk: an obligation
    the prover did not mirror), the pipeline offers the same proof with Houdini's whole
    invariant once, and gives a verdict only if that one is valid."""
    from prover.run import decide

    model = tmp_path / "rwcount-04.ser"
    model.write_text(BY_NAME["rwcount"].text(4))
    real, seen = decide.check_text, []

    def first_rejected(text: str, source: str, timeout: float,
                       bound: int | None = None) -> tuple[str, str]:
        seen.append(len(json.loads(text)["reduction"]["invariant"]["and"]))
        return ("invalid", "E-MOVER: forged") if len(seen) == 1 else \
            real(text, source, timeout, bound)

    monkeypatch.setattr(decide, "check_text", first_rejected)
    got = decide.decide(str(model), str(tmp_path / "c.json"), timeout_s=120,
                        check_timeout_s=60, progress=None, use_proofs=True)
    assert got.result.status == "serializable"
    assert len(seen) == 2 and seen[1] > seen[0]  # the whole invariant, second
    assert got.text is not None
    assert len(json.loads(got.text)["reduction"]["invariant"]["and"]) == seen[1]
