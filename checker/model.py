"""The checker's own Ser language (parser, printer, atomic step function), not the prover's."""
# Expressions are tuples: ("int", n) ("var", x) ("nd", lo, hi) ("yield",) ("exit",) ("assign",
# x, e) ("bin", op, a, b) ("not", a) ("neg", a) ("seq", a, b) ("if", c, t, e) ("while", c, b).

from __future__ import annotations

import importlib.resources
import json
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import lark

from checker.errors import CheckerError, LimitError, ModelError

Expr = tuple[Any, ...]
Env = tuple[tuple[str, int], ...]  # sorted (name, value) pairs, zero values dropped
Outcome = tuple[bool, Any, Env, Env]  # (yielded, residual Expr or returned int, L, G)

I64_MIN, I64_MAX = -(2**63), 2**63 - 1
STATE_BOUND = 20_000  # states of one yield-free loop, and of an NS JSON file
OUTCOME_BOUND = 100_000  # outcomes of one atomic step: ser-prove's default bound on them
ZERO: Expr = ("int", 0)
POISON = 2**63  # outside signed 64 bits: no variable holds it, and reading it is an error
CHOICE_BOUND = 1_024  # values of one `?(lo..hi)`: each is an outcome, so bounded before made


# --------------------------------------------------------------------------- smart constructors


def _i64(n: int) -> int:
    if not I64_MIN <= n <= I64_MAX:
        raise ModelError(f"integer {n} outside signed 64 bits", code="E-FAULT")
    return n


def _div(a: int, b: int) -> int:  # truncating toward zero, as C
    if b == 0:
        raise ModelError("division by zero", code="E-FAULT")
    return abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)


_OPS: dict[str, Callable[[int, int], int]] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b, "/": _div,
    "%": lambda a, b: a - b * _div(a, b), "==": lambda a, b: int(a == b),
    "!=": lambda a, b: int(a != b), "<": lambda a, b: int(a < b), "<=": lambda a, b: int(a <= b),
    ">": lambda a, b: int(a > b), ">=": lambda a, b: int(a >= b),
    # && with a != 0, || with a == 0: the right operand decides, normalised at run time
    "&&": lambda a, b: int(b != 0), "||": lambda a, b: int(b != 0)}


def _apply(op: str, a: int, b: int) -> int:
    return _i64(_OPS[op](a, b))


def _choice(lo: int, hi: int) -> Expr:  # `?` is `?(0..1)`; never truncated (that is unsound)
    if not 0 <= _i64(hi) - _i64(lo) < CHOICE_BOUND:
        raise LimitError(f"?({lo}..{hi}) is not a range of 1 to {CHOICE_BOUND} values")
    return ("nd", lo, hi)


def mk_bin(op: str, a: Expr, b: Expr) -> Expr:
    if a[0] == "int" and op in ("&&", "||"):  # quirk Q1: `n && B` folds to B itself
        return b if (a[1] != 0) == (op == "&&") else ("int", int(op == "||"))
    return ("int", _apply(op, a[1], b[1])) if a[0] == b[0] == "int" else ("bin", op, a, b)


def mk_un(tag: str, a: Expr) -> Expr:  # "not" (`!`) or "neg" (unary `-`)
    if a[0] != "int":
        return (tag, a)
    return ("int", int(a[1] == 0) if tag == "not" else _i64(-a[1]))


def mk_seq(a: Expr, b: Expr) -> Expr:
    return b if a[0] == "int" else ("seq", a, b)


def mk_if(c: Expr, t: Expr, e: Expr) -> Expr:
    return (t if c[1] != 0 else e) if c[0] == "int" else ("if", c, t, e)


def mk_while(c: Expr, b: Expr) -> Expr:
    return ZERO if c == ZERO else ("while", c, b)


# --------------------------------------------------------------------------- parser

def _name(tok: Any, init: bool = False) -> str:
    if tok in ("true", "false") or init and is_local(tok):
        why = "only globals have initial values" if init and is_local(tok) else "write 1 or 0"
        raise ModelError(f"line {tok.line} column {tok.column}: not a name here: {tok} ({why})")
    return str(tok)


