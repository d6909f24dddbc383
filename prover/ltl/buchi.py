"""LTL-X → generalized Büchi automaton, by the tableau of Gerth, Peled, Vardi and Wolper
("Simple on-the-fly automatic verification of linear temporal logic", 1995).

The formula is put in negation normal form over the atoms (comparisons; a negated
comparison is the opposite comparison), with U and R only. Each node of the tableau is
an automaton state labelled by the atoms it requires of the state it reads; one
acceptance set per U-subformula `a U b`: the nodes that do not promise it or that
fulfil b. Nothing here is trusted: a lasso the search finds is judged by
prover/ltl/lasso.py, and "no lasso" is compared with SPIN by bench/bench_ltl.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from prover.ltl.formula import Binary, Compare, Const, Formula, Not, Unary

# NNF formulas as hashable tuples: ("const", bool) | ("atom", Compare) |
# ("and" | "or" | "U" | "R", a, b)
Nnf = tuple[Any, ...]
TRUE: Nnf = ("const", True)
FALSE: Nnf = ("const", False)
_OPPOSITE = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}


def nnf(f: Formula, negated: bool = False) -> Nnf:
    if isinstance(f, Const):
        return ("const", f.value != negated)
    if isinstance(f, Compare):
        return ("atom", Compare(_OPPOSITE[f.op], f.a, f.b) if negated else f)
    if isinstance(f, Not):
        return nnf(f.arg, not negated)
    if isinstance(f, Unary):  # F a = true U a, G a = false R a
        if (f.op == "F") != negated:
            return ("U", TRUE, nnf(f.arg, negated))
        return ("R", FALSE, nnf(f.arg, negated))
    a, b = f.a, f.b
    if f.op == "->":
        return nnf(Binary("||", Not(a), b), negated)
    if f.op == "<->":
        return nnf(Binary("||", Binary("&&", a, b), Binary("&&", Not(a), Not(b))), negated)
    if f.op == "W":  # a W b = b R (a || b)
        return nnf(Binary("R", b, Binary("||", a, b)), negated)
    if f.op in ("&&", "||"):
        op = {"&&": "and", "||": "or"}[f.op]
        if negated:
            op = "or" if op == "and" else "and"
        return (op, nnf(a, negated), nnf(b, negated))
    if f.op == "U":  # ¬(a U b) = ¬a R ¬b
        return ("R" if negated else "U", nnf(a, negated), nnf(b, negated))
    return ("U" if negated else "R", nnf(a, negated), nnf(b, negated))  # R


@dataclass(frozen=True)
class Automaton:
    """Nodes 0..n-1; `initial` nodes; `succ[q]`: the nodes after q; `label[q]`: the atoms a
    state must satisfy to be read in q; `accepting`: one set of nodes per U-subformula."""

    initial: frozenset[int]
    succ: tuple[frozenset[int], ...]
    label: tuple[tuple[Compare, ...], ...]
    accepting: tuple[frozenset[int], ...]


@dataclass
class _Node:
    incoming: set[int]
    new: set[Nnf]
    old: set[Nnf]
    next: set[Nnf]


_INIT = -1


def translate(f: Formula) -> Automaton:
    """A generalized Büchi automaton accepting exactly the words (of states) where `f`
    holds."""
    done: list[_Node] = []
    todo = [_Node({_INIT}, {nnf(f)}, set(), set())]
    while todo:
        node = todo.pop()
        if not node.new:
            same = next((k for k, d in enumerate(done)
                         if d.old == node.old and d.next == node.next), None)
            if same is not None:
                done[same].incoming |= node.incoming
                continue
            done.append(node)
            todo.append(_Node({len(done) - 1}, set(node.next), set(), set()))
            continue
        eta = node.new.pop()
        if eta == FALSE:
            continue
        if eta in node.old:
            todo.append(node)
            continue
        old = node.old | {eta}
        kind = eta[0]
        if kind in ("const", "atom"):
            todo.append(_Node(node.incoming, node.new, old, node.next))
        elif kind == "and":
            todo.append(_Node(node.incoming, node.new | ({eta[1], eta[2]} - old), old,
                              node.next))
        elif kind == "or":
            for part in (eta[1], eta[2]):
                todo.append(_Node(set(node.incoming), node.new | ({part} - old), set(old),
                                  set(node.next)))
        else:  # U: b now, or a now and a U b next; R: b now and (a now, or a R b next)
            a, b = eta[1], eta[2]
            first = {a} if kind == "U" else {b}
            todo.append(_Node(set(node.incoming), node.new | (first - old), set(old),
                              node.next | {eta}))
            second = {b} if kind == "U" else {a, b}
            todo.append(_Node(set(node.incoming), node.new | (second - old), set(old),
                              set(node.next)))
    succ: list[set[int]] = [set() for _ in done]
    for k, d in enumerate(done):
        for i in d.incoming:
            if i != _INIT:
                succ[i].add(k)
    untils = sorted({g for d in done for g in d.old if g[0] == "U"}, key=repr)
    accepting = tuple(frozenset(k for k, d in enumerate(done) if u not in d.old or u[2] in d.old)
                      for u in untils)
    return Automaton(
        initial=frozenset(k for k, d in enumerate(done) if _INIT in d.incoming),
        succ=tuple(frozenset(s) for s in succ),
        label=tuple(tuple(sorted((g[1] for g in d.old if g[0] == "atom"), key=repr))
                    for d in done),
        accepting=accepting,
    )
