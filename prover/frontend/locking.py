"""The two-phase locking claim of a Ser program (checker/locking.py), when it holds: its
locks are the globals that some request takes by `while (L == 1) { yield }; L := 1`, a
readers' count R is one that some request raises by `while (W == 1) { yield }; R := R +
1` for one such lock W, and each global written anywhere is guarded by the first lock held
at every write of it (and at every read, or, for a readers-writer lock, its own or its
readers' count held at every read)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

from checker.errors import CheckerError
from checker.lock_walk import COMMITS, SHARED, Ticket, _stmts
from checker.locking import Footprint, touched
from checker.model import Expr, is_local, nodes
from checker.program import parse_program


def _taken(body: Expr) -> tuple[set[str], set[tuple[str, frozenset[str]]], set[str]]:
    """The globals `body` may take as locks (read by an acquisition's loop, set to 1 by
    the statement after it; either may pick the lock by `if`s on an index), the globals
    it may raise as a readers' count after such a loop (with the loop's globals), and
    those it may take by a test-and-set (read by an `if` whose branch sets it to 1 first:
    a flag set once may read so too)."""
    locks: set[str] = set()
    tried: set[str] = set()
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
        if n[0] == "if":  # a test-and-set: `if (L == 0) { L := 1; ... } else { ... }`
            read = frozenset(m[1] for m in nodes(n[1]) if m[0] == "var" and not is_local(m[1]))
            for branch in n[2:]:
                first = _stmts(branch)[0]
                tried |= {m[1] for m in nodes(first) if m[0] == "assign" and
                          m[2] == ("int", 1) and m[1] in read}
    return locks, counts, tried


def _guard(g: str, held_at: dict[tuple[str, bool], frozenset[str]], locks: list[str],
           shared: set[str], writes_only: set[str]) -> str | None:
    """The first lock held at every write of `g`, and at every read (or, when it is a
    readers-writer lock's, its own or its readers' count; for those of `writes_only`,
    the reads are not asked)."""
    for lock in locks:
        read = lock + SHARED if lock in shared else lock
        if lock in held_at.get((g, True), frozenset({lock})) and (
                lock in writes_only or read in held_at.get((g, False), frozenset({read}))):
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


def _counted(requests: list[Any], locks: set[str]) -> set[tuple[str, str, str]]:
    """(R, M, W): a lock M whose setting is followed (yields aside) by `R := R + 1` or
    an `if` on R that sets a lock W (the first reader's), a readers' count under M."""
    out = set()
    for _, body in requests:
        for n in nodes(body):
            if n[0] != "seq":
                continue
            parts = [p for p in _stmts(n) if p != ("yield",)]
            for k, p in enumerate(parts[:-2]):
                if p[0] == "assign" and p[1] in locks and p[2] == ("int", 1):
                    after = parts[k + 1:k + 3]
                    for r in {q[1][2][1] for q in after if q[0] == "if" and
                              q[1][0] == "bin" and q[1][2][0] == "var"}:  # fmt: skip
                        out |= {(r, p[1], q[1]) for a in after for q in nodes(a)
                                if q[0] == "assign" and q[1] in locks - {p[1]}
                                and q[2] == ("int", 1)}  # fmt: skip
    return out


def _sequences(requests: list[Any], locks: set[str]) -> list[dict[str, str]]:
    """The ways to read the globals that requests write only by raises (`S := S + 1`,
    `V := v + 1`, v read from V) and read into locals (`s := S`) as sequences: with no
    lock (its writers take it by its parity), with one of `locks` (held where they raise
    it), or as a version (raised in commits); a global raised from a local only as a
    version, one whose parity is waited on only by its parity; at most 16 ways, then none
    (a balance written back from a read of it, under a lock, is no version)."""
    into = {(n[1], m[1]) for _, b in requests for n in nodes(b) if n[0] == "assign" and
            is_local(n[1]) for m in nodes(n[2]) if m[0] == "var" and not is_local(m[1])}
    raises = [n for _, b in requests for n in nodes(b) if n[0] == "assign" and not
              is_local(n[1]) and n[2][0] == "bin" and n[2][1] == "+" and n[2][3][0] == "int"
              and n[2][2][0] == "var" and (n[2][2][1] == n[1] or (n[2][2][1], n[1]) in into)]
    read = {g for _, g in into}
    parity = {m[1] for _, b in requests for n in nodes(b) if n[0] == "while"
              for m in nodes(n[1]) if m[0] == "bin" and m[1] == "%" and m[2][0] == "var"}
    other = {n[1] for _, b in requests for n in nodes(b) if n[0] == "assign" and
             n not in raises}  # written otherwise too: no sequence
    tested = {m[1] for _, b in requests for n in nodes(b) if n[0] == "bin" and n[1] in (
        "==", "!=", "<", "<=", ">", ">=") for m in n[2:] if m[0] == "var"} | parity
    tested |= {g for lo, g in into if lo in tested}  # a sequence is validated or waited on
    ways: list[dict[str, str]] = [{}]
    for q in sorted(({n[1] for n in raises} & read & tested) - locks - other):
        own = all(n[2][2] == ("var", q) and n[2][3] == ("int", 1) for n in raises if n[1] == q)
        kinds = [""] if q in parity else ["", *sorted(locks), COMMITS] if own else [COMMITS]
        ways = [w | {q: lk} for w in ways for lk in kinds][:16]
    return ways + [{}] if ways != [{}] else ways


def _tickets(requests: list[Any]) -> dict[str, Ticket]:
    """The ticket locks the requests take: `t := T; T := (T + 1) % N` (or `T := t + 1`),
    then `while (S != t) { yield }`; capped by a counter Q when a wait `while (Q == C) {
    yield }; Q := Q + 1` comes before the take."""
    out: dict[str, Ticket] = {}
    for _, body in requests:
        parts = [p for p in _stmts(body) if p != ("yield",)]
        for i, p in enumerate(parts[:-2]):
            nxt = parts[i + 1]
            if nxt[0] == "if" and nxt[2][0] == "assign" and nxt[1][0] == "bin" and \
                    nxt[1][3][0] == "int":  # `if (t == N - 1) { T := 0 } else { ... }`
                nxt = ("assign", nxt[2][1], ("bin", "%", ("int", 0), ("int", nxt[1][3][1] + 1)))
            if not (p[0] == "assign" and is_local(p[1]) and p[2][0] == "var" and
                    nxt[0] == "assign" and nxt[1] == p[2][1]):  # fmt: skip
                continue
            step = nxt[2]
            modulus = step[3][1] if step[0] == "bin" and step[1] == "%" and \
                step[3][0] == "int" else 0  # fmt: skip
            waits = {w[1][2][1] for w in parts[i + 2:] if w[0] == "while" and
                     w[1][0] == "bin" and w[1][1] == "!=" and w[1][2][0] == "var" and
                     w[1][3] == ("var", p[1])}  # fmt: skip
            caps = [(w[1][2][1], w[1][3][1]) for w in parts[:i] if w[0] == "while" and
                    w[1][0] == "bin" and w[1][1] in ("==", ">=") and w[1][2][0] == "var"
                    and w[1][3][0] == "int"]  # fmt: skip
            for q in sorted(waits):
                cap, limit = caps[-1] if caps else ("", 0)
                out[q] = Ticket(nxt[1], modulus, cap, limit)
    return out


@dataclass(frozen=True)
class _Shape:
    """A reading of the program's locks, and its footprint under it."""

    foot: Footprint
    locks: set[str]
    readers: dict[str, str]  # R -> W
    mutexes: dict[str, str]  # a counted R -> its mutex
    sequences: dict[str, str]  # S -> its writers' lock ("": none)
    tickets: dict[str, Ticket]  # a ticket lock S -> its dispenser and cap
    tree: dict[str, str] | None = None  # lock coupling: each lock but the root -> its parent


def _shapes(source: str, constants: dict[str, int] | None, requests: list[Any],
            locks: set[str], readers: dict[str, str]) -> Iterator[_Shape]:
    """The readings that the rules of the walk pass: with `locks` and `readers`, else
    with one lock M read as the mutex that a readers' count R (raised by `R := R + 1`
    somewhere) is counted under, its first reader taking another lock W (without M among
    the locks and with R -> W among the readers); each with the globals read as
    sequences in each way (`_sequences`)."""
    Try = tuple[set[str], dict[str, str], dict[str, str]]
    tries: list[Try] = [(locks, readers, {})]
    tries += [(locks - {m}, readers | {r: w}, {r: m})
              for r, m, w in sorted(_counted(requests, locks)) if w not in readers.values()]
    tickets = _tickets(requests)
    names = set(tickets) | {n for k in tickets.values() for n in (k.next, k.cap) if n}
    for held, counted, mutexes in tries:
        for way in _sequences(requests, held - names):
            sequences = {q: lk for q, lk in way.items() if q not in names}
            if held - names or sequences or tickets:
                try:
                    foot = touched(source, constants, frozenset(held - names), counted,
                                   mutexes, sequences, tickets=tickets)
                except CheckerError:
                    continue
                yield _Shape(foot, held - names, counted, mutexes, sequences, tickets)


def _guards(foot: Footprint, shape: _Shape, writes_only: set[str]) -> dict[str, str] | None:
    """Each global written, guarded by the first lock or sequence held at every touch of
    it (`_guard`); None when one has none."""
    out = {}
    shared = set(shape.readers.values()) | (set(shape.sequences) - foot.quiet)
    for g in sorted(foot.written):
        lock = _guard(g, foot.held_at, sorted(shape.locks) + sorted(shape.sequences) + sorted(
            shape.tickets), shared, writes_only)  # fmt: skip
        if lock is None:
            return None
        out[g] = lock
    return out


def find(source: str, constants: dict[str, int] | None) -> Locking | None:
    """The claim (locks, readers' counts, sequences, guards) when the rules hold, else
    None."""
    try:
        _, requests = parse_program(source, constants)
        locks: set[str] = set()
        tried: set[str] = set()
        counts: set[tuple[str, frozenset[str]]] = set()
        for _, body in requests:
            more, raised, tests = _taken(body)
            locks |= more
            counts |= raised
            tried |= tests
        readers: dict[str, str] = {}
        for r, read in sorted(counts, key=lambda c: (c[0], sorted(c[1]))):
            ws = sorted((read & locks) - set(readers.values()))
            if ws and r not in locks and r not in readers:
                readers[r] = ws[0]
    except CheckerError:
        return None
    for found in _readings(source, constants, requests, locks, tried, readers):
        guards = _guarded(source, constants, found)
        if guards is not None:
            return _claimed(found, guards)
    return None


def _readings(source: str, constants: dict[str, int] | None, requests: list[Any],
              locks: set[str], tried: set[str], readers: dict[str, str]) -> Iterator[_Shape]:
    """The readings to try, in turn: the test-and-set flags as locks (when there are any)
    and not, then the locks as one tree (lock coupling)."""
    for taken in [locks | tried, locks] if tried - locks else [locks]:
        yield from _shapes(source, constants, requests, taken, readers)
    coupled = _coupled(source, constants, locks | tried)
    if coupled is not None:
        yield coupled


def _coupled(source: str, constants: dict[str, int] | None, locks: set[str]
             ) -> _Shape | None:  # fmt: skip
    """Lock coupling (rule 11): each lock's parent is a lock held at every acquisition of
    it but a path's first (a first walk asks for none); the one lock never taken so is
    the root, and the others never taken so are its leaves."""
    try:
        first = touched(source, constants, frozenset(locks), {}, tree=dict.fromkeys(locks))
    except CheckerError:
        return None
    tops = sorted(locks - set(first.under))
    users = {min(held) for held in first.under.values() if held}
    roots = [lk for lk in tops if lk in users] or tops[:1]
    if len(roots) != 1 or not all(first.under.values()):
        return None
    tree = {lk: min(held) for lk, held in first.under.items()} | {
        lk: roots[0] for lk in tops if lk != roots[0]}
    try:
        foot = touched(source, constants, frozenset(locks), {}, tree=dict(tree))
    except CheckerError:
        return None
    return _Shape(foot, locks, {}, {}, {}, {}, tree)


def _guarded(source: str, constants: dict[str, int] | None, found: _Shape
             ) -> dict[str, str] | None:  # fmt: skip
    """The guards of a reading (`_guards`); a version's are found by their writes, then
    walked again, for what a step reads bare is known by its guard."""
    versions = {q for q, lk in found.sequences.items() if lk == COMMITS}
    guards = _guards(found.foot, found, versions)
    if guards is None or not versions:
        return guards
    for _ in range(3):  # until the guards the walk asks for are those it was given
        try:
            foot = touched(source, constants, frozenset(found.locks), found.readers,
                           found.mutexes, found.sequences, guards, found.tickets)
        except CheckerError:
            return None
        again = _guards(foot, replace(found, foot=foot), set())
        if again is None or again == guards:
            return again
        guards = again
    return None


def _claimed(found: _Shape, guards: dict[str, str]) -> Locking:
    """The certificate's claim of a reading and its guards, with the deadlock report."""
    claim: dict[str, Any] = {"locks": sorted(found.locks), "guards": guards}
    if found.tree is not None:
        claim["tree"] = dict(sorted(found.tree.items()))
    if found.readers:
        claim["shared"] = [{"writer": w, "readers": r} | (
            {"mutex": found.mutexes[r]} if r in found.mutexes else {})
            for r, w in sorted(found.readers.items())]
    if found.tickets:
        claim["tickets"] = [{"serving": q, "next": k.next} | (
            {"modulus": k.modulus} if k.modulus else {}) | (
            {"cap": k.cap, "limit": k.limit} if k.cap else {})
            for q, k in sorted(found.tickets.items())]
    if found.sequences:
        claim["sequences"] = [{"sequence": q} | ({"commits": True} if lk == COMMITS else
                                                 {"lock": lk} if lk else {})
                              for q, lk in sorted(found.sequences.items())]
    return Locking(claim, waits_in_order(found.foot))
