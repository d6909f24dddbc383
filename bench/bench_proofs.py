"""Prove every serializable paper benchmark and check each certificate with the checker.

Usage: .venv/bin/python bench/bench_proofs.py [NAME ...] [--budget S] [--engines A,B]
Prints one row per model: prover seconds, checker seconds, winning engine, sizes;
then the median and the maximum of prover+checker.
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
sys.path.insert(0, str(ROOT / "tests" / "proof"))

from proof_helpers import BENCH, make_target  # noqa: E402

from prover.certificate.write import dump_certificate, make_certificate, producer  # noqa: E402
from prover.engines.portfolio import attempt_proof  # noqa: E402
from prover.frontend.load import load_model  # noqa: E402
from prover.petri.build import build_interleaving_net  # noqa: E402
from prover.serial.automaton import build_serial_automaton  # noqa: E402
from prover.serial.parikh import compute_serial_set  # noqa: E402


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        description="Prove serializable paper benchmarks and check each certificate."
    )
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help="benchmark file names (default: every serializable one)")
    parser.add_argument("--budget", type=float, default=60.0, metavar="S",
                        help="proof budget per model, seconds (default 60)")
    parser.add_argument("--engines", metavar="A,B",
                        help="comma-separated engine list (default: the portfolio's)")
    args = parser.parse_args(argv)
    budget = args.budget
    engines: tuple[str, ...] | None = tuple(args.engines.split(",")) if args.engines else None
    expected = json.loads((BENCH / "expected.json").read_text())
    names = args.names or sorted(
        n for n, v in expected.items() if v["expected"] == "serializable"
    )
    from checker.api import check_certificate

    totals: list[float] = []
    head = f"{'model':8} {'prove_s':>8} {'check_s':>8} {'total':>7}  engine"
    print(head + "          status  aux  bytes")
    for name in names:
        m = load_model(BENCH / name)
        t0 = time.monotonic()
        net = build_interleaving_net(m.ns)
        s = compute_serial_set(build_serial_automaton(m.ns).reachable())
        target = make_target(net, s)
        if engines is None:
            att = attempt_proof(m, budget_s=budget, net=net, serial_set=s, target=target)
        else:
            att = attempt_proof(
                m, budget_s=budget, net=net, serial_set=s, target=target, engines=engines
            )
        prove_s = time.monotonic() - t0
        if att.outcome is None:
            print(f"{name:8} {prove_s:8.2f} {'-':>8} {'-':>7}  unknown: {att.reason}")
            continue
        cert = make_certificate(
            m, "serializable", "proof", att.outcome.proof, producer(att.outcome.engine)
        )
        text = dump_certificate(cert)
        t1 = time.monotonic()
        res = check_certificate(text, timeout_s=30)
        check_s = time.monotonic() - t1
        total = prove_s + check_s
        totals.append(total)
        print(
            f"{name:8} {prove_s:8.2f} {check_s:8.2f} {total:7.2f}  {att.outcome.engine:15} "
            f"{res.status:7} {att.outcome.stats['aux']:4} {len(text)}"
            + ("" if res.status == "valid" else f"  {res.message}"),
            flush=True,
        )
    if totals:
        print(f"median {statistics.median(totals):.2f} s, max {max(totals):.2f} s, n={len(totals)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
