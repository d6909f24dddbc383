"""Random Ser programs for property tests: one or two requests `r0`, `r1` over the globals
X and Y, built from assignments, flips, yields, waits, if and sequence; `with_locals`
adds the local y and the nondeterministic conditions `?` and `?(0..2)`."""

from __future__ import annotations

from hypothesis import strategies as st

GVARS = ["X", "Y"]


def statements(depth: int, with_locals: bool) -> st.SearchStrategy[str]:
    const = st.sampled_from(["0", "1"])
    atoms = [
        st.builds(lambda v, c: f"{v} := {c}", st.sampled_from(GVARS), const),
        st.builds(lambda v: f"{v} := 1 - {v}", st.sampled_from(GVARS)),
    ]
    if with_locals:
        atoms += [st.builds(lambda v: f"y := {v}", st.sampled_from(GVARS)),
                  st.builds(lambda v: f"{v} := y", st.sampled_from(GVARS))]
    atoms += [
        st.just("yield"),
        st.builds(lambda v, c: f"while ({v} == {c}) {{ yield }}", st.sampled_from(GVARS), const),
    ]
    if depth == 0:
        return st.one_of(*atoms)
    sub = statements(depth - 1, with_locals)
    cond = st.one_of(
        st.sampled_from(["?", "?(0..2)"]),
        st.builds(lambda v, c: f"{v} == {c}", st.sampled_from(GVARS + ["y"]), const),
    ) if with_locals else st.builds(lambda v: f"{v} == 0", st.sampled_from(GVARS))
    return st.one_of(
        st.one_of(*atoms),
        st.builds(lambda c, a, b: f"if ({c}) {{ {a} }} else {{ {b} }}", cond, sub, sub),
        st.builds(lambda a, b: f"{a}; {b}", sub, sub),
    )


@st.composite
def ser_programs(draw: st.DrawFn, with_locals: bool, results: list[str]) -> str:
    """A program whose requests each run a statement of depth 2, then answer one of
    `results`."""
    n = draw(st.integers(1, 2))
    return "\n".join(f"request r{i} {{ {draw(statements(2, with_locals))}; "
                     f"{draw(st.sampled_from(results))} }}" for i in range(n))
