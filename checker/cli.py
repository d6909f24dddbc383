"""`ser-check-cert`: check one certificate, or every certificate of a folder.

Exit codes: 0 valid, 1 invalid, 2 unusable input, 3 undecided. Never a traceback.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import signal
import stat
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import NoReturn

from checker import __version__
from checker.api import CheckResult, check_certificate
from checker.certificate import Limits
from checker.errors import CheckerError
from checker.report import EXIT_CODES, as_json, as_json_rows, human, table


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # usage errors exit 2, like unusable input
        self.print_usage(sys.stderr)
        print(f"ser-check-cert: error[E-USAGE]: {message}", file=sys.stderr)
        raise SystemExit(2)


def _parser() -> argparse.ArgumentParser:
    d = Limits()
    p = _Parser(
        prog="ser-check-cert",
        description="Verify a ser-certificate/1 file independently of the prover (cvc5). "
        "Exit codes: 0 valid, 1 invalid, 2 unusable input, 3 undecided.",
    )
    p.add_argument("--version", action="version", version=f"ser-check-cert {__version__}")
    p.add_argument("cert", nargs="?", help="certificate (JSON)")
    p.add_argument(
        "--all", metavar="DIR",
        help="check every *.json certificate in DIR and print a table (an empty DIR is an error)",
    )
    p.add_argument(
        "--model", metavar="MODEL",
        help="with CERT: the model file, whose SHA-256 must match the embedded model and whose "
        "constants the certificate must have been made with (its own values, or those of -D); "
        "with --all: a folder of models, where certificate NAME.cert.json must match model "
        "NAME (a missing or changed model makes the certificate stale: invalid)",
    )
    p.add_argument("-D", "--define", action="append", type=_define, metavar="NAME=VALUE",
                   help="with CERT: the certificate must have been made with the model's "
                   "constant NAME at VALUE (else invalid, E-CONSTANTS); repeatable")
    p.add_argument("--json", action="store_true", help="machine-readable result on stdout")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="with --all: check each certificate as one task on the Dask cluster "
                   "whose scheduler is at ADDRESS (needs the 'cluster' extra: pip install "
                   "'ser-prove[cluster]')")
    p.add_argument("--timeout", type=_seconds, default=60.0, metavar="S",
                   help="seconds for the whole check of one certificate (default 60); past "
                   "them the answer is undecided (exit 3)")
    p.add_argument("--max-bytes", type=_count, default=d.max_bytes, metavar="N",
                   help=f"largest certificate accepted, bytes (default {d.max_bytes})")
    p.add_argument("--max-depth", type=_count, default=d.max_depth, metavar="N",
                   help=f"deepest JSON/formula nesting accepted (default {d.max_depth})")
    p.add_argument("--max-nodes", type=_count, default=d.max_nodes, metavar="N",
                   help=f"most formula nodes accepted (default {d.max_nodes})")
    p.add_argument("--state-bound", type=_count, default=d.state_bound, metavar="N",
                   help="local plus global states the network system a proof names may have "
                   f"(default {d.state_bound}; ser-prove passes its own --state-bound when "
                   "given one)")
    p.add_argument("--max-vars", type=_count, default=d.max_vars, metavar="N",
                   help=f"most auxiliary variables accepted (default {d.max_vars})")
    return p


MAX_SECONDS = 86_400.0  # a day, as ser-prove's --timeout (docs/limits.md)


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 < value <= MAX_SECONDS:  # also rejects nan and inf
        raise argparse.ArgumentTypeError(f"seconds must be above 0 and at most {MAX_SECONDS:g}:"
                                         f" {text!r}")
    return value


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text!r}")
    return value


def _other_constants(result: CheckResult, raw: bytes, given: dict[str, int],
                     pinned: bool) -> CheckResult:  # fmt: skip
    """A certificate checked against constants (`-D`) it was not made with is invalid
    (E-CONSTANTS): every constant of the model must have the value the model gives it with
    only `given` set (a constant computed from a given one included); `pinned` (a model
    file given): with no `-D`, the model's own values. Asked only of a certificate the
    checker accepted, so it parses."""
    if result.status != "valid" or not (given or pinned):
        return result
    model = json.loads(raw)["model"]
    try:
        made, want = model.get("constants", {}), _constants(model, given)
    except (CheckerError, RecursionError) as exc:  # e.g. K / (K - 3) at -D K=3
        why = exc.message if isinstance(exc, CheckerError) else "nested too deeply"
        return dataclasses.replace(result, status="invalid", code="E-CONSTANTS", message=(
            f"-D: the model's constants cannot be computed with these values ({why})"))
    for name in sorted(set(made) | set(want) | set(given)):
        if name not in want or made.get(name) != want[name]:
            asked = f"{name}={want[name]}" if name in want else f"a constant {name}"
            was = f"{name}={made[name]}" if name in made else f"no constant {name}"
            who = "-D asks for" if given else "the model file gives"
            return dataclasses.replace(result, status="invalid", code="E-CONSTANTS", message=(
                f"{who} {asked}: the certificate was made with {was}"))
    return result


def _constants(model: dict[str, object], given: dict[str, int]) -> dict[str, int]:
    """The model's constants in order, each `given` value or else its own expression's."""
    from checker.model import parse_source
    from checker.sizes import _Writer

    if model["kind"] != "ser":
        return {}
    kind, decls, _ = parse_source(str(model["source"]))
    values: dict[str, int] = {}
    scope: dict[str, object] = {"values": values, "arrays": {}, "facts": {}}
    for d in decls if kind == "sizes" else []:
        if d[0] == "const":
            name = str(d[1])
            values[name] = given[name] if name in given else _Writer().constant(
                d[2], scope, f"the value of {name}")
    return values


def _define(text: str) -> tuple[str, int]:
    name, _, value = text.partition("=")
    try:
        if not (name.isidentifier() and value.lstrip("-").isdigit() and value.isascii()
                and len(value) <= 20 and -2**63 <= int(value) < 2**63):
            raise ValueError(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"write NAME=VALUE with an integer VALUE: {text!r}"
                                         ) from None
    return name, int(value)


def _read(path: str, limit: int) -> bytes:
    """Regular files only (a FIFO must not hang the open: non-blocking, then fstat)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise OSError(f"{path}: " + ("is a directory" if stat.S_ISDIR(mode) else
                                     "not a regular file"))
    with os.fdopen(fd, "rb") as f:
        return f.read(limit + 1)  # one byte over the limit is enough to reject


