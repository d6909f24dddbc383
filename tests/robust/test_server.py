"""The fork server (`ser-prove server`): the same bytes as a local run, only our own
socket believed, a client that goes away stops its run, code that changed is never served."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from prover.run import relay, server
from tests.robust import SLOW

ROOT = Path(__file__).resolve().parents[2]


def _ser_prove(env: dict[str, str], *args: str,
               cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "prover.run.relay", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def _status(env: dict[str, str]) -> dict[str, object]:
    out = _ser_prove(env, "server", "status", "--json")
    status: dict[str, object] = json.loads(out.stdout)
    return status


@pytest.fixture
def env(tmp_path: Path) -> Iterator[dict[str, str]]:
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime)}
    env.pop(relay.ENV_OFF, None)
    started = _ser_prove(env, "server", "start", "--idle-timeout", "5")
    assert started.returncode == 0, started.stderr
    yield env
    _ser_prove(env, "server", "stop")
    for _ in range(100):
        if not _status(env).get("runs_in_progress"):
            break
        time.sleep(0.05)


def test_a_served_run_writes_what_a_local_run_writes(env: dict[str, str], tmp_path: Path) -> None:
    local = _ser_prove({**env, relay.ENV_OFF: "1"}, "examples/intro-nonser.ser", "--json",
                       "-o", str(tmp_path / "local.json"))
    served = _ser_prove(env, "examples/intro-nonser.ser", "--json",
                        "-o", str(tmp_path / "served.json"))
    assert (served.returncode, local.returncode) == (1, 1)
    assert (tmp_path / "served.json").read_bytes() == (tmp_path / "local.json").read_bytes()
    mine, theirs = json.loads(served.stdout), json.loads(local.stdout)
    assert mine["verdict"] == theirs["verdict"] == "not_serializable"
    assert mine["checker"]["status"] == "valid"
    assert _status(env)["served"] == 1  # it did go through the server


def test_input_errors_and_the_working_directory_are_the_clients(env: dict[str, str],
                                                               tmp_path: Path) -> None:
    (tmp_path / "bad.ser").write_text("request r { X := }\n")
    out = _ser_prove(env, "bad.ser", cwd=tmp_path)
    assert out.returncode == 2
    assert "bad.ser:1:" in out.stderr and "Traceback" not in out.stderr
    assert _status(env)["served"] == 1


def test_a_client_that_goes_away_stops_its_run(env: dict[str, str], tmp_path: Path) -> None:
    model = tmp_path / "slow.ser"
    model.write_text(SLOW)
    proc = subprocess.Popen([sys.executable, "-m", "prover.run.relay", str(model),
                             "--timeout", "60"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    for _ in range(200):
        if _status(env)["runs_in_progress"]:
            break
        time.sleep(0.05)
    assert _status(env)["runs_in_progress"] == 1
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130
    assert err.strip().splitlines()[-1] == "ser-prove: interrupted"
    for _ in range(200):
        if not _status(env).get("runs_in_progress"):
            break
        time.sleep(0.05)
    assert _status(env)["runs_in_progress"] == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run", "slow.ser"]


def test_a_socket_others_could_write_is_never_believed(env: dict[str, str]) -> None:
    directory = Path(env["XDG_RUNTIME_DIR"]) / "ser-prove"
    directory.chmod(0o777)
    try:
        out = _ser_prove(env, "--version")
        assert out.returncode == 0
        status = _status(env)
        assert status == {"up": False}  # no connection was even tried
    finally:
        directory.chmod(0o700)
    assert _status(env)["served"] == 0


def test_code_that_changed_is_not_served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code = tmp_path / "code"
    code.mkdir()
    (code / "m.py").write_text("x = 1\n")
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    path = relay.socket_path()
    listener = server.listen(path)
    state = server.Server(path, 60.0, (code,), listener, server.fingerprint((code,)))
    pid = os.fork()
    if pid == 0:
        try:
            server.serve(state)
        finally:
            os._exit(0)
    listener.close()
    try:
        assert server.request_control("status", path) is not None
        os.utime(code / "m.py", ns=(1, 1))
        assert relay.relayed(["--version"], time.monotonic()) is None  # stale: run here
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        assert not os.path.exists(path)
    finally:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def test_without_a_server_nothing_is_relayed(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    assert relay.connect() is None
    assert relay.relayed(["--version"], time.monotonic()) is None


def test_another_installation_gets_its_own_codes_answer(env: dict[str, str],
                                                        tmp_path: Path) -> None:
    """A second checkout (here: a copy of the packages reporting another version) is never
    served by this one's server: it runs its own code."""
    import shutil

    other = tmp_path / "other"
    for package in ("prover", "checker", "schemas"):
        shutil.copytree(ROOT / package, other / package,
                        ignore=shutil.ignore_patterns("__pycache__"))
    init = other / "prover" / "__init__.py"
    init.write_text(init.read_text().replace('__version__ = "', '__version__ = "9.9.9+other-'))
    theirs = subprocess.run([sys.executable, "-m", "prover.run.relay", "--version"], cwd=other,
                            env={**env, "PYTHONPATH": str(other)}, capture_output=True,
                            text=True, timeout=60)
    assert "9.9.9+other-" in theirs.stdout, theirs.stdout + theirs.stderr
    assert _status(env)["served"] == 0
    mine = _ser_prove(env, "--version")
    assert "other" not in mine.stdout and _status(env)["served"] == 1


