"""Two-phase locking (docs/certificates.md, "Two-phase locking"): a Ser program is
serializable when each of its requests takes locks before it releases any, and touches
every global that some request writes only while it holds that global's lock.

The claim names the locks and, for each global written anywhere, its guard. Checked here,
from the checker's own parse, on every path of every request (a path forks at a local's
choice and at an `if` its known locals settle; other branches are both followed):

- a lock starts at 0 and is touched only by an acquisition `while (L == 1) { yield };
  L := 1` (or `L != 0`, `L > 0`, `L` as the test) while the request does not hold it and
  has released no lock, and by a release `L := 0` while it holds it;
- a global that is neither a lock nor guarded is written by no request;
- a read or write of a guarded global happens while the request holds its guard;
- no `exit` (a failed `assert`, an index out of range) is left on a path, and locks are
  touched in no other loop.

Why it is sound. Read a finished run as the sequence of its requests' actions (each read
or write of a global; a step is a stretch of one request's actions). A lock is 1 exactly
while one request holds it, so two requests' holds of the same lock are disjoint stretches
of the run. A failed test of an acquisition's loop reads the lock, writes nothing and
leaves its request where it was, at the loop with the same locals: take those tests out,
and what remains is still each request's own sequential run, reading the same values.
Two actions of different requests then conflict only through a lock or a guarded global,
which both requests hold there; if the first request's action comes first, it releases
that lock before the second acquires it, so its last acquisition (every acquisition
precedes every release) comes before the second's. Every conflict thus goes the way of the
requests' last acquisitions (a request with none touches no global that is written), and
the run is equivalent to the requests run one at a time in that order: each action reads
what it read, so each request answers what it answered. An action that faults is a dead
end, as in the serial search: it is in no finished run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from checker.certificate import Limits
from checker.errors import CheckerError, invalid
from checker.model import Expr, expr_text, is_local, mk_bin, mk_un, nodes
from checker.program import parse_program

MAX_PATHS = 4096  # paths of one request at a time
MAX_FORK = 64  # values of a choice followed one by one (a wider choice: an unknown local)
FREE = frozenset({"free"})  # where a global that no request writes may be read


@dataclass(frozen=True)
class State:
    """One path: its known locals, the locks it holds, whether it released one."""

    env: tuple[tuple[str, int], ...]
    held: frozenset[str]
    released: bool


def _fold(e: Expr, env: dict[str, int]) -> int | None:
    """The value of `e` if literals and known locals settle it (no global, no effect)."""
    if e[0] in ("int", "var"):
        return e[1] if e[0] == "int" else env.get(e[1]) if is_local(e[1]) else None
    if e[0] in ("not", "neg"):
        a = _fold(e[1], env)
        return None if a is None else mk_un(e[0], ("int", a))[1]
    if e[0] != "bin" or e[1] in ("&&", "||"):  # quirk Q1 folds them: left unsettled
        return None
    a, b = _fold(e[2], env), _fold(e[3], env)
    try:
        return None if a is None or b is None else mk_bin(e[1], ("int", a), ("int", b))[1]
    except CheckerError:  # a fault: the path is a dead end, not settled here
        return None


def _resolve(e: Expr, env: dict[str, int]) -> Expr:
    """`e` with the `if`s that known locals settle taken, at its top and in its operands
    (`if (k == 0) { L[0] } else { ... } == 1` is `L[0] == 1` at k = 0)."""
    while e[0] == "if" and (c := _fold(e[1], env)) is not None:
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


class _Walk:
    """The paths of one request: where each global is touched, with which locks held."""

    def __init__(self, request: str, locks: frozenset[str]) -> None:
        self.request, self.locks = request, locks
        self.held_at: dict[str, frozenset[str]] = {}  # global -> locks held at every touch
        self.written: set[str] = set()

    def fail(self, why: str, e: Expr) -> CheckerError:
        return invalid("E-LOCKING", f"request {self.request}: {why} (at `{expr_text(e)[:80]}`)")

    def touch(self, g: str, st: State) -> None:
        if g in self.locks:
            raise self.fail(f"lock {g} is read or written outside an acquisition or release",
                            ("var", g))
        self.held_at[g] = self.held_at.get(g, st.held | FREE) & (st.held | FREE)

    def acquired(self, loop: Expr, then: Expr, env: dict[str, int]) -> str | None:
        """L when `loop; then` is `while (L == 1) { yield }; L := 1` (or its other tests)
        once the `if`s that the path's locals settle are taken."""
        if loop[0] != "while" or loop[2] != ("yield",):
            return None
        c, then = _resolve(loop[1], env), _resolve(then, env)
        lock = c[1] if c[0] == "var" else c[2][1] if c[0] == "bin" and c[2][0] == "var" and (
            c[1], c[3]) in (("==", ("int", 1)), ("!=", ("int", 0)), (">", ("int", 0))) else None
        return lock if lock in self.locks and then == ("assign", lock, ("int", 1)) else None

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
            for st in at[i]:
                env = dict(st.env)
                lock = self.acquired(s, parts[i + 1], env) if i + 1 < len(parts) else None
                if lock is None:
                    at[i + 1].update(dict.fromkeys(self.node(s, st)))
                elif lock in st.held or st.released:
                    why = "holds it already" if lock in st.held else "released a lock before"
                    raise self.fail(f"acquires lock {lock} but {why}", s)
                else:
                    at[i + 2][State(st.env, st.held | {lock}, False)] = None
        return list(at[-1])

    def node(self, e: Expr, st: State) -> list[State]:
        tag = e[0]
        if tag == "var" and not is_local(e[1]):
            self.touch(e[1], st)
        if tag in ("int", "nd", "var", "yield"):
            return [st]
        if tag == "exit":
            raise self.fail("may reach exit (a failed assert or an index out of range)", e)
        if tag == "assign":
            return [out for mid in self.run(e[2], [st]) for out in self.assign(e, mid)]
        if tag in ("not", "neg"):
            return self.run(e[1], [st])
        if tag == "bin":
            return self.run(e[3], self.run(e[2], [st]))
        if tag == "seq":
            return self.run(e, [st])
        if tag == "if":
            return [out for mid in self.run(e[1], [st]) for out in self.branch(e, mid)]
        return self.loop(e, st)

    def assign(self, e: Expr, st: State) -> list[State]:
        name, rhs = e[1], e[2]
        if not is_local(name):
            if name in self.locks and rhs == ("int", 0) and name in st.held:
                return [State(st.env, st.held - {name}, True)]
            self.touch(name, st)
            self.written.add(name)
            return [st]
        env = {k: v for k, v in st.env if k != name}
        if rhs[0] == "nd" and rhs[2] - rhs[1] < MAX_FORK:
            return [State(tuple(sorted({**env, name: v}.items())), st.held, st.released)
                    for v in range(rhs[1], rhs[2] + 1)]
        value = _fold(rhs, dict(st.env))
        known = env if value is None else {**env, name: value}
        return [State(tuple(sorted(known.items())), st.held, st.released)]

    def branch(self, e: Expr, st: State) -> list[State]:
        c = _fold(e[1], dict(st.env))
        if c is not None:
            return self.run(e[2] if c else e[3], [st])
        return _join(self.run(e[2], [st]) + self.run(e[3], [st]))

    def loop(self, e: Expr, st: State) -> list[State]:
        """A loop that is no acquisition: no lock in it; its body followed once from the
        locals it does not set (each round starts there, whatever earlier rounds did)."""
        if any(n[0] in ("var", "assign") and n[1] in self.locks for n in nodes(e)):
            raise self.fail("a lock is touched in a loop other than an acquisition", e)
        set_here = {n[1] for n in nodes(e) if n[0] == "assign" and is_local(n[1])}
        start = State(tuple((k, v) for k, v in st.env if k not in set_here), st.held,
                      st.released)
        self.run(e[2], self.run(e[1], [start]))
        return [start]


