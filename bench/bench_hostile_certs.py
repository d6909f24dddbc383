"""Hostile certificates against the checker's one budget: each class must end within
`--timeout` + 2 s with exit 2 or 3 (or 1 where the claim is simply false), under 1 GB.

    python bench/bench_hostile_certs.py [--timeout 5] [--keep DIR]

Prints one row per input: class, bytes, exit code, wall seconds, peak RSS (MB), verdict
of the row (ok / SLOW / MEMORY / ACCEPTED). Nothing here is a unit test: timings are
measured, not asserted.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
Json = Any


def _envelope(kind: str, source: str, verdict: str, evidence: Json) -> Json:
    return {"format": "ser-certificate/1",
            "model": {"kind": kind, "source": source,
                      "sha256": hashlib.sha256(source.encode()).hexdigest()},
            "verdict": verdict, "producer": {"tool": "hostile", "version": "0"},
            ("proof" if verdict == "serializable" else "counterexample"): evidence}


LOCK = (ROOT / "examples" / "intro-nonser.ser").read_text(encoding="utf-8")
BODY, MID = "({}, X := 1; yield; y := X; X := 0; y)", "({}, y := X; X := 0; y)"


def long_counterexample() -> Json:
    """90,000 events: 30,000 sequential requests (each spawn, step, step... respond)."""
    events: list[Json] = []
    n = 0
    while len(events) < 90_000:
        n += 1
        events += [
            {"event": "spawn", "instance": n, "request": "main", "local": BODY},
            {"event": "step", "instance": n, "from": [BODY, "{}"], "to": [MID, "{X=1}"]},
            {"event": "step", "instance": n, "from": [MID, "{X=1}"], "to": ["({y=1}, 1)", "{}"]},
            {"event": "respond", "instance": n, "local": "({y=1}, 1)", "response": "1"},
        ]
    done = [{"request": "main", "response": "1", "count": n}]
    return _envelope("ser", LOCK, "not_serializable", {"events": events, "completed": done})


def _proof(source: str, kind: str, formula: Json, periods: list[Json] | None = None) -> Json:
    comp = {"base": [], "periods": periods or [], "walk": {"end": "{}", "edges": []},
            "circulations": [{"edges": [{"edge": ["{}", "main", "1", "{}"], "count": 1}]}
                             for _ in periods or []]}
    inv = {"aux": [], "initial_aux": {}, "formula": formula, "updates": []}
    return _envelope(kind, source, "serializable",
                     {"serial_set": {"components": [comp]}, "invariant": inv})


def _cmp(i: int) -> Json:
    return {"cmp": ">=", "lhs": {"place": {"global": "{}"}}, "rhs": {"const": -i}}


def many_comparisons() -> Json:
    return _proof(LOCK, "ser", {"and": [_cmp(i) for i in range(40_000)]})


def ite_tree() -> Json:
    """A balanced ite tree (2^16 leaves): every consecution translates it again."""
    def tree(d: int) -> Json:
        if d == 0:
            return {"place": {"global": "{X=1}"}}
        sub = tree(d - 1)
        return {"ite": [_cmp(d), sub, sub]}
    return _proof(LOCK, "ser", {"cmp": ">=", "lhs": tree(15), "rhs": {"const": 0}})


def deep_wrong_leaf() -> Json:
    """About 2 MB of nested ite terms, nesting under the depth limit, one leaf a string."""
    def chain(d: int, leaf: Json) -> Json:
        t = leaf
        for i in range(d):
            t = {"ite": [_cmp(i), t, {"const": i}]}
        return t
    parts = [{"cmp": ">=", "lhs": chain(60, {"const": 0}), "rhs": {"const": 0}}
             for _ in range(700)]
    parts.append({"cmp": ">=", "lhs": chain(60, {"const": "zero"}), "rhs": {"const": 0}})
    return _proof(LOCK, "ser", {"and": parts})


def dense_periods() -> Json:
    """200 periods over 10,000 response coordinates (an NS JSON model with 10^4 answers)."""
    ns = {"initial_global": "{}", "requests": [["main", "s"]],
          "responses": [["s", str(v)] for v in range(10_000)], "transitions": []}
    periods = [[{"request": "main", "response": str(v), "count": 1 + (v * (i + 3)) % 7}
                for v in range(0, 10_000, 50)] for i in range(200)]
    return _proof(json.dumps(ns), "ns-json", True, periods)


def ns_chain() -> Json:
    """An embedded NS JSON chain of 2,000 globals (a large serial automaton)."""
    n = 2_000
    ns = {"initial_global": "g0", "requests": [["main", "a"]], "responses": [["b", "ok"]],
          "transitions": [["a", f"g{i}", "b", f"g{i + 1}"] for i in range(n)]}
    return _proof(json.dumps(ns), "ns-json", True)


CLASSES: dict[str, Callable[[], Json]] = {
    "90k-event counterexample": long_counterexample,
    "40k comparisons": many_comparisons,
    "ite tree 2^15 leaves": ite_tree,
    "2 MB deep ite, wrong leaf": deep_wrong_leaf,
    "200 dense periods x 10^4": dense_periods,
    "NS JSON chain 2,000 globals": ns_chain,
}


def _run(path: Path, timeout: float) -> tuple[int, float, float]:
    exe = Path(sys.executable).with_name("ser-check-cert")
    start = time.monotonic()
    proc = subprocess.Popen([str(exe), str(path), "--timeout", str(timeout)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, wall, usage.ru_maxrss / 1024


def rows(timeout: float, folder: Path) -> Iterator[tuple[str, int, int, float, float, str]]:
    for label, make in CLASSES.items():
        path = folder / (label.replace(" ", "_").replace(",", "") + ".json")
        path.write_text(json.dumps(make()), encoding="utf-8")
        code, wall, mb = _run(path, timeout)
        verdict = ("ACCEPTED" if code == 0 else "SLOW" if wall > timeout + 2
                   else "MEMORY" if mb > 1024 else "ok")
        yield label, path.stat().st_size, code, wall, mb, verdict


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--timeout", type=float, default=5.0, help="checker budget (default 5)")
    ap.add_argument("--keep", metavar="DIR", help="write the inputs here instead of a temp dir")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.keep or tmp)
        folder.mkdir(parents=True, exist_ok=True)
        print(f"{'class':<30} {'bytes':>9} {'exit':>4} {'wall s':>7} {'peak MB':>8}  row")
        bad = 0
        for label, size, code, wall, mb, verdict in rows(args.timeout, folder):
            bad += verdict != "ok"
            print(f"{label:<30} {size:>9} {code:>4} {wall:>7.2f} {mb:>8.0f}  {verdict}",
                  flush=True)
    print(f"{len(CLASSES) - bad} of {len(CLASSES)} within budget and memory, none accepted"
          if not bad else f"{bad} of {len(CLASSES)} FAILED")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
