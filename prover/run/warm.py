"""Imports and parsers built once in a parent process, so that every forked child (a
local batch, the fork server, a Dask worker) inherits them. Its own module so that the
run-time plumbing that forks (pipeline, server, cluster) imports it without importing
each other."""

from __future__ import annotations


def warm(batch: bool) -> None:
    """Build, once in the parent, what every child needs: each forked child inherits the
    two Ser parsers (the checker's takes about 0.1 s to build) and the imported modules
    instead of repeating that work. Only a batch also imports the engines and solvers, which a
    model decided by the first explicit search never needs."""
    import checker.api  # noqa: F401  (builds the checker's parser)
    from prover.frontend.parser import warm_parser

    warm_parser()
    if batch:
        import prover.engines.portfolio  # noqa: F401
        import prover.smt.invariant  # noqa: F401
        from checker.formula import solver_modules

        solver_modules()  # the checker's pySMT and cvc5, which it loads on first use
        import pysmt.solvers.cvcfive  # noqa: F401
