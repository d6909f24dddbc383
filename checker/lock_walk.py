"""The paths of a request, as the two-phase locking claim follows them (checker/locking.py,
docs/certificates.md "Two-phase locking"): where each global is touched, with which locks,
readers' counts, sequences and versions held, failing with E-LOCKING where a rule of the
claim fails on a path."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from checker.errors import CheckerError, invalid
from checker.fold import fold, truth
from checker.live import live_locals
from checker.model import ZERO, Expr, expr_text, is_local, nodes

MAX_PATHS = 4096  # paths of one request at a time
MAX_VISITS = 1_000_000  # statements followed on all of one request's paths (nested retries)
MAX_FORK = 64  # values of a choice followed one by one (a wider choice: an unknown local)
MAX_ROUNDS = 64  # rounds of a loop that touches a lock followed one by one (`unrolled`)
FREE = frozenset({"free"})  # where a global that no request writes may be read
SHARED = " shared"  # W + SHARED: held where W or its readers' count is (no global's name)
@dataclass(frozen=True)
class Ticket:
    """A ticket lock S (docs/certificates.md, rule 9): its dispenser T, the modulus its
    numbers wrap at (0: none), and the counter Q that caps the tickets out at `limit`."""

    next: str
    modulus: int = 0
    cap: str = ""
    limit: int = 0


COMMITS = " commits"  # a sequence's "lock" when it is a version (raised in commits)


@dataclass(frozen=True)
class State:
    """One path: its known locals, the locks it holds (a sequence S: in its write), whether
    it released one; in the round of a retry loop it is in, whether it wrote a global
    (other than by taking or releasing a lock) and which locals it assigned; the reads of
    sequences into locals it has yet to validate (S, s), and whether a validation failed."""

    env: tuple[tuple[str, int], ...]
    held: frozenset[str]
    released: bool
    wrote: bool = False
    assigned: frozenset[str] = frozenset()
    must: frozenset[str] = frozenset()  # the locals it assigned on each path merged into it
    snap: tuple[tuple[str, str], ...] = ()
    torn: bool = False
    # in the current step (up to the next yield): the versions it commits (validated or
    # raised), reads bare, raised, and owes a raise (it wrote what they guard), and the
    # locals that hold a version's value (V, v)
    commit: frozenset[str] = frozenset()
    seen: frozenset[str] = frozenset()
    raised: frozenset[str] = frozenset()
    owed: frozenset[str] = frozenset()
    same: tuple[tuple[str, str], ...] = ()
    ticket: tuple[tuple[str, str], ...] = ()  # (S, t): a ticket of S taken into t, not waited
    taken: frozenset[str] = frozenset()  # with a tree of locks: every lock it has taken
    even: frozenset[tuple[str, str]] = frozenset()  # reads (S, s) whose s it found even
    freed: frozenset[str] = frozenset()  # locks released in this step (its reads are under)

    def set(self, name: str, value: int | None) -> State:
        env = {k: v for k, v in self.env if k != name} | ({} if value is None else
                                                          {name: value})  # fmt: skip
        return replace(self, env=tuple(sorted(env.items())), assigned=self.assigned | {name},
                       must=self.must | {name}, same=tuple(p for p in self.same if p[1] != name),
                       even=frozenset(p for p in self.even if p[1] != name))

    def pending(self, q: str) -> bool:
        return any(q == a for a, _ in self.snap)

    def stepped(self) -> State:
        """The path after a `yield`: the step's holds of versions end (a release)."""
        return replace(self, released=self.released or bool(self.commit | self.seen),
                       commit=frozenset(), seen=frozenset(), raised=frozenset(), same=(),
                       freed=frozenset(), owed=frozenset())


def _resolve(e: Expr, env: dict[str, int]) -> Expr:
    """`e` with the `if`s that known locals settle taken, at its top and in its operands
    (`if (k == 0) { L[0] } else { ... } == 1` is `L[0] == 1` at k = 0)."""
    while e[0] == "if" and (c := truth(e[1], env)) is not None:
        e = e[2] if c else e[3]
    return ("bin", e[1], _resolve(e[2], env), _resolve(e[3], env)) if e[0] == "bin" else e


def _stmts(e: Expr) -> list[Expr]:
    """`e` as its sequence of statements (however its `seq`s nest)."""
    out, todo = [], [e]
    while todo:
        n = todo.pop()
        if n[0] == "seq":
            todo += [n[2], n[1]]
        else:
            out.append(n)
    return out


