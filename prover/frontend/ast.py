"""Ser expression trees, smart constructors (ser-reference §1.4) and canonical text.

Nodes are immutable. Source positions (`line`, `col`) are carried for messages and
explanations only: they are excluded from equality, so two residuals that differ only
in where they came from are the same local state.

Every node that the parser or the compiler builds goes through the `mk_*` smart
constructors, which fold literals exactly as the reference does (including quirk Q1:
`n && B` and `n || B` fold to `B` itself, not normalised to 0/1).

Identity of residuals is decided by their canonical text (`docs/naming.md`), which is
injective on trees: the compiler keys local states by text and never hashes trees.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import ClassVar

from prover.errors import DivisionByZeroError, IntegerRangeError

I64_MIN = -(2**63)
I64_MAX = 2**63 - 1


def check_i64(value: int, what: str) -> int:
    """Values are signed 64-bit (ser-reference §2.5); leaving the range is an error."""
    if value < I64_MIN or value > I64_MAX:
        raise IntegerRangeError(f"{what} {value} is outside the signed 64-bit range")
    return value


def is_local_name(name: str) -> bool:
    """A variable is local iff its first character is a lowercase ASCII letter (§1.5)."""
    return "a" <= name[0] <= "z"


@dataclass(frozen=True)
class Expr:
    """Base class of all expression nodes."""

    line: int = field(default=0, compare=False, kw_only=True)
    col: int = field(default=0, compare=False, kw_only=True)

    # Precedence level of the node for canonical printing (docs/naming.md).
    LEVEL = 10

    @cached_property
    def text(self) -> str:
        """Canonical text (docs/naming.md); cached because residuals are compared by it."""
        return render(self)


@dataclass(frozen=True)
class Num(Expr):
    value: int


@dataclass(frozen=True)
class Var(Expr):
    name: str


# Values of one `?(lo..hi)`: each is an outcome of the step that reads it, so the
# checker bounds it before building them (docs/limits.md; checker.model.CHOICE_BOUND).
MAX_CHOICE_VALUES = 1_024


@dataclass(frozen=True)
class Nondet(Expr):
    """`?(lo..hi)`: nondeterministically any integer from lo to hi; `?` is `?(0..1)`."""

    lo: int = 0
    hi: int = 1


@dataclass(frozen=True)
class Yield(Expr):
    pass


@dataclass(frozen=True)
class Exit(Expr):
    pass


@dataclass(frozen=True)
class IndexFault(Exit):
    """An index outside its array (`E-INDEX`), where the program reaches it: written as
    `exit`, which it is, but with the array it indexes for the message."""

    array: str = ""
    cells: int = 0


@dataclass(frozen=True)
class AssertFault(Exit):
    """The failure of `assert(e)` (`E-ASSERT`): `assert(e)` is `if (e) { 0 } else { exit }`,
    printed so in both tools, with this node for the message and the certified trail."""


@dataclass(frozen=True)
class If(Expr):
    cond: Expr
    then: Expr
    orelse: Expr


@dataclass(frozen=True)
class While(Expr):
    cond: Expr
    body: Expr


@dataclass(frozen=True)
class Not(Expr):
    arg: Expr
    LEVEL = 9


@dataclass(frozen=True)
class Neg(Expr):
    """Unary minus; never wraps a literal (`-5` folds to the literal -5)."""

    arg: Expr
    LEVEL = 9


@dataclass(frozen=True)
class Binary(Expr):
    """A binary operator. `OP` is its source text; comparisons are not associative
    (`a < b < c` is a syntax error), the others associate to the left (C's rules)."""

    left: Expr
    right: Expr
    OP: ClassVar[str] = ""
    ASSOCIATIVE: ClassVar[bool] = True


@dataclass(frozen=True)
class Mul(Binary):
    OP = "*"
    LEVEL = 8


@dataclass(frozen=True)
class Div(Binary):
    OP = "/"
    LEVEL = 8


@dataclass(frozen=True)
class Mod(Binary):
    OP = "%"
    LEVEL = 8


@dataclass(frozen=True)
class Add(Binary):
    OP = "+"
    LEVEL = 7


@dataclass(frozen=True)
class Sub(Binary):
    OP = "-"
    LEVEL = 7


@dataclass(frozen=True)
class Lt(Binary):
    OP = "<"
    LEVEL = 6
    ASSOCIATIVE = False


@dataclass(frozen=True)
class Le(Binary):
    OP = "<="
    LEVEL = 6
    ASSOCIATIVE = False


@dataclass(frozen=True)
class Gt(Binary):
    OP = ">"
    LEVEL = 6
    ASSOCIATIVE = False


@dataclass(frozen=True)
class Ge(Binary):
    OP = ">="
    LEVEL = 6
    ASSOCIATIVE = False


@dataclass(frozen=True)
class Eq(Binary):
    OP = "=="
    LEVEL = 5
    ASSOCIATIVE = False


@dataclass(frozen=True)
class Ne(Binary):
    OP = "!="
    LEVEL = 5
    ASSOCIATIVE = False


@dataclass(frozen=True)
class And(Binary):
    OP = "&&"
    LEVEL = 4


@dataclass(frozen=True)
class Or(Binary):
    OP = "||"
    LEVEL = 3


@dataclass(frozen=True)
class Assign(Expr):
    name: str
    value: Expr
    LEVEL = 2


@dataclass(frozen=True)
class Seq(Expr):
    first: Expr
    rest: Expr
    LEVEL = 1


@dataclass(frozen=True)
class Request:
    """One `request NAME { BODY }` block (or the whole file when it is an expression)."""

    name: str
    body: Expr
    line: int = field(default=0, compare=False)


@dataclass(frozen=True)
class Program:
    requests: tuple[Request, ...]
    # The initial global state (`global A := 100;`): sorted, zero values dropped.
    initial: tuple[tuple[str, int], ...] = ()
    # Every global named in a `global` declaration, including those set to 0.
    declared: frozenset[str] = frozenset()
    # The constants the program was written out with (`const K := 4;`, `-D K=8`), in
    # the order declared: certificates record them.
    constants: tuple[tuple[str, int], ...] = ()


# ---- smart constructors (§1.4) -----------------------------------------------------


def _pos(node: Expr) -> dict[str, int]:
    return {"line": node.line, "col": node.col}


def mk_num(value: int, line: int = 0, col: int = 0) -> Num:
    return Num(check_i64(value, "integer"), line=line, col=col)


def _trunc_div(a: int, b: int) -> int:
    """Integer division truncating toward zero (C99), not Python's floor division."""
    if b == 0:
        raise DivisionByZeroError("division by zero")
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


# The value of each arithmetic or comparison operator on two integers (`&&` and `||`
# are not here: they short-circuit). Results leave signed 64 bits only by overflow.
APPLY: dict[type[Binary], Callable[[int, int], int]] = {
    Mul: lambda a, b: a * b,
    Div: _trunc_div,
    Mod: lambda a, b: a - b * _trunc_div(a, b),
    Add: lambda a, b: a + b,
    Sub: lambda a, b: a - b,
    Lt: lambda a, b: int(a < b),
    Le: lambda a, b: int(a <= b),
    Gt: lambda a, b: int(a > b),
    Ge: lambda a, b: int(a >= b),
    Eq: lambda a, b: int(a == b),
    Ne: lambda a, b: int(a != b),
}
_ALL_BINARY: list[type[Binary]] = [*APPLY, And, Or]
BINARY_BY_OP: dict[str, type[Binary]] = {c.OP: c for c in _ALL_BINARY}


def apply_binary(cls: type[Binary], a: int, b: int) -> int:
    """`a OP b`; raises IntegerRangeError on overflow, DivisionByZeroError on `/ 0`, `% 0`."""
    return check_i64(APPLY[cls](a, b), "value")


def mk_binary(cls: type[Binary], a: Expr, b: Expr, line: int, col: int) -> Expr:
    """An arithmetic or comparison node, folded when both operands are literals."""
    if cls is And:
        return mk_and(a, b, line, col)
    if cls is Or:
        return mk_or(a, b, line, col)
    if isinstance(a, Num) and isinstance(b, Num):
        return Num(apply_binary(cls, a.value, b.value), line=line, col=col)
    return cls(a, b, line=line, col=col)


def mk_eq(a: Expr, b: Expr, line: int, col: int) -> Expr:
    return mk_binary(Eq, a, b, line, col)


def mk_add(a: Expr, b: Expr, line: int, col: int) -> Expr:
    return mk_binary(Add, a, b, line, col)


def mk_sub(a: Expr, b: Expr, line: int, col: int) -> Expr:
    return mk_binary(Sub, a, b, line, col)


def mk_not(a: Expr, line: int, col: int) -> Expr:
    if isinstance(a, Num):
        return Num(1 if a.value == 0 else 0, line=line, col=col)
    return Not(a, line=line, col=col)


def mk_neg(a: Expr, line: int, col: int) -> Expr:
    if isinstance(a, Num):
        return Num(check_i64(-a.value, "value"), line=line, col=col)
    return Neg(a, line=line, col=col)


def mk_and(a: Expr, b: Expr, line: int, col: int) -> Expr:
    if isinstance(a, Num):
        # Quirk Q1: a true literal folds to B itself, not to B normalised to 0/1.
        return Num(0, line=line, col=col) if a.value == 0 else b
    return And(a, b, line=line, col=col)


def mk_or(a: Expr, b: Expr, line: int, col: int) -> Expr:
    if isinstance(a, Num):
        return b if a.value == 0 else Num(1, line=line, col=col)
    return Or(a, b, line=line, col=col)


def mk_seq(a: Expr, b: Expr, line: int, col: int) -> Expr:
    if isinstance(a, Num):
        return b
    return Seq(a, b, line=line, col=col)


def mk_if(c: Expr, t: Expr, e: Expr, line: int, col: int) -> Expr:
    if isinstance(c, Num):
        return e if c.value == 0 else t
    return If(c, t, e, line=line, col=col)


def mk_while(c: Expr, b: Expr, line: int, col: int) -> Expr:
    # Only `while (0)` folds; a non-zero constant condition is kept (the loop runs).
    if isinstance(c, Num) and c.value == 0:
        return Num(0, line=line, col=col)
    return While(c, b, line=line, col=col)


def mk_assign(name: str, value: Expr, line: int, col: int) -> Expr:
    return Assign(name, value, line=line, col=col)


def rebuild_binary(node: Binary, a: Expr, b: Expr) -> Expr:
    """The same binary operator as `node` over new operands, through its smart constructor."""
    return mk_binary(type(node), a, b, node.line, node.col)


# ---- canonical text (docs/naming.md) -------------------------------------------------


def _wrap(e: Expr, minimum: int) -> str:
    return e.text if e.LEVEL >= minimum else f"({e.text})"


def render(e: Expr) -> str:
    if isinstance(e, Num):
        return str(e.value)
    if isinstance(e, Var):
        return e.name
    if isinstance(e, Nondet):  # `?(0..1)` prints as `?`, as the checker prints it
        return "?" if (e.lo, e.hi) == (0, 1) else f"?({e.lo}..{e.hi})"
    if isinstance(e, Yield):
        return "yield"
    if isinstance(e, Exit):
        return "exit"
    if isinstance(e, If):
        return f"if({e.cond.text}){{{e.then.text}}}else{{{e.orelse.text}}}"
    if isinstance(e, While):
        return f"while({e.cond.text}){{ {e.body.text} }}"
    if isinstance(e, Not):
        return "!" + _wrap(e.arg, 9)
    if isinstance(e, Neg):
        return "-" + _wrap(e.arg, 9)
    if isinstance(e, Binary):
        # Left-associative: the left child may have the same level; the right one needs
        # one more. Comparisons are not associative: both children need one more.
        left = e.LEVEL if e.ASSOCIATIVE else e.LEVEL + 1
        return f"{_wrap(e.left, left)} {e.OP} {_wrap(e.right, e.LEVEL + 1)}"
    if isinstance(e, Assign):
        return f"{e.name} := {_wrap(e.value, 2)}"
    if isinstance(e, Seq):
        # Iterate along the right spine so that long statement lists do not recurse.
        parts: list[str] = []
        cur: Expr = e
        while isinstance(cur, Seq):
            parts.append(_wrap(cur.first, 2))
            cur = cur.rest
        parts.append(cur.text)
        return "; ".join(parts)
    raise TypeError(f"not an expression node: {e!r}")


def env_text(env: tuple[tuple[str, int], ...]) -> str:
    """`{A=100,B=50}`: the non-zero variables sorted by name (env tuples are sorted)."""
    return "{" + ",".join(f"{k}={v}" for k, v in env) + "}"


def local_text(env: tuple[tuple[str, int], ...], expr: Expr) -> str:
    return f"({env_text(env)}, {expr.text})"


def children(e: Expr) -> tuple[Expr, ...]:
    """The direct subexpressions of any node: the core ones by their fields (the walks
    over every node of a program run through here), any other (the parser's surface
    nodes) by its dataclass fields."""
    if isinstance(e, Seq):
        return (e.first, e.rest)
    if isinstance(e, Binary):
        return (e.left, e.right)
    if isinstance(e, (Not, Neg)):
        return (e.arg,)
    if isinstance(e, Assign):
        return (e.value,)
    if isinstance(e, If):
        return (e.cond, e.then, e.orelse)
    if isinstance(e, While):
        return (e.cond, e.body)
    if isinstance(e, (Num, Var, Nondet, Yield, Exit)):
        return ()
    return tuple(c for c in (getattr(e, n) for n in e.__dataclass_fields__)
                 if isinstance(c, Expr))


def nodes(body: Expr) -> Iterator[Expr]:
    """Every node of `body`, iteratively (a body may be nested deep)."""
    todo = [body]
    while todo:
        node = todo.pop()
        yield node
        todo.extend(children(node))


def nesting_depth(e: Expr) -> int:
    """Nesting depth, not counting the right spine of sequences (those are iterated)."""
    best = 0
    stack: list[tuple[Expr, int]] = [(e, 1)]
    while stack:
        node, d = stack.pop()
        best = max(best, d)
        if isinstance(node, Seq):
            stack.extend([(node.first, d + 1), (node.rest, d)])
        else:
            stack.extend((c, d + 1) for c in children(node))
    return best
