"""The two-phase locking claim of a Ser program (checker/locking.py), when it holds: its
locks are the globals that some request takes by `while (L == 1) { yield }; L := 1`, and
each global written anywhere is guarded by the first lock held at every touch of it."""

from __future__ import annotations

from typing import Any

from checker.errors import CheckerError
from checker.locking import FREE, touched
from checker.model import Expr, nodes
from checker.program import parse_program


def _taken(body: Expr) -> set[str]:
    """The globals `body` may take as locks: read by the loop of an acquisition and set
    to 1 by the statement after it (either may pick the lock by `if`s on an index)."""
    out: set[str] = set()
    for n in nodes(body):
        if n[0] == "seq" and n[1][0] == "while" and n[1][2] == ("yield",):
            then = n[2][1] if n[2][0] == "seq" else n[2]
            read = {m[1] for m in nodes(n[1][1]) if m[0] == "var"}
            out |= {m[1] for m in nodes(then)
                    if m[0] == "assign" and m[2] == ("int", 1) and m[1] in read}
    return out


def find(source: str, constants: dict[str, int] | None) -> dict[str, Any] | None:
    """The certificate's "locking" (locks and guards) when the rules hold, else None."""
    try:
        _, requests = parse_program(source, constants)
        locks = frozenset(g for _, body in requests for g in _taken(body))
        if not locks:
            return None
        foot = touched(source, constants, locks)
    except CheckerError:
        return None
    guards = {}
    for g in sorted(foot.written):
        if not (held := sorted(foot.held_at[g] - FREE)):
            return None
        guards[g] = held[0]
    return {"locks": sorted(locks), "guards": guards}
