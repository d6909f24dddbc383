"""Dask clusters for real (issue 23): a scheduler and two worker processes on 127.0.0.1;
a batch proved there must equal the local run certificate for certificate, and a worker
killed in the middle of a batch must lose no model. Skipped without the `cluster` extra."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed", reason="the 'cluster' extra (dask, "
                                  "distributed) is not installed")

from prover.errors import SerError  # noqa: E402
from prover.run.pipeline import ProveResult, prove_models  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(p for p in (ROOT / "examples").iterdir()
                  if p.suffix in (".ser", ".json") and not p.name.endswith(".cert.json")
                  and p.name != "expected.json")


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    import dask

    with dask.config.set({"distributed.scheduler.allowed-failures": 1}), \
            distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                     dashboard_address=None, host="127.0.0.1") as c:
        yield c.scheduler_address


def _digests(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.iterdir()}


def _verdicts(jsonl: str) -> dict[str, str]:
    rows = [json.loads(line) for line in jsonl.splitlines()]
    return {r["model"]: r["verdict"] for r in rows}


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "prover.cli", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=600)


def test_a_cluster_batch_equals_the_local_batch(cluster: str, tmp_path: Path) -> None:
    models = [str(p) for p in EXAMPLES]
    local = _cli(*models, "--out-dir", str(tmp_path / "local"), "--jobs", "2", "--json")
    remote = _cli(*models, "--out-dir", str(tmp_path / "remote"), "--scheduler", cluster,
                  "--json")
    assert remote.returncode == local.returncode, remote.stderr
    # JSON Lines come in completion order: compare them by model
    assert _verdicts(remote.stdout) == _verdicts(local.stdout)
    assert len(_verdicts(local.stdout)) == len(models)
    assert _digests(tmp_path / "remote") == _digests(tmp_path / "local")
    assert len(_digests(tmp_path / "local")) == len(models)


def test_the_checker_audits_an_archive_on_the_cluster(cluster: str) -> None:
    args = ["--all", str(ROOT / "certificates"), "--model", str(ROOT / "examples")]
    local = subprocess.run([sys.executable, "-m", "checker.cli", *args], capture_output=True,
                           text=True, cwd=ROOT, timeout=600)
    remote = subprocess.run([sys.executable, "-m", "checker.cli", *args, "--scheduler", cluster],
                            capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert local.returncode == remote.returncode == 0, remote.stderr

    def rows(out: str) -> list[str]:  # the table without its times
        return [" ".join(w for w in line.split() if not w[0].isdigit()) for line in
                out.splitlines()]
    assert rows(remote.stdout) == rows(local.stdout)


def test_a_worker_killed_mid_batch_loses_no_model(cluster: str, tmp_path: Path) -> None:
    client = distributed.Client(cluster, set_as_default=False)
    try:
        pids = list(client.run(os.getpid).values())
    finally:
        client.close()
    assert len(pids) == 2
    models = [str(p) for p in EXAMPLES] * 2  # long enough that a task is running
    jobs = [(m, str(tmp_path / f"{k}.cert.json")) for k, m in enumerate(models)]
    started = threading.Event()

    def kill_one() -> None:
        started.wait(60)
        time.sleep(1.0)
        os.kill(pids[0], signal.SIGKILL)

    killer = threading.Thread(target=kill_one)
    killer.start()
    seen: list[int] = []

    def settled(i: int, result: ProveResult | SerError) -> None:
        seen.append(i)

    started.set()
    results = prove_models(jobs, timeout_s=60, scheduler=cluster, on_result=settled)
    killer.join()
    with distributed.Client(cluster, set_as_default=False) as client:
        assert pids[0] not in client.run(os.getpid).values()  # it did die (its nanny restarts it)
    assert sorted(seen) == list(range(len(models)))
    statuses = [r.status for r in results if isinstance(r, ProveResult)]
    assert len(statuses) == len(models)
    # the killed task was retried on the other worker: every model still has its verdict
    assert all(s in ("serializable", "not_serializable") for s in statuses), [
        (m, r.status, r.reason) for m, r in zip(models, results, strict=True)
        if isinstance(r, ProveResult) and r.status not in ("serializable", "not_serializable")]


def test_no_scheduler_no_dask(tmp_path: Path) -> None:
    code = ("import sys; from prover.run.pipeline import prove_model; "
            f"prove_model({str(EXAMPLES[0])!r}, cert_path={str(tmp_path / 'c.json')!r}); "
            "print('distributed' in sys.modules or 'dask' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.stdout.strip() == "False", out.stderr


def test_an_unreachable_scheduler_is_a_usage_error() -> None:
    out = _cli(str(EXAMPLES[0]), "--scheduler", "tcp://127.0.0.1:9", "--quiet")
    assert out.returncode == 2 and "cannot reach the Dask scheduler" in out.stderr, out.stderr


def test_bench_on_the_cluster_keeps_the_certificates(cluster: str, tmp_path: Path) -> None:
    models = [str(ROOT / "examples" / n) for n in ("intro-lock.ser", "intro-nonser.ser")]
    out = _cli("bench", *models, "--scheduler", cluster, "--out-dir", str(tmp_path),
               "--json", str(tmp_path / "rows.json"))
    assert out.returncode == 0, out.stdout + out.stderr
    rows = json.loads((tmp_path / "rows.json").read_text())["rows"]
    assert [r["model"] for r in rows] == ["intro-lock.ser", "intro-nonser.ser"]
    assert [r["verdict"] for r in rows] == ["serializable", "not_serializable"]
    assert all(r["check_status"] == "valid" for r in rows)
    assert sorted(p.name for p in tmp_path.glob("*.cert.json")) == [
        "intro-lock.ser.cert.json", "intro-nonser.ser.cert.json"]
    assert "models/s) on the cluster at" in out.stdout
