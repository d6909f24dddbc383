"""The checker's own front end: Ser parser, Ser → NS compiler, NS JSON loader.

Written from ser-reference §1–§3 and the deliberate differences of DESIGN.md, without
looking at the prover. Expressions are plain tuples (hashable, compared structurally):
("int", n) ("var", x) ("nd",) ("yield",) ("exit",) ("assign", x, e) ("bin", op, a, b)
("not", a) ("seq", a, b) ("if", c, t, e) ("while", c, b).
"""

from __future__ import annotations

import importlib.resources
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import lark

from checker.errors import ModelError

Expr = tuple[Any, ...]
Env = tuple[tuple[str, int], ...]  # sorted (name, value) pairs, zero values dropped
Outcome = tuple[bool, Any, Env, Env]  # (yielded, residual Expr or returned int, L, G)

I64_MIN, I64_MAX = -(2**63), 2**63 - 1
STATE_BOUND = 20_000  # locals + globals of one compilation (DESIGN: a state bound, not divergence)
PAIR_BOUND = 1_000_000  # (local, global) pairs explored by the closure of §2.4
ZERO: Expr = ("int", 0)


@dataclass(frozen=True)
class NS:
    """A network system over canonical names (strings). Entries are deduplicated."""

    initial: str
    requests: tuple[tuple[str, str], ...]  # (request name, local)
    responses: tuple[tuple[str, str], ...]  # (local, response)
    transitions: tuple[tuple[str, str, str, str], ...]  # (l, g, l2, g2)


# --------------------------------------------------------------------------- smart constructors


def _i64(n: int) -> int:
    if not I64_MIN <= n <= I64_MAX:
        raise ModelError(f"integer {n} outside signed 64 bits")
    return n


def _apply(op: str, a: int, b: int) -> int:
    if op == "+":
        return _i64(a + b)
    if op == "-":
        return _i64(a - b)
    if op == "==":
        return int(a == b)
    # && with a != 0, || with a == 0: the right operand decides, normalised at run time
    return int(b != 0)


def mk_bin(op: str, a: Expr, b: Expr) -> Expr:
    if a[0] == "int":
        if op == "&&":
            return ZERO if a[1] == 0 else b  # quirk Q1: `n && B` folds to B itself
        if op == "||":
            return ("int", 1) if a[1] != 0 else b
        if b[0] == "int":
            return ("int", _apply(op, a[1], b[1]))
    return ("bin", op, a, b)


def mk_not(a: Expr) -> Expr:
    return ("int", int(a[1] == 0)) if a[0] == "int" else ("not", a)


def mk_seq(a: Expr, b: Expr) -> Expr:
    return b if a[0] == "int" else ("seq", a, b)


def mk_if(c: Expr, t: Expr, e: Expr) -> Expr:
    if c[0] == "int":
        return t if c[1] != 0 else e
    return ("if", c, t, e)


def mk_while(c: Expr, b: Expr) -> Expr:
    return ZERO if c == ZERO else ("while", c, b)


# --------------------------------------------------------------------------- parser

_GRAMMAR = (importlib.resources.files("checker") / "ser.lark").read_text(encoding="utf-8")
_PARSER = lark.Lark(_GRAMMAR, parser="lalr", lexer="basic", maybe_placeholders=False)


_BIN = {"or_": "||", "and_": "&&", "eq": "==", "add": "+", "sub": "-"}
_NODE: dict[str, Callable[[list[Any]], Any]] = {
    "int_": lambda c: ("int", _i64(int(c[0]))),
    "var": lambda c: ("var", str(c[0])),
    "nondet": lambda c: ("nd",),
    "yield_": lambda c: ("yield",),
    "exit_": lambda c: ("exit",),
    "assign": lambda c: ("assign", str(c[0]), c[1]),
    "not_": lambda c: mk_not(c[0]),
    "seq": lambda c: mk_seq(c[0], c[1]),
    "if_": lambda c: mk_if(c[0], c[1], c[2]),
    "while_": lambda c: mk_while(c[0], c[1]),
    "request_block": lambda c: (str(c[0]), c[1]),
    "program": list,
    "bare": lambda c: [("request", c[0])],
}


class _Build(lark.Transformer[Any, Any]):
    """Parse tree → Expr through the smart constructors (the parser folds too, §1.4)."""

    def __default__(self, data: Any, children: list[Any], meta: Any) -> Any:
        if data in _BIN:
            return mk_bin(_BIN[data], children[0], children[1])
        return _NODE[str(data)](children)


