"""LTL-X formulas over the states of a Ser program: syntax, types and names (docs/ltl.md).

`parse_formula(text, globals_, requests)` gives a typed tree of frozen dataclasses or a
FormulaError with the column. Terms are integers (globals, literals, `inflight(R)`,
`done(R)`, `answered(R, v)`, arithmetic with Ser's meaning); formulas are comparisons of
terms, `true`, `false`, the Boolean connectives and G, F, U, R, W. `X` (next) is refused:
LTL-X is what stays true when a step is repeated, which the partial-order reduction needs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, TypeGuard

import lark

from prover.errors import FormulaError

GRAMMAR = Path(__file__).with_name("formula.lark")

# ---------------------------------------------------------------- terms (integers)


@dataclass(frozen=True)
class Num:
    value: int


@dataclass(frozen=True)
class Global:
    name: str


@dataclass(frozen=True)
class Count:
    """inflight(R), done(R) (answered, any value) or answered(R, v) (answered v)."""

    kind: str  # "inflight" | "done" | "answered"
    request: str
    value: int | None = None


@dataclass(frozen=True)
class Arith:
    op: str  # + - * / % (Ser's: / truncates toward zero), or "neg" (b unused)
    a: Term
    b: Term | None = None


Term = Num | Global | Count | Arith

# ---------------------------------------------------------------- formulas


@dataclass(frozen=True)
class Const:
    value: bool


@dataclass(frozen=True)
class Compare:
    op: str  # == != < <= > >=
    a: Term
    b: Term

    @property
    def text(self) -> str:
        return f"{term_text(self.a)} {self.op} {term_text(self.b)}"


def term_text(t: Term) -> str:
    if isinstance(t, Num):
        return str(t.value)
    if isinstance(t, Global):
        return t.name
    if isinstance(t, Count):
        return f"answered({t.request}, {t.value})" if t.kind == "answered" else \
            f"{t.kind}({t.request})"
    if t.b is None:
        return f"-({term_text(t.a)})"
    return f"({term_text(t.a)} {t.op} {term_text(t.b)})"


@dataclass(frozen=True)
class Not:
    arg: Formula


@dataclass(frozen=True)
class Binary:
    op: str  # && || -> <-> U R W
    a: Formula
    b: Formula


@dataclass(frozen=True)
class Unary:
    op: str  # G F
    arg: Formula


Formula = Const | Compare | Not | Binary | Unary

_WORDS = {"always": "G", "eventually": "F", "next": "X", "until": "U", "release": "R",
          "weak-until": "W", "[]": "G", "<>": "F"}  # SPIN's notation


@cache
def _parser() -> lark.Lark:
    return lark.Lark(GRAMMAR.read_text(encoding="utf-8"), parser="earley", lexer="dynamic",
                     ambiguity="resolve", propagate_positions=True)


MAX_LENGTH = 10_000  # characters: what a certificate's `ltl.formula` may hold
MAX_OPERATORS = 256  # and the checker's bounds (checker/temporal.py): both parsers are
MAX_NESTING = 64  # Earley parsers, whose cost grows fast with nesting


def _operators(text: str) -> int:
    return len(re.findall(r"<->|->|&&|\|\||[=!<>]=|[-+*/%<>!]|\b(?:[GFXURW]|always|"
                          r"eventually|next|until|release|weak-until)\b", text))


def _nesting(text: str) -> int:
    depth = deepest = 0
    for ch in text:
        depth += (ch == "(") - (ch == ")")
        deepest = max(deepest, depth)
    return deepest


def shown(text: str, most: int = 60) -> str:
    """The formula as a message quotes it: cut short when long."""
    return repr(text) if len(text) <= most else repr(text[:most]) + f"... ({len(text)} characters)"


def check_size(text: str) -> None:
    """Refuse, before any parsing, a formula a certificate could not carry or the checker
    would refuse to parse (the same bounds on both sides)."""
    if len(text) > MAX_LENGTH:
        raise FormulaError(f"the formula has {len(text)} characters, more than the "
                           f"{MAX_LENGTH} a certificate can carry")
    if _operators(text) > MAX_OPERATORS:
        raise FormulaError(f"the formula has {_operators(text)} operators, more than "
                           f"{MAX_OPERATORS}")
    if _nesting(text) > MAX_NESTING:
        raise FormulaError(f"the formula nests parentheses {_nesting(text)} deep, more than "
                           f"{MAX_NESTING}")


def parse_formula(text: str, globals_: frozenset[str], requests: frozenset[str]) -> Formula:
    """The formula `text` over a program with these globals and request names."""
    check_size(text)
    try:
        tree = _parser().parse(text)
    except lark.exceptions.UnexpectedCharacters as exc:
        bad = text[exc.pos_in_stream or 0]
        raise FormulaError(f"column {exc.column}: unexpected character {bad!r}") from None
    except lark.exceptions.UnexpectedEOF:
        raise FormulaError(f"column {len(text) + 1}: the formula ends too early") from None
    except lark.exceptions.UnexpectedInput as exc:
        raise FormulaError(f"column {getattr(exc, 'column', '?')}: unexpected input") from None
    return _Build(text, globals_, requests).formula(tree)


def _column(node: Any) -> int:
    meta = getattr(node, "meta", None)
    if meta is not None and not getattr(meta, "empty", True):
        return int(meta.column)
    return int(getattr(node, "column", 0) or 0)


class _Build:
    """Parse tree → typed formula: every subtree is a term or a formula, never both."""

    def __init__(self, text: str, globals_: frozenset[str], requests: frozenset[str]) -> None:
        self.text, self.globals_, self.requests = text, globals_, requests

    def fail(self, node: Any, message: str) -> FormulaError:
        return FormulaError(f"column {_column(node)}: {message}")

    def formula(self, t: Any) -> Formula:
        kind = t.data if isinstance(t, lark.Tree) else None
        if kind == "true" or kind == "false":
            return Const(kind == "true")
        if kind == "compare":
            a, op, b = t.children
            return Compare(str(op), self.term(a), self.term(b))
        if kind == "not_":
            return Not(self.formula(t.children[0]))
        if kind == "temporal":
            op, arg = t.children
            letter = _WORDS.get(str(op), str(op))
            if letter == "X":
                raise self.fail(op, "X (next) is not allowed: properties here are LTL-X, "
                                "insensitive to repeated states (a global named X is fine "
                                "where an operand fits, e.g. X == 1)")
            return Unary(letter, self.formula(arg))
        if kind in ("iff", "impl", "or_", "and_", "binary"):
            return self._chain(t)
        what = "an integer term" if kind in ("num", "var", "count", "answered", "sum",
                                                "product", "neg") else "this"
        raise self.fail(t, f"{what} is not a formula: compare it (e.g. {self._text(t)} != 0)")

    def _chain(self, t: Any) -> Formula:
        kids = t.children
        ops = {"iff": "<->", "impl": "->", "or_": "||", "and_": "&&"}
        if t.data == "binary":
            a, op, b = kids
            return Binary(_WORDS.get(str(op), str(op)), self.formula(a), self.formula(b))
        if t.data == "impl":
            return Binary("->", self.formula(kids[0]), self.formula(kids[1]))
        out = self.formula(kids[0])
        for k in kids[1:]:
            out = Binary(ops[t.data], out, self.formula(k))
        return out

    def term(self, t: Any) -> Term:
        kind = t.data if isinstance(t, lark.Tree) else None
        if kind == "num":
            return Num(int(t.children[0]))
        if kind == "var":
            name = str(t.children[0])
            if name not in self.globals_:
                known = ", ".join(sorted(self.globals_)) or "none"
                raise self.fail(t, f"unknown global {name} (the program's globals: {known})")
            return Global(name)
        if kind in ("count", "answered"):
            req = str(t.children[-1] if kind == "count" else t.children[0])
            if req not in self.requests:
                known = ", ".join(sorted(self.requests))
                raise self.fail(t, f"unknown request {req} (the program's: {known})")
            if kind == "answered":
                return Count("answered", req, int(t.children[1]))
            return Count(str(t.children[0]), req)
        if kind == "neg":
            return Arith("neg", self.term(t.children[0]))
        if kind in ("sum", "product"):
            out = self.term(t.children[0])
            for op, k in zip(t.children[1::2], t.children[2::2], strict=True):
                out = Arith(str(op), out, self.term(k))
            return out
        raise self.fail(t, f"{self._text(t)} is a formula, but a number is needed here")

    def _text(self, t: Any) -> str:
        meta = getattr(t, "meta", None)
        if meta is None or getattr(meta, "empty", True):
            return str(t)
        return self.text[meta.start_pos:meta.end_pos]


def is_state_formula(f: Formula) -> bool:
    """Whether `f` has no temporal operator: true or false in each single state."""
    if isinstance(f, Unary):
        return False
    if isinstance(f, Binary):
        return f.op in ("&&", "||", "->", "<->") and is_state_formula(f.a) \
            and is_state_formula(f.b)
    if isinstance(f, Not):
        return is_state_formula(f.arg)
    return True


def is_safety(f: Formula) -> TypeGuard[Unary]:
    """Whether `f` is `G p` with p a state formula."""
    return isinstance(f, Unary) and f.op == "G" and is_state_formula(f.arg)