def _check(path: str, args: argparse.Namespace, limits: Limits,
           model_path: str | None) -> CheckResult:
    model = _read(model_path, limits.max_bytes) if model_path else None
    shown = _Progress() if sys.stderr.isatty() and args.all is None else None
    try:
        raw = _read(path, limits.max_bytes)
        result = check_certificate(raw, model_text=model, timeout_s=args.timeout, limits=limits,
                                   progress=shown)
        return _other_constants(result, raw, dict(args.define or []), model is not None)
    finally:
        if shown is not None:
            shown.clear()


class _Progress:
    """The obligation being checked, on stderr, once the check has run a second."""

    def __init__(self) -> None:
        self.start, self.shown = time.monotonic(), False

    def __call__(self, name: str, done: int) -> None:
        spent = time.monotonic() - self.start
        if spent >= 1.0:
            sys.stderr.write(f"\r\x1b[Kchecking: {name[:60]} ({done} obligations discharged, "
                             f"{spent:.0f} s)")
            sys.stderr.flush()
            self.shown = True

    def clear(self) -> None:
        if self.shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


def _stale(why: str) -> CheckResult:
    return CheckResult("invalid", "E-MODEL-FILE", f"model-file: {why}", (), None)


# Which outcome of a folder decides its exit code: any invalid certificate first.
_SEVERITY = ("invalid", "unusable", "undecided", "valid")


def _check_all(args: argparse.Namespace, limits: Limits) -> int:
    folder = Path(args.all)
    if not folder.is_dir():
        print(f"ser-check-cert: error[E-USAGE]: {folder}: not a folder", file=sys.stderr)
        return EXIT_CODES["unusable"]
    paths = sorted(folder.glob("*.json"))
    if not paths:
        print(f"ser-check-cert: error[E-USAGE]: {folder}: no certificates (*.json)",
              file=sys.stderr)
        return EXIT_CODES["unusable"]
    models = Path(args.model) if args.model else None
    if models is not None and not models.is_dir():
        print(f"ser-check-cert: error[E-USAGE]: --model with --all must be a folder: {models}",
              file=sys.stderr)
        return EXIT_CODES["unusable"]
    found: dict[str, CheckResult] = {}
    todo: list[tuple[str, str, str | None]] = []  # (name, certificate, model or None)
    for p in paths:
        model_path = None
        if models is not None:
            model_name = p.name.removesuffix(".json").removesuffix(".cert")
            if not (models / model_name).is_file():
                found[p.name] = _stale(f"no model {models / model_name}")
                continue
            model_path = str(models / model_name)
        todo.append((p.name, str(p), model_path))
    if args.scheduler is None:
        found.update((name, _check(cert, args, limits, model)) for name, cert, model in todo)
    else:
        found.update(list(_on_cluster(todo, args, limits)))
    rows = [(p.name, found[p.name]) for p in paths]
    if args.json:
        _emit(as_json_rows(rows))
    else:  # the table, then one summary line (the status words in severity order)
        counts = [(s, sum(1 for _, r in rows if r.status == s)) for s in _SEVERITY]
        _emit(table(rows) + f"\n{len(rows)} certificates: "
              + ", ".join(f"{n} {s}" for s, n in counts if n))
    worst = min((_SEVERITY.index(r.status) for _, r in rows), default=len(_SEVERITY) - 1)
    return EXIT_CODES[_SEVERITY[worst]]


