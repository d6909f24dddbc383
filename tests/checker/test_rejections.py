"""Every rejection path of the checker, one failing example each (the mutation suite
covers the common ones again, at scale)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from checker import certificate, formula, serial_search
from checker.api import check_certificate
from checker.certificate import Limits
from checker.report import EXIT_CODES
from tests.checker import certs
from tests.checker.helpers import component, envelope, vec

Json = Any


def _code(cert: Any, **kw: Any) -> str | None:
    r = check_certificate(cert, **kw)
    assert r.status != "valid"
    return r.code


def _copy(c: Json) -> Json:
    return json.loads(json.dumps(c))


@pytest.fixture(scope="module")
def ce() -> Json:
    return certs.counterexamples()["intro-nonser.ser"]


@pytest.fixture(scope="module")
def pf() -> Json:
    return certs.proof_incr_decr()


@pytest.fixture(scope="module")
def se() -> Json:
    return certs.proof_ns_state_equation()


# ------------------------------------------------------------------ reading


def test_not_json_and_json_traps(ce: Json) -> None:
    assert _code(b"\xff\xfe") == "E-JSON"
    assert _code("[1, 2") == "E-JSON"
    assert _code('{"a": NaN}') == "E-JSON"
    assert _code('{"a": 1, "a": 2}') == "E-JSON"
    assert _code({"a": {1, 2}}) == "E-JSON"  # a Python object that is not JSON
    assert _code("\ud800") == "E-JSON"  # lone surrogate


def test_size_depth_and_integer_limits(ce: Json) -> None:
    text = json.dumps(ce)
    assert _code(text, limits=Limits(max_bytes=100)) == "E-LIMIT"
    assert _code("[" * 100_000 + "]" * 100_000) == "E-LIMIT"
    assert _code("[" * 300 + "]" * 300) == "E-LIMIT"
    assert _code(text, limits=Limits(max_depth=3)) == "E-LIMIT"
    big = _copy(ce)
    big["counterexample"]["completed"][0]["count"] = 2**70
    assert _code(big) == "E-LIMIT"
    assert _code(ce, limits=Limits(max_events=3)) == "E-LIMIT"


def test_formula_limits(pf: Json, se: Json) -> None:
    assert _code(pf, limits=Limits(max_nodes=10)) == "E-LIMIT"
    assert _code(se, limits=Limits(max_vars=1)) == "E-LIMIT"


def test_schema_file_missing(ce: Json, monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    monkeypatch.setattr(certificate, "SCHEMA", ("schemas", "none.json"))
    assert _code(ce) == "E-SCHEMA"


SCHEMA_BREAKS = [
    ("format", lambda c: c.__setitem__("format", "x")),
    ("model kind", lambda c: c["model"].__setitem__("kind", "c")),
    ("model sha pattern", lambda c: c["model"].__setitem__("sha256", "ABC")),
    ("model extra member", lambda c: c["model"].__setitem__("x", 1)),
    ("model source type", lambda c: c["model"].__setitem__("source", 5)),
    ("verdict value", lambda c: c.__setitem__("verdict", "maybe")),
    ("producer missing tool", lambda c: c["producer"].pop("tool")),
    ("producer wall time negative", lambda c: c["producer"].__setitem__("wall_time_ms", -1)),
    ("both evidence members", lambda c: c.__setitem__("proof", {})),
    ("no evidence", lambda c: c.pop("counterexample")),
    ("events not a list", lambda c: c["counterexample"].__setitem__("events", {})),
    ("step from of 3", lambda c: c["counterexample"]["events"][2].__setitem__("from", ["a"] * 3)),
    ("event extra member", lambda c: c["counterexample"]["events"][0].__setitem__("x", 1)),
    ("count float", lambda c: c["counterexample"]["completed"][0].__setitem__("count", 1.5)),
    ("count bool", lambda c: c["counterexample"]["completed"][0].__setitem__("count", True)),
    ("completed missing", lambda c: c["counterexample"].pop("completed")),
    ("completed repeated pair", lambda c: c["counterexample"]["completed"].append(
        c["counterexample"]["completed"][-1])),
]


@pytest.mark.parametrize("label,edit", SCHEMA_BREAKS, ids=[b[0] for b in SCHEMA_BREAKS])
def test_schema_rules_counterexample(ce: Json, label: str, edit: Any) -> None:
    c = _copy(ce)
    edit(c)
    # a float is refused while decoding, before the schema is consulted
    assert _code(c) == ("E-JSON" if "float" in label else "E-SCHEMA"), label


def _inv(c: Json) -> Json:
    return c["proof"]["invariant"]


PROOF_BREAKS = [
    ("serial_set missing", lambda c: c["proof"].pop("serial_set")),
    ("component extra member", lambda c: c["proof"]["serial_set"]["components"][0]
     .__setitem__("x", 1)),
    ("empty period", lambda c: c["proof"]["serial_set"]["components"][0]["periods"]
     .__setitem__(0, [])),
    ("edge of 3 names", lambda c: c["proof"]["serial_set"]["components"][0]["circulations"][0]
     ["edges"][0].__setitem__("edge", ["a", "b", "c"])),
    ("edge count 0", lambda c: c["proof"]["serial_set"]["components"][0]["circulations"][0]
     ["edges"][0].__setitem__("count", 0)),
    ("duplicate edge", lambda c: c["proof"]["serial_set"]["components"][0]["circulations"][0]
     ["edges"].append(c["proof"]["serial_set"]["components"][0]["circulations"][0]["edges"][0])),
    ("aux bad name", lambda c: _inv(c).__setitem__("aux", ["X"])),
    ("aux repeated", lambda c: _inv(c).__setitem__("aux", ["a", "a"])),
    ("formula a string", lambda c: _inv(c).__setitem__("formula", "true")),
    ("formula unknown operator", lambda c: _inv(c).__setitem__("formula", {"xor": []})),
    ("cmp operator", lambda c: _inv(c).__setitem__("formula", {
        "cmp": "!=", "lhs": {"const": 0}, "rhs": {"const": 0}})),
    ("term two keys", lambda c: _inv(c).__setitem__("formula", {
        "cmp": "=", "lhs": {"const": 0, "aux": "a"}, "rhs": {"const": 0}})),
    ("sum item of 3", lambda c: _inv(c).__setitem__("formula", {
        "cmp": "=", "lhs": {"sum": [[1, {"const": 0}, 3]]}, "rhs": {"const": 0}})),
    ("ite of 2", lambda c: _inv(c).__setitem__("formula", {
        "cmp": "=", "lhs": {"ite": [True, {"const": 0}]}, "rhs": {"const": 0}})),
    ("place kind", lambda c: _inv(c).__setitem__("formula", {
        "cmp": "=", "lhs": {"place": {"request": "x"}}, "rhs": {"const": 0}})),
    ("const float", lambda c: _inv(c).__setitem__("formula", {
        "cmp": "=", "lhs": {"const": 0.5}, "rhs": {"const": 0}})),
    ("undeclared aux in formula", lambda c: _inv(c).__setitem__("formula", {
        "cmp": "=", "lhs": {"aux": "nope"}, "rhs": {"const": 0}})),
    ("initial value for undeclared", lambda c: _inv(c)["initial_aux"].__setitem__("nope", 0)),
    ("update transition kind", lambda c: _inv(c).__setitem__("updates", [
        {"transition": {"kind": "fire", "request": "r"}, "assign": {}}])),
    ("update extra member", lambda c: _inv(c).__setitem__("updates", [
        {"transition": {"kind": "spawn", "request": "r", "local": "l"}, "assign": {}, "x": 1}])),
]


@pytest.mark.parametrize("label,edit", PROOF_BREAKS, ids=[b[0] for b in PROOF_BREAKS])
def test_schema_rules_proof(pf: Json, label: str, edit: Any) -> None:
    c = _copy(pf)
    edit(c)
    assert _code(c) == ("E-JSON" if "float" in label else "E-SCHEMA"), label


# ------------------------------------------------------------------ model


def test_model_errors_are_unusable(ce: Json, pf: Json) -> None:
    for kind, src in [("ser", "request a { x; }"), ("ns-json", '{"initial_global": 1}'),
                      ("ns-json", "[]")]:
        r = check_certificate(envelope(kind, src, "not_serializable",
                                       ce["counterexample"]))
        assert (r.status, r.code) == ("unusable", "E-MODEL"), src
    # the NS a proof is checked against is explored in full: reachable `exit` and a state
    # bound surface there (a counterexample is replayed lazily and never needs them)
    # (a run-time error is E-FAULT: docs/cli.md, "Errors next to a counterexample")
    for src, code in [("request a { exit }", "E-FAULT"),
                      ("request a { y := 1 / (X - X); 0 }", "E-FAULT"),
                      ("request a { X := X + 1; yield; 0 }", "E-MODEL")]:
        r = check_certificate(envelope("ser", src, "serializable", pf["proof"]))
        assert (r.status, r.code) == ("unusable", code), src


def test_hash_checks(ce: Json) -> None:
    c = _copy(ce)
    c["model"]["sha256"] = "0" * 64
    assert _code(c) == "E-HASH"
    assert _code(ce, model_text=b"other") == "E-MODEL-FILE"
    assert check_certificate(ce, model_text=ce["model"]["source"]).status == "valid"


# ------------------------------------------------------------------ counterexample


def test_serial_multiset_is_rejected() -> None:
    src = (certs.EXAMPLES / "intro-lock.ser").read_text()
    body = "({}, while(L == 1){ yield }; L := 1; X := 1; yield; y := X; X := 0; L := 0; y)"
    mid = "({}, y := X; X := 0; L := 0; y)"
    ev = [{"event": "spawn", "instance": 1, "request": "main", "local": body},
          {"event": "step", "instance": 1, "from": [body, "{}"], "to": [mid, "{L=1,X=1}"]},
          {"event": "step", "instance": 1, "from": [mid, "{L=1,X=1}"], "to": ["({y=1}, 1)", "{}"]},
          {"event": "respond", "instance": 1, "local": "({y=1}, 1)", "response": "1"}]
    cert = envelope("ser", src, "not_serializable",
                    {"events": ev, "completed": vec({("main", "1"): 1})})
    r = check_certificate(cert)
    assert r.code == "E-SERIAL" and "serial execution" in r.message


def test_serial_search_limit_is_undecided(ce: Json, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(serial_search, "SEARCH_LIMIT", 1)
    r = check_certificate(ce)
    assert (r.status, r.code, EXIT_CODES[r.status]) == ("undecided", "E-UNDECIDED", 3)


def test_empty_trace_is_rejected(ce: Json) -> None:
    c = _copy(ce)
    c["counterexample"] = {"events": [], "completed": []}
    assert _code(c) == "E-SERIAL"  # the empty multiset is always serial


# ------------------------------------------------------------------ serial-set witnesses


def _with_components(cert: Json, comps: list[Json]) -> Json:
    c = _copy(cert)
    c["proof"]["serial_set"]["components"] = comps
    return c


G0, G1, G2 = "{}", "{X=1}", "{X=2}"
UP1, UP2 = (G0, "incr", "1", G1), (G1, "incr", "2", G2)
DN1, DN0 = (G2, "decr", "1", G1), (G1, "decr", "0", G0)
I1, I2, D0 = vec({("incr", "1"): 1}), vec({("incr", "2"): 1}), vec({("decr", "0"): 1})


@pytest.mark.parametrize("label,comp,code,needle", [
    ("dependent periods", component([], [I1, vec({("incr", "1"): 2})], G0, [],
                                    [[(UP1, 1)], [(UP1, 2)]]), "E-WITNESS", "dependent"),
    ("unknown pair", component(vec({("incr", "9"): 1}), [], G0, [], []), "E-NAME", "Response"),
    ("unknown end", component([], [], "{X=7}", [], []), "E-NAME", "unknown state"),
    ("not an edge", component(I2, [], G1, [((G0, "incr", "2", G1), 1)], []), "E-WITNESS",
     "not a serial-automaton edge"),
    ("labels differ", component(I2, [], G1, [(UP1, 1)], []), "E-WITNESS", "!= base"),
    ("unbalanced walk", component(I1, [], G0, [(UP1, 1)], []), "E-WITNESS", "not balanced"),
    ("walk away from the start", component(vec({("decr", "1"): 1, ("incr", "2"): 1}), [], G0,
                                           [(UP2, 1), (DN1, 1)], []), "E-WITNESS", "connected"),
    ("circulation labels", component([], [I1], G0, [], [[(UP2, 1)]]), "E-WITNESS", "labels"),
    ("unbalanced circulation", component([], [I1], G0, [], [[(UP1, 1)]]), "E-WITNESS",
     "not balanced"),
    ("circulation far away", component([], [vec({("decr", "1"): 1, ("incr", "2"): 1})], G0, [],
                                       [[(UP2, 1), (DN1, 1)]]), "E-WITNESS", "touch"),
    ("unknown request in edge", component([], [], G0, [((G0, "zz", "1", G1), 1)], []), "E-NAME",
     "request"),
])
def test_witness_rejections(pf: Json, label: str, comp: Json, code: str, needle: str) -> None:
    r = check_certificate(_with_components(pf, [comp]))
    assert r.code == code, (label, r.message)
    assert needle in r.message and "serial-set[0]" in r.message


# ------------------------------------------------------------------ invariant


def test_invariant_rejections_name_the_obligation(pf: Json, se: Json) -> None:
    c = _copy(pf)
    c["proof"]["invariant"]["formula"]["and"].pop(1)  # incr may run decr's body now
    r = check_certificate(c)
    assert r.code == "E-CONSECUTION"
    assert r.message.startswith("consecution: step incr")
    assert "pre-state:" in r.message and "=" in r.message.split("pre-state:")[1]
    c = _copy(pf)
    c["proof"]["invariant"]["formula"] = {"cmp": "=", "lhs": {"const": 0}, "rhs": {"const": 1}}
    assert _code(c) == "E-INITIATION"
    c = _copy(pf)
    c["proof"]["invariant"]["formula"] = True
    r = check_certificate(c)
    assert r.code == "E-REFUTATION" and "Response(" in r.message
    c = _copy(se)
    c["proof"]["invariant"]["updates"][0]["transition"]["local"] = "nowhere"
    assert _code(c) == "E-NAME"
    c = _copy(pf)
    c["proof"]["invariant"]["formula"]["and"][0] = {
        "cmp": "=", "lhs": {"place": {"local": ["decr", "({}, 77)"]}}, "rhs": {"const": 0}}
    assert _code(c) == "E-NAME"  # no such local state
    c = _copy(se)  # an ite term and an or: still valid
    c["proof"]["invariant"]["formula"]["and"].append({"or": [{"not": False}, {"cmp": ">", "lhs": {
        "ite": [True, {"const": 1}, {"aux": "t0"}]}, "rhs": {"const": 0}}]})
    assert check_certificate(c).status == "valid"


def _cvc5() -> Any:
    """pySMT's cvc5 module, as the checker imports it (on its first query)."""
    formula.solver_modules()
    import pysmt.solvers.cvcfive

    return pysmt.solvers.cvcfive


