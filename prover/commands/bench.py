"""`ser-prove bench PATH... [--jobs N] [--timeout S] [--ns KIND] [--json FILE] [--html FILE]`:
the performance harness.

Every model runs as a user would run it: one `ser-prove` process (which checks its own
certificate before it reports) and then one `ser-check-cert` process on the written
certificate, each timed by wall clock, start-up included. `expected.json` next to the
models, when present, gives the expected verdicts. Models named FAMILY-SIZE (the scale
set: counter-03 ... counter-64) are also summarised per family, one column per size, to
show how the time grows with the parameter. No timing is asserted anywhere; this
command prints the figures. Exit code: 0 when every model is decided and agrees, 3 when
some model is undecided, 1 when something is wrong (see `exit_code`). `--html FILE` is the
page of `ser-prove MODEL... --html` (prover/commands/html_report.py) made of each model's
`--json` record, with the bench's figures beside it.
"""

from __future__ import annotations

import argparse
import importlib.resources
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import jsonschema

from prover.commands import jsonl
from prover.commands.options import add_scheduler_option, check_parallelism, seconds
from prover.commands.progress import LOG_EVERY
from prover.errors import UsageError
from prover.frontend.load import DEFAULT_NS, MODEL_SUFFIXES, NS_CHOICES
from prover.run.output import check_destination, check_folder, write_atomically

DECIDED = ("serializable", "not_serializable", "assertion_violated")
VERDICT_OF_EXIT = {0: "serializable", 1: "not_serializable", 2: "input_error", 3: "undecided",
                   4: "internal_error"}


@dataclass(frozen=True)
class BenchRow:
    model: str
    expected: str | None
    verdict: str
    agrees: bool | None
    prove_s: float
    check_s: float | None
    check_status: str | None
    engine: str | None
    places: int | None
    transitions: int | None
    local_states: int | None = None  # per-variable steps, when the reduction engine ran
    steps: int | None = None
    solver_queries: int | None = None  # the reduction engine's
    cert_bytes: int | None = None
    warnings: tuple[str, ...] = ()  # their codes (docs/cli.md, warnings)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths", nargs="+", metavar="PATH",
        help="model files or folders (every *.ser and NS *.json in a folder, sorted)",
    )
    parser.add_argument("--jobs", type=int, default=1, metavar="N",
                        help="models run at the same time (default 1)")
    parser.add_argument("--timeout", type=seconds(), default=60.0, metavar="S",
                        help="engine budget per model, passed to ser-prove (default 60)")
    parser.add_argument("--ns", choices=NS_CHOICES, default=DEFAULT_NS,
                        help=f"network system passed to ser-prove (default {DEFAULT_NS})")
    parser.add_argument("--json", dest="json_out", metavar="FILE",
                        help="also write the rows and the summary as JSON to FILE")
    parser.add_argument("--out-dir", metavar="DIR",
                        help="keep the certificates in DIR (default: a temporary folder)")
    add_scheduler_option(parser)
    parser.add_argument("--html", metavar="FILE",
                        help="also write one self-contained HTML page of the run to FILE: a "
                        "summary, a row per model, each model's explanation and checker "
                        "verdicts (certificate links need --out-dir)")


Record = dict[str, Any]  # a model's `ser-prove --json` record (prover/commands/jsonl.py)


def _models(paths: list[str]) -> list[Path]:
    found: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            found += sorted(
                f for f in p.iterdir()
                if f.suffix in MODEL_SUFFIXES and f.name != "expected.json"
                and not f.name.endswith(".cert.json")
            )
        elif p.is_file():
            found.append(p)
        else:
            raise UsageError(f"{p}: no such file or folder")
    return found


def expectations(models: list[Path]) -> dict[Path, str]:
    """The expected verdict of each model, from the `expected.json` of its folder, checked
    against schemas/expected.schema.json: a table that is not JSON or not of the schema is
    a usage error (exit 2, the file named); names in it that are no model of the run's
    folders, and models it does not name, are warned about."""
    schema = json.loads((importlib.resources.files("schemas") / "expected.schema.json")
                        .read_text(encoding="utf-8"))
    out: dict[Path, str] = {}
    for folder in sorted({m.parent for m in models}):
        table = folder / "expected.json"
        if not table.is_file():
            continue
        try:
            data = json.loads(table.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise UsageError(f"{table}:{exc.lineno}:{exc.colno}: not JSON: {exc.msg}") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"{table}: cannot read it: {exc}") from None
        error = jsonschema.exceptions.best_match(
            jsonschema.Draft202012Validator(schema).iter_errors(data))
        if error is not None:
            where = "/".join(map(str, error.absolute_path)) or "the top level"
            raise UsageError(f"{table}: at {where}: {error.message}")
        here = {m.name: m for m in models if m.parent == folder}
        on_disk = {f.name for f in folder.iterdir()}
        for name in sorted(set(data) - on_disk):
            print(f"{table}: warning: {name!r} names no model file here", file=sys.stderr)
        for name in sorted(set(here) - set(data)):
            print(f"{table}: warning: no expected verdict for {name}", file=sys.stderr)
        out.update({m: data[name]["expected"] for name, m in here.items() if name in data})
    return out


