"""`ser-prove MODEL... [-o CERT | --out-dir DIR] [--timeout S] [--jobs N] [--json] [--quiet]
[--state-bound N] [--artifacts DIR]`: decide serializability.

For each model: run the engines (prover/pipeline.py), check the certificate with the
trusted checker, and only then print the verdict; for a counterexample also the
explanation (numbered interleaving table, final multiset, why it is not serial). What
is printed, and when, is prover/commands/report.py; `--json` records are
prover/commands/jsonl.py (docs/cli.md describes both).

Exit codes: 0 serializable, 1 not serializable, 2 input or usage error, 3 undecided,
4 internal error (a certificate the checker did not accept: a bug). With several models
the exit code is the most severe one (4 > 2 > 3 > 1 > 0).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from prover.commands.report import InputFailure, Outcome, Reporter
from prover.errors import SerError, UsageError
from prover.frontend.load import DEFAULT_STATE_BOUND
from prover.pipeline import prove_model


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("models", nargs="+", metavar="MODEL", help=".ser program or NS .json")
    parser.add_argument(
        "-o", "--output", metavar="CERT",
        help="certificate path (default: MODEL.cert.json beside the model; one model only)",
    )
    parser.add_argument(
        "--timeout", type=float, default=60.0, metavar="S",
        help="time budget of the engines per model, seconds (default 60)",
    )
    parser.add_argument(
        "--check-timeout", type=float, default=30.0, metavar="S",
        help="time limit per checker query, seconds (default 30)",
    )
    parser.add_argument(
        "--out-dir", metavar="DIR",
        help="write each certificate as DIR/<model file name>.cert.json (DIR is created)",
    )
    parser.add_argument(
        "--jobs", type=int, default=1, metavar="N",
        help="decide up to N models at the same time, one process each (default 1)",
    )
    parser.add_argument(
        "--json", action="store_true",
        help="print one JSON object per model and line on stdout (JSON Lines, "
        "schemas/prove-result.schema.json), each as soon as its model is decided",
    )
    parser.add_argument(
        "--quiet", action="store_true",
        help="print only the verdict line per model (no explanation, no progress)",
    )
    parser.add_argument(
        "--state-bound", type=int, default=DEFAULT_STATE_BOUND, metavar="N",
        help="stop compiling a Ser program beyond N local x global states "
        f"(default {DEFAULT_STATE_BOUND})",
    )
    parser.add_argument(
        "--artifacts", metavar="DIR",
        help="also write every intermediate stage into DIR/<model stem>/ (NS JSON, Petri "
        "net .net and PNML, serial automaton DOT, S as JSON, target disjuncts as MCC "
        "files, engine log); existing files of other names are left alone",
    )


class _Progress:
    """Progress on stderr, only when stderr is a terminal and the run exceeds 1 s."""

    def __init__(self, label: str, *, enabled: bool = True) -> None:
        self.label = label
        self.start = time.monotonic()
        self.last = 0.0
        self.shown = False
        self.tty = enabled and sys.stderr.isatty()

    def __call__(self, msg: str) -> None:
        if not self.tty:
            return
        now = time.monotonic()
        if now - self.start < 1.0 or now - self.last < 0.2:
            return
        self.last = now
        self.shown = True
        sys.stderr.write(f"\r\x1b[K{self.label}: {msg} ({now - self.start:.0f} s)")
        sys.stderr.flush()

    def clear(self) -> None:
        if self.shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


def _decide(path: str, args: argparse.Namespace) -> Outcome:
    """One model's outcome, as data: it runs in a worker process with --jobs."""
    progress = _Progress(path, enabled=not (args.quiet or args.json or args.jobs > 1))
    cert_path = args.output
    if args.out_dir:
        cert_path = str(Path(args.out_dir) / (Path(path).name + ".cert.json"))
    try:
        result = prove_model(
            path, cert_path=cert_path, timeout_s=args.timeout,
            check_timeout_s=args.check_timeout, progress=progress,
            state_bound=args.state_bound,
        )
    except SerError as exc:
        progress.clear()
        return InputFailure.of(path, exc)
    except Exception as exc:  # a bug: never let it look like a verdict (exit 1)
        progress.clear()
        return f"internal error (a bug, please report it): {type(exc).__name__}: {exc}"
    progress.clear()
    if args.artifacts:
        from prover.artifacts import write_artifacts

        try:
            write_artifacts(path, result, args.artifacts)
        except (OSError, SerError) as exc:
            print(f"{path}: warning: artifacts not written: {exc}", file=sys.stderr)
    return result


def run(args: argparse.Namespace) -> int:
    models: list[str] = args.models
    if args.output and len(models) != 1:
        raise UsageError("-o/--output needs exactly one MODEL")
    if args.output and args.out_dir:
        raise UsageError("give -o/--output or --out-dir, not both")
    if args.timeout < 0 or args.check_timeout <= 0:
        raise UsageError("--timeout must be ≥ 0 and --check-timeout > 0")
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if args.state_bound < 1:
        raise UsageError("--state-bound must be a positive integer")
    if args.out_dir:
        try:
            Path(args.out_dir).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"cannot create {args.out_dir}: {exc.strerror or exc}") from None
    reporter = Reporter(len(models), json=args.json, quiet=args.quiet)
    if args.jobs > 1 and len(models) > 1:
        from concurrent.futures import ProcessPoolExecutor, as_completed

        with ProcessPoolExecutor(max_workers=min(args.jobs, len(models))) as pool:
            futures = {pool.submit(_decide, path, args): i for i, path in enumerate(models)}
            for fut in as_completed(futures):  # report each model as soon as it is settled
                i = futures[fut]
                reporter.add(i, models[i], fut.result())
    else:
        for i, path in enumerate(models):
            reporter.add(i, path, _decide(path, args))
    return reporter.finish()
