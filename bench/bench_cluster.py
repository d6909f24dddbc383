"""Models per second, locally and on a Dask cluster (issue 23, docs/cluster.md).

Usage: .venv/bin/python bench/bench_cluster.py [--sets examples,paper,scale] [--jobs 2]
       [--workers 2] [--timeout 60] [--json FILE]

For each set: one `ser-prove MODEL... --out-dir DIR --jobs N` invocation (local), then the
same models with `--scheduler` on a LocalCluster of N worker processes (one thread each)
started here on 127.0.0.1. Prints wall time, models per second and verdict counts for
both, and whether every certificate is byte-identical (sha256) between the two. The
paper and scale sets are read from ../shared/benchmarks (skipped when absent). Needs
the `cluster` extra. No figure is asserted: this prints them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.sets import bench_dir  # noqa: E402

SETS = {"examples": ROOT / "examples", "paper": bench_dir("paper"), "scale": bench_dir("scale")}


def _models(folder: Path) -> list[str]:
    return sorted(str(p) for p in folder.iterdir() if p.suffix in (".ser", ".json")
                  and not p.name.endswith(".cert.json") and p.name != "expected.json"
                  and not p.name.startswith("reference"))


def _run(models: list[str], out: Path, extra: list[str], timeout: float) -> dict[str, object]:
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "prover.cli", *models, "--out-dir", str(out),
                           "--timeout", str(timeout), "--json", *extra],
                          capture_output=True, text=True, cwd=ROOT)
    wall = time.monotonic() - start
    verdicts: dict[str, int] = {}
    for line in proc.stdout.splitlines():
        v = json.loads(line).get("verdict") or "error"
        verdicts[v] = verdicts.get(v, 0) + 1
    digests = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in out.glob("*.json")}
    return {"wall_s": round(wall, 2), "models_per_s": round(len(models) / wall, 2),
            "verdicts": verdicts, "digests": digests, "exit": proc.returncode}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", default="examples,paper,scale")
    ap.add_argument("--jobs", type=int, default=2, help="local --jobs, and cluster workers")
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--json", dest="json_out")
    args = ap.parse_args()
    try:
        import dask
        from distributed import LocalCluster
    except ImportError:
        print("bench_cluster: needs the 'cluster' extra (pip install -e '.[cluster]')",
              file=sys.stderr)
        return 2
    rows = []
    with dask.config.set({"distributed.scheduler.allowed-failures": 1}), \
            LocalCluster(n_workers=args.jobs, threads_per_worker=1, processes=True,
                         dashboard_address=None, host="127.0.0.1") as cluster, \
            tempfile.TemporaryDirectory() as tmp:
        for name in args.sets.split(","):
            folder = SETS[name]
            if not folder.is_dir():
                print(f"{name}: {folder} absent, skipped")
                continue
            models = _models(folder)
            local = _run(models, Path(tmp) / name / "local", ["--jobs", str(args.jobs)],
                         args.timeout)
            remote = _run(models, Path(tmp) / name / "cluster",
                          ["--scheduler", cluster.scheduler_address], args.timeout)
            same = local["digests"] == remote["digests"]
            rows.append({"set": name, "models": len(models), "local": local,
                         "cluster": remote, "identical_certificates": same})
    print(f"{'set':10} {'models':>6}  {'local s':>8} {'models/s':>8}  {'cluster s':>9} "
          f"{'models/s':>8}  certificates  verdicts (local | cluster)")
    for r in rows:
        lo, cl = r["local"], r["cluster"]
        print(f"{r['set']:10} {r['models']:>6}  {lo['wall_s']:>8} {lo['models_per_s']:>8}  "
              f"{cl['wall_s']:>9} {cl['models_per_s']:>8}  "
              f"{'identical' if r['identical_certificates'] else 'DIFFER':12}  "
              f"{lo['verdicts']} | {cl['verdicts']}")
    print(f"(local: one ser-prove --jobs {args.jobs}; cluster: a LocalCluster of {args.jobs} "
          "worker processes on this machine, one thread each)")
    if args.json_out:
        for r in rows:
            for side in ("local", "cluster"):
                r[side].pop("digests")
        Path(args.json_out).write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
