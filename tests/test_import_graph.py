"""The import graph of `prover` and `checker` has no cycles, counting imports inside
functions too: a lazy import hides a cycle from the interpreter, not from a reader."""

from __future__ import annotations

import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _modules(package: str) -> dict[str, Path]:
    found = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def _graph() -> dict[str, set[str]]:
    mods = {**_modules("prover"), **_modules("checker")}
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for name, path in mods.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            graph[name].update(t for t in targets if t in mods and t != name)
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import cycle (its modules, the first repeated at the end), or []."""
    try:
        TopologicalSorter(graph).prepare()
    except CycleError as exc:
        return list(exc.args[1])
    return []


def test_no_import_cycles() -> None:
    assert _cycle(_graph()) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    found = _cycle(graph)
    assert found[0] == found[-1] and set(found) == {"a", "b", "c"}


def test_the_checker_never_imports_the_prover() -> None:
    graph = _graph()
    assert not any(t.startswith("prover") for m, ts in graph.items()
                   if m.startswith("checker") for t in ts)


def test_the_verification_core_never_imports_the_run_time_plumbing() -> None:
    """prover/run (pipeline, deadlines, limits, relay, fork server, cluster) sits above the
    engines: only the commands and the entry point import it (DESIGN.md's layout)."""
    above = ("prover.run", "prover.commands", "prover.cli")
    graph = _graph()
    wrong = sorted((m, t) for m, ts in graph.items() if not m.startswith(above)
                   for t in ts if t.startswith("prover.run"))
    assert wrong == []
