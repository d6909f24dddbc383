"""The exact meaning of an LTL-X formula on an ultimately periodic word (docs/ltl.md),
and what its atoms see in one state (`Observation`, the globals of a Ser global state).

A lasso is a list of observations s_0 … s_{n-1} and a loop start k: the word is
s_0 … s_{k-1} (s_k … s_{n-1})^ω. The successor of position n−1 is k, so the word has
only n distinct positions, and each subformula is decided at each of them: the
Boolean connectives pointwise; `a U b` as the least fixpoint of b ∨ (a ∧ next), which on
a graph of n positions with one successor each is reached after n rounds; G, F, R and W
from U by the usual dualities. Time O(|φ|·n²) at worst, no automaton involved: a
violation found by any search is judged here by the definition itself.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from prover.errors import FormulaError
from prover.ltl.formula import (
    Binary,
    Compare,
    Const,
    Count,
    Formula,
    Global,
    Not,
    Num,
    Term,
    Unary,
)
from prover.ns import NetworkSystem


def global_values(state: str) -> dict[str, int]:
    """The globals of a Ser global state written `{A=1,B=-2}` (zeros left out)."""
    inner = state.strip()[1:-1]
    out: dict[str, int] = {}
    for part in filter(None, inner.split(",")):
        name, _, val = part.partition("=")
        out[name] = int(val)
    return out


def ser_globals(ns: NetworkSystem) -> frozenset[str]:
    """The global variables a formula may read: those of a Ser program, whether or not
    they ever hold a value other than 0 (named in a global state or in the program text
    of a local state); an NS in JSON has opaque global states, so none."""
    if ns.kind != "ser":
        return frozenset()
    named = {m for text in ns.local_states
             for m in _GLOBAL_NAME.findall(text[text.find("}, ") + 3:])}
    return frozenset(k for s in ns.global_states for k in global_values(s)) | named


_GLOBAL_NAME = re.compile(r"(?<![A-Za-z0-9_])[A-Z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Observation:
    """What an atom can see in one state of an execution."""

    globals_: Mapping[str, int]
    inflight: Mapping[str, int]  # request name -> requests of it in flight
    answered: Mapping[tuple[str, str], int]  # (request name, answer) -> requests that gave it


def value(t: Term, s: Observation) -> int:
    """An integer term in one state: exact integers, `/` and `%` truncate toward zero."""
    if isinstance(t, Num):
        return t.value
    if isinstance(t, Global):
        return s.globals_.get(t.name, 0)
    if isinstance(t, Count):
        if t.kind == "inflight":
            return s.inflight.get(t.request, 0)
        return sum(c for (r, v), c in s.answered.items()
                   if r == t.request and (t.value is None or v == str(t.value)))
    a = value(t.a, s)
    if t.op == "neg":
        return -a
    assert t.b is not None
    b = value(t.b, s)
    if t.op in ("/", "%"):
        if b == 0:
            raise FormulaError(f"the formula divides by zero (a {t.op} b with b = 0)")
        q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
        return q if t.op == "/" else a - b * q
    return {"+": a + b, "-": a - b, "*": a * b}[t.op]


COMPARE = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
        "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}


def satisfies(c: Compare, s: Observation) -> bool:
    """Whether the atom `c` is true in the state `s`."""
    return COMPARE[c.op](value(c.a, s), value(c.b, s))


def holds(f: Formula, word: Sequence[Observation], loop: int) -> bool:
    """Whether `f` holds at position 0 of word[:loop] word[loop:]^ω."""
    if not 0 <= loop < len(word):
        raise ValueError(f"loop start {loop} outside a word of {len(word)} states")
    return _truth(f, word, loop)[0]


def _truth(f: Formula, word: Sequence[Observation], loop: int) -> list[bool]:
    n = len(word)
    if isinstance(f, Const):
        return [f.value] * n
    if isinstance(f, Compare):
        return [satisfies(f, s) for s in word]
    if isinstance(f, Not):
        return [not x for x in _truth(f.arg, word, loop)]
    if isinstance(f, Unary):  # G a = ¬(true U ¬a), F a = true U a
        if f.op == "F":
            return _until([True] * n, _truth(f.arg, word, loop), loop)
        return [not x for x in _until([True] * n, [not x for x in _truth(f.arg, word, loop)],
                                      loop)]
    assert isinstance(f, Binary)
    a, b = _truth(f.a, word, loop), _truth(f.b, word, loop)
    if f.op == "&&":
        return [x and y for x, y in zip(a, b, strict=True)]
    if f.op == "||":
        return [x or y for x, y in zip(a, b, strict=True)]
    if f.op == "->":
        return [not x or y for x, y in zip(a, b, strict=True)]
    if f.op == "<->":
        return [x == y for x, y in zip(a, b, strict=True)]
    if f.op == "U":
        return _until(a, b, loop)
    if f.op == "R":  # a R b = ¬(¬a U ¬b)
        return [not x for x in _until([not x for x in a], [not y for y in b], loop)]
    # a W b = (a U b) ∨ G a
    g = [not x for x in _until([True] * len(a), [not x for x in a], loop)]
    return [x or y for x, y in zip(_until(a, b, loop), g, strict=True)]


def _until(a: list[bool], b: list[bool], loop: int) -> list[bool]:
    """The least fixpoint of u = b ∨ (a ∧ u∘next), next(i) = i + 1, next(n − 1) = loop."""
    n = len(a)
    u = list(b)
    for _ in range(n):
        changed = False
        for i in reversed(range(n)):
            nxt = u[i + 1] if i + 1 < n else u[loop]
            new = b[i] or (a[i] and nxt)
            if new != u[i]:
                u[i], changed = new, True
        if not changed:
            break
    return u
