"""What the executions of a Ser program can reach, and the warnings it gives the modeller:

- W-NEVER-ANSWERS: a request that can never answer, with where it stays (a loop without
  `yield` that never ends, or a wait whose condition no reachable state changes);
- W-UNREACHED: source lines of a request that no execution runs (as SPIN's "unreached in
  proctype");
- W-RESPONSE-NEVER: a value the code answers with (a literal where a request ends) that
  no execution gives;
- W-VACUOUS: no request can answer at all: every finished execution is empty, so any
  verdict about them is vacuous.

The reach is read off an over-approximation of the executions, so a warning is never
wrong (it may miss an unreached line): the per-variable steps on domains closed under
the steps, or whose escapes a reduction proof showed dead (prover/reduction/table.py), or
else the restricted network system. With neither, nothing is said about reach.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from prover.errors import Diagnostic
from prover.frontend import ast
from prover.frontend.steps import ProgramSteps
from prover.ns import NetworkSystem
from prover.reduction.table import Table


@dataclass(frozen=True)
class Reach:
    """What the executions of one request can reach."""

    answers: frozenset[int]  # the values it can answer
    lines: frozenset[int]  # the source lines some step of it runs
    stuck: str | None  # the first local state it can reach where nothing changes any more
    spins: bool  # ... because its step there never ends (no outcome at all)


Moves = dict[str, list[tuple[str, frozenset[int], bool]]]  # local -> (local', lines, stutter)


def from_table(t: Table, steps: ProgramSteps) -> dict[str, Reach]:
    out: dict[str, Moves] = {}
    name = t.program  # the table's live names -> names of the program's steps
    for m in t.moves:
        out.setdefault(m.src[0], {}).setdefault(name[m.src[1]], []).append(
            (name[m.dst[1]], t.lines(steps, m), t.is_stutter(m)))
    return {r: _walk(name[loc], out.get(r, {}), steps) for r, loc in t.entries}


def from_ns(ns: NetworkSystem, steps: ProgramSteps) -> dict[str, Reach]:
    lines = dict(zip(ns.transitions, ns.origins or (), strict=False))
    out: Moves = {}
    for t in ns.transitions:
        origin = lines.get(t)
        out.setdefault(t.from_local, []).append(
            (t.to_local, frozenset(origin.lines if origin else ()),
             t.to_local == t.from_local and t.to_global == t.from_global))
    return {r.request: _walk(r.local, out, steps) for r in ns.requests}


def _walk(start: str, moves: Moves, steps: ProgramSteps) -> Reach:
    """Breadth first from `start` over the moves of one request."""
    seen, order = {start}, [start]
    answers: set[int] = set()
    lines: set[int] = set()
    stuck: str | None = None
    spins = False
    for loc in order:  # grows while it is read
        answer = steps.response(loc)
        if answer is not None:
            answers.add(answer)
            continue
        found = moves.get(loc, [])
        if stuck is None and all(stutter for _, _, stutter in found):
            stuck, spins = loc, not found
        for dst, ln, _ in found:
            lines |= ln
            if dst not in seen:
                seen.add(dst)
                order.append(dst)
    if steps.response(start) is not None:  # answers without a step: its body ran
        lines |= _lines(steps.local(start).expr)
    return Reach(frozenset(answers), frozenset(lines), stuck, spins)


def _lines(e: ast.Expr) -> set[int]:
    """The lines of `e`'s statements and expressions (not of the `;` between them, which
    no step records)."""
    out, stack = set(), [e]
    while stack:
        node = stack.pop()
        if node.line and not isinstance(node, ast.Seq):
            out.add(node.line)
        stack.extend(c for c in vars(node).values() if isinstance(c, ast.Expr))
    return out


def _tails(e: ast.Expr) -> list[ast.Num]:
    """The literals a request's body can end with (its written answers)."""
    while isinstance(e, ast.Seq):
        e = e.rest
    if isinstance(e, ast.If):
        return _tails(e.then) + _tails(e.orelse)
    return [e] if isinstance(e, ast.Num) else []


def _ranges(numbers: Iterable[int]) -> str:
    runs: list[list[int]] = []
    for n in sorted(numbers):
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def warnings(program: ast.Program, steps: ProgramSteps, reach: dict[str, Reach],
             path: str) -> tuple[Diagnostic, ...]:  # fmt: skip
    out: list[Diagnostic] = []
    for r in program.requests:
        got = reach.get(r.name)
        if got is None:
            continue
        if not got.answers:
            out.append(Diagnostic("W-NEVER-ANSWERS", _why(r.name, got, steps), path,
                                  *_where(got, steps, r)))  # fmt: skip
        unreached = _lines(r.body) - got.lines
        if unreached and got.answers:  # else W-NEVER-ANSWERS says where it stays
            first = min(unreached)
            which = "line" if len(unreached) == 1 else "lines"
            out.append(Diagnostic("W-UNREACHED", f"request '{r.name}': {which} "
                                  f"{_ranges(unreached)} never run by a step that ends "
                                  "(unreachable, or only inside a loop without `yield` "
                                  "that never ends)", path, first, 1))  # fmt: skip
        if got.answers:
            for lit in _tails(r.body):
                if lit.value not in got.answers:
                    out.append(Diagnostic("W-RESPONSE-NEVER", f"request '{r.name}' never "
                                          f"answers {lit.value}, although its code can",
                                          path, lit.line, lit.col))  # fmt: skip
    if reach and all(not got.answers for got in reach.values()):
        out.append(Diagnostic("W-VACUOUS", "vacuous: no request can finish, so every "
                              "finished execution is empty and any verdict about them holds "
                              "trivially", path))  # fmt: skip
    return tuple(out)


def _where(got: Reach, steps: ProgramSteps, r: ast.Request) -> tuple[int, int]:
    if got.stuck is None:
        return r.line, 1
    lines = sorted(_lines(steps.local(got.stuck).expr))
    return (lines[0], 1) if lines else (r.line, 1)


def _why(name: str, got: Reach, steps: ProgramSteps) -> str:
    head = f"request '{name}' can never answer"
    if got.stuck is None:
        return f"{head}: its steps go round without reaching an answer"
    expr = steps.local(got.stuck).expr
    first = expr.first if isinstance(expr, ast.Seq) else expr
    line = min(_lines(expr), default=0)
    if got.spins:
        return f"{head}: it spins at line {line} in a loop without `yield` that never ends"
    if isinstance(first, ast.While):
        return (f"{head}: it waits at line {line} while `{first.cond.text}`, which every "
                "state it can reach keeps true")
    return f"{head}: it stays at line {line}, where no step changes anything"
