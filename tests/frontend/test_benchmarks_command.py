"""`ser-prove benchmarks`: the paper's models from a source, checked against their pinned
hashes, and the scale families generated; errors as E-FETCH, never a traceback."""

from __future__ import annotations

import hashlib
import http.server
import json
import shutil
import subprocess
import threading
import urllib.error
from collections.abc import Iterator
from pathlib import Path

import pytest

from prover.benchmarks import paper, scale
from prover.cli import main
from prover.errors import FetchError
from tests.benchmarks import PAPER, SCALE, absent


def test_the_manifest_pins_47_models_of_one_commit() -> None:
    m = paper.manifest()
    assert len(m.models) == 47 and len(m.commit) == 40
    assert m.raw_base().startswith("https://raw.githubusercontent.com/julesjacobs/ser/")
    assert all(len(r["sha256"]) == 64 and r["folder"] in ("examples/ser", "examples/json")
               and r["expected"] in ("serializable", "not_serializable")
               for r in m.models.values())  # fmt: skip
    assert all("sha256" not in row for row in m.expected().values())


def test_scale_families_are_55_models_with_verdicts_by_construction() -> None:
    models, expected = scale.models(), scale.expected()
    assert len(models) == 55 and set(models) == set(expected)
    assert {v["family"] for v in expected.values()} == {f.name for f in scale.FAMILIES}


@pytest.mark.skipif(not (SCALE / "expected.json").is_file(), reason=absent("scale"))
def test_generated_scale_set_is_the_shared_one_byte_for_byte() -> None:
    for name, text in scale.models().items():
        assert (SCALE / name).read_text(encoding="utf-8") == text, name
    assert json.loads((SCALE / "expected.json").read_text()) == scale.expected()


def _layout(tmp: Path) -> Path:
    """The paper's files as the repository lays them out, from the local set."""
    if not (PAPER / "expected.json").is_file():
        pytest.skip(absent("paper"))
    root = tmp / "repo"
    for name, row in paper.manifest().models.items():
        (root / row["folder"]).mkdir(parents=True, exist_ok=True)
        (root / row["folder"] / name).write_bytes((PAPER / name).read_bytes())
    return root


def test_from_a_folder_writes_both_sets(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                        ) -> None:  # fmt: skip
    src, out = _layout(tmp_path), tmp_path / "out"
    assert main(["benchmarks", "--from", str(src), "--dir", str(out), "--json"]) == 0
    said = json.loads(capsys.readouterr().out)
    assert said == {"paper": {"folder": str(out / "paper"), "models": 47},
                    "scale": {"folder": str(out / "scale"), "models": 55}}
    for name, row in paper.manifest().models.items():
        assert hashlib.sha256((out / "paper" / name).read_bytes()).hexdigest() == row["sha256"]
    assert json.loads((out / "paper" / "expected.json").read_text()) == \
        paper.manifest().expected()


def test_a_file_that_is_not_the_pinned_one_writes_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = _layout(tmp_path)
    bad = src / "examples" / "ser" / "c3.ser"
    bad.write_text(bad.read_text() + "\n")
    assert main(["benchmarks", "--from", str(src), "--dir", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "error[E-FETCH]: c3.ser: its SHA-256 is" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    """An http server on the loopback serving the repository's layout."""
    root = _layout(tmp_path)

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *a: object, **k: object) -> None:
            super().__init__(*a, directory=str(root), **k)  # type: ignore[arg-type]

        def log_message(self, *a: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


def test_a_download_is_checked_as_a_copy_is(served: str, tmp_path: Path) -> None:
    assert main(["benchmarks", "--from", served, "--dir", str(tmp_path / "out")]) == 0
    assert len(list((tmp_path / "out" / "paper").glob("*.*"))) == 48  # and expected.json


def test_offline_is_one_line_that_names_the_way_out() -> None:
    def offline(url: str, timeout: float) -> object:
        raise urllib.error.URLError("Name or service not known")

    get = paper.from_url("https://example.invalid/x", 1.0, opener=offline)
    with pytest.raises(FetchError, match="cannot download .*a1.ser.*--from"):
        get("examples/ser", "a1.ser")


def test_a_source_that_is_nothing_is_a_usage_error(capsys: pytest.CaptureFixture[str],
                                                   tmp_path: Path) -> None:  # fmt: skip
    assert main(["benchmarks", "--from", str(tmp_path / "no"), "--dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "error[E-FETCH]: --from" in err and "Traceback" not in err


@pytest.mark.skipif(shutil.which("git") is None, reason="no git on this machine")
@pytest.mark.parametrize("bare", [False, True])
def test_a_clone_is_read_at_the_commit(tmp_path: Path, bare: bool) -> None:
    """From a work tree or a bare repository, at the given commit (a repository made here:
    the pinned commit's own is checked against the hashes above)."""
    src = tmp_path / "src"
    (src / "examples" / "ser").mkdir(parents=True)
    (src / "examples" / "ser" / "a1.ser").write_text("request r { 1 }\n")

    def git(*args: str, cwd: Path = src) -> str:
        return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                              text=True).stdout.strip()

    git("init", "-q")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "models")
    commit = git("rev-parse", "HEAD")
    if bare:
        git("clone", "-q", "--bare", str(src), str(tmp_path / "bare"), cwd=tmp_path)
    repo = tmp_path / "bare" if bare else src
    assert paper.from_git(repo, commit)("examples/ser", "a1.ser") == b"request r { 1 }\n"
    with pytest.raises(FetchError, match="no examples/ser/b1.ser at commit"):
        paper.from_git(repo, commit)("examples/ser", "b1.ser")


def test_scale_only_needs_no_source(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["benchmarks", "--scale-only", "--dir", str(tmp_path)]) == 0
    assert "scale: 55 models" in capsys.readouterr().out
    assert not (tmp_path / "paper").exists()
    assert len(list((tmp_path / "scale").glob("*.ser"))) == 55


def test_a_download_larger_than_a_model_is_refused() -> None:
    class Huge:
        def __enter__(self) -> Huge:
            return self

        def __exit__(self, *a: object) -> None:
            pass

        def read(self, n: int) -> bytes:
            return b"x" * n  # as much as asked for: the source never ends

    get = paper.from_url("http://127.0.0.1:9", 1.0, opener=lambda url, timeout: Huge())
    with pytest.raises(FetchError, match="more than 4,194,304 bytes"):
        get("examples/ser", "a1.ser")
