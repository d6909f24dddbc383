"""Models written by others, measured as a new user runs them: the blind corpora of
`bench/blind/` (written by authors who never read the prover, from the language docs
alone, their verdicts checked by an independent bounded search, `bench/blind/bounded.py`)
and, when given, `others/` folders of the same kind.

Usage: .venv/bin/python bench/bench_blind.py [FOLDER ...] [--jobs 2] [--timeout 30]
                                             [--beside] [--json FILE]

Each FOLDER holds models and an `expected.json` (the verdict, and the idiom's `family` and
`size` when the author gave them). Runs `ser-prove bench` on each folder, then prints one
row per model (expected and found verdict, prove and check seconds, engine) and a table per
family and size: models, decided, wrong, the slowest prove + check. `--beside` runs a
second, identical batch at the same time (a busy machine). Exits 1 when a verdict
disagrees with `expected.json` (never when a model is only undecided).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BLIND = sorted(p for p in (ROOT / "bench" / "blind").iterdir() if (p / "expected.json").exists())


def _bench(folder: Path, jobs: int, timeout: float, out: Path) -> subprocess.Popen[bytes]:
    cmd = [str(ROOT / ".venv" / "bin" / "ser-prove"), "bench", str(folder), "--jobs",
           str(jobs), "--timeout", str(timeout), "--json", str(out)]
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _family(name: str, info: dict[str, Any]) -> tuple[str, int]:
    """The author's family and size, else read off the file name (`bank16-bug.ser`)."""
    if "family" in info:
        return str(info["family"]), int(info.get("size", 0))
    m = re.match(r"([a-z]+?)(\d*)(-|\.)", name)
    return (m.group(1), int(m.group(2) or 0)) if m else (name, 0)


def measure(folders: list[Path], jobs: int, timeout: float, beside: bool
            ) -> list[dict[str, Any]]:  # fmt: skip
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for k, folder in enumerate(folders):
            out = Path(tmp) / f"{k}.json"
            procs = [_bench(folder, jobs, timeout, out)]
            if beside:
                procs.append(_bench(folder, jobs, timeout, Path(tmp) / f"{k}-beside.json"))
            for p in procs:
                p.wait()
            expected = json.loads((folder / "expected.json").read_text(encoding="utf-8"))
            for r in json.loads(out.read_text(encoding="utf-8"))["rows"]:
                if r["model"].endswith(".json") and r["model"] not in expected:
                    continue  # an author's own record beside the models, not a model
                family, size = _family(r["model"], expected.get(r["model"], {}))
                rows.append({**r, "folder": folder.name, "family": family, "size": size})
    return rows


def _total(r: dict[str, Any]) -> float:
    return float(r.get("prove_s") or 0.0) + float(r.get("check_s") or 0.0)


def table(rows: list[dict[str, Any]]) -> str:
    groups: dict[tuple[str, str, int], list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[(r["folder"], r["family"], r["size"])].append(r)
    lines = [f"{'folder':<8} {'family':<16} {'size':>4} {'models':>6} {'decided':>7} "
             f"{'wrong':>5} {'max s':>6}  undecided"]
    for (folder, family, size), rs in sorted(groups.items()):
        decided = [r for r in rs if r["verdict"] in ("serializable", "not_serializable")]
        wrong = [r for r in decided if r["verdict"] != r["expected"]]
        open_ = ", ".join(r["model"] for r in rs if r not in decided)
        lines.append(f"{folder:<8} {family:<16} {size:>4} {len(rs):>6} {len(decided):>7} "
                     f"{len(wrong):>5} {max(map(_total, rs)):>6.1f}  {open_}")
    decided = sum(r["verdict"] in ("serializable", "not_serializable") for r in rows)
    wrong = sum(r["verdict"] in ("serializable", "not_serializable")
                and r["verdict"] != r["expected"] for r in rows)
    share = 100.0 * decided / max(1, len(rows))
    lines.append(f"\n{len(rows)} models: {decided} decided ({share:.1f} %), {wrong} wrong")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", nargs="*", type=Path, help="folders with expected.json "
                    "(default: every folder of bench/blind/ with an expected.json)")
    ap.add_argument("--jobs", type=int, default=2, help="models at the same time (default 2)")
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds per model (default 30)")
    ap.add_argument("--beside", action="store_true", help="run a second identical batch beside")
    ap.add_argument("--json", type=Path, help="also write the rows as JSON to this file")
    args = ap.parse_args(argv)
    folders = [f for f in (args.folders or BLIND) if (f / "expected.json").exists()]
    if not folders:
        print("no folder with an expected.json", file=sys.stderr)
        return 2
    rows = measure(folders, args.jobs, args.timeout, args.beside)
    print(table(rows))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return 1 if any(r["verdict"] in ("serializable", "not_serializable")
                    and r["verdict"] != r["expected"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
