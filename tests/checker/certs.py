"""The valid certificates of the suite, one per example model (plus two NS JSON ones)."""

from __future__ import annotations

import json
from typing import Any

from tests.checker.helpers import (
    EXAMPLES,
    P,
    component,
    const,
    envelope,
    eq,
    find_counterexample,
    net_of,
    state_equation,
    vec,
)

Json = Any

NS_SER = json.dumps({"initial_global": "G0", "requests": [["R", "L0"]],
                     "responses": [["L1", "ok"]], "transitions": [["L0", "G0", "L1", "G0"]]},
                    separators=(",", ":"))
NS_NONSER = json.dumps({
    "initial_global": "g0", "requests": [["main", "s0"]],
    "responses": [["d1", "1"], ["d0", "0"]],
    "transitions": [["s0", "g0", "s1", "g1"], ["s0", "g1", "s1", "g1"],
                    ["s1", "g1", "d1", "g0"], ["s1", "g0", "d0", "g0"]]})


def _src(name: str) -> str:
    return (EXAMPLES / name).read_text(encoding="utf-8")


def counterexamples() -> dict[str, Json]:
    out = {}
    for name in ("intro-nonser.ser", "flag-noelse.ser", "incr-decr-yields.ser", "bank-yield.ser"):
        src = _src(name)
        out[name] = envelope("ser", src, "not_serializable", find_counterexample("ser", src))
    out["ns-nonser.json"] = envelope("ns-json", NS_NONSER, "not_serializable",
                                     find_counterexample("ns-json", NS_NONSER))
    return out


def _one(r: str, v: str, n: int = 1) -> Json:
    return vec({(r, v): n})


def proof_intro_lock() -> Json:
    src = _src("intro-lock.ser")
    body = ("({}, while(L == 1){ yield }; L := 1; X := 1; yield; y := X; X := 0; L := 0; y)")
    mid, g0, gl = "({}, y := X; X := 0; L := 0; y)", "{}", "{L=1,X=1}"
    formula = {"and": [
        eq({"sum": [[1, P(("global", g0))], [1, P(("global", gl))]]}, const(1)),
        eq(P(("local", "main", mid)), P(("global", gl))),
        eq(P(("local", "main", "({}, 0)")), const(0)),
        eq(P(("response", "main", "0")), const(0)),
    ]}
    assert body  # the spawn state, named here for the reader
    loop = ("{}", "main", "1", "{}")
    s = [component([], [_one("main", "1")], "{}", [], [[(loop, 1)]])]
    inv = {"aux": [], "initial_aux": {}, "formula": formula, "updates": []}
    return envelope("ser", src, "serializable", {"serial_set": {"components": s}, "invariant": inv})


def proof_flag_else() -> Json:
    src = _src("flag-else.ser")
    f1 = "{FLAG=1}"
    loops = [[((f1, "A", "0", f1), 1)], [((f1, "A", "1", f1), 1)]]
    periods = [_one("A", "0"), _one("A", "1")]
    s = [component([], [], "{}", [], [])]
    for v in ("0", "1"):
        s.append(component(_one("A", v), periods, f1, [(("{}", "A", v, f1), 1)], loops))
    inv = {"aux": [], "initial_aux": {}, "formula": True, "updates": []}
    return envelope("ser", src, "serializable", {"serial_set": {"components": s}, "invariant": inv})


def proof_incr_decr() -> Json:
    src = _src("incr-decr.ser")
    g0, g1, g2 = "{}", "{X=1}", "{X=2}"
    up1, up2 = (g0, "incr", "1", g1), (g1, "incr", "2", g2)
    dn1, dn0 = (g2, "decr", "1", g1), (g1, "decr", "0", g0)
    c01 = vec({("incr", "1"): 1, ("decr", "0"): 1})
    c12 = vec({("incr", "2"): 1, ("decr", "1"): 1})
    circ01, circ12 = [(up1, 1), (dn0, 1)], [(up2, 1), (dn1, 1)]
    s = [
        component([], [c01], g0, [], [circ01]),
        component(vec({("incr", "1"): 1, ("decr", "0"): 1, ("incr", "2"): 1, ("decr", "1"): 1}),
                  [c01, c12], g0, [(up1, 1), (up2, 1), (dn1, 1), (dn0, 1)], [circ01, circ12]),
        component(_one("incr", "1"), [c01, c12], g1, [(up1, 1)], [circ01, circ12]),
        component(vec({("incr", "1"): 1, ("incr", "2"): 1}), [c01, c12], g2,
                  [(up1, 1), (up2, 1)], [circ01, circ12]),
    ]
    inv = {"aux": [], "initial_aux": {}, "formula": _incr_decr_invariant(), "updates": []}
    return envelope("ser", src, "serializable", {"serial_set": {"components": s}, "invariant": inv})


