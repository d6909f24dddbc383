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
from checker.fold import fold
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
    nodes,
)
from checker.program import parse_program

Path = tuple[int, ...]
START, RAISE = 2**32, 2**16  # a version's largest start and raise: 2^47 raises to overflow
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


def _resolve(e: Expr, env: dict[str, int]) -> Expr:
    """`e` with the `if`s its inputs settle taken: `if(r == 0){V0}else{...}` is V0 at r = 0."""
    while e[0] == "if" and (c := fold(e[1], env)) is not None:
        e = e[2] if c else e[3]
    return e


def _inputs(e: Expr, envs: list[dict[str, int]]) -> list[dict[str, int]] | None:
    """The locals after `e` from each of `envs`, if `e` only sets locals from literals,
    choices and locals it knows, by `if`s they settle (None otherwise, or past 256 cases)."""
    out: list[dict[str, int]] = []
    for env in envs:
        if e[0] == "int":
            out.append(env)
        elif e[0] == "assign" and is_local(e[1]) and e[2][0] == "nd":
            out += [{**env, e[1]: v} for v in range(e[2][1], e[2][2] + 1)]
        elif e[0] == "assign" and is_local(e[1]) and (v := fold(e[2], env)) is not None:
            out.append({**env, e[1]: v})
        elif e[0] in ("seq", "if"):
            c = 1 if e[0] == "seq" else fold(e[1], env)
            first = [env] if e[0] == "if" else _inputs(e[1], [env])
            more = None if c is None or first is None else _inputs(
                e[2] if e[0] == "seq" or c else e[3], first)
            if more is None:
                return None
            out += more
        else:
            return None
        if len(out) > 256:
            return None
    return out


def _specs(body: Expr) -> tuple[list[dict[str, int]], Path]:
    """The values of a request's inputs, and where the rest of its body starts: its first
    statements that only set locals from choices and literals (`i := ?(0..2); j := ...`),
    when no later statement sets those locals again."""
    steps: list[tuple[list[dict[str, int]], Path]] = [([{}], ())]
    rest = body
    while rest[0] == "seq" and (more := _inputs(rest[1], steps[-1][0])) is not None:
        steps.append((more, steps[-1][1] + (2,)))
        rest = rest[2]
    while {k for env in steps[-1][0] for k in env} & _assigned(_at(body, steps[-1][1]))[0]:
        steps.pop()  # an input set again later: the prefix ends before its first setting
    return steps[-1]


