"""`ser-prove benchmarks [--dir DIR] [--from SOURCE] [--scale-only]`: get the benchmark
sets the tests and `ser-prove bench` use.

Writes DIR/paper (the paper's 47 models at the pinned commit of the paper's repository,
each checked against its SHA-256, and their expected verdicts) and DIR/scale (the 55
models of the scale families, generated, with theirs). DIR defaults to `benchmarks` in
the current folder, where the tests look when run from the repository's root. A file
that differs from its pin writes nothing; running it again rewrites the same files.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from pathlib import Path

from prover.benchmarks import paper, scale
from prover.commands.options import seconds
from prover.errors import CertificateError
from prover.run.output import write_atomically


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--dir", default="benchmarks", metavar="DIR",
                   help="where paper/ and scale/ go (default: ./benchmarks)")
    p.add_argument("--from", dest="source", metavar="SOURCE",
                   help="read the paper's models from a clone of its repository, a folder "
                        "of the files, or an http(s) URL, instead of downloading them "
                        "from GitHub")
    p.add_argument("--scale-only", action="store_true",
                   help="only generate the scale families (no network)")
    p.add_argument("--timeout", type=seconds(), default=30.0, metavar="S",
                   help="seconds per download (default 30)")
    p.add_argument("--json", action="store_true",
                   help="one JSON object: the folders written and how many models each")


def _write(folder: Path, files: dict[str, str], expected: Mapping[str, object]) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CertificateError(f"cannot create {folder}: {exc.strerror or exc}") from None
    for name, text in sorted(files.items()):
        write_atomically(text, str(folder / name), "benchmark model")
    write_atomically(json.dumps(expected, indent=1, sort_keys=True), str(folder / "expected.json"),
                     "expected verdicts")


def run(args: argparse.Namespace) -> int:
    root, done = Path(args.dir), {}
    if not args.scale_only:
        m = paper.manifest()
        where = args.source or f"{m.repository} at {m.commit[:12]}"

        live = sys.stderr.isatty()  # a counter on a terminal, one line elsewhere

        def progress(i: int, name: str) -> None:
            if live or i == 0:
                print(f"\rpaper: {i + 1}/{len(m.models)} {name:<12} from {where}",
                      end="" if live else "\n", file=sys.stderr, flush=True)

        got = paper.fetch(m, paper.source_of(args.source, m, args.timeout), progress)
        if live:
            print(file=sys.stderr)
        _write(root / "paper", {n: b.decode("utf-8") for n, b in got.items()}, m.expected())
        done["paper"] = (str(root / "paper"), len(got),
                         f"SHA-256 of each checked against commit {m.commit[:12]}")
    models = scale.models()
    _write(root / "scale", models, scale.expected())
    done["scale"] = (str(root / "scale"), len(models), "generated")
    if args.json:
        print(json.dumps({k: {"folder": f, "models": n} for k, (f, n, _) in done.items()}))
    else:
        for kind, (folder, n, how) in done.items():
            print(f"{kind}: {n} models in {folder} ({how})")
    return 0
