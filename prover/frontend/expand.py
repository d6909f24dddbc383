"""Constants, arrays, request families and `for` loops, written out as core Ser.

docs/language.md ("Constants, arrays and request families") is the contract; the checker
writes the same program out with its own code (checker/sizes.py), and both must agree
node for node, because local states are named by the text of their residual programs:

* a constant, a family's variable and a `for` variable are replaced by their value, and
  every node is rebuilt through its smart constructor (so `if (j == 0)` folds per copy);
* the cells of `global A[K]` are the globals `A[0]` … `A[K-1]`; `A[e]` is the cell when
  `e` folds to a literal (a literal outside the array is a run-time fault there), else
  the chain `if (e == 0) { A[0] } else { if (e == 1) { … } else { fault } }`: a step that
  knows `e` walks one branch, so its footprint is one cell. An index that assigns, yields,
  chooses or loops is computed once into the hidden local `index#` (no name a model can
  write), which each branch sets back to 0 before it touches its cell;
* in the branch `e == k` of `A[e] := v`, a `v` that neither assigns nor yields nor loops
  reads `A[e]` (the same text of `e`) as the cell `A[k]`;
* `for (j in lo..hi) { b }` is `b[j:=lo]; …; b[j:=hi]` (0 when lo > hi), and a request
  family `request r[j in lo..hi]` is the requests `r[lo]` … `r[hi]`;
* sequences are flattened (`(a; b); c` is `a; b; c`), so an unrolled loop reads as the
  statements written out by hand.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

from prover.errors import (
    DivisionByZeroError,
    IntegerRangeError,
    SerError,
    SerSyntaxError,
    SourceLocation,
    UsageError,
)
from prover.frontend import ast, surface
from prover.frontend.ast import nodes

MAX_CELLS = 1_024  # cells of one array
MAX_MEMBERS = 1_024  # requests of one family
MAX_COPIES = 4_096  # copies of one `for` body
MAX_NODES = 1_000_000  # nodes built while writing the program out
INDEX_LOCAL = "index#"

Where = Callable[[int, int], SourceLocation | None]


def needs_expansion(src: surface.Source) -> bool:
    """Whether the file uses any form of this module (else it is core Ser as read)."""
    if any(isinstance(d, surface.Const) or d.cells is not None
           or not isinstance(d.value, ast.Num | None) for d in src.decls):
        return True
    return any(isinstance(r, surface.Family) or not _lacks(r.body, surface.SURFACE_NODES)
               for r in src.requests)


@dataclass(frozen=True)
class _Scope:
    values: Mapping[str, int]  # constants, and the variables of families and `for`s
    arrays: Mapping[str, int]  # array name -> number of cells
    facts: Mapping[str, int] = field(default_factory=dict)  # index text -> its value here

    def bind(self, name: str, value: int) -> _Scope:
        return replace(self, values={**self.values, name: value})


class _Writer:
    """One program's expansion; counts the nodes it builds against MAX_NODES."""

    def __init__(self, where: Where) -> None:
        self.where = where
        self.nodes = 0

    def fail(self, node: ast.Expr | surface.Const | surface.Global | surface.Family,
             message: str, cls: type[SerError] = SerSyntaxError) -> SerError:
        return cls(message, self.where(node.line, node.col))

    def constant(self, e: ast.Expr, s: _Scope, what: str) -> int:
        v = self.expr(e, s)
        if not isinstance(v, ast.Num):
            raise self.fail(e, f"{what} must be a constant expression (literals and "
                               f"constants), not {v.text}")
        return v.value

    def expr(self, e: ast.Expr, s: _Scope) -> ast.Expr:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise self.fail(e, f"the program written out has more than {MAX_NODES:,} nodes "
                               "(arrays, families and `for` copies multiply)")
        if isinstance(e, ast.Seq):
            parts = []
            while isinstance(e, ast.Seq):
                parts.append(self.expr(e.first, s))
                e = e.rest
            return _sequence([*parts, self.expr(e, s)])
        if isinstance(e, ast.Var):
            return self.var(e, s)
        if isinstance(e, ast.Assign):
            self.assignable(e, e.name, s)
            return ast.mk_assign(e.name, self.expr(e.value, s), e.line, e.col)
        if isinstance(e, surface.Index | surface.IndexAssign):
            return self.index(e, s)
        if isinstance(e, surface.For):
            return self.unroll(e, s)
        if isinstance(e, surface.Choose):
            lo, hi = (self.constant(b, s, "a bound of ?(lo..hi)") for b in (e.lo, e.hi))
            if not 0 <= hi - lo < ast.MAX_CHOICE_VALUES:
                raise self.fail(e, f"?({lo}..{hi}) is not a range of 1 to "
                                   f"{ast.MAX_CHOICE_VALUES} values")
            return ast.Nondet(lo, hi, line=e.line, col=e.col)
        return self.rebuild(e, s)

    def rebuild(self, e: ast.Expr, s: _Scope) -> ast.Expr:
        """A core node over its expanded children, folded by its smart constructor."""
        try:
            if isinstance(e, ast.Binary):
                return ast.rebuild_binary(e, self.expr(e.left, s), self.expr(e.right, s))
            if isinstance(e, ast.Not):
                return ast.mk_not(self.expr(e.arg, s), e.line, e.col)
            if isinstance(e, ast.Neg):
                return ast.mk_neg(self.expr(e.arg, s), e.line, e.col)
            if isinstance(e, ast.If):
                return ast.mk_if(self.expr(e.cond, s), self.expr(e.then, s),
                                 self.expr(e.orelse, s), e.line, e.col)
            if isinstance(e, ast.While):
                return ast.mk_while(self.expr(e.cond, s), self.expr(e.body, s), e.line, e.col)
        except IntegerRangeError as exc:
            raise self.fail(e, f"constant folding: {exc.message}", IntegerRangeError) from None
        except DivisionByZeroError:
            raise self.fail(e, f"constant folding: {e.text} divides by zero",
                            DivisionByZeroError) from None
        return e  # literals, `?`, `yield`, `exit`

    def var(self, e: ast.Var, s: _Scope) -> ast.Expr:
        if e.name in s.values:
            return ast.Num(s.values[e.name], line=e.line, col=e.col)
        if e.name in s.arrays:
            raise self.fail(e, f"{e.name} is an array of {s.arrays[e.name]} cells: "
                               f"read one cell, {e.name}[i]")
        return e

    def assignable(self, e: ast.Expr, name: str, s: _Scope) -> None:
        if name in s.values:
            raise self.fail(e, f"{name} is a constant here and cannot be assigned")
        if name in s.arrays:
            raise self.fail(e, f"{name} is an array: assign one cell, {name}[i] := ...")

    def unroll(self, e: surface.For, s: _Scope) -> ast.Expr:
        lo, hi = (self.constant(b, s, "a bound of `for`") for b in (e.lo, e.hi))
        if hi - lo + 1 > MAX_COPIES:
            raise self.fail(e, f"for ({e.var} in {lo}..{hi}) repeats its body more than "
                               f"{MAX_COPIES:,} times")
        self.fresh(e, e.var, s)
        copies = [self.expr(e.body, s.bind(e.var, k)) for k in range(lo, hi + 1)]
        return _sequence(copies) if copies else ast.Num(0, line=e.line, col=e.col)

    def fresh(self, e: ast.Expr | surface.Family, name: str, s: _Scope) -> None:
        if name in s.values or name in s.arrays or not ast.is_local_name(name):
            raise self.fail(e, f"the variable of a `for` or a request family must be a new "
                               f"lower-case name, not {name}")

    def index(self, e: surface.Index | surface.IndexAssign, s: _Scope) -> ast.Expr:
        cells = s.arrays.get(e.array)
        if cells is None:
            raise self.fail(e, f"{e.array} is not an array (declare it: global {e.array}[N])")
        at = self.expr(e.index, s)

        def cell(k: int, facts: Mapping[str, int]) -> ast.Expr:
            name = f"{e.array}[{k}]"
            if isinstance(e, surface.Index):
                return ast.Var(name, line=e.line, col=e.col)
            return ast.mk_assign(name, self.expr(e.value, replace(s, facts=facts)),
                                 e.line, e.col)

        if isinstance(at, ast.Num) or at.text in s.facts:
            k = at.value if isinstance(at, ast.Num) else s.facts[at.text]
            if 0 <= k < cells:
                return cell(k, s.facts)
            return ast.IndexFault(e.array, cells, line=e.line, col=e.col)
        hidden = not _lacks(at, _EFFECTS)
        test = ast.Var(INDEX_LOCAL, line=e.line, col=e.col) if hidden else at
        keep = not hidden and isinstance(e, surface.IndexAssign) and _lacks(e.value, _CHANGES)
        chain: ast.Expr = ast.IndexFault(e.array, cells, line=e.line, col=e.col)
        for k in reversed(range(cells)):
            branch = cell(k, {**s.facts, at.text: k} if keep else s.facts)
            if hidden:
                branch = ast.mk_seq(ast.mk_assign(INDEX_LOCAL, ast.Num(0), e.line, e.col),
                                    branch, e.line, e.col)
            chain = ast.mk_if(ast.mk_eq(test, ast.Num(k), e.line, e.col), branch, chain,
                              e.line, e.col)
        if hidden:
            return ast.mk_seq(ast.mk_assign(INDEX_LOCAL, at, e.line, e.col), chain,
                              e.line, e.col)
        return chain