def _tool(name: str) -> list[str]:
    """The console script next to this interpreter, or `python -m` as a fallback."""
    script = Path(sys.executable).with_name(name)
    if script.exists():
        return [str(script)]
    module = "prover.cli" if name == "ser-prove" else "checker.cli"
    return [sys.executable, "-m", module]


def _run_one(model: Path, out_dir: Path, timeout: float, ns: str
             ) -> tuple[BenchRow, Record | None]:  # fmt: skip
    cert = out_dir / (model.name + ".cert.json")
    start = time.monotonic()
    proc = subprocess.run(
        [*_tool("ser-prove"), str(model), "-o", str(cert), "--timeout", str(timeout),
         "--ns", ns, "--json"],
        capture_output=True, text=True, stdin=subprocess.DEVNULL,
    )
    prove_s = time.monotonic() - start
    verdict = VERDICT_OF_EXIT.get(proc.returncode, f"exit {proc.returncode}")
    engine = places = transitions = local_states = steps = queries = None
    warned: tuple[str, ...] = ()
    record: Record | None = None
    try:
        report = json.loads(proc.stdout)
        record = report if isinstance(report, dict) else None
        engine = report.get("engine")
        verdict = "assertion_violated" if report.get("verdict") == "assertion_violated" \
            else verdict
        warned = tuple(w["code"] for w in report["warnings"])
        queries = report["stats"].get("solver_queries")
        per, net = report["sizes"]["per_variable"], report["sizes"]["petri_net"]
        if per is not None:
            local_states, steps = int(per["local_states"]), int(per["transitions"])
        if net is not None:
            places, transitions = int(net["places"]), int(net["transitions"])
    except (ValueError, KeyError, TypeError, AttributeError):
        pass  # an input error or a crash: the row still shows the verdict
    check_s = check_status = None
    if cert.is_file() and verdict in DECIDED:
        start = time.monotonic()
        chk = subprocess.run([*_tool("ser-check-cert"), str(cert)], capture_output=True,
                             text=True, stdin=subprocess.DEVNULL)
        check_s = time.monotonic() - start
        check_status = {0: "valid", 1: "invalid", 2: "unusable", 3: "undecided"}.get(
            chk.returncode, f"exit {chk.returncode}")
    return BenchRow(model.name, None, verdict, None, round(prove_s, 3),
                    None if check_s is None else round(check_s, 3), check_status, engine,
                    places, transitions, local_states, steps, queries,
                    cert.stat().st_size if cert.is_file() else None, warned), record


def _local_rows(models: list[Path], out_dir: Path, args: argparse.Namespace
                ) -> Iterator[tuple[BenchRow, Record | None]]:  # fmt: skip
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(_run_one, m, out_dir, args.timeout, args.ns) for m in models]
        for fut in futures:
            yield fut.result()


def _cluster_rows(models: list[Path], out_dir: Path,
                  args: argparse.Namespace) -> Iterator[tuple[BenchRow, Record | None]]:
    """One task per model on a Dask cluster (prover/run/cluster.py): the worker runs the two
    tools on its own copy of the model; the client keeps the certificate and judges the
    verdict against its own expected.json."""
    from prover.run.cluster import LOST, completed


    calls = [(_remote_one, (m.name, m.read_bytes(), args.timeout, args.ns)) for m in models]
    for k, got, why in completed(args.scheduler, calls, "ser-bench"):
        m = models[k]
        verdict = "lost" if why == LOST else "error"  # a task that could not run at all
        row, record, cert = got if why is None else (
            BenchRow(m.name, None, verdict, None, 0.0, None, None, None, None, None), None, None)
        if cert is not None:
            write_atomically(cert, str(out_dir / (m.name + ".cert.json")))
        yield row, record


def _remote_one(name: str, data: bytes, timeout: float, ns: str
                ) -> tuple[BenchRow, Record | None, str | None]:  # fmt: skip
    """On a worker: `_run_one` on a private copy of the model; the row, the `--json` record
    and the certificate."""
    with tempfile.TemporaryDirectory(prefix="ser-bench-") as tmp:
        model = Path(tmp) / name
        model.write_bytes(data)
        row, record = _run_one(model, Path(tmp), timeout, ns)
        cert = Path(tmp) / (name + ".cert.json")
        return row, record, cert.read_text(encoding="utf-8") if cert.is_file() else None


