"""docs/limits.md is the one table of both tools' limits: every figure in it is the
value of the constant the row names, read from the code (no second copy to drift)."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "limits.md"
ROW = re.compile(r"^\| (?P<what>[^|]+) \| (?P<value>[^|]+) \| (?P<side>prover|checker|both) "
                 r"\| `(?P<name>[\w.]+)` \| [^|]+ \|$")


def _rows() -> list[re.Match[str]]:
    return [m for line in DOC.read_text(encoding="utf-8").splitlines()
            if (m := ROW.match(line))]


def _constant(dotted: str) -> object:
    parts = dotted.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            value: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            value = getattr(value, attr)
            if isinstance(value, type):  # a dataclass of limits: its default
                value = value()
        return value
    raise AssertionError(f"no module in {dotted}")


def _figure(value: str) -> int:
    if value.startswith("signed 64 bits"):
        return 2**63 - 1
    return int(re.match(r"[\d,]+", value).group().replace(",", ""))  # type: ignore[union-attr]


def test_the_table_has_every_row() -> None:
    assert len(_rows()) >= 25


@pytest.mark.parametrize("row", _rows(), ids=lambda m: m["name"])
def test_each_figure_is_the_codes(row: re.Match[str]) -> None:
    pytest.importorskip("checker.certificate")
    assert _figure(row["value"]) == int(_constant(row["name"])), row["what"]  # type: ignore[call-overload]


def test_both_tools_take_the_same_longest_timeout() -> None:
    from checker.cli import MAX_SECONDS as CHECKER
    from prover.commands.options import MAX_SECONDS as PROVER

    assert CHECKER == PROVER
