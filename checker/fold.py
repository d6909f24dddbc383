"""The value of an expression that literals and known locals settle, as a run computes it
(the versions and two-phase locking claims follow a request's paths with it)."""

from __future__ import annotations

from checker.errors import CheckerError
from checker.model import Expr, is_local, mk_bin, mk_un


def fold(e: Expr, env: dict[str, int]) -> int | None:
    """The value of `e` if literals and the locals of `env` settle it (no global, no
    effect); `&&` and `||` stay unsettled (quirk Q1 folds them at parse time), and so does
    what faults (a division by zero, leaving 64 bits: the run fails there)."""
    if e[0] in ("int", "var"):
        return e[1] if e[0] == "int" else env.get(e[1]) if is_local(e[1]) else None
    if e[0] not in ("not", "neg", "bin") or e[0] == "bin" and e[1] in ("&&", "||"):
        return None
    kids = [fold(k, env) for k in e[2:]] if e[0] == "bin" else [fold(e[1], env)]
    if None in kids:
        return None
    try:
        return (mk_bin(e[1], ("int", kids[0]), ("int", kids[1])) if e[0] == "bin"
                else mk_un(e[0], ("int", kids[0])))[1]
    except CheckerError:
        return None


def truth(e: Expr, env: dict[str, int]) -> bool | None:
    """Whether `e` holds as a test (`if`, `while`) reads it, when literals and the locals
    of `env` settle it: `&&`, `||` and `!` by their operands' truth (their value may
    escape 0 and 1, quirks Q1 and Q3; their truth never does)."""
    if e[0] == "not" and (t := truth(e[1], env)) is not None:
        return not t
    if e[0] == "bin" and e[1] in ("&&", "||"):
        left = truth(e[2], env)
        return left if left is None or left == (e[1] == "||") else truth(e[3], env)
    return None if (v := fold(e, env)) is None else v != 0
