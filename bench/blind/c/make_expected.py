#!/usr/bin/env python3
"""Writes expected.json from gen.py's models (family, note, size), the reasoned verdict of
each variant, and the bounded search's results (bounded-results.json, run_bounded.py)."""
import json, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen  # noqa: E402

# variants whose reasoned verdict is "not serializable" (the others are correct)
NOT_SER = {"bank-auditnolock", "bank-precheck", "bankring-auditrelease", "cas-split",
           "occ-verwrap", "occ-split", "dcl-nocheck", "dcl-publish", "refcount-retainsplit",
           "refcount-decsplit", "ring-publish", "ring-getnolock", "rwlock-noreaders",
           "rwlock-readsplit", "ticket-takesplit", "ticket-nobound", "ticket-handoff",
           "coupling-early", "workq-claimsplit", "workq-freeearly", "pool-split", "pool-stats",
           "pool-release", "fence-writeonly"}


def checked(rows):
    last = rows[-1]
    if last["result"] == "counterexample":
        resp = ", ".join(f"{n}:{v}" for n, v in last["responses"])
        return (f"bounded search found a counterexample with {last['requests']} requests "
                f"({resp})")
    clean = [r for r in rows if r["result"] == "none"]
    n = clean[-1]["requests"] if clean else 0
    s = f"no counterexample up to {n} requests ({clean[-1]['states']} states)" if clean else "no result"
    if last["result"] in ("incomplete", "timeout"):
        s += f"; {last['requests']} requests: {last['result']} ({last['seconds']} s)"
        if last.get("note"):
            s += f" ({last['note']})"
    return s


def main():
    res = json.load(open(os.path.join(HERE, "bounded-results.json")))
    out, bad = {}, []
    for name, (text, sizes, family, note) in gen.MODELS.items():
        for k in sizes:
            f = f"{name}-k{k}.ser"
            exp = "not_serializable" if name in NOT_SER else "serializable"
            rows = res[f]
            found = rows[-1]["result"] == "counterexample"
            if found != (exp == "not_serializable") or rows[-1]["result"] == "error":
                bad.append(f)
            out[f] = {"expected": exp, "family": family, "size": k, "note": note,
                      "checked": checked(rows)}
    json.dump(out, open(os.path.join(HERE, "expected.json"), "w"), indent=2, sort_keys=True)
    print(f"{len(out)} entries; disagreements with the bounded search: {bad or 'none'}")


if __name__ == "__main__":
    main()
