"""The forms of Ser that name sizes: constants, arrays, request families, `for` loops
(docs/language.md, "Constants, arrays and request families").

The parser builds these nodes beside the core ones; `prover/frontend/expand.py` replaces
each of them by core Ser before anything else reads the program, so no engine, printer
or certificate ever meets one. They are `ast.Expr`s only so that the core nodes' smart
constructors may hold them as children until then.
"""

from __future__ import annotations

from dataclasses import dataclass

from prover.frontend import ast


@dataclass(frozen=True)
class Index(ast.Expr):
    """`A[index]`: one cell of the array of globals `A`."""

    array: str
    index: ast.Expr


@dataclass(frozen=True)
class IndexAssign(ast.Expr):
    """`A[index] := value`: the index is evaluated first, then the value."""

    array: str
    index: ast.Expr
    value: ast.Expr
    LEVEL = 2


@dataclass(frozen=True)
class For(ast.Expr):
    """`for (var in lo..hi) { body }`: the body once per value, `var` a constant in each."""

    var: str
    lo: ast.Expr
    hi: ast.Expr
    body: ast.Expr


@dataclass(frozen=True)
class Choose(ast.Expr):
    """`?(lo..hi)` whose bounds are constant expressions not yet known to be literals."""

    lo: ast.Expr
    hi: ast.Expr


@dataclass(frozen=True)
class Const:
    """`const name := value;`"""

    name: str
    value: ast.Expr
    line: int
    col: int


@dataclass(frozen=True)
class Global:
    """One global of a `global` line: a scalar (`cells` None) or an array of `cells`."""

    name: str
    cells: ast.Expr | None
    value: ast.Expr | None
    line: int
    col: int


@dataclass(frozen=True)
class Family:
    """`request name[var in lo..hi] { body }`: one request `name[k]` per k in lo..hi."""

    name: str
    var: str
    lo: ast.Expr
    hi: ast.Expr
    body: ast.Expr
    line: int
    col: int


@dataclass(frozen=True)
class Source:
    """A file as written: declarations in order, then requests (ast.Request or Family)."""

    decls: tuple[Const | Global, ...]
    requests: tuple[ast.Request | Family, ...]


SURFACE_NODES = (Index, IndexAssign, For, Choose)
