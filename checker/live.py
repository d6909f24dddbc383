"""The live locals of a Ser expression: those some run of it may read before writing them."""

from __future__ import annotations

from checker.model import Expr, is_local


def live_locals(e: Expr, out: frozenset[str] = frozenset()) -> frozenset[str]:
    # The locals some run of `e` may read before writing them, `out` those read after it; a
    # local state's name drops the others (dead: the same futures; DESIGN.md, live locals).
    tag = e[0]
    if tag == "var":
        return out | {e[1]} if is_local(e[1]) else out
    if tag == "assign":
        return live_locals(e[2], out - {e[1]})
    if tag == "bin":
        right = live_locals(e[3], out)
        return live_locals(e[2], right | out if e[1] in ("&&", "||") else right)
    if tag in ("not", "neg"):
        return live_locals(e[1], out)
    if tag == "seq":
        return live_locals(e[1], live_locals(e[2], out))
    if tag == "if":
        return live_locals(e[1], live_locals(e[2], out) | live_locals(e[3], out))
    if tag == "while":  # the least x with x = live(cond, out ∪ live(body, x))
        x, last = frozenset[str](), None
        while x != last:
            last, x = x, live_locals(e[1], out | live_locals(e[2], x))
        return x
    return out  # int, nd, yield, exit
