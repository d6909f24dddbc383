"""Where the benchmark sets are: the folder `paper` or `scale` that holds its expected.json,
looked for in $SER_BENCHMARKS, then in ../shared/benchmarks beside the repository (the
development machine's copy), then in benchmarks/ inside it, where `ser-prove benchmarks`
writes them when run from the repository's root (README.md, "Benchmarks"). The tests
(tests/benchmarks.py) and the bench scripts read them from here."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMAND = {"paper": "ser-prove benchmarks", "scale": "ser-prove benchmarks --scale-only"}


def bench_dir(kind: str) -> Path:
    """The folder of the set `kind` ("paper" or "scale"); the last place looked at when
    none holds it (it then does not exist)."""
    env = os.environ.get("SER_BENCHMARKS")
    places = [Path(env) / kind] if env else []
    places += [ROOT.parent / "shared" / "benchmarks" / kind, ROOT / "benchmarks" / kind]
    return next((p for p in places if (p / "expected.json").is_file()), places[-1])


def absent(kind: str) -> str:
    """What to do when the set `kind` is absent: the one command that writes it."""
    return f"the {kind} benchmark set is absent: run `{COMMAND[kind]}` in the repository's root"
