#!/usr/bin/env python3
"""Run the bounded search (../bounded.py) on every model; write bounded-N.json."""
import json, subprocess, sys, glob, os, time
n = int(sys.argv[1]); timeout = int(sys.argv[2]) if len(sys.argv) > 2 else 300
files = sys.argv[3:] or sorted(glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)), "*.ser")))
out = {}
for f in files:
    t = time.time()
    try:
        p = subprocess.run(["/work/main/.venv/bin/python", "../bounded.py", f, "--max-requests", str(n), "--json"],
                           capture_output=True, text=True, timeout=timeout, cwd=os.path.dirname(os.path.abspath(__file__)))
        try:
            j = json.loads(p.stdout)
            r = {k: j.get(k) for k in ("result", "requests", "states", "seconds", "cap_hit", "errors", "multisets_checked")}
            if j.get("witness"):
                r["multiset"] = j["witness"]["multiset"]; r["responses"] = j["witness"]["responses"]
        except Exception:
            r = {"result": "error", "stderr": p.stderr[-500:], "stdout": p.stdout[-300:]}
    except subprocess.TimeoutExpired:
        r = {"result": "timeout"}
    r["wall"] = round(time.time() - t, 1)
    out[os.path.basename(f)] = r
    print(os.path.basename(f), r.get("result"), r.get("requests"), r.get("states"), r.get("cap_hit"), r["wall"], r.get("responses", ""), flush=True)
json.dump(out, open(f"bounded-{n}.json" if len(sys.argv) <= 3 else f"bounded-{n}-partial.json", "w"), indent=1)
