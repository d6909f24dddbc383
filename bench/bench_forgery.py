"""The forgery campaign: at least 10,000 hostile certificates through the checker, in process.

    python bench/bench_forgery.py [--per-cert 150] [--seed 1] [--paper DIR] [--certs DIR]
                                  [--scale DIR] [--scale-max K]

Valid certificates come from the archive (certificates/), the test suite's hand-built ones
and, when the benchmarks are present, from `ser-prove` on each paper model and on each
scale model of parameter at most --scale-max (reduction proofs; written once into
--certs). Mutants of each: random structural edits (numbers, names that almost match,
deleted / duplicated / swapped / grafted subtrees), every number respelled as a float or
exponent, the hand-built forgeries of tests/checker/forgeries.py for every
not-serializable model, and every reduction proof moved onto a not-serializable twin
(locked-K onto unlocked-K, the others onto flipwait-03) as it is and rebuilt for the
twin's names. Unbounded `G p` proofs with counts (`always.invariant`) of the examples'
and the small scale models' lock idioms are mutated too, and each of their formulas is
also swapped for nearby ones (constants moved by one, comparisons turned). Each row
counts, per mutation kind (those of reduction and `G p` proofs apart): rejected; accepted
and still valid (the claimed verdict is the model's true verdict: known from the archive
or expected.json, else decided again by ser-prove; for a `G p` claim, which no finite
search decides for every number of requests: no violation with at most 3 requests, by
the explicit search); accepted and WRONG (must be 0).
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import random
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.sets import bench_dir  # noqa: E402
from checker.api import check_certificate  # noqa: E402
from tests.checker import certs  # noqa: E402
from tests.checker.forgeries import (  # noqa: E402
    SPELLINGS,
    nodes,
    number_paths,
    proof_forgeries,
    reduction_forgeries,
    with_spelling,
)

Json = Any
Mutant = tuple[str, Json]  # (kind, certificate object or JSON text)


def _parent(doc: Json, path: tuple[Any, ...]) -> Json:
    for k in path[:-1]:
        doc = doc[k]
    return doc


def _near(name: str, rng: random.Random) -> str:
    """A name that almost matches: one character changed, added or dropped, or spaced."""
    choice = rng.randrange(4)
    if choice == 0 or not name:
        return name + " "
    i = rng.randrange(len(name))
    if choice == 1:
        return name[:i] + name[i + 1:]
    if choice == 2:
        return name[:i] + chr(ord(name[i]) ^ 1) + name[i + 1:]
    return name[:i] + name[i] + name[i:]


def random_mutants(cert: Json, n: int, rng: random.Random) -> Iterator[Mutant]:
    body = {k: v for k, v in cert.items() if k not in ("producer", "model")}
    inner = [(p, v) for p, v in nodes(body) if p]
    strings = sorted({v for _, v in inner if isinstance(v, str)})
    subtrees = [v for _, v in inner if isinstance(v, dict | list)]
    for _ in range(n):
        doc = copy.deepcopy(cert)
        path, value = rng.choice(inner)
        parent = _parent(doc, path)
        key = path[-1]
        if type(value) is int:
            kind = "int"
            parent[key] = rng.choice([value + 1, value - 1, 0, -value, 2 * value, 2**62])
        elif isinstance(value, str):
            kind = "name"
            parent[key] = _near(value, rng) if rng.random() < 0.5 else rng.choice(strings)
        elif isinstance(parent, list) and rng.random() < 0.5:
            kind = "list"
            op = rng.randrange(3)
            if op == 0:
                del parent[key]
            elif op == 1:
                parent.insert(key, copy.deepcopy(parent[key]))
            else:
                j = rng.randrange(len(parent))
                parent[key], parent[j] = parent[j], parent[key]
        elif isinstance(parent, dict) and rng.random() < 0.3:
            kind = "delete-key"
            del parent[key]
        else:
            kind = "graft"
            parent[key] = copy.deepcopy(rng.choice(subtrees)) if subtrees else None
        if doc != cert:
            yield kind, doc


def spelling_mutants(cert: Json, rng: random.Random, most: int) -> Iterator[Mutant]:
    paths = list(number_paths({k: v for k, v in cert.items() if k != "producer"}))
    picks = [(p, s) for p in paths for s in SPELLINGS]
    rng.shuffle(picks)
    for path, spelling in picks[:most]:
        yield f"spelling {spelling}", with_spelling(cert, path, spelling)


def _paper_certs(paper: Path, out: Path, models: list[Path] | None = None) -> dict[str, Json]:
    """One ser-prove certificate per paper model, or per one of `models` (cached in `out`)."""
    found = {}
    exe = Path(sys.executable).with_name("ser-prove")
    for model in models or sorted(p for p in paper.iterdir() if p.suffix in (".ser", ".json")
                                  and p.name != "expected.json"):
        cert = out / f"{model.name}.cert.json"
        if not cert.exists():
            subprocess.run([str(exe), str(model), "-o", str(cert), "--quiet"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        if cert.exists():
            found[f"{model.parent.name}:{model.name}"] = json.loads(
                cert.read_text(encoding="utf-8"))
    return found


def _scale(scale: Path, most: int) -> tuple[list[Path], dict[str, Path]]:
    """The scale models of parameter at most `most`, and each one's twin that is not
    serializable."""
    models = sorted(p for p in scale.glob("*.ser")
                    if int(p.stem.rsplit("-", 1)[1]) <= most and not
                    p.stem.startswith(("unlocked", "flipwait")))
    twins = {}
    for p in models:
        twin = scale / p.name.replace("locked", "unlocked") if p.stem.startswith("locked") \
            else scale / "flipwait-03.ser"
        if twin.is_file():
            twins[p.name] = twin
    return models, twins


ALWAYS = [("examples/intro-lock.ser", "G (L <= inflight(main))"),
          ("examples/intro-lock.ser", "G (X <= L && done(main) >= 0)"),
          ("examples/semaphore.ser", "G (S <= inflight(worker))"),
          ("examples/semaphore.ser", "G (inflight(worker) >= 0 && S <= 2)"),
          ("scale:locked-02.ser", "G (answered(audit, 5) == 0)"),
          ("scale:twophase-02.ser", "G (C <= 2)")]


def _always_certs(scale: Path) -> dict[str, Json]:
    """`G p` for any number of requests, proved by an invariant (prover/ltl/inductive.py)."""
    from prover.frontend.load import load_model
    from prover.ltl.inductive import invariant_certificate

    found = {}
    for where, text in ALWAYS:
        path = scale / where[6:] if where.startswith("scale:") else ROOT / where
        if not path.is_file():
            continue
        cert = invariant_certificate(str(path), text, _formula(load_model(path).ns, text))
        assert cert is not None, (where, text)
        found[f"always:{path.name}:{text}"] = cert
    return found


def formula_swaps(cert: Json) -> Iterator[Mutant]:
    """The claim's formula with one constant moved by one or one comparison turned."""
    text = cert["always"]["formula"]
    subs = [(m.span(), str(int(m.group()) + d)) for m in re.finditer(r"\b\d+\b", text)
            for d in (-1, 1)]
    subs += [(m.span(), t) for m in re.finditer(r"<=|>=|==|!=", text)
             for t in ("<", ">", "!=", "==") if t != m.group()]
    for (a, b), new in subs:
        doc = copy.deepcopy(cert)
        doc["always"]["formula"] = text[:a] + new + text[b:]
        yield "formula swap", doc