def test_status_of_an_idle_and_a_busy_server(env: dict[str, str], tmp_path: Path) -> None:
    idle = _status(env)
    assert idle["up"] is True and idle["runs_in_progress"] == 0
    model = tmp_path / "slow.ser"
    model.write_text(SLOW)
    proc = subprocess.Popen([sys.executable, "-m", "prover.run.relay", str(model),
                             "--timeout", "60"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        for _ in range(200):
            if _status(env)["runs_in_progress"]:
                break
            time.sleep(0.05)
        busy = _status(env)
        assert busy["up"] is True and busy["runs_in_progress"] == 1
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=30)


def test_idle_connections_hold_nobody(env: dict[str, str], tmp_path: Path) -> None:
    """Connections that send nothing are waited on beside the others, and closed after a
    short while: a run behind three of them is served at once, by the server."""
    import socket as socket_

    path = os.path.join(env["XDG_RUNTIME_DIR"], "ser-prove", "server.sock")
    idle = []
    for _ in range(3):
        s = socket_.socket(socket_.AF_UNIX, socket_.SOCK_STREAM)
        s.connect(path)
        idle.append(s)
    try:
        before = int(str(_status(env)["served"]))
        start = time.monotonic()
        out = _ser_prove(env, "examples/intro-lock.ser", "--timeout", "10", "--quiet",
                         "-o", str(tmp_path / "c.json"))
        assert out.returncode == 0, out.stderr
        assert time.monotonic() - start < 5
        assert int(str(_status(env)["served"])) == before + 1
    finally:
        for s in idle:
            s.close()


def test_a_server_that_does_not_answer_is_passed_by(tmp_path: Path) -> None:
    """A socket that accepts and never answers: the client runs the model itself after a
    short wait and keeps its deadline."""
    import socket as socket_

    runtime = tmp_path / "run"
    (runtime / "ser-prove").mkdir(parents=True, mode=0o700)
    runtime.chmod(0o700)
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime)}
    env.pop(relay.ENV_OFF, None)
    mute = socket_.socket(socket_.AF_UNIX, socket_.SOCK_STREAM)
    mute.bind(str(runtime / "ser-prove" / "server.sock"))
    mute.listen(1)
    try:  # output to files: the streams handed to the mute socket stay open while it is
        start = time.monotonic()
        with open(tmp_path / "out", "w") as out, open(tmp_path / "err", "w") as err:
            code = subprocess.run([sys.executable, "-m", "prover.run.relay",
                                   "examples/intro-nonser.ser", "--timeout", "10", "--quiet",
                                   "-o", str(tmp_path / "c.json")], cwd=ROOT, env=env,
                                  stdout=out, stderr=err, timeout=60).returncode
        assert code == 1, (tmp_path / "err").read_text()
        assert time.monotonic() - start < relay.ACK_S + 8
    finally:
        mute.close()
