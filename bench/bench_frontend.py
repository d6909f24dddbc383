"""Time the front end (read + parse + compile or JSON load, interleaving Petri net,
serial automaton) on the paper's 47 benchmarks and print a table with the total.

Usage: .venv/bin/python bench/bench_frontend.py [BENCH_DIR] [--repeat N]
Each model is run N times (default 3) and the best time is reported, so that the
figures measure the front end rather than the machine's noise. The grammar is
loaded once before timing (a one-off cost of the process, reported separately).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.sets import bench_dir  # noqa: E402
from prover.frontend.load import load_model  # noqa: E402
from prover.frontend.parser import _lark
from prover.petri.build import build_interleaving_net
from prover.serial.automaton import build_serial_automaton

DEFAULT_DIR = bench_dir("paper")


def time_one(path: Path) -> tuple[float, dict[str, int]]:
    start = time.perf_counter()
    model = load_model(path)
    net = build_interleaving_net(model.ns)
    serial = build_serial_automaton(model.ns)
    elapsed = time.perf_counter() - start
    sizes = {**model.ns.sizes(), **{f"pn_{k}": v for k, v in net.sizes().items()},
             "serial_edges": len(serial.reachable().edges)}
    return elapsed, sizes


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bench_dir", nargs="?", type=Path, default=DEFAULT_DIR)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    expected_file = args.bench_dir / "expected.json"
    if not expected_file.is_file():
        print(f"no expected.json in {args.bench_dir}", file=sys.stderr)
        return 2
    expected = json.loads(expected_file.read_text())
    t0 = time.perf_counter()
    _lark()
    grammar_ms = 1000 * (time.perf_counter() - t0)

    header = f"{'model':<8} {'ms':>7}  {'req/resp/trans':>14}  {'PN pl/tr':>9}  {'ref':>9}  edges"
    print(header)
    print("-" * len(header))
    total = 0.0
    mismatches = 0
    for name in sorted(expected):
        best = min(time_one(args.bench_dir / name)[0] for _ in range(max(1, args.repeat)))
        _, s = time_one(args.bench_dir / name)
        total += best
        exp = expected[name]
        ref = (exp["reference_petri_places"], exp["reference_petri_transitions"])
        ok = (s["pn_places"], s["pn_transitions"]) == ref
        mismatches += not ok
        ns_cell = f"{s['requests']}/{s['responses']}/{s['transitions']}"
        print(
            f"{name:<8} {1000 * best:7.2f}  {ns_cell:>14}  "
            f"{s['pn_places']:>4}/{s['pn_transitions']:<4}  {ref[0]:>4}/{ref[1]:<4}  "
            f"{s['serial_edges']}{'' if ok else '  MISMATCH'}"
        )
    print("-" * len(header))
    print(f"total {1000 * total:.1f} ms on {len(expected)} models "
          f"(grammar load {grammar_ms:.1f} ms once); Petri-size mismatches: {mismatches}")
    return 1 if mismatches else 0


if __name__ == "__main__":
    raise SystemExit(main())
