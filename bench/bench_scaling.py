"""The scaling bench of issue 40: prove and check seconds per family and size at `--jobs`,
and the fitted exponent of the growth.

Usage: .venv/bin/python bench/bench_scaling.py [--families A,B] [--sizes 4,8]
           [--jobs 2] [--timeout 30] [--json FILE] [--out-dir DIR] [--beside]
           [--compare DIR]

Families: the shared scale set (../shared/benchmarks/scale, skipped with a message when
absent), the idiom families (bench/idioms.py), the perlock program (bench/perlock.py) and
the many-handler generators of bench/many_handlers.py when present. Every model is written
into one folder and proved by one `ser-prove --jobs` run, whose certificate check gives the
check seconds. `--beside` runs a second identical batch next to it as load; `--compare DIR`
says whether verdicts and certificates are byte-identical with an earlier `--out-dir`.
Progress goes to stderr, a Markdown table to stdout, in a fixed order.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from bench_idioms import BAR_S, row  # noqa: E402
from idioms import FAMILIES  # noqa: E402
from perlock import perlock, perlock_bug  # noqa: E402

from bench.sets import bench_dir  # noqa: E402
from prover.run.output import check_destination, check_folder, write_atomically  # noqa: E402

SCALE = bench_dir("scale")
VERDICTS = "verdicts.json"
OPEN = ("ticket", "coupling")  # undecided is their answer (docs/idioms.md)


@dataclass(frozen=True)
class Gen:
    family: str
    expected: str
    make: Callable[[int], str]
    sizes: tuple[int, ...]


# (generator name in bench/many_handlers.py, family, expected verdict, default sizes)
MANY = (("independent_lost_updates", "independent", "not_serializable", (10, 30, 50, 100, 200)),
        ("one_global", "one-global", "", (10, 50, 200)),
        ("cache_unlocked_get", "cache-unlocked", "not_serializable", (4, 8, 16)),
        ("cache_locked", "cache-locked", "serializable", (4, 8, 16)))


def many_handler_gens(say: Callable[[str], None]) -> list[Gen]:
    gens = [Gen("perlock", "serializable", perlock, (4, 8, 12, 16, 24)),
            Gen("perlock-bug", "not_serializable", perlock_bug, (4, 8, 12, 16))]
    try:
        mod: Any = importlib.import_module("many_handlers")
    except ImportError:
        mod = None
    for fn, fam, exp, sizes in MANY:
        make = getattr(mod, fn, None)
        if make is None:
            say(f"skipping {fam}: bench/many_handlers.py has no {fn}() on this branch")
        else:
            gens.append(Gen(fam, exp, make, sizes))
    return gens


def scale_models(say: Callable[[str], None]) -> dict[str, tuple[str, int, str, Path]]:
    table_file = SCALE / "expected.json"
    if not table_file.is_file():
        say(f"skipping the scale set: expected it at {SCALE} (with expected.json)")
        return {}
    table = json.loads(table_file.read_text())
    return {name: (str(v["family"]), int(v["n"]), str(v["expected"]), SCALE / name)
            for name, v in table.items()}


def write_models(out: Path, fams: set[str] | None, sizes: tuple[int, ...] | None,
                 say: Callable[[str], None]) -> dict[str, tuple[str, int, str]]:
    """Write every selected model into `out`; their family, size and expected verdict."""
    out.mkdir(parents=True, exist_ok=True)
    models: dict[str, tuple[str, int, str]] = {}

    def keep(fam: str, n: int) -> bool:
        return (fams is None or fam in fams) and (sizes is None or n in sizes)

    for name, (fam, n, exp, src) in scale_models(say).items():
        if keep(fam, n):
            shutil.copyfile(src, out / name)
            models[name] = (fam, n, exp)
    gens = [Gen(f.name, f.verdict, f.text, f.sizes) for f in FAMILIES]
    for g in gens + many_handler_gens(say):
        for n in g.sizes if sizes is None else sizes:
            if keep(g.family, n) and (sizes is not None or n in g.sizes):
                name = f"{g.family}-{n:03d}.ser"
                (out / name).write_text(g.make(n), encoding="utf-8")
                models[name] = (g.family, n, g.expected)
    return models


def prove_cmd(models: Path, certs: Path, jobs: int, timeout: float) -> list[str]:
    files = sorted(str(p) for p in models.glob("*.ser"))
    return [str(Path(sys.executable).parent / "ser-prove"), *files, "--jobs", str(jobs),
            "--timeout", str(timeout), "--json", "--out-dir", str(certs)]


def run_batches(models: Path, certs: Path, jobs: int, timeout: float,
                beside: Path | None) -> list[dict[str, Any]]:
    """One `ser-prove` run over every model; with `beside`, an identical one next to it."""
    load = None if beside is None else subprocess.Popen(
        prove_cmd(models, beside, jobs, timeout), stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)
    try:
        run = subprocess.run(prove_cmd(models, certs, jobs, timeout), capture_output=True,
                             text=True, check=False)
    finally:
        if load is not None:
            load.wait()
    return [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]


IDIOMS = {f.name for f in FAMILIES} | {"perlock", "perlock-bug"}


def bar_s(x: dict[str, Any]) -> float:
    """The seconds of prove + check the issue's Done-when allows this model (its bars are
    for two jobs beside a second two-job batch): a serializable idiom up to 24, a buggy
    twin up to 16 and 200 handlers have their own bar, locked-16 8 s; others BAR_S."""
    fam, n = x["family"], x["size"]
    if fam in IDIOMS and (n <= 16 or n <= 24 and not fam.endswith("-bug")):
        return 15.0
    return {("locked", 16): 8.0, ("independent", 200): 2.0,
            ("one-global", 200): 10.0}.get((fam, n), BAR_S)


def met_bar(x: dict[str, Any]) -> bool:
    if x["expected"] and x["verdict"] != x["expected"]:
        return x["family"].removesuffix("-bug") in OPEN and x["verdict"] == "undecided"
    if not x["expected"] and x["verdict"] == "undecided":
        return False
    return bool(x["prove_s"] + x["check_s"] <= bar_s(x))


def fit_exponent(points: list[tuple[float, float]]) -> float | None:
    """Least squares slope of log time against log size; None without two distinct sizes
    with positive times."""
    pts = [(math.log(s), math.log(t)) for s, t in points if s > 0 and t > 0]
    if len({x for x, _ in pts}) < 2:
        return None
    mx = sum(x for x, _ in pts) / len(pts)
    my = sum(y for _, y in pts) / len(pts)
    sxx = sum((x - mx) ** 2 for x, _ in pts)
    return sum((x - mx) * (y - my) for x, y in pts) / sxx


def exponents(rows: list[dict[str, Any]]) -> dict[str, float | None]:
    fams: dict[str, list[tuple[float, float]]] = {}
    for x in rows:
        fams.setdefault(x["family"], []).append(
            (float(x["size"]), x["prove_s"] + x["check_s"]))
    return {f: fit_exponent(p) for f, p in sorted(fams.items())}


def compare(now: Path, before: Path) -> list[str]:
    """The differences in verdicts and certificate bytes between two --out-dir folders."""
    diffs: list[str] = []
    old = json.loads((before / VERDICTS).read_text()) if (before / VERDICTS).is_file() else {}
    new = json.loads((now / VERDICTS).read_text())
    for name in sorted(set(old) | set(new)):
        if old.get(name) != new.get(name):
            diffs.append(f"verdict {name}: {old.get(name)} -> {new.get(name)}")
    a = {p.name: p for p in now.glob("*.cert.json")}
    b = {p.name: p for p in before.glob("*.cert.json")}
    for name in sorted(set(a) | set(b)):
        if name not in a or name not in b:
            diffs.append(f"certificate {name}: only in {'now' if name in a else 'before'}")
        elif a[name].read_bytes() != b[name].read_bytes():
            diffs.append(f"certificate {name}: bytes differ")
    return diffs


def markdown(rows: list[dict[str, Any]], exps: dict[str, float | None]) -> str:
    out = ["| family | size | verdict | expected | prove s | check s | bar |",
           "|---|---:|---|---|---:|---:|---|"]
    out += [f"| {x['family']} | {x['size']} | {x['verdict']} | {x['expected'] or '-'} | "
            f"{x['prove_s']:.2f} | {x['check_s']:.2f} | {'yes' if x['met_bar'] else 'NO'} "
            f"(≤ {bar_s(x):g}) |"
            for x in rows]
    out += ["", "| family | fitted exponent |", "|---|---:|"]
    out += [f"| {f} | {'-' if e is None else f'{e:.2f}'} |" for f, e in exps.items()]
    return "\n".join(out)


def parse(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="Prove and check seconds per family and size.")
    p.add_argument("--families", help="comma-separated family names (default: all)")
    p.add_argument("--sizes", help="comma-separated sizes (default: each family's own)")
    p.add_argument("--jobs", type=int, default=2, help="models at once (default 2)")
    p.add_argument("--timeout", type=float, default=BAR_S,
                   help=f"ser-prove's budget per model, seconds (default {BAR_S:g})")
    p.add_argument("--json", type=Path, metavar="OUT", help="also write the rows as JSON")
    p.add_argument("--out-dir", type=Path, help="keep the certificates (and verdicts.json)")
    p.add_argument("--beside", action="store_true",
                   help="run a second identical batch beside it as load")
    p.add_argument("--compare", type=Path, metavar="DIR",
                   help="compare verdicts and certificates with an earlier --out-dir")
    return p.parse_args(argv)


def main(argv: list[str]) -> int:
    a = parse(argv)
    def say(m: str) -> None:
        print(m, file=sys.stderr, flush=True)
    fams = None if a.families is None else set(a.families.split(","))
    sizes = None if a.sizes is None else tuple(int(s) for s in a.sizes.split(","))
    with tempfile.TemporaryDirectory() as tmp:
        models_dir = Path(tmp) / "models"
        models = write_models(models_dir, fams, sizes, say)
        inputs = [str(models_dir / n) for n in models] + [str(SCALE / n) for n in models]
        if a.json:
            check_destination(str(a.json), inputs, "JSON table")
        certs = a.out_dir or Path(tmp) / "certs"
        check_folder(str(certs), inputs)
        say(f"proving {len(models)} models at --jobs {a.jobs}"
            + (" beside a second identical batch" if a.beside else ""))
        records = run_batches(models_dir, certs, a.jobs, a.timeout,
                              Path(tmp) / "beside" if a.beside else None)
        rows = []
        for r in records:
            fam, n, exp = models[Path(r["model"]).name]
            x = row(r, fam, n, exp)
            rows.append({**x, "met_bar": met_bar(x)})
        rows.sort(key=lambda x: (x["family"], x["size"]))
        write_atomically(json.dumps({x["family"] + f"-{x['size']:03d}": x["verdict"]
                                     for x in rows}, indent=1, sort_keys=True) + "\n",
                         str(certs / VERDICTS), "verdicts")
        diffs = compare(certs, a.compare) if a.compare else []
    exps = exponents(rows)
    print(markdown(rows, exps))
    if a.compare:
        print(f"\ncompared with {a.compare}: "
              + ("byte-identical" if not diffs else f"{len(diffs)} differences"))
        for d in diffs:
            print(f"  {d}")
    if a.json:
        write_atomically(json.dumps({"rows": rows, "exponents": exps, "differences": diffs},
                                    indent=1) + "\n", str(a.json), "JSON table")
    return 1 if diffs or len(rows) != len(models) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
