"""The checker's own per-variable steps of a Ser program (docs/certificates.md)."""
# "Footprints": a step runs on a valuation of its reads R alone (every other global POISON:
# never read, and written over in W); a local state is named by its residual program and
# its live locals.

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass, field
from math import prod
from typing import NamedTuple, TypeVar

from checker.certificate import Limits
from checker.errors import CheckerError, LimitError, ModelError, invalid
from checker.live import live_locals
from checker.model import POISON, Env, Expr, expr_text, is_local, local_text, named, nodes, run

Local = tuple[str, str]  # (request, canonical local text)
Values = tuple[int, ...]
Must = frozenset[str] | None  # globals surely written on the paths; None: no such path
K = TypeVar("K")
V = TypeVar("V")


def group(pairs: Iterable[tuple[K, V]]) -> dict[K, list[V]]:
    """The values paired with each key, in order."""
    out: dict[K, list[V]] = {}
    for k, v in pairs:
        out.setdefault(k, []).append(v)
    return out


def reach(starts: Collection[K], succ: Callable[[K], Iterable[K]]) -> set[K]:
    """The nodes reachable from `starts` by `succ` (the starts included)."""
    seen, todo = set(starts), list(starts)
    while todo:
        for n in succ(todo.pop()):
            if n not in seen:
                seen.add(n)
                todo.append(n)
    return seen


class Foot(NamedTuple):
    reads: tuple[str, ...]  # R, sorted
    touched: tuple[str, ...]  # R ∪ W, sorted
    writes: frozenset[str]  # W


@dataclass(frozen=True)
class Step:
    src: Local
    reads: Values  # the values of its footprint's R
    dst: Local
    after: Values  # the values of its footprint's R ∪ W after the step
    foot: Foot = field(compare=False)  # src's footprint in the layer the step is of

    def pre(self) -> dict[str, int]:  # the globals it reads
        return dict(zip(self.foot.reads, self.reads, strict=True))

    def post(self) -> dict[str, int]:  # the globals it touches, after it
        return dict(zip(self.foot.touched, self.after, strict=True))

    def read_only(self) -> bool:  # every touched global read, and left as it was
        return len(self.foot.touched) == len(self.foot.reads) and self.after == self.reads

    def stutter(self) -> bool:  # changes nothing: read-only, back to its own state
        return self.dst == self.src and self.read_only()


class Steps(NamedTuple):
    entries: tuple[Local, ...]
    foot: dict[Local, Foot]  # every local state that can step
    final: dict[Local, int]  # every local state that answers, with its answer
    moves: tuple[Step, ...]  # outcomes inside the domains
    escapes: tuple[Step, ...]  # outcomes that leave a domain


class Composite(NamedTuple):
    head: Local
    commit: Step
    footprint: frozenset[str]  # every global the attempt's states and its commit touch


@dataclass
class Blocks:
    inner: dict[Local, int] = field(default_factory=dict)  # interior state -> block
    heads: dict[Local, int] = field(default_factory=dict)  # attempt head -> block
    kinds: list[str] = field(default_factory=list)
    tried: dict[int, list[Step]] = field(default_factory=dict)  # attempt -> read-only steps
    commits: dict[int, list[Step]] = field(default_factory=dict)
    section: dict[int, list[Step]] = field(default_factory=dict)  # entering, inside, leaving
    composites: list[Composite] = field(default_factory=list)


# --------------------------------------------------------------------------- footprints


def _meet(a: Must, b: Must) -> Must:
    return b if a is None else a if b is None else a & b


def _glob(name: str) -> frozenset[str]:
    return frozenset() if is_local(name) else frozenset({name})