def test_solver_unknown_is_undecided(pf: Json, monkeypatch: pytest.MonkeyPatch) -> None:
    from pysmt.exceptions import SolverReturnedUnknownResultError

    def unknown(self: Any, assumptions: Any = None) -> bool:
        raise SolverReturnedUnknownResultError()

    monkeypatch.setattr(_cvc5().CVC5Solver, "solve", unknown)
    r = check_certificate(pf)
    assert (r.status, r.code, EXIT_CODES[r.status]) == ("undecided", "E-UNDECIDED", 3)
    assert r.obligations[-1].result == "undecided"


def test_solver_failure_is_undecided(pf: Json, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(self: Any, assumptions: Any = None) -> bool:
        raise RuntimeError("boom")

    monkeypatch.setattr(_cvc5().CVC5Solver, "solve", broken)
    assert check_certificate(pf).status == "undecided"


def test_internal_error_fails_closed(ce: Json, monkeypatch: pytest.MonkeyPatch) -> None:
    def crash(*a: Any) -> bool:
        raise ValueError("bug")

    monkeypatch.setattr(serial_search, "is_serial", crash)
    r = check_certificate(ce)
    assert (r.status, r.code) == ("unusable", "E-INTERNAL")


def test_timeout_is_passed_to_cvc5(pf: Json) -> None:
    assert check_certificate(pf, timeout_s=0.5).status == "valid"


# ------------------------------------------------------------------ disabled transitions

INC = "({}, while(X == 2){ yield }; y := X; X := y + 1; X)"
DEC = "({}, while(X == 0){ yield }; y := X; X := y - 1; X)"


def _details(cert: Json) -> dict[str, str]:
    r = check_certificate(cert)
    assert r.status == "valid", r.message
    return {o.name: o.detail for o in r.obligations}


def _foreign_step(details: dict[str, str]) -> str:
    """The consecution detail of a step of incr from decr's waiting local."""
    return next(d for n, d in details.items() if n.startswith(f"consecution: step incr ({DEC}"))


def test_a_zero_conjunct_disables_transitions_without_a_query(pf: Json) -> None:
    details = _details(pf)
    assert _foreign_step(details).startswith("disabled: I sets Local(incr, ")
    assert sum(d.startswith("disabled") for d in details.values()) >= 4


@pytest.mark.parametrize("spelling", [
    {"cmp": "<=", "lhs": {"place": {"local": ["incr", DEC]}}, "rhs": {"const": 0}},
    {"cmp": "=", "lhs": {"const": 0}, "rhs": {"place": {"local": ["incr", DEC]}}},
    {"cmp": "=", "lhs": {"sum": [[1, {"place": {"local": ["incr", DEC]}}]]}, "rhs": {"const": 0}},
    {"and": [{"cmp": "=", "lhs": {"place": {"local": ["incr", DEC]}}, "rhs": {"const": 0}}]},
])
def test_only_the_exact_zero_shape_disables(pf: Json, spelling: Json) -> None:
    """Same meaning, other spelling: the checker asks the solver (and still proves it)."""
    c = _copy(pf)
    parts = c["proof"]["invariant"]["formula"]["and"]
    k = next(i for i, p in enumerate(parts) if p.get("lhs") == {"place": {"local": ["incr", DEC]}})
    parts[k] = spelling
    assert _foreign_step(_details(c)) == "unsat"


def test_a_false_zero_conjunct_is_caught_where_the_place_fills(pf: Json) -> None:
    c = _copy(pf)  # claim incr's waiting local always empty: the spawn that fills it fails
    c["proof"]["invariant"]["formula"]["and"].append(
        {"cmp": "=", "lhs": {"place": {"local": ["incr", INC]}}, "rhs": {"const": 0}})
    r = check_certificate(c)
    assert r.code == "E-CONSECUTION" and r.message.startswith("consecution: spawn incr")


@pytest.mark.parametrize("zero", [False, 0.0, "0", -0, 1])
def test_zero_constant_spellings(pf: Json, zero: Any) -> None:
    c = _copy(pf)
    parts = c["proof"]["invariant"]["formula"]["and"]
    k = next(i for i, p in enumerate(parts) if p.get("lhs") == {"place": {"local": ["incr", DEC]}})
    parts[k] = {"cmp": "=", "lhs": {"place": {"local": ["incr", DEC]}}, "rhs": {"const": zero}}
    r = check_certificate(c)
    if type(zero) is int and zero == 0:
        assert _foreign_step({o.name: o.detail for o in r.obligations}).startswith("disabled")
    else:  # not an integer literal 0: rejected, or (1) a false claim that initiation refutes
        assert r.status != "valid" and r.code in ("E-SCHEMA", "E-JSON", "E-INITIATION"), r.code
