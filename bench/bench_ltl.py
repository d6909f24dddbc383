"""Temporal properties: the prover's explicit LTL-X search (prover/ltl/explore.py) and its
unfolding engine (prover/ltl/unfold.py, prover/ltl/unfold_ltl.py) against SPIN, case by
case (docs/ltl.md).

Usage: .venv/bin/python bench/bench_ltl.py [--max-cases N] [--max-states N] [--no-spin]
                                          [--json FILE]

Installs nothing: SPIN and gcc must be on PATH (`apt-get install spin`), else it says so
and exits 2. Cases: for models of the examples, the paper set and the small scale models
(../shared/benchmarks, skipped when absent), a fixed family of properties over the first
request name R and the first global V of the program (safety and liveness, with and
without weak fairness), each at K = 2 requests, the first two also at K = 1 and 3, and
for the scale families liveness under weak fairness at K = 3 (a waiter behind a lock,
`G (inflight(audit) > 0 -> F inflight(audit) == 0)` on locked-*; a ring that passes the
turn, `G (T == 1 -> F T != 1)` on ring-*; a decrement waiting for an increment on
counter-*; a waiter for flips on flipwait-*):

  G inflight(R) <= K-1            F done(R) > 0               G (done(R) <= K)
  G (inflight(R) > 0 -> F inflight(R) == 0)                   G F inflight(R) == 0
  G V >= 0         G (V != 0 -> F V == 0)         F G V == 0  (Ser programs only)

Per case: both verdicts; the product states our search explored (`product`: without
fairness, with request symmetry, states equal up to which request is which, and the
ample-set reduction of prover/ltl/reduce.py; `full`: every interleaving, neither), the
program's own states in the search, SPIN's states stored (with its partial-order
reduction), and the times. Also the unfolding engine (`ser-prove ltl --engine unfold`),
on every case: its verdict (`unfair`: under weak fairness it met only unfair lassos and
leaves the verdict to the explicit search, as `ser-prove ltl` then does), the events of
its prefix (`unfold ev`), its time, and its violations' certificates (`ucert`).
`--no-spin`: our engines only (SPIN's columns say `-`), for a quick run.
Every violation our search reports is a lasso already confirmed by the exact semantics
(prover/ltl/lasso.py); its certificate, as `ser-prove ltl` writes it, is then checked by
the checker (`cert` column). The last line counts disagreements and violations whose
certificate was not accepted; no figure is asserted.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.sets import bench_dir  # noqa: E402
from checker.api import check_certificate  # noqa: E402
from prover.certificate.write import dump_certificate  # noqa: E402
from prover.frontend.load import LoadedModel, load_model  # noqa: E402
from prover.ltl.certify import by_unfolding, violation_certificate  # noqa: E402
from prover.ltl.explore import search  # noqa: E402
from prover.ltl.formula import Formula, is_safety, parse_formula  # noqa: E402
from prover.ltl.lasso import ser_globals  # noqa: E402
from prover.ltl.promela import to_promela  # noqa: E402

SMALL_SCALE = ("counter-03", "flipwait-03", "locked-02", "ring-03", "twophase-01",
               "twophase-02", "unlocked-02")


def _models() -> list[Path]:
    out = sorted(p for p in (ROOT / "examples").iterdir()
                 if p.suffix in (".ser", ".json") and not p.name.endswith(".cert.json")
                 and p.name != "expected.json")
    paper = bench_dir("paper")
    if paper.is_dir():
        out += sorted(p for p in paper.iterdir() if p.suffix == ".ser")[:12]
    scale = bench_dir("scale")
    out += [scale / f"{n}.ser" for n in SMALL_SCALE if (scale / f"{n}.ser").is_file()]
    return out


SCALE_LIVENESS = {"locked": "G (inflight(audit) > 0 -> F inflight(audit) == 0)",
                  "ring": "G (T == 1 -> F T != 1)",
                  "counter": "G (inflight(decr) > 0 -> F inflight(decr) == 0)",
                  "flipwait": "F done(main) > 0"}


def _scale_cases(model: Path) -> list[tuple[str, str, int]]:
    """The scale family's own liveness case, under weak fairness and without, at K = 3."""
    text = SCALE_LIVENESS.get(model.stem.split("-")[0])
    return [] if text is None or model.parent.name != "scale" else \
        [(text, "weak", 3), (text, "none", 3)]


