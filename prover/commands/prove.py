"""`ser-prove MODEL... [-o CERT | --out-dir DIR] [--timeout S] [--jobs N] [--json] [--quiet]
[--state-bound N] [--artifacts DIR] [--html FILE]`: decide serializability.

For each model: run the engines (prover/run/pipeline.py), check the certificate with the
trusted checker, and only then print the verdict; for a counterexample also the
explanation (numbered interleaving table, final multiset, why it is not serial). What
is printed, and when, is prover/commands/report.py; `--json` records are
prover/commands/jsonl.py (docs/cli.md describes both); `--html FILE` is a page of the
same records (prover/commands/html_report.py), written after the last model.

Exit codes: 0 serializable, 1 not serializable, 2 input or usage error, 3 undecided,
4 internal error (a certificate the checker did not accept: a bug). With several models
the exit code is the most severe one (4 > 2 > 3 > 1 > 0).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from prover.commands.options import (
    add_model_options,
    add_scheduler_option,
    check_parallelism,
    defines,
    seconds,
)
from prover.commands.progress import Progress
from prover.errors import SerError, UsageError

if TYPE_CHECKING:  # the run's modules load when it runs: `--help` needs none of them
    from prover.commands.report import Outcome
    from prover.run.pipeline import ProveResult


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("models", nargs="+", metavar="MODEL", help=".ser program or NS .json")
    parser.add_argument(
        "-o", "--output", metavar="CERT",
        help="certificate path (default: MODEL.cert.json beside the model; one model only)",
    )
    parser.add_argument(
        "--timeout", type=seconds(zero=True), default=60.0, metavar="S",
        help="hard deadline per model, seconds: reading, engines and checking included; "
        "past it the model is undecided (default 60)",
    )
    parser.add_argument(
        "--check-timeout", type=seconds(), default=30.0, metavar="S",
        help="time limit of the checker, seconds, at most what is left of --timeout "
        "(default 30)",
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
        help="print one JSON object per model and line on stdout (JSON Lines, format "
        "prove-result/1), each as soon as its model is decided",
    )
    add_model_options(parser)
    add_scheduler_option(parser)
    parser.add_argument(
        "--no-locking", action="store_true",
        help="do not ask the two-phase locking claim first: prove a lock-based program by "
        "the other engines (to read a reduction's movers and invariant, or to compare)",
    )
    parser.add_argument(
        "--quiet", action="store_true",
        help="print only the verdict line per model (no explanation, no progress)",
    )
    parser.add_argument(
        "--strict", action="store_true",
        help="treat every warning (a request that never answers, unreached code, a "
        "misspelt local, ...) as an input error: exit 2 (for CI pipelines)",
    )
    parser.add_argument(
        "--artifacts", metavar="DIR",
        help="also write every intermediate stage into DIR/<model stem>/ (NS JSON, Petri "
        "net .net and PNML, serial automaton DOT, S as JSON, target disjuncts as MCC "
        "files, engine log); existing files of other names are left alone",
    )
    add_html_option(parser)


def add_html_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--html", metavar="FILE",
        help="after the last model, also write one self-contained HTML page of the batch to "
        "FILE: a summary, a row per model, each model's explanation and checker verdict",
    )


def _cert_path(path: str, args: argparse.Namespace) -> str | None:
    if args.out_dir:
        return str(Path(args.out_dir) / (Path(path).name + ".cert.json"))
    cert: str | None = args.output
    return cert


def _outcome(path: str, result: ProveResult | SerError, args: argparse.Namespace) -> Outcome:
    """A settled model as the reporter's data; writes its artifacts if asked."""
    from prover.commands.report import InputFailure

    if isinstance(result, SerError):
        return InputFailure.of(path, result)
    if result.status == "error" and not result.check_status:  # a crash, not a verdict
        return result.reason
    if args.artifacts:
        from prover.run.artifacts import write_artifacts

        try:
            write_artifacts(path, result, args.artifacts)
        except (OSError, SerError) as exc:
            print(f"{path}: warning: artifacts not written: {exc}", file=sys.stderr)
    return result


def run(args: argparse.Namespace) -> int:
    from prover.commands.report import Reporter
    from prover.run.pipeline import prove_models

    started = time.monotonic()
    models: list[str] = args.models
    if any(len(values) > 1 for _, values in args.define or []):
        if args.html:
            raise UsageError("--html reports a batch of models; a sweep -D NAME=LO..HI prints "
                             "its table (or --json) instead")
        from prover.commands.sweep import run as sweep

        return sweep(args)
    if args.output and len(models) != 1:
        raise UsageError("-o/--output needs exactly one MODEL")
    if args.output and args.out_dir:
        raise UsageError("give -o/--output or --out-dir, not both")
    if not args.timeout >= 0 or not args.check_timeout > 0:  # NaN fails both
        raise UsageError("--timeout must be ≥ 0 and --check-timeout > 0")
    check_parallelism(args)
    if args.state_bound < 1:
        raise UsageError("--state-bound must be a positive integer")
    if args.out_dir:
        try:
            Path(args.out_dir).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"cannot create {args.out_dir}: {exc.strerror or exc}") from None
    dests = [_cert_path(path, args) for path in models]
    if args.out_dir:  # a/m.ser and b/m.ser would both write DIR/m.ser.cert.json
        first: dict[str, str] = {}
        for path, dest in zip(models, dests, strict=True):
            assert dest is not None
            key = os.path.realpath(dest)
            if key in first and os.path.realpath(first[key]) != os.path.realpath(path):
                raise UsageError(
                    f"{first[key]} and {path} would both write {dest}; "
                    "give models with distinct file names to one --out-dir"
                )
            first.setdefault(key, path)
    if args.html:
        from prover.commands.html_report import check_html_destination
        from prover.run.pipeline import default_certificate_path

        check_html_destination(args.html, models, [
            dest or default_certificate_path(path)
            for path, dest in zip(models, dests, strict=True)])
    reporter = Reporter(len(models), json=args.json, quiet=args.quiet, strict=args.strict)
    progress = Progress(models[0], enabled=not (args.quiet or args.json or args.jobs > 1
                                                 or len(models) > 1 or args.scheduler))

    def settled(i: int, result: ProveResult | SerError) -> None:
        progress.clear()
        reporter.add(i, models[i], _outcome(models[i], result, args))

    try:
        prove_models(
            list(zip(models, dests, strict=True)), timeout_s=args.timeout,
            check_timeout_s=args.check_timeout, parallel=args.jobs, progress=progress,
            spent_s=float(getattr(args, "spent_s", 0.0)), state_bound=args.state_bound,
            on_result=settled, ns_choice=args.ns, scheduler=args.scheduler,
            defines=defines(args), locking=not args.no_locking,
        )
    finally:
        progress.clear()
    code = reporter.finish()
    if args.html:
        from prover.commands.html_report import meta_of, render
        from prover.run.output import write_atomically

        n = len(models)
        meta = meta_of(args, time.monotonic() - started, code,
                         f"ser-prove: {n} model{'s' if n != 1 else ''}")
        write_atomically(render(reporter.records(), meta), args.html, "HTML report")
        if not args.quiet and not args.json:
            print(f"HTML report: {args.html}")
    return code