class _NoCluster(Exception):
    """--scheduler given, but Dask is not installed or the scheduler does not answer."""


def _on_cluster(todo: list[tuple[str, str, str | None]], args: argparse.Namespace,
                limits: Limits) -> Iterator[tuple[str, CheckResult]]:
    """--all --scheduler: one check_certificate per certificate on a Dask cluster (the
    bytes travel, not the paths); a certificate whose workers died is undecided."""
    try:
        from distributed import Client, as_completed
        from distributed.scheduler import KilledWorker
    except ImportError:
        raise _NoCluster("--scheduler needs Dask: pip install 'ser-prove[cluster]'") from None
    try:
        client = Client(args.scheduler, timeout=20, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        raise _NoCluster(f"cannot reach the Dask scheduler at {args.scheduler}: {exc}") from None
    try:
        futures = {client.submit(
            check_certificate, _read(cert, limits.max_bytes), pure=False, timeout_s=args.timeout,
            model_text=_read(model, limits.max_bytes) if model else None, limits=limits): name
            for name, cert, model in todo}
        for fut in as_completed(futures, loop=client.loop):
            try:
                yield futures[fut], fut.result()
            except KilledWorker:
                yield futures[fut], CheckResult("undecided", "E-WORKER", "cluster: the workers "
                                                "checking it died", (), None)
    finally:
        client.close()


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if (args.cert is None) == (args.all is None):
        print("ser-check-cert: error[E-USAGE]: give exactly one of CERT or --all DIR",
              file=sys.stderr)
        return 2
    if args.scheduler is not None and args.all is None:
        print("ser-check-cert: error[E-USAGE]: --scheduler goes with --all DIR", file=sys.stderr)
        return 2
    if len(dict(args.define or [])) != len(set(args.define or [])):
        print("ser-check-cert: error[E-USAGE]: -D gives one constant two values", file=sys.stderr)
        return 2
    limits = Limits(args.max_bytes, args.max_depth, args.max_nodes, args.max_vars,
                    state_bound=args.state_bound)
    try:
        if args.all is not None:
            return _check_all(args, limits)
        result = _check(args.cert, args, limits, args.model)
    except OSError as exc:
        print(f"ser-check-cert: error[E-USAGE]: cannot read: {exc}", file=sys.stderr)
        return EXIT_CODES["unusable"]
    except _NoCluster as exc:
        print(f"ser-check-cert: error[E-USAGE]: {exc}", file=sys.stderr)
        return EXIT_CODES["unusable"]
    _emit(as_json(result, args.cert) if args.json else human(result, args.cert))
    return EXIT_CODES[result.status]


def _emit(text: str) -> None:
    enc = sys.stdout.encoding or "utf-8"  # a lone surrogate in a name must still print
    text = text.encode(enc, "backslashreplace").decode(enc, "replace")
    try:
        print(text)
        sys.stdout.flush()
    except BrokenPipeError:  # a closed pipe (e.g. `| head`) is not an error of the check
        sys.stderr.close()


class _Terminated(KeyboardInterrupt):
    pass


def _terminated(signum: int, frame: object) -> None:
    raise _Terminated


def run() -> int:
    """Console entry point: Ctrl-C and SIGTERM print one line, exit 130 and 143."""
    signal.signal(signal.SIGTERM, _terminated)
    try:
        code = main()
        sys.stdout.flush()
        return code
    except SystemExit as exc:  # --help and --version exit through argparse
        sys.stdout.flush()
        return 0 if exc.code is None else exc.code if isinstance(exc.code, int) else 2
    except BrokenPipeError:  # `ser-check-cert -h | head`: the reader left, not an error here
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt as exc:
        print("ser-check-cert: interrupted", file=sys.stderr)
        return 143 if isinstance(exc, _Terminated) else 130


if __name__ == "__main__":
    raise SystemExit(run())