def _join(states: list[State]) -> list[State]:
    """Paths that hold the same locks, merged: the locals they agree on stay known."""
    groups: dict[tuple[frozenset[str], bool], set[tuple[str, int]]] = {}
    for st in states:
        key = (st.held, st.released)
        groups[key] = groups[key] & set(st.env) if key in groups else set(st.env)
    return [State(tuple(sorted(env)), held, rel) for (held, rel), env in groups.items()]


@dataclass
class Footprint:
    """What the requests do with globals and locks, over all their paths."""

    held_at: dict[str, frozenset[str]]  # global -> locks held at every touch ("free" too)
    written: set[str]


def touched(source: str, constants: dict[str, int] | None, locks: frozenset[str]
            ) -> Footprint:  # fmt: skip
    """The requests' footprint; E-LOCKING where the rules fail."""
    initial, requests = parse_program(source, constants)
    if bad := sorted(g for g, _ in initial if g in locks):
        raise invalid("E-LOCKING", f"lock {bad[0]} does not start at 0")
    out = Footprint({}, set())
    for name, body in requests:
        walk = _Walk(name, locks)
        walk.run(body, [State((), frozenset(), False)])
        out.written |= walk.written
        for g, held in walk.held_at.items():
            out.held_at[g] = out.held_at.get(g, held) & held
    return out


def check(data: dict[str, Any]) -> str:
    """The rules above, for the certificate's locks and guards."""
    claim, model = data["locking"], data["model"]
    if model["kind"] != "ser" or data["verdict"] != "serializable":
        raise invalid("E-LOCKING", "two-phase locking proves a Ser program serializable")
    locks, guards = frozenset(claim["locks"]), dict(claim["guards"])
    if len(locks) != len(claim["locks"]) or any(g in locks or lk not in locks
                                                for g, lk in guards.items()):
        raise invalid("E-LOCKING", "the locks repeat, or a guard is no lock or is a lock")
    foot = touched(model["source"], model.get("constants"), locks)
    held_at = foot.held_at
    for g in sorted(foot.written | set(guards)):
        if g not in guards:
            raise invalid("E-LOCKING", f"{g} is written but has no guard")
        if guards[g] not in held_at.get(g, frozenset()):
            raise invalid("E-LOCKING", f"{g} is touched without its lock {guards[g]}, or "
                                       "not at all")
    return f"{len(guards)} globals guarded by {len(locks)} locks, taken in two phases"


def locking(data: dict[str, Any], limits: Limits, remaining: Callable[[], float]
            ) -> Iterator[tuple[str, Callable[[], str]]]:  # fmt: skip
    yield "two-phase locking", lambda: check(data)