def _formula(ns: Any, text: str) -> Any:
    """`text` read against the model's globals and request names."""
    from prover.ltl.formula import parse_formula
    from prover.ltl.lasso import ser_globals

    return parse_formula(text, ser_globals(ns), frozenset(e.request for e in ns.requests))


def _always_truth(cert: Json) -> str | None:
    """A `G p` claim's truth as far as the explicit search sees, with at most 3 requests."""
    from prover.frontend.load import load_source
    from prover.ltl.explore import search

    try:
        ns = load_source(cert["model"]["source"], "ser", "m.ser").ns
        found = search(ns, _formula(ns, cert["always"]["formula"]), 3, max_states=200_000)
    except Exception:  # noqa: BLE001 (an unreadable claim: no truth to compare)
        return None
    return {"violated": "violated", "holds": "ltl_holds"}.get(found.verdict, "ltl_holds")


def _expected(folder: Path) -> dict[str, str]:
    """Model source hash -> verdict, from the folder's expected.json."""
    table = json.loads((folder / "expected.json").read_text(encoding="utf-8"))
    out = {}
    for name, entry in table.items():
        path = folder / name
        if path.is_file():
            out[hashlib.sha256(path.read_bytes()).hexdigest()] = entry["expected"]
    return out


def _truth(cert: Json, known: dict[str, str]) -> str | None:
    model = cert.get("model") if isinstance(cert, dict) else None
    if not isinstance(model, dict):
        return None
    if "always" in cert:
        return _always_truth(cert)
    if model.get("sha256") in known:
        return known[model["sha256"]]
    with tempfile.TemporaryDirectory() as tmp:  # a model we have not seen: decide it again
        suffix = ".ser" if model.get("kind") == "ser" else ".json"
        path = Path(tmp) / f"m{suffix}"
        path.write_text(str(model.get("source", "")), encoding="utf-8")
        exe = Path(sys.executable).with_name("ser-prove")
        code = subprocess.run([str(exe), str(path), "-o", f"{path}.cert.json", "--quiet"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    return {0: "serializable", 1: "not_serializable"}.get(code)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--per-cert", type=int, default=150, help="random mutants per certificate")
    ap.add_argument("--spellings", type=int, default=40, help="respelled numbers per certificate")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--paper", default=str(bench_dir("paper")))
    ap.add_argument("--certs", help="folder for the benchmarks' certificates (default: temp)")
    ap.add_argument("--scale", default=str(bench_dir("scale")))
    ap.add_argument("--scale-max", type=int, default=4,
                    help="scale models of this parameter at most (default 4)")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    valid: dict[str, Json] = {
        p.name: json.loads(p.read_text(encoding="utf-8"))
        for p in sorted((ROOT / "certificates").glob("*.cert.json"))}
    valid.update({f"hand:{k}": v for k, v in certs.all_valid().items()})
    twins: dict[str, Path] = {}
    known: dict[str, str] = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.certs or tmp)
        folder.mkdir(parents=True, exist_ok=True)
        if Path(args.paper).is_dir():
            valid.update(_paper_certs(Path(args.paper), folder))
        if Path(args.scale).is_dir():
            scaled, twins = _scale(Path(args.scale), args.scale_max)
            valid.update(_paper_certs(Path(args.scale), folder, scaled))
            known.update(_expected(Path(args.scale)))
    known.update({c["model"]["sha256"]: c["verdict"] for c in valid.values()})
    valid.update(_always_certs(Path(args.scale)))
    for name, cert in valid.items():
        assert check_certificate(cert).status == "valid", name
    mutants: list[tuple[str, str, Json]] = []
    for name, cert in valid.items():
        claim = "reduction " if "reduction" in cert else "G p " if "always" in cert else ""
        if "always" in cert:
            mutants += [(name, claim + k, m) for k, m in formula_swaps(cert)]
        mutants += [(name, claim + k, m) for k, m in random_mutants(cert, args.per_cert, rng)]
        mutants += [(name, claim + k, m)
                    for k, m in spelling_mutants(cert, rng, args.spellings)]
        if cert["verdict"] == "not_serializable":
            mutants += [(name, "forgery", t) for _, t in proof_forgeries(cert["model"])]
        twin = twins.get(name.partition(":")[2])
        if "reduction" in cert and twin is not None:
            mutants += [(name, "reduction on twin", t) for t in
                        reduction_forgeries(cert, twin.read_text(encoding="utf-8"))]
    counts: Counter[tuple[str, str]] = Counter()
    wrong: list[str] = []
    start = time.monotonic()
    for i, (name, kind, mutant) in enumerate(mutants, 1):
        r = check_certificate(mutant, timeout_s=30)
        if r.status != "valid":
            counts[(kind, "rejected")] += 1
        else:
            doc = json.loads(mutant) if isinstance(mutant, str) else mutant
            if _truth(doc, known) == doc["verdict"]:
                counts[(kind, "accepted, still valid")] += 1
            else:
                counts[(kind, "accepted, WRONG")] += 1
                wrong.append(f"{name}: {kind}")
        if i % 1000 == 0:
            print(f"... {i} of {len(mutants)} ({time.monotonic() - start:.0f} s)",
                  file=sys.stderr, flush=True)
    kinds = sorted({k for k, _ in counts})
    cols = ("rejected", "accepted, still valid", "accepted, WRONG")
    width = max(len(k) for k in [*kinds, "mutation kind"])
    print(f"{'mutation kind':<{width}} " + " ".join(f"{c:>22}" for c in cols))
    for k in kinds:
        print(f"{k:<{width}} " + " ".join(f"{counts[(k, c)]:>22}" for c in cols))
    total = {c: sum(counts[(k, c)] for k in kinds) for c in cols}
    print(f"{'total':<{width}} " + " ".join(f"{total[c]:>22}" for c in cols))
    print(f"{len(mutants)} mutants of {len(valid)} valid certificates in "
          f"{time.monotonic() - start:.0f} s")
    for w in wrong:
        print(f"WRONG: {w}")
    return 1 if wrong else 0


if __name__ == "__main__":
    raise SystemExit(main())