def _program(c: list[Any]) -> tuple[Any, ...]:
    """What parse_source returns ("sizes" for constants, arrays, families or `for`: sizes.py)."""
    decls = [i for d in c if d[0] in ("global", "const") for i in (d[1:] if d[0] == "global"
                                                                  else [d])]
    blocks = [b for b in c if b[0] not in ("global", "const")]
    if any(len(b) > 2 for b in blocks) or any(  # a family: (family, name, var, lo, hi, body)
            d[0] == "const" or d[2] or d[3] and d[3][0] != "int" for d in decls) or any(
            n[0] in ("idx", "idxset", "for", "choose") for b in c for n in nodes(b[-1])):
        return "sizes", decls, blocks
    inits = [(_name(d[1], True), d[3][1] if d[3] else 0) for d in decls]
    for what, names in (("global", [k for k, _ in inits]), ("request", [r for r, _ in blocks])):
        if len(set(names)) != len(names):
            raise ModelError(f"a {what} name is repeated: {names}")
    return "core", tuple(sorted((k, v) for k, v in inits if v != 0)), blocks


_NODE: dict[str, Callable[[list[Any]], Any]] = {
    "int_": lambda c: ("int", _i64(int(c[0]))), "var": lambda c: ("var", _name(c[0])),
    "assign": lambda c: ("assign", _name(c[0]), c[1]), "not": lambda c: mk_un("not", c[1]),
    "bin": lambda c: mk_bin(str(c[1]), c[0], c[2]), "neg": lambda c: mk_un("neg", c[1]),
    "seq": lambda c: mk_seq(c[0], c[1]), "if_": lambda c: mk_if(c[0], c[1], c[2]),
    "while_": lambda c: mk_while(c[0], c[1]), "request_block": lambda c: (str(c[0]), c[1]),
    "assert_": lambda c: mk_if(c[0], ZERO, ("exit", "assert")),  # printed `exit`, E-ASSERT
    "nd": lambda c: ("nd", 0, 1), "int_min": lambda c: ("int", I64_MIN),
    "choose": lambda c: _choice(c[0][1], c[1][1]) if c[0][0] == c[1][0] == "int" else (
        "choose", *c),  # constant bounds now, others in checker/sizes.py
    **{k: (lambda t: lambda c: (t, *c))(k.removesuffix("_").removesuffix("_decl"))  # as read
       for k in ("init", "global_decl", "const_decl", "idx", "idxset", "for_", "family")},
    "program": _program, "bare": lambda c: _program([*c[:-1], ("request", c[-1])])}


class _Build(lark.Transformer[Any, Any]):
    """Smart constructors (folding, §1.4) run as LALR reduces: no tree, so no recursion."""

    def __default__(self, data: Any, children: list[Any], meta: Any) -> Any:
        return (_NODE[data](children) if data in _NODE else lark.Tree(data, children)
                if data.startswith("_") else (str(data),))  # lark's own rules; yield, exit


_GRAMMAR = (importlib.resources.files("checker") / "ser.lark").read_text(encoding="utf-8")


def _parser(tables: str) -> lark.Lark:
    # lark's own tables of this grammar and these options (checker/tables.py): plain JSON, so
    # reading them runs no code; made by another lark or from another grammar, not used
    key, data = tables.split("\n", 1)
    if json.loads(key) != [lark.__version__, _GRAMMAR]:
        return lark.Lark(_GRAMMAR, parser="lalr", lexer="basic", maybe_placeholders=True,
                         transformer=_Build())  # 0.1 s
    return lark.Lark._load_from_dict(*json.loads(data, object_pairs_hook=lambda kv: {
        int(k) if k.isdigit() else k: v for k, v in kv}), transformer=_Build())  # int keys


_PARSER = _parser((importlib.resources.files("checker") / "ser_tables.json").read_text("utf-8"))


