"""The user's documentation stands alone: README.md, docs/*.md and every `--help` text
cite nothing a user of the installed wheel cannot read (internal design or reference
documents, issue numbers, folders outside the repository, repository files in `--help`),
the paper is named before it is called "the paper", and the licence is there."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
CITATION = re.compile(r"arXiv\s+2601\.02251")
INTERNAL = {
    "DESIGN.md": re.compile(re.escape("DESIGN.md")),
    "reference §": re.compile(r"reference\s+§"),
    "ser-reference": re.compile(re.escape("ser-reference")),
    "issue N": re.compile(r"\bissues?\s+#?\d", re.IGNORECASE),
    "../shared": re.compile(re.escape("../shared")),
}
SUBCOMMANDS = ("inspect", "export", "ltl", "server", "explain", "slice", "bench", "benchmarks",
               "simulate")
NOT_IN_HELP = ("docs/", ".md", "DESIGN", "../shared")


def _name(doc: Path) -> str:
    return str(doc.relative_to(ROOT))


@pytest.mark.parametrize("doc", DOCS, ids=_name)
def test_docs_cite_nothing_internal(doc: Path) -> None:
    text = doc.read_text(encoding="utf-8")
    for what, pattern in INTERNAL.items():
        for m in pattern.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            pytest.fail(f"{_name(doc)}:{line} cites {what!r}: {m.group(0)!r}")


@pytest.mark.parametrize("doc", DOCS, ids=_name)
def test_the_paper_is_named_before_it_is_called_the_paper(doc: Path) -> None:
    """Every "the paper" comes after the full citation (arXiv 2601.02251) in the same
    document, or on the line where the citation starts."""
    text = doc.read_text(encoding="utf-8")
    cited = CITATION.search(text)
    for m in re.finditer(r"\bthe\s+paper", text, re.IGNORECASE):
        line_end = text.find("\n", m.start())
        line_end = len(text) if line_end < 0 else line_end
        line = text.count("\n", 0, m.start()) + 1
        assert cited is not None and cited.start() < line_end, (
            f"{_name(doc)}:{line}: 'the paper' before the paper is cited as "
            '"Deciding Serializability in Network Systems" (Amir, Barbone, Amat, Jacobs; '
            "arXiv 2601.02251)")


def _help(module: str, *args: str) -> str:
    proc = subprocess.run([sys.executable, "-m", module, *args, "--help"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, (module, args, proc.stderr)
    assert proc.stdout.strip(), (module, args)
    return proc.stdout


@pytest.mark.parametrize("command", [
    ("prover.cli",), *(("prover.cli", sub) for sub in SUBCOMMANDS), ("checker.cli",),
], ids=lambda c: " ".join(c))
def test_help_points_to_no_repository_file(command: tuple[str, ...]) -> None:
    text = _help(*command)
    for bad in NOT_IN_HELP:
        assert bad not in text, f"`{' '.join(command)} --help` mentions {bad!r}:\n{text}"


def test_license_is_mit() -> None:
    licence = ROOT / "LICENSE"
    assert licence.is_file()
    text = licence.read_text(encoding="utf-8")
    assert "MIT License" in text
    assert "Copyright (c) 2026 the ser-prove authors" in text
    assert "Permission is hereby granted, free of charge" in text
