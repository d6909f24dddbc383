"""Hypothesis strategies for well-formed Ser programs (shared by the property tests)."""

from __future__ import annotations

from hypothesis import strategies as st

# `exit` is rare: a reachable `exit` rejects the whole program.
LEAVES = st.sampled_from(
    ["0", "1", "2", "-3", "x", "y", "X", "Y", "?", "yield"] * 3
    + ["(X < 2)", "(x >= Y)", "-X", "(X != y)", "7 / x", "X % 3", "2 * Y", "exit"]
    # ranged choices (issue 41): `?(0..1)` must name its states exactly as `?` does
    + ["?(1..3)", "?(0..1)", "?(2..2)", "(?(0..4) - 2)"]
)


# Every binary operator; `_compound` writes some without parentheses so that the
# parsers' precedence and the printers' minimal parentheses are exercised.
BINARY_OPS = ["+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "&&", "||"]


def _compound(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    two = st.tuples(children, children)
    return st.one_of(
        st.tuples(children, st.sampled_from(BINARY_OPS), children).map(
            lambda t: f"({t[0]} {t[1]} {t[2]})"
        ),
        st.tuples(children, st.sampled_from(["+", "-", "*", "%"]), children).map(
            lambda t: f"{t[0]} {t[1]} {t[2]}"
        ),
        children.map(lambda c: f"(-{c})"),
        children.map(lambda c: f"-{c}"),
        st.tuples(children, st.sampled_from(["<", "!=", "/", "*", "%", "-"]), children).map(
            lambda t: f"({t[0]} {t[1]} {t[2]})"
        ),
        two.map(lambda p: f"({p[0]}; {p[1]})"),
        children.map(lambda c: f"(!{c})"),
        children.map(lambda c: f"(x := {c})"),
        children.map(lambda c: f"(X := {c})"),
        st.tuples(children, children, children).map(
            lambda t: f"if ({t[0]}) {{ {t[1]} }} else {{ {t[2]} }}"
        ),
        st.tuples(children, children, children, children).map(
            lambda t: f"if ({t[0]}) {{ {t[1]} }} else if ({t[2]}) {{ {t[3]} }} else {{ 0 }}"
        ),
        two.map(lambda p: f"while ({p[0]}) {{ {p[1]} }}"),
    )


EXPRS = st.recursive(LEAVES, _compound, max_leaves=10)
PROGRAMS = st.lists(
    st.tuples(st.sampled_from(["a", "b", "c"]), EXPRS), min_size=1, max_size=3,
    unique_by=lambda t: t[0],
)
# Initial values of globals: a `global` prelude (possibly empty) for a program.
PRELUDES = st.lists(
    st.tuples(st.sampled_from(["X", "Y", "Z"]), st.integers(-3, 3)),
    max_size=3, unique_by=lambda t: t[0],
).map(lambda inits: f"global {', '.join(f'{n} := {v}' for n, v in inits)};\n" if inits else "")


