"""Options that every command reading a model shares, defined once."""

from __future__ import annotations

import argparse

from prover.errors import UsageError
from prover.frontend.load import DEFAULT_NS, DEFAULT_STATE_BOUND, NS_CHOICES


def add_model_options(parser: argparse.ArgumentParser) -> None:
    """`--ns` and `--state-bound`: how the network system of a model is built."""
    parser.add_argument(
        "--ns", choices=NS_CHOICES, default=DEFAULT_NS,
        help="network system: 'reachable' (default: only (local, global) pairs that can "
        "co-occur) or 'closure' (every local state seen paired with every global state "
        "seen: larger, and can be infinite where 'reachable' is finite)",
    )
    parser.add_argument(
        "--state-bound", type=int, default=DEFAULT_STATE_BOUND, metavar="N",
        help="stop compiling a Ser program beyond N local x global states "
        f"(default {DEFAULT_STATE_BOUND})",
    )


def add_scheduler_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--scheduler", metavar="ADDRESS",
        help="run one task per model on the Dask cluster whose scheduler is at ADDRESS "
        "(e.g. tcp://127.0.0.1:8786; needs the 'cluster' extra: pip install "
        "'ser-prove[cluster]'); "
        "certificates are still written here",
    )


def check_parallelism(args: argparse.Namespace) -> None:
    """`--jobs N` (N ≥ 1) on this machine, or `--scheduler` for a cluster, not both."""
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if args.scheduler is not None and args.jobs != 1:
        raise UsageError("give --jobs N (this machine) or --scheduler ADDRESS (a cluster), "
                         "not both")
