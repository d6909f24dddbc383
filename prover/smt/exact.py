"""The consecution steps the checker settles by exact arithmetic, without a solver
(docs/certificates.md, "exact steps"). The prover leaves the same conjuncts out of its own
queries, so that its hints (unsat cores) name only what the checker hands to cvc5."""

from __future__ import annotations

from collections.abc import Mapping

from prover.petri.net import Place
from prover.smt.formula import Aux, Cmp, Const, Formula, PlaceVar, Sum, Term

Name = int | str  # a place index or an aux name, as in `invariant.free_names`


def affine(t: Term, index: Mapping[Place, int]) -> tuple[dict[Name, int], int] | None:
    """(coefficients, constant) of a term without ite; None if it has one."""
    coef: dict[Name, int] = {}
    constant = 0
    todo: list[tuple[int, Term]] = [(1, t)]
    while todo:
        k, x = todo.pop()
        if isinstance(x, Const):
            constant += k * x.value
        elif isinstance(x, PlaceVar | Aux):
            name: Name = index[x.place] if isinstance(x, PlaceVar) else x.name
            coef[name] = coef.get(name, 0) + k
        elif isinstance(x, Sum):
            todo.extend((k * c, s) for c, s in x.items)
        else:
            return None
    return coef, constant


def shift(t: Term, a: str, index: Mapping[Place, int]) -> int | None:
    """k when the update term of `a` reads only `a` and is `a + k`; else None."""
    lin = affine(t, index)
    if lin is None or set(lin[0]) - {a} or lin[0].get(a) != 1:
        return None
    return lin[1]


def kept(c: Formula, delta: Mapping[Name, int | None], index: Mapping[Place, int]) -> bool:
    """A comparison whose sides move by constants of the safe sign stays true."""
    if not isinstance(c, Cmp):
        return False
    lhs, rhs = affine(c.lhs, index), affine(c.rhs, index)
    if lhs is None or rhs is None:
        return False
    moves: dict[Name, int] = {}
    for side, sign in ((lhs[0], 1), (rhs[0], -1)):
        for name, k in side.items():
            step = delta.get(name, 0)
            if step is None:
                return False
            moves[name] = moves.get(name, 0) + sign * k * step
    d = sum(moves.values())
    return {"<=": d <= 0, "<": d <= 0, "=": d == 0, ">=": d >= 0, ">": d >= 0}[c.op]
