"""Walk-labelled proofs (no serial set) and consecution hints: valid certificates built by
hand and by the prover, and hand-built forgeries, each rejected at the obligation that
must catch it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from checker.api import CheckResult, check_certificate
from tests.checker import certs
from tests.checker.helpers import EXAMPLES, P, const, envelope, eq

Json = Any

# r is stuck at g0; at g1 it moves to g2, at g2 back to g1, and answers ok. Ser = {∅}:
# nothing completes, serially or concurrently.
TOGGLE = json.dumps({
    "initial_global": "g0", "requests": [["r", "s"]], "responses": [["d", "ok"]],
    "transitions": [["s", "g1", "d", "g2"], ["s", "g2", "d", "g1"]]})
# r answers ok in one step that keeps g1 (a self-loop of the automaton at g1).
LOOP = json.dumps({
    "initial_global": "g0", "requests": [["r", "s"]], "responses": [["d", "ok"]],
    "transitions": [["s", "g1", "d", "g1"]]})

G = {g: P(("global", g)) for g in ("g0", "g1", "g2")}
R_OK = P(("response", "r", "ok"))
D = P(("local", "r", "d"))


def aux(name: str) -> Json:
    return {"aux": name}


def ge0(name: str) -> Json:
    return {"cmp": ">=", "lhs": aux(name), "rhs": const(0)}


def total(*names: str) -> Json:
    return {"sum": [[1, aux(n)] for n in names]}


def frozen_at_g0(extra: list[Json], globals_: tuple[str, ...] = ("g1", "g2")) -> list[Json]:
    """The global token never leaves g0 and no request is ever done (both inductive):
    every step and response of these models is disabled."""
    return [eq(G["g0"], const(1)), *(eq(G[g], const(0)) for g in globals_), eq(D, const(0)),
            *extra]


def walk_cert(source: str, conjuncts: list[Json], names: list[str], walk: Json,
              initial: dict[str, int] | None = None) -> Json:
    inv = {"aux": names, "initial_aux": initial or dict.fromkeys(names, 0),
           "formula": {"and": conjuncts}, "updates": []}
    return envelope("ns-json", source, "serializable", {"walk": walk, "invariant": inv})


def check(cert: Json) -> CheckResult:
    return check_certificate(cert, timeout_s=60)


def rejected_at(cert: Json, obligation: str, code: str) -> str:
    r = check(cert)
    assert r.status == "invalid", r.message
    assert r.code == code, r.message
    assert r.obligations[-1].name == obligation, r.message
    return r.message


# ------------------------------------------------------------------ valid


def test_a_connected_walk_is_accepted() -> None:
    # M(R r/ok) = 0 always, y = 0, the walk ends at g0: the empty walk.
    cert = walk_cert(TOGGLE, frozen_at_g0([eq(R_OK, total("ya", "yb")), ge0("ya"), ge0("yb"),
                                           eq(aux("ya"), const(0)), eq(aux("yb"), const(0)),
                                           eq(aux("z0"), const(1))]),
                     ["ya", "yb", "z0"],
                     {"edges": [{"edge": ["g1", "r", "ok", "g2"], "aux": "ya"},
                                {"edge": ["g2", "r", "ok", "g1"], "aux": "yb"}],
                      "ends": [{"state": "g0", "aux": "z0"}]}, {"ya": 0, "yb": 0, "z0": 1})
    r = check(cert)
    assert r.status == "valid", r.message
    assert "walks of the serial automaton" in r.obligations[-1].detail


def test_two_step_walk_and_its_hints() -> None:
    cert = certs.proof_two_walk()
    r = check(cert)
    assert r.status == "valid", r.message
    hinted = certs.proof_two_walk(hinted=True)
    r = check(hinted)
    assert r.status == "valid", r.message
    assert any(o.detail == "unsat (hinted)" for o in r.obligations)
    # a hint that names too few conjuncts makes its query satisfiable
    hinted["proof"]["invariant"]["hints"][0]["checks"][0]["from"] = []
    rejected_at(hinted, "consecution: step r (s, g0) -> (d0, g1)", "E-CONSECUTION")


# ------------------------------------------------------------------ forgeries


def test_edge_the_automaton_lacks() -> None:
    cert = walk_cert(TOGGLE, frozen_at_g0([eq(aux("ya"), const(0)), eq(aux("z0"), const(1))]),
                     ["ya", "z0"],
                     {"edges": [{"edge": ["g0", "r", "ok", "g1"], "aux": "ya"}],
                      "ends": [{"state": "g0", "aux": "z0"}]}, {"ya": 0, "z0": 1})
    assert "not a serial-automaton edge" in rejected_at(cert, "names", "E-NAME")


def test_state_the_automaton_lacks() -> None:
    cert = walk_cert(TOGGLE, frozen_at_g0([eq(aux("z0"), const(1))]), ["z0"],
                     {"edges": [], "ends": [{"state": "g9", "aux": "z0"}]}, {"z0": 1})
    rejected_at(cert, "names", "E-NAME")


def test_disconnected_cycle_is_not_a_walk() -> None:
    """y_a = y_b = 1 is a balanced cycle g1 ⇄ g2 away from g0, labelled r/ok twice: with
    M(R r/ok) = y_a + y_b, I admits the quiescent marking with two answers, which no
    serial execution gives. Without connectivity the refutation would pass."""
    conj = frozen_at_g0([eq(R_OK, total("ya", "yb")), ge0("ya"), ge0("yb"),
                         eq(aux("ya"), aux("yb")), eq(aux("z0"), const(1))])
    for ranks in ([], [{"state": "g1", "aux": "d1"}, {"state": "g2", "aux": "d2"}]):
        names = ["ya", "yb", "z0", "d1", "d2"] if ranks else ["ya", "yb", "z0"]
        walk = {"edges": [{"edge": ["g1", "r", "ok", "g2"], "aux": "ya"},
                          {"edge": ["g2", "r", "ok", "g1"], "aux": "yb"}],
                "ends": [{"state": "g0", "aux": "z0"}]}
        if ranks:
            walk["ranks"] = ranks
        init = dict.fromkeys(names, 0) | {"z0": 1}
        rejected_at(walk_cert(TOGGLE, conj, names, walk, init), "refutation", "E-REFUTATION")


def test_loop_away_from_the_walk() -> None:
    """The automaton without self-loops is a DAG (no non-loop edge at all): a used loop at
    g1 needs a used edge into g1."""
    conj = frozen_at_g0([eq(R_OK, aux("y")), ge0("y"), eq(aux("z0"), const(1))], ("g1",))
    walk = {"edges": [{"edge": ["g1", "r", "ok", "g1"], "aux": "y"}],
            "ends": [{"state": "g0", "aux": "z0"}]}
    rejected_at(walk_cert(LOOP, conj, ["y", "z0"], walk, {"y": 0, "z0": 1}), "refutation",
                "E-REFUTATION")


def test_two_end_states() -> None:
    conj = frozen_at_g0([eq(aux("z0"), const(1)), eq(aux("z1"), const(1))])
    walk = {"edges": [], "ends": [{"state": "g0", "aux": "z0"}, {"state": "g1", "aux": "z1"}]}
    rejected_at(walk_cert(TOGGLE, conj, ["z0", "z1"], walk, {"z0": 1, "z1": 1}), "refutation",
                "E-REFUTATION")


def test_false_balance() -> None:
    """One g1 → g2 edge counted, ending at g0: out − in is 1 at g1, not 0."""
    conj = frozen_at_g0([eq(R_OK, aux("ya")), ge0("ya"), eq(aux("z0"), const(1))])
    walk = {"edges": [{"edge": ["g1", "r", "ok", "g2"], "aux": "ya"}],
            "ends": [{"state": "g0", "aux": "z0"}]}
    rejected_at(walk_cert(TOGGLE, conj, ["ya", "z0"], walk, {"ya": 0, "z0": 1}), "refutation",
                "E-REFUTATION")


def test_unconstrained_walk_proves_nothing() -> None:
    """intro-nonser is not serializable; an invariant that says nothing about y (true) is
    inductive, but its quiescent markings are not all labelled by walks."""
    src = (EXAMPLES / "intro-nonser.ser").read_text(encoding="utf-8")
    inv = {"aux": ["y", "z"], "initial_aux": {"y": 0, "z": 1}, "formula": True, "updates": []}
    walk = {"edges": [{"edge": ["{}", "main", "1", "{}"], "aux": "y"}],
            "ends": [{"state": "{}", "aux": "z"}]}
    cert = envelope("ser", src, "serializable", {"walk": walk, "invariant": inv})
    rejected_at(cert, "refutation", "E-REFUTATION")


@pytest.mark.parametrize("mutate, code", [
    (lambda p: p.update(serial_set={"components": []}), "E-SCHEMA"),  # both evidences
    (lambda p: p["walk"]["ends"][0].update(aux="q"), "E-SCHEMA"),  # undeclared
    (lambda p: p["walk"]["edges"][0].update(aux="Ya"), "E-SCHEMA"),  # not an aux name
    (lambda p: p["walk"]["edges"][0].update(edge=["g1", "r", "ok"]), "E-SCHEMA"),
    (lambda p: p["invariant"].update(hints=[{"transition": {"kind": "spawn", "request": "r",
                                                          "local": "s"},
                                             "checks": [{"prove": [99], "from": []}]}]),
     "E-HINT"),
    (lambda p: p["invariant"].update(hints=[{"transition": {"kind": "spawn", "request": "r",
                                                          "local": "nowhere"},
                                             "checks": [{"prove": [0], "from": []}]}]),
     "E-NAME"),
    (lambda p: p["invariant"].update(hints=[{"transition": {"kind": "spawn", "request": "r",
                                                          "local": "s"},
                                             "checks": [{"prove": [-1], "from": []}]}]),
     "E-SCHEMA"),
])
def test_malformed_walks_and_hints(mutate: Any, code: str) -> None:
    cert = walk_cert(TOGGLE, frozen_at_g0([eq(R_OK, aux("ya")), eq(aux("ya"), const(0)),
                                           eq(aux("z0"), const(1))]),
                     ["ya", "z0"],
                     {"edges": [{"edge": ["g1", "r", "ok", "g2"], "aux": "ya"}],
                      "ends": [{"state": "g0", "aux": "z0"}]}, {"ya": 0, "z0": 1})
    assert check(cert).status == "valid"
    mutate(cert["proof"])
    r = check(cert)
    assert r.status in ("invalid", "unusable") and r.code == code, r.message


# ----------------------------------------------- consecution settled by exact arithmetic


def _two_walk_with(update_y1: Json, conjunct: Json | None = None) -> CheckResult:
    """proof_two_walk with step1's update of y1 replaced, and optionally one conjunct
    added: the checker keeps a conjunct without a solver only when its sides move by
    constants of the safe sign (checker/obligations.py `_kept`)."""
    cert = certs.proof_two_walk()
    inv = cert["proof"]["invariant"]
    inv["updates"][1]["assign"]["y1"] = update_y1
    if conjunct is not None:
        inv["formula"]["and"].append(conjunct)
    return check_certificate(json.dumps(cert))


def _y1(*terms: tuple[int, Json]) -> Json:
    return {"sum": [[c, t] for c, t in terms]}


Y1 = {"aux": "y1"}


@pytest.mark.parametrize("label, update", [
    ("y1 - 1 (y1 >= 0 and y1 = r1 + d1 move the wrong way)", _y1((1, Y1), (-1, const(1)))),
    ("2 y1 + 1 (not a shift: a solver query, which finds it false)", _y1((2, Y1), (1, const(1)))),
    ("y1 + 2 (an equality moved by 1)", _y1((1, Y1), (2, const(1)))),
    ("y1 + 1 read from another aux", _y1((1, {"aux": "y0"}), (1, const(1)))),
])
def test_false_updates_are_not_kept_exactly(label: str, update: Json) -> None:
    r = _two_walk_with(update)
    assert r.status == "invalid" and r.code == "E-CONSECUTION", (label, r.message)


@pytest.mark.parametrize("label, update", [
    ("3 y1 - 2 y1 + 1: a shift however written", _y1((3, Y1), (-2, Y1), (1, const(1)))),
    ("ite(true, y1 + 1, y1 + 1): not affine, left to the solver",
     {"ite": [True, _y1((1, Y1), (1, const(1))), _y1((1, Y1), (1, const(1)))]}),
])
def test_true_updates_pass_either_way(label: str, update: Json) -> None:
    assert _two_walk_with(update).status == "valid", label


def test_a_strict_bound_and_an_ite_conjunct_are_not_kept_when_false() -> None:
    # y1 < 1 holds initially; step1 raises y1: the strict comparison moves the wrong way
    r = _two_walk_with(_y1((1, Y1), (1, const(1))), {"cmp": "<", "lhs": Y1, "rhs": const(1)})
    assert r.status == "invalid" and r.code == "E-CONSECUTION", r.message
    # the same bound behind an ite is not affine: the solver must see it, and refute it
    ite = {"cmp": "<", "lhs": {"ite": [True, Y1, Y1]}, "rhs": const(1)}
    r = _two_walk_with(_y1((1, Y1), (1, const(1))), ite)
    assert r.status == "invalid" and r.code == "E-CONSECUTION", r.message
