"""The paper's 47 models ("Deciding Serializability in Network Systems", Amir, Barbone,
Amat, Jacobs; arXiv 2601.02251), as published in the paper's repository at one pinned
commit (MIT licence). paper.json holds the commit and, per file, its folder there, its
SHA-256 and its row of the paper's table (the verdict `expected` and the reference's
figures); `fetch` gets every file from a source and refuses one whose hash differs."""

from __future__ import annotations

import hashlib
import importlib.resources
import json
import shutil
import subprocess
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from prover.errors import FetchError

Source = Callable[[str, str], bytes]  # (folder in the repository, file name) -> contents
MAX_FILE_BYTES = 4 * 1024 * 1024  # a model file, as prover.frontend.files reads one


@dataclass(frozen=True)
class Manifest:
    repository: str
    commit: str
    models: dict[str, dict[str, Any]]  # file name -> folder, sha256 and the table's row

    def raw_base(self) -> str:
        """Where GitHub serves the files of the pinned commit."""
        owner_name = self.repository.removeprefix("https://github.com/")
        return f"https://raw.githubusercontent.com/{owner_name}/{self.commit}"

    def expected(self) -> dict[str, dict[str, Any]]:
        """expected.json of the set: each file's row of the table."""
        return {name: {k: v for k, v in row.items() if k not in ("folder", "sha256")}
                for name, row in self.models.items()}


def manifest() -> Manifest:
    data = json.loads(importlib.resources.files("prover.benchmarks").joinpath("paper.json")
                      .read_text(encoding="utf-8"))  # fmt: skip
    return Manifest(data["repository"], data["commit"], data["models"])


def from_url(base: str, timeout_s: float,
             opener: Callable[..., Any] = urllib.request.urlopen) -> Source:  # fmt: skip
    """Files under `base`/FOLDER/NAME (GitHub's raw files by default)."""
    def get(folder: str, name: str) -> bytes:
        url = f"{base.rstrip('/')}/{folder}/{name}"
        try:
            with opener(url, timeout=timeout_s) as reply:
                data: bytes = reply.read(MAX_FILE_BYTES + 1)
        except (urllib.error.URLError, OSError, ValueError) as exc:
            why = getattr(exc, "reason", None) or exc
            raise FetchError(f"cannot download {url}: {why} (offline? `--from` reads a "
                             "clone of the repository instead)") from None
        if len(data) > MAX_FILE_BYTES:
            raise FetchError(f"{url}: more than {MAX_FILE_BYTES:,} bytes, not a model file")
        return data
    return get


def from_git(repo: Path, commit: str) -> Source:
    """Files of `commit` in a clone (or a bare repository) at `repo`, through `git`."""
    git = shutil.which("git")
    if git is None:
        raise FetchError(f"{repo} is a git repository, and there is no `git` to read it")
    where = ["--git-dir", str(repo)] if (repo / "objects").is_dir() else ["-C", str(repo)]

    def get(folder: str, name: str) -> bytes:
        done = subprocess.run([git, *where, "show", f"{commit}:{folder}/{name}"],
                              capture_output=True, timeout=60, check=False)
        if done.returncode != 0:
            why = done.stderr.decode("utf-8", "replace").strip().splitlines()[:1]
            raise FetchError(f"{repo}: no {folder}/{name} at commit {commit[:12]} "
                             f"({why[0] if why else 'git failed'})")
        return done.stdout
    return get


def from_folder(root: Path) -> Source:
    """Files at `root`/FOLDER/NAME, or `root`/NAME (a copy of the models alone)."""
    def get(folder: str, name: str) -> bytes:
        for path in (root / folder / name, root / name):
            if path.is_file():
                if path.stat().st_size > MAX_FILE_BYTES:
                    raise FetchError(f"{path}: more than {MAX_FILE_BYTES:,} bytes, not a model")
                return path.read_bytes()
        raise FetchError(f"{root}: no {folder}/{name} and no {name}")
    return get


def source_of(spec: str | None, m: Manifest, timeout_s: float) -> Source:
    """`--from`: nothing (GitHub), an http(s) URL, a git repository or a folder."""
    if spec is None:
        return from_url(m.raw_base(), timeout_s)
    if spec.startswith(("http://", "https://")):
        return from_url(spec, timeout_s)
    path = Path(spec)
    if not path.is_dir():
        raise FetchError(f"--from {spec}: not a folder, a git repository or an http(s) URL")
    if (path / ".git").exists() or ((path / "objects").is_dir() and (path / "HEAD").is_file()):
        return from_git(path, m.commit)
    return from_folder(path)


def fetch(m: Manifest, source: Source, progress: Callable[[int, str], None] | None = None
          ) -> dict[str, bytes]:  # fmt: skip
    """Every file of the set, each checked against its pinned SHA-256."""
    out: dict[str, bytes] = {}
    for i, (name, row) in enumerate(sorted(m.models.items())):
        if progress is not None:
            progress(i, name)
        data = source(row["folder"], name)
        got = hashlib.sha256(data).hexdigest()
        if got != row["sha256"]:
            raise FetchError(f"{name}: its SHA-256 is {got}, not {row['sha256']} as at commit "
                             f"{m.commit[:12]}: not the paper's file, nothing written")
        out[name] = data
    return out
