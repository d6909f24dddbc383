"""The meaning of a formula on a lasso (prover/ltl/lasso.py) against the definition,
position by position: a U b at i iff some j ≥ i has b and every position in [i, j) has a
(on a lasso of n positions, j within n steps of i suffices)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from prover.errors import FormulaError
from prover.ltl.formula import Binary, Compare, Const, Formula, Global, Not, Num, Unary
from prover.ltl.lasso import Observation, holds, value

ATOMS = [Compare("==", Global("A"), Num(1)), Compare(">", Global("B"), Num(0)), Const(True)]


def formulas() -> st.SearchStrategy[Formula]:
    leaf = st.sampled_from(ATOMS)
    return st.recursive(leaf, lambda sub: st.one_of(
        sub.map(Not), st.tuples(st.sampled_from("GF"), sub).map(lambda p: Unary(*p)),
        st.tuples(st.sampled_from(["&&", "||", "->", "<->", "U", "R", "W"]), sub, sub)
        .map(lambda p: Binary(*p))), max_leaves=6)


def obs(a: int, b: int) -> Observation:
    return Observation({"A": a, "B": b}, {}, {})


def _next(i: int, n: int, loop: int) -> int:
    return i + 1 if i + 1 < n else loop


def reference(f: Formula, word: list[Observation], loop: int, i: int = 0) -> bool:
    n = len(word)
    if isinstance(f, Const | Compare):
        return holds(f, [word[i]], 0)
    if isinstance(f, Not):
        return not reference(f.arg, word, loop, i)
    if isinstance(f, Unary):
        hit = [reference(f.arg, word, loop, j) for j in _path(i, n, loop)]
        return any(hit) if f.op == "F" else all(hit)
    a = lambda j: reference(f.a, word, loop, j)  # noqa: E731
    b = lambda j: reference(f.b, word, loop, j)  # noqa: E731
    ops = {"&&": lambda: a(i) and b(i), "||": lambda: a(i) or b(i),
           "->": lambda: not a(i) or b(i), "<->": lambda: a(i) == b(i)}
    if f.op in ops:
        return ops[f.op]()
    path = _path(i, n, loop)
    until = any(b(j) and all(a(k) for k in path[:m]) for m, j in enumerate(path))
    if f.op == "U":
        return until
    if f.op == "W":
        return until or all(a(j) for j in path)
    # a R b: b holds up to and including the first a (or forever)
    return all(b(j) or any(a(k) for k in path[:m]) for m, j in enumerate(path))


def _path(i: int, n: int, loop: int) -> list[int]:
    """Positions i, next(i), ... until the first repeat: every position reachable from i."""
    seen: list[int] = []
    while i not in seen:
        seen.append(i)
        i = _next(i, n, loop)
    return seen


@given(formulas(), st.lists(st.tuples(st.integers(0, 1), st.integers(0, 1)), min_size=1,
                            max_size=6), st.data())
def test_lasso_truth_is_the_definition(f: Formula, cells: list[tuple[int, int]],
                                       data: st.DataObject) -> None:
    word = [obs(a, b) for a, b in cells]
    loop = data.draw(st.integers(0, len(word) - 1))
    assert holds(f, word, loop) == reference(f, word, loop)


def test_examples() -> None:
    a1 = Compare("==", Global("A"), Num(1))
    word = [obs(0, 0), obs(1, 0), obs(0, 0)]
    assert holds(Unary("F", a1), word, 0)
    assert not holds(Unary("G", Unary("F", a1)), word, 2)  # the loop is the last state only
    assert holds(Unary("G", Unary("F", a1)), word, 1)
    assert holds(Binary("W", Not(a1), Const(False)), [obs(0, 0)], 0)


def test_arithmetic_is_sers() -> None:
    s = obs(-7, 2)
    div = Compare("==", Global("A"), Num(0))
    assert holds(div, [obs(0, 0)], 0)
    from prover.ltl.formula import Arith
    assert value(Arith("/", Global("A"), Global("B")), s) == -3
    assert value(Arith("%", Global("A"), Global("B")), s) == -1
    with pytest.raises(FormulaError):
        value(Arith("/", Global("A"), Num(0)), s)