def parse_ser(text: str) -> list[tuple[str, Expr]]:
    """The (request name, body) list of a Ser file. Errors name their own line and column."""
    try:
        tree = _PARSER.parse(text)
        result: list[tuple[str, Expr]] = _Build().transform(tree)
    except lark.exceptions.UnexpectedCharacters as exc:
        raise ModelError(
            f"line {exc.line} column {exc.column}: unexpected character {exc.char!r}"
        ) from None
    except lark.exceptions.UnexpectedEOF:
        raise ModelError("unexpected end of input") from None
    except lark.exceptions.UnexpectedToken as exc:
        raise ModelError(
            f"line {exc.line} column {exc.column}: unexpected token {str(exc.token)!r}"
        ) from None
    except lark.exceptions.VisitError as exc:  # an error raised inside a constructor
        if isinstance(exc.orig_exc, ModelError):
            raise exc.orig_exc from None
        raise
    return result


# ------------------------------------------------------------------ printer (docs/naming.md)

_LEVEL = {"seq": 1, "assign": 2, "||": 3, "&&": 4, "==": 5, "+": 6, "-": 6, "not": 7}
_CHILD_MIN = {"||": (3, 4), "&&": (4, 5), "==": (6, 6), "+": (6, 7), "-": (6, 7)}


def _level(e: Expr) -> int:
    return _LEVEL.get(e[1] if e[0] == "bin" else e[0], 8)


def expr_text(e: Expr, minimum: int = 1) -> str:
    """Canonical text; parentheses exactly where the reference's text would be ambiguous."""
    tag = e[0]
    if tag == "int":
        s = str(e[1])
    elif tag == "var":
        s = e[1]
    elif tag in ("nd", "yield", "exit"):
        s = {"nd": "?", "yield": "yield", "exit": "exit"}[tag]
    elif tag == "assign":
        s = f"{e[1]} := {expr_text(e[2], 2)}"
    elif tag == "bin":
        lo, hi = _CHILD_MIN[e[1]]
        s = f"{expr_text(e[2], lo)} {e[1]} {expr_text(e[3], hi)}"
    elif tag == "not":
        s = "!" + expr_text(e[1], 7)
    elif tag == "seq":
        s = f"{expr_text(e[1], 2)}; {expr_text(e[2], 1)}"
    elif tag == "if":
        s = f"if({expr_text(e[1])}){{{expr_text(e[2])}}}else{{{expr_text(e[3])}}}"
    else:
        s = f"while({expr_text(e[1])}){{ {expr_text(e[2])} }}"
    return f"({s})" if _level(e) < minimum else s


def env_text(env: Env) -> str:
    return "{" + ",".join(f"{k}={v}" for k, v in env) + "}"


def local_text(env: Env, e: Expr) -> str:
    return f"({env_text(env)}, {expr_text(e)})"


# --------------------------------------------------------------------------- step function (§2.2)


def _is_local(name: str) -> bool:
    return "a" <= name[0] <= "z"  # §1.5: a lowercase first letter makes a variable local


def _set(env: Env, name: str, value: int) -> Env:
    rest = [(k, v) for k, v in env if k != name]
    if value != 0:
        rest.append((name, value))
    return tuple(sorted(rest))


def _get(env: Env, name: str) -> int:
    return next((v for k, v in env if k == name), 0)


def run(e: Expr, loc: Env, glo: Env) -> list[Outcome]:
    """All outcomes of running `e` up to its next yield or its end (one atomic NS step)."""
    tag = e[0]
    if tag == "int":
        return [(False, e[1], loc, glo)]
    if tag == "var":
        return [(False, _get(loc if _is_local(e[1]) else glo, e[1]), loc, glo)]
    if tag == "nd":
        return [(False, 0, loc, glo), (False, 1, loc, glo)]
    if tag == "yield":
        return [(True, ZERO, loc, glo)]
    if tag == "exit":
        raise ModelError("`exit` is reachable (not supported)")
    out: list[Outcome] = []
    if tag == "assign":
        for y, v, l2, g2 in run(e[2], loc, glo):
            if y:
                out.append((True, ("assign", e[1], v), l2, g2))
            elif _is_local(e[1]):
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
    elif tag == "not":
        for y, v, l2, g2 in run(e[1], loc, glo):
            out.append((True, mk_not(v), l2, g2) if y else (False, int(v == 0), l2, g2))
    elif tag == "seq":
        first = run(e[1], loc, glo)
        out.extend((True, mk_seq(v, e[2]), l2, g2) for y, v, l2, g2 in first if y)
        # the value of a finished first part is dropped: continue once per distinct state,
        # so `?; ?; ...; ?` costs linear, not exponential, time
        for l2, g2 in dict.fromkeys((l2, g2) for y, _, l2, g2 in first if not y):
            out.extend(run(e[2], l2, g2))
    elif tag == "if":
        for y, v, l2, g2 in run(e[1], loc, glo):
            if y:
                out.append((True, mk_if(v, e[2], e[3]), l2, g2))
            else:
                out.extend(run(e[2] if v != 0 else e[3], l2, g2))
    else:
        out.extend(_run_while(e, loc, glo))
    return list(dict.fromkeys(out))  # duplicates only cost time (outcomes are a set)


