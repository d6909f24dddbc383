"""Options that every command reading a model shares, defined once."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

from prover.errors import UsageError
from prover.frontend.choices import DEFAULT_NS, DEFAULT_STATE_BOUND, NS_CHOICES
from prover.run.deadline import MEMORY_LIMIT_BYTES


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
    add_define_option(parser, sweep=parser.prog.split()[-1] == "ser-prove")


MAX_SIZES = 256  # values of one `-D NAME=LO..HI` sweep


def define(text: str) -> tuple[str, tuple[int, ...]]:
    """An argparse type for `-D NAME=VALUE`, `NAME=LO..HI` or `NAME=V1,V2,...`."""
    name, eq, spec = text.partition("=")
    name = name.strip()
    if not eq or not name.isidentifier() or not name.isascii():
        raise argparse.ArgumentTypeError(f"{text!r}: write NAME=VALUE (e.g. -D K=8), "
                                         "NAME=LO..HI or NAME=V1,V2,...")
    try:
        if ".." in spec:
            lo, hi = (_integer(x) for x in spec.split("..", 1))
            values = tuple(range(lo, hi + 1))
        else:
            values = tuple(_integer(x) for x in spec.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r}: {name}'s values must be integers (VALUE, LO..HI or V1,V2,...)") from None
    if not 1 <= len(values) <= MAX_SIZES:
        raise argparse.ArgumentTypeError(f"{text!r}: give 1 to {MAX_SIZES} values of {name}")
    return name, values


def _integer(text: str) -> int:
    text = text.strip()
    if not text.lstrip("-").isdigit() or not text.isascii() or len(text) > 20:
        raise ValueError(text)
    value = int(text)
    if not -(2**63) <= value < 2**63:
        raise ValueError(text)
    return value


def given_values(args: argparse.Namespace) -> dict[str, tuple[int, ...]]:
    """The values `-D` gives each constant; the same constant given twice, differently, is a
    usage error."""
    pairs = getattr(args, "define", None) or []
    given = dict(pairs)
    if len(given) != len(set(pairs)):
        raise UsageError("-D gives one constant two values")
    return given


def defines(args: argparse.Namespace) -> tuple[tuple[str, int], ...]:
    """The constants given by `-D`, one value each (a sweep is the prover's alone)."""
    given = given_values(args)
    swept = [n for n, vs in given.items() if len(vs) > 1]
    if swept:
        raise UsageError(f"-D {swept[0]}: this command takes one value per constant; "
                         "`ser-prove MODEL -D K=LO..HI` decides a model at several sizes")
    return tuple((n, vs[0]) for n, vs in given.items())


def add_define_option(parser: argparse.ArgumentParser, sweep: bool = False) -> None:
    more = (" (or NAME=LO..HI, NAME=V1,V2,...: decide the model at each value and print "
            "a table of sizes)") if sweep else ""
    parser.add_argument(
        "-D", "--define", type=define, action="append", metavar="NAME=VALUE",
        help=f"give the program's constant NAME (`const NAME := ...;`) the value VALUE{more}; "
        "repeat for several constants")


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


MAX_SECONDS = 86_400.0  # a day: a deadline every clock and timer of the platform can hold


def seconds(zero: bool = False) -> Callable[[str], float]:
    """An argparse type for a budget in seconds: a finite number above 0 (or 0 itself, when
    `zero`: no engine runs) and at most MAX_SECONDS; anything else is a usage error."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
        if not (math.isfinite(value) and (value > 0 or zero and value == 0)
                and value <= MAX_SECONDS):  # fmt: skip
            low = "at least 0" if zero else "above 0"
            raise argparse.ArgumentTypeError(
                f"{text!r}: give a number of seconds {low} and at most {MAX_SECONDS:g} (a day)")
        return value

    return parse


def add_deadline_option(parser: argparse.ArgumentParser, default: float, what: str) -> None:
    parser.add_argument(
        "--timeout", type=seconds(), default=default, metavar="S",
        help=f"hard deadline, seconds (default {default:g}): {what}; past it, exit 3; the "
        f"run is also limited to {MEMORY_LIMIT_BYTES // 2**20:,} MiB of memory")