class Walk:
    """The paths of one request: where each global is touched, with which locks held."""

    def __init__(self, request: str, locks: frozenset[str], readers: dict[str, str],
                 mutexes: dict[str, str], sequences: dict[str, str],
                 guards: dict[str, str], tickets: dict[str, Ticket],
                 tree: dict[str, str | None] | None = None) -> None:  # fmt: skip
        self.request, self.locks, self.readers = request, locks, readers  # readers: R -> W
        self.mutexes = mutexes  # a counted readers' count R -> the mutex M it is counted under
        self.sequences = sequences  # a sequence S -> the lock its writers hold ("": none;
        self.versions = {q for q, lk in sequences.items() if lk == COMMITS}  # COMMITS: a version)
        self.guards = guards  # the claim's (empty: unknown; the prover's first walk)
        self.count = {w: r for r, w in readers.items()}
        self.writer = {w: r for r, w in readers.items() if r not in mutexes}  # W tests R
        self.tickets = tickets  # a ticket lock S -> its dispenser, modulus and cap
        self.caps = {k.cap: k.limit for k in tickets.values() if k.cap}
        self.lockish = locks | set(readers) | set(mutexes.values()) | set(sequences) | set(
            tickets) | {k.next for k in tickets.values()} | set(self.caps)
        self.held_at: dict[tuple[str, bool], frozenset[str]] = {}  # (global, a write) ->
        self.written: set[str] = set()  # the locks held at every such touch
        # for the prover's deadlock report only (the claim does not read them): the pairs
        # (lock held, lock acquired), and whether a request may wait on anything else
        self.order: set[tuple[str, str]] = set()
        self.other_waits = False
        self.visits = 0  # statements followed, on all paths (MAX_VISITS)
        self.single = False  # a request that only reads one global once (`touched`)
        self.quiet: set[str] = set()  # versions whose guarded globals a commit writes unraised
        self.tree = tree  # lock coupling: each lock but the root -> its parent (`coupled`)
        self.under: dict[str, frozenset[str]] = {}  # for the prover: the locks held at
        # every acquisition of a lock that is not its path's first

    def fail(self, why: str, e: Expr) -> CheckerError:
        return invalid("E-LOCKING", f"request {self.request}: {why} (at `{expr_text(e)[:80]}`)")

    def touch(self, g: str, st: State, write: bool = False) -> None:
        if g in self.lockish and (write or g not in st.commit | st.seen):
            raise self.fail(f"lock {g} is read or written outside an acquisition or release",
                            ("var", g))
        if self.single:  # its read is an instant of its own: no guard asked (`touched`)
            return
        held = st.held | (frozenset() if write else st.freed)  # a step is atomic: a read
        mark = held | st.commit | FREE | {w + SHARED for r, w in self.readers.items()
                                          if r in held or w in held} | {
            q + SHARED for q, lk in self.sequences.items()
            if {q, lk} & held or st.pending(q) or q in st.commit | st.seen}  # fmt: skip
        self.held_at[g, write] = self.held_at.get((g, write), mark) & mark

    def bare(self, g: str, st: State) -> State:
        """The path after reading g: a version, or what one guards, read neither in its
        step's commit nor between a read of the version and its validation, is read in
        an instant that this step holds (released at its end)."""
        q = g if g in self.versions else self.guards.get(g, "")
        if q not in self.versions or q in st.commit | st.seen or st.pending(q):
            return st
        if st.released:
            raise self.fail(f"reads {g} after a release", ("var", g))
        return replace(st, seen=st.seen | {q})

    def acquired(self, loop: Expr, then: Expr, env: dict[str, int], drain: Expr = ZERO
                 ) -> tuple[str, list[Expr], int] | None:  # fmt: skip
        """(what is taken, the other tests, statements) when `loop; then` is an acquisition
        (rules 2, 3, 7, 9) once the `if`s the path's locals settle are taken; a writer of a
        readers-writer lock may wait for `R > 0` to fail right after (`drain`)."""
        if loop[0] != "while" or loop[2] != ("yield",):
            return None
        then, tests = _resolve(then, env), _operands(_resolve(loop[1], env), "||")
        if then[0] != "assign" or any(n[0] not in ("int", "var", "bin", "not", "neg")
                                      for c in tests for n in nodes(c)):  # fmt: skip
            return None
        taken = then[1]
        if taken in self.locks and then[2] == ("int", 1):
            need = [_held(taken, ("==", ("int", 1)))] + (
                [_held(self.writer[taken], (">", ("int", 0)))] if taken in self.writer else [])
        elif taken in self.readers and taken not in self.mutexes and \
                then[2] == ("bin", "+", ("var", taken), ("int", 1)):  # fmt: skip
            need = [_held(self.readers[taken], ("==", ("int", 1)))]
        elif taken in self.caps and then[2] == _raise(taken):  # a ticket's slot
            need = [(("bin", "==", ("var", taken), ("int", self.caps[taken])),
                     ("bin", ">=", ("var", taken), ("int", self.caps[taken])))]
        elif self.sequences.get(taken) == "" and then[2] == _raise(taken):
            odd = ("bin", "%", ("var", taken), ("int", 2))  # in a write: odd
            need = [(("bin", "==", odd, ("int", 1)), ("bin", "!=", odd, ("int", 0)), odd)]
        else:
            return None
        found = [next((c for c in tests if c in forms), None) for forms in need]
        late = taken in self.writer and found[1:] == [None] and drain[0] == "while" and drain[
            2] == ("yield",) and _resolve(drain[1], env) in need[1]  # W set, readers drain
        if None in found[:1 if late else 2] or taken in self.caps and len(tests) > 1:
            return None
        return taken, [c for c in tests if c not in found], 3 if late else 2

    def run(self, e: Expr, states: list[State]) -> list[State]:
        """The paths after `e` from `states` (deduplicated, at most MAX_PATHS at each
        statement); an acquisition is read on each path with the `if`s its locals settle
        (`while (Lock[k] == 1) { yield }; Lock[k] := 1`, an index chosen by input)."""
        parts = _stmts(e)
        at: list[dict[State, None]] = [{} for _ in range(len(parts) + 1)]
        at[0] = dict.fromkeys(states)
        for i, s in enumerate(parts):
            if len(at[i]) > MAX_PATHS:
                raise self.fail(f"more than {MAX_PATHS} paths", s)
            self.visits += len(at[i])
            if self.visits > MAX_VISITS:
                raise self.fail(f"more than {MAX_VISITS:,} statements followed on its paths",
                                s)
            block = self.block(parts, i) if at[i] else None
            if block is not None:  # an entry to or exit from a counted readers' count
                for st in at[i]:
                    at[block[0]][self.counted(block[1], block[2], st, s)] = None
                continue
            for st in at[i]:
                # a readers' count changes only where its value is dropped: never in the
                # last statement (its value is the sequence's: a read of the count)
                got = self.acquired(s, parts[i + 1], dict(st.env), parts[i + 2] if i + 2 < len(
                    parts) else ZERO) if i + 1 < len(parts) else None  # fmt: skip
                if got is not None and got[0] in self.readers and len(parts) < i + 3:
                    got = None
                if got is None and i + 1 < len(parts) and s[0] == "assign" and \
                        s[1] in self.writer.values() and s[1] in st.held and \
                        s[2] == ("bin", "-", ("var", s[1]), ("int", 1)):  # fmt: skip
                    at[i + 1][replace(st, held=st.held - {s[1]}, released=True,
                                      wrote=True)] = None  # a reader's release
                    continue
                if got is None and i + 1 < len(parts) and (turn := self.turn(
                        s, parts[i + 1], st)) is not None:  # fmt: skip
                    at[i + turn[0]][turn[1]] = None
                    continue
                if got is None and i + 1 < len(parts) and s[0] == "assign" and \
                        s[1] in self.sequences and s[1] not in self.versions and \
                        s[2] == _raise(s[1]):  # fmt: skip
                    at[i + 1][self.raised(s[1], st, s)] = None
                    continue
                if got is None:
                    at[i + 1].update(dict.fromkeys(self.node(s, st)))
                    continue
                lock, tests, n = got
                after = self.take(lock, self.stepping(st, s), s)
                for c in tests:  # read in the step that takes the lock: under it
                    self.unstepped(self.run(c, [after]), c)
                at[i + n][after] = None
                self.other_waits |= bool(tests) or n > 2
        return list(at[-1])

    def turn(self, s: Expr, then: Expr, st: State) -> tuple[int, State] | None:
        """(statements it takes, the path after) when `s` (`then` next) takes a ticket of
        S, `t := T; T := (T + 1) % N` (or `T := (t + 1) % N`; `T + 1` with no modulus),
        holding a slot of its cap if it has one and no other ticket; gives S back, `S :=
        (S + 1) % N`, holding it; or gives back a slot of a cap, `Q := Q - 1`, neither
        holding S nor waiting for it. None when it is none of these."""
        for q, k in self.tickets.items():
            if _advances(s, q, q, k.modulus) and q in st.held:
                return 1, replace(st, held=st.held - {q}, released=True, wrote=True)
            if s[0] == "assign" and is_local(s[1]) and s[2] == ("var", k.next) and (
                    _advances(then, k.next, k.next, k.modulus) or
                    _advances(then, k.next, s[1], k.modulus)):  # fmt: skip
                if st.ticket or q in st.held or k.cap and k.cap not in st.held:
                    raise self.fail(f"takes a ticket of {q} without a slot of {k.cap or q}, "
                                    "holding it, or with a ticket already", s)
                return 2, replace(st.set(s[1], None), ticket=((q, s[1]),), wrote=True)
            if k.cap and s == ("assign", k.cap, ("bin", "-", ("var", k.cap), ("int", 1))) \
                    and k.cap in st.held and q not in st.held and not st.ticket:
                return 1, replace(st, held=st.held - {k.cap}, wrote=True)
        return None

    def waited(self, e: Expr, st: State) -> State | None:
        """The path after `while (S != t) { yield }` waits for its ticket t of S: it holds
        S (an acquisition); None when `e` is no such wait."""
        for q, lo in st.ticket:
            if e[0] == "while" and e[2] == ("yield",) and e[1] in (
                    ("bin", "!=", ("var", q), ("var", lo)), ("bin", "!=", ("var", lo), ("var", q))):
                self.other_waits = True  # a ticket out is a place in a queue: no order of locks
                return replace(self.take(q, self.stepping(st, e), e), ticket=())
        return None

    def take(self, lock: str, st: State, at: Expr) -> State:
        """The path after it acquires `lock` (a lock, or a readers' count: W shared)."""
        pair = {lock, self.readers.get(lock, ""), self.count.get(lock, "")}
        if pair & st.held or st.released and self.tree is None:
            why = "holds it already" if pair & st.held else "released a lock before"
            raise self.fail(f"acquires lock {lock} but {why}", at)
        self.order |= {(self.readers.get(h, h), self.readers.get(lock, lock)) for h in st.held}
        st = st if self.tree is None else self.coupled(lock, st, at)
        return replace(st, held=st.held | {lock}, wrote=st.wrote or lock in self.readers)

    def coupled(self, lock: str, st: State, at: Expr) -> State:
        """Rule 11 (the tree protocol): a path takes its first lock anywhere, each later
        one while it holds that lock's parent in the tree (None: not asked, the prover's
        first walk), and no lock twice."""
        up = (self.tree or {}).get(lock, "")
        if lock in st.taken or st.taken and up is not None and up not in st.held:
            why = "twice" if lock in st.taken else "not holding its parent " + (
                up or "(none: the root)")
            raise self.fail(f"takes lock {lock} {why}", at)
        if st.taken:
            self.under[lock] = self.under.get(lock, st.held) & st.held
        return replace(st, taken=st.taken | {lock})

    def tried(self, e: Expr, st: State) -> list[State] | None:
        """The paths of `if (L == 0) { L := 1; ... } else { ... }` (a test-and-set: `L !=
        1`, `!L` too, or `L == 1` and the branches swapped) for a lock L that no readers
        share: the branch that sets L acquires it in the step of the test; the other is
        a failed test, which must fail its round of a retry loop (as a failed
        validation). None when `e` is no such `if`."""
        c, env = _resolve(e[1], dict(st.env)), dict(st.env)
        for lock in sorted(self.locks - set(self.count)):
            free = c in (("bin", "==", ("var", lock), ("int", 0)),
                         ("bin", "!=", ("var", lock), ("int", 1)), ("not", ("var", lock)))
            if not free and c not in _held(lock, ("==", ("int", 1))):
                continue
            won, lost = (e[2], e[3]) if free else (e[3], e[2])
            parts = _stmts(won)
            if _resolve(parts[0], env) != ("assign", lock, ("int", 1)):
                return None
            after = self.take(lock, self.stepping(st, e), e)
            rest = self.run(_seq(parts[1:]), [after]) if parts[1:] else [after]
            return _join(rest + self.run(lost, [replace(st, torn=True)]))
        return None

    def block(self, parts: list[Expr], i: int) -> tuple[int, str, bool] | None:
        """(the index after it, R, an entry) when `parts[i:]` begins with an entry to or
        an exit from R counted under its mutex M (rule 3: `M := 1; R := R + 1; if (R ==
        1) { <take W> } else { 0 }; M := 0`, or the exit's `R := R - 1; if (R == 0) { W :=
        0 } ...`); None when no such mutex is taken there; E-LOCKING when otherwise."""
        loop = parts[i]
        taken = [(r, m) for r, m in self.mutexes.items() if loop[0] == "while" and any(
            n == ("var", m) for n in nodes(loop[1]))]  # fmt: skip
        if not taken:
            return None
        (r, m), w = taken[0], self.readers[taken[0][0]]
        end = next((j for j in range(i + 1, len(parts)) if parts[j] == ("assign", m,
                                                                        ("int", 0))), None)
        inner = [p for p in parts[i + 2:end] if p != ("yield",)] if end else []
        tests = _operands(loop[1], "||")
        own = [c for c in tests if c in _held(m, ("==", ("int", 1)))]
        up, down = (("assign", r, ("bin", op, ("var", r), ("int", 1))) for op in "+-")
        take = ("seq", ("while", _held(w, ("==", ("int", 1)))[0], ("yield",)),
                ("assign", w, ("int", 1)))
        give = ("assign", w, ("int", 0))

        def when(k: int, then: Expr) -> Expr:
            return ("if", ("bin", "==", ("var", r), ("int", k)), then, ("int", 0))

        forms = {True: ([up, when(1, take)], [when(0, take), up]),
                 False: ([down, when(0, give)], [when(1, give), down])}
        entry = next((e for e, pair in forms.items() if inner in pair), None)
        more = [c for c in tests if c not in own]
        if end is None or loop[2] != ("yield",) or len(own) != 1 or parts[i + 1] != (
                "assign", m, ("int", 1)) or entry is None or more and not entry or any(
                n[0] == "bin" and n[1] in ("/", "%") or n[0] == "var" and n[1] != r
                or fold(_at_zero(c, r), {}) != 0 for c in more for n in nodes(c)):  # fmt: skip
            raise self.fail(f"mutex {m} is taken other than to enter or leave {r}'s "
                            f"readers", loop)
        self.other_waits |= bool(more)
        return end + 1, r, entry

    def counted(self, r: str, entry: bool, st: State, at: Expr) -> State:
        """The path after entering (R held: W shared) or leaving R's readers."""
        m, w = self.mutexes[r], self.readers[r]
        st = self.stepping(st, at)
        if entry and ({r, w} & st.held or st.released) or not entry and r not in st.held:
            why = "holds it already or released a lock" if entry else "has not entered"
            raise self.fail(f"{'enters' if entry else 'leaves'} {r}'s readers but {why}", at)
        held = [self.readers.get(h, h) for h in st.held]
        self.order |= {(h, m) for h in held} | ({(h, w) for h in held} | {(m, w)}
                                                if entry else set())  # fmt: skip
        return replace(st, held=st.held | {r} if entry else st.held - {r},
                       released=st.released or not entry, wrote=True)

    def raised(self, q: str, st: State, at: Expr) -> State:
        """The path after `S := S + 1`, its value dropped: out of its write if in it, else
        into it, holding S's lock (a sequence with no lock: by the acquisition only)."""
        if q in st.held:
            return replace(st, held=st.held - {q}, released=True, wrote=True)
        if self.sequences[q] not in st.held or st.released or any(q == a for a, _ in st.snap):
            raise self.fail(f"raises sequence {q} without its lock {self.sequences[q] or q}, "
                            "after a release, or while it reads it", at)
        return replace(st, held=st.held | {q}, wrote=True)

    def snapshot(self, name: str, q: str, st: State, at: Expr) -> State:
        """The path after `s := S`: s holds a read of S to validate (`validated`), from
        the start of the step if the step read what S guards already; or, for a version
        read again in its step's commit, or while a read of it waits to be validated, s
        holds its value in this step."""
        if any(name == lo for _, lo in st.snap):
            raise self.fail(f"sets {name}, which holds a read of a sequence to validate", at)
        if q in self.versions and (q in st.commit or st.pending(q)):
            return replace(st.set(name, None), same=st.same + ((q, name),))
        if {q, self.sequences[q]} & st.held or st.released and q not in st.seen or \
                st.pending(q):  # fmt: skip
            raise self.fail(f"reads sequence {q} in its write, under its lock, after a "
                            "release, or while it validates another read of it", at)
        return replace(st.set(name, None), snap=st.snap + ((q, name),), seen=st.seen - {q})

    def atom(self, a: Expr, st: State, neg: bool) -> tuple[str, str, bool] | None:
        """(S, s, a parity test) when `a` is `S == s` (either order; for a version, `c ==
        s` with c read from S in this step) or `s % 2 == 0`, for a read (S, s) to
        validate; negated (`!=`, `s % 2 == 1`, `s % 2 != 0`) when `neg`."""
        for q, lo in st.snap:
            now, s = [("var", q)] + [("var", c) for v, c in st.same if v == q], ("var", lo)
            if a[0] == "bin" and a[1] == ("!=" if neg else "==") and s in a[2:] and any(
                    x in a[2:] for x in now) or q in self.versions and a in [  # V only grows:
                    f for x in now for f in ((("bin", "<", s, x), ("bin", ">", x, s)) if neg
                                             else (("bin", ">=", s, x), ("bin", "<=", x, s)))]:
                return q, lo, False  # s >= V is s == V
            odd = ("bin", "%", ("var", lo), ("int", 2))
            if a in ([("bin", "==", odd, ("int", 1)), ("bin", "!=", odd, ("int", 0))] if neg
                     else [("bin", "==", odd, ("int", 0))]):  # fmt: skip
                return q, lo, True
        return None

    def validated(self, c: Expr, st: State) -> tuple[State, State] | None:
        """The paths where `c` holds and where it does not, when `c` validates reads (S,
        s) to validate: a conjunction of `S == s` (either order; a version's value read
        in this step in place of S) and, for a sequence, `s % 2 == 0`, for each, or its
        negation, a disjunction of `S != s`, `s % 2 == 1` (or `!= 0`); None when it is
        no such test. Where it holds, a version's validated read commits (this step holds
        the version: it may write what it guards), a sequence's ends its hold (a release)."""
        c = _resolve(c, dict(st.env))
        for neg in (False, True):  # a conjunction of tests, else a negated one (`S != s`)
            found = [self.atom(n, st, neg) for n in _operands(c, "||" if neg else "&&")]
            if None not in found:
                break
        else:
            return None
        atoms = [a for a in found if a is not None]
        done = {(q, lo) for q, lo, parity in atoms if not parity}
        even = {(q, lo) for q, lo, parity in atoms if parity}
        if not done and even:  # `if (s % 2 == 0)` before the reads: s even; else torn
            two = replace(st, even=st.even | even), replace(st, torn=True)
            return (two[1], two[0]) if neg else two
        if not done or even - done or any((q, lo) not in even | st.even for q, lo in done
                                          if q not in self.versions):  # fmt: skip
            return None
        if st.released and {q for q, _ in done} & self.versions - st.commit - st.seen:
            raise self.fail("validates a read of a version (a commit) after a release", c)
        rest = tuple(p for p in st.snap if p not in done)
        ok = replace(st, snap=rest, released=st.released or any(
            q not in self.versions for q, _ in done), commit=st.commit | {
            q for q, _ in done if q in self.versions}, same=st.same + tuple(
            p for p in sorted(done) if p[0] in self.versions))  # fmt: skip
        bad = replace(st, snap=rest, torn=True)
        return (bad, ok) if neg else (ok, bad)

    def bumped(self, e: Expr, st: State) -> State:
        """The path after a version's raise `V := V + k` or `V := v + k` (k > 0, v its
        value in this step): a commit of V in this step."""
        q, rhs = e[1], _resolve(e[2], dict(st.env))
        if not (rhs[0] == "bin" and rhs[1] == "+" and rhs[3][0] == "int" and rhs[3][1] > 0
                and (rhs[2] == ("var", q) or any(rhs[2] == ("var", lo) for v, lo in st.same
                                                 if v == q))):  # fmt: skip
            raise self.fail(f"writes version {q} other than by raising it", e)
        if st.released and q not in st.commit | st.seen:
            raise self.fail(f"raises version {q} after a release", e)
        return replace(st, commit=st.commit | {q}, raised=st.raised | {q}, owed=st.owed - {q},
                       same=tuple(p for p in st.same if p[0] != q), wrote=True)

    def stepping(self, st: State, at: Expr) -> State:
        """The path before a lock's acquisition or a loop, which may yield where the walk
        does not follow: not in a step that holds a version, and with no local known to
        hold a version's value (a read of this step, maybe no more)."""
        if st.commit | st.seen | st.owed:
            raise self.fail("takes a lock or loops in a step that reads or commits a "
                            "version", at)
        return st.stepped()

    def node(self, e: Expr, st: State) -> list[State]:
        tag = e[0]
        if tag == "var" and not is_local(e[1]):
            st = self.bare(e[1], st)
            self.touch(e[1], st)
        if tag == "yield" and st.owed - st.commit:
            raise self.fail(f"writes what version {sorted(st.owed)[0]} guards in a step that "
                            "does not raise it", e)
        if tag == "yield":
            self.quiet |= st.owed  # what it guards is then touched only in its commits
            return [st.stepped()]
        if tag in ("int", "nd", "var"):
            return [st]
        if tag == "exit":
            raise self.fail("may reach exit (a failed assert or an index out of range)", e)
        if tag == "assign" and e[1] in st.held and e[1] in self.locks and e[2] == ("int", 0):
            if writing := sorted(q for q, lk in self.sequences.items() if lk == e[1] and q in
                                 st.held):  # fmt: skip
                raise self.fail(f"releases {e[1]} in the write of sequence {writing[0]}", e)
            return [replace(st, held=st.held - {e[1]}, released=True, freed=st.freed | {e[1]})]
        if tag == "assign" and is_local(e[1]) and (read := _resolve(e[2], dict(st.env)))[
                0] == "var" and read[1] in self.sequences:  # fmt: skip
            return [self.snapshot(e[1], read[1], st, e)]
        if tag == "assign" and e[1] in self.versions:
            return [self.bumped(e, st)]
        if tag == "assign" and is_local(e[1]) and (two := self.validated(e[2], st)):
            return [two[0].set(e[1], 1), two[1].set(e[1], 0)]
        if tag == "while" and (waited := self.waited(e, st)) is not None:
            return [waited]
        if tag == "if" and (tried := self.tried(e, st)) is not None:
            return tried
        if tag == "if" and (two := self.validated(e[1], st)):
            return _join(self.run(e[2], [two[0]]) + self.run(e[3], [two[1]]))
        if tag == "assign":
            return [out for mid in self.run(e[2], [st]) for out in self.assign(e, mid)]
        if tag in ("not", "neg"):
            return self.run(e[1], [st])
        if tag == "bin":
            left = truth(e[2], dict(st.env))  # on the locals before it runs (it may set them)
            return [out for mid in self.run(e[2], [st]) for out in self.right(e, mid, left)]
        if tag == "seq":
            return self.run(e, [st])
        if tag == "if":
            c = truth(e[1], dict(st.env))  # on the locals before the test runs
            return [out for mid in self.run(e[1], [st]) for out in self.branch(e, mid, c)]
        return self.loop(e, st)

    def right(self, e: Expr, st: State, left: bool | None) -> list[State]:
        """The paths after a binary operation's right operand, its left one evaluated:
        `&&` and `||` run it only when the left one does not decide (both ways when its
        value is unknown); `/` and `%` only by a divisor known not to be 0."""
        env = dict(st.env)
        if e[1] in ("/", "%") and not fold(e[3], env):
            raise self.fail("divides by what may be 0", e)
        if e[1] not in ("&&", "||"):
            return self.run(e[3], [st])
        if left is None:
            return _join([st, *self.run(e[3], [st])])
        return [st] if (not left) == (e[1] == "&&") else self.run(e[3], [st])

    def assign(self, e: Expr, st: State) -> list[State]:
        name, rhs = e[1], e[2]
        if not is_local(name):
            self.touch(name, st, write=True)
            self.written.add(name)
            q = self.guards.get(name, "")
            owed = {q} if q in self.versions and q not in st.raised else set()
            return [replace(st, wrote=True, owed=st.owed | owed)]
        if any(name == lo for _, lo in st.snap + st.ticket):
            raise self.fail(f"sets {name}, which holds a read of a sequence to validate or "
                            "a ticket to wait for", e)
        if rhs[0] == "nd" and rhs[2] - rhs[1] < MAX_FORK:
            return [st.set(name, v) for v in range(rhs[1], rhs[2] + 1)]
        return [st.set(name, fold(rhs, dict(st.env)))]

    def branch(self, e: Expr, st: State, c: bool | None) -> list[State]:
        if c is not None:
            return self.run(e[2] if c else e[3], [st])
        return _join(self.run(e[2], [st]) + self.run(e[3], [st]))

    def loop(self, e: Expr, st: State) -> list[State]:
        """A loop that is no acquisition: with a lock in it, a retry (`retry`); else its
        body followed once from the locals it does not set (each round starts there,
        whatever earlier rounds did)."""
        self.other_waits = True
        st = self.stepping(st, e)
        if any(n[0] in ("var", "assign") and n[1] in self.lockish for n in nodes(e)):
            unrolled = self.unrolled(e, st)
            return self.retry(e, st) if unrolled is None else unrolled
        set_here = {n[1] for n in nodes(e) if n[0] == "assign" and is_local(n[1])}
        start = replace(st, env=tuple((k, v) for k, v in st.env if k not in set_here),
                        assigned=st.assigned | set_here, must=st.must, wrote=st.wrote or any(
                            n[0] == "assign" and not is_local(n[1]) for n in nodes(e)))
        self.unstepped(self.run(e[2], self.unstepped(self.run(e[1], [start]), e)), e)
        return [start]

    def unrolled(self, e: Expr, st: State) -> list[State] | None:
        """The paths after a loop whose test reads locals that the path knows and each
        round changes (`while (p < 16) { ...; p := p + 1 }`): its rounds followed one by
        one, as the program runs them (at most MAX_ROUNDS). None when a round may leave
        them as they were (a retry's failed round) or a test is unknown."""
        reads = {n[1] for n in nodes(e[1]) if n[0] == "var"}
        paths, out = [st], list[State]()
        for _ in range(MAX_ROUNDS):
            if not reads or any(not is_local(x) for x in reads) or len(paths) > MAX_PATHS:
                return None
            go: list[State] = []
            for p in paths:
                if (c := truth(e[1], dict(p.env))) is None:
                    return None
                (go if c else out).append(p)
            if not go:
                return list(dict.fromkeys(out))
            paths = []
            for p in go:
                for q in self.run(e[2], [p]):
                    if all(dict(q.env).get(x) == dict(p.env).get(x) for x in reads):
                        return None
                    paths.append(q)
        return None

    def unstepped(self, states: list[State], at: Expr) -> list[State]:
        """`states`, the paths through what runs again at each test of a loop (its test,
        its body, an acquisition's other tests), in steps the walk does not follow: none
        reads what a version guards bare there (each round would be an instant of its
        own), which the walk would lose."""
        if any(st.seen for st in states):
            raise self.fail("reads what a version guards, bare, in a loop or in the test "
                            "of an acquisition", at)
        return states

    def retry(self, e: Expr, st: State) -> list[State]:
        """A retry loop (rule 6), each round followed from the path as it enters: a failed
        round (no global written but by taking and giving back locks, every live local
        as it was) is taken out of the run; any other round must end the loop, its reads
        validated, setting every local a failed round may set. The paths after: those."""
        if any(n[0] not in ("int", "var", "bin", "not", "neg") or n[0] == "var" and not
               is_local(n[1]) for n in nodes(e[1])) or st.snap:  # fmt: skip
            raise self.fail("a loop other than an acquisition touches a lock and tests a "
                            "global, or begins with a read of a sequence to validate (it is "
                            "no retry loop)", e)
        entered, live, was = truth(e[1], dict(st.env)), live_locals(e), dict(st.env)
        out, ends, dead = [] if entered else [st], [], set[str]()
        if entered is False:
            return out
        fresh = replace(st, wrote=False, assigned=frozenset(), must=frozenset(), torn=False)
        for end in self.run(e[2], self.run(e[1], [fresh])):
            now = dict(end.env)
            if not end.wrote and all(lo not in live or lo in was and now.get(lo) == was[lo]
                                     for lo in end.assigned):  # fmt: skip
                if end.held != st.held:
                    raise self.fail("a failed round of a loop ends holding other locks than "
                                    "it began with", e)
                dead |= end.assigned - live
                continue
            if truth(e[1], now) is not False or end.snap or end.torn:
                raise self.fail("a round of a loop that takes locks and changes a value "
                                "may not end the loop, or ends it without validating its "
                                "reads of a sequence, or after a failed validation or try "
                                "of a lock", e)
            ends.append(end)
        for end in ends:
            if missing := sorted(dead - end.must):
                raise self.fail(f"a failed round sets {missing[0]}, which the round that "
                                "ends the loop may not set", e)
            out.append(replace(end, wrote=st.wrote or end.wrote, torn=st.torn,
                               assigned=st.assigned | end.assigned, must=st.must | end.must))
        return out


