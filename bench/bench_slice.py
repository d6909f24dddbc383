"""Dynamic slicing (prover/petri/dynamic_slice.py): speed on generated 1,000-transition
PNML nets, and slice sizes against net sizes on the paper's 47 models.

Usage: .venv/bin/python bench/bench_slice.py [--parts generated,models,scale]
       [--max-states N] [--criteria K] [--json FILE]

Part 1, generated nets (PNML text written, then read back, then sliced; the time of each
step, best of 3 runs):
* `ring`: 1,000 places in a ring of 1,000 transitions, one token, Q = the place opposite;
* `random`: 500 places, 1,000 transitions with 1-3 input and 1-3 output places, 20 marked
  places, Q = the last place.

Part 2, one row per paper model: its interleaving net, every completed-pair place
`R req/resp` taken alone as the criterion ⟨M0, {place}⟩: ranges (min-max over the
criteria) of the maximal and minimal slices' places/transitions, the minimal sequence
lengths, the criteria with no slice (exactly: not coverable) and undecided, how many
maximal slices differ from the older `explain` slice (prover/petri/slicing.py) in their
transitions (≠T) and places (≠P; the older one kept every place a transition touches),
and the time for all criteria of the model.

Part 3, the largest P/T nets at hand: the interleaving nets of the scale set
(../shared/benchmarks/scale), written as PNML and read back by the reader, as the slicing
paper measured: for up to K completed-pair places (evenly spaced, each alone as the
criterion), the slice size as % of |P| + |T| (mean and range) and the mean time per
criterion, per algorithm; `min sl` counts the criteria with a minimal slice and `undec`
those the minimal search left undecided at --max-states (the rest are not coverable).

The generated nets are also sliced by the command line (`ser-prove slice FILE ...`, a
fresh interpreter each time, so start-up and imports included): columns cli max_s,
cli min_s.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.sets import bench_dir  # noqa: E402
from prover.frontend.load import load_model  # noqa: E402
from prover.petri import slicing as old  # noqa: E402
from prover.petri.build import build_interleaving_net  # noqa: E402
from prover.petri.dynamic_slice import (  # noqa: E402
    PTNet,
    from_interleaving,
    maximal_slice,
    minimal_slice,
)
from prover.petri.read import ptnet_to_pnml, read_pnml  # noqa: E402

BENCH = bench_dir("paper")
SCALE = bench_dir("scale")


def _net(name: str, n_places: int, arcs: list[tuple[list[int], list[int]]],
         marked: list[int]) -> PTNet:
    init = [0] * n_places
    for p in marked:
        init[p] = 1
    return PTNet(
        name, tuple(f"p{i}" for i in range(n_places)), tuple(f"p{i}" for i in range(n_places)),
        tuple(f"t{j}" for j in range(len(arcs))), tuple(f"t{j}" for j in range(len(arcs))),
        tuple(tuple((p, 1) for p in sorted(set(i))) for i, _ in arcs),
        tuple(tuple((p, 1) for p in sorted(set(o))) for _, o in arcs),
        tuple(init),
    )


def ring(n: int = 1000) -> tuple[PTNet, int]:
    return _net("ring", n, [([j], [(j + 1) % n]) for j in range(n)], [0]), n // 2


def random_net(n_places: int = 500, n_trans: int = 1000, seed: int = 1) -> tuple[PTNet, int]:
    rnd = random.Random(seed)
    arcs = [
        (rnd.sample(range(n_places), rnd.randint(1, 3)),
         rnd.sample(range(n_places), rnd.randint(1, 3)))
        for _ in range(n_trans)
    ]
    return _net("random", n_places, arcs, rnd.sample(range(n_places), 20)), n_places - 1


def _best(fn: Any, runs: int = 3) -> tuple[float, Any]:
    best, out = float("inf"), None
    for _ in range(runs):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def generated(max_states: int) -> list[dict[str, Any]]:
    rows = []
    print("generated PNML nets (seconds, best of 3)")
    print(f"{'net':8} {'P':>5} {'T':>5} {'write_s':>8} {'read_s':>7} {'max_s':>7} "
          f"{'min_s':>7} {'max P/T':>9} {'min P/T/len':>12} {'minimal':>14} "
          f"{'cli max_s':>9} {'cli min_s':>9}")
    for net, q in (ring(), random_net()):
        w_s, text = _best(lambda net=net: ptnet_to_pnml(net))
        r_s, back = _best(lambda text=text: read_pnml(text.encode(), "gen.pnml"))
        mx_s, mx = _best(lambda back=back, q=q: maximal_slice(back, [q], back.initial))
        mn_s, mn = _best(
            lambda back=back, q=q: minimal_slice(back, [q], back.initial, max_states=max_states)
        )
        mn_sz = (f"{len(mn.slice.places)}/{len(mn.slice.transitions)}/{len(mn.slice.sequence)}"
                 if mn.slice else "-")
        cli = {}
        with tempfile.TemporaryDirectory() as tmp:
            f = Path(tmp) / f"{net.name}.pnml"
            f.write_text(text)
            for alg in ("maximal", "minimal"):
                cmd = [sys.executable, "-m", "prover.cli", "slice", str(f), "--criterion",
                       net.place_ids[q], "--algorithm", alg, "--json"]
                cli[alg], _ = _best(lambda cmd=cmd: subprocess.run(
                    cmd, check=True, capture_output=True, cwd=ROOT))
        print(f"{net.name:8} {len(net.place_ids):5} {len(net.transition_ids):5} {w_s:8.3f} "
              f"{r_s:7.3f} {mx_s:7.3f} {mn_s:7.3f} "
              f"{len(mx.places):>4}/{len(mx.transitions):<4} {mn_sz:>12} {mn.status:>14} "
              f"{cli['maximal']:9.3f} {cli['minimal']:9.3f}")
        rows.append({"net": net.name, "places": len(net.place_ids),
                     "transitions": len(net.transition_ids), "write_s": w_s, "read_s": r_s,
                     "maximal_s": mx_s, "minimal_s": mn_s, "minimal": mn.status,
                     "maximal_size": [len(mx.places), len(mx.transitions)],
                     "cli_maximal_s": cli["maximal"], "cli_minimal_s": cli["minimal"]})
    return rows


def _rng(xs: list[int]) -> str:
    if not xs:
        return "-"
    lo, hi = min(xs), max(xs)
    return str(lo) if lo == hi else f"{lo}-{hi}"


def models(max_states: int) -> list[dict[str, Any]]:
    if not BENCH.is_dir():
        print(f"(no paper benchmarks at {BENCH}: part 2 skipped)")
        return []
    names = sorted(p.name for p in BENCH.iterdir() if p.suffix in (".ser", ".json")
                   and p.name != "expected.json")
    print(f"\npaper models: every completed-pair place alone as Q (max-states {max_states})")
    print(f"{'model':6} {'P':>4} {'T':>4} {'Q':>3} {'max P':>7} {'max T':>7} {'min P':>6} "
          f"{'min T':>6} {'len':>6} {'none':>4} {'undec':>5} {'≠T':>3} {'≠P':>3} {'secs':>6}")
    rows = []
    tot = {"criteria": 0, "none": 0, "undecided": 0, "differ": 0, "differ_p": 0}
    for name in names:
        try:
            pn = build_interleaving_net(load_model(BENCH / name).ns)
        except Exception as exc:  # a model the front end rejects is reported, not fatal
            print(f"{name:6} error: {exc}")
            continue
        net = from_interleaving(pn, name)
        crits = [i for i, p in enumerate(pn.places) if p.kind == "response"]
        t0 = time.perf_counter()
        mxp, mxt, mnp, mnt, lens = [], [], [], [], []
        none = undec = differ = differ_p = 0
        for q in crits:
            mx = maximal_slice(net, [q], net.initial)
            mxp.append(len(mx.places))
            mxt.append(len(mx.transitions))
            before = old.maximal_slice(pn, q)
            differ += tuple(before.transitions) != mx.transitions
            differ_p += tuple(before.places) != mx.places
            mn = minimal_slice(net, [q], net.initial, max_states=max_states)
            if mn.slice is not None:
                mnp.append(len(mn.slice.places))
                mnt.append(len(mn.slice.transitions))
                lens.append(len(mn.slice.sequence))
            elif mn.status == "not-coverable":
                none += 1
            else:
                undec += 1
        secs = time.perf_counter() - t0
        sz = net.sizes()
        print(f"{name:6} {sz['places']:4} {sz['transitions']:4} {len(crits):3} "
              f"{_rng(mxp):>7} {_rng(mxt):>7} {_rng(mnp):>6} {_rng(mnt):>6} {_rng(lens):>6} "
              f"{none:4} {undec:5} {differ:3} {differ_p:3} {secs:6.2f}")
        tot["criteria"] += len(crits)
        tot["none"] += none
        tot["undecided"] += undec
        tot["differ"] += differ
        tot["differ_p"] += differ_p
        rows.append({"model": name, **sz, "criteria": len(crits), "maximal_places": mxp,
                     "maximal_transitions": mxt, "minimal_places": mnp,
                     "minimal_transitions": mnt, "minimal_lengths": lens, "no_slice": none,
                     "undecided": undec, "transitions_differ_from_old": differ,
                     "places_differ_from_old": differ_p, "seconds": secs})
    print(f"total: {tot['criteria']} criteria, {tot['none']} with no slice, "
          f"{tot['undecided']} undecided; against the older explain slice, "
          f"{tot['differ']} maximal slices differ in transitions, {tot['differ_p']} in places")
    return rows


def _pct(xs: list[float]) -> str:
    if not xs:
        return "-"
    return f"{sum(xs) / len(xs):5.1f} ({min(xs):.1f}-{max(xs):.1f})"


def scale(max_states: int, k: int) -> list[dict[str, Any]]:
    if not SCALE.is_dir():
        print(f"(no scale benchmarks at {SCALE}: part 3 skipped)")
        return []
    names = sorted(p.name for p in SCALE.iterdir() if p.suffix == ".ser")
    print(f"\nscale-set nets through PNML: up to {k} response places as Q, "
          f"slice size % of |P|+|T|, mean ms per criterion (max-states {max_states})")
    print(f"{'model':13} {'P':>6} {'T':>7} {'read_s':>7} {'Q':>3} {'maximal %':>18} "
          f"{'max ms':>8} {'minimal %':>18} {'min ms':>8} {'min sl':>6} {'undec':>5}")
    rows = []
    for name in names:
        try:
            pn = build_interleaving_net(load_model(SCALE / name).ns)
        except Exception as exc:  # e.g. past the state bound: reported, not fatal
            print(f"{name:13} not compiled: {str(exc).splitlines()[0][:70]}")
            continue
        text = ptnet_to_pnml(from_interleaving(pn, name))
        t0 = time.perf_counter()
        net = read_pnml(text.encode(), f"{name}.pnml")
        read_s = time.perf_counter() - t0
        resp = [i for i, p in enumerate(pn.places) if p.kind == "response"]
        crits = resp[:: max(1, len(resp) // k)][:k]
        size = len(net.place_ids) + len(net.transition_ids)
        mx_pct: list[float] = []
        mn_pct: list[float] = []
        mx_s = mn_s = 0.0
        undecided = 0
        for q in crits:
            t0 = time.perf_counter()
            mx = maximal_slice(net, [q], net.initial)
            mx_s += time.perf_counter() - t0
            mx_pct.append(100 * (len(mx.places) + len(mx.transitions)) / size)
            t0 = time.perf_counter()
            mn = minimal_slice(net, [q], net.initial, max_states=max_states)
            mn_s += time.perf_counter() - t0
            if mn.slice is not None:
                mn_pct.append(100 * (len(mn.slice.places) + len(mn.slice.transitions)) / size)
            undecided += mn.status == "undecided"
        n = max(1, len(crits))
        print(f"{name:13} {len(net.place_ids):6} {len(net.transition_ids):7} {read_s:7.2f} "
              f"{len(crits):3} {_pct(mx_pct):>18} {1000 * mx_s / n:8.1f} {_pct(mn_pct):>18} "
              f"{1000 * mn_s / n:8.1f} {len(mn_pct):6} {undecided:5}")
        rows.append({"model": name, "places": len(net.place_ids),
                     "transitions": len(net.transition_ids), "read_s": read_s,
                     "criteria": len(crits), "maximal_pct": mx_pct, "minimal_pct": mn_pct,
                     "minimal_undecided": undecided,
                     "maximal_ms_mean": 1000 * mx_s / n, "minimal_ms_mean": 1000 * mn_s / n})
    return rows


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", default="generated,models,scale",
                        help="comma-separated parts to run (default all three)")
    parser.add_argument("--max-states", type=int, default=200_000, metavar="N")
    parser.add_argument("--criteria", type=int, default=10, metavar="K",
                        help="criteria per scale-set net (default 10)")
    parser.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    args = parser.parse_args(argv)
    parts = set(args.parts.split(","))
    out: dict[str, Any] = {}
    if "generated" in parts:
        out["generated"] = generated(args.max_states)
    if "models" in parts:
        out["models"] = models(args.max_states)
    if "scale" in parts:
        out["scale"] = scale(args.max_states, args.criteria)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
