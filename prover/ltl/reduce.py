"""Partial-order reduction for the LTL-X search: ample sets (Peled's conditions C0–C3).

A request's next atomic step touches only some globals. This module reads them from the
residual program of each local state (its canonical text is Ser, docs/naming.md):
`now`, the globals the next atomic step may read or write (its footprint, the one the
per-variable steps use: prover/frontend/footprint.py), and `later`, every global any
remaining step may touch. In a
state, the moves of a set T of requests form an ample set when

- C1 (a stubborn set of processes): every request whose remaining steps (`later`) touch
  what the next step of a member touches (`now`) is a member, and no request that may
  still arrive can touch it. Then no move outside T, now or later, can enable, disable
  or change a move of T before a move of T is taken: a member's disabled step can only be
  enabled by a writer of what it reads, a member; an answer touches no global at all;
  arrivals and the environment's stop touch none either;
- C2 (invisibility): no enabled move of T touches a global the formula reads, and no
  answer in T is of a request whose counts the formula reads;
- C0: T has a move, and fewer than all; C3 (the cycle proviso) is the search's: a state
  whose ample successor is on the depth-first path is expanded in full.

The smallest such T (fewest moves) over the possible first members is taken.

Then every execution of the full system is stutter-equivalent, for the formula's atoms,
to one of the reduced system, so LTL-X verdicts are the same. A network system in JSON has
opaque global states, so nothing is known to be independent and nothing is reduced.
Only without fairness: weak fairness is judged per request, which an ample set may hide.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from prover.frontend import ast
from prover.frontend.footprint import footprint
from prover.frontend.parser import parse
from prover.ltl.formula import Arith, Binary, Compare, Count, Formula, Global, Not, Term, Unary
from prover.ns import NetworkSystem


@dataclass(frozen=True)
class Access:
    now: frozenset[str]
    later: frozenset[str]


def _LOCALS(name: str) -> frozenset[str]:
    return frozenset({name}) if ast.is_local_name(name) else frozenset()


def _globals(e: ast.Expr) -> frozenset[str]:
    """Every global named anywhere in `e`."""
    if isinstance(e, ast.Var):
        return frozenset({e.name} - _LOCALS(e.name))
    out: set[str] = set()
    if isinstance(e, ast.Assign):
        out |= {e.name} - _LOCALS(e.name)
    for child in vars(e).values():
        if isinstance(child, ast.Expr):
            out |= _globals(child)
    return frozenset(out)


@cache
def access(local: str) -> Access:
    """What the request in Ser local state `local`, written `({env}, EXPR)`, touches."""
    body = local[local.index("}, ") + 3:-1]
    program = parse(body, "<local state>")
    (request,) = program.requests
    return Access(footprint(request.body).touched, _globals(request.body))


def accesses(ns: NetworkSystem) -> dict[str, Access] | None:
    """The accesses of every local state of a Ser program's NS; None for NS JSON."""
    if ns.kind != "ser":
        return None
    return {loc: access(loc) for loc in ns.local_states}


def visible(f: Formula) -> tuple[frozenset[str], frozenset[str]]:
    """(globals the formula reads, requests whose counts it reads)."""
    globs: set[str] = set()
    reqs: set[str] = set()

    def term(t: Term) -> None:
        if isinstance(t, Global):
            globs.add(t.name)
        elif isinstance(t, Count):
            reqs.add(t.request)
        elif isinstance(t, Arith):
            term(t.a)
            if t.b is not None:
                term(t.b)

    def walk(g: Formula) -> None:
        if isinstance(g, Compare):
            term(g.a)
            term(g.b)
        elif isinstance(g, (Not, Unary)):
            walk(g.arg)
        elif isinstance(g, Binary):
            walk(g.a)
            walk(g.b)

    walk(f)
    return frozenset(globs), frozenset(reqs)
