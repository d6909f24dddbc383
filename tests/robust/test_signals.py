"""Ctrl-C and SIGTERM: one line "interrupted", exit 130/143, no partial file, no process
left behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.robust import SLOW

ROOT = Path(__file__).resolve().parents[2]


def _children_of(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(x) for x in text.split()]


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_signal_is_one_line_and_its_exit_code(tmp_path: Path, sig: int, code: int) -> None:
    model = tmp_path / "slow.ser"
    model.write_text(SLOW)
    proc = subprocess.Popen(
        [sys.executable, "-m", "prover.cli", str(model), "--timeout", "60"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
    )
    # wait until the model's child process runs, so the signal meets a real run
    for _ in range(200):
        if _children_of(proc.pid):
            break
        time.sleep(0.05)
    kids = _children_of(proc.pid)
    time.sleep(0.3)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == code
    assert err.strip().splitlines() == ["ser-prove: interrupted"]
    assert "undecided" not in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["slow.ser"]
    for kid in kids:  # the child was killed and reaped
        assert not os.path.exists(f"/proc/{kid}") or "Z" in Path(
            f"/proc/{kid}/stat").read_text().split()[2]
