"""Versions that never wrap, found (DESIGN.md, "Proofs that do not depend on who wrote the
model", 3; docs/certificates.md, "Versions that never wrap").

A candidate version is a global that is only ever raised (`V := V + c`, `V := v + c`, c > 0)
and read into locals. Each other global written in the program is guarded by a candidate
written by every request that writes it. The rules are the checker's own
(checker/versions.py): whatever breaks one drops the global at fault (a version with its
guards), until the rules hold or no version is left. The abstract program is then printed
as core Ser, and kept only if it parses back to exactly the checker's abstraction.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from checker.model import Expr, expr_text, is_local, nodes
from checker.program import parse_program
from checker.versions import abstraction


@dataclass(frozen=True)
class Found:
    """Versions with the globals each guards, the abstract program's source, and why the
    candidates that were dropped were."""

    versions: tuple[tuple[str, tuple[str, ...]], ...]
    source: str


def _raises(e: Expr, name: str) -> bool:
    """`e` (assigned to `name`) is `name + c` or `l + c` with c > 0."""
    return (e[0] == "bin" and e[1] == "+" and e[3][0] == "int" and e[3][1] > 0
            and e[2][0] == "var" and (e[2][1] == name or is_local(e[2][1])))


def _leaves(e: Expr) -> set[str]:
    """The variables an expression is, through the `if`s that choose it (`Ver[r]`)."""
    if e[0] == "if":
        return _leaves(e[2]) | _leaves(e[3])
    return {e[1]} if e[0] == "var" else set()


def candidates(requests: list[tuple[str, Expr]]) -> list[str]:
    """Globals only ever raised, and read into a local somewhere."""
    writes = [n for _, b in requests for n in nodes(b) if n[0] == "assign"]
    read = set().union(*(_leaves(n[2]) for n in writes if is_local(n[1])))
    names = {n[1] for n in writes if not is_local(n[1])}
    return sorted(g for g in names & read
                  if all(_raises(n[2], g) for n in writes if n[1] == g))


def _suffix(a: str, b: str) -> int:
    return next((i for i in range(min(len(a), len(b))) if a[-1 - i] != b[-1 - i]),
                min(len(a), len(b)))


def _choices(requests: list[tuple[str, Expr]], versions: list[str]) -> dict[str, list[str]]:
    """For each written global that is not a version, the versions that every request
    writing it writes too: the one whose name ends most like it first (`Val[3]`, `Ver[3]`)."""
    wrote = {r: {n[1] for n in nodes(b) if n[0] == "assign" and not is_local(n[1])}
             for r, b in requests}
    return {x: sorted((v for v in versions if all(v in w for w in wrote.values() if x in w)),
                      key=lambda v: (-_suffix(x, v), v))
            for x in sorted(set().union(*wrote.values()) - set(versions))}


def find(source: str, constants: dict[str, int] | None) -> tuple[Found | None, str]:
    """Versions that never wrap and the abstract program, or None and why not. A guarded
    global at fault moves to its next version, or is left unguarded; a version at fault
    is dropped."""
    initial, requests = parse_program(source, constants)
    live = candidates(requests)
    choices = {x: vs for x, vs in _choices(requests, live).items() if vs}
    why = "no global is only ever raised and read into locals"
    while live:
        versions = {v: [x for x, vs in choices.items() if vs[0] == v] for v in live}
        (init, reqs), problems = abstraction(initial, requests, versions)
        if not problems:
            break
        why = f"{problems[0][1]}{_lines(source, problems[0][0])}"
        at = {name for name, _ in problems}
        if not at & (set(live) | set(choices)):  # broken by no global's fault
            return None, why
        live = [v for v in live if v not in at]
        choices = {x: rest for x, vs in choices.items()
                   if (rest := [v for v in (vs[1:] if x in at else vs) if v in live])}
    if not live:
        return None, why
    text = core_source(init, reqs)
    if text is None or parse_program(text) != (init, reqs):
        return None, "the abstract program does not print back to itself"
    return Found(tuple((v, tuple(xs)) for v, xs in sorted(versions.items())), text), ""


def core_source(init: tuple[tuple[str, int], ...], reqs: list[tuple[str, Expr]]) -> str | None:
    """A program in the checker's parse, as core Ser: an array's cells (`Val[3]`, written
    out by constant indices) declared as arrays again, big enough for every cell named;
    None when that cannot be (an array whose cells start at different values)."""
    cells: dict[str, int] = {}
    for k, _ in init:
        if "[" in k:
            name, _, at = k.rstrip("]").partition("[")
            cells[name] = max(cells.get(name, 0), int(at) + 1)
    for _, body in reqs:
        for n in nodes(body):
            if n[0] in ("var", "assign") and "[" in n[1]:
                name, _, at = n[1].rstrip("]").partition("[")
                cells[name] = max(cells.get(name, 0), int(at) + 1)
    starts = dict(init)
    decls = []
    for name, size in sorted(cells.items()):
        values = {starts.get(f"{name}[{k}]", 0) for k in range(size)}
        if len(values) > 1:
            return None
        value = values.pop()
        decls.append(f"{name}[{size}]" + (f" := {value}" if value else ""))
    decls += [f"{k} := {v}" for k, v in init if "[" not in k]
    text = f"global {', '.join(decls)};\n" if decls else ""
    return text + "".join(f"request {r} {{ {expr_text(b)} }}\n" for r, b in reqs)


def _lines(source: str, name: str) -> str:
    """`; NAME is written at lines ...` (an array cell by its array's name), or nothing."""
    base = name.partition("[")[0]
    if not base:
        return ""
    pattern = re.compile(rf"(?<![\w]){re.escape(base)}\s*(\[[^\]]*\])?\s*:=")
    lines = [str(k) for k, text in enumerate(source.splitlines(), 1)
             if pattern.search(text.split("//")[0])]
    return f"; {base} is written at line{'s' * (len(lines) > 1)} {', '.join(lines)}" \
        if lines else ""
