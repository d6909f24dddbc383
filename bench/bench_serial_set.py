"""Serial set S and target construction times on the paper and the scale models.

Usage: .venv/bin/python bench/bench_serial_set.py [MODEL ...] [--paper] [--scale]
       [--split] [--no-check]

One row per model: states and edges of the (reachable) serial automaton, the
construction that produced S, components, periods, seconds for S, seconds for the
clause-form target (what the engines use), with `--split` also the DNF split
(disjuncts or TL past 4096, seconds), and, unless `--no-check`, seconds for the
trusted checker's `check_component` over every component (a rejection aborts the run:
that would be a soundness bug). Models are compiled as `load_model` compiles them (the
closure NS on this branch); a model that does not compile is listed with its error
code. Default: both sets. Timings depend on the machine's load: note it with the table.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.sets import absent, bench_dir  # noqa: E402
from prover.errors import SerError  # noqa: E402
from prover.frontend.load import load_model  # noqa: E402
from prover.petri.build import build_interleaving_net  # noqa: E402
from prover.serial.automaton import build_serial_automaton  # noqa: E402
from prover.serial.linalg import TooLarge  # noqa: E402
from prover.serial.parikh import compute_serial_set, serial_set_to_json  # noqa: E402
from prover.target import TargetTooLarge, build_target  # noqa: E402

PAPER, SCALE = bench_dir("paper"), bench_dir("scale")
SCALE_FAMILIES = ("counter", "ring", "locked", "twophase", "flipwait")


def _models(paper: bool, scale: bool) -> list[Path]:
    out: list[Path] = []
    if paper:
        out += sorted(
            p
            for p in PAPER.iterdir()
            if p.suffix in (".ser", ".json") and p.name != "expected.json"
        )
    if scale:
        out += sorted(
            p for p in SCALE.glob("*.ser") if p.name.startswith(SCALE_FAMILIES)
        )
    return out


def _check_seconds(path: Path, s_json: dict[str, object]) -> str:
    from checker.linear_sets import check_component
    from checker.serial_model import make_model
    from checker.semantics import explore, semantics

    kind = "ser" if path.suffix == ".ser" else "ns-json"
    t0 = time.perf_counter()
    m = make_model(explore(semantics(kind, path.read_text())))
    comps = s_json["components"]
    assert isinstance(comps, list)
    for i, comp in enumerate(comps):
        check_component(m, i, comp)  # raises on a rejection
    return f"{time.perf_counter() - t0:.2f}"


def row(path: Path, split: bool, check: bool) -> list[str]:
    try:
        ns = load_model(path).ns
    except SerError as exc:
        return [path.name, "-", "-", f"no NS ({type(exc).__name__})"]
    aut = build_serial_automaton(ns).reachable()
    cells = [path.name, str(len(aut.states)), str(len(aut.edges))]
    t0 = time.perf_counter()
    try:
        s = compute_serial_set(aut)
    except TooLarge as exc:
        return cells + [f"TooLarge ({exc})", "-", "-", f"{time.perf_counter() - t0:.2f}"]
    cells += [s.construction, str(len(s.components)), str(s.num_periods)]
    cells.append(f"{time.perf_counter() - t0:.2f}")
    net = build_interleaving_net(ns)
    t0 = time.perf_counter()
    build_target(net, s, split=False)
    cells.append(f"{time.perf_counter() - t0:.2f}")
    if split:
        t0 = time.perf_counter()
        try:
            n = str(len(build_target(net, s, split=True).disjuncts))
        except TargetTooLarge:
            n = "TL"
        cells += [n, f"{time.perf_counter() - t0:.2f}"]
    if check:
        cells.append(_check_seconds(path, serial_set_to_json(s)))
    return cells


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", type=Path, metavar="MODEL")
    parser.add_argument("--paper", action="store_true", help="the 47 paper models")
    parser.add_argument("--scale", action="store_true", help="the scale families")
    parser.add_argument("--split", action="store_true", help="also time the DNF split")
    parser.add_argument("--no-check", action="store_true", help="skip the checker")
    args = parser.parse_args(argv)
    models = list(args.models)
    if not models:
        both = not (args.paper or args.scale)
        for kind, folder in (("paper", PAPER), ("scale", SCALE)):
            if not folder.is_dir():
                print(absent(kind), file=sys.stderr)
                return 2
        models = _models(args.paper or both, args.scale or both)
    head = ["model", "states", "edges", "construction", "components", "periods", "S s"]
    head.append("target s")
    if args.split:
        head += ["disjuncts", "split s"]
    if not args.no_check:
        head.append("check s")
    print(" | ".join(head))
    print(" | ".join("---" for _ in head))
    for path in models:
        print(" | ".join(row(path, args.split, not args.no_check)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
