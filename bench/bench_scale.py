"""The scaling families (../shared/benchmarks/scale): `ser-prove` per model with
`--ns reachable` and `--ns closure`, one process each under a wall-clock limit.

Usage: .venv/bin/python bench/bench_scale.py [NAME ...] [--timeout S] [--wall S] [--ns A,B]

One row per family, size and NS construction: verdict, engine, prove and check seconds.
While the trusted checker does not read `proof.pairs` yet, a reachable proof that it
rejects is re-checked as the NS JSON of N_P (the same names, the same net; the
exclusion obligation is then covered only by the prover's z3 self-check): the row says
`ok(N_P json)`.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SCALE = ROOT.parent / "shared" / "benchmarks" / "scale"
sys.path.insert(0, str(ROOT))


def _ns_json(model: Path) -> str:
    from prover.frontend.load import load_model

    ns = load_model(model).ns
    return json.dumps({
        "initial_global": ns.initial_global,
        "requests": [[r.request, r.local] for r in ns.requests],
        "responses": [[r.local, r.response] for r in ns.responses],
        "transitions": [[t.from_local, t.from_global, t.to_local, t.to_global]
                         for t in ns.transitions],
    })


def _recheck(model: Path, rejected: Path, timeout_s: float) -> tuple[str, float]:
    """Check a rejected reachable proof on the NS JSON of N_P (see the module text)."""
    from checker.api import check_certificate
    from prover.certificate.write import dump_certificate, model_section

    cert = json.loads(rejected.read_text())
    if "pairs" not in cert.get("proof", {}):
        return "rejected", 0.0
    del cert["proof"]["pairs"]
    source = _ns_json(model)
    cert["model"] = model_section("ns-json", model.name + ".json", source)
    t0 = time.monotonic()
    res = check_certificate(dump_certificate(cert), model_text=source, timeout_s=timeout_s)
    return ("ok(N_P json)" if res.status == "valid" else f"{res.status}(N_P json)",
            time.monotonic() - t0)


def run_one(model: Path, ns: str, timeout_s: float, wall_s: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        cert = Path(tmp) / "c.cert.json"
        cmd = [sys.executable, "-m", "prover.cli", str(model), "--json", "--quiet",
               "--ns", ns, "--timeout", str(timeout_s), "-o", str(cert)]
        t0 = time.monotonic()
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=wall_s, cwd=ROOT)
        except subprocess.TimeoutExpired:
            return {"verdict": "wall-timeout", "engine": "", "prove_s": wall_s, "wall_s": wall_s,
                    "check": "",
                    "check_s": None, "note": ""}
        wall = time.monotonic() - t0
        try:
            doc = json.loads(proc.stdout)
        except json.JSONDecodeError:
            doc = {"verdict": "error", "reason": (proc.stderr or proc.stdout).strip()[-200:]}
        if isinstance(doc, list):
            doc = doc[0]
        times = doc.get("times") or {}
        row = {
            "verdict": str(doc.get("verdict") or "error"),
            "engine": str(doc.get("engine") or ""),
            "prove_s": round(times.get("engines_s") or wall, 2),
            "wall_s": round(wall, 2),
            "check": str((doc.get("checker") or {}).get("status") or ""),
            "check_s": times.get("check_s"),
            "note": "",
        }
        if doc.get("error"):
            row["note"] = str(doc["error"].get("code", ""))
        rejected = Path(tmp) / "c.cert.rejected.json"
        if row["verdict"] == "error" and rejected.exists():
            status, secs = _recheck(model, rejected, 30.0)
            row["verdict"] = "serializable*" if status.startswith("ok") else "error"
            row["check"] = status
            row["check_s"] = round(secs, 2)
        elif row["verdict"] == "undecided":
            row["note"] = (doc.get("reason") or "")[:60]
        return row


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description="Scaling families, reachable vs closure NS.")
    parser.add_argument("names", nargs="*", metavar="NAME", help="model file names")
    parser.add_argument("--timeout", type=float, default=30.0, metavar="S",
                        help="ser-prove --timeout per model (default 30)")
    parser.add_argument("--wall", type=float, default=90.0, metavar="S",
                        help="wall-clock limit per run, seconds (default 90)")
    parser.add_argument("--ns", default="reachable,closure", metavar="A,B",
                        help="constructions to run (default reachable,closure)")
    parser.add_argument("--dir", type=Path, default=SCALE, metavar="DIR",
                        help="benchmark folder with expected.json (default the scale set)")
    args = parser.parse_args(argv)
    folder: Path = args.dir
    if not (folder / "expected.json").is_file():
        print(f"{folder}/expected.json not found", file=sys.stderr)
        return 2
    expected = json.loads((folder / "expected.json").read_text())
    for name, info in expected.items():
        info.setdefault("family", Path(name).stem)
        info.setdefault("n", "")
    names = args.names or sorted(expected, key=lambda n: (expected[n]["family"],
                                                           str(expected[n]["n"]).zfill(4)))
    totals: dict[str, list[tuple[float, float]]] = {}
    print(f"{'family':9} {'n':>3} {'ns':9} {'expected':16} {'verdict':16} {'engine':22} "
          f"{'prove_s':>7} {'wall_s':>7} {'check':>14} {'check_s':>7}  note")
    for name in names:
        info = expected[name]
        for ns in args.ns.split(","):
            r = run_one(folder / name, ns, args.timeout, args.wall)
            if r["verdict"].rstrip("*") == info["expected"]:
                totals.setdefault(ns, []).append((r["prove_s"], r["check_s"] or 0.0))
            cs = "" if r["check_s"] is None else f"{r['check_s']:.2f}"
            print(f"{info['family']:9} {info['n']:>3} {ns:9} {info['expected']:16} "
                  f"{r['verdict']:16} {r['engine']:22} {r['prove_s']:>7} {r['wall_s']:>7} "
                  f"{r['check']:>14} "
                  f"{cs:>7}  {r['note']}", flush=True)
    for ns, rows in totals.items():
        print(f"{ns}: {len(rows)}/{len(names)} decided as expected; median prove "
              f"{statistics.median(p for p, _ in rows):.2f} s, median check "
              f"{statistics.median(c for _, c in rows):.2f} s")
    print("prove_s: the engines; wall_s: the whole ser-prove process (its own checker run "
          "included); serializable*: a certificate the checker did not accept, whose "
          "invariant the checker accepts on the NS JSON of N_P")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
