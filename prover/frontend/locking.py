"""The two-phase locking claim of a Ser program (checker/locking.py), when it holds: its
locks are the globals that some request takes by `while (L == 1) { yield }; L := 1`, a
readers' count R is one that some request raises by `while (W == 1) { yield }; R := R +
1` for one such lock W, and each global written anywhere is guarded by the first lock held
at every write of it (and at every read, or, for a readers-writer lock, its own or its
readers' count held at every read)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from checker.errors import CheckerError
from checker.locking import SHARED, Footprint, touched
from checker.model import Expr, is_local, nodes
from checker.program import parse_program


def _taken(body: Expr) -> tuple[set[str], set[tuple[str, frozenset[str]]]]:
    """The globals `body` may take as locks (read by an acquisition's loop, set to 1 by
    the statement after it; either may pick the lock by `if`s on an index), and the
    globals it may raise as a readers' count after such a loop (with the loop's globals)."""
    locks: set[str] = set()
    counts: set[tuple[str, frozenset[str]]] = set()
    for n in nodes(body):
        if n[0] == "seq" and n[1][0] == "while" and n[1][2] == ("yield",):
            then = n[2][1] if n[2][0] == "seq" else n[2]
            read = frozenset(m[1] for m in nodes(n[1][1]) if m[0] == "var" and not
                             is_local(m[1]))
            for m in nodes(then):
                if m[0] == "assign" and m[2] == ("int", 1) and m[1] in read:
                    locks.add(m[1])
                elif m[0] == "assign" and m[2] == ("bin", "+", ("var", m[1]), ("int", 1)):
                    counts.add((m[1], read))
    return locks, counts


def _guard(g: str, held_at: dict[tuple[str, bool], frozenset[str]], locks: list[str],
           shared: set[str]) -> str | None:
    """The first lock held at every write of `g`, and at every read (or, when it is a
    readers-writer lock's, its own or its readers' count)."""
    for lock in locks:
        read = lock + SHARED if lock in shared else lock
        if lock in held_at.get((g, True), frozenset({lock})) and read in held_at.get(
                (g, False), frozenset({read})):  # fmt: skip
            return lock
    return None


@dataclass(frozen=True)
class Locking:
    claim: dict[str, Any]  # the certificate's "locking": locks, readers' counts, guards
    deadlock_free: bool  # no execution deadlocks (`waits_in_order`)


def waits_in_order(foot: Footprint) -> bool:
    """No configuration deadlocks when a request waits only to take a lock (no other
    loop, no other test in an acquisition's), answers holding none, and the locks are
    taken in one order (no cycle of "M acquired while L is held"): the requests that wait
    in a deadlock would each hold a lock that the next one waits for, a cycle of that
    order. (A step that faults is ruled out: no division by what may be 0; values are
    unbounded in intent.)"""
    if foot.other_waits or foot.ends_holding:
        return False
    after: dict[str, set[str]] = {}
    for a, b in foot.order:
        after.setdefault(a, set()).add(b)
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    for start in sorted(after):
        if start in state:
            continue
        todo = [(start, iter(sorted(after[start])))]
        state[start] = 1
        while todo:
            node, it = todo[-1]
            nxt = next(it, None)
            if nxt is None:
                state[node] = 2
                todo.pop()
            elif state.get(nxt) == 1:
                return False
            elif state.get(nxt) is None:
                state[nxt] = 1
                todo.append((nxt, iter(sorted(after.get(nxt, ())))))
    return True


def find(source: str, constants: dict[str, int] | None) -> Locking | None:
    """The claim (locks, readers' counts, guards) when the rules hold, else None."""
    try:
        _, requests = parse_program(source, constants)
        locks: set[str] = set()
        counts: set[tuple[str, frozenset[str]]] = set()
        for _, body in requests:
            more, raised = _taken(body)
            locks |= more
            counts |= raised
        readers: dict[str, str] = {}
        for r, read in sorted(counts, key=lambda c: (c[0], sorted(c[1]))):
            ws = sorted((read & locks) - set(readers.values()))
            if ws and r not in locks and r not in readers:
                readers[r] = ws[0]
        if not locks:
            return None
        foot = touched(source, constants, frozenset(locks), readers)
    except CheckerError:
        return None
    guards = {}
    shared = set(readers.values())
    for g in sorted(foot.written):
        lock = _guard(g, foot.held_at, sorted(locks), shared)
        if lock is None:
            return None
        guards[g] = lock
    claim: dict[str, Any] = {"locks": sorted(locks), "guards": guards}
    if readers:
        claim["shared"] = [{"writer": w, "readers": r} for r, w in sorted(readers.items())]
    return Locking(claim, waits_in_order(foot))
