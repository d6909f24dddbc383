"""Independent parts (docs/certificates.md, "Independent parts"): a Ser program whose
request kinds fall into groups that share no written global is serializable when each
group, run as a program of its own from the same initial globals, is.

The claim lists the parts, each a whole certificate of its own (any kind that proves
`serializable`) for a program that must be exactly the embedded model restricted to some
of its request kinds. Checked here, from the checker's own parse of both: every kind is in
exactly one part, each part's program is that restriction (same initial globals, the same
requests in the same order, compared as parsed trees), and no kind of one part writes a
global that a kind of another reads or writes, but a *shared lock*: a global that starts
at 0 and that every request touches only in holds (`held`); a part that touches one has,
after its own requests, one request that holds it (`holder`) in place of the others'
holds. Then each part's certificate is checked alone, by `check` (the checker's entry
point), within what is left of the budget.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from checker.certificate import Limits
from checker.errors import CheckerError, Invalid, Undecided, invalid
from checker.model import Env, Expr, is_local, mk_bin, mk_un, nodes
from checker.program import parse_program


def holder(lock: str) -> Expr:
    """The body of a request that holds `lock` once: `while (L == 1) { yield }; L := 1;
    yield; L := 0; 0` (a part's stand-in for the holds of the other parts)."""
    return ("seq", ("while", ("bin", "==", ("var", lock), ("int", 1)), ("yield",)),
            ("seq", ("assign", lock, ("int", 1)), ("seq", ("yield",), ("seq", (
                "assign", lock, ("int", 0)), ("int", 0)))))


def _restriction(data: dict[str, Any], initial: Env, whole: list[tuple[str, Expr]]
                 ) -> tuple[list[list[str]], list[list[Expr]]]:  # fmt: skip
    """Each part's request kinds and the bodies of its other requests (its holders),
    after checking that its program is the restriction of the whole one (`initial`,
    `whole`: its initial globals and requests), then those others."""
    names: list[list[str]] = []
    extra: list[list[Expr]] = []
    kinds_of_whole = {r for r, _ in whole}
    for i, part in enumerate(data["parts"], 1):
        if part["verdict"] != "serializable" or part["model"]["kind"] != "ser":
            raise invalid("E-PARTS", f"part {i} does not prove a Ser program serializable")
        init, reqs = parse_program(part["model"]["source"], part["model"].get("constants"))
        kinds = [r for r, _ in reqs if r in kinds_of_whole]
        own = [r for r in whole if r[0] in kinds]
        if init != initial or not own or reqs[:len(own)] != own:
            raise invalid("E-PARTS", f"part {i}'s program is not the model restricted to "
                                     f"its requests {', '.join(kinds) or '(none)'}")
        names.append(kinds)
        extra.append([b for _, b in reqs[len(own):]])
    seen = [n for kinds in names for n in kinds]
    if sorted(seen) != sorted(r for r, _ in whole):
        raise invalid("E-PARTS", "the parts do not hold every request kind exactly once")
    return names, extra


def _settle(e: Expr, known: dict[str, int]) -> int | None:
    """The value of `e` when the constant locals `known` alone decide it (else None)."""
    tag = e[0]
    if tag in ("int", "var"):
        return e[1] if tag == "int" else known.get(e[1])
    if tag not in ("not", "neg", "bin") or (a := _settle(e[1 + (tag == "bin")], known)) is None:
        return None
    if tag == "bin" and e[1] in ("&&", "||") and (a == 0) == (e[1] == "&&"):
        return int(e[1] == "||")  # short-circuit: the right operand is never run
    b = _settle(e[3], known) if tag == "bin" else 0
    if b is None:
        return None
    if tag == "bin" and e[1] in ("&&", "||"):
        return int(b != 0)  # as a run computes it (no folding of quirk Q1 here)
    try:
        return mk_un(tag, ("int", a))[1] if tag != "bin" else mk_bin(e[1], ("int", a),
                                                                     ("int", b))[1]
    except CheckerError:  # a fault (division by zero, overflow): both branches stay
        return None


def reached(body: Expr) -> tuple[set[str], set[str]]:
    """The globals `body` reads and writes on the paths its constant locals leave: a local
    set by a literal among its first statements and assigned nowhere else keeps that value
    wherever it is read, so an `if` whose condition they decide runs only one branch."""
    known: dict[str, int] = {}
    first = body
    while first[0] == "seq" and first[1][0] == "assign" and first[1][2][0] == "int" \
            and is_local(first[1][1]):  # fmt: skip
        known[first[1][1]] = first[1][2][1]
        first = first[2]
    sets = [n[1] for n in nodes(body) if n[0] == "assign"]
    known = {k: v for k, v in known.items() if sets.count(k) == 1}
    reads: set[str] = set()
    writes: set[str] = set()
    todo = [body]
    while todo:
        n = todo.pop()
        if n[0] in ("var", "assign") and not is_local(n[1]):
            (reads if n[0] == "var" else writes).add(n[1])
        if n[0] == "if" and (c := _settle(n[1], known)) is not None:
            todo += [n[1], n[2] if c != 0 else n[3]]
        else:
            todo.extend(x for x in n[1:] if isinstance(x, tuple))
    return reads, writes


def _flat(e: Expr) -> list[Expr]:
    """`e` as its sequence of statements (however its `seq`s nest)."""
    return [x for part in e[1:] for x in _flat(part)] if e[0] == "seq" else [e]


WAITS = ("bin", "==", 1), ("bin", "!=", 0), ("bin", ">", 0)  # `while (L <op> n) { yield }`


def held(e: Expr, lock: str) -> bool:
    """Every touch of `lock` in `e` is in a hold: in one sequence, `while (L == 1) { yield
    }` (or `L != 0`, `L > 0`, `L`), then `L := 1`, statements that do not name L, then
    `L := 0`; an `if` or a loop whose test does not name L holds it so in each branch."""
    stmts, holding, i = _flat(e), False, 0
    while i < len(stmts):
        s, i = stmts[i], i + 1
        named = any(n[0] in ("var", "assign") and n[1] == lock for n in nodes(s))
        if holding:
            holding = s != ("assign", lock, ("int", 0))
            if holding and named:
                return False
        elif s[0] == "while" and s[2] == ("yield",) and (s[1] == ("var", lock) or any(
                s[1] == (t, op, ("var", lock), ("int", n)) for t, op, n in WAITS)):
            if stmts[i:i + 1] != [("assign", lock, ("int", 1))]:
                return False
            holding, i = True, i + 1  # the wait and its `L := 1`: one acquisition
        elif named and not (s[0] in ("if", "while") and lock not in {
                n[1] for n in nodes(s[1]) if n[0] == "var"} and all(
                held(b, lock) for b in s[2:])):  # fmt: skip
            return False
    return not holding


def _shared(whole: list[tuple[str, Expr]], names: list[list[str]], initial: Env
            ) -> list[list[str]]:  # fmt: skip
    """Per part, the shared locks it touches (sorted), after checking that the parts
    touch no other written global in common."""
    acc = {r: reached(e) for r, e in whole}  # reads, writes
    part = {n: i for i, kinds in enumerate(names) for n in kinds}
    common = {g: (a, b) for a, (_, wa) in acc.items() for b, (rb, wb) in acc.items()
              if part[a] != part[b] for g in wa & (rb | wb)}  # a lock beside data, too
    for g, (a, b) in sorted(common.items()):  # every one, each judged once
        if dict(initial).get(g, 0) != 0 or not all(held(e, g) for _, e in whole):
            raise invalid("E-PARTS", f"{a} writes {g}, which {b} of another part "
                                     "reads or writes, and it is no shared lock "
                                     "(0 at first, touched in holds only): the parts "
                                     "are not independent")
    return [sorted(g for g in common if any(g in acc[k][0] | acc[k][1] for k in kinds))
            for kinds in names]


def parts(data: dict[str, Any], limits: Limits, remaining: Callable[[], float]
          ) -> Iterator[tuple[str, Callable[[], str]]]:  # fmt: skip
    """The split, then each part's certificate checked by the checker's entry point (the
    modules of the part's own claim) within what is left of the budget."""
    from checker.api import check_certificate

    st: dict[str, Any] = {}

    def split() -> str:
        if data["model"]["kind"] != "ser":
            raise invalid("E-PARTS", "only a Ser program is split into parts")
        initial, whole = parse_program(data["model"]["source"], data["model"].get("constants"))
        names, extra = _restriction(data, initial, whole)
        st["names"] = names
        locks = _shared(whole, names, initial)
        for i, (mine, others) in enumerate(zip(locks, extra, strict=True), 1):
            if others != [holder(g) for g in mine]:
                raise invalid("E-PARTS", f"part {i}'s requests after its own are not one "
                                         "holder of each shared lock it touches: "
                                         f"{', '.join(mine) or '(none)'}")
        shared = sorted(set().union(*map(set, locks)))
        return f"{len(names)} independent parts" + (
            f", sharing only the locks {', '.join(shared)}" if shared else "")

    yield "parts", split
    for i, part in enumerate(data["parts"], 1):
        def one(part: dict[str, Any] = part, i: int = i) -> str:
            result = check_certificate(part, timeout_s=remaining(), limits=limits,
                                       nested=True)
            kinds = ", ".join(st["names"][i - 1])
            if result.status != "valid":
                error = {"invalid": Invalid, "undecided": Undecided}.get(result.status,
                                                                         CheckerError)
                raise error(f"part {i} ({kinds}): {result.message}", code=result.code)
            return f"{kinds}: {result.message}"

        yield f"part {i}", one