def _operands(e: Expr, op: str) -> list[Expr]:
    """The operands of `e` joined by `op` (`||` or `&&`), in order, however they nest."""
    out, todo = [], [e]
    while todo:
        n = todo.pop()
        if n[0] == "bin" and n[1] == op:
            todo += [n[3], n[2]]
        else:
            out.append(n)
    return out


def _held(lock: str, test: tuple[str, Expr]) -> tuple[Expr, ...]:
    """The spellings of "`lock` is held": `lock == 1` (or, as `test` says, `lock > 0`),
    `lock != 0`, `lock > 0`, `lock`."""
    return (("bin", test[0], ("var", lock), test[1]), ("bin", "!=", ("var", lock), ("int", 0)),
            ("bin", ">", ("var", lock), ("int", 0)), ("var", lock))


def _seq(parts: list[Expr]) -> Expr:
    """The statements `parts` in sequence (at least one)."""
    out = parts[-1]
    for p in reversed(parts[:-1]):
        out = ("seq", p, out)
    return out


def _advances(s: Expr, target: str, source: str, modulus: int) -> bool:
    """Is `s` `target := (source + 1) % modulus` (`source + 1` with no modulus, 0), or
    `if (source == modulus - 1) { target := 0 } else { target := source + 1 }`?"""
    step = ("assign", target, _raise(source))
    return s == ("assign", target, ("bin", "%", _raise(source), ("int", modulus))
                 if modulus else _raise(source)) or modulus > 0 and s == (
        "if", ("bin", "==", ("var", source), ("int", modulus - 1)),
        ("assign", target, ("int", 0)), step)