def parse_source(text: str) -> tuple[Any, ...]:
    """A Ser file parsed: ("core", initial globals, blocks) or ("sizes", declarations, blocks)."""
    try:
        return _PARSER.parse(text)  # type: ignore[return-value]
    except lark.exceptions.UnexpectedInput as exc:  # a character or a token (LALR: no EOF)
        tok = getattr(exc, "token", None)
        what = f"character {getattr(exc, 'char', '')!r}" if tok is None else f"token {str(tok)!r}"
        raise ModelError(f"line {exc.line} column {exc.column}: unexpected {what}") from None


# ------------------------------------------------------------------ printer (docs/naming.md)

_LEVEL = {"seq": 1, "assign": 2, "||": 3, "&&": 4, "==": 5, "!=": 5, "<": 6, "<=": 6, ">": 6,
          ">=": 6, "+": 7, "-": 7, "*": 8, "/": 8, "%": 8, "not": 9, "neg": 9}


def expr_text(e: Expr, minimum: int = 1) -> str:
    """Canonical text; parentheses exactly where the reference's text would be ambiguous."""
    tag, lv = e[0], _LEVEL.get(e[1] if e[0] == "bin" else e[0], 10)
    if tag in ("int", "var"):
        s = str(e[1])
    elif tag in ("nd", "yield", "exit"):
        s = tag if tag != "nd" else "?" if e[1:] == (0, 1) else f"?({e[1]}..{e[2]})"
    elif tag == "assign":
        s = f"{e[1]} := {expr_text(e[2], 2)}"
    elif tag == "bin":  # left-associative, except that comparisons (5, 6) do not chain
        s = f"{expr_text(e[2], lv + (lv in (5, 6)))} {e[1]} {expr_text(e[3], lv + 1)}"
    elif tag in ("not", "neg"):
        s = ("!" if tag == "not" else "-") + expr_text(e[1], 9)
    elif tag == "seq":
        s = f"{expr_text(e[1], 2)}; {expr_text(e[2], 1)}"
    elif tag == "if":
        s = f"if({expr_text(e[1])}){{{expr_text(e[2])}}}else{{{expr_text(e[3])}}}"
    else:
        s = f"while({expr_text(e[1])}){{ {expr_text(e[2])} }}"
    return f"({s})" if lv < minimum else s


def env_text(env: Iterable[tuple[str, int]]) -> str:
    return "{" + ",".join(f"{k}={v}" for k, v in env) + "}"


def local_text(env: Env, e: Expr, text: str | None = None) -> str:  # text: expr_text(e)
    return f"({env_text(env)}, {expr_text(e) if text is None else text})"


# --------------------------------------------------------------------------- step function (§2.2)


def is_local(name: str) -> bool:
    return "a" <= name[0] <= "z"  # §1.5: a lowercase first letter makes a variable local


def nodes(e: Expr) -> Iterator[Expr]:
    """Every node of `e`, iteratively (no recursion limit)."""
    todo = [e]
    while todo:
        yield (n := todo.pop())
        todo.extend(x for x in n[1:] if isinstance(x, tuple))


def named(e: Expr, tags: tuple[str, ...] = ("var", "assign")) -> set[str]:
    """The globals that the nodes of `e` with these tags read or write."""
    return {n[1] for n in nodes(e) if n[0] in tags and not is_local(n[1])}


def _set(env: Env, name: str, value: int) -> Env:
    return tuple(sorted([(k, v) for k, v in env if k != name] + [(name, value)] * (value != 0)))


def _get(env: Env, name: str) -> int:
    if (v := next((x for k, x in env if k == name), 0)) == POISON:  # outside its footprint
        raise CheckerError(f"a step reads {name} outside its footprint", code="E-FOOTPRINT")
    return v


