"""The live locals of a Ser expression: those some run of it may read before writing them."""

from __future__ import annotations

from collections.abc import Callable

from checker.model import Expr, is_local

Memo = dict[tuple[int, frozenset[str]], frozenset[str]]


def live_locals(e: Expr, out: frozenset[str] = frozenset(), memo: Memo | None = None
                ) -> frozenset[str]:  # fmt: skip
    # The locals some run of `e` may read before writing them, `out` those read after it; a
    # local state's name drops the others (dead: the same futures; DESIGN.md, live locals).
    # `memo` keeps each (node, out) once: nested loops' fixpoints would be exponential.
    memo = {} if memo is None else memo
    if (id(e), out) not in memo:
        memo[id(e), out] = _live(e, out, lambda f, o: live_locals(f, o, memo))
    return memo[id(e), out]


def _live(e: Expr, out: frozenset[str], live: Callable[[Expr, frozenset[str]], frozenset[str]]
          ) -> frozenset[str]:  # fmt: skip
    tag = e[0]
    if tag == "var":
        return out | {e[1]} if is_local(e[1]) else out
    if tag == "assign":
        return live(e[2], out - {e[1]})
    if tag == "bin":
        right = live(e[3], out)
        return live(e[2], right | out if e[1] in ("&&", "||") else right)
    if tag in ("not", "neg"):
        return live(e[1], out)
    if tag == "seq":
        return live(e[1], live(e[2], out))
    if tag == "if":
        return live(e[1], live(e[2], out) | live(e[3], out))
    if tag == "while":  # the least x with x = live(cond, out ∪ live(body, x))
        x, last = frozenset[str](), None
        while x != last:
            last, x = x, live(e[1], out | live(e[2], x))
        return x
    return out  # int, nd, yield, exit