def _walk(e: Expr, acc: frozenset[str]) -> tuple[frozenset[str], frozenset[str], Must, Must]:
    # (reads, possible writes, must-writes of paths stopping at a yield, of paths that
    # run to the end of `e`), `e` entered with `acc` surely written.
    none: frozenset[str] = frozenset()
    tag = e[0]
    if tag in ("yield", "exit"):
        return none, none, acc if tag == "yield" else None, None
    if tag in ("int", "nd", "var"):
        return (_glob(e[1]) if tag == "var" else none), none, None, acc
    if tag == "assign":
        r, w, ended, falls = _walk(e[2], acc)
        return r, w | _glob(e[1]), ended, None if falls is None else falls | _glob(e[1])
    if tag in ("not", "neg"):
        return _walk(e[1], acc)
    first, rest = (e[2], e[3]) if tag == "bin" else (e[1], e[2])
    r, w, ended, falls = _walk(first, acc)
    if falls is None:
        return r, w, ended, falls
    if tag == "if":
        r1, w1, e1, f1 = _walk(e[2], falls)
        r2, w2, e2, f2 = _walk(e[3], falls)
        return r | r1 | r2, w | w1 | w2, _meet(ended, _meet(e1, e2)), _meet(f1, f2)
    r2, w2, e2, f2 = _walk(rest, falls)
    if tag == "while":  # later rounds surely write more; the loop ends after a false test
        f2 = falls
    elif tag == "bin" and e[1] in ("&&", "||"):  # the right operand may be skipped
        f2 = _meet(falls, f2)
    return r | r2, w | w2, _meet(ended, e2), f2


def footprint(e: Expr) -> Foot:
    r, w, ended, falls = _walk(e, frozenset())
    must = _meet(ended, falls) or frozenset()
    reads = r | (w - must)
    return Foot(tuple(sorted(reads)), tuple(sorted(reads | must)), must)


def split(body: Expr, first: bool = True) -> Expr:
    # `s1; …; sk; rest` → `s1; …; sk; yield; rest`, s1 … sk the longest run of first statements
    # that name no global and do not yield (docs/certificates.md, "Split requests").
    if body[0] == "seq" and not named(body[1]) and all(
            n[0] not in ("yield", "exit") for n in nodes(body[1])):
        return ("seq", body[1], split(body[2], False))
    if first:
        raise invalid("E-SPLIT", "a split request must begin with a statement that names no "
                      "global and does not yield")
    return ("seq", ("yield",), body)


# --------------------------------------------------------------------------- enumeration


Key = tuple[str, ...]  # ("local", request, text), ("value", global), ("response", r, v)
Linear = tuple[dict[Key, int], int, str]  # Σ c·atom + k  OP  0


def refuted(lin: list[Linear], low: dict[Key, int], fixed: dict[str, int],
            dom: dict[str, tuple[int, ...]], zero: Collection[Key]) -> bool:  # fmt: skip
    # Intervals: a linear conjunct is false wherever the globals of `fixed` are so, the
    # others in their domains, M(l) ≥ low[l] (else ≥ 0), M(l) = 0 for the keys in `zero`.
    for coeffs, k, op in lin:
        lo: int | None = k
        hi: int | None = k
        for key, c in coeffs.items():
            v = fixed.get(key[1]) if key[0] == "value" else None
            a, b = (v, v) if v is not None else (min(dom[key[1]]), max(dom[key[1]])) \
                if key[0] == "value" else (0, 0) if key in zero else (low.get(key, 0), None)
            x, y = (a, b) if c > 0 else (b, a)
            lo = None if lo is None or x is None else lo + c * x
            hi = None if hi is None or y is None else hi + c * y
        above = lo is not None and (lo > 0 or op == "<" and lo == 0)  # e OP 0 false on
        below = hi is not None and (hi < 0 or op == ">" and hi == 0)  # all of [lo, hi]
        if above or below if op == "=" else above if op in ("<=", "<") else below:
            return True
    return False


