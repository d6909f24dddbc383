"""Every command README.md and docs/*.md show runs here and prints what the page shows.

A page shows a command and its output in one of two ways:
- a `console` block: lines `$ COMMAND`, each followed by what it prints;
- a `sh` block of one command, followed (after blank lines only) by a `text` block: what
  it prints.
The command runs in a fresh folder holding copies of examples/ and certificates/, with
`ser-prove` and `ser-check-cert` (also as `.venv/bin/...`) this interpreter's, stdout and
stderr together, as a terminal shows them. Before comparing, both sides go through one
normaliser: seconds and milliseconds become `<t>` (they differ from run to run), trailing
blanks go; on the page, `...` stands for any text within a line.

A command block the suite cannot run (an installation, a cluster, a download, SPIN, a
sweep of minutes) says why on the line before it, `<!-- not run by the tests: REASON -->`;
a `sh` block with neither an output nor that line fails here."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\w*)\s*$")
NOT_RUN = re.compile(r"^<!-- not run by the tests: (.+) -->$")
TIME = re.compile(r"\b\d+(?:\.\d+)? (ms|s)\b")


@dataclass(frozen=True)
class Block:
    page: Path
    line: int  # of the opening fence, 1-based
    kind: str  # the info string: sh, console, text, json, ...
    text: list[str]
    reason: str | None  # why it is not run, from the line before it


@dataclass(frozen=True)
class Shown:
    where: str  # page:line of the command
    command: str
    output: list[str] | None  # None: not run (`reason`)
    reason: str | None = None


def blocks(page: Path) -> list[Block]:
    lines, out, i = page.read_text(encoding="utf-8").splitlines(), [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if m is None:
            i += 1
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
        before = lines[i - 1].strip() if i else ""
        reason = NOT_RUN.match(before)
        out.append(Block(page, i + 1, m.group(1), lines[i + 1:end],
                         reason.group(1) if reason else None))
        i = end + 1
    return out


def shown(page: Path) -> list[Shown]:
    """The commands of a page, each with what the page says it prints."""
    bs, out = blocks(page), []
    lines = page.read_text(encoding="utf-8").splitlines()
    for k, b in enumerate(bs):
        where = f"{page.relative_to(ROOT)}:{b.line}"
        if b.kind == "console":
            starts = [i for i, t in enumerate(b.text) if t.startswith("$ ")]
            for a, z in zip(starts, [*starts[1:], len(b.text)], strict=True):
                out.append(Shown(f"{where}+{a + 1}", b.text[a][2:], None if b.reason else
                                 b.text[a + 1:z], b.reason))
        elif b.kind == "sh":
            nxt = bs[k + 1] if k + 1 < len(bs) else None
            gap = lines[b.line + len(b.text) + 1:nxt.line - 1] if nxt else ["x"]
            text = nxt.text if nxt and nxt.kind == "text" and not any(
                t.strip() for t in gap) else None  # fmt: skip
            commands = [t for t in b.text if t.strip()]
            if text is not None and len(commands) != 1:
                pytest.fail(f"{where}: a block with output shows one command, not "
                            f"{len(commands)}")
            out += [Shown(where, c, None if b.reason else text, b.reason) for c in commands]
    return out


ALL = [s for p in PAGES for s in shown(p)]


def test_every_command_shows_its_output_or_says_why_not() -> None:
    silent = [s.where for s in ALL if s.output is None and not s.reason]
    assert not silent, f"commands with no output shown and no reason: {silent}"
    assert len([s for s in ALL if s.output is not None]) >= 8


def normal(lines: list[str]) -> list[str]:
    out = [TIME.sub(lambda m: f"<t> {m.group(1)}", t).rstrip() for t in lines]
    while out and not out[-1]:
        out.pop()
    return out


def _matches(page: str, got: str) -> bool:
    pattern = ".*".join(re.escape(part) for part in page.split("..."))
    return re.fullmatch(pattern, got) is not None


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("docs")
    for name in ("examples", "certificates"):
        shutil.copytree(ROOT / name, work / name,
                        ignore=shutil.ignore_patterns("*.cert.json") if name == "examples"
                        else None)  # fmt: skip
    (work / ".venv").mkdir()
    (work / ".venv" / "bin").symlink_to(Path(sys.executable).parent)
    return work


@pytest.mark.parametrize("cmd", [s for s in ALL if s.output is not None],
                         ids=lambda s: s.where)
def test_the_command_prints_what_the_page_shows(cmd: Shown, folder: Path) -> None:
    env = {**os.environ, "SER_PROVE_NO_SERVER": "1",
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run(cmd.command, shell=True, cwd=folder, env=env, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
    assert cmd.output is not None
    want, got = normal(cmd.output), normal(done.stdout.splitlines())
    for i, (w, g) in enumerate(zip(want, got, strict=False)):
        assert _matches(w, g), (f"{cmd.where}: `{cmd.command}`, output line {i + 1}:\n"
                                f"  the page: {w}\n  printed:  {g}")
    assert len(want) == len(got), (f"{cmd.where}: `{cmd.command}` printed {len(got)} lines, "
                                   f"the page shows {len(want)}:\n" + "\n".join(got))
