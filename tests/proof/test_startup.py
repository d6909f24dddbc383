"""What a small model's run loads (issue 51): a reduction proof that asks no query never
loads z3, and the certificate still names z3's version, the one z3 itself reports."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from prover.run.decide import _installed_z3_version


def test_the_version_read_off_the_wheel_is_z3s_own() -> None:
    import z3

    installed = _installed_z3_version()
    assert installed is None or installed == z3.get_version_string()


def test_a_proof_without_a_query_does_not_load_z3() -> None:
    code = textwrap.dedent("""
        import sys
        from prover.frontend.load import load_source
        from prover.reduction.engine import prove_by_reduction

        steps = load_source("request main { X := 1; y := X; X := 0; y }", "ser", lazy=True).steps
        attempt = prove_by_reduction(steps, units=100_000)
        assert attempt.evidence is not None, attempt.reason
        assert attempt.stats.get("solver_queries", 0) == 0
        print("z3" in sys.modules)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_solvers_left_unused_before_z3_count_as_if_made_at_once() -> None:
    """A pass that asks nothing leaves its solver `unused`; made when z3 first is, in its
    order, it spends the resource units (the budget's count) of being made at once."""
    from prover.frontend.load import load_source
    from prover.reduction.engine import RLIMIT
    from prover.reduction.invariant import Solver, unused
    from prover.reduction.table import Limits, grow_domains

    steps = load_source("request main { L := 1; yield; X := X + L; L := 0; 0 }", "ser",
                        lazy=True).steps
    assert steps is not None
    t = grow_domains(steps, Limits())
    conjuncts = [unused(loc) for loc in sorted(t.locals)]
    late, early = Solver(t, None, RLIMIT), Solver(t, None, RLIMIT)
    late.unused(conjuncts)
    late.unused([])
    assert "ctx" not in late.__dict__
    _ = early.ctx
    early.solver(conjuncts)
    early.solver([])
    for solver in (late, early):
        solver.check(solver.solver(conjuncts[:1]))
    assert late.units == early.units > 0
    assert list(late.vars) == list(early.vars)
