"""The sliced state-equation engine on the paper benchmarks, each certificate checked.

Usage: .venv/bin/python bench/bench_sliced.py [NAME ...] [--budget S] [--all]
One row per model: expected verdict, proved?, prover seconds, certificate bytes, checker
status and seconds, target disjuncts (sliced / by slicing alone / subsumed); then the
median and maximum prover+checker time over the proved models. Default: every
serializable benchmark; `--all` also runs the not-serializable ones (never proved).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.sets import bench_dir  # noqa: E402
from prover.certificate.write import dump_certificate, make_certificate, producer  # noqa: E402
from prover.engines.sliced import ENGINE, attempt_sliced  # noqa: E402
from prover.frontend.load import load_model  # noqa: E402

BENCH = bench_dir("paper")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", metavar="NAME")
    parser.add_argument("--budget", type=float, default=60.0, metavar="S")
    parser.add_argument("--all", action="store_true", help="also not-serializable models")
    args = parser.parse_args(argv)
    expected = json.loads((BENCH / "expected.json").read_text())
    names = args.names or sorted(
        n for n, v in expected.items() if args.all or v["expected"] == "serializable"
    )
    from checker.api import check_certificate

    print(
        f"{'model':8} {'expected':17} {'proved':6} {'prove_s':>8} {'bytes':>8} "
        f"{'check':>8} {'check_s':>8}  disjuncts(sliced/by-slicing/subsumed)"
    )
    totals: list[float] = []
    bad = 0
    for name in names:
        m = load_model(BENCH / name)
        exp = expected.get(name, {}).get("expected", "?")
        t0 = time.monotonic()
        out, reason = attempt_sliced(m, budget_s=args.budget)
        prove_s = time.monotonic() - t0
        if out is None:
            print(f"{name:8} {exp:17} {'no':6} {prove_s:8.2f} {'-':>8} {'-':>8} {'-':>8}  "
                  f"{reason[:80]}")
            continue
        if exp == "not_serializable":
            bad += 1
        cert = dump_certificate(make_certificate(m, "serializable", "proof", out.proof,
                                                 producer(ENGINE)))
        t1 = time.monotonic()
        res = check_certificate(cert, timeout_s=30)
        check_s = time.monotonic() - t1
        if res.status != "valid":
            bad += 1
        totals.append(prove_s + check_s)
        st = out.stats
        print(
            f"{name:8} {exp:17} {'yes':6} {prove_s:8.2f} {len(cert.encode()):8d} "
            f"{res.status:>8} {check_s:8.2f}  {st['disjuncts']} "
            f"({st['sliced']}/{st['by_slicing']}/{st['subsumed']})"
        )
    if totals:
        print(f"proved {len(totals)}/{len(names)}; prover+checker median "
              f"{statistics.median(totals):.2f} s, max {max(totals):.2f} s")
    if bad:
        print(f"{bad} certificate(s) invalid or not-serializable model(s) proved: BUG")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