def _properties(r: str, v: str | None, k: int) -> list[tuple[str, str]]:
    props = [(f"G inflight({r}) <= {k - 1}", "none"), (f"F done({r}) > 0", "weak"),
             (f"G (done({r}) <= {k})", "none"),
             (f"G (inflight({r}) > 0 -> F inflight({r}) == 0)", "none"),
             (f"G (inflight({r}) > 0 -> F inflight({r}) == 0)", "weak"),
             (f"G F inflight({r}) == 0", "weak")]
    if v is not None:
        props += [(f"G {v} >= 0", "none"), (f"G ({v} != 0 -> F {v} == 0)", "weak"),
                  (f"F G {v} == 0", "weak")]
    return props


def _spin(text: str, fair: bool, work: Path) -> tuple[str, int, float]:
    (work / "m.pml").write_text(text, encoding="utf-8")
    start = time.monotonic()
    subprocess.run(["spin", "-a", "m.pml"], cwd=work, check=True, capture_output=True)
    subprocess.run(["gcc", "-O1", "-DMEMLIM=2048", "-o", "pan", "pan.c"], cwd=work,
                   check=True, capture_output=True)
    run = subprocess.run(["./pan", "-a", "-m10000000", *(["-f"] if fair else [])], cwd=work,
                         capture_output=True, text=True, timeout=600)
    seconds = time.monotonic() - start
    errors = re.search(r"errors: (\d+)", run.stdout)
    stored = re.search(r"(\d+) states, stored", run.stdout)
    if errors is None or "depth too small" in run.stdout:
        return "error", 0, seconds
    return ("holds" if errors[1] == "0" else "violated"), int(stored[1]) if stored else 0, seconds


