"""`ser-prove MODEL... [-o CERT | --out-dir DIR] [--timeout S] [--jobs N] [--json] [--quiet]
[--artifacts DIR]`: decide serializability.

For each model: run the engines (prover/pipeline.py), check the certificate with the
trusted checker, and only then print the verdict; for a counterexample also the
explanation (numbered interleaving table, final multiset, why it is not serial).

Exit codes: 0 serializable, 1 not serializable, 2 input or usage error, 3 undecided,
4 internal error (a certificate the checker did not accept: a bug). With several models
the exit code is the most severe one (4 > 2 > 3 > 1 > 0).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from prover.errors import SerError, UsageError
from prover.frontend.load import DEFAULT_NS, NS_CHOICES
from prover.pipeline import (
    EXIT_INTERNAL,
    EXIT_NOT_SERIALIZABLE,
    EXIT_SERIALIZABLE,
    EXIT_UNDECIDED,
    EXIT_USAGE,
    ProveResult,
    describe_times,
    prove_model,
)

_SEVERITY = [EXIT_INTERNAL, EXIT_USAGE, EXIT_UNDECIDED, EXIT_NOT_SERIALIZABLE, EXIT_SERIALIZABLE]


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
    parser.add_argument("--json", action="store_true", help="print results as JSON on stdout")
    parser.add_argument(
        "--ns", choices=NS_CHOICES, default=DEFAULT_NS,
        help="network system: 'reachable' (default: only (local, global) pairs that can "
        "co-occur) or 'closure' (the reference's Cartesian construction, paper sizes)",
    )
    parser.add_argument(
        "--quiet", action="store_true",
        help="print only the verdict line per model (no explanation, no progress)",
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


def _explanation(result: ProveResult) -> tuple[str, dict[str, Any] | None]:
    if result.counterexample is None:
        return "", None
    from prover.certificate.explain import explain, explanation_json, render_text

    if result.ns is None:
        return "", None
    expl = explain(result.ns, result.counterexample)
    return render_text(expl), explanation_json(expl)


def _sizes(result: ProveResult) -> dict[str, dict[str, int]] | None:
    """NS and interleaving-net sizes of the decided model (for the summary and --json)."""
    if result.ns is None:
        return None
    from prover.petri.build import build_interleaving_net

    return {"network_system": result.ns.sizes(),
            "petri_net": build_interleaving_net(result.ns).sizes()}


def _result_json(result: ProveResult, expl: dict[str, Any] | None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "model": result.model_path,
        "verdict": result.status,
        "exit_code": result.exit_code,
        "certificate": result.certificate_path,
        "engine": result.engine,
        "checker": {"status": result.check_status, "message": result.check_message},
        "reason": result.reason,
        "times": {k: round(v, 3) for k, v in result.times.items()},
        "stats": result.stats,
        "sizes": _sizes(result),
    }
    if expl is not None:
        out["counterexample"] = expl
    return out


def _error_json(path: str, exc: SerError) -> dict[str, Any]:
    return {"model": path, "verdict": "input_error", "exit_code": EXIT_USAGE,
            "error": {"code": exc.code, "message": exc.render()}}


def _decide(path: str, args: argparse.Namespace) -> tuple[ProveResult | None, dict[str, Any]]:
    """One model: (result, error document) — exactly one is meaningful. Runs in a worker
    process with --jobs, so it returns data instead of printing."""
    progress = _Progress(path, enabled=not (args.quiet or args.json or args.jobs > 1))
    cert_path = args.output
    if args.out_dir:
        cert_path = str(Path(args.out_dir) / (Path(path).name + ".cert.json"))
    try:
        result = prove_model(
            path, cert_path=cert_path, timeout_s=args.timeout,
            check_timeout_s=args.check_timeout, progress=progress, ns_choice=args.ns,
        )
    except SerError as exc:
        progress.clear()
        return None, _error_json(path, exc)
    except Exception as exc:  # a bug: never let it look like a verdict (exit 1)
        progress.clear()
        msg = f"internal error (a bug, please report it): {type(exc).__name__}: {exc}"
        return None, {"model": path, "verdict": "error", "exit_code": EXIT_INTERNAL,
                      "reason": msg}
    progress.clear()
    if args.artifacts:
        from prover.artifacts import write_artifacts

        try:
            write_artifacts(path, result, args.artifacts)
        except (OSError, SerError) as exc:
            print(f"{path}: warning: artifacts not written: {exc}", file=sys.stderr)
    return result, {}


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
    if args.out_dir:
        try:
            Path(args.out_dir).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"cannot create {args.out_dir}: {exc.strerror or exc}") from None
    if args.jobs > 1 and len(models) > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(max_workers=min(args.jobs, len(models))) as pool:
            outcomes = list(pool.map(_decide, models, [args] * len(models)))
    else:
        outcomes = [_decide(path, args) for path in models]
    codes: list[int] = []
    docs: list[dict[str, Any]] = []
    for path, (result, error) in zip(models, outcomes, strict=True):
        if result is None:
            codes.append(int(error["exit_code"]))
            if args.json:
                docs.append(error)
            else:
                print(error.get("error", {}).get("message") or f"{path}: {error['reason']}",
                      file=sys.stderr)
            continue
        codes.append(result.exit_code)
        text, data = _explanation(result) if result.status == "not_serializable" else ("", None)
        if args.json:
            docs.append(_result_json(result, data))
            continue
        _print_text(result, "" if args.quiet else text, quiet=args.quiet)
    if args.json:
        payload: Any = docs[0] if len(docs) == 1 else docs
        print(json.dumps(payload, indent=2, ensure_ascii=False))
    return min(codes, key=_SEVERITY.index)


def _print_text(result: ProveResult, explanation: str, *, quiet: bool = False) -> None:
    path = result.model_path
    if result.status == "error":
        print(f"{path}: error: {result.reason}", file=sys.stderr)
        return
    if result.status == "undecided":
        print(f"{path}: undecided ({result.reason})")
        return
    word = "serializable" if result.status == "serializable" else "NOT serializable"
    print(f"{path}: {word}")
    if quiet:
        return
    if explanation:
        print()
        print(explanation)
        print()
    print(f"engine: {result.engine}; time: {describe_times(result.times)}")
    sizes = _sizes(result)
    if sizes is not None:
        ns, net = sizes["network_system"], sizes["petri_net"]
        print(
            f"model: NS {ns['globals']} globals, {ns['locals']} locals, "
            f"{ns['requests']} requests, {ns['responses']} responses, "
            f"{ns['transitions']} transitions; Petri net {net['places']} places, "
            f"{net['transitions']} transitions"
        )
    print(f"certificate: {result.certificate_path} (checked: {result.check_message})")