def run(e: Expr, loc: Env, glo: Env) -> list[Outcome]:
    """All outcomes of running `e` up to its next yield or its end (one atomic NS step)."""
    tag = e[0]
    if tag in ("int", "nd"):  # a literal n, or each value of ?(lo..hi): e[-1] is n or hi
        return [(False, v, loc, glo) for v in range(e[1], e[-1] + 1)]
    if tag == "var":
        return [(False, _get(loc if is_local(e[1]) else glo, e[1]), loc, glo)]
    if tag == "yield":
        return [(True, ZERO, loc, glo)]
    if tag == "exit":
        raise ModelError("an assertion fails" if e[1:] else "`exit` is reachable (not supported)",
                         code="E-ASSERT" if e[1:] else "E-FAULT")
    out: list[Outcome] = []
    if tag == "assign":
        for y, v, l2, g2 in run(e[2], loc, glo):
            if y:
                out.append((True, ("assign", e[1], v), l2, g2))
            elif is_local(e[1]):
                out.append((False, v, _set(l2, e[1], v), g2))
            else:
                out.append((False, v, l2, _set(g2, e[1], v)))
    elif tag == "bin":
        op = e[1]
        for y, v, l2, g2 in run(e[2], loc, glo):
            if y:
                out.append((True, mk_bin(op, v, e[3]), l2, g2))
            elif (op == "&&" and v == 0) or (op == "||" and v != 0):
                out.append((False, int(op == "||"), l2, g2))
            else:
                for y2, w, l3, g3 in run(e[3], l2, g2):
                    if y2:  # quirk Q3: a yielding right operand of &&/|| drops the wrapper
                        res = w if op in ("&&", "||") else mk_bin(op, ("int", v), w)
                        out.append((True, res, l3, g3))
                    else:
                        out.append((False, _apply(op, v, w), l3, g3))
                _more(out, [])
    elif tag in ("not", "neg"):  # the smart constructor computes the value of a literal
        for y, v, l2, g2 in run(e[1], loc, glo):
            out.append((y, mk_un(tag, v) if y else mk_un(tag, ("int", v))[1], l2, g2))
    elif tag == "seq":
        first = run(e[1], loc, glo)
        out.extend((True, mk_seq(v, e[2]), l2, g2) for y, v, l2, g2 in first if y)
        # the value of a finished first part is dropped: continue once per distinct state,
        # so `?; ?; ...; ?` costs linear, not exponential, time
        for l2, g2 in dict.fromkeys((l2, g2) for y, _, l2, g2 in first if not y):
            _more(out, run(e[2], l2, g2))
    elif tag == "if":
        for y, v, l2, g2 in run(e[1], loc, glo):
            if y:
                out.append((True, mk_if(v, e[2], e[3]), l2, g2))
            else:
                _more(out, run(e[2] if v != 0 else e[3], l2, g2))
    else:
        out.extend(_run_while(e, loc, glo))
    return list(dict.fromkeys(out))  # duplicates only cost time (outcomes are a set)


def _run_while(e: Expr, loc: Env, glo: Env) -> list[Outcome]:
    (_, cond, body), stack, seen = e, [(loc, glo)], set()
    out: list[Outcome] = []
    while stack:
        if (state := stack.pop()) in seen:  # a yield-free cycle: this path never ends (§2.2)
            continue
        seen.add(state)
        if len(seen) > STATE_BOUND:
            raise ModelError(f"a yield-free loop exceeds {STATE_BOUND} states: {expr_text(e)}")
        for y, v, l2, g2 in run(cond, *state):
            if y:  # DESIGN: test the original condition again next time (not the residual)
                out.append((True, mk_if(v, mk_seq(body, e), ZERO), l2, g2))
            elif v == 0:
                out.append((False, 0, l2, g2))
            else:
                for y2, w, l3, g3 in run(body, l2, g2):
                    if y2:
                        _more(out, [(True, mk_seq(w, e), l3, g3)])
                    else:
                        stack.append((l3, g3))
    return out


def _more(out: list[Outcome], more: list[Outcome]) -> None:
    out.extend(more)  # `v0 := ?; ...; v39 := ?` alone has 2^40 outcomes: bounded as made
    if len(out) > OUTCOME_BOUND:
        raise LimitError(f"one atomic step has more than {OUTCOME_BOUND} outcomes")