def _run_while(e: Expr, loc: Env, glo: Env) -> list[Outcome]:
    cond, body = e[1], e[2]
    out: list[Outcome] = []
    stack, seen = [(loc, glo)], set()
    while stack:
        state = stack.pop()
        if state in seen:  # a yield-free cycle: this path never finishes (§2.2)
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
                        out.append((True, mk_seq(w, e), l3, g3))
                    else:
                        stack.append((l3, g3))
    return out


# --------------------------------------------------------------------------- Ser → NS (§2.4)


def compile_ser(text: str) -> NS:
    blocks = parse_ser(text)
    named: dict[str, Any] = {}  # text -> state: distinct states must never share a name (B7)
    requests: dict[tuple[str, str], None] = {}
    responses: dict[tuple[str, str], None] = {}
    transitions: dict[tuple[str, str, str, str], None] = {}
    seen_l: dict[tuple[Env, Expr], str] = {}  # local state -> request that first reached it
    seen_g: dict[Env, None] = {(): None}
    done: set[tuple[tuple[Env, Expr], Env]] = set()
    stack: list[tuple[tuple[Env, Expr], Env]] = []

    def name(text: str, state: Any) -> str:
        if named.setdefault(text, state) != state:
            raise ModelError(f"two distinct states print as {text[1:]!r}")
        return text[1:]

    def lname(st: tuple[Env, Expr]) -> str:
        return name("L" + local_text(*st), st)

    def gname(g: Env) -> str:
        return name("G" + env_text(g), g)

    for req, body in blocks:
        requests[(req, lname(((), body)))] = None
        seen_l.setdefault(((), body), req)
        stack.append((((), body), ()))
    while stack:
        pair = stack.pop()
        if pair in done:
            continue
        done.add(pair)
        if len(done) > PAIR_BOUND:
            raise ModelError(f"compilation explores more than {PAIR_BOUND} (local, global) pairs")
        (loc, e), glo = pair
        if e[0] == "int":
            responses[(lname((loc, e)), str(e[1]))] = None
            continue
        new_l, new_g = [], []
        for y, v, l2, g2 in run(e, loc, glo):
            target = (l2, v if y else ("int", v))
            transitions[(lname((loc, e)), gname(glo), lname(target), gname(g2))] = None
            if g2 not in seen_g:
                seen_g[g2] = None
                new_g.append(g2)
            if target not in seen_l:
                seen_l[target] = seen_l[(loc, e)]
                new_l.append(target)
        if len(seen_l) + len(seen_g) > STATE_BOUND:
            raise ModelError(_bound_message(seen_l, seen_g))
        stack.extend((st, g) for g in new_g for st in seen_l)
        stack.extend((st, g) for st in new_l for g in seen_g)
    return NS("{}", tuple(requests), tuple(responses), tuple(transitions))


def _bound_message(seen_l: dict[tuple[Env, Expr], str], seen_g: Iterable[Env]) -> str:
    values: dict[str, set[int]] = {}
    for env in [st[0] for st in seen_l] + list(seen_g):
        for k, v in env:
            values.setdefault(k, set()).add(v)
    var = max(sorted(values), key=lambda k: len(values[k]), default="?")
    req = list(seen_l.values())[-1]
    return f"compilation exceeds {STATE_BOUND} states (request {req}, variable {var} keeps growing)"


# --------------------------------------------------------------------------- NS JSON (§3)


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        raise ModelError("NS JSON: an object repeats a key")
    return dict(pairs)


def load_ns_json(text: str) -> NS:
    try:
        data = json.loads(text, object_pairs_hook=_no_duplicates)
    except (ValueError, RecursionError) as exc:
        raise ModelError(f"NS JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ModelError("NS JSON: top level is not an object")
    shapes = {"requests": 2, "responses": 2, "transitions": 4}
    for key in ("initial_global", *shapes):
        if key not in data:
            raise ModelError(f"NS JSON: missing member {key!r}")
    if not isinstance(data["initial_global"], str):
        raise ModelError("NS JSON: initial_global is not a string")
    rows: dict[str, tuple[Any, ...]] = {}
    for key, width in shapes.items():
        items = data[key]
        ok = isinstance(items, list) and all(
            isinstance(r, list) and len(r) == width and all(isinstance(s, str) for s in r)
            for r in items
        )
        if not ok:
            raise ModelError(f"NS JSON: {key} must be a list of {width}-string lists")
        rows[key] = tuple(dict.fromkeys(tuple(r) for r in items))
    return NS(data["initial_global"], rows["requests"], rows["responses"], rows["transitions"])


def load_model(kind: str, text: str) -> NS:
    try:
        return compile_ser(text) if kind == "ser" else load_ns_json(text)
    except RecursionError:
        raise ModelError("model nested too deeply") from None
