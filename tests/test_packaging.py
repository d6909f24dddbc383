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


def test_schemas_are_package_data() -> None:
    """The schemas are read through importlib.resources (so an installed wheel finds them)
    and pyproject ships them; the CI wheel step runs the installed tools for real."""
    import importlib.resources
    import tomllib
    from pathlib import Path

    names = ("certificate.schema.json", "network-system.schema.json",
             "prove-result.schema.json", "simulate-run.schema.json")
    for name in names:
        assert (importlib.resources.files("schemas") / name).is_file(), name
    pyproject = tomllib.loads(
        (Path(__file__).resolve().parents[1] / "pyproject.toml").read_text(encoding="utf-8"))
    assert pyproject["tool"]["setuptools"]["package-data"]["schemas"] == ["*.json"]
    assert "schemas" in pyproject["tool"]["setuptools"]["packages"]["find"]["include"]


def test_readers_use_package_resources() -> None:
    import importlib.resources

    from checker import certificate
    from prover.frontend import nsjson, tables

    package, name = certificate.SCHEMA
    located = [importlib.resources.files(package) / name, nsjson.SCHEMA_PATH, tables.GRAMMAR_PATH]
    for path in located:
        assert path.is_file(), path