def _sequence(parts: list[ast.Expr]) -> ast.Expr:
    """`p1; p2; …` flattened: a part that is itself a sequence is spliced in."""
    flat: list[ast.Expr] = []
    for p in parts:
        while isinstance(p, ast.Seq):
            flat.append(p.first)
            p = p.rest
        flat.append(p)
    out = flat[-1]
    for p in reversed(flat[:-1]):
        out = ast.mk_seq(p, out, p.line, p.col)
    return out


def _lacks(e: ast.Expr, kinds: tuple[type[ast.Expr], ...]) -> bool:
    return not any(isinstance(n, kinds) for n in nodes(e))


# An index without these evaluates twice to the same value (or fault): it is tested in
# place; with one, it is stored in the hidden local first.
_EFFECTS = (ast.Assign, ast.Yield, ast.Nondet, ast.While)
# A value without these changes no variable and does not yield, so the index of the
# assignment it is the value of keeps its value while it runs.
_CHANGES = (ast.Assign, ast.Yield, ast.While, surface.IndexAssign, surface.For)


def expand(src: surface.Source, defines: Mapping[str, int], where: Where) -> ast.Program:
    """The core program of a file, with the constants `defines` given on the command line."""
    w = _Writer(where)
    s = _Scope({}, {})
    constants: list[tuple[str, int]] = []
    initial: dict[str, int] = {}
    declared: dict[str, surface.Const | surface.Global] = {}
    for d in src.decls:
        if d.name in declared:
            first = declared[d.name]
            raise w.fail(d, f"{d.name} is declared twice (first on line {first.line})")
        declared[d.name] = d
        if isinstance(d, surface.Const):
            value = defines[d.name] if d.name in defines else \
                w.constant(d.value, s, f"the value of {d.name}")
            constants.append((d.name, value))
            s = s.bind(d.name, value)
            continue
        value = 0 if d.value is None else w.constant(d.value, s, f"the initial value of {d.name}")
        if d.cells is None:
            initial[d.name] = value
            continue
        cells = w.constant(d.cells, s, f"the length of {d.name}")
        if not 1 <= cells <= MAX_CELLS:
            raise w.fail(d, f"{d.name} has {cells} cells: an array has 1 to {MAX_CELLS:,}")
        initial.update((f"{d.name}[{k}]", value) for k in range(cells))
        s = replace(s, arrays={**s.arrays, d.name: cells})
    unknown = sorted(set(defines) - {n for n, _ in constants})
    if unknown:
        raise UsageError(f"-D {unknown[0]}: the model has no constant {unknown[0]} "
                         f"(its constants: {', '.join(n for n, _ in constants) or 'none'})")
    requests = [r for req in src.requests for r in _requests(w, req, s)]
    program = core_program(requests, initial, where)
    return replace(program, constants=tuple(constants))