class _Scan:
    """One request's body, at one value of its inputs (`env`), against the versions' rules;
    what the abstraction needs of it."""

    def __init__(self, request: str, versions: dict[str, list[str]], body: Expr,
                 env: dict[str, int]) -> None:
        self.request, self.versions, self.env = request, set(versions), env
        self.guard = {x: v for v, xs in versions.items() for x in xs}
        self.vlocals: dict[str, str] = {}  # l -> V: the locals assigned from a version
        for n in self.reached(body):
            r = _resolve(n[2], env) if n[0] == "assign" and is_local(n[1]) else ("",)
            if r[0] == "var" and r[1] in self.versions:
                self.vlocals.setdefault(n[1], r[1])
        self.sites: dict[Path, tuple[str, str, frozenset[tuple[str, str]] | None, str]] = {}
        self.valid: dict[Path, tuple[Path, int]] = {}  # test -> (its `if`, failing branch)
        self.removed: dict[Path, bool] = {}  # assignments reached -> the abstraction's `0`
        self.bins: dict[Path, None] = {}  # binary operations reached
        self.problems: set[tuple[str, str]] = set()  # (the global at fault, why)

    def reached(self, e: Expr) -> Iterator[Expr]:
        """The nodes of `e` but the branches its inputs rule out."""
        todo = [e]
        while todo:
            n = todo.pop()
            if n[0] == "if" and (c := fold(n[1], self.env)) is not None:
                todo.append(n[2] if c else n[3])
                continue
            yield n
            todo.extend(k for k in n[1:] if isinstance(k, tuple))

    def problem(self, name: str, what: str, e: Expr) -> None:
        self.problems.add((name, f"request {self.request}: {what} (at `{expr_text(e)[:60]}`)"))

    def test(self, e: Expr, st: Facts) -> tuple[str, str] | None:
        """(V, l) of a version test: `V == l`, `l != V`, or `c == l` where c is V's value
        read in this step."""
        if e[0] != "bin" or e[1] not in ("==", "!="):
            return None
        a, b = _resolve(e[2], self.env), _resolve(e[3], self.env)
        if a[0] != "var" or b[0] != "var":
            return None
        for g, lo in ((a[1], b[1]), (b[1], a[1])):
            if g in self.versions and self.vlocals.get(lo) == g:
                return g, lo
            v = self.vlocals.get(g)
            if v is not None and self.vlocals.get(lo) == v and (v, g) in st.eq and g != lo:
                return v, lo
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
            self.removed[p] = e[1] in self.versions or e[1] in self.vlocals
            return self.assign(e, self.go(e[2], p + (2,), st))
        if tag == "bin":
            self.bins[p] = None
            if (vl := self.test(e, st)) is not None:
                s = st.snaps().get(vl[1])
                self.sites[p] = (*vl, s[1] if s is not None and s[0] == vl[0] else None, e[1])
            a = self.go(e[2], p + (2,), st)
            b = self.go(e[3], p + (3,), a)
            return _join(a, b) if e[1] in ("&&", "||") else b
        if tag in ("not", "neg"):
            return self.go(e[1], p + (1,), st)
        if tag == "seq":
            return self.go(e[2], p + (2,), self.go(e[1], p + (1,), st))
        if tag == "if":
            if (v := fold(e[1], self.env)) is not None:  # the inputs settle it
                return self.go(e[2 if v else 3], p + (2 if v else 3,), st)
            c = self.go(e[1], p + (1,), st)
            then, other = self.assume(e[1], p, c)
            return _join(self.go(e[2], p + (2,), then), self.go(e[3], p + (3,), other))
        if tag == "while":
            head: Facts | None = st
            while True:  # each pass records afresh: only the fixpoint's facts count
                for rec in (self.sites, self.valid, self.removed, self.bins):
                    for q in [q for q in rec if q[:len(p)] == p]:
                        del rec[q]
                c = self.go(e[1], p + (1,), head)
                after = _join(head, self.go(e[2], p + (2,), c))
                if after == head:
                    return c
                head = after
        return st  # int, var, nd

    def site(self, p: Path, op: str) -> tuple[str, str] | None:
        """(V, l) of a test `op` at `p` where l holds a value read from V since."""
        s = self.sites.get(p)
        return None if s is None or s[2] is None or s[3] != op else (s[0], s[1])

    def assume(self, c: Expr, p: Path, st: Facts | None) -> tuple[Facts | None, Facts | None]:
        """Facts in the then and else branches of `if (c)`: a version test that is the
        condition or one of its top-level conjuncts (then V == l), or `V != l` alone (else),
        in a condition that neither yields nor assigns."""
        if st is None or any(n[0] in ("yield", "assign") for n in nodes(c)):
            return st, st  # what the test showed may not hold by the time the branch runs
        neg = p + (1, 1) if c[0] == "not" else p + (1,)
        if (vl := self.site(neg, "==" if c[0] == "not" else "!=")) is not None:
            self.valid[neg] = (p, 2)
            return st, replace(st, eq=st.eq | {vl})
        then = st
        for _, kp in _conjuncts(c, p + (1,)):
            if (vl := self.site(kp, "==")) is not None:
                self.valid[kp] = (p, 3)
                then = replace(then, eq=then.eq | {vl})
        return then, st

    def assign(self, e: Expr, st: Facts | None) -> Facts | None:
        if st is None:
            return None
        x, rhs = e[1], _resolve(e[2], self.env)
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
            up = rhs[0] == "bin" and rhs[1] == "+" and rhs[2][0] == "var" and rhs[3][0] == \
                "int" and 0 < rhs[3][1] <= RAISE and (rhs[2][1] == x or (x, rhs[2][1]) in st.eq)
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

    def uses(self, e: Expr, p: Path, stmt: bool, parent: tuple[Expr, Path] | None,
             up: Expr | None) -> None:
        """Versions and their locals only in tests, `l := V` and `V := V + c` (or `v + c`),
        assignments as statements; every test at a place `assume` took. An `if` the inputs
        settle is its branch (a version chosen by an input index)."""
        tag, env = e[0], self.env
        if tag == "if" and (c := fold(e[1], env)) is not None:
            self.uses(e[2 if c else 3], p + (2 if c else 3,), stmt, parent, up)
            return
        if tag == "var" and (e[1] in self.versions or e[1] in self.vlocals):
            v = str(self.vlocals.get(e[1], e[1]))
            par, pp = parent if parent is not None else (("",), ())
            ok = pp in self.sites or par[0] == "assign" and is_local(par[1]) and e[1] == v \
                or par[0] == "bin" and par[1] == "+" and _resolve(par[2], env) == e and \
                up is not None and up[0] == "assign" and up[1] == v
            if not ok:
                self.problem(v, f"{e[1]} is used other than in a version test or a raise", e)
        if tag == "assign" and (e[1] in self.versions or e[1] in self.vlocals):
            v = str(self.vlocals.get(e[1], e[1]))
            if not stmt or e[1] in self.vlocals and _resolve(e[2], env) != ("var", v):
                self.problem(v, f"{e[1]} is assigned where its value is used, or not from {v}", e)
        if p in self.sites and (p not in self.valid or self.sites[p][2] is None):
            self.problem(self.sites[p][0], "a version test that is not an `if`'s condition (or "
                                           "a conjunct of it), or compares with a value not "
                                           "read since", e)
        for i, k in enumerate(e):
            if i > 0 and isinstance(k, tuple):
                kstmt = (tag == "seq" and (i == 1 or stmt) or tag == "if" and i > 1 and stmt
                         or tag == "while" and i == 2)
                self.uses(k, p + (i,), kstmt, (e, p), parent[0] if parent else None)

    def rep(self, e: Expr, p: Path) -> Expr:
        """What the abstraction has for the test `e` at `p` at these inputs."""
        new: Expr = ("nd", 0, 1)
        for x, lo in sorted(self.sites[p][2] or (), reverse=True):
            new = mk_bin("&&", ("bin", "==", ("var", x), ("var", lo)), new)
        return new if e[1] == "==" else mk_un("not", new)