def html_results(models: list[Path], rows: list[BenchRow], records: dict[str, Record | None],
                 out_dir: Path) -> list[Record]:
    """The page's results: each model's record as `ser-prove --json` printed it, naming the
    model and the certificate as this run does (a cluster's worker had copies), with the
    bench's figures under `bench`; a model whose run printed no record (a crash, a lost
    task) gets the record of an internal error that says so."""
    out = []
    for model, row in zip(models, rows, strict=True):
        got = records.get(row.model)
        record = dict(got) if got is not None else jsonl.crash_record(
            str(model), f"ser-prove printed no --json record (bench verdict: {row.verdict})")
        cert = out_dir / (model.name + ".cert.json")
        record.update(model=str(model), certificate=str(cert) if cert.is_file() else None)
        record["bench"] = {"expected": row.expected, "agrees": row.agrees,
                           "prove_s": row.prove_s, "check_s": row.check_s,
                           "check_status": row.check_status}
        out.append(record)
    return out


def agreement(expected: str | None, verdict: str, check_status: str | None) -> bool | None:
    """Whether a row agrees with expected.json: None without an expectation and for a
    model that stayed undecided (its row shows "-", the exit code says 3); else the
    verdict must be the expected one with a valid certificate."""
    if expected is None or verdict == "undecided":
        return None
    return expected == verdict and check_status == "valid"


def _table(rows: list[BenchRow]) -> str:
    """PN: places/transitions of the interleaving net, when one was built; steps: local
    states/transitions of the per-variable steps, when the reduction engine ran; warnings:
    their codes without the W- (docs/cli.md)."""
    head = ("model", "expected", "verdict", "agrees", "prove s", "check s", "engine", "PN",
            "steps", "queries", "cert KB", "warnings")
    body = [
        (r.model, r.expected or "-", r.verdict,
         "-" if r.agrees is None else ("yes" if r.agrees else "NO"),
         f"{r.prove_s:.2f}", "-" if r.check_s is None else f"{r.check_s:.2f}",
         r.engine or "-", "-" if r.places is None else f"{r.places}/{r.transitions}",
         "-" if r.local_states is None else f"{r.local_states}/{r.steps}",
         "-" if r.solver_queries is None else str(r.solver_queries),
         "-" if r.cert_bytes is None else f"{r.cert_bytes / 1024:.1f}",
         ",".join(c.removeprefix("W-") for c in r.warnings) or "-")
        for r in rows
    ]
    widths = [max(len(str(x)) for x in col) for col in zip(head, *body, strict=True)]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(line, widths, strict=True)).rstrip()
             for line in [head, *body]]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _family_table(rows: list[BenchRow]) -> str:
    """One line per family of FAMILY-SIZE models: the time of ser-prove (which includes
    its own check) at each size, or why that size has no verdict; "" without families."""
    families: dict[str, dict[int, str]] = {}
    for r in rows:
        match = re.fullmatch(r"(.+)-(\d+)", Path(r.model).stem)
        if match is None:
            continue
        decided = r.verdict in DECIDED
        cell = f"{r.prove_s:.2f}" if decided and r.agrees is not False else (
            "WRONG" if decided else r.verdict)
        families.setdefault(match[1], {})[int(match[2])] = cell
    if not families:
        return ""
    lines = ["family     size: ser-prove s (prover and its check)"]
    for name, cells in sorted(families.items()):
        shown = "  ".join(f"{size}: {cell}" for size, cell in sorted(cells.items()))
        lines.append(f"{name:<10} {shown}")
    return "\n".join(lines)


def _summary(rows: list[BenchRow]) -> dict[str, object]:
    decided = [r for r in rows if r.verdict in DECIDED]
    checks = [r.check_s for r in rows if r.check_s is not None]
    prove = [r.prove_s for r in rows]
    return {
        "models": len(rows),
        "decided": len(decided),
        "agreeing": sum(1 for r in rows if r.agrees),
        "with_expectation": sum(1 for r in rows if r.expected is not None),
        "certificates_valid": sum(1 for r in rows if r.check_status == "valid"),
        "prove_median_s": round(statistics.median(prove), 3) if prove else None,
        "prove_max_s": round(max(prove), 3) if prove else None,
        "prove_total_s": round(sum(prove), 3),
        "check_median_s": round(statistics.median(checks), 3) if checks else None,
        "check_max_s": round(max(checks), 3) if checks else None,
    }


