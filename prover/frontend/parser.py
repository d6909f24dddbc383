"""Parser for the Ser language (ser-reference §1) built on lark's LALR(1) parser.

The tree is built during parsing by an inline transformer whose callbacks are the
smart constructors of §1.4, so the result is already constant-folded. Errors become
`SerSyntaxError` (or `IntegerRangeError` for literals beyond signed 64 bits) located at
the offending token, with the line and a caret.
"""

from __future__ import annotations

import importlib.resources
from functools import lru_cache

from lark import Lark, Token, Transformer
from lark.exceptions import (
    LarkError,
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
    UnexpectedToken,
)

from prover.errors import IntegerRangeError, SerError, SerSyntaxError, SourceLocation
from prover.frontend import ast

GRAMMAR_PATH = importlib.resources.files("prover.frontend") / "grammar.lark"

# Nesting deeper than this is rejected: the compiler and printer recurse over the tree
# (sequences excepted), and Python's stack is finite. Real programs nest < 30.
MAX_NESTING = 200

BARE_REQUEST_NAME = "request"

_FRIENDLY = {"NAME": "an identifier", "INT": "an integer", "$END": "end of input"}


class _Build(Transformer[Token, object]):
    """LALR callbacks: build folded AST nodes, positioned at their operator token."""

    def __init__(self) -> None:
        super().__init__(visit_tokens=False)

    # expressions ---------------------------------------------------------------
    def num(self, c: list[Token]) -> ast.Expr:
        tok = c[0]
        value = int(tok)
        if value > ast.I64_MAX:
            raise _LiteralRange(tok)
        return ast.Num(value, line=tok.line or 0, col=tok.column or 0)

    def var(self, c: list[Token]) -> ast.Expr:
        tok = c[0]
        return ast.Var(str(tok), line=tok.line or 0, col=tok.column or 0)

    def nondet(self, c: list[Token]) -> ast.Expr:
        return ast.Nondet(line=c[0].line or 0, col=c[0].column or 0)

    def yield_(self, c: list[Token]) -> ast.Expr:
        return ast.Yield(line=c[0].line or 0, col=c[0].column or 0)

    def exit_(self, c: list[Token]) -> ast.Expr:
        return ast.Exit(line=c[0].line or 0, col=c[0].column or 0)

    def if_(self, c: list[object]) -> ast.Expr:
        tok, cond, then, orelse = c
        assert isinstance(tok, Token)
        return ast.mk_if(_e(cond), _e(then), _e(orelse), tok.line or 0, tok.column or 0)

    def while_(self, c: list[object]) -> ast.Expr:
        tok, cond, body = c
        assert isinstance(tok, Token)
        return ast.mk_while(_e(cond), _e(body), tok.line or 0, tok.column or 0)

    def not_(self, c: list[object]) -> ast.Expr:
        tok, arg = c
        assert isinstance(tok, Token)
        return ast.mk_not(_e(arg), tok.line or 0, tok.column or 0)

    def _binary(self, c: list[object]) -> tuple[ast.Expr, ast.Expr, int, int]:
        a, tok, b = c
        assert isinstance(tok, Token)
        return _e(a), _e(b), tok.line or 0, tok.column or 0

    def add(self, c: list[object]) -> ast.Expr:
        return _folded(ast.mk_add, *self._binary(c))

    def sub(self, c: list[object]) -> ast.Expr:
        return _folded(ast.mk_sub, *self._binary(c))

    def eq(self, c: list[object]) -> ast.Expr:
        return ast.mk_eq(*self._binary(c))

    def and_(self, c: list[object]) -> ast.Expr:
        return ast.mk_and(*self._binary(c))

    def or_(self, c: list[object]) -> ast.Expr:
        return ast.mk_or(*self._binary(c))

    def seq(self, c: list[object]) -> ast.Expr:
        return ast.mk_seq(*self._binary(c))

    def assign(self, c: list[object]) -> ast.Expr:
        name, _op, value = c
        assert isinstance(name, Token)
        return ast.mk_assign(str(name), _e(value), name.line or 0, name.column or 0)

    # top level -----------------------------------------------------------------
    def request_block(self, c: list[object]) -> ast.Request:
        kw, name, body = c
        assert isinstance(kw, Token) and isinstance(name, Token)
        return ast.Request(str(name), _e(body), line=kw.line or 0)

    def program(self, c: list[object]) -> ast.Program:
        reqs = tuple(r for r in c if isinstance(r, ast.Request))
        return ast.Program(reqs)

    def bare(self, c: list[object]) -> ast.Program:
        body = _e(c[0])
        return ast.Program((ast.Request(BARE_REQUEST_NAME, body, line=body.line),))


class _LiteralRange(Exception):
    """Raised inside a callback; converted to a located IntegerRangeError by `parse`."""

    def __init__(self, token: Token) -> None:
        super().__init__(str(token))
        self.token = token