def _requests(w: _Writer, r: ast.Request | surface.Family, s: _Scope) -> list[ast.Request]:
    if isinstance(r, ast.Request):
        return [ast.Request(r.name, w.expr(r.body, s), line=r.line)]
    lo, hi = (w.constant(b, s, "a bound of a request family") for b in (r.lo, r.hi))
    if hi - lo + 1 > MAX_MEMBERS:
        raise w.fail(r, f"request {r.name}[{r.var} in {lo}..{hi}] has more than "
                        f"{MAX_MEMBERS:,} members")
    w.fresh(r, r.var, s)
    return [ast.Request(f"{r.name}[{k}]", w.expr(r.body, s.bind(r.var, k)), line=r.line)
            for k in range(lo, hi + 1)]


def core_program(requests: list[ast.Request], initial: Mapping[str, int],
                 where: Where) -> ast.Program:
    """The program of these requests and initial globals; a request name at most once."""
    seen: dict[str, ast.Request] = {}
    for r in requests:
        if r.name in seen:
            raise SerSyntaxError(
                f"request '{r.name}' is defined twice (first on line {seen[r.name].line}); "
                "give each request its own name", where(r.line, 1))
        seen[r.name] = r
    if not requests:
        raise SerSyntaxError("no request: every request family is empty", where(1, 1))
    start = tuple(sorted((k, v) for k, v in initial.items() if v != 0))
    return ast.Program(tuple(requests), start, frozenset(initial))
