"""Same verdict, engine and certificate on an idle and on a loaded machine (issue 11).

Runs every model of a folder (default: the paper benchmarks) twice with `ser-prove`, once
as the machine is and once while `--load N` busy processes (`while 1: pass`) compete for
the cores (they are killed as soon as the second pass ends), then compares per model the
exit code, the engine and the certificate bytes, and prints the wall times. No timing is
asserted; the machine may be shared, so the "idle" pass is only as idle as the machine.

    .venv/bin/python bench/bench_load.py [FOLDER] [--load 4] [--timeout 60]
        [--prover .venv/bin/ser-prove] [--json FILE]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.sets import bench_dir  # noqa: E402

PAPER = bench_dir("paper")


@dataclass(frozen=True)
class Run:
    model: str
    code: int
    engine: str | None
    seconds: float
    cert_sha256: str | None


def _one(prover: list[str], model: Path, out: Path, timeout: float) -> Run:
    cert = out / (model.name + ".cert.json")
    start = time.monotonic()
    proc = subprocess.run(
        [*prover, str(model), "-o", str(cert), "--timeout", str(timeout), "--json"],
        capture_output=True, text=True, check=False,
    )
    seconds = time.monotonic() - start
    engine = None
    try:
        doc = json.loads(proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else "{}")
        if not isinstance(doc, dict):  # a JSON document spread over several lines
            raise ValueError
    except ValueError:
        try:
            doc = json.loads(proc.stdout)
        except ValueError:
            doc = {}
    if isinstance(doc, dict):
        engine = doc.get("engine")
    digest = hashlib.sha256(cert.read_bytes()).hexdigest() if cert.exists() else None
    return Run(model.name, proc.returncode, engine, seconds, digest)


def _pass(prover: list[str], models: list[Path], out: Path, timeout: float) -> list[Run]:
    out.mkdir(parents=True, exist_ok=True)
    return [_one(prover, m, out, timeout) for m in models]


def _busy(n: int) -> list[subprocess.Popen[bytes]]:
    return [subprocess.Popen([sys.executable, "-c", "while 1: pass"]) for _ in range(n)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", default=str(PAPER))
    parser.add_argument("--load", type=int, default=4, metavar="N")
    parser.add_argument("--timeout", type=float, default=60.0, metavar="S")
    parser.add_argument("--prover", default=f"{sys.executable} -m prover.cli",
                        help="the ser-prove command line (split like a shell does)")
    parser.add_argument("--json", dest="json_out", metavar="FILE")
    args = parser.parse_args(argv)
    models = sorted(p for p in Path(args.folder).iterdir()
                    if p.suffix in (".ser", ".json") and p.name != "expected.json")
    prover = shlex.split(args.prover)
    with tempfile.TemporaryDirectory(prefix="bench-load-") as tmp:
        idle = _pass(prover, models, Path(tmp) / "idle", args.timeout)
        busy = _busy(args.load)
        try:
            loaded = _pass(prover, models, Path(tmp) / "load", args.timeout)
        finally:
            for p in busy:
                os.kill(p.pid, signal.SIGKILL)
                p.wait()
    same = 0
    print(f"{'model':<10} {'exit':>4} {'engine':<22} {'idle s':>7} {'load s':>7}  same")
    for a, b in zip(idle, loaded, strict=True):
        ok = (a.code, a.engine, a.cert_sha256) == (b.code, b.engine, b.cert_sha256)
        same += ok
        engine = a.engine if a.engine == b.engine else f"{a.engine}/{b.engine}"
        code = str(a.code) if a.code == b.code else f"{a.code}/{b.code}"
        print(f"{a.model:<10} {code:>4} {engine or '-':<22} {a.seconds:7.2f} {b.seconds:7.2f}"
              f"  {'yes' if ok else 'NO'}")
    mi = statistics.median(r.seconds for r in idle)
    ml = statistics.median(r.seconds for r in loaded)
    print(f"\n{same}/{len(idle)} models with the same exit code, engine and certificate "
          f"bytes idle and under {args.load} busy processes; median {mi:.2f} s idle, "
          f"{ml:.2f} s loaded; max {max(r.seconds for r in idle):.2f} / "
          f"{max(r.seconds for r in loaded):.2f} s")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(
            {"idle": [asdict(r) for r in idle], "load": [asdict(r) for r in loaded]},
            indent=2) + "\n")
    return 0 if same == len(idle) else 1


if __name__ == "__main__":
    raise SystemExit(main())
