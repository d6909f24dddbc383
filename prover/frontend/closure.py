"""The reference's network system of a Ser program: the closure (ser-reference §2.4).

Every local state seen is paired with every global state seen, so that sizes match the
reference; the default NS is the restricted one (prover/frontend/reachable.py). Steps
come from the program's per-variable step semantics (prover/frontend/steps.py).
"""

from __future__ import annotations

from prover.frontend import ast
from prover.frontend.ast import env_text
from prover.frontend.choices import DEFAULT_STATE_BOUND
from prover.frontend.compile import EMPTY, Env, bound_error
from prover.frontend.steps import ProgramSteps
from prover.ns import NetworkSystem, RequestEntry, ResponseEntry, StepOrigin, Transition


def compile_program(
    program: ast.Program,
    *,
    source: str = "",
    path: str = "<string>",
    state_bound: int = DEFAULT_STATE_BOUND,
    steps: ProgramSteps | None = None,
) -> NetworkSystem:
    """The NS of a Ser program: closure over seen local states x seen global states."""
    if steps is None:  # else the caller's, whose cache and local states it shares
        steps = ProgramSteps(program, source=source, path=path, state_bound=state_bound)
    initial: Env = program.initial
    requests = [RequestEntry(r, loc) for r, loc in steps.entries]
    responses: list[ResponseEntry] = []
    origins: dict[Transition, set[int]] = {}
    seen_locals: dict[str, None] = {}
    seen_globals: dict[Env, str] = {initial: env_text(initial)}
    stack: list[tuple[str, Env]] = []
    for _, loc in steps.entries:
        if loc not in seen_locals:
            seen_locals[loc] = None
        stack.append((loc, initial))

    while stack:
        cur, glo = stack.pop()
        gtext = seen_globals[glo]
        answer = steps.response(cur)
        if answer is not None:
            responses.append(ResponseEntry(cur, str(answer)))
            continue
        new_globals: list[Env] = []
        new_locals: list[str] = []
        for l2, g2, lines in steps.step_global(cur, glo):
            g2text = seen_globals.get(g2)
            if g2text is None:
                g2text = env_text(g2)
                seen_globals[g2] = g2text
                new_globals.append(g2)
            if l2 not in seen_locals:
                seen_locals[l2] = None
                new_locals.append(l2)
            origins.setdefault(Transition(cur, gtext, l2, g2text), set()).update(lines)
        if new_globals or new_locals:
            if len(seen_locals) * len(seen_globals) > state_bound:
                states = [(steps.local(lo).env, EMPTY) for lo in seen_locals]
                states += [(EMPTY, g) for g in seen_globals]
                raise bound_error(
                    steps.request_of(cur),
                    f"{len(seen_locals)} local states x {len(seen_globals)} global states",
                    states,
                    state_bound,
                )
            # Every new global is paired with every local seen so far (incl. new ones
            # not yet: those are paired below with all globals, the new ones included).
            fresh = set(new_locals)
            for g in new_globals:
                stack.extend((lo, g) for lo in seen_locals if lo not in fresh)
            for nl in new_locals:
                stack.extend((nl, g) for g in seen_globals)

    return NetworkSystem.make(
        initial_global=env_text(initial),
        requests=requests,
        responses=responses,
        transitions=list(origins),
        kind="ser",
        origins={t: StepOrigin(tuple(sorted(ls))) for t, ls in origins.items()},
    )
