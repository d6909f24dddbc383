"""Per-variable steps (prover/frontend/steps.py) against the step function on full
global valuations: the same outcomes for every local state at every global state."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prover.errors import CompileError
from prover.frontend import ast
from prover.frontend.ast import local_text
from prover.frontend.compile import Env, _Runner, env_get, step_local
from prover.frontend.footprint import footprint
from prover.frontend.parser import parse
from prover.frontend.steps import ProgramSteps
from tests.frontend.strategies import PRELUDES, PROGRAMS


def _full_step(steps: ProgramSteps, loc: str, glo: Env) -> set[tuple[str, Env]]:
    """The step on the full valuation, by the unscoped step function."""
    out = set()
    for resid, value, l2, g2, _ in step_local(_Runner(1000), steps.local(loc), glo,
                                              source="", path="<string>"):
        expr = resid if resid is not None else ast.Num(value)
        out.add((local_text(l2, expr), g2))
    return out


def _agree(source: str, limit: int = 3000) -> int:
    """Explore the closure of a program by per-variable steps (at most `limit` pairs),
    comparing every step with the full-valuation one; the number of steps compared."""
    try:
        program = parse(source)
    except CompileError:  # a static error (`0 / 0`, folded as it is read): nothing to step
        return 0
    steps = ProgramSteps(program, state_bound=1000)
    locs = dict.fromkeys(loc for _, loc in steps.entries)
    globs: dict[Env, None] = {steps.initial: None}
    done: set[tuple[str, Env]] = set()
    checked = 0
    while len(done) < limit:
        todo = [(lo, g) for lo in locs for g in globs
                if (lo, g) not in done and steps.response(lo) is None]
        if not todo:
            break
        for lo, g in todo[: limit - len(done)]:
            done.add((lo, g))
            try:
                got = {(l2, g2) for l2, g2, _ in steps.step_global(lo, g)}
            except CompileError:
                continue
            assert got == _full_step(steps, lo, g), (source, lo, g)
            checked += 1
            locs.update(dict.fromkeys(l2 for l2, _ in got))
            globs.update(dict.fromkeys(g2 for _, g2 in got))
    return checked


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(PRELUDES, PROGRAMS)
def test_per_variable_steps_agree_with_full_valuations(prelude: str, reqs: list) -> None:
    source = prelude + "\n".join(f"request {n} {{ {body} }}" for n, body in reqs)
    _agree(source, 300)


def test_agree_on_a_lock_program() -> None:
    src = ("global A := 1;\nrequest t { while (L == 1) { yield }; L := 1; A := (A + 1) % 3; yield; "
           "B := A; L := 0; 0 }\nrequest u { if (B > 0) { C := 1 } else { yield; C := 2 }; C }")
    assert _agree(src) > 10


def _fp(body: str) -> tuple[set[str], set[str]]:
    fp = footprint(parse(f"request r {{ {body} }}").requests[0].body)
    return set(fp.reads), set(fp.writes)


def test_footprint_stops_at_the_yield_on_every_path() -> None:
    assert _fp("s := A; yield; s := s + B") == ({"A"}, set())
    assert _fp("if (X == 0) { yield } else { 0 }; Y := 1") == ({"X", "Y"}, set())
    assert _fp("if (X == 0) { yield } else { yield }; Y := 1") == ({"X"}, set())


def test_footprint_must_writes_and_writes_on_some_paths() -> None:
    assert _fp("L := 1; A := 0; L := 0; 0") == (set(), {"L", "A"})
    assert _fp("if (X == 0) { A := 1 } else { 0 }") == ({"X", "A"}, set())
    assert _fp("if (X == 0) { A := 1; yield } else { A := 2 }") == ({"X"}, {"A"})
    # the loop may not run: its writes are only possible
    assert _fp("while (X == 0) { A := 1 }; 0") == ({"X", "A"}, set())
    # a write after a possible yield is not certain
    assert _fp("if (X) { yield } else { 0 }; A := 1") == ({"X", "A"}, set())
    # `&&` may skip its right operand
    assert _fp("(X && (A := 1)); 0") == ({"X", "A"}, set())


def test_footprint_reads_a_written_global_read_later() -> None:
    assert _fp("X := 1; y := X; y") == ({"X"}, {"X"})


@given(st.integers(-3, 3), st.integers(-3, 3))
def test_release_all_needs_no_valuation_of_what_it_writes(a: int, b: int) -> None:
    program = parse("request r { K0 := 0; K1 := 0; C := 5; 1 }")
    steps = ProgramSteps(program)
    loc = steps.entries[0][1]
    fp = steps.footprint(loc)
    assert fp.read_names == () and fp.touched_names == ("C", "K0", "K1")
    (o,) = steps.step(loc, ())
    assert o.values == (5, 0, 0)
    env = tuple(sorted([(k, v) for k, v in (("K0", a), ("K1", b)) if v]))
    ((_, after, _),) = steps.step_global(loc, env)
    assert env_get(after, "C") == 5 and env_get(after, "K0") == 0
