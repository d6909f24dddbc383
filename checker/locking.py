"""Two-phase locking (docs/certificates.md, "Two-phase locking"): a Ser program is
serializable when each of its requests takes locks before it releases any, and touches
every global that some request writes only while it holds that global's lock.

The claim names the locks and, for each global written anywhere, its guard. Checked here,
from the checker's own parse, on every path of every request (a path forks at a local's
choice and at an `if` its known locals settle; other branches are both followed):

- a lock starts at 0 and is touched only by an acquisition `while (L == 1) { yield };
  L := 1` (or `L != 0`, `L > 0`, `L` as the test, which may be joined by `||` to tests
  that only read, read as under L) while the request does not hold it and has released no
  lock, and by a release `L := 0` while it holds it; or by a test-and-set `if (L == 0) {
  L := 1; ... } else { ... }` (`Walk.tried`), whose other branch must fail its round;
- a readers-writer lock is a lock W and a count R of readers, both starting at 0: W's
  acquisition also tests `R > 0` (or `R != 0`, `R`), a reader takes it by `while (W ==
  1) { yield }; R := R + 1` and gives it back by `R := R - 1`, both where their value
  is dropped (not the last statement of a sequence), and R is touched nowhere else; a
  global it guards is written only while W is held, and read while W or R is;
- or R is counted under a mutex M (the textbook readers-writer lock): a reader enters by
  `while (M == 1) { yield }; M := 1; R := R + 1; if (R == 1) { <take W> } else { 0 };
  M := 0` and leaves by `<take M>; R := R - 1; if (R == 0) { W := 0 } else { 0 }; M :=
  0` (`Walk.block`), and holds R in between; W's acquisition need not test R;
- every lock, readers' count and guarded global is a global the program names;
- a global that is neither a lock nor guarded is written by no request;
- a read or write of a guarded global happens while the request holds its guard;
- no `exit` (a failed `assert`, an index out of range) is left on a path, no division or
  remainder by what may be 0; the right operand of `&&` and `||` is a path of its own (it
  may not run);
- another loop that touches a lock is a retry (`Walk.retry`): its test reads locals
  only; a round that changes no live local and no global but locks gives back the locks
  it took, and any other round ends the loop;
- a sequence S (a seqlock) starts even and changes only by `S := S + 1`: a writer's
  first raise takes it (from even, by `while (S % 2 == 1) { yield }`, or under its lock
  WL), the second ends its write; a global S guards is written in a write, and read
  there, under WL, or between a reader's `s := S` and its validation `S == s && s % 2 ==
  0` (`Walk.snapshot`, `validated`), which, failing, must fail its retry round;
- a version V (a sequence that `commits`) changes only by raises `V := v + 1` (v its
  value in this step); what it guards is written only in a step that raises V after
  validating `V == v` (v read earlier, or `c == v`, c read in the step), and read
  between `v := V` and its validation, in such a step, or bare in a step (`Walk.bare`)
  that then holds V; such a step begins with no lock released, ends with a release, and
  takes no lock (`Walk.stepping`);
- a ticket lock S is taken by `t := T; T := (T + 1) % N` holding a slot of its cap
  (`while (Q == C) { yield }; Q := Q + 1`, C ≤ N), then `while (S != t) { yield }`, and
  given back by `S := (S + 1) % N`, then the slot (`Walk.turn`, `waited`);
- a request that reads one global once, in one step, and writes none, needs no guard for
  it when every request writes it in one place at most (`_single_reads`).

Why it is sound. Read a finished run as the sequence of its requests' actions (each read
or write of a global; a step is a stretch of one request's actions). A lock is 1 exactly
while one request holds it, so two requests' holds of the same lock are disjoint
stretches of the run. A failed test of an acquisition's loop reads, writes nothing and
leaves its request where it was, at the loop with the same locals: take those tests out,
and what remains is still each request's own sequential run, reading the same values.
The test that passes is in the step that sets the lock: its reads are that step's, after
it. A round of a retry loop that changes no local and no global but locks, and gives
back the locks it took, is taken out too: while it holds them, no other request acquires
them, and only failed tests (out already) read them; its request is back at the loop
with the same locals (but dead ones), as if it had not run. A sequence is odd exactly
while one writer is in its write; a reader whose read s of S validates (S == s, even)
saw no write begin or go on between its read and its test (S only grows), so its reads
of what S guards, in between, read the values at the test: a hold of S that no write
overlaps. A version only grows and what it guards changes only in the steps that raise
it: a read validated at t2 saw no raise since its read, so it is a hold up to t2 that no
commit overlaps; a commit, or a bare read, is a hold of the step's instant. A ticket
lock is held by one request at a time, in the order of the tickets taken (at most C ≤ N
out, each a different number, only the one equal to S passes); a single read stands
right after the last writer of what it reads. R counts the readers that hold their lock,
and W is 1 only while R is 0 (a reader takes its lock when W is 0, W's acquisition needs
R at 0), so a writer's hold is disjoint from every other hold of the same lock. Two
readers' increments and decrements of R commute (each only adds to R, its value
dropped): they are no conflict. (Counted under M, R is the number of readers between an
entry and an exit, outside those, so W is 1 and set by the first of them while any is
there: a writer's hold is disjoint from that time too. Entries and exits write no local;
out of the run, they are put back at their places in the serial run, where each finds R
and W at 0 and runs through.) Two actions of different requests then conflict only
through a lock or a guarded global, which both requests hold there, at least one of them
alone (a write needs W); if the first request's action comes first, it releases that
lock before the second acquires it, so its last acquisition (every acquisition precedes
every release) comes before the second's. Every conflict thus goes the way of the
requests' last acquisitions (a request with none touches no global that is written), and
the run is equivalent to the requests run one at a time in that order: each action reads
what it read, so each request answers what it answered. Values are integers, unbounded
in intent: a run that would leave 64 bits is outside the claim."""

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
            tickets: dict[str, Ticket] | None = None) -> Footprint:
    """The requests' footprint (`readers`: each readers' count R -> its lock W;
    `mutexes`: a counted R -> its mutex; `sequences`: S -> its writers' lock, or "";
    `tickets`: a ticket lock S -> its dispenser and cap); E-LOCKING where the rules fail."""
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
    out = Footprint({}, set(), set(), False, False)
    singles = _single_reads(requests)
    for name, body in requests:
        walk = Walk(name, locks, readers, mutexes, sequences, guards or {}, tickets)
        walk.single = name in singles
        ends = walk.run(body, [State((), frozenset(), False)])
        if any(st.snap or st.torn or st.owed or st.ticket or st.held & (set(sequences) | set(
                walk.caps)) for st in ends):  # fmt: skip
            raise invalid("E-LOCKING", f"request {name}: may answer in a write of a "
                                       "sequence, before it validates a read of one or "
                                       "after a failed validation or try of a lock, in a "
                                       "step that writes what a version guards and does "
                                       "not raise it, with a ticket it has not waited for, "
                                       "or with a slot of a ticket's cap")
        out.written |= walk.written
        out.order |= walk.order
        out.other_waits |= walk.other_waits
        out.ends_holding |= any(st.held for st in ends)
        if inside := sorted({r for st in ends for r in st.held if r in mutexes}):
            raise invalid("E-LOCKING", f"request {name}: may answer inside {inside[0]}'s "
                                       "readers (a reader that enters must leave)")
        for key, held in walk.held_at.items():
            out.held_at[key] = out.held_at.get(key, held) & held
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
    foot = touched(model["source"], model.get("constants"), locks, readers, mutexes, sequences,
                   guards, tickets)
    shared = set(readers.values()) | set(sequences)
    for g in sorted(foot.written | set(guards)):
        if g not in guards:
            raise invalid("E-LOCKING", f"{g} is written but has no guard")
        lk = guards[g]
        need = {True: lk, False: lk + SHARED if lk in shared else lk}
        if not any(key in foot.held_at for key in ((g, True), (g, False))) or any(
                need[w] not in foot.held_at.get((g, w), frozenset(need.values()))
                for w in (True, False)):  # fmt: skip
            raise invalid("E-LOCKING", f"{g} is touched without its lock {lk}, or not at all")
    return f"{len(guards)} globals guarded by {len(locks)} locks, taken in two phases"


def locking(data: dict[str, Any], limits: Limits, remaining: Callable[[], float]
            ) -> Iterator[tuple[str, Callable[[], str]]]:  # fmt: skip
    yield "two-phase locking", lambda: check(data)
