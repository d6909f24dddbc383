"""The live locals of a Ser expression: those some run of it may read before writing them."""

from __future__ import annotations

from checker.model import Expr, is_local

Memo = dict[tuple[int, frozenset[str]], frozenset[str]]


def live_locals(e: Expr, out: frozenset[str] = frozenset(), memo: Memo | None = None
                ) -> frozenset[str]:  # fmt: skip
    # The locals some run of `e` may read before writing them, `out` those read after it; a
    # local state's name drops the others (dead: the same futures; DESIGN.md, live locals).
    # `memo` keeps each (node, out) once: nested loops' fixpoints would be exponential. One
    # frame per level of the expression: a long sequence nests as deep as it is long.
    memo = {} if memo is None else memo
    if (key := (id(e), out)) in memo:
        return memo[key]
    tag, got = e[0], out  # int, nd, yield, exit: out
    if tag == "var" and is_local(e[1]):
        got = out | {e[1]}
    elif tag == "assign":
        got = live_locals(e[2], out - {e[1]}, memo)
    elif tag == "bin":
        right = live_locals(e[3], out, memo)
        got = live_locals(e[2], right | out if e[1] in ("&&", "||") else right, memo)
    elif tag in ("not", "neg"):
        got = live_locals(e[1], out, memo)
    elif tag == "seq":
        got = live_locals(e[1], live_locals(e[2], out, memo), memo)
    elif tag == "if":
        got = live_locals(e[1], live_locals(e[2], out, memo) | live_locals(e[3], out, memo),
                          memo)
    elif tag == "while":  # the least x with x = live(cond, out ∪ live(body, x))
        x, last = frozenset[str](), None
        while x != last:
            last, x = x, live_locals(e[1], out | live_locals(e[2], x, memo), memo)
        got = x
    memo[key] = got
    return got
