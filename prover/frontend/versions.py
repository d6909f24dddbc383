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


def candidates(requests: list[tuple[str, Expr]]) -> list[str]:
    """Globals only ever raised, and read into a local somewhere."""
    writes = [n for _, b in requests for n in nodes(b) if n[0] == "assign"]
    read = {n[2][1] for n in writes if is_local(n[1]) and n[2][0] == "var"}
    names = {n[1] for n in writes if not is_local(n[1])}
    return sorted(g for g in names & read
                  if all(_raises(n[2], g) for n in writes if n[1] == g))


def _guards(requests: list[tuple[str, Expr]], versions: list[str]) -> dict[str, list[str]]:
    """Each written global that is not a version, under the first version that every
    request writing it writes too."""
    wrote = {r: {n[1] for n in nodes(b) if n[0] == "assign" and not is_local(n[1])}
             for r, b in requests}
    out: dict[str, list[str]] = {v: [] for v in versions}
    for x in sorted(set().union(*wrote.values()) - set(versions)):
        common = [v for v in versions if all(v in w for w in wrote.values() if x in w)]
        if common:
            out[common[0]].append(x)
    return out


def find(source: str, constants: dict[str, int] | None) -> tuple[Found | None, str]:
    """Versions that never wrap and the abstract program, or None and why not."""
    initial, requests = parse_program(source, constants)
    versions = _guards(requests, candidates(requests))
    why = "no global is only ever raised and read into locals"
    while versions:
        (init, reqs), problems = abstraction(initial, requests, versions)
        if not problems:
            break
        why = problems[0][1]
        at = {name for name, _ in problems}
        versions = {v: [x for x in xs if x not in at] for v, xs in versions.items()
                    if v not in at}
    if not versions:
        return None, why
    text = "".join(f"global {', '.join(f'{k} := {v}' for k, v in init)};\n" if init else "")
    text += "".join(f"request {r} {{ {expr_text(b)} }}\n" for r, b in reqs)
    if parse_program(text) != (init, reqs):
        return None, "the abstract program does not print back to itself"
    return Found(tuple((v, tuple(xs)) for v, xs in sorted(versions.items())), text), ""
