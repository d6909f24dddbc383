"""The scale families: parametric Ser programs of lock idioms whose verdicts hold by
construction (docs/cli.md, "Benchmarks"). `models()` gives every file of the set, name to
text, and `expected()` the verdict of each, as `ser-prove bench` reads it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


def counter(n: int) -> str:
    """`incr` waits while X = n, `decr` while X = 0: one effectful atomic step each."""
    return (f"request incr {{\n    while (X == {n}) {{ yield }};\n    X := X + 1\n}}\n\n"
            "request decr {\n    while (X == 0) { yield };\n    X := X - 1\n}\n")


def flipwait(n: int) -> str:
    """n rounds of waiting for X to flip twice: the smallest violation has 2n + 1
    requests."""
    return ("request flip {\n    X := 1-X\n}\n\n"
            f"request main {{\n    i := {n};\n    while (stop == 0) {{\n"
            "        while (X == 0) { yield };\n        while (X == 1) { yield };\n"
            "        i := i-1;\n        if (i == 0) { stop := 1 } else {0}\n    };\n"
            "    100\n}\n")


def _accounts(k: int, locked: bool) -> str:
    """Deposits, moves of one unit from account j to j + 1 and an audit that reads every
    account in k steps, all under one lock, or none (the moves then atomic)."""
    take, give = ("while (L == 1) { yield }; L := 1; ", " L := 0;") if locked else ("", "")
    blocks = [f"request deposit{j} {{\n    {take}if (A{j} == 2) {{0}} else "
              f"{{ A{j} := A{j} + 1 }};{give}\n    0\n}}\n" for j in range(k)]
    step = "; yield; " if locked else "; "
    blocks += [f"request move{j} {{\n    {take}if (A{j} == 0) {{0}} else {{ if (A{j + 1} == 2) "
               f"{{0}} else {{ A{j} := A{j} - 1{step}A{j + 1} := A{j + 1} + 1 }} }};{give}\n"
               "    0\n}\n" for j in range(k - 1)]
    reads = "; yield; ".join(f"s := s + A{j}" for j in range(k))
    blocks.append(f"request audit {{\n    {take}s := 0; {reads};{give}\n    s\n}}\n")
    return "\n".join(blocks)


def locked(k: int) -> str:
    return _accounts(k, True)


def unlocked(k: int) -> str:
    return _accounts(k, False)


def ring(n: int) -> str:
    """Station j waits for its turn and passes it on in the same atomic step."""
    return "\n".join(f"request st{j} {{\n    while (!(T == {j})) {{ yield }};\n"
                     f"    T := {(j + 1) % n};\n    {j}\n}}\n" for j in range(n))


def twophase(k: int) -> str:
    """Take k locks in order with yields between, read C, yield, write C + 1 mod 3,
    release all."""
    take = "; yield; ".join(f"while (K{j} == 1) {{ yield }}; K{j} := 1" for j in range(k))
    free = " ".join(f"K{j} := 0;" for j in range(k))
    return (f"request work {{\n    {take};\n    yield;\n"
            "    c := C; yield; if (c == 2) { C := 0 } else { C := c + 1 };\n"
            f"    {free}\n    c\n}}\n")


@dataclass(frozen=True)
class Family:
    name: str
    verdict: str  # "serializable" | "not_serializable"
    text: Callable[[int], str]
    sizes: tuple[int, ...]


FAMILIES = (
    Family("counter", "serializable", counter, (3, 6, 10, 16, 24, 32, 48, 64, 96, 128, 256)),
    Family("flipwait", "not_serializable", flipwait, (3, 5, 8, 10, 12, 16, 24)),
    Family("locked", "serializable", locked, (2, 3, 4, 5, 6, 8, 10, 12, 16)),
    Family("unlocked", "not_serializable", unlocked, (2, 3, 4, 5, 6, 8, 10, 12, 16)),
    Family("ring", "serializable", ring, (3, 5, 8, 12, 16, 24, 32, 48, 64)),
    Family("twophase", "serializable", twophase, (1, 2, 3, 4, 5, 6, 8, 10, 16, 24)),
)


def file_name(family: str, n: int) -> str:
    return f"{family}-{n:02d}.ser"


def models() -> dict[str, str]:
    """Every model of the set, by file name."""
    return {file_name(f.name, n): f.text(n) for f in FAMILIES for n in f.sizes}


def expected() -> dict[str, dict[str, object]]:
    """Each model's verdict, family and parameter (expected.json of the set)."""
    return {file_name(f.name, n): {"expected": f.verdict, "family": f.name, "n": n}
            for f in FAMILIES for n in f.sizes}
