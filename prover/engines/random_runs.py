"""Counterexamples by random runs: where the explicit search runs out of states before it
reaches the requests a violation needs (a seqlock reader whose stale sequence number two
whole writers overtake: 3 requests, about 30 steps, beyond 20,000 states of 2), a few
thousand seeded runs of the simulator (prover/engines/simulation.py) often meet one.

Runs of `k` requests, k from the first number the exhaustive search did not cover, each
drawn from its own seed, half of them in bursts (the request that moved last moves again
with a high chance, so that whole requests overtake a paused one); a finished run whose
answers no serial order of its requests gives is a counterexample, certified and checked
like the explicit search's. Bounded by runs and steps, never by the clock (the deadline
only stops it early): the same model gives the same answer on any machine that finishes.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from prover.engines import Counterexample
from prover.engines.simulation import Simulator
from prover.frontend.steps import ProgramSteps

RUNS = 4_000  # runs in all, over the sizes tried
FIRST_RUNS = 300
"""Runs tried before the reduction engine's first attempt (which can take most of the
budget on a program it does not prove): a seqlock reader overtaken by two writers needs
68; the rest come after it."""
STEPS = 400
"""Steps of one run at most, per request in it: two requests of 250 steps each need 502."""
MAX_REQUESTS = 4  # the largest k tried
TOTAL_STEPS = 200_000  # steps of all the runs of one call at most
BURST = 0.9  # the chance that a run in bursts moves the same request again


@dataclass(frozen=True)
class Found:
    """What the runs found: a counterexample (or None), and how many runs they took."""

    counterexample: Counterexample | None
    runs: int


def search_randomly(steps: ProgramSteps, first: int, deadline: float | None = None,
                    seeds: range = range(RUNS)) -> Found:
    """A counterexample among random runs of `first`..MAX_REQUESTS requests (an equal
    share of the `seeds` each), or None."""
    sizes = list(range(max(first, 2), MAX_REQUESTS + 1))
    if not sizes:
        return Found(None, 0)
    sim = Simulator(steps)
    done = taken = 0
    for seed in seeds:
        if taken >= TOTAL_STEPS or deadline is not None and time.monotonic() > deadline:
            break
        k = sizes[seed % len(sizes)]
        run = sim.run(seed, k=k, max_steps=STEPS * k, deadline=deadline,
                      burst=BURST if seed // len(sizes) % 2 else 0.0)
        done, taken = done + 1, taken + run.steps
        if not run.finished:
            continue
        if sim.serial(run).serializable is False:
            cex = Counterexample(run.events, run.completed, len(run.requests),
                                 lower_bound=first, engine="random-runs")
            return Found(cex, done)
    return Found(None, done)
