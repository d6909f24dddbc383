"""Versions that never wrap (docs/certificates.md, "Versions that never wrap"): a Ser program
whose version globals only grow and are only compared, for equality, with values read from
them, is serializable when its abstraction is. The abstraction takes the versions out: each
version test `V == v` becomes `X == x && ... && ?`, the guarded globals the request read
since it read v compared with the values it read, and a choice, so that the test may fail
where the version's did; reads and writes of the versions become `0`.

Checked here, from the checker's own parse: the rules below, then that the certificate's
abstract program is that abstraction (initial globals and requests, compared as parsed
trees); then the abstract program's certificate is checked alone by `check`.

Why it is sound. Every write of a version V raises it (`V := V + c` or `V := v + c` where the
step knows V == v, c > 0), so V == v at a test means no step wrote V since v was read; each
guarded global X is written only in steps that raise its version, so X too is unchanged
since, and X == x: a run of the program is a run of the abstraction where each `?` takes the
test's value. Alone, a request's version test always holds (it wrote neither V nor X since),
so the abstraction's lone runs where every `?` is 1 are the program's; a `?` that is 0 only
adds a failed round of a retry loop that writes no global and whose locals are dead at the
loop's head, which ends where it began. So each serial outcome of the abstraction is one of
the program. The versions are unbounded integers here: a run that would take one past 2^63
is outside the claim.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from checker.certificate import Limits
from checker.errors import CheckerError, Invalid, Undecided, invalid
from checker.model import (
    ZERO,
    Env,
    Expr,
    expr_text,
    is_local,
    mk_bin,
    mk_if,
    mk_seq,
    mk_un,
    mk_while,
)
from checker.program import parse_program

Path = tuple[int, ...]
Snap = dict[str, tuple[str, frozenset[tuple[str, str]]]]  # l -> (V, {(X, x)})
_MAKE: dict[str, Callable[..., Expr]] = {"bin": mk_bin, "if": mk_if, "while": mk_while,
                                         "seq": mk_seq, "not": lambda a: mk_un("not", a),
                                         "neg": lambda a: mk_un("neg", a)}


@dataclass(frozen=True)
class Facts:
    """What holds at a point of one request (None where no run gets): V == l in this step
    (`eq`); l holds V's value read since, and x X's read at or after it (`snap`); x := X in
    this step (`reads`); the guarded globals this step wrote before raising their version
    (may), and the versions it raised (must)."""

    eq: frozenset[tuple[str, str]] = frozenset()
    snap: tuple[tuple[str, str, frozenset[tuple[str, str]]], ...] = ()
    reads: frozenset[tuple[str, str]] = frozenset()
    owed: frozenset[str] = frozenset()
    raised: frozenset[str] = frozenset()

    def snaps(self) -> Snap:
        return {lo: (v, s) for lo, v, s in self.snap}

    def with_snaps(self, d: Snap) -> Facts:
        return replace(self, snap=tuple(sorted((lo, v, s) for lo, (v, s) in d.items())))


def _join(a: Facts | None, b: Facts | None) -> Facts | None:
    if a is None or b is None:
        return b if a is None else a
    sa, sb = a.snaps(), b.snaps()
    snap = {lo: (v, s & sb[lo][1]) for lo, (v, s) in sa.items() if sb.get(lo, ("",))[0] == v}
    return Facts(a.eq & b.eq, (), a.reads & b.reads, a.owed | b.owed,
                 a.raised & b.raised).with_snaps(snap)


def _conjuncts(c: Expr, p: Path) -> Iterator[tuple[Expr, Path]]:
    if c[0] == "bin" and c[1] == "&&":
        yield from _conjuncts(c[2], p + (2,))
        yield from _conjuncts(c[3], p + (3,))
    else:
        yield c, p


def _at(e: Expr, p: Path) -> Expr:
    for i in p:
        e = e[i]
    return e


class _Scan:
    """One request's body against the versions' rules; what the abstraction needs of it."""

    def __init__(self, request: str, versions: dict[str, list[str]],
                 vlocals: dict[str, str]) -> None:
        self.request, self.vlocals, self.versions = request, vlocals, set(versions)
        self.guard = {x: v for v, xs in versions.items() for x in xs}
        self.sites: dict[Path, frozenset[tuple[str, str]] | None] = {}  # test -> snapshot
        self.valid: dict[Path, tuple[Path, int]] = {}  # test -> (its `if`, failing branch)
        self.problems: set[tuple[str, str]] = set()  # (the global at fault, why)

    def problem(self, name: str, what: str, e: Expr) -> None:
        self.problems.add((name, f"request {self.request}: {what} (at `{expr_text(e)[:60]}`)"))

    def test(self, e: Expr) -> tuple[str, str] | None:  # (V, l) of `V == l`, `l != V`, ...
        if e[0] != "bin" or e[1] not in ("==", "!=") or e[2][0] != "var" or e[3][0] != "var":
            return None
        for g, lo in ((e[2][1], e[3][1]), (e[3][1], e[2][1])):
            if g in self.versions and self.vlocals.get(lo) == g:
                return g, lo
        return None

    def go(self, e: Expr, p: Path, st: Facts | None) -> Facts | None:
        if st is None:
            return None
        tag = e[0]
        if tag == "yield":
            self.step_end(st, e)
            return Facts(snap=st.snap)
        if tag == "exit":
            return None
        if tag == "assign":
            return self.assign(e, self.go(e[2], p + (2,), st))
        if tag == "bin":
            if (vl := self.test(e)) is not None:
                s = st.snaps().get(vl[1])
                self.sites[p] = s[1] if s is not None and s[0] == vl[0] else None
            a = self.go(e[2], p + (2,), st)
            b = self.go(e[3], p + (3,), a)
            return _join(a, b) if e[1] in ("&&", "||") else b
        if tag in ("not", "neg"):
            return self.go(e[1], p + (1,), st)
        if tag == "seq":
            return self.go(e[2], p + (2,), self.go(e[1], p + (1,), st))
        if tag == "if":
            c = self.go(e[1], p + (1,), st)
            then, other = self.assume(e[1], p, c)
            return _join(self.go(e[2], p + (2,), then), self.go(e[3], p + (3,), other))
        if tag == "while":
            head: Facts | None = st
            while True:
                c = self.go(e[1], p + (1,), head)
                after = _join(head, self.go(e[2], p + (2,), c))
                if after == head:
                    return c
                head = after
        return st  # int, var, nd

    def assume(self, c: Expr, p: Path, st: Facts | None) -> tuple[Facts | None, Facts | None]:
        """Facts in the then and else branches of `if (c)`: a version test that is the
        condition or one of its top-level conjuncts (then V == l), or `V != l` alone (else),
        in a condition that neither yields nor assigns."""
        if st is None or any(n[0] in ("yield", "assign") for n in _walk(c)):
            return st, st  # what the test showed may not hold by the time the branch runs
        then, other = st, st
        negated = c[1] if c[0] == "not" and self.test(c[1]) and c[1][1] == "==" else None
        if negated is not None or c[0] == "bin" and c[1] == "!=" and self.test(c):
            t = negated or c
            vl = self.test(t)
            assert vl is not None
            if self.sites.get(path := p + (1,) + ((1,) if negated else ())) is not None:
                self.valid[path] = (p, 2)
                other = replace(st, eq=st.eq | {vl})
            return then, other
        for k, kp in _conjuncts(c, p + (1,)):
            if k[1] == "==" and (vl := self.test(k)) is not None and \
                    self.sites.get(kp) is not None:
                self.valid[kp] = (p, 3)
                then = replace(then, eq=then.eq | {vl})
        return then, other

    def assign(self, e: Expr, st: Facts | None) -> Facts | None:
        if st is None:
            return None
        x, rhs = e[1], e[2]
        snap = st.snaps()
        if is_local(x):
            snap = {lo: (v, frozenset(r for r in s if r[1] != x)) for lo, (v, s) in snap.items()
                    if lo != x}
            reads = frozenset(r for r in st.reads if r[1] != x)
            eq = frozenset(q for q in st.eq if q[1] != x)
            g = rhs[1] if rhs[0] == "var" else ""
            if g in self.versions:
                snap[x] = (g, frozenset(r for r in reads if self.guard.get(r[0]) == g))
                eq |= {(g, x)}
            elif g in self.guard:
                reads |= {(g, x)}
                snap = {lo: (v, s | {(g, x)} if self.guard[g] == v else s)
                        for lo, (v, s) in snap.items()}
            return replace(st, eq=eq, reads=reads).with_snaps(snap)
        if x in self.versions:
            up = rhs[0] == "bin" and rhs[1] == "+" and rhs[2][0] == "var" and \
                rhs[3][0] == "int" and rhs[3][1] > 0 and (rhs[2][1] == x or (x, rhs[2][1]) in st.eq)
            if not up:
                self.problem(x, f"{x} is written with a value not known above its own", e)
            snap = {lo: vs for lo, vs in snap.items() if vs[0] != x}
            return replace(st, eq=frozenset(q for q in st.eq if q[0] != x),
                           owed=frozenset(g for g in st.owed if self.guard[g] != x),
                           raised=st.raised | {x}).with_snaps(snap)
        if x in self.guard:
            snap = {lo: (v, frozenset(r for r in s if r[0] != x)) for lo, (v, s) in snap.items()}
            return replace(st, reads=frozenset(r for r in st.reads if r[0] != x),
                           owed=st.owed | ({x} - {g for g in [x] if self.guard[g] in st.raised})
                           ).with_snaps(snap)
        return st

    def step_end(self, st: Facts | None, e: Expr) -> None:
        for x in sorted(st.owed if st is not None else ()):
            self.problem(x, f"{x} is written in a step that does not raise {self.guard[x]}", e)

    def uses(self, e: Expr, p: Path, stmt: bool, parent: Expr | None, up: Expr | None) -> None:
        """Versions and their locals only in tests, `l := V` and `V := V + c` (or `v + c`),
        assignments as statements; every test at a place `assume` took."""
        tag = e[0]
        if tag == "var" and (e[1] in self.versions or e[1] in self.vlocals):
            v = str(self.vlocals.get(e[1], e[1]))
            ok = parent is not None and (
                self.test(parent) is not None
                or parent == ("assign", parent[1], e) and is_local(parent[1]) and e[1] == v
                or parent[0] == "bin" and parent[1] == "+" and parent[2] is e and up is not None
                and up[0] == "assign" and up[1] == v and up[2] is parent)
            if not ok:
                self.problem(v, f"{e[1]} is used other than in a version test or a raise", e)
        if tag == "assign" and (e[1] in self.versions or e[1] in self.vlocals):
            v = str(self.vlocals.get(e[1], e[1]))
            if not stmt or e[1] in self.vlocals and e[2] != ("var", v):
                self.problem(v, f"{e[1]} is assigned where its value is used, or not from {v}", e)
        if (vl := self.test(e)) is not None and (p not in self.valid or self.sites.get(p) is None):
            self.problem(vl[0], "a version test that is not an `if`'s condition (or a conjunct "
                                "of it), or compares with a value not read since", e)
        kids = [(i, k) for i, k in enumerate(e) if i > 0 and isinstance(k, tuple)]
        for i, k in kids:
            kstmt = (tag == "seq" and (i == 1 or stmt) or tag == "if" and i > 1 and stmt
                     or tag == "while" and i == 2)
            self.uses(k, p + (i,), kstmt, e, parent)


def _assigned(e: Expr) -> tuple[set[str], set[str]]:
    """(locals, globals) that `e` assigns anywhere."""
    loc: set[str] = set()
    glo: set[str] = set()
    todo = [e]
    while todo:
        n = todo.pop()
        if n[0] == "assign":
            (loc if is_local(n[1]) else glo).add(n[1])
        todo.extend(k for k in n[1:] if isinstance(k, tuple))
    return loc, glo


def _first(e: Expr, done: frozenset[str], watch: set[str], bad: set[str]) -> frozenset[str]:
    """The locals of `watch` surely assigned after `e`; those read before it go to `bad`."""
    tag = e[0]
    if tag == "var" and e[1] in watch and e[1] not in done:
        bad.add(e[1])
    if tag == "assign":
        return _first(e[2], done, watch, bad) | {e[1]}
    if tag == "seq":
        return _first(e[2], _first(e[1], done, watch, bad), watch, bad)
    if tag == "if":
        c = _first(e[1], done, watch, bad)
        return _first(e[2], c, watch, bad) & _first(e[3], c, watch, bad)
    if tag == "while":
        c = _first(e[1], done, watch, bad)
        _first(e[2], c, watch, bad)
        return c
    if tag == "bin" and e[1] in ("&&", "||"):
        a = _first(e[2], done, watch, bad)
        _first(e[3], a, watch, bad)
        return a
    for k in e[1:]:
        if isinstance(k, tuple):
            done = _first(k, done, watch, bad)
    return done


def _retry(scan: _Scan, body: Expr, test: Path, at: tuple[Path, int], version: str) -> None:
    """A failing test must end a round of its innermost loop that changes nothing: no global
    written but in the passing branch, and every local it writes dead at the loop's head."""
    p_if, failing = at
    loops = [q for q in (p_if[:i] for i in range(len(p_if), -1, -1))
             if _at(body, q)[0] == "while" and p_if[len(q):len(q) + 1] == (2,)]
    if not loops:
        scan.problem(version, "a version test outside a retry loop", _at(body, test))
        return
    loop = _at(body, loops[0])
    rel = p_if[len(loops[0]) + 1:] + (5 - failing,)
    failed = _put(loop[2], rel, ZERO)
    loc, glo = _assigned(failed)
    bad: set[str] = set()
    _first(loop[2], frozenset(), loc, bad)
    if glo or loc & _names(loop[1]) or bad:
        scan.problem(version, "a failed round of the retry loop writes a global, or a local "
                     f"read before it is written again ({', '.join(sorted(glo | bad))})", loop)


