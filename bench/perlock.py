"""The perlock program of issue 40: a lock per account, transfers taking two locks in index
order, an audit taking every lock with yields between. `perlock(k)` is serializable;
`perlock_bug(k)` audits without the locks (its counterexample: the audit sees a unit in
flight). Each returns Ser program text."""

from __future__ import annotations


def _transfer(j: int, k: int) -> str:
    n = (j + 1) % k
    lo, hi = min(j, n), max(j, n)
    return f"""request move{j} {{
  while (L{lo} == 1) {{ yield }}; L{lo} := 1; yield;
  while (L{hi} == 1) {{ yield }}; L{hi} := 1; yield;
  if (A{j} >= 1 && A{n} <= 1) {{ A{j} := A{j} - 1; yield; A{n} := A{n} + 1; r := 1 }} else {{ 0 }};
  yield; L{lo} := 0; L{hi} := 0;
  r
}}"""


def _audit(k: int, locked: bool) -> str:
    # The parity of the total, not the sum: a running sum would multiply the local states.
    take = " ".join((f"while (L{j} == 1) {{ yield }}; L{j} := 1; " if locked else "")
                    + f"s := (s + A{j}) % 2; yield;" for j in range(k))
    free = " ".join(f"L{j} := 0;" for j in range(k)) if locked else ""
    return f"request audit {{\n  {take}\n  {free}\n  s\n}}"


def perlock(k: int, locked_audit: bool = True) -> str:
    head = [f"// {k} accounts, one lock each; the audit "
            + ("takes every lock" if locked_audit else "takes no lock"),
            "global " + ", ".join(f"A{j} := 1" for j in range(k)) + ";"]
    body = [_transfer(j, k) for j in range(k)] + [_audit(k, locked_audit)]
    return "\n".join(head + body) + "\n"


def perlock_bug(k: int) -> str:
    return perlock(k, locked_audit=False)
