"""Property tests: the front end never fails with anything but a `SerError`, and the
canonical text of a parsed expression parses back to the same expression."""

from __future__ import annotations

import json
import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prover.errors import DivisionByZeroError, SerError
from prover.frontend import ast
from prover.frontend.load import load_source
from prover.frontend.parser import parse
from prover.petri.build import build_interleaving_net
from prover.serial.automaton import build_serial_automaton

from .strategies import EXPRS, PROGRAMS

# Modest by default to keep the suite fast; raise SER_HYPOTHESIS_EXAMPLES for a soak run.
FAST = settings(
    max_examples=int(os.environ.get("SER_HYPOTHESIS_EXAMPLES", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
BOUND = 300

TOKENS = [
    "request", "if", "else", "while", "yield", "exit", "{", "}", "(", ")", ";", ":=", "==",
    "&&", "||", "+", "-", "!", "?", "x", "y", "X", "_Z", "r", "0", "1", "42",
    "99999999999999999999", "9223372036854775807", "// c\n", ":", "=", "&", "|", "/", "%",
    ",", "\x01", "é", "\n", "\t", "'", '"', "\\", "*", "<", "<=", ">", ">=", "!=", "global",
    "true", "++", "+=", "A",
]


def _check(src: str, kind: str = "ser") -> None:
    try:
        m = load_source(src, kind, "p.ser", state_bound=BOUND)
    except SerError:
        return
    build_interleaving_net(m.ns)
    build_serial_automaton(m.ns)


@FAST
@given(st.lists(st.sampled_from(TOKENS), max_size=40), st.sampled_from([" ", ""]))
def test_random_token_streams(tokens: list[str], sep: str) -> None:
    _check(sep.join(tokens))


@FAST
@given(st.text(max_size=60))
def test_random_text(text: str) -> None:
    _check(text)
    _check(text, "ns-json")


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=12,
)


@FAST
@given(
    st.fixed_dictionaries(
        {},
        optional={
            "initial_global": JSON_VALUES,
            "requests": JSON_VALUES,
            "responses": JSON_VALUES,
            "transitions": JSON_VALUES,
            "extra": JSON_VALUES,
        },
    )
)
def test_random_ns_json(doc: dict[str, object]) -> None:
    _check(json.dumps(doc), "ns-json")


# ---- well-formed programs (strategies in strategies.py) ------------------------------


@FAST
@given(PROGRAMS)
def test_random_well_formed_programs(requests: list[tuple[str, str]]) -> None:
    src = "\n".join(f"request {name} {{ {body} }}" for name, body in requests)
    try:
        parse(src)  # well-formed: must parse, unless a literal division by zero folds
    except DivisionByZeroError:
        return
    _check(src)


def _has_min_literal(e: ast.Expr) -> bool:
    if isinstance(e, ast.Num):
        return e.value == ast.I64_MIN
    return any(
        _has_min_literal(c)
        for c in vars(e).values()
        if isinstance(c, ast.Expr)
    )


@FAST
@given(EXPRS)
def test_canonical_text_parses_back(body: str) -> None:
    try:
        e = parse(body).requests[0].body
    except DivisionByZeroError:
        return
    if _has_min_literal(e):  # -2**63 is a canonical atom, but 2**63 is no Ser literal
        return
    again = parse(e.text).requests[0].body
    assert again == e
    assert again.text == e.text