def _raise(q: str) -> Expr:
    """`S + 1`: a sequence's only write."""
    return ("bin", "+", ("var", q), ("int", 1))


def _at_zero(e: Expr, r: str) -> Expr:
    """`e` with the global `r` read as 0 (any other global or local: unsettled)."""
    if e == ("var", r):
        return ("int", 0)
    if e[0] == "bin":
        return ("bin", e[1], _at_zero(e[2], r), _at_zero(e[3], r))
    return (e[0], _at_zero(e[1], r)) if e[0] in ("not", "neg") else e


def _join(states: list[State]) -> list[State]:
    """Paths that hold the same locks (and agree but on locals), merged: the locals they
    agree on stay known; a local that one of them may have assigned, the merge may have,
    and one that each of them must have, the merge must have."""
    groups: dict[tuple[Any, ...], list[State]] = {}
    for st in states:
        key = (st.held, st.released, st.wrote, st.snap, st.torn, st.commit, st.seen, st.raised,
               st.owed, st.same, st.ticket, st.taken, st.even, st.freed)
        groups.setdefault(key, []).append(st)
    return [replace(same[0], env=tuple(sorted(set.intersection(*(set(st.env) for st in same)))),
                    assigned=frozenset().union(*(st.assigned for st in same)),
                    must=frozenset.intersection(*(st.must for st in same)))
            for same in groups.values()]


