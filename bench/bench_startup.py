"""The fixed cost of a run, in both tools (issue 51): whole processes, start to exit.

For each model (default: the paper's trivial models a1 a3 a7 e5 e6 f9, then every model of
examples/), times `ser-prove MODEL` and `ser-check-cert` on its certificate as whole
processes, beside `python -c pass` and `ser-prove --help` in the same run, each the median
of `--repeat` runs; then says where a prove's time goes: the stages its `--json` `times`
account for (load, engines, deadlock search, check) and the rest (interpreter start,
imports, the child process, writing the certificate). Prints a table; no timing is
asserted, and the machine may be shared: the ratios to `python -c pass` of the same run
are what to compare. With PYTHONDONTWRITEBYTECODE set, no `__pycache__` is written and every
process compiles the sources it imports again (measured: about 0.3 s more per prove and
check of a1); the benchmark says so when it is set.

    .venv/bin/python bench/bench_startup.py [MODEL ...] [--repeat 5] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.sets import bench_dir  # noqa: E402

TRIVIAL = ("a1", "a3", "a7", "e5", "e6", "f9")
BIN = Path(sys.executable).parent
TARGETS = {"prove + check": 8.0, "check": 5.0, "--help": 3.0}  # issue 51: x python -c pass


def wall(argv: list[str], repeat: int) -> tuple[float, subprocess.CompletedProcess[str]]:
    """The median wall time of `argv` over `repeat` runs, and the last run."""
    times, last = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        last = subprocess.run(argv, capture_output=True, text=True)
        times.append(time.perf_counter() - start)
    assert last is not None
    return statistics.median(times), last


def models(names: list[str]) -> list[Path]:
    if names:
        return [Path(n) for n in names]
    paper = bench_dir("paper")
    out = [paper / f"{m}.ser" for m in TRIVIAL if (paper / f"{m}.ser").is_file()]
    if len(out) < len(TRIVIAL):
        print(f"note: the paper set is absent ({paper}); run `ser-prove benchmarks`",
              file=sys.stderr)
    return out + sorted((ROOT / "examples").glob("*.ser"))


def measure(model: Path, repeat: int, tmp: Path) -> dict[str, object]:
    cert = tmp / (model.name + ".cert.json")
    prove_s, run = wall([str(BIN / "ser-prove"), str(model), "-o", str(cert), "--json",
                         "--quiet"], repeat)
    record = json.loads(run.stdout.splitlines()[-1]) if run.stdout.strip() else {}
    check_s, _ = wall([str(BIN / "ser-check-cert"), str(cert)], repeat) if cert.exists() \
        else (float("nan"), None)
    times = {k: v for k, v in (record.get("times") or {}).items() if v is not None}
    total = float(times.get("total_s", 0.0))
    return {"model": model.name, "verdict": record.get("verdict"), "prove_s": prove_s,
            "check_s": check_s, "stages": {k: times[k] for k in (
                "load_s", "engines_s", "deadlock_s", "check_s") if k in times},
            "outside_s": max(prove_s - total, 0.0)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="*", help="models (default: the trivial paper models "
                    "and examples/*.ser)")
    ap.add_argument("--repeat", type=int, default=5, help="runs per measure (median)")
    ap.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    args = ap.parse_args()
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        print("note: PYTHONDONTWRITEBYTECODE is set: every process compiles its sources "
              "again (unset it to measure what a user waits for)", file=sys.stderr)
    base, _ = wall([sys.executable, "-c", "pass"], args.repeat)
    helped, _ = wall([str(BIN / "ser-prove"), "--help"], args.repeat)
    print(f"python -c pass {base:.3f} s; ser-prove --help {helped:.3f} s "
          f"({helped / base:.1f}x, target {TARGETS['--help']:g}x)")
    rows = []
    with tempfile.TemporaryDirectory(prefix="ser-startup-") as tmp:
        print(f"{'model':<28} {'verdict':<17} {'prove+check':>11} {'x':>5} {'check':>7} "
              f"{'x':>5}  where a prove's time goes (s)")
        for model in models(args.models):
            row = measure(model, args.repeat, Path(tmp))
            rows.append(row)
            both = float(row["prove_s"]) + float(row["check_s"])  # type: ignore[arg-type]
            stages = ", ".join(f"{k.removesuffix('_s')} {v:.2f}" for k, v in
                               row["stages"].items())  # type: ignore[attr-defined]
            print(f"{row['model']:<28} {str(row['verdict']):<17} {both:>11.3f} "
                  f"{both / base:>5.1f} {row['check_s']:>7.3f} "
                  f"{float(row['check_s']) / base:>5.1f}  {stages}, "  # type: ignore[arg-type]
                  f"outside {row['outside_s']:.2f}")
    print(f"targets (issue 51): prove + check <= {TARGETS['prove + check']:g}x, check <= "
          f"{TARGETS['check']:g}x python -c pass")
    if args.json:
        Path(args.json).write_text(json.dumps({"python_s": base, "help_s": helped,
                                               "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
