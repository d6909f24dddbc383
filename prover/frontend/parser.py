"""Parser for the Ser language (ser-reference §1) built on lark's LALR(1) parser.

The tree is built during parsing by an inline transformer whose callbacks are the
smart constructors of §1.4, so the result is already constant-folded. Errors become
`SerSyntaxError` (or `IntegerRangeError` for literals beyond signed 64 bits) located at
the offending token, with the line and a caret.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import lru_cache

from lark import Lark, Token, Transformer
from lark.exceptions import (
    LarkError,
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
    UnexpectedToken,
)

from prover.errors import (
    DivisionByZeroError,
    IntegerRangeError,
    SerError,
    SerSyntaxError,
    SourceLocation,
)
from prover.frontend import ast, surface
from prover.frontend.expand import core_program, expand, needs_expansion
from prover.frontend.tables import grammar_text, load_parser

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
        value = ast.I64_MIN if tok.type == "MIN_LITERAL" else _literal(tok)
        return ast.Num(value, line=tok.line or 0, col=tok.column or 0)

    def var(self, c: list[Token]) -> ast.Expr:
        tok = _not_boolean(c[0])
        return ast.Var(str(tok), line=tok.line or 0, col=tok.column or 0)

    def nondet(self, c: list[object]) -> ast.Expr:
        tok = c[0]
        assert isinstance(tok, Token)
        line, col = tok.line or 0, tok.column or 0
        if len(c) == 1:
            return ast.Nondet(line=line, col=col)
        lo, hi = _e(c[1]), _e(c[3])
        if isinstance(lo, ast.Num) and isinstance(hi, ast.Num):
            return choice(lo.value, hi.value, line, col)
        return surface.Choose(lo, hi, line=line, col=col)

    def index(self, c: list[object]) -> ast.Expr:
        name, _lsqb, index, _rsqb = c
        assert isinstance(name, Token)
        return surface.Index(str(_not_boolean(name)), _e(index), line=name.line or 0,
                             col=name.column or 0)

    def index_assign(self, c: list[object]) -> ast.Expr:
        name, _lsqb, index, _rsqb, _op, value = c
        assert isinstance(name, Token)
        return surface.IndexAssign(str(_not_boolean(name)), _e(index), _e(value),
                                   line=name.line or 0, col=name.column or 0)

    def for_(self, c: list[object]) -> ast.Expr:
        tok, var, _in, lo, _dots, hi, body = c
        assert isinstance(tok, Token) and isinstance(var, Token)
        return surface.For(str(_not_boolean(var)), _e(lo), _e(hi), _e(body),
                           line=tok.line or 0, col=tok.column or 0)

    def yield_(self, c: list[Token]) -> ast.Expr:
        return ast.Yield(line=c[0].line or 0, col=c[0].column or 0)

    def exit_(self, c: list[Token]) -> ast.Expr:
        return ast.Exit(line=c[0].line or 0, col=c[0].column or 0)

    def assert_(self, c: list[object]) -> ast.Expr:
        tok, cond = c
        assert isinstance(tok, Token)
        line, col = tok.line or 0, tok.column or 0
        return ast.mk_if(_e(cond), ast.Num(0, line=line, col=col),
                         ast.AssertFault(line=line, col=col), line, col)

    def if_(self, c: list[object]) -> ast.Expr:
        tok, cond, then, _else, orelse = c
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

    def binary(self, c: list[object]) -> ast.Expr:
        a, tok, b = c
        assert isinstance(tok, Token)
        cls = ast.BINARY_BY_OP[str(tok)]
        return _folded(cls, _e(a), _e(b), tok.line or 0, tok.column or 0)

    def neg(self, c: list[object]) -> ast.Expr:
        tok, arg = c
        assert isinstance(tok, Token)
        line, col = tok.line or 0, tok.column or 0
        try:
            return ast.mk_neg(_e(arg), line, col)
        except IntegerRangeError as exc:
            raise _FoldRange(line, col, exc.message) from None

    def and_(self, c: list[object]) -> ast.Expr:
        return ast.mk_and(*self._binary(c))

    def or_(self, c: list[object]) -> ast.Expr:
        return ast.mk_or(*self._binary(c))

    def seq(self, c: list[object]) -> ast.Expr:
        return ast.mk_seq(*self._binary(c))

    def assign(self, c: list[object]) -> ast.Expr:
        name, _op, value = c
        assert isinstance(name, Token)
        _not_boolean(name)
        return ast.mk_assign(str(name), _e(value), name.line or 0, name.column or 0)

    # top level -----------------------------------------------------------------
    def request_block(self, c: list[object]) -> ast.Request:
        kw, name, body = c
        assert isinstance(kw, Token) and isinstance(name, Token)
        return ast.Request(str(name), _e(body), line=kw.line or 0)

    def family(self, c: list[object]) -> surface.Family:
        kw, name, _lsqb, var, _in, lo, _dots, hi, _rsqb, body = c
        assert isinstance(kw, Token) and isinstance(name, Token) and isinstance(var, Token)
        return surface.Family(str(name), str(_not_boolean(var)), _e(lo), _e(hi), _e(body),
                              kw.line or 0, var.column or 0)

    def const_decl(self, c: list[object]) -> surface.Const:
        _kw, name, _op, value, _semi = c
        assert isinstance(name, Token)
        _not_boolean(name)
        return surface.Const(str(name), _e(value), name.line or 0, name.column or 0)

    def cells(self, c: list[object]) -> tuple[str, ast.Expr]:
        return ("cells", _e(c[1]))

    def initial(self, c: list[object]) -> tuple[str, ast.Expr]:
        return ("value", _e(c[1]))

    def global_init(self, c: list[object]) -> surface.Global:
        name, *parts = c
        assert isinstance(name, Token)
        _not_boolean(name)
        line, col = name.line or 0, name.column or 0
        if ast.is_local_name(str(name)):
            raise _Located(
                line, col, f"'{name}' is a local name (lower-case first letter); only globals "
                "(upper-case or '_' first) are declared, locals start at 0"
            )
        given: dict[str, ast.Expr] = dict(parts)  # type: ignore[arg-type]
        return surface.Global(str(name), given.get("cells"), given.get("value"), line, col)

    def global_decl(self, c: list[object]) -> list[surface.Global]:
        return [x for x in c if isinstance(x, surface.Global)]

    def program(self, c: list[object]) -> surface.Source:
        return _source(c, [r for r in c if isinstance(r, (ast.Request, surface.Family))])

    def bare(self, c: list[object]) -> surface.Source:
        body = _e(c[-1])
        return _source(c[:-1], [ast.Request(BARE_REQUEST_NAME, body, line=body.line)])


def _source(c: list[object], requests: list[ast.Request | surface.Family]) -> surface.Source:
    decls: list[surface.Const | surface.Global] = []
    for d in c:
        if isinstance(d, surface.Const):
            decls.append(d)
        elif isinstance(d, list):
            decls.extend(d)
    return surface.Source(tuple(decls), tuple(requests))


def choice(lo: int, hi: int, line: int, col: int) -> ast.Nondet:
    """`?(lo..hi)` over literal bounds, or a located error."""
    if not 0 <= hi - lo < ast.MAX_CHOICE_VALUES:
        raise _Located(
            line, col, f"?({lo}..{hi}) is not a range of 1 to {ast.MAX_CHOICE_VALUES} "
            "values: write the smaller bound first, and at most "
            f"{ast.MAX_CHOICE_VALUES} values (docs/limits.md)"
        )
    return ast.Nondet(lo, hi, line=line, col=col)


def _literal(tok: Token) -> int:
    # Length first: int() refuses strings over 4,300 digits (ValueError, not ours).
    if len(tok.lstrip("0")) > 19 or int(tok) > ast.I64_MAX:
        raise _LiteralRange(tok)
    return int(tok)


def _not_boolean(tok: Token) -> Token:
    if str(tok) in ("true", "false"):
        raise _Located(
            tok.line or 0, tok.column or 0, f"Ser has no '{tok}': write "
            f"{1 if str(tok) == 'true' else 0} (0 is false, any other value is true)"
        )
    return tok


class _Located(Exception):
    """A modelling error found while building the tree; `parse` adds the source line."""

    def __init__(self, line: int, col: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.col = col
        self.message = message


class _LiteralRange(Exception):
    """Raised inside a callback; converted to a located IntegerRangeError by `parse`."""

    def __init__(self, token: Token) -> None:
        super().__init__(str(token))
        self.token = token


class _FoldRange(_Located):
    pass


class _FoldDivision(_Located):
    pass


def _folded(cls: type[ast.Binary], a: ast.Expr, b: ast.Expr, line: int, col: int) -> ast.Expr:
    """Constant folding can overflow i64 or divide by zero; locate that at the operator."""
    try:
        return ast.mk_binary(cls, a, b, line, col)
    except IntegerRangeError as exc:
        raise _FoldRange(line, col, exc.message) from None
    except DivisionByZeroError:
        message = f"constant folding: {a.text} {cls.OP} 0 divides by zero"
        raise _FoldDivision(line, col, message) from None


def _e(x: object) -> ast.Expr:
    assert isinstance(x, ast.Expr), x
    return x


@lru_cache(maxsize=1)
def _lark() -> Lark:
    return load_parser(grammar_text(), transformer=_Build())


def warm_parser() -> None:
    """Build the parser now (e.g. in a parent process, before it forks its workers)."""
    _lark()


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


# Constructs of other languages: "Ser has no X: write Y" (docs/language.md).
_COMPOUND = "Ser has no '{0}=': write 'x := x {0} e'"
_CHAR_HINTS = {
    ":": "Ser has no ':': assignment is ':='",
    "&": "Ser has no '&': write '&&' (on 0/1 values)",
    "|": "Ser has no '|': write '||' (on 0/1 values)",
    '"': "Ser has no strings: values are integers",
    "'": "Ser has no characters or strings: values are integers",
}


def _char_hint(ch: str, before: str) -> str | None:
    if ch == "=":
        for op in ("&&", "||", "+", "-", "*", "/", "%"):
            if before.endswith(op):
                return _COMPOUND.format(op)
        return "Ser has no '=': write '==' to compare or ':=' to assign"
    return _CHAR_HINTS.get(ch)


_NOT_SER_WORDS = {
    "return": "Ser has no 'return': a request answers the value of its last expression",
    "int": "Ser has no declarations: a local starts at 0, write 'x := e'",
    "var": "Ser has no declarations: a local starts at 0, write 'x := e'",
    "let": "Ser has no declarations: a local starts at 0, write 'x := e'",
    "then": "Ser has no 'then': write 'if (c) { ... } else { ... }'",
    "do": "Ser has no 'do': write 'while (c) { ... }'",
    "elif": "Ser has no 'elif': write 'else if (c) { ... }'",
}


def _token_hint(tok: Token, before: str, accepted: set[str]) -> str | None:
    """A hint for a construct from another language, or None."""
    last_word = before.rsplit(None, 1)[-1] if before.split() else ""
    if tok.type == "PLUS" and before.endswith("+"):
        return "Ser has no '++': write 'x := x + 1'"
    if before.endswith("--") and tok.type in ("SEMI", "RBRACE", "RPAR", "$END"):
        return "Ser has no '--': write 'x := x - 1'"
    if tok.type == "STAR" and before.endswith("/"):
        return "Ser has no '/* */' comments: write '// ...' to the end of the line"
    if tok.type == "STAR" and before.endswith("*"):
        return "Ser has no '**': write the product 'x * x * ...'"
    if tok.type == "GT" and before.endswith("<"):
        return "Ser has no '<>': write '!='"
    if last_word in _NOT_SER_WORDS and tok.type != "ASSIGN":
        return _NOT_SER_WORDS[last_word]
    if tok.type in ("EQ", "NE", "LT", "LE", "GT", "GE") and "AND" in accepted:
        return (f"comparisons do not chain in Ser: write 'a < b && b < c', or put the first "
                f"comparison in parentheses before '{tok}'")
    if accepted == {"ELSE"}:
        return "Ser's 'if' needs an 'else': write 'else { 0 }' when there is nothing to do"
    if accepted == {"IN"}:
        return "Ser's `for` runs over a constant range: write 'for (i in LO..HI) { ... }'"
    if tok.type == "GLOBAL":
        return "the 'global' declarations come first, before the first request"
    if tok.type == "LBRACE":
        return "braces only enclose the branches of 'if' and the body of 'while': group with ( )"
    return None


def _syntax_error(exc: UnexpectedInput, source: str, path: str) -> SerError:
    if isinstance(exc, UnexpectedCharacters):
        pos = exc.pos_in_stream or 0
        ch = source[pos] if pos < len(source) else ""
        shown = repr(ch) if ch.isprintable() else f"U+{ord(ch):04X}" if ch else "?"
        hint = _char_hint(ch, source[:pos].rstrip())
        return SerSyntaxError(
            hint or f"unexpected character {shown}", location(source, path, exc.line, exc.column)
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
            return SerSyntaxError(
                "Ser has no trailing ';': ';' separates expressions, remove the last one", loc
            )
        if not source_has_code(source):
            return SerSyntaxError("no request and no expression found", loc)
        accepted = _accepted(exc)
        hint = _token_hint(tok, before, accepted)
        if hint is not None:
            return SerSyntaxError(hint, loc)
        expected = _describe_expected(accepted)
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


def parse(source: str, path: str = "<string>",
          defines: Mapping[str, int] | None = None) -> ast.Program:
    """Parse a Ser file: request blocks, or one bare expression named `request`; constants,
    arrays, families and `for`s written out (prover/frontend/expand.py), the constants
    named in `defines` (`-D NAME=VALUE`) given those values."""
    try:
        tree = _lark().parse(source)
    except _LiteralRange as exc:
        tok = exc.token
        raise IntegerRangeError(
            f"integer literal {tok if len(tok) <= 40 else f'{tok[:20]}... ({len(tok)} digits)'}"
            " does not fit in signed 64 bits",
            location(source, path, tok.line or 1, tok.column or 1),
        ) from None
    except _FoldRange as exc:
        raise IntegerRangeError(
            f"constant folding: {exc.message}", location(source, path, exc.line, exc.col)
        ) from None
    except _FoldDivision as exc:
        raise DivisionByZeroError(exc.message, location(source, path, exc.line, exc.col)) from None
    except _Located as exc:
        raise SerSyntaxError(exc.message, location(source, path, exc.line, exc.col)) from None
    except UnexpectedInput as exc:
        raise _syntax_error(exc, source, path) from None
    except LarkError as exc:  # defensive: any other lark failure is still a syntax error
        raise SerSyntaxError(f"cannot parse: {str(exc).splitlines()[0]}") from None
    assert isinstance(tree, surface.Source)
    for r in tree.requests:
        if ast.nesting_depth(r.body) > MAX_NESTING:
            raise SerSyntaxError(f"request '{r.name}' is nested more than {MAX_NESTING} levels "
                                 "deep", location(source, path, r.line or 1, 1))

    def where(line: int, col: int) -> SourceLocation | None:
        return location(source, path, line, col) if line else None

    if defines or needs_expansion(tree):
        program = expand(tree, defines or {}, where)
        for req in program.requests:
            if ast.nesting_depth(req.body) > MAX_NESTING:
                raise SerSyntaxError(
                    f"request '{req.name}' written out is nested more than {MAX_NESTING} levels "
                    "deep (an index into a long array by a value not known while reading "
                    "nests one `if` per cell)", location(source, path, req.line or 1, 1))
        return program
    requests = [r for r in tree.requests if isinstance(r, ast.Request)]
    initial = {d.name: d.value.value for d in tree.decls
               if isinstance(d, surface.Global) and isinstance(d.value, ast.Num)}
    initial.update((d.name, 0) for d in tree.decls if isinstance(d, surface.Global)
                   and d.value is None)
    _no_repeated_global(tree, where)
    return core_program(requests, initial, where)


def _no_repeated_global(tree: surface.Source, where: Callable[[int, int], SourceLocation | None]
                        ) -> None:
    seen: dict[str, int] = {}
    for d in tree.decls:
        if d.name in seen:
            raise SerSyntaxError(f"global '{d.name}' is given an initial value twice (first on "
                                 f"line {seen[d.name]})", where(d.line, d.col))
        seen[d.name] = d.line

