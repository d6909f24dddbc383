"""The package installs and its entry points answer."""

import subprocess
import sys


def test_ser_prove_help_lists_commands() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "prover.cli", "--help"], capture_output=True, text=True, check=True
    ).stdout
    for command in ("inspect", "export", "bench"):
        assert command in out


def test_unknown_option_is_usage_error() -> None:
    from prover.cli import main

    assert main(["inspect", "--no-such-option"]) == 2
