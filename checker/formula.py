"""Invariant formulas, walked as data by one translator with two back ends."""
# pySMT terms for cvc5 here (z3, which pySMT imports if it can, is blocked), exact integers
# in obligations.py.

from __future__ import annotations

import importlib
import importlib.abc
import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from checker.errors import Undecided

if TYPE_CHECKING:
    from pysmt.fnode import FNode


class _BlockZ3(importlib.abc.MetaPathFinder):
    def find_spec(self, name: str, path: Any, target: Any = None) -> None:
        if name == "z3" or name.startswith("z3."):
            raise ImportError("the certificate checker never loads z3")


def solver_modules() -> Any:
    """pySMT with z3 blocked, imported on first use: a counterexample needs no solver."""
    sys.meta_path.insert(0, blocker := _BlockZ3())
    try:
        for name in ("environment", "exceptions", "logics", "typing"):
            importlib.import_module(f"pysmt.{name}")
    finally:
        sys.meta_path.remove(blocker)
    return sys.modules["pysmt"]

Json = Any
Place = tuple[str, ...]  # a counter or variable an invariant names (checker/net.py's places)
Resolve = Callable[[Json], Place]  # place JSON -> place, raises Invalid(E-NAME)


class Smt:
    """pySMT terms in a private environment (never the global one, never its factory)."""

    def __init__(self) -> None:
        self.ps = solver_modules()
        self.env = self.ps.environment.Environment()
        self.m = m = self.env.formula_manager
        # the back end of a Translator (the other is checker/obligations.py's EXACT)
        self.const, self.ite, self.boolean, self.neg = m.Int, m.Ite, m.Bool, m.Not
        self.conj, self.disj = m.And, m.Or
        self.cmps = {"<=": m.LE, "<": m.LT, "=": m.Equals, ">=": m.GE, ">": m.GT}

    def var(self, name: str) -> FNode:
        return self.m.Symbol(name, self.ps.typing.INT)

    def lin(self, terms: list[tuple[int, Any]]) -> FNode:
        parts = [t if c == 1 else self.m.Times(self.m.Int(c), t) for c, t in terms if c != 0]
        return self.m.Plus(parts) if parts else self.m.Int(0)

    def cmp(self, op: str, a: Any, b: Any) -> FNode:
        return self.cmps[op](a, b)


class Translator:
    """FORMULA / TERM JSON → back-end values. Depth is bounded by the JSON depth limit."""

    def __init__(self, be: Any, places: Callable[[Place], Any], aux: Mapping[str, Any],
                 resolve: Resolve) -> None:
        self.be, self.places, self.aux, self.resolve = be, places, aux, resolve

    def term(self, t: Json) -> Any:
        if "const" in t:
            return self.be.const(t["const"])
        if "aux" in t:
            return self.aux[t["aux"]]
        if "place" in t:
            return self.places(self.resolve(t["place"]))
        if "sum" in t:
            return self.be.lin([(c, self.term(s)) for c, s in t["sum"]])
        c, a, b = t["ite"]
        return self.be.ite(self.form(c), self.term(a), self.term(b))

    def form(self, f: Json) -> Any:
        if isinstance(f, bool):
            return self.be.boolean(f)
        if "and" in f or "or" in f:
            parts = [self.form(g) for g in f["and" if "and" in f else "or"]]
            return self.be.conj(parts) if "and" in f else self.be.disj(parts)
        if "not" in f:
            return self.be.neg(self.form(f["not"]))
        return self.be.cmp(f["cmp"], self.term(f["lhs"]), self.term(f["rhs"]))


class Query:
    """One cvc5 solver, QF_LIA, each query limited to what is left of the budget."""

    def __init__(self, smt: Smt, remaining: Callable[[], float]) -> None:
        self.smt, self.remaining = smt, remaining
        # cvc5 (25 ms) only when a query is made: most small proofs are settled by arithmetic
        cvc5 = importlib.import_module("pysmt.solvers.cvcfive")
        self.solver = s = cvc5.CVC5Solver(smt.env, smt.ps.logics.QF_LIA)
        # The solvers of one Smt share the first one's cvc5 terms and converter (cvc5 rejects
        # a term of another's): a term is converted once, not once per fresh solver (workq3).
        if (first := smt.__dict__.setdefault("first", s)) is not s:
            s.cvc5 = cvc5.cvc5.Solver(first.cvc5.getTermManager())
            s.cvc5.setLogic(s.logic_name)
            s.options(s)
            s.converter = first.converter
        self.add: Callable[[FNode], None] = self.solver.add_assertion  # held by every query

    def unsat(self, f: FNode, shown: Mapping[str, FNode]) -> str | None:
        """None if `f` is unsat with the assertions, else a counter-model; no answer: Undecided."""
        if (left := self.remaining()) <= 0:
            raise Undecided("the check budget is used up", code="E-TIMEOUT")
        self.solver.cvc5.setOption("tlimit-per", str(max(1, int(left * 1000))))
        try:  # f as an assumption: held for this query only
            sat = self.solver.solve([f])
        except Exception as exc:  # unknown (a timeout, incompleteness) or a failure
            raise Undecided(f"cvc5 gave no answer ({type(exc).__name__}: {exc})") from None
        if not sat:
            return None
        values = [(k, self.solver.get_value(v).constant_value()) for k, v in shown.items()]
        return ", ".join(f"{k}={v}" for k, v in values if v != 0) or "all variables 0"