def _unfold(loaded: LoadedModel, text: str, phi: Formula, k: int, fairness: str,
            budget: int, tree: bool = False) -> dict[str, Any]:
    """The unfolding engine on a case (its prefix grown in the adequate order, or by
    the exploration tree): verdict, events, runs, seconds, certificate."""
    start = time.monotonic()
    found, made = by_unfolding(loaded, text, phi, k, fairness, budget, tree=tree)
    seconds = time.monotonic() - start
    cert = "-" if made is None else check_certificate(dump_certificate(made),
                                                       timeout_s=60).status
    name = "tree" if tree else "unfold"
    return {name: found.verdict, f"{name}_events": found.events,
            f"{name}_s": round(seconds, 3), f"{name}_cert": cert, f"{name}_runs": found.runs}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--max-cases", type=int, default=500)
    ap.add_argument("--max-states", type=int, default=200_000)
    ap.add_argument("--unfold-work", type=int, default=3_000_000,
                    help="the unfolding's budget (events and co-set search steps)")
    ap.add_argument("--json", dest="json_out")
    ap.add_argument("--no-spin", action="store_true", help="our engines only")
    args = ap.parse_args()
    if not args.no_spin and (shutil.which("spin") is None or shutil.which("gcc") is None):
        print("bench_ltl: needs SPIN and gcc on PATH (apt-get install spin gcc)",
              file=sys.stderr)
        return 2
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for model in _models():
            loaded = load_model(str(model))
            ns = loaded.ns
            names = sorted({e.request for e in ns.requests})
            r = next((n for n in names if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", n)), None)
            if r is None:
                continue
            gl = sorted(ser_globals(ns))
            cases = [(text, fairness, k) for k in (2, 1, 3)
                     for text, fairness in _properties(r, gl[0] if gl else None, k)[
                         :None if k == 2 else 2]] + _scale_cases(model)
            for text, fairness, k in cases:
                if len(rows) >= args.max_cases:
                    break
                rows.append(_case(loaded, model, text, fairness, k, args, Path(tmp)))
    head = f"{'model':18} {'K':>1} {'fair':4} {'ours':9} {'spin':9} {'product':>8} " \
           f"{'full':>8} {'program':>8} {'spin st':>8} {'ours s':>7} {'spin s':>7} " \
           f"{'cert':7} {'unfold':9} {'unfold ev':>9} {'unf s':>6} {'ucert':7} " \
           f"{'tree':9} {'tree ev':>8} {'runs':>7} {'tree s':>6}  formula"
    print(head)
    for x in rows:
        mark = "" if _agree(x) else "  <<"
        print(f"{x['model'][:18]:18} {x['k']:>1} {x['fairness'][:4]:4} {x['ours']:9} "
              f"{x['spin']:9} {x['our_states']:>8} {x['full_states']:>8} "
              f"{x['program_states']:>8} "
              f"{x['spin_states']:>8} {x['our_s']:>7} {x['spin_s']:>7} {x['certificate']:7} "
              f"{x['unfold']:9} {x['unfold_events']:>9} {x['unfold_s']:>6} "
              f"{x['unfold_cert']:7} {x['tree']:9} {x['tree_events']:>8} "
              f"{x['tree_runs'] or 0:>7} {x['tree_s']:>6}  {x['formula']}{mark}")
    wrong = [x for x in rows if not _agree(x)]
    unchecked = [x for x in rows if x["ours"] == "violated" and x["certificate"] != "valid"
                 or x["unfold"] == "violated" and x["unfold_cert"] != "valid"
                 or x["tree"] == "violated" and x["tree_cert"] != "valid"]
    print()
    _summary(rows, args.no_spin)
    print(f"\n{len(rows)} cases; {len(wrong)} disagreements among the engines; "
          f"violations whose lasso certificate the checker did not accept: {len(unchecked)}")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    return 1 if wrong or unchecked else 0


def _summary(rows: list[dict[str, Any]], no_spin: bool) -> None:
    """Per engine and kind of formula: verdicts, work (product states, events, states
    stored), seconds; and where the unfolding does less work than the explicit search."""
    print(f"{'kind':10} {'engine':9} {'holds':>5} {'viol.':>5} {'undec.':>6} {'unfair':>6} "
          f"{'work':>10} {'seconds':>8}")
    for kind, mine in (("G p", [x for x in rows if x["safety"]]),
                       ("other", [x for x in rows if not x["safety"]])):
        engines = [("explicit", "ours", "our_states", "our_s"),
                   ("unfold", "unfold", "unfold_events", "unfold_s"),
                   ("tree", "tree", "tree_events", "tree_s")]
        if not no_spin:
            engines.append(("SPIN", "spin", "spin_states", "spin_s"))
        for name, key, work, secs in engines:
            n = {v: sum(1 for x in mine if x[key] == v)
                 for v in ("holds", "violated", "undecided", "unfair")}
            print(f"{kind:10} {name:9} {n['holds']:>5} {n['violated']:>5} {n['undecided']:>6} "
                  f"{n['unfair']:>6} {sum(x[work] for x in mine):>10,} "
                  f"{sum(x[secs] for x in mine):>8.2f}")
        less = sum(1 for x in mine if x["unfold_events"] < x["our_states"])
        faster = sum(1 for x in mine if x["unfold_s"] < x["our_s"])
        print(f"{kind:10} unfolding: fewer events than product states in {less} of "
              f"{len(mine)} cases, faster in {faster}")
        less = sum(1 for x in mine if x["tree_events"] < x["unfold_events"])
        faster = sum(1 for x in mine if x["tree_s"] < x["unfold_s"])
        runs = sum(x["tree_runs"] or 0 for x in mine)
        print(f"{kind:10} tree: {runs:,} runs explored; fewer events than the prefix in "
              f"{less} cases, faster in {faster}")


def _case(loaded: LoadedModel, model: Path, text: str, fairness: str, k: int,
          args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    ns = loaded.ns
    phi = parse_formula(text, ser_globals(ns), frozenset(e.request for e in ns.requests))
    start = time.monotonic()
    ours = search(ns, phi, k, fairness=fairness, max_states=args.max_states)
    ours_s = time.monotonic() - start
    cert = "-"
    if ours.verdict == "violated":  # its lasso, as ser-ltl would certify it
        text_cert = dump_certificate(violation_certificate(loaded, text, k, fairness, ours))
        cert = check_certificate(text_cert, timeout_s=60).status
    full = search(ns, phi, k, fairness=fairness, max_states=args.max_states,
                  symmetry=False, reduction=False)
    spin, spin_states, spin_s = ("-", 0, 0.0) if args.no_spin else _spin(
        to_promela(ns, k, phi), fairness == "weak", tmp)
    unfolded = _unfold(loaded, text, phi, k, fairness, args.unfold_work)
    treed = _unfold(loaded, text, phi, k, fairness, args.unfold_work, tree=True)
    return {"model": model.name, "k": k, "formula": text, "fairness": fairness,
            "safety": is_safety(phi), "ours": ours.verdict, "spin": spin, "our_states": ours.states,
            "program_states": ours.system_states, "full_states": full.states,
            "spin_states": spin_states, "our_s": round(ours_s, 3), "spin_s": round(spin_s, 3),
            "certificate": cert, **unfolded, **treed}


def _agree(x: dict[str, Any]) -> bool:
    """No two decided verdicts of the engines (ours, SPIN's, the unfolding's) differ
    (`unfair` is no verdict: the explicit search's stands)."""
    decided = {x[k] for k in ("ours", "spin", "unfold", "tree")} & {"holds", "violated"}
    return len(decided) <= 1


if __name__ == "__main__":
    raise SystemExit(main())