def _names(e: Expr) -> set[str]:
    return {n[1] for n in _walk(e) if n[0] == "var"}


def _walk(e: Expr) -> Iterator[Expr]:
    todo = [e]
    while todo:
        yield (n := todo.pop())
        todo.extend(k for k in n[1:] if isinstance(k, tuple))


def _put(e: Expr, p: Path, new: Expr) -> Expr:
    if not p:
        return new
    return e[:p[0]] + (_put(e[p[0]], p[1:], new),) + e[p[0] + 1:]


def _rewrite(scan: _Scan, e: Expr, p: Path) -> Expr:
    if p in scan.valid:
        snap = scan.sites[p] or frozenset()
        new: Expr = ("nd", 0, 1)
        for x, lo in sorted(snap, reverse=True):
            new = mk_bin("&&", ("bin", "==", ("var", x), ("var", lo)), new)
        return new if e[1] == "==" else mk_un("not", new)
    if e[0] == "assign" and (e[1] in scan.versions or e[1] in scan.vlocals):
        return ZERO
    kids = [_rewrite(scan, k, p + (i,)) if isinstance(k, tuple) else k
            for i, k in enumerate(e) if i > 0]
    return _MAKE[e[0]](*kids) if e[0] in _MAKE else (e[0], *kids)


def abstraction(initial: Env, requests: list[tuple[str, Expr]], versions: dict[str, list[str]]
                ) -> tuple[tuple[Env, list[tuple[str, Expr]]], list[tuple[str, str]]]:  # fmt: skip
    """The program with its versions (each with the globals it guards) taken out, and what
    breaks the rules (nothing: the claim holds)."""
    vlocals: dict[str, str] = {}
    for _, body in requests:
        for n in _walk(body):
            if n[0] == "assign" and n[2][0] == "var" and n[2][1] in versions and is_local(n[1]):
                vlocals.setdefault(n[1], n[2][1])
    named = [*versions, *(x for xs in versions.values() for x in xs)]
    problems = [(g, f"{g} is a local, or named twice among versions and guarded globals")
                for g in sorted(set(named)) if not g or is_local(g) or named.count(g) > 1]
    out = []
    for name, body in requests:
        scan = _Scan(name, versions, vlocals)
        scan.step_end(scan.go(body, (), Facts()), body)
        scan.uses(body, (), False, None, None)
        tested = body  # the tests as the abstraction has them: what a lone round reads
        for test in scan.valid:
            tested = _put(tested, test, _rewrite(scan, _at(body, test), test))
        for test, at in sorted(scan.valid.items()):
            _retry(scan, tested, test, at, (scan.test(_at(body, test)) or ("",))[0])
        problems += sorted(scan.problems)
        out.append((name, _rewrite(scan, body, ())))
    return (tuple((k, v) for k, v in initial if k not in versions), out), problems


