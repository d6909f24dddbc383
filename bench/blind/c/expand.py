#!/usr/bin/env python3
"""Write out Ser's constants, arrays, request families and `for` into core Ser,
then run the independent bounded search (../bounded.py) on the result.

Usage::

    python bench/blind/c/expand.py MODEL.ser [-D NAME=VALUE ...] --print
    python bench/blind/c/expand.py MODEL.ser [-D NAME=VALUE ...] [--max-requests K]
                                   [--max-states N] [--json]
    python bench/blind/c/expand.py --selftest

Written only from docs/language.md, section "Constants, arrays and request families"
(and the core language above it); it shares no code with the prover or the checker,
only with ../bounded.py (whose parser reads the written-out program and whose search
decides it).

How each form is written out (doc bullet in brackets)
----------------------------------------------------
* [Constants] ``const NAME := EXPR;`` lines, mixed with ``global`` lines in any order,
  before the requests.  EXPR: literals, earlier constants, operators; evaluated with the
  core language's constant folding (so ``1 && 5`` is 5 as in the core).  Inside
  requests a constant is its value; assigning one is an error.  ``-D NAME=VALUE``
  replaces a constant's value (later constants, lengths, bounds follow); ``-D`` naming a
  non-constant is E-USAGE.
* [Arrays of globals] ``global A[LEN] := INIT`` declares cells A[0..LEN-1], each INIT
  (0 when left out); ``global T;`` is a scalar starting at 0; ``global T := EXPR`` with a
  constant expression.  1..1,024 cells.  An array name alone, or indexing a name that is
  not an array, is an error.  Cells are written out as globals ``A__0`` ... (shown as
  ``A[0]``).
* [Cells] ``A[e]``: constant e picks the cell when read.  Otherwise the chain
  ``if (e == 0) { A[0] } else { if (e == 1) { A[1] } else { ... E-INDEX } }``.  An index
  that assigns, yields, chooses (``?``) or loops (while/for) is evaluated once into a
  hidden local ``index__h`` (shown ``index#``) that is set back to 0 before the cell is
  touched.  ``A[e] := v``: e first (the chain picks the branch), then v is evaluated in
  the branch of the cell and stored there.  (The doc's rule that a pure v reads ``A[e]``
  as the cell being written changes no value, so it is not applied.)
* [Out of range] the last ``else`` of a chain, and a constant index outside the array,
  is an ``exit`` placed on a line of its own, and the search's E-EXIT at that line is
  reported as ``E-INDEX`` at the source ``A[...]``: a run-time error where reached
  (the path stops; an error beside a counterexample; the result "error" otherwise).
* [Request families] ``request NAME[v in LO..HI] { BODY }``: one request per k in
  LO..HI named ``NAME__k`` (shown ``NAME[k]``) with v the constant k; at most 1,024;
  LO > HI gives none; v lower-case, not a constant; assigning it is an error.
* [for] ``for (v in LO..HI) { BODY }``: ``(BODY[v:=LO]; ...; BODY[v:=HI])``, value the
  last copy's, ``0`` when LO > HI; at most 4,096 copies; v lower-case, not a constant in
  scope (so not a family variable or an enclosing loop's variable).  After the loop v is
  an ordinary local again.
* [Choices] ``?(LO..HI)`` with constant expressions, negative allowed: written
  ``?(LO..HI)`` when LO >= 0, else ``(?(0..HI-LO) + LO)``; inverted or > 1,024 values
  is an error.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import sys
import time
from typing import Any, Optional

_HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("bounded", os.path.join(_HERE, "..", "bounded.py"))
assert _spec and _spec.loader
bounded = importlib.util.module_from_spec(_spec)
sys.modules["bounded"] = bounded
_spec.loader.exec_module(bounded)

SerError = bounded.SerError
KEYWORDS = frozenset({"request", "global", "if", "else", "while", "yield", "exit",
                      "const", "for", "in"})
MAX_CELLS = 1024
MAX_MEMBERS = 1024
MAX_COPIES = 4096
MAX_CHOICE = 1024
HIDDEN = "index__h"

TOKEN_RE = re.compile(
    r"(?P<ws>[ \t\r\n]+)|(?P<comment>//[^\n]*)|(?P<int>[0-9]+)"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<op>:=|==|!=|<=|>=|&&|\|\||\.\.|[<>+\-*/%!?(){};,\[\]])"
)


class Tok:
    __slots__ = ("kind", "text", "pos")

    def __init__(self, kind: str, text: str, pos: tuple[int, int]) -> None:
        self.kind, self.text, self.pos = kind, text, pos


def tokenize(src: str) -> list[Tok]:
    toks: list[Tok] = []
    i, line, col = 0, 1, 1
    while i < len(src):
        if src.startswith("/*", i):
            raise SerError("E-SYNTAX", "comments are // to the end of the line", (line, col))
        m = TOKEN_RE.match(src, i)
        if not m:
            raise SerError("E-SYNTAX", f"unexpected character {src[i]!r}", (line, col))
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


# Source AST (names, not indices):
#   ("lit", v) ("var", name, pos) ("idx", name, e, pos) ("set", name, e, pos)
#   ("aset", name, idx, e, pos) ("seq", a, b) ("if", c, t, e) ("while", c, b)
#   ("for", v, lo, hi, body, pos) ("yield",) ("choice", lo, hi, pos) ("exit", pos)
#   ("bin", op, a, b, pos) ("and", a, b) ("or", a, b) ("not", a) ("neg", a, pos)


class Parser:
    EQ = ("==", "!=")
    REL = ("<", "<=", ">", ">=")

    def __init__(self, src: str) -> None:
        self.toks = tokenize(src)
        self.i = 0

    @property
    def tok(self) -> Tok:
        return self.toks[self.i]

    def peek(self, k: int = 1) -> Tok:
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def at(self, text: str) -> bool:
        return self.tok.kind in ("op", "name") and self.tok.text == text

    def fail(self, msg: str, tok: Optional[Tok] = None) -> SerError:
        return SerError("E-SYNTAX", msg, (tok or self.tok).pos)

    def expect(self, text: str) -> Tok:
        if not self.at(text):
            raise self.fail(f"expected '{text}', found '{self.tok.text or 'end of file'}'")
        t = self.tok
        self.i += 1
        return t

    def name(self, what: str) -> Tok:
        t = self.tok
        if t.kind != "name" or t.text in KEYWORDS:
            raise self.fail(f"expected {what}")
        if t.text in ("true", "false"):
            raise self.fail(f"Ser has no '{t.text}'")
        self.i += 1
        return t

    # file -------------------------------------------------------------------
    def parse_file(self) -> dict[str, Any]:
        if self.tok.kind == "eof":
            raise self.fail("empty program")
        decls: list[tuple[Any, ...]] = []   # ("const", name, expr, pos) | ("global", name, len|None, init|None, pos)
        while self.at("const") or self.at("global"):
            if self.at("const"):
                self.i += 1
                t = self.name("a constant name")
                self.expect(":=")
                decls.append(("const", t.text, self.parse_or(), t.pos))
                self.expect(";")
            else:
                self.i += 1
                while True:
                    t = self.name("a global name")
                    length = None
                    if self.at("["):
                        self.i += 1
                        length = self.parse_or()
                        self.expect("]")
                    init = None
                    if self.at(":="):
                        self.i += 1
                        init = self.parse_or()
                    decls.append(("global", t.text, length, init, t.pos))
                    if self.at(","):
                        self.i += 1
                        continue
                    self.expect(";")
                    break
        reqs: list[tuple[Any, ...]] = []  # (name, fam_var|None, lo, hi, body, pos)
        if self.at("request"):
            while self.at("request"):
                self.i += 1
                t = self.name("a request name")
                fam = None
                if self.at("["):
                    self.i += 1
                    v = self.name("a family variable")
                    self.expect("in")
                    lo = self.parse_add()
                    self.expect("..")
                    hi = self.parse_add()
                    self.expect("]")
                    fam = (v.text, lo, hi, v.pos)
                body = self.parse_block()
                reqs.append((t.text, fam, body, t.pos))
            if self.at("global") or self.at("const"):
                raise self.fail("declarations come before the requests")
            if self.tok.kind != "eof":
                raise self.fail("expected 'request' or end of file")
        else:
            body = self.parse_seq()
            if self.tok.kind != "eof":
                raise self.fail(f"unexpected '{self.tok.text}'")
            reqs.append(("request", None, body, (1, 1)))
            return {"decls": decls, "requests": reqs, "bare": True}
        return {"decls": decls, "requests": reqs, "bare": False}

    def parse_block(self) -> Any:
        self.expect("{")
        if self.at("}"):
            raise self.fail("empty braces")
        e = self.parse_seq()
        self.expect("}")
        return e

    def parse_seq(self) -> Any:
        items = [self.parse_assign()]
        while self.at(";"):
            semi = self.tok
            self.i += 1
            if self.at("}") or self.at(")") or self.tok.kind == "eof":
                raise self.fail("Ser has no trailing ';'", semi)
            items.append(self.parse_assign())
        e = items[-1]
        for a in reversed(items[:-1]):
            e = ("seq", a, e)
        return e

    def parse_assign(self) -> Any:
        t = self.tok
        if t.kind == "name" and t.text not in KEYWORDS:
            if self.peek().kind == "op" and self.peek().text == ":=":
                self.name("a name")
                self.i += 1
                return ("set", t.text, self.parse_assign(), t.pos)
            if self.peek().kind == "op" and self.peek().text == "[":
                save = self.i
                self.i += 2
                idx = self.parse_seq()
                self.expect("]")
                if self.at(":="):
                    self.i += 1
                    return ("aset", t.text, idx, self.parse_assign(), t.pos)
                self.i = save
        e = self.parse_or()
        if self.at(":="):
            raise self.fail("':=' must come directly after a variable or a cell")
        return e

    def parse_or(self) -> Any:
        e = self.parse_and()
        while self.at("||"):
            self.i += 1
            e = ("or", e, self.parse_and())
        return e

    def parse_and(self) -> Any:
        e = self.parse_eq()
        while self.at("&&"):
            self.i += 1
            e = ("and", e, self.parse_eq())
        return e

    def _cmp(self, ops: tuple[str, ...], sub: Any) -> Any:
        e = sub()
        if self.tok.kind == "op" and self.tok.text in ops:
            op = self.tok
            self.i += 1
            e = ("bin", op.text, e, sub(), op.pos)
            if self.tok.kind == "op" and self.tok.text in ops:
                raise self.fail("comparisons do not chain")
        return e

    def parse_eq(self) -> Any:
        return self._cmp(self.EQ, self.parse_rel)

    def parse_rel(self) -> Any:
        return self._cmp(self.REL, self.parse_add)

    def parse_add(self) -> Any:
        e = self.parse_mul()
        while self.tok.kind == "op" and self.tok.text in ("+", "-"):
            op = self.tok
            self.i += 1
            e = ("bin", op.text, e, self.parse_mul(), op.pos)
        return e

    def parse_mul(self) -> Any:
        e = self.parse_unary()
        while self.tok.kind == "op" and self.tok.text in ("*", "/", "%"):
            op = self.tok
            self.i += 1
            e = ("bin", op.text, e, self.parse_unary(), op.pos)
        return e

    def parse_unary(self) -> Any:
        t = self.tok
        if t.kind == "op" and t.text == "!":
            self.i += 1
            return ("not", self.parse_unary())
        if t.kind == "op" and t.text == "-":
            self.i += 1
            if self.tok.kind == "int":       # -5 is the literal -5
                v = -int(self.tok.text)
                self.i += 1
                return ("lit", v)
            return ("neg", self.parse_unary(), t.pos)
        return self.parse_primary()

    def parse_primary(self) -> Any:
        t = self.tok
        if t.kind == "int":
            self.i += 1
            return ("lit", int(t.text))
        if t.kind == "op" and t.text == "(":
            self.i += 1
            e = self.parse_seq()
            self.expect(")")
            return e
        if t.kind == "op" and t.text == "?":
            self.i += 1
            if not self.at("("):
                return ("choice", ("lit", 0), ("lit", 1), t.pos)
            self.i += 1
            lo = self.parse_add()
            self.expect("..")
            hi = self.parse_add()
            self.expect(")")
            return ("choice", lo, hi, t.pos)
        if t.kind == "name":
            if t.text == "if":
                return self.parse_if()
            if t.text == "while":
                self.i += 1
                self.expect("(")
                c = self.parse_seq()
                self.expect(")")
                return ("while", c, self.parse_block())
            if t.text == "for":
                self.i += 1
                self.expect("(")
                v = self.name("a loop variable")
                self.expect("in")
                lo = self.parse_add()
                self.expect("..")
                hi = self.parse_add()
                self.expect(")")
                return ("for", v.text, lo, hi, self.parse_block(), v.pos)
            if t.text == "yield":
                self.i += 1
                return ("yield",)
            if t.text == "exit":
                self.i += 1
                return ("exit", t.pos)
            self.name("a name")
            if self.at("["):
                self.i += 1
                idx = self.parse_seq()
                self.expect("]")
                return ("idx", t.text, idx, t.pos)
            return ("var", t.text, t.pos)
        raise self.fail(f"unexpected '{t.text or 'end of file'}'")

    def parse_if(self) -> Any:
        self.expect("if")
        self.expect("(")
        c = self.parse_seq()
        self.expect(")")
        th = self.parse_block()
        if not self.at("else"):
            raise self.fail("Ser's 'if' needs an 'else'")
        self.i += 1
        el = self.parse_if() if self.at("if") else self.parse_block()
        return ("if", c, th, el)


def is_local(name: str) -> bool:
    return "a" <= name[0] <= "z"


def mangle(name: str, k: int) -> str:
    return f"{name}__{k}"


DEMANGLE_RE = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*?)__(\d+)\b")


def demangle(s: str) -> str:
    return DEMANGLE_RE.sub(r"\1[\2]", s.replace(HIDDEN, "index#"))


class Expander:
    """Writes the source AST out as core Ser text, with a line map for errors."""

    def __init__(self, ast: dict[str, Any], defines: dict[str, int]) -> None:
        self.ast = ast
        self.defines = dict(defines)
        self.consts: dict[str, int] = {}
        self.arrays: dict[str, int] = {}
        self.scalars: dict[str, int] = {}
        self.out: list[str] = []
        self.line = 1
        self.linemap: dict[int, tuple[str, tuple[int, int], str]] = {}
        self.nodes = 0

    # constants ---------------------------------------------------------------
    def const_value(self, e: Any, env: dict[str, int], what: str) -> int:
        """Value of a constant expression (literals, constants, operators)."""
        core = self.to_core_const(e, env, what)
        try:
            f = bounded.fold(core)
        except SerError as err:
            raise SerError(err.code, f"{what}: {err.msg}", err.pos)
        if f[0] != "lit":
            raise SerError("E-SYNTAX", f"{what} is not a constant expression", None)
        return f[1]

    def to_core_const(self, e: Any, env: dict[str, int], what: str) -> Any:
        t = e[0]
        if t == "lit":
            return e
        if t == "var":
            if e[1] in env:
                return ("lit", env[e[1]])
            raise SerError("E-SYNTAX", f"{what}: '{e[1]}' is not a constant", e[2])
        if t == "bin":
            return ("bin", e[1], self.to_core_const(e[2], env, what),
                    self.to_core_const(e[3], env, what), e[4])
        if t in ("and", "or"):
            return (t, self.to_core_const(e[1], env, what), self.to_core_const(e[2], env, what))
        if t == "not":
            return ("not", self.to_core_const(e[1], env, what))
        if t == "neg":
            return ("neg", self.to_core_const(e[1], env, what), e[2])
        raise SerError("E-SYNTAX", f"{what} is not a constant expression", None)

    def is_const(self, e: Any, env: dict[str, int]) -> bool:
        t = e[0]
        if t == "lit":
            return True
        if t == "var":
            return e[1] in env
        if t == "bin":
            return self.is_const(e[2], env) and self.is_const(e[3], env)
        if t in ("and", "or"):
            return self.is_const(e[1], env) and self.is_const(e[2], env)
        if t in ("not", "neg"):
            return self.is_const(e[1], env)
        return False

    def try_const(self, e: Any, env: dict[str, int]) -> Optional[int]:
        """Value of e if it is a constant expression in env, else None."""
        return self.const_value(e, env, "index") if self.is_const(e, env) else None

    def declare(self) -> None:
        for d in self.ast["decls"]:
            if d[0] == "const":
                _, name, expr, pos = d
                if name in self.consts or name in self.arrays or name in self.scalars:
                    raise SerError("E-SYNTAX", f"'{name}' is declared twice", pos)
                v = self.const_value(expr, self.consts, f"constant {name}")
                if name in self.defines:
                    v = self.defines.pop(name)
                self.consts[name] = v
            else:
                _, name, length, init, pos = d
                if is_local(name):
                    raise SerError("E-SYNTAX", f"'{name}' is a local; only globals are declared", pos)
                if name in self.consts or name in self.arrays or name in self.scalars:
                    raise SerError("E-SYNTAX", f"'{name}' is declared twice", pos)
                iv = 0 if init is None else self.const_value(init, self.consts, f"initial value of {name}")
                if length is None:
                    self.scalars[name] = iv
                else:
                    n = self.const_value(length, self.consts, f"length of {name}")
                    if not 1 <= n <= MAX_CELLS:
                        raise SerError("E-SYNTAX", f"array {name} has {n} cells (1 to {MAX_CELLS})", pos)
                    self.arrays[name] = n
                    for k in range(n):
                        self.scalars[mangle(name, k)] = iv
        if self.defines:
            bad = ", ".join(sorted(self.defines))
            raise SerError("E-USAGE", f"-D names something that is not a constant: {bad}", None)

    # emission -----------------------------------------------------------------
    def emit(self, s: str) -> None:
        self.out.append(s)
        self.line += s.count("\n")

    def emit_marked(self, s: str, code: str, pos: tuple[int, int], what: str) -> None:
        """Put s at the start of a fresh line and remember its source position."""
        self.emit("\n")
        self.linemap[self.line] = (code, pos, what)
        self.emit(s)
        self.emit("\n")

    def count(self) -> None:
        self.nodes += 1
        if self.nodes > 1_000_000:
            raise SerError("E-LIMIT", "writing the program out exceeds 1,000,000 nodes", None)

    def impure(self, e: Any) -> bool:
        t = e[0]
        if t in ("set", "aset", "yield", "choice", "while", "for"):
            return True
        return any(self.impure(c) for c in e[1:]
                   if isinstance(c, tuple) and c and isinstance(c[0], str) and len(c) >= 1
                   and c[0] in _NODE_KINDS)

    def ex(self, e: Any, env: dict[str, int], fixed: frozenset[str]) -> None:
        """Emit core text for e; env: constants in scope; fixed: names that cannot be assigned."""
        self.count()
        t = e[0]
        if t == "lit":
            self.emit(f"({e[1]})" if e[1] < 0 else str(e[1]))
        elif t == "var":
            n = e[1]
            if n in env:
                v = env[n]
                self.emit(f"({v})" if v < 0 else str(v))
            elif n in self.arrays:
                raise SerError("E-SYNTAX", f"array '{n}' used without an index", e[2])
            else:
                self.emit(n)
        elif t == "set":
            n = e[1]
            if n in env or n in fixed:
                raise SerError("E-SYNTAX", f"'{n}' is a constant and cannot be assigned", e[3])
            if n in self.arrays:
                raise SerError("E-SYNTAX", f"array '{n}' assigned without an index", e[3])
            self.emit(f"({n} := ")
            self.ex(e[2], env, fixed)
            self.emit(")")
        elif t == "idx":
            self.access(e[1], e[2], None, e[3], env, fixed)
        elif t == "aset":
            self.access(e[1], e[2], e[3], e[4], env, fixed)
        elif t == "seq":
            self.emit("(")
            self.ex(e[1], env, fixed)
            self.emit("; ")
            self.ex(e[2], env, fixed)
            self.emit(")")
        elif t == "if":
            self.emit("if (")
            self.ex(e[1], env, fixed)
            self.emit(") { ")
            self.ex(e[2], env, fixed)
            self.emit(" } else { ")
            self.ex(e[3], env, fixed)
            self.emit(" }")
        elif t == "while":
            self.emit("while (")
            self.ex(e[1], env, fixed)
            self.emit(") { ")
            self.ex(e[2], env, fixed)
            self.emit(" }")
        elif t == "for":
            _, v, lo, hi, body, pos = e
            if not is_local(v) or v in env or v in self.consts:
                raise SerError("E-SYNTAX", f"loop variable '{v}' must be a lower-case name that is not a constant in scope", pos)
            a = self.const_value(lo, env, "for bound")
            b = self.const_value(hi, env, "for bound")
            if b - a + 1 > MAX_COPIES:
                raise SerError("E-LIMIT", f"for has {b - a + 1} copies (at most {MAX_COPIES})", pos)
            if a > b:
                self.emit("0")
                return
            self.emit("(")
            for k in range(a, b + 1):
                if k > a:
                    self.emit("; ")
                env2 = dict(env)
                env2[v] = k
                self.ex(body, env2, fixed)
            self.emit(")")
        elif t == "yield":
            self.emit("yield")
        elif t == "exit":
            self.emit_marked("exit", "E-EXIT", e[1], "a request reaches 'exit'")
        elif t == "choice":
            lo = self.const_value(e[1], env, "choice bound")
            hi = self.const_value(e[2], env, "choice bound")
            if lo > hi or hi - lo + 1 > MAX_CHOICE:
                raise SerError("E-SYNTAX", f"bad range ?({lo}..{hi})", e[3])
            if lo >= 0:
                self.emit(f"?({lo}..{hi})")
            else:
                self.emit(f"(?(0..{hi - lo}) + ({lo}))")
        elif t == "bin":
            self.emit("(")
            self.ex(e[2], env, fixed)
            self.emit_marked(e[1], "OP", e[4], e[1])
            self.ex(e[3], env, fixed)
            self.emit(")")
        elif t in ("and", "or"):
            self.emit("(")
            self.ex(e[1], env, fixed)
            self.emit(" && " if t == "and" else " || ")
            self.ex(e[2], env, fixed)
            self.emit(")")
        elif t == "not":
            self.emit("(!")
            self.ex(e[1], env, fixed)
            self.emit(")")
        elif t == "neg":
            self.emit("(")
            self.emit_marked("-", "OP", e[2], "-")
            self.ex(e[1], env, fixed)
            self.emit(")")
        else:  # pragma: no cover
            raise ValueError(t)

    def access(self, name: str, idx: Any, val: Any, pos: tuple[int, int],
               env: dict[str, int], fixed: frozenset[str]) -> None:
        """A[idx] (val None) or A[idx] := val."""
        if name not in self.arrays:
            raise SerError("E-SYNTAX", f"'{name}' is not an array", pos)
        n = self.arrays[name]

        def cell(k: int, reset: bool) -> None:
            self.emit("(")
            if reset:
                self.emit(f"{HIDDEN} := 0; ")
            if val is None:
                self.emit(mangle(name, k))
            else:
                self.emit(f"({mangle(name, k)} := ")
                self.ex(val, env, fixed)
                self.emit(")")
            self.emit(")")

        def oob() -> None:
            self.emit("(")
            self.emit_marked("exit", "E-INDEX", pos, f"index out of range 0..{n - 1} of {name}")
            self.emit(")")

        k = self.try_const(idx, env)
        if k is not None:
            if 0 <= k < n:
                cell(k, False)
            else:
                oob()
            return
        hidden = self.impure(idx)
        self.emit("(")
        if hidden:
            self.emit(f"({HIDDEN} := ")
            self.ex(idx, env, fixed)
            self.emit("); ")
        for k in range(n):
            self.emit("if (")
            if hidden:
                self.emit(HIDDEN)
            else:
                self.emit("(")
                self.ex(idx, env, fixed)
                self.emit(")")
            self.emit(f" == {k}) {{ ")
            cell(k, hidden)
            self.emit(" } else { ")
        oob()
        self.emit(" }" * n)
        self.emit(")")

    def run(self) -> tuple[str, dict[str, str]]:
        self.declare()
        gl = [f"{g} := {v}" for g, v in self.scalars.items()]
        if gl:
            self.emit("global " + ", ".join(gl) + ";\n")
        names: dict[str, str] = {}
        seen: set[str] = set()
        for rname, fam, body, pos in self.ast["requests"]:
            if rname in seen:
                raise SerError("E-SYNTAX", f"request '{rname}' is defined twice", pos)
            seen.add(rname)
            if fam is None:
                members = [(rname, self.consts, frozenset())]
            else:
                v, lo, hi, vpos = fam
                if not is_local(v) or v in self.consts:
                    raise SerError("E-SYNTAX", f"family variable '{v}' must be a lower-case name that is not a constant", vpos)
                a = self.const_value(lo, self.consts, "family bound")
                b = self.const_value(hi, self.consts, "family bound")
                if b - a + 1 > MAX_MEMBERS:
                    raise SerError("E-LIMIT", f"family {rname} has {b - a + 1} members", vpos)
                members = []
                for k in range(a, b + 1):
                    env = dict(self.consts)
                    env[v] = k
                    members.append((mangle(rname, k), env, frozenset({v})))
            for mname, env, fixed in members:
                names[mname] = demangle(mname)
                if self.ast["bare"]:
                    self.ex(body, env, fixed)
                    continue
                self.emit(f"request {mname} {{ ")
                self.ex(body, env, fixed)
                self.emit(" }\n")
        return "".join(self.out), names


_NODE_KINDS = frozenset({"lit", "var", "idx", "set", "aset", "seq", "if", "while", "for",
                         "yield", "choice", "exit", "bin", "and", "or", "not", "neg"})


def expand(src: str, defines: Optional[dict[str, int]] = None) -> "Expanded":
    ast = Parser(src).parse_file()
    x = Expander(ast, defines or {})
    text, names = x.run()
    return Expanded(text, x.linemap, names)


class Expanded:
    def __init__(self, text: str, linemap: dict[int, Any], names: dict[str, str]) -> None:
        self.text, self.linemap, self.names = text, linemap, names

    def core(self) -> Any:
        try:
            return bounded.parse(self.text)
        except SerError as err:
            raise self.map_error(err)

    def map_error(self, err: Any) -> Any:
        if err.pos and err.pos[0] in self.linemap:
            code, pos, what = self.linemap[err.pos[0]]
            if code == "OP":
                return SerError(err.code, err.msg, pos)
            return SerError(code, what, pos)
        return err


def fix_result(res: Any, ex: Expanded) -> dict[str, Any]:
    d = res.as_dict()
    for e in d["errors"]:
        line = e["line"]
        if line in ex.linemap:
            code, pos, what = ex.linemap[line]
            if code != "OP":
                e["code"], e["message"] = code, what
            e["line"], e["column"] = pos
        else:
            e["line"] = e["column"] = None
    return json.loads(demangle(json.dumps(d)))


def render(d: dict[str, Any]) -> str:
    lines: list[str] = []
    if d["result"] == "counterexample":
        w = d["witness"]
        fmt = lambda items: "{" + ", ".join(f"{n}={v}" for n, v in items) + "}"  # noqa: E731
        lines.append(f"counterexample with {len(w['multiset'])} requests")
        lines.append(f"requests: {{{', '.join(w['multiset'])}}}")
        lines.append(f"concurrent responses: {fmt(w['responses'])}")
        lines.append("serial responses: " + (", ".join(fmt(s) for s in w["serial_responses"]) or "none"))
        lines.append("trace:")
        for i, t in enumerate(w["trace"], 1):
            loc = "{" + ",".join(f"{a}={b}" for a, b in sorted(t["locals"].items())) + "}"
            head = f"answers {t['value']}" if t["event"] == "answer" else f"runs to a yield, rest `{t['rest']}`"
            gl = t["globals"]
            gs = "" if gl is None else " globals {" + ",".join(f"{a}={b}" for a, b in sorted(gl.items())) + "}"
            lines.append(f"  {i}. {t['request']} {head}; locals {loc};{gs}")
    elif d["result"] == "error":
        lines.append("error: a reachable state is an error")
    elif d["result"] == "incomplete":
        lines.append("incomplete: state cap hit")
    else:
        lines.append(f"no counterexample up to {d['requests']} requests")
    for e in d["errors"]:
        lines.append(f"{'warning' if d['result'] == 'counterexample' else '  '}: {e['code']} at "
                     f"{e['line']}:{e['column']} in request '{e['request']}': {e['message']}")
    lines.append(f"states: {d['states']}, multisets: {d['multisets_checked']} checked, "
                 f"{d['multisets_skipped']} skipped, seconds: {d['seconds']:.2f}")
    return "\n".join(lines)


def parse_defines(items: list[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for it in items:
        if "=" not in it:
            raise SerError("E-USAGE", f"-D wants NAME=VALUE, got {it!r}", None)
        k, v = it.split("=", 1)
        out[k.strip()] = int(v)
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description="Bounded serializability search for Ser models with arrays.")
    ap.add_argument("model")
    ap.add_argument("-D", dest="defines", action="append", default=[])
    ap.add_argument("--print", action="store_true", help="print the written-out core program")
    ap.add_argument("--max-requests", type=int, default=3)
    ap.add_argument("--max-states", type=int, default=2_000_000)
    ap.add_argument("--step-bound", type=int, default=200_000)
    ap.add_argument("--all-multisets", action="store_true")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    t0 = time.monotonic()
    try:
        with open(args.model, encoding="utf-8") as fh:
            src = fh.read()
        ex = expand(src, parse_defines(args.defines))
        if args.print:
            print(ex.text)
            return 0
        prog = ex.core()
    except (OSError, SerError, ValueError) as err:
        msg = str(err)
        if args.json:
            print(json.dumps({"result": "error", "errors": [{"code": getattr(err, "code", "E-IO"), "message": msg}]}))
        else:
            print(f"error: {msg}")
        return 2
    res = bounded.Search(prog, args.max_states, args.step_bound).run(args.max_requests, args.all_multisets)
    res.seconds = time.monotonic() - t0
    d = fix_result(res, ex)
    print(json.dumps(d) if args.json else render(d))
    return bounded.EXIT_CODES[d["result"]]


# --------------------------------------------------------------------------- self-test

def _verdict(src: str, k: int = 3, **kw: Any) -> str:
    ex = expand(src, kw.pop("defines", None))
    res = bounded.Search(ex.core()).run(k)
    return fix_result(res, ex)["result"]


def _values(src: str) -> set[int]:
    s = bounded.Search(expand(src).core())
    return {v for v, _ in s.run_alone(0, s.prog.init_globals)}


def selftest() -> int:
    fails: list[str] = []

    def check(label: str, cond: bool) -> None:
        if not cond:
            fails.append(label)

    def rejects(src: str, code: str = "E-SYNTAX", defines: Optional[dict[str, int]] = None) -> bool:
        try:
            expand(src, defines).core()
        except SerError as err:
            return err.code == code
        return False

    cases = [
        ("const K := 3; global A[K] := 2; request r { A[0] + A[1] + A[2] }", {6}),
        ("const K := 3; global A[K]; request r { for (j in 0..K-1) { A[j] := j + 1 }; A[2] * 10 + A[1] }", {32}),
        ("const K := 2; global A[K]; request r { i := ?(0..K-1); A[i] := 5; A[0] + 2 * A[1] }", {5, 10}),
        ("const K := 4; global A[K]; request r { A[?(0..K-1)] := 1; A[0] + A[1] + A[2] + A[3] }", {1}),
        ("const K := 2; global A[K]; request r { i := 0; A[i] := (i := 1; 7); A[0] * 10 + A[1] }", {70}),
        ("const K := 2; global A[K]; request r { for (j in 0..K-1) { 5 + j } }", {6}),
        ("request r { for (j in 3..1) { 5 } }", {0}),
        ("const K := 2; request r { for (j in 0..K-1) { x := x + j }; j }", {0}),
        ("const N := -2; request r { ?(N..N+1) }", {-2, -1}),
        ("const A := 2; const B := A * 3 + 1; request r { B }", {7}),
        ("const K := 3; global A[K] := -1, T := K + 1; request r { A[1] + T }", {3}),
        ("const K := 2; global A[K], B[K]; request r { B[1] := 1; A[B[1]] := 4; A[1] }", {4}),
        ("const K := 2; global A[K]; request r { A[(K + 1) % K] := 3; A[1] }", {3}),
        ("const K := 2; global A[K]; request r { A[?] := ?(1..2); yield; A[0] + A[1] }", {1, 2}),
    ]
    for src, want in cases:
        try:
            got = _values(src)
        except SerError as err:
            got = {-999}
            fails.append(f"{src!r}: raised {err}")
        check(f"value of {src!r}: got {sorted(got)}, want {sorted(want)}", got == want)
    # families and names
    ex = expand("const K := 3; global A[K]; request inc[j in 0..K-1] { A[j] := A[j] + 1 } request z { 1 }")
    check("family members", list(ex.names.values()) == ["inc[0]", "inc[1]", "inc[2]", "z"])
    check("-D", _values("const K := 2; global A[K] := 1; request r { s := 0; for (j in 0..K-1) { s := s + A[j] }; s }".replace("request r", "request r")) == {2})
    ex = expand("const K := 2; global A[K] := 1; request r { s := 0; for (j in 0..K-1) { s := s + A[j] }; s }", {"K": 5})
    s = bounded.Search(ex.core())
    check("-D K=5 sums 5", {v for v, _ in s.run_alone(0, s.prog.init_globals)} == {5})
    check("-D unknown", rejects("const K := 2; request r { K }", "E-USAGE", {"Q": 1}))
    # errors
    for bad in ["const K := 2; global A[K]; request r { A }", "global T; request r { T[0] }",
                "const K := 2; request r { K := 3 }", "request f[j in 0..1] { j := 1 }",
                "const K := 2; request r { for (K in 0..1) { 1 } }",
                "request f[j in 0..1] { for (j in 0..1) { 1 } }",
                "global A[0]; request r { 1 }", "request r { x := 1; ?(x..2) }",
                "global A[2]; request r { A[0] := 1; }", "request r { ?(3..1) }"]:
        check(f"rejects {bad!r}", rejects(bad))
    # E-INDEX at run time, only where reached
    r = expand("global A[2]; request r { i := ?(0..2); A[i] }")
    res = fix_result(bounded.Search(r.core()).run(1), r)
    check("E-INDEX reached", res["result"] == "error" and res["errors"][0]["code"] == "E-INDEX"
          and res["errors"][0]["line"] == 1)
    check("E-INDEX not reached", _verdict("global A[2]; request r { i := ?(0..1); if (i == 5) { A[i] } else { A[i] } }", 2) == "none")
    check("constant E-INDEX unreached", _verdict("global A[2]; request r { if (X == 1) { A[2] } else { 0 } }", 2) == "none")
    check("constant E-INDEX reached", _verdict("global A[2]; request r { A[5] }", 1) == "error")
    # verdicts
    check("bank-array style: none", _verdict(
        "const K := 2; global A[K] := 1, L[K];\n"
        "request move[j in 0..K-1] { while (L[0] == 1) { yield }; L[0] := 1; yield;"
        " while (L[1] == 1) { yield }; L[1] := 1; yield; m := 0;"
        " if (A[j] > 0) { A[j] := A[j] - 1; m := 1 } else { 0 }; yield;"
        " A[(j + 1) % K] := A[(j + 1) % K] + m; L[1] := 0; L[0] := 0; m }\n"
        "request audit { for (j in 0..K-1) { while (L[j] == 1) { yield }; L[j] := 1; yield };"
        " s := 0; for (j in 0..K-1) { s := s + A[j]; L[j] := 0 }; s }", 3) == "none")
    check("lost update per cell: counterexample", _verdict(
        "const K := 2; global C[K]; request inc { i := ?(0..K-1); x := C[i]; yield; C[i] := x + 1; x }", 3)
        == "counterexample")
    if fails:
        for f in fails:
            print("FAIL:", f)
        print(f"selftest: {len(fails)} failure(s)")
        return 1
    print("selftest: all checks passed")
    return 0


if __name__ == "__main__":
    sys.setrecursionlimit(50000)
    if "--selftest" in sys.argv:
        sys.exit(selftest())
    sys.exit(main(sys.argv[1:]))