def _incr_decr_invariant() -> Json:
    """Completed-or-finished counts label a walk of the line automaton {} - X=1 - X=2 that
    ends at the current global: u1 - d0 = [X>=1], u2 - d1 = [X=2], and u2 > 0 needs u1 > 0."""
    inc = "({}, while(X == 2){ yield }; y := X; X := y + 1; X)"
    dec = "({}, while(X == 0){ yield }; y := X; X := y - 1; X)"
    g0, g1, g2 = (P(("global", g)) for g in ("{}", "{X=1}", "{X=2}"))

    def done(r: str, loc: str, v: str) -> Json:
        return {"sum": [[1, P(("local", r, loc))], [1, P(("response", r, v))]]}

    u1, u2 = done("incr", "({}, 1)", "1"), done("incr", "({y=1}, 2)", "2")
    d1, d0 = done("decr", "({y=2}, 1)", "1"), done("decr", "({y=1}, 0)", "0")
    never = [("local", "incr", dec), ("local", "decr", inc), ("local", "incr", "({y=1}, 0)"),
             ("local", "incr", "({y=2}, 1)"), ("local", "decr", "({}, 1)"),
             ("local", "decr", "({y=1}, 2)"), ("response", "incr", "0"), ("response", "decr", "2")]
    return {"and": [
        eq({"sum": [[1, g0], [1, g1], [1, g2]]}, const(1)),
        *[eq(P(p), const(0)) for p in never],
        eq({"sum": [[1, u1], [-1, d0]]}, {"sum": [[1, g1], [1, g2]]}),
        eq({"sum": [[1, u2], [-1, d1]]}, g2),
        {"or": [eq(u2, const(0)), {"cmp": ">=", "lhs": u1, "rhs": const(1)}]},
    ]}


def proof_bank_atomic() -> Json:
    src = _src("bank-atomic.ser")
    body = "({}, if(MOVED == 0){MOVED := 1; A := -1; B := 1; 1}else{0})"
    g0, g1 = "{}", "{A=-1,B=1,MOVED=1}"
    never = [("local", "transfer", "({}, A + B)"), ("local", "audit", body),
             ("local", "audit", "({}, 1)"), ("response", "audit", "1")]
    def done(v: str) -> Json:
        return {"sum": [[1, P(("local", "transfer", f"({{}}, {v})"))],
                        [1, P(("response", "transfer", v))]]}

    moved, late = done("1"), done("0")
    formula = {"and": [
        eq({"sum": [[1, P(("global", g0))], [1, P(("global", g1))]]}, const(1)),
        *[eq(P(p), const(0)) for p in never],
        eq(moved, P(("global", g1))),
        {"or": [eq(P(("global", g1)), const(1)), eq(late, const(0))]},
    ]}
    a0, t0 = _one("audit", "0"), _one("transfer", "0")
    s = [
        component([], [a0], g0, [], [[((g0, "audit", "0", g0), 1)]]),
        component(_one("transfer", "1"), [a0, t0], g1, [((g0, "transfer", "1", g1), 1)],
                  [[((g1, "audit", "0", g1), 1)], [((g1, "transfer", "0", g1), 1)]]),
    ]
    inv = {"aux": [], "initial_aux": {}, "formula": formula, "updates": []}
    return envelope("ser", src, "serializable", {"serial_set": {"components": s}, "invariant": inv})


def proof_ns() -> Json:
    s = [component([], [_one("R", "ok")], "G0", [], [[(("G0", "R", "ok", "G0"), 1)]])]
    inv = {"aux": [], "initial_aux": {},
           "formula": eq(P(("global", "G0")), const(1)), "updates": []}
    return envelope("ns-json", NS_SER, "serializable",
                    {"serial_set": {"components": s}, "invariant": inv})


def proof_ns_state_equation() -> Json:
    s = [component([], [_one("R", "ok")], "G0", [], [[(("G0", "R", "ok", "G0"), 1)]])]
    inv = state_equation(net_of("ns-json", NS_SER))
    return envelope("ns-json", NS_SER, "serializable",
                    {"serial_set": {"components": s}, "invariant": inv})


# r answers 0 at g0 and moves to g1, and answers 1 at g1 (staying): Ser is r/0 once, then
# r/1 any number of times.
NS_TWO = json.dumps({
    "initial_global": "g0", "requests": [["r", "s"]], "responses": [["d0", "0"], ["d1", "1"]],
    "transitions": [["s", "g0", "d0", "g1"], ["s", "g1", "d1", "g1"]]})