def versions(data: dict[str, Any], limits: Limits, remaining: Callable[[], float]
             ) -> Iterator[tuple[str, Callable[[], str]]]:  # fmt: skip
    """The rules and the abstraction, then its certificate checked by the checker's entry
    point (the modules of its own claim) within what is left of the budget."""
    from checker.api import check_certificate

    inner = data["versions"]["abstract"]

    def rules() -> str:
        model = data["model"]
        if model["kind"] != "ser" or inner["model"]["kind"] != "ser":
            raise invalid("E-VERSIONS", "only a Ser program has versions taken out")
        declared = data["versions"]["globals"]
        versions = {v["version"]: list(v["guards"]) for v in declared}
        if len(versions) != len(declared):
            raise invalid("E-VERSIONS", "a version is declared twice")
        initial, requests = parse_program(model["source"], model.get("constants"))
        expected, problems = abstraction(initial, requests, versions)
        if problems:
            raise invalid("E-VERSIONS", problems[0][1])
        if parse_program(inner["model"]["source"], inner["model"].get("constants")) != expected:
            raise invalid("E-VERSIONS", "the abstract program is not the model with its "
                                        "versions taken out")
        return "versions that never wrap: " + ", ".join(sorted(versions))

    def abstract() -> str:
        result = check_certificate(inner, timeout_s=remaining(), limits=limits)
        if result.status != "valid":
            error = {"invalid": Invalid, "undecided": Undecided}.get(result.status, CheckerError)
            raise error(f"the abstract program: {result.message}", code=result.code)
        return f"the abstract program: {result.message}"

    yield "versions", rules
    yield "abstract program", abstract
