"""Two-phase locking (docs/certificates.md, "Two-phase locking": each rule in full, and
why it is sound): a Ser program is serializable when each request takes its locks before
it releases any (or, with a tree of locks, each after its first while holding its parent,
none twice), and touches every global that some request writes only under its guard. The
walk of each request's paths is checker/lock_walk.py; here, over all paths: every global
written touched only where its guard is held (`check`), the claim's names globals of the
program playing one part each (`_overlap`), the tree one tree (`_tree`), each lock and
sequence starting where its rule says (`touched`), and one read of one global needing no
guard (`_single_reads`). Take a finished run's failed tests and rounds out; every conflict
then goes the way of the requests' last acquisitions (with a tree: of their holds of the
top lock they share), and the run is equivalent to its requests run one at a time in that
order. Values are integers, unbounded in intent: a run past 64 bits is outside the claim."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from checker.certificate import Limits
from checker.errors import invalid
from checker.lock_walk import COMMITS, SHARED, State, Ticket, Walk
from checker.model import Expr, is_local, nodes
from checker.program import parse_program


@dataclass
class Footprint:
    """What the requests do with globals and locks, over all their paths."""

    held_at: dict[tuple[str, bool], frozenset[str]]  # (global, a write) -> locks held at
    written: set[str]  # every such touch ("free" among them always, W + SHARED too)
    order: set[tuple[str, str]]  # (L, M): M acquired while L is held (a pair: its W)
    other_waits: bool  # a loop other than an acquisition's, or one that tests more
    ends_holding: bool  # a request may answer while it holds a lock
    under: dict[str, frozenset[str]]  # a lock -> the locks held at every later acquisition
    quiet: set[str]  # versions whose guarded globals a commit writes without raising them


def _single_reads(requests: list[tuple[str, Expr]]) -> set[str]:
    """The requests that read one global that some request writes, once: in one step (no
    `yield`, no loop), writing none, where every request writes that global in one place
    at most, out of any loop. Its guard is not asked there: the read sees the value that
    the global's last writer left, which that writer writes once, and the request stands
    in the serial order right after that writer (docs/certificates.md, rule 10)."""
    places: dict[str, int] = {}  # global -> the most places one request writes it in
    for _, body in requests:
        here: dict[str, int] = {}
        for n in nodes(body):
            if n[0] == "while":
                here.update((m[1], 2) for m in nodes(n) if m[0] == "assign" and
                            not is_local(m[1]))
            elif n[0] == "assign" and not is_local(n[1]):
                here[n[1]] = here.get(n[1], 0) + 1
        places.update((g, max(k, places.get(g, 0))) for g, k in here.items())
    return {name for name, body in requests if not any(
        n[0] in ("yield", "while") or n[0] == "assign" and not is_local(n[1])
        for n in nodes(body)) and len(read := {n[1] for n in nodes(body) if n[0] == "var" and
                                                n[1] in places}) == 1
        and all(places[g] == 1 for g in read)}


def touched(source: str, constants: dict[str, int] | None, locks: frozenset[str],
            readers: dict[str, str], mutexes: dict[str, str] | None = None,
            sequences: dict[str, str] | None = None, guards: dict[str, str] | None = None,
            tickets: dict[str, Ticket] | None = None,
            tree: dict[str, str | None] | None = None) -> Footprint:
    """The requests' footprint (`readers`: each readers' count R -> its lock W;
    `mutexes`: a counted R -> its mutex; `sequences`: S -> its writers' lock, or "";
    `tickets`: a ticket lock S -> its dispenser and cap; `tree`: a lock -> its parent,
    None: not asked); E-LOCKING where the rules fail."""
    initial, requests = parse_program(source, constants)
    mutexes, sequences, tickets = mutexes or {}, sequences or {}, tickets or {}
    if bad := sorted(g for g, v in initial if g in locks | set(readers) | set(
            mutexes.values()) or sequences.get(g, COMMITS) != COMMITS and (v < 0 or v % 2)):
        raise invalid("E-LOCKING", f"lock {bad[0]} does not start at 0 (a sequence: at an even "
                                   "number, not below 0)")  # fmt: skip
    start = dict(initial)
    for q, k in tickets.items():  # the dispenser and the counter served start equal, in range
        if start.get(q, 0) != start.get(k.next, 0) or start.get(k.cap, 0) or not (
                0 <= start.get(q, 0) < (k.modulus or 2**63)) or k.modulus and not (
                k.cap and 1 <= k.limit <= k.modulus):  # fmt: skip
            raise invalid("E-LOCKING", f"ticket lock {q} does not start where {k.next} does, "
                                       "in range, its cap at 0, or wraps with no cap below "
                                       "its modulus")
    out = Footprint({}, set(), set(), False, False, {}, set())
    singles = _single_reads(requests)
    for name, body in requests:
        walk = Walk(name, locks, readers, mutexes, sequences, guards or {}, tickets, tree)
        walk.single = name in singles
        ends = walk.run(body, [State((), frozenset(), False)])
        walk.quiet |= {q for st in ends for q in st.owed}
        if any(st.snap or st.torn or st.owed - st.commit or st.ticket or st.held & (
                set(sequences) | set(walk.caps)) for st in ends):  # fmt: skip
            raise invalid("E-LOCKING", f"request {name}: may answer in a write of a "
                                       "sequence, before it validates a read of one or "
                                       "after a failed validation or try of a lock, in a "
                                       "step that writes what a version guards and does "
                                       "not raise it, with a ticket it has not waited for, "
                                       "or with a slot of a ticket's cap")
        out.written |= walk.written
        out.quiet |= walk.quiet
        out.order |= walk.order
        out.other_waits |= walk.other_waits
        out.ends_holding |= any(st.held for st in ends)
        if inside := sorted({r for st in ends for r in st.held if r in mutexes}):
            raise invalid("E-LOCKING", f"request {name}: may answer inside {inside[0]}'s "
                                       "readers (a reader that enters must leave)")
        for key, held in walk.held_at.items():
            out.held_at[key] = out.held_at.get(key, held) & held
        for lk, held in walk.under.items():
            out.under[lk] = out.under.get(lk, held) & held
    return out


def _overlap(claim: dict[str, Any], locks: frozenset[str], readers: dict[str, str],
             sequences: dict[str, str], tickets: dict[str, Ticket], guards: dict[str, str]
             ) -> bool:  # fmt: skip
    """Does a name play two parts of the claim (a lock, a readers' count, a mutex, a
    sequence, a ticket lock's counter served, dispenser or cap), a readers' count name no
    lock or a lock twice, a sequence's lock no lock, or a guard no lock, sequence or
    ticket lock (or a guarded global one of those)?"""
    pairs, seqs = claim.get("shared", []), claim.get("sequences", [])
    roles = [*claim["locks"], *(p["readers"] for p in pairs),
             *(p["mutex"] for p in pairs if "mutex" in p), *(q["sequence"] for q in seqs),
             *(n for k in claim.get("tickets", []) for n in (k["serving"], k["next"],
                                                             k.get("cap")) if n is not None)]
    return (len(roles) != len(set(roles)) or len(sequences) != len(seqs)
            or len(tickets) != len(claim.get("tickets", []))
            or any(w not in locks or list(readers.values()).count(w) > 1
                   for w in readers.values())
            or any("lock" in q and (q["lock"] not in locks or "commits" in q) for q in seqs)
            or any(g in roles or lk not in locks | set(sequences) | set(tickets)
                   for g, lk in guards.items()))


def _tree(tree: dict[str, str], locks: frozenset[str]) -> bool:
    """Is `tree` (each lock but the root -> its parent) one tree over `locks`: its names
    locks, one lock the root, and every lock's parents reaching it?"""
    if (set(tree) | set(tree.values())) - locks or len(locks - set(tree)) != 1:
        return False
    for lk in locks:
        for _ in range(len(locks)):
            if lk not in tree:
                break
            lk = tree[lk]
        else:
            return False
    return True


def check(data: dict[str, Any]) -> str:
    """The rules above, for the certificate's locks, readers' counts and guards."""
    claim, model = data["locking"], data["model"]
    if model["kind"] != "ser" or data["verdict"] != "serializable":
        raise invalid("E-LOCKING", "two-phase locking proves a Ser program serializable")
    locks, guards = frozenset(claim["locks"]), dict(claim["guards"])
    readers = {p["readers"]: p["writer"] for p in claim.get("shared", [])}
    mutexes = {p["readers"]: p["mutex"] for p in claim.get("shared", []) if "mutex" in p}
    sequences = {q["sequence"]: COMMITS if q.get("commits") else q.get("lock", "")
                 for q in claim.get("sequences", [])}
    tickets = {k["serving"]: Ticket(k["next"], k.get("modulus", 0), k.get("cap", ""),
                                    k.get("limit", 0)) for k in claim.get("tickets", [])}
    lockish = locks | set(readers) | set(mutexes.values()) | set(sequences) | set(tickets) | {
        n for k in tickets.values() for n in (k.next, k.cap) if n}
    initial, requests = parse_program(model["source"], model.get("constants"))
    known = {g for g, _ in initial} | {n[1] for _, b in requests for n in nodes(b)
                                       if n[0] in ("var", "assign") and not is_local(n[1])}
    if stray := sorted((lockish | set(guards) | set(guards.values())) - known):
        raise invalid("E-LOCKING", f"{stray[0]!r} is no global of the program (a lock, a "
                                   "readers' count or a guard must be one)")
    if _overlap(claim, locks, readers, sequences, tickets, guards):
        raise invalid("E-LOCKING", "the locks or readers' counts repeat or overlap, or a "
                                   "guard is no lock or is a lock")
    tree = claim.get("tree")
    if tree is not None and (readers or sequences or tickets or not _tree(tree, locks)):
        raise invalid("E-LOCKING", "the tree is no tree over the locks (one root, each other "
                                   "lock's parents reaching it), or stands beside readers' "
                                   "counts, sequences or ticket locks")
    foot = touched(model["source"], model.get("constants"), locks, readers, mutexes, sequences,
                   guards, tickets, tree)
    shared = set(readers.values()) | set(sequences)
    for g in sorted(foot.written | set(guards)):
        if g not in guards:
            raise invalid("E-LOCKING", f"{g} is written but has no guard")
        lk = guards[g]
        need = {True: lk, False: lk + SHARED if lk in shared - foot.quiet else lk}
        if not any(key in foot.held_at for key in ((g, True), (g, False))) or any(
                need[w] not in foot.held_at.get((g, w), frozenset(need.values()))
                for w in (True, False)):  # fmt: skip
            raise invalid("E-LOCKING", f"{g} is touched without its lock {lk}, or not at all")
    return f"{len(guards)} globals guarded by {len(locks)} locks, taken " + (
        "in two phases" if tree is None else "hand over hand down a tree")


def locking(data: dict[str, Any], limits: Limits, remaining: Callable[[], float]
            ) -> Iterator[tuple[str, Callable[[], str]]]:  # fmt: skip
    yield "two-phase locking", lambda: check(data)
