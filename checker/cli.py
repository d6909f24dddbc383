"""`ser-check-cert`: check one certificate, or every certificate of a folder.

Exit codes: 0 valid, 1 invalid, 2 unusable input, 3 undecided. Never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from checker.api import EXIT_CODES, CheckResult, check_certificate
from checker.certificate import Limits
from checker.report import as_json, human, table


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # usage errors exit 2, like unusable input
        self.print_usage(sys.stderr)
        print(f"ser-check-cert: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def _parser() -> argparse.ArgumentParser:
    d = Limits()
    p = _Parser(prog="ser-check-cert", description="Verify a ser-certificate/1 file.")
    p.add_argument("cert", nargs="?", help="certificate (JSON)")
    p.add_argument("--all", metavar="DIR", help="check every *.json certificate in DIR")
    p.add_argument("--model", help="model file; its SHA-256 must match the embedded model")
    p.add_argument("--json", action="store_true", help="machine-readable result")
    p.add_argument("--timeout", type=float, default=30.0, help="seconds per solver query")
    p.add_argument("--max-bytes", type=int, default=d.max_bytes)
    p.add_argument("--max-depth", type=int, default=d.max_depth)
    p.add_argument("--max-nodes", type=int, default=d.max_nodes)
    p.add_argument("--max-vars", type=int, default=d.max_vars)
    return p


def _read(path: str, limit: int) -> bytes:
    with open(path, "rb") as f:
        return f.read(limit + 1)  # one byte over the limit is enough to reject


def _check(path: str, args: argparse.Namespace, limits: Limits) -> CheckResult:
    model = _read(args.model, limits.max_bytes) if args.model else None
    return check_certificate(
        _read(path, limits.max_bytes), model_text=model, timeout_s=args.timeout, limits=limits
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if (args.cert is None) == (args.all is None):
        print("ser-check-cert: give exactly one of CERT or --all DIR", file=sys.stderr)
        return 2
    if args.timeout <= 0:
        print("ser-check-cert: --timeout must be positive", file=sys.stderr)
        return 2
    limits = Limits(args.max_bytes, args.max_depth, args.max_nodes, args.max_vars)
    try:
        if args.all is not None:
            paths = sorted(Path(args.all).glob("*.json"))
            rows = [(p.name, _check(str(p), args, limits)) for p in paths]
            _emit(table(rows))
            return max([r.exit_code for _, r in rows], default=0)
        result = _check(args.cert, args, limits)
    except OSError as exc:
        print(f"ser-check-cert: cannot read: {exc}", file=sys.stderr)
        return EXIT_CODES["unusable"]
    _emit(as_json(result, args.cert) if args.json else human(result, args.cert))
    return result.exit_code


def _emit(text: str) -> None:
    try:
        print(text)
        sys.stdout.flush()
    except BrokenPipeError:  # a closed pipe (e.g. `| head`) is not an error of the check
        sys.stderr.close()


if __name__ == "__main__":
    raise SystemExit(main())
