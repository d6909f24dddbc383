"""Independent parts of a Ser program (DESIGN.md, "Proofs that do not depend on who wrote
the model", 1): the request kinds grouped by the globals they write.

Two kinds conflict when one writes a global that the other reads or writes, anywhere in
its body; the parts are the connected components of that relation. Steps of requests in
different parts commute and never enable or disable each other, so a finished execution
reorders into its parts one after another, each a finished execution of its part from the
initial globals: the program is serializable iff each part is (docs/certificates.md,
"Independent parts"). A global nobody writes is a constant and joins nothing.

A part is decided as a program of its own: the same source with the other request blocks
blanked out, so that its lines and columns are the whole file's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from prover.frontend import ast
from prover.frontend.ast import nodes


@dataclass(frozen=True)
class Names:
    """The globals a handler's body names anywhere: those it reads and those it writes."""

    reads: frozenset[str]
    writes: frozenset[str]

    def conflicts(self, other: Names) -> bool:
        return bool(self.writes & (other.reads | other.writes)
                    or other.writes & (self.reads | self.writes))


def names(body: ast.Expr) -> Names:
    """Every global `body` reads or assigns, on any path (an over-approximation of what
    any of its steps touches)."""
    reads: set[str] = set()
    writes: set[str] = set()
    for node in nodes(body):
        if isinstance(node, ast.Var | ast.Assign) and not ast.is_local_name(node.name):
            (writes if isinstance(node, ast.Assign) else reads).add(node.name)
    return Names(frozenset(reads), frozenset(writes))


def assignments(program: ast.Program, name: str) -> frozenset[int]:
    """The lines of the assignments to `name` in the program."""
    return frozenset(n.line for r in program.requests for n in nodes(r.body)
                     if isinstance(n, ast.Assign) and n.name == name)


def partition(program: ast.Program) -> tuple[tuple[str, ...], ...]:
    """The request kinds in parts, each in program order, the parts ordered by their
    first request."""
    return components([(r.name, names(r.body)) for r in program.requests])


def settled_partition(source: str, constants: dict[str, int] | None
                      ) -> tuple[tuple[str, ...], ...]:  # fmt: skip
    """The parts as the checker reads them (checker/parts.py): on its own parse, an `if`
    that a request's constant locals decide names only the branch it runs."""
    return tuple(kinds for kinds, _ in settled_parts(source, constants))


def settled_parts(source: str, constants: dict[str, int] | None
                  ) -> tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]:  # fmt: skip
    """`settled_partition`'s parts, with the shared locks each touches: a global that
    starts at 0 and that every request touches only in holds (checker/parts.py `held`)
    joins no parts; a part that touches one that another part touches too is decided
    with a holder of it (`with_holders`)."""
    from checker.parts import holder, reached
    from checker.program import parse_program

    initial, requests = parse_program(source, constants)
    acc = [(r, Names(*map(frozenset, reached(b)))) for r, b in requests]
    locks = shared_locks(initial, [b for _, b in requests])
    groups = components([(r, Names(n.reads - locks, n.writes - locks)) for r, n in acc])
    touched = {r: n.reads | n.writes for r, n in acc}
    used = [frozenset().union(*(touched[r] for r in kinds)) & locks for kinds in groups]
    out = tuple((kinds, tuple(sorted(g for g in mine if sum(g in u for u in used) > 1)))
                for kinds, mine in zip(groups, used, strict=True))
    bodies = dict(requests)
    if not any(mine and all(bodies[r] in map(holder, mine) for r in kinds)
               for kinds, mine in out):
        return out
    # a part of holders only (a part's own program, split again): no shared locks
    return tuple((kinds, ()) for kinds in components(acc))


def shared_locks(initial: tuple[tuple[str, int], ...], bodies: list[Any]) -> frozenset[str]:
    """The globals written somewhere that start at 0 and that every body touches only in
    holds (`while (L == 1) { yield }; L := 1; ...; L := 0`, checker/parts.py `held`)."""
    from checker.model import is_local
    from checker.model import nodes as checker_nodes
    from checker.parts import held

    start = dict(initial)
    written = {n[1] for b in bodies for n in checker_nodes(b)
               if n[0] == "assign" and not is_local(n[1])}
    return frozenset(g for g in written if start.get(g, 0) == 0 and all(
        held(b, g) for b in bodies))


def with_holders(source: str, locks: tuple[str, ...], taken: set[str]) -> str:
    """A part's source with, after its own requests, one request that holds each of
    `locks` once (checker/parts.py `holder`), in order, named apart from `taken`."""
    out = [source.rstrip("\n")]
    for g in locks:
        name = "held_" + re.sub(r"\W+", "_", g).strip("_")
        while name in taken:
            name += "_"
        taken.add(name)
        out.append(f"request {name} {{ while ({g} == 1) {{ yield }}; {g} := 1; yield; "
                   f"{g} := 0; 0 }}")
    return "\n".join(out) + "\n"


def components(acc: list[tuple[str, Names]]) -> tuple[tuple[str, ...], ...]:
    """The kinds grouped by conflicts, each group in the given order, ordered by its first."""
    kinds = [n for n, _ in acc]
    parent = {n: n for n in kinds}

    def root(n: str) -> str:
        while parent[n] != n:
            parent[n] = parent[parent[n]]
            n = parent[n]
        return n

    for i, (a, na) in enumerate(acc):
        for b, nb in acc[i + 1:]:
            if na.conflicts(nb):
                parent[root(b)] = root(a)
    groups: dict[str, list[str]] = {}
    for n in kinds:
        groups.setdefault(root(n), []).append(n)
    return tuple(sorted((tuple(g) for g in groups.values()), key=lambda g: kinds.index(g[0])))


def part_source(source: str, keep: tuple[str, ...]) -> str | None:
    """`source` with every request block whose name is not in `keep` blanked out (each
    character but a newline becomes a space: lines and columns stay the whole file's).
    A block runs from its `request` keyword to the next one, or to the end of the file.
    A family keeps the members in `keep` by its range rewritten `k1..k2`; None when they
    are not consecutive (the part is no program of its own then)."""
    from prover.frontend.parser import _lark

    tokens = [t for t in _lark().lex(source) if t.type in ("REQUEST", "NAME", "IN", "RSQB")]
    starts = [(i, t.start_pos or 0, str(tokens[i + 1])) for i, t in enumerate(tokens)
              if t.type == "REQUEST" and i + 1 < len(tokens)]
    out = list(source)
    for k, (i, start, name) in reversed(list(enumerate(starts))):  # a range may grow
        end = starts[k + 1][1] if k + 1 < len(starts) else len(source)
        members = sorted(int(r[len(name) + 1:-1]) for r in keep
                         if r.startswith(name + "[") and r[len(name) + 1:-1].lstrip("-").isdigit())
        family = i + 3 < len(tokens) and tokens[i + 3].type == "IN" and (tokens[i + 3].start_pos
                                                                          or 0) < end
        if name in keep and not family:
            continue
        if family and members:
            if members != list(range(members[0], members[-1] + 1)):
                return None
            lo, hi = tokens[i + 3].end_pos or 0, next(
                t.start_pos or 0 for t in tokens[i + 4:] if t.type == "RSQB")
            span = f" {members[0]}..{members[-1]}".ljust(hi - lo)
            out[lo:hi] = list(span)
            continue
        for j in range(start, end):
            if out[j] != "\n":
                out[j] = " "
    return "".join(out)
