"""Narrowed inputs (issue 48, "Counterexamples among many handlers"): the program whose
requests choose, in their first step, among fewer values of each input.

A transfer that begins by choosing two of sixteen accounts has 240 first states; the
explicit search of two such requests meets tens of thousands of pairs before it can say
anything, while a bug of two transfers needs only two or three accounts. Every execution
of the narrowed program is one of the program (its first steps choose values the program
may choose, and the states after them are the same text in both), so a counterexample
found there is one of the program once its answers are checked not serial there. Found on
the checker's parse of a core program and printed back as core Ser."""

from __future__ import annotations

from math import prod

from checker.errors import CheckerError
from checker.model import Expr, is_local, nodes
from checker.program import parse_program
from prover.frontend.versions import core_source

WIDTH = 3  # values of each input kept, from the lowest
WIDE_INPUTS = 16  # combinations of a request's first choices that make it worth it


def _first_step(body: Expr) -> list[Expr]:
    """The statements of `body` that its first step surely runs whole: its leading
    statements up to the first that may yield or loop."""
    out: list[Expr] = []
    while True:
        first, rest = (body[1], body[2]) if body[0] == "seq" else (body, None)
        if any(n[0] in ("yield", "while") for n in nodes(first)):
            return out
        out.append(first)
        if rest is None:
            return out
        body = rest


def _narrow(body: Expr) -> Expr:
    """`body` with each `x := ?(lo..hi)` of its first step at most WIDTH values, when
    they make at least WIDE_INPUTS combinations."""
    choices = [s for s in _first_step(body)
               if s[0] == "assign" and is_local(s[1]) and s[2][0] == "nd"]
    wide = {id(s): s for s in choices if s[2][2] - s[2][1] >= WIDTH}
    if not wide or prod(s[2][2] - s[2][1] + 1 for s in choices) < WIDE_INPUTS:
        return body

    def go(e: Expr) -> Expr:
        if id(e) in wide:
            return ("assign", e[1], ("nd", e[2][1], e[2][1] + WIDTH - 1))
        if e[0] == "seq":
            return ("seq", go(e[1]), go(e[2]))
        return e

    return go(body)


def narrowed(source: str, constants: dict[str, int] | None) -> str | None:
    """The narrowed program's source, or None (no wide input in a first step, a program
    with constants or arrays: its states would not print as the same text)."""
    if constants:
        return None
    try:
        initial, requests = parse_program(source, None)
    except CheckerError:
        return None
    if any("[" in g for g, _ in initial) or any(
            n[0] in ("var", "assign") and "[" in n[1] for _, b in requests for n in nodes(b)):
        return None
    out = [(name, _narrow(body)) for name, body in requests]
    if out == requests:
        return None
    text = core_source(initial, out)
    try:
        return text if text is not None and parse_program(text) == (initial, out) else None
    except CheckerError:
        return None