def valuations(xs: tuple[str, ...], dom: dict[str, tuple[int, ...]], bounds: list[Linear],
               vals: tuple[int, ...] = ()) -> Iterator[tuple[int, ...]]:
    # The valuations of xs within their domains (extending `vals`), in product order, that
    # the other globals' domains can extend to one where no bound over the globals is refuted.
    if not refuted(bounds, {}, dict(zip(xs, vals, strict=False)), dom, set()):
        yield from [vals] if len(vals) == len(xs) else ()
        for v in dom[xs[len(vals)]] if len(vals) < len(xs) else ():
            yield from valuations(xs, dom, bounds, (*vals, v))


def enumerate_steps(blocks: list[tuple[str, Expr]], domains: dict[str, tuple[int, ...]],
                    limits: Limits, bounds: list[Linear], given: dict[Local, Foot]) -> Steps:
    # Every local state reached through steps inside the domains, and its outcomes at each
    # valuation of its reads there (and in the bounds); footprints checked as they step.
    states: dict[Local, tuple[Env, Expr]] = {}
    texts: dict[str, tuple[Env, Expr]] = {}
    named: dict[Expr, tuple[frozenset[str], str]] = {}  # the same few ends of every valuation

    def state(request: str, env: Env, e: Expr) -> Local:
        keep, rest = named.get(e) or named.setdefault(e, (live_locals(e), expr_text(e)))
        env = tuple((k, v) for k, v in env if k in keep)
        text = local_text(env, e, rest)
        if texts.setdefault(text, (env, e)) != (env, e):
            raise ModelError(f"two distinct local states print as {text!r}")
        if (loc := (request, text)) not in states:
            if len(states) >= limits.max_locals:
                raise LimitError(f"more than {limits.max_locals} local states")
            states[loc] = (env, e)
            todo.append(loc)
        return loc

    todo: list[Local] = []
    entries = tuple(state(r, (), body) for r, body in blocks)
    allowed = {x: frozenset(d) for x, d in domains.items()}
    foot, final = dict[Local, Foot](), dict[Local, int]()
    moves, escapes = dict[Step, None](), dict[Step, None]()  # each step once, in order
    evaluated = 0
    while todo:
        loc = todo.pop()
        env, e = states[loc]
        if e[0] == "int":
            final[loc] = e[1]
            continue
        foot[loc] = fp = given.get(loc) or footprint(e)
        if missing := [x for x in fp.touched if x not in domains]:
            raise CheckerError(f"global {missing[0]} has no domain", code="E-DOMAIN")
        evaluated += 0 if bounds else prod(len(domains[x]) for x in fp.reads)  # fail at once
        others = [(x, POISON) for x in domains if x not in fp.reads]
        for vals in valuations(fp.reads, domains, bounds):
            evaluated += bool(bounds)
            if evaluated > limits.max_valuations:
                raise LimitError(f"more than {limits.max_valuations} (local state, valuation) "
                                 "pairs to step")  # fmt: skip
            glo = tuple(sorted([(x, v) for x, v in zip(fp.reads, vals, strict=True) if v]
                               + others))  # fmt: skip
            for y, v, l2, g2 in run(e, env, glo):
                end = dict(g2)
                after = tuple(end.get(x, 0) for x in fp.touched)
                if POISON in after or any(end.get(x) != POISON for x, _ in others
                                          if x not in fp.touched):  # fmt: skip
                    raise CheckerError(f"a step of {loc[1]} writes outside its footprint, or "
                                       "skips a write it says is certain", code="E-FOOTPRINT")
                step = Step(loc, vals, state(loc[0], l2, v if y else ("int", v)), after, fp)
                inside = all(a in allowed[x] for x, a in zip(fp.touched, after, strict=True))
                (moves if inside else escapes)[step] = None  # outcomes differing in dead locals
                if len(moves) + len(escapes) > limits.max_valuations:
                    raise LimitError(f"more than {limits.max_valuations} transitions")
    if stray := set(given) - set(foot):
        raise CheckerError(f"a footprint for {min(stray)[1]}: no local state that steps",
                           code="E-NAME")
    return Steps(entries, foot, final, tuple(moves), tuple(escapes))