def run(args: argparse.Namespace) -> int:
    check_parallelism(args)
    models = _models(args.paths)
    if not models:
        raise UsageError("no models (*.ser, *.json) found")
    inputs = [str(m) for m in models]
    table = {m.name: v for m, v in expectations(models).items()}
    if args.json_out:
        check_destination(args.json_out, inputs, "table")
    tmp = None
    if args.out_dir:
        check_folder(args.out_dir, inputs)
        out_dir = Path(args.out_dir)
        out_dir.mkdir(parents=True, exist_ok=True)
    if args.html:
        from prover.commands.html_report import check_html_destination

        written = [args.json_out] if args.json_out else []
        if args.out_dir:
            written += [str(out_dir / (m.name + ".cert.json")) for m in models]
        check_html_destination(args.html, inputs, written)
    if not args.out_dir:
        tmp = tempfile.TemporaryDirectory(prefix="ser-bench-")
        out_dir = Path(tmp.name)
    tty = sys.stderr.isatty()
    rows: list[BenchRow] = []
    records: dict[str, Record | None] = {}
    results: list[Record] = []
    wall = logged = time.monotonic()
    try:
        found = (_local_rows(models, out_dir, args) if args.scheduler is None
                 else _cluster_rows(models, out_dir, args))
        for i, (row, record) in enumerate(found, 1):
            records[row.model] = record
            expected = table.get(row.model)
            rows.append(replace(row, expected=expected,
                                agrees=agreement(expected, row.verdict, row.check_status)))
            now = time.monotonic()
            if tty:
                print(f"\r[{i}/{len(models)}] {now - wall:6.1f} s",
                      end="", file=sys.stderr, flush=True)
            elif now - logged >= LOG_EVERY or i == len(models):  # a log: a line now and then
                logged = now
                print(f"[{i}/{len(models)}] {now - wall:.0f} s: {row.model} {row.verdict}",
                      file=sys.stderr, flush=True)
        order = {m.name: k for k, m in enumerate(models)}
        rows.sort(key=lambda r: order[r.model])
        if args.html:  # before a temporary folder of certificates goes
            results = html_results(models, rows, records, out_dir)
    finally:
        if tty:
            print(file=sys.stderr)
        if tmp is not None:
            tmp.cleanup()
    summary = _summary(rows)
    wall_s = round(time.monotonic() - wall, 3)
    summary["wall_s"] = wall_s
    summary["ns"] = args.ns
    summary["models_per_s"] = round(len(rows) / max(wall_s, 1e-9), 2)
    where = (f"with {args.jobs} job(s)" if args.scheduler is None
             else f"on the cluster at {args.scheduler}")
    print(_table(rows))
    families = _family_table(rows)
    if families:
        print("\n" + families)
    print(
        f"\n{summary['decided']}/{summary['models']} decided, "
        f"{summary['agreeing']}/{summary['with_expectation']} agree with expected.json, "
        f"{summary['certificates_valid']} certificates valid; ser-prove median "
        f"{summary['prove_median_s']} s, max {summary['prove_max_s']} s, total "
        f"{summary['prove_total_s']} s; ser-check-cert median {summary['check_median_s']} s, "
        f"max {summary['check_max_s']} s; wall {summary['wall_s']} s ({summary['models_per_s']} "
        f"models/s) {where}, "
        f"--ns {args.ns}"
    )
    if args.json_out:
        write_atomically(json.dumps({"rows": [asdict(r) for r in rows], "summary": summary},
                                    indent=1) + "\n", args.json_out, "table")
    code = exit_code(rows)
    if args.html:
        from prover.commands.html_report import meta_of, render

        meta = meta_of(args, wall_s, code, f"ser-prove bench: {len(rows)} models")
        meta["certificates_kept"] = bool(args.out_dir)
        meta["notes"] = [
            f"{summary['decided']}/{summary['models']} decided, {summary['agreeing']}/"
            f"{summary['with_expectation']} agree with expected.json, "
            f"{summary['certificates_valid']} certificates valid (ser-check-cert); "
            f"--ns {args.ns}, {where}"]
        write_atomically(render(results, meta), args.html, "HTML report")
        print(f"HTML report: {args.html}")
    return code


def exit_code(rows: list[BenchRow]) -> int:
    """1 if anything is wrong (a verdict against expected.json, a certificate the checker
    does not accept, an input or internal error), else 3 if a model stayed undecided,
    else 0: a run that decided everything and agrees."""
    bad = any(r.agrees is False for r in rows) or any(
        r.check_status not in (None, "valid") for r in rows) or any(
        r.verdict not in (*DECIDED, "undecided") for r in rows)
    if bad:
        return 1
    return 3 if any(r.verdict == "undecided" for r in rows) else 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(os.EX_USAGE)
