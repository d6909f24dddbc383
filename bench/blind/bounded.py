#!/usr/bin/env python3
"""Independent bounded-search serializability oracle for the Ser language.

Usage::

    python bench/blind/bounded.py MODEL.ser [--max-requests K] [--max-states N] [--json]
    python bench/blind/bounded.py --selftest

Written only from ``docs/language.md`` and ``docs/language-additions.md``; it shares
no code with the prover or the checker.

Semantics implemented (doc section in brackets)
-----------------------------------------------
* Syntax [language.md "Files", "Expressions"; additions "Operators", "Initial values
  of globals", "Ranged choice"]: optional ``global NAME := [-]INT, ...;`` lines, then
  either blocks ``request NAME { EXPR }`` (distinct names) or one bare expression
  (one handler named ``request``).  Binding from loosest to tightest (C's): ``;``
  (right), ``:=`` (right, only directly after a name), ``||``, ``&&``, ``== !=``
  (non-chaining), ``< <= > >=`` (non-chaining), ``+ -``, ``* / %``, prefix ``! -``.
  ``if (c) {t} else {e}`` needs its ``else`` (``else if`` nests), ``while (c) {b}``,
  ``yield``, ``exit``, ``?`` = ``?(0..1)``, ``?(lo..hi)`` with literal bounds,
  ``lo <= hi``, at most 1,024 values.  No trailing ``;``, no empty braces,
  ``true``/``false`` rejected, ``//`` comments.
* Values [language.md "Values and variables"; additions "Operators"]: signed 64-bit;
  every operation is range-checked (``E-INT-RANGE``); ``/`` truncates toward zero and
  ``%`` takes the sign of the dividend (C); division/remainder by zero is
  ``E-DIV-ZERO``.  Names starting with a lower-case letter are locals (0 when a
  request arrives); all other names are globals (0 or their declared value at
  system start).  A variable set back to 0 is the same state as one never set
  (variables are stored positionally, so this holds by construction).
* Constant folding [language.md "Constant folding"]: applied to the program when it is
  read and to the residual program rebuilt after every ``yield``: operators on
  literals are computed, ``if (lit)`` picks its branch, ``while (0) {b}`` is ``0``,
  a literal first statement of ``;`` is dropped, ``0 && b`` is ``0``, ``n && b``
  (n a non-zero literal) is ``b`` itself, ``0 || b`` is ``b`` itself, ``n || b`` is
  ``1``.  Folding is *not* applied in the middle of an atomic step, so
  ``x := 1; X := (x && 5)`` stores 1 while ``X := (1 && 5)`` stores 5.
* Execution [language.md "Execution"]: a request's local state is (residual program,
  locals).  One atomic step runs the residual from where it stands up to and including
  the next ``yield`` (the residual is then the evaluation context with the ``yield``
  replaced by its value 0, already-evaluated operands replaced by their values, then
  folded) or to the end of the body (its value is the response).  Evaluation is left
  to right; ``&&``/``||`` short-circuit.  ``while (c) {b}`` unfolds to
  ``if (c) {b; while (c) {b}} else {0}``, so a loop whose condition yields finishes
  the condition after the ``yield`` and re-tests the *original* condition next time.
  Inside one atomic step, a configuration that repeats at a loop head means that path
  can never finish: that request is stuck and never responds (no error).  ``?`` and
  ``?(lo..hi)`` explore every value.
* Errors [language.md table row ``exit``, "Additions"; additions "Errors at run time"]:
  a reachable ``exit`` (``E-EXIT``), division by zero or overflow is an error of the
  model; the path that hits it is dropped (the request never responds).  The search
  goes on; if a counterexample is found the errors are reported beside it as warnings,
  otherwise the result is ``error``.  An atomic step whose loop keeps growing beyond
  ``--step-bound`` loop-head configurations is ``E-STATE-BOUND``.  Errors while
  folding literal operators at read time (``1 / 0``) reject the model.
* Serializability [language.md "Serializability"]: for a multiset M of requests, the
  concurrent outcomes are the multisets of (request, response) of executions of
  exactly the requests in M that end with every request answered; the serial outcomes
  are those of running M one request at a time (every order, every nondeterministic
  choice, ``yield`` a no-op) from the initial globals.  M is a counterexample iff some
  concurrent outcome is not a serial outcome.  Arrival and response are events that
  touch no global, so all requests of M are put in flight at the start and a request
  answers as soon as its body is evaluated: this changes no outcome.

Search: multisets by increasing size (then lexicographically by handler order), stop at
the first counterexample.  A multiset whose requests split into groups that share no
global is skipped (its outcomes and errors are products of those of smaller
multisets, already checked); ``--all-multisets`` disables that.  The concurrent search is
a BFS over (globals, multiset of (handler, residual, locals), multiset of responses);
``--max-states`` caps concurrent plus serial states over the whole run.

Exit codes: 0 no counterexample, 1 counterexample, 2 error (model rejected or a
reachable run-time error and no counterexample), 3 incomplete (state cap hit).
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import sys
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Iterator, Optional

INT_MIN = -(1 << 63)
INT_MAX = (1 << 63) - 1
MAX_CHOICE_VALUES = 1024
KEYWORDS = frozenset({"request", "global", "if", "else", "while", "yield", "exit"})

Pos = tuple[int, int]
# Expressions are hashable tuples:
#   ("lit", v) ("lv", i) ("gv", i) ("la", i, e) ("ga", i, e) ("seq", a, b)
#   ("if", c, t, e) ("while", c, b) ("yield",) ("choice", lo, hi) ("exit", pos)
#   ("bin", op, a, b, pos) ("and", a, b) ("or", a, b) ("not", a) ("neg", a, pos)
Expr = tuple[Any, ...]
LIT0: Expr = ("lit", 0)


class SerError(Exception):
    """A model error: syntax, or a run-time error of a reachable state."""

    def __init__(self, code: str, msg: str, pos: Optional[Pos] = None) -> None:
        self.code, self.msg, self.pos = code, msg, pos
        where = f" at {pos[0]}:{pos[1]}" if pos else ""
        super().__init__(f"{code}{where}: {msg}")


class CapHit(Exception):
    """The total state cap (--max-states) was reached."""


# --------------------------------------------------------------------------- integers


def check_range(v: int, pos: Optional[Pos], what: str) -> int:
    if v < INT_MIN or v > INT_MAX:
        raise SerError("E-INT-RANGE", f"{what} = {v} is outside signed 64 bits", pos)
    return v


def arith(op: str, a: int, b: int, pos: Optional[Pos]) -> int:
    """Binary operator on 64-bit integers with C semantics and checks."""
    if op == "+":
        r = a + b
    elif op == "-":
        r = a - b
    elif op == "*":
        r = a * b
    elif op in ("/", "%"):
        if b == 0:
            raise SerError("E-DIV-ZERO", f"{a} {op} 0", pos)
        q = abs(a) // abs(b)
        if (a < 0) != (b < 0):
            q = -q
        if op == "/":
            r = q
        else:
            r = a - b * q  # sign of the dividend; INT_MIN % -1 == 0
    elif op == "<":
        return int(a < b)
    elif op == "<=":
        return int(a <= b)
    elif op == ">":
        return int(a > b)
    elif op == ">=":
        return int(a >= b)
    elif op == "==":
        return int(a == b)
    elif op == "!=":
        return int(a != b)
    else:  # pragma: no cover
        raise ValueError(op)
    return check_range(r, pos, f"{a} {op} {b}")


def negate(a: int, pos: Optional[Pos]) -> int:
    return check_range(-a, pos, f"-({a})")


# --------------------------------------------------------------------------- folding


def fold(e: Expr) -> Expr:
    """Constant folding (language.md, "Constant folding"); children first."""
    t = e[0]
    if t in ("lit", "lv", "gv", "yield", "choice", "exit"):
        return e
    if t in ("la", "ga"):
        return (t, e[1], fold(e[2]))
    if t == "seq":
        a, b = fold(e[1]), fold(e[2])
        return b if a[0] == "lit" else ("seq", a, b)
    if t == "if":
        c, th, el = fold(e[1]), fold(e[2]), fold(e[3])
        if c[0] == "lit":
            return th if c[1] != 0 else el
        return ("if", c, th, el)
    if t == "while":
        c, b = fold(e[1]), fold(e[2])
        if c[0] == "lit" and c[1] == 0:
            return LIT0
        return ("while", c, b)
    if t == "bin":
        a, b = fold(e[2]), fold(e[3])
        if a[0] == "lit" and b[0] == "lit":
            return ("lit", arith(e[1], a[1], b[1], e[4]))
        return ("bin", e[1], a, b, e[4])
    if t == "and":
        a, b = fold(e[1]), fold(e[2])
        if a[0] == "lit":
            return LIT0 if a[1] == 0 else b
        return ("and", a, b)
    if t == "or":
        a, b = fold(e[1]), fold(e[2])
        if a[0] == "lit":
            return ("lit", 1) if a[1] != 0 else b
        return ("or", a, b)
    if t == "not":
        a = fold(e[1])
        return ("lit", int(a[1] == 0)) if a[0] == "lit" else ("not", a)
    if t == "neg":
        a = fold(e[1])
        return ("lit", negate(a[1], e[2])) if a[0] == "lit" else ("neg", a, e[2])
    raise ValueError(f"unknown node {t}")  # pragma: no cover


# --------------------------------------------------------------------------- lexer

TOKEN_RE = re.compile(
    r"(?P<ws>[ \t\r\n]+)|(?P<comment>//[^\n]*)|(?P<int>[0-9]+)"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<op>:=|==|!=|<=|>=|&&|\|\||\.\.|[<>+\-*/%!?(){};,])"
)
HINTS = {
    "=": "Ser has no '=': write '==' to compare or ':=' to assign",
    "&": "write '&&'",
    "|": "write '||'",
    '"': "values are integers; no strings",
    "'": "values are integers; no strings",
    "[": "values are integers; no arrays",
}


@dataclass(frozen=True)
class Tok:
    kind: str  # "int", "name", "op", "eof"
    text: str
    pos: Pos


def tokenize(src: str) -> list[Tok]:
    toks: list[Tok] = []
    i, line, col = 0, 1, 1
    while i < len(src):
        if src.startswith("/*", i):
            raise SerError("E-SYNTAX", "comments are // to the end of the line", (line, col))
        m = TOKEN_RE.match(src, i)
        if not m:
            ch = src[i]
            raise SerError("E-SYNTAX", HINTS.get(ch, f"unexpected character {ch!r}"), (line, col))
        text = m.group(0)
        kind = m.lastgroup or ""
        if kind in ("int", "name", "op"):
            toks.append(Tok(kind, text, (line, col)))
        nl = text.count("\n")
        if nl:
            line += nl
            col = len(text) - text.rfind("\n")
        else:
            col += len(text)
        i = m.end()
    toks.append(Tok("eof", "", (line, col)))
    return toks


# --------------------------------------------------------------------------- parser


@dataclass
class Program:
    handlers: list[tuple[str, Expr]]
    local_names: list[str]
    global_names: list[str]
    init_globals: tuple[int, ...]

    def handler_index(self, name: str) -> int:
        for i, (n, _) in enumerate(self.handlers):
            if n == name:
                return i
        raise KeyError(name)


def is_local(name: str) -> bool:
    return "a" <= name[0] <= "z"


class Parser:
    EQ_OPS = ("==", "!=")
    REL_OPS = ("<", "<=", ">", ">=")

    def __init__(self, src: str) -> None:
        self.toks = tokenize(src)
        self.i = 0
        self.locals: dict[str, int] = {}
        self.globals: dict[str, int] = {}

    # token helpers
    @property
    def tok(self) -> Tok:
        return self.toks[self.i]

    def peek(self, k: int = 1) -> Tok:
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def at(self, text: str) -> bool:
        t = self.tok
        return t.kind in ("op", "name") and t.text == text

    def fail(self, msg: str, tok: Optional[Tok] = None) -> SerError:
        t = tok or self.tok
        return SerError("E-SYNTAX", msg, t.pos)

    def expect(self, text: str) -> Tok:
        if not self.at(text):
            shown = self.tok.text or "end of file"
            raise self.fail(f"expected '{text}', found '{shown}'")
        t = self.tok
        self.i += 1
        return t

    def var_index(self, name: str) -> tuple[bool, int]:
        table = self.locals if is_local(name) else self.globals
        if name not in table:
            table[name] = len(table)
        return is_local(name), table[name]

    # grammar
    def parse_program(self) -> Program:
        if self.tok.kind == "eof":
            raise self.fail("empty program")
        decls: dict[str, int] = {}
        while self.at("global"):
            self.i += 1
            while True:
                nt = self.tok
                if nt.kind != "name" or nt.text in KEYWORDS:
                    raise self.fail("expected a global name")
                if is_local(nt.text):
                    raise self.fail(f"'{nt.text}' is a local; only globals can be declared")
                if nt.text in decls:
                    raise self.fail(f"global '{nt.text}' is declared twice")
                self.i += 1
                self.expect(":=")
                neg = False
                if self.at("-"):
                    neg = True
                    self.i += 1
                if self.tok.kind != "int":
                    raise self.fail("an initial value is an integer literal")
                v = -int(self.tok.text) if neg else int(self.tok.text)
                check_range(v, self.tok.pos, "initial value")
                self.i += 1
                decls[nt.text] = v
                self.var_index(nt.text)
                if self.at(","):
                    self.i += 1
                    continue
                self.expect(";")
                break
        handlers: list[tuple[str, Expr]] = []
        if self.at("request"):
            while self.at("request"):
                self.i += 1
                nt = self.tok
                if nt.kind != "name" or nt.text in KEYWORDS:
                    raise self.fail("expected a request name")
                if any(n == nt.text for n, _ in handlers):
                    raise self.fail(f"request '{nt.text}' is defined twice")
                self.i += 1
                body = self.parse_block()
                handlers.append((nt.text, body))
            if self.at("global"):
                raise self.fail("'global' declarations come before the requests")
            if self.tok.kind != "eof":
                raise self.fail("expected 'request' or end of file")
        else:
            body = self.parse_seq()
            if self.tok.kind != "eof":
                raise self.fail(f"unexpected '{self.tok.text}'")
            handlers.append(("request", body))
        gnames = sorted(self.globals, key=self.globals.__getitem__)
        lnames = sorted(self.locals, key=self.locals.__getitem__)
        init = tuple(decls.get(n, 0) for n in gnames)
        folded = [(n, fold(b)) for n, b in handlers]
        return Program(folded, lnames, gnames, init)

    def parse_block(self) -> Expr:
        self.expect("{")
        if self.at("}"):
            raise self.fail("empty braces: write an expression, e.g. 0")
        e = self.parse_seq()
        self.expect("}")
        return e

    def parse_seq(self) -> Expr:
        items = [self.parse_assign()]
        while self.at(";"):
            semi = self.tok
            self.i += 1
            if self.at("}") or self.tok.kind == "eof":
                raise self.fail("Ser has no trailing ';'", semi)
            items.append(self.parse_assign())
        e = items[-1]
        for a in reversed(items[:-1]):
            e = ("seq", a, e)
        return e

    def parse_assign(self) -> Expr:
        t = self.tok
        if t.kind == "name" and t.text not in KEYWORDS and self.peek().text == ":=" \
                and self.peek().kind == "op":
            self.check_name(t)
            self.i += 2
            rhs = self.parse_assign()
            loc, idx = self.var_index(t.text)
            return ("la" if loc else "ga", idx, rhs)
        e = self.parse_or()
        if self.at(":="):
            raise self.fail("':=' must come directly after a variable name")
        return e

    def parse_or(self) -> Expr:
        e = self.parse_and()
        while self.at("||"):
            self.i += 1
            e = ("or", e, self.parse_and())
        return e

    def parse_and(self) -> Expr:
        e = self.parse_eq()
        while self.at("&&"):
            self.i += 1
            e = ("and", e, self.parse_eq())
        return e

    def parse_eq(self) -> Expr:
        e = self.parse_rel()
        if self.tok.kind == "op" and self.tok.text in self.EQ_OPS:
            op = self.tok
            self.i += 1
            e = ("bin", op.text, e, self.parse_rel(), op.pos)
            if self.tok.kind == "op" and self.tok.text in self.EQ_OPS:
                raise self.fail("comparisons do not chain: write 'a == b && b == c'")
        return e

    def parse_rel(self) -> Expr:
        e = self.parse_add()
        if self.tok.kind == "op" and self.tok.text in self.REL_OPS:
            op = self.tok
            self.i += 1
            e = ("bin", op.text, e, self.parse_add(), op.pos)
            if self.tok.kind == "op" and self.tok.text in self.REL_OPS:
                raise self.fail("comparisons do not chain: write 'a < b && b < c'")
        return e

    def parse_add(self) -> Expr:
        e = self.parse_mul()
        while self.tok.kind == "op" and self.tok.text in ("+", "-"):
            op = self.tok
            self.i += 1
            e = ("bin", op.text, e, self.parse_mul(), op.pos)
        return e

    def parse_mul(self) -> Expr:
        e = self.parse_unary()
        while self.tok.kind == "op" and self.tok.text in ("*", "/", "%"):
            op = self.tok
            self.i += 1
            e = ("bin", op.text, e, self.parse_unary(), op.pos)
        return e

    def parse_unary(self) -> Expr:
        t = self.tok
        if t.kind == "op" and t.text == "!":
            self.i += 1
            return ("not", self.parse_unary())
        if t.kind == "op" and t.text == "-":
            self.i += 1
            return ("neg", self.parse_unary(), t.pos)
        return self.parse_primary()

    def check_name(self, t: Tok) -> None:
        if t.text in ("true", "false"):
            raise self.fail(f"Ser has no '{t.text}': write {1 if t.text == 'true' else 0}", t)
        if t.text in ("return", "for", "int", "var", "let"):
            raise self.fail(f"Ser has no '{t.text}'", t)

    def parse_primary(self) -> Expr:
        t = self.tok
        if t.kind == "int":
            self.i += 1
            v = int(t.text)
            if v > INT_MAX:
                raise SerError("E-INT-RANGE", f"literal {t.text} is outside signed 64 bits", t.pos)
            return ("lit", v)
        if t.kind == "op" and t.text == "(":
            self.i += 1
            e = self.parse_seq()
            self.expect(")")
            return e
        if t.kind == "op" and t.text == "?":
            self.i += 1
            if not self.at("("):
                return ("choice", 0, 1)
            self.i += 1
            lo_t = self.tok
            if lo_t.kind != "int":
                raise self.fail("the bounds of ?(lo..hi) are non-negative integer literals")
            self.i += 1
            self.expect("..")
            hi_t = self.tok
            if hi_t.kind != "int":
                raise self.fail("the bounds of ?(lo..hi) are non-negative integer literals")
            self.i += 1
            self.expect(")")
            lo, hi = int(lo_t.text), int(hi_t.text)
            if lo > hi or hi - lo + 1 > MAX_CHOICE_VALUES or hi > INT_MAX:
                raise SerError("E-SYNTAX", f"bad range ?({lo}..{hi})", t.pos)
            return ("choice", lo, hi)
        if t.kind == "name":
            if t.text == "if":
                return self.parse_if()
            if t.text == "while":
                self.i += 1
                self.expect("(")
                c = self.parse_seq()
                self.expect(")")
                return ("while", c, self.parse_block())
            if t.text == "yield":
                self.i += 1
                return ("yield",)
            if t.text == "exit":
                self.i += 1
                return ("exit", t.pos)
            if t.text in KEYWORDS:
                raise self.fail(f"unexpected keyword '{t.text}'")
            self.check_name(t)
            self.i += 1
            loc, idx = self.var_index(t.text)
            return ("lv" if loc else "gv", idx)
        shown = t.text or "end of file"
        raise self.fail(f"unexpected '{shown}'")

    def parse_if(self) -> Expr:
        self.expect("if")
        self.expect("(")
        c = self.parse_seq()
        self.expect(")")
        th = self.parse_block()
        if not self.at("else"):
            raise self.fail("Ser's 'if' needs an 'else': write 'else { 0 }'")
        self.i += 1
        el = self.parse_if() if self.at("if") else self.parse_block()
        return ("if", c, th, el)


def parse(src: str) -> Program:
    return Parser(src).parse_program()


# --------------------------------------------------------------------------- printing

P_SEQ, P_ASSIGN, P_OR, P_AND, P_EQ, P_REL, P_ADD, P_MUL, P_UNARY, P_ATOM = range(1, 11)
BIN_PREC = {"==": P_EQ, "!=": P_EQ, "<": P_REL, "<=": P_REL, ">": P_REL, ">=": P_REL,
            "+": P_ADD, "-": P_ADD, "*": P_MUL, "/": P_MUL, "%": P_MUL}


def show(e: Expr, prog: Program, ctx: int = 0) -> str:
    """Ser text of an expression (parenthesised by precedence)."""
    t = e[0]
    if t == "lit":
        s, p = str(e[1]), P_UNARY if e[1] < 0 else P_ATOM
    elif t == "lv":
        s, p = prog.local_names[e[1]], P_ATOM
    elif t == "gv":
        s, p = prog.global_names[e[1]], P_ATOM
    elif t in ("la", "ga"):
        name = (prog.local_names if t == "la" else prog.global_names)[e[1]]
        s, p = f"{name} := {show(e[2], prog, P_ASSIGN)}", P_ASSIGN
    elif t == "seq":
        s, p = f"{show(e[1], prog, P_ASSIGN)}; {show(e[2], prog, P_SEQ)}", P_SEQ
    elif t == "if":
        s = f"if ({show(e[1], prog)}) {{ {show(e[2], prog)} }} else {{ {show(e[3], prog)} }}"
        p = P_ATOM
    elif t == "while":
        s, p = f"while ({show(e[1], prog)}) {{ {show(e[2], prog)} }}", P_ATOM
    elif t == "yield":
        s, p = "yield", P_ATOM
    elif t == "exit":
        s, p = "exit", P_ATOM
    elif t == "choice":
        s = "?" if (e[1], e[2]) == (0, 1) else f"?({e[1]}..{e[2]})"
        p = P_ATOM
    elif t == "bin":
        p = BIN_PREC[e[1]]
        left = p if p in (P_ADD, P_MUL) else p + 1
        s = f"{show(e[2], prog, left)} {e[1]} {show(e[3], prog, p + 1)}"
    elif t in ("and", "or"):
        p = P_AND if t == "and" else P_OR
        op = "&&" if t == "and" else "||"
        s = f"{show(e[1], prog, p)} {op} {show(e[2], prog, p + 1)}"
    elif t in ("not", "neg"):
        s, p = ("!" if t == "not" else "-") + show(e[1], prog, P_UNARY), P_UNARY
        if t == "neg" and s.startswith("--"):
            s = "-(" + s[1:] + ")"
    else:  # pragma: no cover
        raise ValueError(t)
    return f"({s})" if p < ctx else s


def show_vals(names: list[str], vals: tuple[int, ...]) -> str:
    return "{" + ",".join(f"{n}={v}" for n, v in sorted(zip(names, vals)) if v != 0) + "}"


# --------------------------------------------------------------------------- machine

Locals = tuple[int, ...]
Globals = tuple[int, ...]
# Outcomes of an atomic step:
#   ("done", value, locals, globals)      the body is fully evaluated
#   ("yield", rid, locals, globals)       stopped after a yield; rid = residual id
#   ("error", code, message, pos)         a run-time error on this path
Outcome = tuple[Any, ...]
Kont = Optional[tuple[tuple[Any, ...], Any]]  # linked list (frame, rest)


def rebuild(k: Kont, hole: Expr) -> Expr:
    """Plug `hole` into the continuation: the rest of the request, as a program."""
    e = hole
    while k is not None:
        f, k = k
        ft = f[0]
        if ft == "laK":
            e = ("la", f[1], e)
        elif ft == "gaK":
            e = ("ga", f[1], e)
        elif ft == "seqK":
            e = ("seq", e, f[1])
        elif ft == "ifK":
            e = ("if", e, f[1], f[2])
        elif ft == "whileK":
            w = f[1]
            e = ("if", e, ("seq", w[2], w), LIT0)
        elif ft == "binL":
            e = ("bin", f[1], e, f[2], f[3])
        elif ft == "binR":
            e = ("bin", f[1], ("lit", f[2]), e, f[3])
        elif ft == "andL":
            e = ("and", e, f[1])
        elif ft == "andR":
            e = ("and", ("lit", f[1]), e)
        elif ft == "orL":
            e = ("or", e, f[1])
        elif ft == "orR":
            e = ("or", ("lit", f[1]), e)
        elif ft == "notK":
            e = ("not", e)
        elif ft == "negK":
            e = ("neg", e, f[1])
        else:  # pragma: no cover
            raise ValueError(ft)
    return fold(e)


class Machine:
    """Runs atomic steps of residual programs; memoises them."""

    def __init__(self, prog: Program, step_bound: int = 200_000) -> None:
        self.prog = prog
        self.step_bound = step_bound
        self.exprs: list[Expr] = []
        self.ids: dict[Expr, int] = {}
        self.memo: dict[tuple[int, Locals, Globals], tuple[Outcome, ...]] = {}
        self.zero_locals: Locals = (0,) * len(prog.local_names)
        self.body_ids = [self.intern(b) for _, b in prog.handlers]

    def intern(self, e: Expr) -> int:
        i = self.ids.get(e)
        if i is None:
            i = len(self.exprs)
            self.ids[e] = i
            self.exprs.append(e)
        return i

    def literal(self, rid: int) -> Optional[int]:
        e = self.exprs[rid]
        return e[1] if e[0] == "lit" else None

    def step(self, rid: int, L: Locals, G: Globals) -> tuple[Outcome, ...]:
        key = (rid, L, G)
        r = self.memo.get(key)
        if r is None:
            r = self._run(self.exprs[rid], L, G)
            self.memo[key] = r
        return r

    def _run(self, expr: Expr, L0: Locals, G0: Globals) -> tuple[Outcome, ...]:
        out: dict[Outcome, None] = {}
        seen: set[Any] = set()
        EVAL, RET = 0, 1
        stack: list[tuple[int, Any, Kont, Locals, Globals]] = [(EVAL, expr, None, L0, G0)]
        while stack:
            mode, x, k, L, G = stack.pop()
            try:
                while True:
                    if mode == EVAL:
                        t = x[0]
                        if t == "lit":
                            mode, x = RET, x[1]
                        elif t == "lv":
                            mode, x = RET, L[x[1]]
                        elif t == "gv":
                            mode, x = RET, G[x[1]]
                        elif t == "seq":
                            k = (("seqK", x[2]), k)
                            x = x[1]
                        elif t == "la":
                            k = (("laK", x[1]), k)
                            x = x[2]
                        elif t == "ga":
                            k = (("gaK", x[1]), k)
                            x = x[2]
                        elif t == "if":
                            k = (("ifK", x[2], x[3]), k)
                            x = x[1]
                        elif t == "while":
                            key = (x, k, L, G)
                            if key in seen:
                                break  # been here: a cycle (stuck) or already explored
                            seen.add(key)
                            if len(seen) > self.step_bound:
                                raise SerError(
                                    "E-STATE-BOUND",
                                    f"an atomic step exceeds {self.step_bound} loop iterations"
                                    " without repeating a state", None)
                            k = (("whileK", x), k)
                            x = x[1]
                        elif t == "bin":
                            k = (("binL", x[1], x[3], x[4]), k)
                            x = x[2]
                        elif t == "and":
                            k = (("andL", x[2]), k)
                            x = x[1]
                        elif t == "or":
                            k = (("orL", x[2]), k)
                            x = x[1]
                        elif t == "not":
                            k = (("notK",), k)
                            x = x[1]
                        elif t == "neg":
                            k = (("negK", x[2]), k)
                            x = x[1]
                        elif t == "choice":
                            for v in range(x[2], x[1], -1):
                                stack.append((RET, v, k, L, G))
                            mode, x = RET, x[1]
                        elif t == "yield":
                            res = rebuild(k, LIT0)
                            if res[0] == "lit":
                                out[("done", res[1], L, G)] = None
                            else:
                                out[("yield", self.intern(res), L, G)] = None
                            break
                        elif t == "exit":
                            raise SerError("E-EXIT", "a request reaches 'exit'", x[1])
                        else:  # pragma: no cover
                            raise ValueError(t)
                    else:
                        if k is None:
                            out[("done", x, L, G)] = None
                            break
                        f, k = k
                        ft = f[0]
                        if ft == "seqK":
                            mode, x = EVAL, f[1]
                        elif ft == "laK":
                            i = f[1]
                            L = L[:i] + (x,) + L[i + 1:]
                        elif ft == "gaK":
                            i = f[1]
                            G = G[:i] + (x,) + G[i + 1:]
                        elif ft == "ifK":
                            mode, x = EVAL, (f[1] if x != 0 else f[2])
                        elif ft == "whileK":
                            if x != 0:
                                w = f[1]
                                mode, x = EVAL, ("seq", w[2], w)
                            else:
                                x = 0
                        elif ft == "binL":
                            k = (("binR", f[1], x, f[3]), k)
                            mode, x = EVAL, f[2]
                        elif ft == "binR":
                            x = arith(f[1], f[2], x, f[3])
                        elif ft == "andL":
                            if x == 0:
                                x = 0
                            else:
                                k = (("andR", x), k)
                                mode, x = EVAL, f[1]
                        elif ft == "orL":
                            if x != 0:
                                x = 1
                            else:
                                k = (("orR", x), k)
                                mode, x = EVAL, f[1]
                        elif ft in ("andR", "orR"):
                            x = 1 if x != 0 else 0
                        elif ft == "notK":
                            x = 1 if x == 0 else 0
                        elif ft == "negK":
                            x = negate(x, f[1])
                        else:  # pragma: no cover
                            raise ValueError(ft)
            except SerError as err:
                out[("error", err.code, err.msg, err.pos)] = None
                if err.code == "E-STATE-BOUND":
                    break
        return tuple(out)


# --------------------------------------------------------------------------- search

Entry = tuple[int, int, Locals]          # (handler, residual id, locals)
Resp = tuple[int, int]                   # (handler, response)
State = tuple[Globals, tuple[Entry, ...], tuple[Resp, ...]]
StepInfo = tuple[Entry, Outcome]


@dataclass
class ErrorRecord:
    code: str
    message: str
    pos: Optional[Pos]
    request: str
    multiset: list[str]

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message,
                "line": self.pos[0] if self.pos else None,
                "column": self.pos[1] if self.pos else None,
                "request": self.request, "multiset": self.multiset}

    def __str__(self) -> str:
        where = f" at {self.pos[0]}:{self.pos[1]}" if self.pos else ""
        return (f"{self.code}{where} in request '{self.request}': {self.message}"
                f" (with requests {{{', '.join(self.multiset)}}})")


@dataclass
class Result:
    result: str  # "counterexample" | "none" | "incomplete" | "error"
    requests: int
    states: int
    seconds: float
    multisets_checked: int = 0
    multisets_skipped: int = 0
    witness: Optional[dict[str, Any]] = None
    errors: list[ErrorRecord] = field(default_factory=list)
    cap_hit: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {"result": self.result, "requests": self.requests, "states": self.states,
                "seconds": round(self.seconds, 3), "witness": self.witness,
                "errors": [e.as_dict() for e in self.errors], "cap_hit": self.cap_hit,
                "multisets_checked": self.multisets_checked,
                "multisets_skipped": self.multisets_skipped}


def footprint(e: Expr) -> frozenset[int]:
    """Global indices an expression reads or writes."""
    acc: set[int] = set()
    todo = [e]
    while todo:
        x = todo.pop()
        if x[0] in ("gv", "ga"):
            acc.add(x[1])
        for c in x[1:]:
            if isinstance(c, tuple) and c and isinstance(c[0], str):
                todo.append(c)
    return frozenset(acc)


class Search:
    def __init__(self, prog: Program, max_states: int = 2_000_000,
                 step_bound: int = 200_000) -> None:
        self.prog = prog
        self.m = Machine(prog, step_bound)
        self.max_states = max_states
        self.states = 0
        self.errors: dict[tuple[str, Optional[Pos], str], ErrorRecord] = {}
        self.alone_memo: dict[tuple[int, Globals], tuple[tuple[int, Globals], ...]] = {}
        self.footprints = [footprint(b) for _, b in prog.handlers]
        self.current: list[str] = []

    def count(self) -> None:
        self.states += 1
        if self.states > self.max_states:
            raise CapHit()

    def note_error(self, h: int, o: Outcome) -> None:
        name = self.prog.handlers[h][0]
        key = (o[1], o[3], name)
        if key not in self.errors:
            self.errors[key] = ErrorRecord(o[1], o[2], o[3], name, list(self.current))

    # serial ------------------------------------------------------------------
    def run_alone(self, h: int, G: Globals) -> tuple[tuple[int, Globals], ...]:
        """(response, globals after) of request h run alone from G (yield = no-op)."""
        key = (h, G)
        r = self.alone_memo.get(key)
        if r is not None:
            return r
        results: dict[tuple[int, Globals], None] = {}
        start = (self.m.body_ids[h], self.m.zero_locals, G)
        lit = self.m.literal(start[0])
        if lit is not None:
            results[(lit, G)] = None
        else:
            seen = {start}
            todo = [start]
            while todo:
                rid, L, G1 = todo.pop()
                self.count()
                for o in self.m.step(rid, L, G1):
                    if o[0] == "done":
                        results[(o[1], o[3])] = None
                    elif o[0] == "yield":
                        nxt = (o[1], o[2], o[3])
                        if nxt not in seen:
                            seen.add(nxt)
                            todo.append(nxt)
                    else:
                        self.note_error(h, o)
        r = tuple(results)
        self.alone_memo[key] = r
        return r

    def serial_outcomes(self, ms: tuple[int, ...]) -> set[tuple[Resp, ...]]:
        outs: set[tuple[Resp, ...]] = set()
        start: tuple[Globals, tuple[int, ...], tuple[Resp, ...]] = (
            self.prog.init_globals, ms, ())
        seen = {start}
        todo = [start]
        while todo:
            G, rest, resp = todo.pop()
            self.count()
            if not rest:
                outs.add(resp)
                continue
            for j, h in enumerate(rest):
                if j and rest[j - 1] == h:
                    continue
                rest2 = rest[:j] + rest[j + 1:]
                for v, G2 in self.run_alone(h, G):
                    nxt = (G2, rest2, tuple(sorted(resp + ((h, v),))))
                    if nxt not in seen:
                        seen.add(nxt)
                        todo.append(nxt)
        return outs

    # concurrent ----------------------------------------------------------------
    def initial_state(self, ms: tuple[int, ...]) -> State:
        fly: list[Entry] = []
        resp: list[Resp] = []
        for h in ms:
            rid = self.m.body_ids[h]
            lit = self.m.literal(rid)
            if lit is not None:
                resp.append((h, lit))
            else:
                fly.append((h, rid, self.m.zero_locals))
        return (self.prog.init_globals, tuple(sorted(fly)), tuple(sorted(resp)))

    def concurrent_search(self, ms: tuple[int, ...], serial: set[tuple[Resp, ...]]
                          ) -> Optional[tuple[tuple[Resp, ...], list[tuple[State, StepInfo]]]]:
        """BFS over interleavings; returns a non-serial outcome and its path."""
        init = self.initial_state(ms)
        parent: dict[State, Optional[tuple[State, StepInfo]]] = {init: None}
        queue: deque[State] = deque([init])
        while queue:
            st = queue.popleft()
            self.count()
            G, fly, resp = st
            if not fly:
                if resp not in serial:
                    path: list[tuple[State, StepInfo]] = []
                    cur = st
                    while True:
                        p = parent[cur]
                        if p is None:
                            break
                        path.append((cur, p[1]))
                        cur = p[0]
                    path.reverse()
                    return resp, path
                continue
            for j, ent in enumerate(fly):
                if j and fly[j - 1] == ent:
                    continue
                h, rid, L = ent
                others = fly[:j] + fly[j + 1:]
                for o in self.m.step(rid, L, G):
                    if o[0] == "done":
                        nxt: State = (o[3], others, tuple(sorted(resp + ((h, o[1]),))))
                    elif o[0] == "yield":
                        nxt = (o[3], tuple(sorted(others + ((h, o[1], o[2]),))), resp)
                    else:
                        self.note_error(h, o)
                        continue
                    if nxt not in parent:
                        parent[nxt] = (st, (ent, o))
                        queue.append(nxt)
        return None

    # driver --------------------------------------------------------------------
    def interacting(self, ms: tuple[int, ...]) -> bool:
        """True if the requests of ms form one group linked by shared globals."""
        n = len(ms)
        if n <= 1:
            return True
        comp = {0}
        todo = [0]
        while todo:
            a = todo.pop()
            for b in range(n):
                if b not in comp and self.footprints[ms[a]] & self.footprints[ms[b]]:
                    comp.add(b)
                    todo.append(b)
        return len(comp) == n

    def multisets(self, k_max: int, all_multisets: bool) -> Iterator[tuple[tuple[int, ...], bool]]:
        hs = range(len(self.prog.handlers))
        for k in range(1, k_max + 1):
            for ms in itertools.combinations_with_replacement(hs, k):
                yield ms, (all_multisets or self.interacting(ms))

    def run(self, k_max: int = 3, all_multisets: bool = False) -> Result:
        t0 = time.monotonic()
        res = Result("none", k_max, 0, 0.0)
        try:
            for ms, wanted in self.multisets(k_max, all_multisets):
                if not wanted:
                    res.multisets_skipped += 1
                    continue
                res.multisets_checked += 1
                self.current = [self.prog.handlers[h][0] for h in ms]
                serial = self.serial_outcomes(ms)
                found = self.concurrent_search(ms, serial)
                if found is not None:
                    res.result = "counterexample"
                    res.witness = self.witness(ms, found[0], found[1], serial)
                    break
        except CapHit:
            res.cap_hit = True
            res.result = "incomplete"
        res.errors = list(self.errors.values())
        if res.result != "counterexample" and res.errors:
            res.result = "error"
        res.states = self.states
        res.seconds = time.monotonic() - t0
        return res

    # witness -------------------------------------------------------------------
    def resp_list(self, resp: tuple[Resp, ...]) -> list[list[Any]]:
        return [[self.prog.handlers[h][0], v] for h, v in resp]

    def witness(self, ms: tuple[int, ...], bad: tuple[Resp, ...],
                path: list[tuple[State, StepInfo]], serial: set[tuple[Resp, ...]]
                ) -> dict[str, Any]:
        prog, names = self.prog, self.prog.handlers
        count: dict[int, int] = {}
        inst: list[list[Any]] = []  # [label, handler, rid, locals, live]
        trace: list[dict[str, Any]] = []
        for h in ms:
            count[h] = count.get(h, 0) + 1
            label = f"{names[h][0]}#{count[h]}"
            rid = self.m.body_ids[h]
            lit = self.m.literal(rid)
            if lit is not None:
                trace.append({"request": label, "event": "answer", "value": lit,
                              "rest": None, "locals": {}, "globals": None})
                inst.append([label, h, rid, self.m.zero_locals, False])
            else:
                inst.append([label, h, rid, self.m.zero_locals, True])
        for st, ((h, rid, L), o) in path:
            me = next(i for i in inst if i[4] and i[1] == h and i[2] == rid and i[3] == L)
            G = st[0]
            gl = {n: v for n, v in zip(prog.global_names, G) if v != 0}
            if o[0] == "done":
                me[4] = False
                trace.append({"request": me[0], "event": "answer", "value": o[1],
                              "rest": None, "locals": self._locals(o[2]), "globals": gl})
            else:
                me[2], me[3] = o[1], o[2]
                trace.append({"request": me[0], "event": "yield", "value": None,
                              "rest": show(self.m.exprs[o[1]], prog),
                              "locals": self._locals(o[2]), "globals": gl})
        ser = sorted(serial)
        return {"multiset": [names[h][0] for h in ms], "responses": self.resp_list(bad),
                "serial_responses": [self.resp_list(s) for s in ser[:50]],
                "serial_responses_total": len(ser), "trace": trace}

    def _locals(self, L: Locals) -> dict[str, int]:
        return {n: v for n, v in zip(self.prog.local_names, L) if v != 0}


# --------------------------------------------------------------------------- output


def fmt_resp(items: list[list[Any]]) -> str:
    return "{" + ", ".join(f"{n}={v}" for n, v in items) + "}"


def render_text(res: Result) -> str:
    lines: list[str] = []
    if res.result == "counterexample":
        w = res.witness or {}
        lines.append("counterexample")
        lines.append(f"requests: {{{', '.join(w['multiset'])}}}")
        lines.append(f"concurrent responses: {fmt_resp(w['responses'])}")
        ser = w["serial_responses"]
        more = "" if w["serial_responses_total"] <= len(ser) else " ..."
        lines.append("serial responses: " + (", ".join(fmt_resp(s) for s in ser) or "none")
                     + more)
        lines.append("trace:")
        for i, t in enumerate(w["trace"], 1):
            loc = "{" + ",".join(f"{a}={b}" for a, b in sorted(t["locals"].items())) + "}"
            if t["event"] == "answer":
                head = f"answers {t['value']}"
            else:
                head = f"runs to a yield, rest `{t['rest']}`"
            gl = t["globals"]
            gs = "" if gl is None else (" globals {" + ",".join(
                f"{a}={b}" for a, b in sorted(gl.items())) + "}")
            lines.append(f"  {i}. {t['request']} {head}; locals {loc};{gs}")
        for e in res.errors:
            lines.append(f"warning: {e}")
    elif res.result == "error":
        lines.append("error: a reachable state is an error")
        for e in res.errors:
            lines.append(f"  {e}")
    elif res.result == "incomplete":
        lines.append("incomplete: state cap hit")
    else:
        lines.append(f"no counterexample up to {res.requests} requests")
    lines.append(f"states: {res.states}, multisets: {res.multisets_checked} checked, "
                 f"{res.multisets_skipped} skipped (independent), "
                 f"seconds: {res.seconds:.2f}")
    return "\n".join(lines)


EXIT_CODES = {"none": 0, "counterexample": 1, "error": 2, "incomplete": 3}


def check_source(src: str, k: int = 3, max_states: int = 2_000_000,
                 all_multisets: bool = False, step_bound: int = 200_000) -> Result:
    prog = parse(src)
    return Search(prog, max_states, step_bound).run(k, all_multisets)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description="Bounded serializability search for Ser models.")
    ap.add_argument("model")
    ap.add_argument("--max-requests", type=int, default=3)
    ap.add_argument("--max-states", type=int, default=2_000_000)
    ap.add_argument("--step-bound", type=int, default=200_000,
                    help="loop-head configurations allowed in one atomic step")
    ap.add_argument("--all-multisets", action="store_true",
                    help="also search multisets whose requests share no global")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    t0 = time.monotonic()
    try:
        with open(args.model, encoding="utf-8") as fh:
            src = fh.read()
        prog = parse(src)
    except (OSError, UnicodeDecodeError, SerError) as err:
        if args.json:
            d: dict[str, Any] = {"result": "error", "requests": args.max_requests, "states": 0,
                                 "seconds": round(time.monotonic() - t0, 3), "witness": None,
                                 "errors": [{"code": getattr(err, "code", "E-IO"),
                                             "message": str(err)}]}
            print(json.dumps(d))
        else:
            print(f"error: {err}")
        return 2
    res = Search(prog, args.max_states, args.step_bound).run(args.max_requests,
                                                            args.all_multisets)
    res.seconds = time.monotonic() - t0
    print(json.dumps(res.as_dict()) if args.json else render_text(res))
    return EXIT_CODES[res.result]


# --------------------------------------------------------------------------- self-test


def alone_values(src: str) -> set[int]:
    """Responses of the first handler run alone from the initial globals."""
    s = Search(parse(src))
    return {v for v, _ in s.run_alone(0, s.prog.init_globals)}


def final_global(src: str, name: str) -> set[int]:
    s = Search(parse(src))
    i = s.prog.global_names.index(name)
    return {G[i] for _, G in s.run_alone(0, s.prog.init_globals)}


def strip_pos(e: Any) -> Any:
    if isinstance(e, tuple):
        return tuple(strip_pos(c) for c in e if not (isinstance(c, tuple) and len(c) == 2
                                                     and all(isinstance(z, int) for z in c)))
    return e


def selftest() -> int:
    failures: list[str] = []

    def check(label: str, cond: bool) -> None:
        if not cond:
            failures.append(label)

    def verdict(src: str, k: int = 3, **kw: Any) -> str:
        return check_source(src, k, **kw).result

    def rejects(src: str, code: str = "E-SYNTAX") -> bool:
        try:
            parse(src)
        except SerError as err:
            return err.code == code
        return False

    # integers, precedence, C division
    cases: list[tuple[str, set[int]]] = [
        ("-7 / 2", {-3}), ("-7 % 2", {-1}), ("7 % -2", {1}), ("x := -7; x / 2", {-3}),
        ("x := -7; x % 2", {-1}), ("x := 7; y := 0 - 2; x / y", {-3}),
        ("1 + 2 * 3", {7}), ("2 - 3 - 4", {-5}), ("!0 + 1", {2}), ("!x + 1", {2}),
        ("1 || 0 && 0", {1}), ("x := 2; x < 3 == 1", {1}), ("x := 3; -x * 2", {-6}),
        ("x := y := 3; x + y", {6}), ("x := 5; x != 5 || x >= 5", {1}),
        ("a := 1; b := 2; a < b == b < a", {0}), ("12 / 5 * 5 + 12 % 5", {12}),
        ("x := 1; y := 0; x && y", {0}), ("x := 3; x && 7", {1}), ("x := 3; 0 || x", {3}),
        ("x := 0; x || 9", {1}), ("x := 0; x || 0", {0}), ("5 || 0", {1}),
        # folding quirk (language.md "Constant folding")
        ("X := (1 && 5); X", {5}), ("x := 1; X := (x && 5); X", {1}),
        ("x := 1; x && (yield; 5)", {5}), ("x := 0; x || (yield; 7)", {7}),
        ("3; 4", {4}), ("if (0) { 1 } else { 2 }", {2}), ("while (0) { 1 }", {0}),
        # choices, loops, if/else if
        ("?", {0, 1}), ("?(1..3)", {1, 2, 3}), ("?(0..10) - 5", set(range(-5, 6))),
        ("n := 0; while (n < 5) { n := n + 1 }; n", {5}),
        ("n := 0; while (n < 3) { n := n + 1; yield }; n", {3}),
        ("x := 2; if (x == 1) { 10 } else if (x == 2) { 20 } else { 30 }", {20}),
        ("x := ?; if (x) { 1 } else { 2 }", {1, 2}),
        ("while (1) { 1 }", set()), ("while (1) { yield }", set()),
        ("x := ?; while (x == 1) { 0 }; 7", {7}),
        ("n := 0; while (n := n + 1; yield; n < 3) { 0 }; n", {3}),
        ("X := 1; yield", {0}), ("yield + 4", {4}), ("(x := 2) + x", {4}),
        ("x := 9223372036854775807; x", {INT_MAX}), ("-9223372036854775807 - 1", {INT_MIN}),
    ]
    for src, want in cases:
        try:
            got = alone_values(src)
        except SerError as err:
            got = {-999999}
            failures.append(f"{src!r}: raised {err}")
        check(f"value of {src!r}: got {sorted(got)[:8]}, want {sorted(want)[:8]}", got == want)
    check("global initial values", alone_values("global A := 100, B := -50;\nrequest r { A + B }")
          == {50})
    check("declared INT_MIN", alone_values("global A := -9223372036854775808; request r { A }")
          == {INT_MIN})
    check("global stores", final_global("request r { X := 3; yield; X := X * 2 }", "X") == {6})
    check("bare expression named 'request'", parse("X := 1").handlers[0][0] == "request")
    check("underscore is global", parse("_a := 1").global_names == ["_a"])

    # syntax errors
    for bad in ["a < b < c", "a == b == c", "request r { x := 1; }", "if (1) { 2 }",
                "x = 1", "x := true", "", "// only\n", "request r { }", "1 + x := 2",
                "request a { 1 } request a { 2 }", "request a { 1 } 2", "?(3..1)",
                "?(0..1024)", "x++", "/* c */ 1", "request a { 1 } global X := 1;",
                "global x := 1; 1", "global X := 1, X := 2; 1", "(x) := 1", "1;"]:
        check(f"rejects {bad!r}", rejects(bad))
    check("?(0..1023) accepted", not rejects("?(0..1023)"))
    check("literal 1/0 rejected", rejects("request r { if (X) { 1 / 0 } else { 0 } }",
                                          "E-DIV-ZERO"))
    check("literal overflow rejected", rejects("9223372036854775807 + 1", "E-INT-RANGE"))
    check("literal too big", rejects("-9223372036854775808", "E-INT-RANGE"))

    # printer round trip
    for src in ["x := (a := 1) + 2; a || b && !c", "if (x < 2 == (y > 1)) { -x * (y - 1) } "
                "else { while (X) { yield; ?(1..4) } }", "x := y := 3; (x; y) + 1"]:
        p = parse(src)
        again = parse(show(p.handlers[0][1], p))
        check(f"round trip {src!r}", strip_pos(again.handlers[0][1]) ==
              strip_pos(p.handlers[0][1]))

    # verdicts (language.md examples and classic bugs)
    first = "request main { X := 1; yield; y := X; X := 0; y }"
    r = check_source(first, 3)
    check("first program: counterexample", r.result == "counterexample")
    check("first program: 2 requests, {0,1}",
          r.witness is not None and len(r.witness["multiset"]) == 2
          and sorted(v for _, v in r.witness["responses"]) == [0, 1])
    check("first program: 1 request is fine", verdict(first, 1) == "none")
    lock = ("request main { while (L == 1) { yield }; L := 1; X := 1; yield; y := X; X := 0;"
            " L := 0; y }")
    check("lock: none", verdict(lock, 3) == "none")
    broken = ("request main { while (L == 1) { yield }; yield; L := 1; X := 1; yield; y := X;"
              " X := 0; L := 0; y }")
    check("split test-and-take: counterexample", verdict(broken, 2) == "counterexample")
    lost = "request inc { x := C; yield; C := x + 1; x }"
    r = check_source(lost, 3)
    check("lost update: counterexample with 2", r.result == "counterexample" and
          r.witness is not None and len(r.witness["multiset"]) == 2 and
          [v for _, v in r.witness["responses"]] == [0, 0])
    check("atomic inc (mod 3): none",
          verdict("request inc { x := C; if (C == 2) { C := 0 } else { C := C + 1 }; x }", 3)
          == "none")
    check("flag set/clear: counterexample",
          verdict("request set { F := 1; yield; F }\nrequest clear { F := 0 }", 2)
          == "counterexample")
    sem = ("request work { while (S == 2) { yield }; S := S + 1; yield; S := S - 1; 1 }")
    check("semaphore: none", verdict(sem, 3) == "none")
    sem_try = ("request work { if (S < 2) { S := S + 1; yield; S := S - 1; 1 } else { 0 } }")
    check("try-semaphore: counterexample with 3", verdict(sem_try, 2) == "none"
          and verdict(sem_try, 3) == "counterexample")
    bank = ("global A := 100, B := 50;\nrequest transfer { if (A < 30) { 0 } else "
            "{ A := A - 30; B := B + 30; 1 } }\nrequest audit { A + B }")
    check("atomic bank: none", verdict(bank, 3) == "none")
    overdraft = ("global B := 100;\nrequest w { if (B >= 60) { yield; B := B - 60; 1 }"
                 " else { 0 } }")
    check("overdraft: counterexample", verdict(overdraft, 2) == "counterexample")
    check("stuck request: none", verdict("request a { while (1) { 1 } }\n"
                                         "request b { X := 1; yield; X }", 3) == "none")
    check("constant body", verdict("request a { 5 }\nrequest b { X := X + 1; yield; X }", 2)
          == "counterexample")
    # independence pruning does not change verdicts
    indep = ("request a { X := 1; yield; X := 0; 1 }\nrequest b { Y := Y + 0; 2 }\n"
             "request c { X }")
    check("pruning agrees", check_source(indep, 3).result ==
          check_source(indep, 3, all_multisets=True).result == "counterexample")

    # run-time errors
    r = check_source("request r { x := ?; 10 / x }", 2)
    check("div by zero: error", r.result == "error" and r.errors[0].code == "E-DIV-ZERO"
          and r.errors[0].pos == (1, 24))
    r = check_source("request r { if (?) { exit } else { 0 } }", 1)
    check("exit: error", r.result == "error" and r.errors[0].code == "E-EXIT")
    check("unreachable exit: fine",
          verdict("request r { if (X == 7) { exit } else { 1 } }", 2) == "none")
    r = check_source("request r { x := 9223372036854775807; x + 1 }", 1)
    check("overflow: error", r.result == "error" and r.errors[0].code == "E-INT-RANGE")
    r = check_source("request r { X := 1; yield; y := X; X := 0; 10 / (y + ?); y }", 2)
    check("counterexample beside error", r.result == "counterexample" and bool(r.errors))
    r = check_source("request r { n := 0; while (1) { n := n + 1 } }", 1, step_bound=1000)
    check("runaway atomic loop: E-STATE-BOUND", r.result == "error" and
          r.errors[0].code == "E-STATE-BOUND")
    r = check_source("request r { while (1) { N := N + 1; yield } }", 2, max_states=5000)
    check("growing yield loop: incomplete", r.result == "incomplete" and r.cap_hit)

    if failures:
        for f in failures:
            print("FAIL:", f)
        print(f"selftest: {len(failures)} failure(s)")
        return 1
    print("selftest: all checks passed")
    return 0


if __name__ == "__main__" and "--selftest" in sys.argv:
    sys.exit(selftest())

if __name__ == "__main__":
    sys.setrecursionlimit(20000)
    sys.exit(main(sys.argv[1:]))
