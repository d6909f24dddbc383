"""A Ser program (its network system) with at most K requests as a Promela model, for SPIN
as an outside oracle of temporal properties (`ser-prove export MODEL --format promela
--requests K [--formula F]`, docs/ltl.md).

The encoding follows the semantics of docs/ltl.md step for step:
* `g` holds the index of the global state; each request is one process whose `l` is the
  index of its local state; each NS step is one `atomic` guarded command, and so is each
  answer (the process then ends);
* an environment process (`init`) delivers up to K requests, each of any request name,
  at any time, and may stop delivering at any time (`break`); then, whenever nothing
  else can move (`timeout`), it idles: a finite execution repeats its last state;
* per request name r: `inflight_<i>`; per (r, answer v): `ans_<i>_<j>`; per Ser global
  X, `var_i`, set in the same atomic step that changes `g`; the atoms read these.

Names in Promela are indices (R0, ...), never user names, so no name can clash with a
Promela keyword; comments give the names back.
"""

from __future__ import annotations

from prover.errors import FormulaError
from prover.ltl.formula import (
    Arith,
    Compare,
    Const,
    Count,
    Formula,
    Global,
    Not,
    Num,
    Term,
    Unary,
)
from prover.ltl.lasso import global_values, ser_globals
from prover.ns import NetworkSystem


def to_promela(ns: NetworkSystem, k: int, formula: Formula | None = None) -> str:
    globals_ = sorted({ns.initial_global} | {s for t in ns.transitions
                                             for s in (t.from_global, t.to_global)})
    gi = {g: i for i, g in enumerate(globals_)}
    locals_ = sorted({e.local for e in ns.requests} | {r.local for r in ns.responses}
                     | {s for t in ns.transitions for s in (t.from_local, t.to_local)})
    li = {loc: i for i, loc in enumerate(locals_)}
    names = sorted({e.request for e in ns.requests})
    ri = {r: i for i, r in enumerate(names)}
    values = sorted({r.response for r in ns.responses})
    vi = {v: i for i, v in enumerate(values)}
    out = [f"/* ser-prove: {len(names)} request names, at most {k} requests */"]
    out += [f"/* G{i}: {g} */" for g, i in gi.items()]
    out += [f"/* L{i}: {loc} */" for loc, i in li.items()]
    out += [f"/* R{i}: {r} */" for r, i in ri.items()]
    out += [f"/* V{i}: {v} */" for v, i in vi.items()]
    out.append(f"int g = {gi[ns.initial_global]};")
    out.append("int arrivals = 0;")
    for i in ri.values():
        out.append(f"int inflight_{i} = 0;")
        out += [f"int ans_{i}_{j} = 0;" for j in vi.values()]
    names_g = sorted(ser_globals(ns))
    xi = {x: i for i, x in enumerate(names_g)}
    initial = global_values(ns.initial_global) if names_g else {}
    out += [f"int var_{xi[x]} = {initial.get(x, 0)}; /* {x} */" for x in names_g]
    for i in ri.values():
        out.append(f"proctype P{i}(int l) {{")
        out.append("  do")
        for t in ns.transitions:
            before = global_values(t.from_global) if names_g else {}
            after = global_values(t.to_global) if names_g else {}
            sets = "".join(f" var_{xi[x]} = {after.get(x, 0)};" for x in names_g
                           if after.get(x, 0) != before.get(x, 0))
            out.append(f"  :: atomic {{ l == {li[t.from_local]} && g == {gi[t.from_global]} -> "
                       f"l = {li[t.to_local]}; g = {gi[t.to_global]};{sets} }}")
        for resp in ns.responses:
            out.append(f"  :: atomic {{ l == {li[resp.local]} -> inflight_{i}--; "
                       f"ans_{i}_{vi[resp.response]}++; break }}")
        out.append("  od")
        out.append("}")
    out.append("init {")
    out.append("  do")
    for e in ns.requests:
        out.append(f"  :: atomic {{ arrivals < {k} -> arrivals++; inflight_{ri[e.request]}++; "
                   f"run P{ri[e.request]}({li[e.local]}) }}")
    out.append("  :: break")
    out.append("  od;")
    # A finite execution repeats its last state (docs/ltl.md): once nothing else can
    # move, the environment idles, so no run ever ends (SPIN's own stutter extension at
    # end states does not combine with its weak fairness: the search runs off in depth).
    out.append("  do")
    out.append("  :: timeout -> skip")
    out.append("  od")
    out.append("}")
    if formula is not None:
        out.append(f"ltl property {{ {_ltl(formula, ri, vi, xi)} }}")
    return "\n".join(out) + "\n"


def _ltl(f: Formula, ri: dict[str, int], vi: dict[str, int], xi: dict[str, int]) -> str:
    if isinstance(f, Const):
        return "true" if f.value else "false"
    if isinstance(f, Compare):
        return f"({_term(f.a, ri, vi, xi)} {f.op} {_term(f.b, ri, vi, xi)})"
    if isinstance(f, Not):
        return f"!{_ltl(f.arg, ri, vi, xi)}"
    if isinstance(f, Unary):
        return f"({'[]' if f.op == 'G' else '<>'} {_ltl(f.arg, ri, vi, xi)})"
    a, b = _ltl(f.a, ri, vi, xi), _ltl(f.b, ri, vi, xi)
    if f.op == "W":  # a W b = (a U b) || [] a: every SPIN reads it
        return f"(({a} U {b}) || ([] {a}))"
    return f"({a} {'V' if f.op == 'R' else f.op} {b})"


def _term(t: Term, ri: dict[str, int], vi: dict[str, int], xi: dict[str, int]) -> str:
    if isinstance(t, Num):
        return str(t.value)
    if isinstance(t, Global):
        return f"var_{xi[t.name]}"
    if isinstance(t, Count):
        i = ri[t.request]
        if t.kind == "inflight":
            return f"inflight_{i}"
        picked = [j for v, j in vi.items() if t.value is None or v == str(t.value)]
        if not picked:
            return "0"
        return "(" + " + ".join(f"ans_{i}_{j}" for j in picked) + ")"
    if isinstance(t, Arith):
        if t.op == "neg":
            return f"(-{_term(t.a, ri, vi, xi)})"
        assert t.b is not None
        return f"({_term(t.a, ri, vi, xi)} {t.op} {_term(t.b, ri, vi, xi)})"
    raise FormulaError(f"cannot write {t} in Promela")