def proof_two_walk(hinted: bool = False) -> Json:
    """A walk-labelled proof of NS_TWO: y0 counts r/0 (g0 → g1), y1 counts r/1 at g1, used
    only once the walk is at g1; a request in d0 or d1 has taken its edge already
    (finished, unanswered); z0, z1 say where the walk ends (where the global is).
    `hinted`: the commit step gets a hint proving conjuncts 1, 3, 4, 5 from 0, 1, 3, 4, 5
    (0 and 3 are needed: tests/checker/test_mutants.py; 1 is kept by exact arithmetic)."""
    g0, g1 = P(("global", "g0")), P(("global", "g1"))
    d0, d1 = P(("local", "r", "d0")), P(("local", "r", "d1"))
    r0, r1 = P(("response", "r", "0")), P(("response", "r", "1"))

    def aux(a: str) -> Json:
        return {"aux": a}

    def plus1(a: str) -> Json:
        return {"sum": [[1, aux(a)], [1, const(1)]]}

    conj = [
        eq({"sum": [[1, g0], [1, g1]]}, const(1)),
        eq(aux("y0"), {"sum": [[1, r0], [1, d0]]}), eq(aux("y1"), {"sum": [[1, r1], [1, d1]]}),
        eq(aux("y0"), aux("z1")), eq(aux("z0"), g0), eq(aux("z1"), g1),
        {"cmp": ">=", "lhs": aux("y1"), "rhs": const(0)},
        {"or": [{"cmp": "<=", "lhs": aux("y1"), "rhs": const(0)}, eq(aux("z1"), const(1))]},
    ]
    step0 = {"kind": "step", "request": "r", "from": ["s", "g0"], "to": ["d0", "g1"]}
    step1 = {"kind": "step", "request": "r", "from": ["s", "g1"], "to": ["d1", "g1"]}
    inv: Json = {
        "aux": ["y0", "y1", "z0", "z1"], "initial_aux": {"y0": 0, "y1": 0, "z0": 1, "z1": 0},
        "formula": {"and": conj},
        "updates": [{"transition": step0,
                     "assign": {"y0": plus1("y0"), "z0": const(0), "z1": const(1)}},
                    {"transition": step1, "assign": {"y1": plus1("y1")}}]}
    if hinted:
        inv["hints"] = [{"transition": step0,
                         "checks": [{"prove": [1, 3, 4, 5], "from": [0, 1, 3, 4, 5]}]}]
    walk = {"edges": [{"edge": ["g0", "r", "0", "g1"], "aux": "y0"},
                      {"edge": ["g1", "r", "1", "g1"], "aux": "y1"}],
            "ends": [{"state": "g0", "aux": "z0"}, {"state": "g1", "aux": "z1"}]}
    return envelope("ns-json", NS_TWO, "serializable", {"walk": walk, "invariant": inv})


def proofs() -> dict[str, Json]:
    return {
        "intro-lock.ser": proof_intro_lock(),
        "flag-else.ser": proof_flag_else(),
        "incr-decr.ser": proof_incr_decr(),
        "bank-atomic.ser": proof_bank_atomic(),
        "ns-ser.json": proof_ns(),
        "ns-ser-se.json": proof_ns_state_equation(),
        "ns-two-walk.json": proof_two_walk(),
        "ns-two-walk-hinted.json": proof_two_walk(hinted=True),
    }


def all_valid() -> dict[str, Json]:
    return {**counterexamples(), **proofs()}


INTRO_LOCK_START = "({}, while(L == 1){ yield }; L := 1; X := 1; yield; y := X; X := 0; L := 0; y)"
INTRO_LOCK_HELD = "({}, y := X; X := 0; L := 0; y)"


def reduction_intro_lock() -> Json:
    """A reduction proof of intro-lock.ser: the lock's holder is the one request in its
    critical section (L = X = #held), taking the lock is a right mover, the rest a left
    mover."""
    src = _src("intro-lock.ser")
    held = P(("local", "main", INTRO_LOCK_HELD))
    cert = envelope("ser", src, "serializable", {})
    del cert["proof"]
    cert["reduction"] = {
        "domains": [{"global": "L", "range": [0, 1]}, {"global": "X", "values": [0, 1]}],
        "invariant": {"and": [eq(P(("value", "L")), held), eq(P(("value", "X")), held)]},
        "labels": [{"local": ["main", INTRO_LOCK_START], "label": "R"},
                   {"local": ["main", INTRO_LOCK_HELD], "label": "L"}],
    }
    return cert


def always_intro_lock() -> Json:
    """`G (L <= inflight(main))` for any number of requests, by the reduction proof's
    invariant (L = #held): the holder is in flight."""
    cert = reduction_intro_lock()
    red = cert.pop("reduction")
    cert["verdict"] = "ltl_holds"
    cert["always"] = {"formula": "G (L <= inflight(main))",
                      "invariant": {"domains": red["domains"], "formula": red["invariant"]}}
    return cert
