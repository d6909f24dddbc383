"""The checker's own reading of LTL-X formulas (docs/ltl.md): its grammar (ltl.lark),
bounded before parsing, to tuples: ("cmp", op, a, b), ("not", f), (G|F, f),
(U|R|W|&&|"||"|->|<->, f, g), ("const", b); terms ("num", n), ("var", X),
("count", inflight|done, request, value or None), ("arith", op, a, b)."""

from __future__ import annotations

import importlib.resources
import itertools
import re
from collections.abc import Iterator
from functools import cache
from typing import Any

import lark

from checker.errors import LimitError, invalid

Json = Any
_WORD = {"always": "G", "eventually": "F", "next": "X", "until": "U", "release": "R",
         "weak-until": "W", "iff": "<->", "impl": "->", "or_": "||", "and_": "&&",
         "[]": "G", "<>": "F"}  # SPIN's notation


@cache
def _parser() -> lark.Lark:
    grammar = (importlib.resources.files("checker") / "ltl.lark").read_text(encoding="utf-8")
    return lark.Lark(grammar, parser="earley", lexer="dynamic", ambiguity="resolve")


MAX_OPERATORS, MAX_NESTING = 256, 64  # the prover's bounds (prover/ltl/formula.py)


def parse_formula(text: str) -> Json:
    """Bounded before parsing: an Earley parse of a deeply nested formula takes minutes
    and gigabytes (3,000 nested `F`), and a certificate is hostile input."""
    ops = len(re.findall(r"<->|->|&&|\|\||[=!<>]=|[-+*/%<>!]|\b(?:[GFXURW]|always|"
                         r"eventually|next|until|release|weak-until)\b", text))
    depth = max(itertools.accumulate((c == "(") - (c == ")") for c in text), default=0)
    if ops > MAX_OPERATORS or depth > MAX_NESTING:
        raise LimitError(f"the formula has {ops} operators and nests {depth} deep (limits "
                         f"{MAX_OPERATORS}, {MAX_NESTING})")
    try:
        tree = _parser().parse(text)
    except lark.exceptions.LarkError as exc:
        raise invalid("E-LTL-FORMULA", f"the formula does not parse: {str(exc).strip()}"
                      .splitlines()[0]) from None
    try:
        return _formula(tree)
    except ValueError:  # Python's limit on the digits of one integer literal
        raise invalid("E-LTL-FORMULA", "an integer literal is too long") from None


def nodes(f: Json) -> Iterator[Json]:
    """Every subformula and subterm of `f`, `f` first."""
    yield f
    for x in f[1:]:
        if isinstance(x, tuple):
            yield from nodes(x)


def parse_for(requests: set[str], text: str) -> Json:
    """The formula, whose request counts must name requests of the model."""
    f = parse_formula(text)
    unknown = {n[2] for n in nodes(f) if n[0] == "count"} - requests
    if unknown:
        raise invalid("E-LTL-FORMULA", f"no request of the model is named {min(unknown)}")
    return f


def _formula(t: Any) -> Json:
    kind, c = (t.data, list[Any](t.children)) if isinstance(t, lark.Tree) else (None, [])
    if kind in ("true", "false"):
        return ("const", kind == "true")
    if kind == "compare":
        return ("cmp", str(c[1]), _term(c[0]), _term(c[2]))
    if kind == "not_":
        return ("not", _formula(c[0]))
    if kind == "temporal":
        if _WORD.get(str(c[0]), str(c[0])) == "X":
            raise invalid("E-LTL-FORMULA", "X (next) is not an LTL-X operator")
        return (_WORD.get(str(c[0]), str(c[0])), _formula(c[1]))
    if kind == "binary":
        return (_WORD.get(str(c[1]), str(c[1])), _formula(c[0]), _formula(c[2]))
    if kind in ("iff", "impl", "or_", "and_"):
        return (_WORD[kind], _formula(c[0]), _formula(c[1]))
    raise invalid("E-LTL-FORMULA", "an integer term stands where a formula is needed")


def _term(t: Any) -> Json:
    kind, c = (t.data, list[Any](t.children)) if isinstance(t, lark.Tree) else (None, [])
    if kind == "num":
        return ("num", int(c[0]))
    if kind == "var":
        return ("var", str(c[0]))
    if kind in ("count", "answered"):  # answered(R, v): the answers equal to v
        return ("count", str(c[0]), str(c[1]), None) if kind == "count" else \
            ("count", "done", str(c[0]), str(int(c[1])))
    if kind == "neg":
        return ("arith", "-", ("num", 0), _term(c[0]))
    if kind == "arith":
        return ("arith", str(c[1]), _term(c[0]), _term(c[2]))
    raise invalid("E-LTL-FORMULA", "a formula stands where an integer term is needed")