def _assigned(e: Expr) -> tuple[set[str], set[str]]:
    """(locals, globals) that `e` assigns anywhere."""
    loc: set[str] = set()
    glo: set[str] = set()
    for n in nodes(e):
        if n[0] == "assign":
            (loc if is_local(n[1]) else glo).add(n[1])
    return loc, glo


def _first(e: Expr, done: frozenset[str] | None, watch: set[str], bad: set[str]
           ) -> frozenset[str] | None:  # fmt: skip
    """The locals surely assigned after `e` (None: no run gets past it); those of `watch`
    read before they are assigned go to `bad`."""
    tag = e[0]
    if done is None or tag == "exit":
        return None
    if tag == "var" and e[1] in watch and e[1] not in done:
        bad.add(e[1])
    if tag == "assign":
        after = _first(e[2], done, watch, bad)
        return None if after is None else after | {e[1]}
    if tag == "seq":
        return _first(e[2], _first(e[1], done, watch, bad), watch, bad)
    if tag == "if":
        c = _first(e[1], done, watch, bad)
        t, f = _first(e[2], c, watch, bad), _first(e[3], c, watch, bad)
        return f if t is None else t if f is None else t & f
    if tag == "while" or tag == "bin" and e[1] in ("&&", "||"):
        c = _first(e[1 if tag == "while" else 2], done, watch, bad)
        _first(e[2 if tag == "while" else 3], c, watch, bad)
        return c
    for k in e[1:]:
        if isinstance(k, tuple):
            done = _first(k, done, watch, bad)
    return done


def _retry(scan: _Scan, body: Expr, test: Path, at: tuple[Path, int]) -> None:
    """A failing test must end a round of its innermost loop that changes nothing: no global
    written but in the passing branch, and every local it writes dead at the loop's head."""
    p_if, failing = at
    version = scan.sites[test][0]
    loops = [q for q in (p_if[:i] for i in range(len(p_if) - 1, -1, -1))
             if _at(body, q)[0] == "while"]
    if not loops or p_if[len(loops[0])] != 2:  # no loop, or in the condition of one
        scan.problem(version, "a version test outside a retry loop's body", _at(body, test))
        return
    loop = _at(body, loops[0])
    failed = _put(loop[2], p_if[len(loops[0]) + 1:] + (5 - failing,), ZERO)
    loc, glo = _assigned(failed)
    bad: set[str] = set()
    after = _first(loop[2], frozenset(), loc, bad)  # each round sets them again
    bad |= loc - (after if after is not None else loc)
    if glo or loc & _names(loop[1]) or bad or _assigned(loop[1]) != (set(), set()) or any(
            n[0] == "nd" for n in nodes(loop[1])):
        scan.problem(version, "a failed round of the retry loop writes a global, or a local "
                     "read before it is written again or not written again by every round, "
                     "or the loop's condition assigns or chooses "
                     f"({', '.join(sorted(glo | bad))})", loop)


