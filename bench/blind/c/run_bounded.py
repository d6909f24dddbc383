#!/usr/bin/env python3
"""Runs expand.py (the bounded search) on every model of this folder at 2, 3, 4 ...
requests, at most 2 at a time, and writes bounded-results.json (per model, per request
count: result, states, seconds, witness multiset).  Usage:
python bench/blind/c/run_bounded.py [--max N] [--timeout S] [MODEL...]"""
import argparse, json, os, subprocess, sys, time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "bounded-results.json")


def one(path, nmax, timeout, max_states):
    rows = []
    for n in range(2, nmax + 1):
        t0 = time.monotonic()
        try:
            p = subprocess.run([sys.executable, os.path.join(HERE, "expand.py"), path,
                                "--max-requests", str(n), "--max-states", str(max_states), "--json"],
                               capture_output=True, text=True, timeout=timeout)
            d = json.loads(p.stdout)
            row = {"requests": n, "result": d["result"], "states": d.get("states"),
                   "seconds": round(time.monotonic() - t0, 1)}
            if d["result"] == "counterexample":
                w = d["witness"]
                row["multiset"] = w["multiset"]
                row["responses"] = w["responses"]
            if d.get("errors"):
                row["errors"] = [f"{e['code']} at {e['line']}:{e['column']} in {e['request']}" for e in d["errors"]]
        except subprocess.TimeoutExpired:
            row = {"requests": n, "result": "timeout", "seconds": timeout}
        rows.append(row)
        if row["result"] != "none":
            break
    return os.path.basename(path), rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("models", nargs="*")
    ap.add_argument("--max", type=int, default=4)
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--max-states", type=int, default=4_000_000)
    a = ap.parse_args()
    models = a.models or sorted(os.path.join(HERE, f) for f in os.listdir(HERE) if f.endswith(".ser"))
    res = json.load(open(OUT)) if os.path.exists(OUT) else {}
    with ThreadPoolExecutor(2) as ex:
        for name, rows in ex.map(lambda m: one(m, a.max, a.timeout, a.max_states), models):
            res[name] = rows
            last = rows[-1]
            print(f"{name:34} " + "; ".join(f"{r['requests']}:{r['result']}({r.get('seconds')}s)" for r in rows)
                  + (f" {last.get('multiset')}" if last['result'] == 'counterexample' else ""), flush=True)
            json.dump(res, open(OUT, "w"), indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
