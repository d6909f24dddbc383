"""The restricted (reachable) network system of a model (DESIGN.md, "Restricted network
systems"), the default NS of the prover.

`prover.frontend.coverability` computes the pairs P of (non-final local, global) that co-occur in
some reachable configuration, stepping each pair once through a cache of the compiler's
one-step function; then N_P is built by the checker's own discovery procedure from the
same cache: the requests' spawns, the responses of every discovered final local, the
steps of the listed pairs. The NS carries P and the coverability ideals
(`NetworkSystem.restriction`) for the certificate and the invariant.

A model whose reachable part is infinite (a variable that keeps growing) stops with
E_STATE_BOUND naming the request and the growing variables, as the closure does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from prover.frontend import ast
from prover.frontend.ast import env_text
from prover.frontend.choices import DEFAULT_STATE_BOUND
from prover.frontend.compile import EMPTY, Env, bound_error
from prover.frontend.coverability import Coverability, CoverabilityBound, coverability_set, restrict
from prover.frontend.steps import ProgramSteps
from prover.ns import (
    NetworkSystem,
    RequestEntry,
    ResponseEntry,
    Restriction,
    StepOrigin,
    Transition,
)

Step = Callable[[str, str], Sequence[tuple[str, str]]]


def compile_reachable(
    program: ast.Program,
    *,
    source: str = "",
    path: str = "<string>",
    state_bound: int = DEFAULT_STATE_BOUND,
    steps: ProgramSteps | None = None,
) -> NetworkSystem:
    """The restricted NS of a Ser program."""
    if steps is None:  # else the caller's, whose cache and local states it shares
        steps = ProgramSteps(program, source=source, path=path, state_bound=state_bound)
    g0: Env = program.initial  # the declared initial values of the globals
    globals_: dict[str, Env] = {env_text(g0): g0}
    cache: dict[tuple[str, str], tuple[tuple[str, str], ...]] = {}
    lines: dict[Transition, set[int]] = {}
    requests = [RequestEntry(r, loc) for r, loc in steps.entries]

    def step(ltext: str, gtext: str) -> tuple[tuple[str, str], ...]:
        key = (ltext, gtext)
        got = cache.get(key)
        if got is not None:
            return got
        out: list[tuple[str, str]] = []
        for l2text, g2, ln in steps.step_global(ltext, globals_[gtext]):
            g2text = env_text(g2)
            globals_.setdefault(g2text, g2)
            out.append((l2text, g2text))
            lines.setdefault(Transition(ltext, gtext, l2text, g2text), set()).update(ln)
        got = tuple(dict.fromkeys(out))
        cache[key] = got
        return got

    def is_final(ltext: str) -> bool:
        return steps.response(ltext) is not None

    initial = env_text(g0)
    starts = [r.local for r in requests]
    try:
        cov = coverability_set(initial, starts, step, is_final, bound=state_bound)
    except CoverabilityBound as exc:
        states = [(steps.local(name).env, EMPTY) for name in exc.locals]
        states += [(EMPTY, globals_[g]) for g in exc.globals]
        raise bound_error(steps.request_of(exc.local), exc.what, states, state_bound) from None
    res = restrict(initial, starts, cov.pairs, step)
    responses = [
        ResponseEntry(name, str(answer))
        for name in res.locals
        if (answer := steps.response(name)) is not None
    ]
    transitions = [Transition(*t) for t in res.steps]
    return NetworkSystem.make(
        initial_global=initial,
        requests=requests,
        responses=responses,
        transitions=transitions,
        kind="ser",
        origins={t: StepOrigin(tuple(sorted(lines.get(t, ())))) for t in transitions},
        restriction=_restriction(cov, [n for n in res.locals if not is_final(n)]),
    )


def restrict_ns(ns: NetworkSystem, *, state_bound: int = DEFAULT_STATE_BOUND) -> NetworkSystem:
    """The restricted NS of a network system given as a table (NS JSON): the
    coverability set over the file's rows; a local is final iff it is the source of no
    row. The result keeps the file's order of requests, responses and rows."""
    table = ns.transitions_from
    sources = {t.from_local for t in ns.transitions}

    def step(loc: str, glo: str) -> tuple[tuple[str, str], ...]:
        return tuple((t.to_local, t.to_global) for t in table.get((loc, glo), ()))

    starts = [r.local for r in ns.requests]
    try:
        cov = coverability_set(
            ns.initial_global, starts, step, lambda name: name not in sources, bound=state_bound
        )
    except CoverabilityBound as exc:  # a table is finite: only a too small bound gets here
        raise bound_error(
            next((r.request for r in ns.requests if r.local == exc.local), "?"),
            exc.what, [], state_bound,
        ) from None
    res = restrict(ns.initial_global, starts, cov.pairs, step)
    found = set(res.locals)
    listed = set(cov.pairs)
    return NetworkSystem.make(
        initial_global=ns.initial_global,
        requests=ns.requests,
        responses=[r for r in ns.responses if r.local in found],
        transitions=[t for t in ns.transitions if (t.from_local, t.from_global) in listed],
        kind=ns.kind,
        restriction=_restriction(cov, [n for n in res.locals if n in sources]),
    )


def _restriction(cov: Coverability, non_final: list[str]) -> Restriction:
    return Restriction(cov.pairs, cov.ideals, tuple(non_final))