def _names(e: Expr) -> set[str]:
    return {n[1] for n in nodes(e) if n[0] == "var"}


def _put(e: Expr, p: Path, new: Expr) -> Expr:
    if not p:
        return new
    return e[:p[0]] + (_put(e[p[0]], p[1:], new),) + e[p[0] + 1:]


def _rewrite(scans: list[_Scan], e: Expr, p: Path, problems: list[tuple[str, str]]) -> Expr:
    """The abstraction of `e` at `p`: each input's test, by cases of the inputs where they
    differ; the assignments of versions and their locals `0`."""
    reached = [s for s in scans if p in s.sites]
    if reached and len(reached) != sum(p in s.bins for s in scans):
        problems.append(("", f"a version test at some inputs only (`{expr_text(e)[:60]}`)"))
    if reached:
        reps = [(s.env, s.rep(e, p)) for s in reached]
        if all(r == reps[0][1] for _, r in reps):
            return reps[0][1]
        new: Expr = ("nd", 0, 1)  # no run gets here: every input value has its case
        for env, r in reversed(reps):
            cond = _and([("bin", "==", ("var", k), ("int", v)) for k, v in sorted(env.items())])
            new = mk_if(cond, r, new)
        return new
    marks = {s.removed[p] for s in scans if p in s.removed}
    if marks == {True}:
        return ZERO
    if len(marks) > 1:
        problems.append(("", f"an assignment a version's at some inputs only (`{expr_text(e)}`)"))
    kids = [_rewrite(scans, k, p + (i,), problems) if isinstance(k, tuple) else k
            for i, k in enumerate(e) if i > 0]
    if e[0] == "bin" and e[1] in ("&&", "||") and kids[1][0] == "int" != e[2][0]:
        # quirk Q1 would fold `n && B` to B itself, where the program computes 0 or 1
        problems.append(("", f"a version's read or raise left a literal before {e[1]} "
                             f"(`{expr_text(e)[:60]}`)"))
    return _MAKE[e[0]](*kids) if e[0] in _MAKE else (e[0], *kids)


def _and(conds: list[Expr]) -> Expr:
    out = conds[-1]
    for c in reversed(conds[:-1]):
        out = mk_bin("&&", c, out)
    return out


def abstraction(initial: Env, requests: list[tuple[str, Expr]], versions: dict[str, list[str]]
                ) -> tuple[tuple[Env, list[tuple[str, Expr]]], list[tuple[str, str]]]:  # fmt: skip
    """The program with its versions (each with the globals it guards) taken out, and what
    breaks the rules (nothing: the claim holds)."""
    named = [*versions, *(x for xs in versions.values() for x in xs)]
    problems = [(g, f"{g} is a local, or named twice among versions and guarded globals")
                for g in sorted(set(named)) if not g or is_local(g) or named.count(g) > 1]
    problems += [(g, f"{g} starts at {v}, outside 0..{START}") for g, v in initial
                 if g in versions and not 0 <= v <= START]
    out = []
    for name, body in requests:
        specs, at = _specs(body)
        rest = _at(body, at)
        scans = [_Scan(name, versions, rest, env) for env in specs]
        for scan in scans:
            scan.step_end(scan.go(rest, at, Facts()), body)
            scan.uses(rest, at, False, None, None)
            tested = body  # the tests as the abstraction has them: what a lone round reads
            for test in scan.valid:
                tested = _put(tested, test, scan.rep(_at(body, test), test))
            for test, where in sorted(scan.valid.items()):
                _retry(scan, tested, test, where)
            problems += sorted(scan.problems)
        out.append((name, _rewrite(scans, body, (), problems)))
    return (tuple((k, v) for k, v in initial if k not in versions), out), problems


def versions(data: dict[str, Any], limits: Limits, remaining: Callable[[], float]
             ) -> Iterator[tuple[str, Callable[[], str]]]:  # fmt: skip
    """The rules and the abstraction, then its certificate checked by the checker's entry
    point (the modules of its own claim) within what is left of the budget."""
    from checker.api import check_certificate

    inner = data["versions"]["abstract"]

    def rules() -> str:
        model = data["model"]
        if model["kind"] != "ser" or inner["model"]["kind"] != "ser" or \
                inner["verdict"] != "serializable":
            raise invalid("E-VERSIONS", "only a Ser program has versions taken out, and its "
                                        "abstract program must be proved serializable")
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