class _FoldRange(Exception):
    def __init__(self, line: int, col: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.col = col
        self.message = message


def _folded(fn: object, a: ast.Expr, b: ast.Expr, line: int, col: int) -> ast.Expr:
    """Constant folding of `+`/`-` can overflow i64; locate that error at the operator."""
    try:
        result = fn(a, b, line, col)  # type: ignore[operator]
    except IntegerRangeError as exc:
        raise _FoldRange(line, col, exc.message) from None
    assert isinstance(result, ast.Expr)
    return result


def _e(x: object) -> ast.Expr:
    assert isinstance(x, ast.Expr), x
    return x


@lru_cache(maxsize=1)
def _lark() -> Lark:
    return Lark(
        GRAMMAR_PATH.read_text(encoding="utf-8"),
        parser="lalr",
        lexer="basic",
        transformer=_Build(),
        maybe_placeholders=False,
    )


def location(source: str, path: str, line: int, col: int) -> SourceLocation:
    lines = source.split("\n")
    text = lines[line - 1] if 1 <= line <= len(lines) else ""
    # Tabs become single spaces so that the caret lines up with the column.
    text = text.rstrip("\r").replace("\t", " ")
    return SourceLocation(path, line, col, text)


def _end_location(source: str, path: str) -> SourceLocation:
    lines = source.split("\n")
    while len(lines) > 1 and not lines[-1].strip():
        lines.pop()
    return location(source, path, len(lines), len(lines[-1].rstrip("\r")) + 1)


def _describe_expected(expected: set[str]) -> str:
    names: list[str] = []
    for term in sorted(expected):
        if term in _FRIENDLY:
            names.append(_FRIENDLY[term])
            continue
        try:
            pattern = _lark().get_terminal(term).pattern
        except KeyError:
            names.append(term)
            continue
        names.append(f"'{pattern.value}'" if pattern.type == "str" else term)
    return ", ".join(sorted(set(names)))


def _accepted(exc: UnexpectedToken) -> set[str]:
    """The terminals really acceptable here: LALR's `expected` set also contains the
    lookaheads of default reductions, so ask the interactive parser when possible."""
    ip = getattr(exc, "interactive_parser", None)
    if ip is not None:
        try:
            acc = set(ip.accepts())
        except Exception:  # noqa: BLE001 - only a nicer message is at stake
            acc = set()
        if acc:
            return acc
    return set(exc.expected)


def _token_text(tok: Token) -> str:
    if tok.type == "$END":
        return "end of input"
    if tok.type == "NAME":
        return f"identifier '{tok}'"
    if tok.type == "INT":
        return f"integer {tok}"
    return f"'{tok}'"


def _syntax_error(exc: UnexpectedInput, source: str, path: str) -> SerError:
    if isinstance(exc, UnexpectedCharacters):
        pos = exc.pos_in_stream or 0
        ch = source[pos] if pos < len(source) else ""
        hint = {":": " (assignment is ':=')", "=": " (equality is '==')",
                "&": " (conjunction is '&&')", "|": " (disjunction is '||')",
                "/": " (comments start with '//')"}.get(ch, "")
        shown = repr(ch) if ch.isprintable() else f"U+{ord(ch):04X}" if ch else "?"
        return SerSyntaxError(
            f"unexpected character {shown}{hint}",
            location(source, path, exc.line, exc.column),
        )
    if isinstance(exc, UnexpectedToken):
        tok = exc.token
        at_end = tok.type == "$END"
        loc = (
            _end_location(source, path)
            if at_end or not tok.line
            else location(source, path, tok.line, tok.column or 1)
        )
        start = tok.start_pos or 0
        before = source[:start].rstrip() if not at_end else ""
        if at_end:
            before = source.rstrip()
        if before.endswith(";") and tok.type in ("RBRACE", "$END"):
            return SerSyntaxError("a ';' must be followed by an expression (no trailing ';')", loc)
        if not source_has_code(source):
            return SerSyntaxError("no request and no expression found", loc)
        expected = _describe_expected(_accepted(exc))
        return SerSyntaxError(f"unexpected {_token_text(tok)}; expected {expected}", loc)
    if isinstance(exc, UnexpectedEOF):
        return SerSyntaxError("unexpected end of input", _end_location(source, path))
    return SerSyntaxError(str(exc).splitlines()[0], None)


def source_has_code(source: str) -> bool:
    """Whether anything but whitespace and comments is present."""
    for line in source.split("\n"):
        code = line.split("//", 1)[0].strip()
        if code:
            return True
    return False


def parse(source: str, path: str = "<string>") -> ast.Program:
    """Parse a Ser file: request blocks, or one bare expression named `request`."""
    try:
        tree = _lark().parse(source)
    except _LiteralRange as exc:
        tok = exc.token
        raise IntegerRangeError(
            f"integer literal {tok} does not fit in signed 64 bits",
            location(source, path, tok.line or 1, tok.column or 1),
        ) from None
    except _FoldRange as exc:
        raise IntegerRangeError(
            f"constant folding: {exc.message}", location(source, path, exc.line, exc.col)
        ) from None
    except UnexpectedInput as exc:
        raise _syntax_error(exc, source, path) from None
    except LarkError as exc:  # defensive: any other lark failure is still a syntax error
        raise SerSyntaxError(f"cannot parse: {str(exc).splitlines()[0]}") from None
    assert isinstance(tree, ast.Program)
    for req in tree.requests:
        if ast.nesting_depth(req.body) > MAX_NESTING:
            raise SerSyntaxError(
                f"request '{req.name}' is nested more than {MAX_NESTING} levels deep",
                location(source, path, req.line or 1, 1),
            )
    return tree
