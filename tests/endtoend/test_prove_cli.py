"""`ser-prove` as a user runs it: several models, --out-dir, --jobs, --quiet, --json,
--artifacts (never deleting a user's files), and the bench harness."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from prover.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


@pytest.fixture()
def models(tmp_path: Path) -> list[Path]:
    out = []
    for name in ("intro-nonser.ser", "intro-lock.ser", "mutex.json"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
        out.append(tmp_path / name)
    return out


def test_out_dir_jobs_quiet(models: list[Path], tmp_path: Path,
                            capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "certs"
    code = main([*map(str, models), "--out-dir", str(out), "--jobs", "2", "--quiet"])
    # the most severe outcome decides: one model is not serializable
    assert code == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        f"{models[0]}: NOT serializable",
        f"{models[1]}: serializable",
        f"{models[2]}: serializable",
    ]
    assert sorted(p.name for p in out.iterdir()) == sorted(m.name + ".cert.json" for m in models)


def test_a_batch_writes_the_certificates_of_single_runs(
        models: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A batch forks its children from a parent that built the parsers and imported the
    engines first (pipeline._warm): the certificates are byte for byte those of one
    model per invocation."""
    batch = tmp_path / "batch"
    main([*map(str, models), "--out-dir", str(batch), "--jobs", "2", "--quiet"])
    for m in models:
        alone = tmp_path / f"{m.name}.alone.json"
        main([str(m), "-o", str(alone), "--quiet"])
        assert (batch / f"{m.name}.cert.json").read_bytes() == alone.read_bytes()
    capsys.readouterr()


def test_json_lists_every_model(models: list[Path], tmp_path: Path,
                                capsys: pytest.CaptureFixture[str]) -> None:
    main([*map(str, models), "--out-dir", str(tmp_path / "c"), "--json", "--no-locking"])
    docs = [json.loads(line) for line in capsys.readouterr().out.splitlines()]  # JSON Lines
    assert [d["verdict"] for d in docs] == ["not_serializable", "serializable", "serializable"]
    assert all(d["checker"]["status"] == "valid" for d in docs)
    assert docs[0]["counterexample"] is not None and docs[1]["counterexample"] is None
    # a Ser program's counterexample is found on its per-variable steps: no NS is built;
    # a reduction proof reports the per-variable sizes and why it holds
    assert docs[0]["sizes"] == {"network_system": None, "petri_net": None,
                                "per_variable": None}
    assert docs[1]["engine"] == "reduction" and docs[1]["reduction"]["requests"]
    assert docs[1]["sizes"]["per_variable"]["local_states"] == 4
    assert docs[2]["sizes"]["petri_net"] is not None  # an NS in JSON: read as one


def test_out_dir_and_output_conflict(models: list[Path], tmp_path: Path) -> None:
    assert main([str(models[0]), "-o", str(tmp_path / "a"), "--out-dir", str(tmp_path)]) == 2


def test_artifacts_written_and_user_files_kept(models: list[Path], tmp_path: Path) -> None:
    art = tmp_path / "art"
    (art / "intro-nonser").mkdir(parents=True)
    mine = art / "intro-nonser" / "my-notes.txt"
    mine.write_text("keep me")
    assert main([str(models[0]), "--artifacts", str(art), "--quiet"]) == 1
    names = {p.relative_to(art / "intro-nonser").as_posix()
             for p in (art / "intro-nonser").rglob("*") if p.is_file()}
    for expected in ("ns.json", "petri.net", "petri.pnml", "serial.dot", "serial-set.json",
                     "engine-log.json", "target/disjunct-000.net", "target/disjunct-000.xml"):
        assert expected in names
    assert mine.read_text() == "keep me"
    log = json.loads((art / "intro-nonser" / "engine-log.json").read_text())
    assert log["verdict"] == "not_serializable" and log["engine"] == "explicit"
    # the NS written is valid NS JSON input and describes the same system
    from prover.frontend.load import load_model

    again = load_model(art / "intro-nonser" / "ns.json")
    assert again.ns.sizes() == load_model(models[0]).ns.sizes()


def test_bench_table_and_json(models: list[Path], tmp_path: Path,
                              capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "expected.json").write_text(json.dumps({
        "intro-nonser.ser": {"expected": "not_serializable"},
        "intro-lock.ser": {"expected": "serializable"},
    }))
    report = tmp_path / "bench.json"
    code = main(["bench", str(tmp_path), "--jobs", "2", "--json", str(report)])
    assert code == 0
    out = capsys.readouterr().out
    assert "3/3 decided, 2/2 agree with expected.json, 3 certificates valid" in out
    rows = json.loads(report.read_text())["rows"]
    assert [r["model"] for r in rows] == ["intro-lock.ser", "intro-nonser.ser", "mutex.json"]
    assert all(r["check_status"] == "valid" for r in rows)


def test_bench_flags_disagreement(models: list[Path], tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "expected.json").write_text(json.dumps({
        "intro-nonser.ser": {"expected": "serializable"},
    }))
    assert main(["bench", str(models[0])]) == 1
    assert "NO" in capsys.readouterr().out
