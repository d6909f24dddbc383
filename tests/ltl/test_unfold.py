"""The unfolding engine for `G p` (prover/ltl/pdnet.py, prover/ltl/unfold.py,
prover/ltl/replay.py): the same verdicts as the explicit search, on the examples and on
random programs; each violation replayed as a lasso the checker accepts; a deterministic
budget."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from checker.api import check_certificate
from prover.certificate.write import dump_certificate
from prover.errors import SerError
from prover.frontend.load import LoadedModel, load_model, load_source
from prover.ltl.certify import by_unfolding, safety_fairly
from prover.ltl.explore import System, search
from prover.ltl.formula import Unary, parse_formula
from prover.ltl.lasso import ser_globals
from prover.ltl.pdnet import PDNet
from prover.ltl.unfold import unfold_safety
from tests.frontend.strategies import PRELUDES, PROGRAMS

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(p for p in (ROOT / "examples").iterdir()
                  if p.suffix in (".ser", ".json") and not p.name.endswith(".cert.json")
                  and p.name != "expected.json")


def _formulas(model: LoadedModel, k: int) -> list[str]:
    r = model.ns.request_names[0]
    out = [f"G inflight({r}) <= {k - 1}", f"G (done({r}) <= {k})",
           f"G (inflight({r}) + done({r}) < {k})"]
    globs = sorted(ser_globals(model.ns))
    if globs:
        v = globs[0]
        out += [f"G {v} >= 0", f"G ({v} <= 1 || inflight({r}) == 0)", f"G {v} != 1"]
    return out


def _agree(model: LoadedModel, text: str, k: int) -> str:
    """Both engines' verdict on `text` (asserted equal); a violation's certificate, with
    and without weak fairness, is checked too."""
    ns = model.ns
    formula = parse_formula(text, ser_globals(ns), frozenset(ns.request_names))
    assert isinstance(formula, Unary)
    expected = search(ns, formula, k, max_states=200_000).verdict
    for fairness in ("none", "weak"):
        found, cert = by_unfolding(model, text, formula, k, fairness, 200_000)
        assert found.verdict == expected, (text, k, fairness)
        assert (cert is not None) == (found.verdict == "violated")
        if cert is not None:
            _certified(cert)
    return expected


def _certified(cert: dict[str, Any]) -> None:
    report = check_certificate(dump_certificate(cert))
    assert report.status == "valid", report


def _weakly_fair(model: LoadedModel, text: str, k: int) -> None:
    """`G p` under weak fairness: the fair search's verdict is the one without fairness,
    and a violation found without fairness, continued fairly, is a certified fair lasso."""
    ns = model.ns
    formula = parse_formula(text, ser_globals(ns), frozenset(ns.request_names))
    assert isinstance(formula, Unary)
    fair = search(ns, formula, k, fairness="weak", max_states=200_000)
    free, cert = safety_fairly(model, text, formula, k, 200_000)
    assert fair.verdict == free.verdict, (text, k)
    assert (cert is not None) == (free.verdict == "violated")
    if cert is not None:
        assert cert["ltl"]["fairness"] == "weak"
        _certified(cert)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_the_same_verdicts_as_the_explicit_search_on_the_examples(path: Path) -> None:
    model = load_model(path)
    verdicts = {_agree(model, text, k) for k in (1, 2) for text in _formulas(model, k)}
    assert verdicts <= {"holds", "violated"}
    for k in (1, 2):
        for text in _formulas(model, k):
            _weakly_fair(model, text, k)


def test_both_verdicts_occur() -> None:
    model = load_model(ROOT / "examples" / "intro-lock.ser")
    assert _agree(model, "G inflight(main) <= 0", 1) == "violated"
    assert _agree(model, "G (done(main) <= 2)", 2) == "holds"


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(PRELUDES, PROGRAMS)
def test_the_same_verdicts_on_random_programs(prelude: str,
                                               requests: list[tuple[str, str]]) -> None:
    """Random programs have loops, `?`, yields inside branches: what a step touches is
    read from the program and checked against the NS before it is believed."""
    src = prelude + "\n".join(f"request {name} {{ {body} }}" for name, body in requests)
    try:
        model = load_source(src, "ser", "random.ser", state_bound=2_000)
    except SerError:
        return
    for k in (1, 2):
        assert _pdnet_views(PDNet(model.ns, k)) == \
            _system_views(System(model.ns, k, symmetric=False))
        for text in _formulas(model, k):
            _agree(model, text, k)
            _weakly_fair(model, text, k)


def test_a_step_touches_only_the_globals_it_reads_or_writes() -> None:
    model = load_source("request a { X := 1 - X; yield; Y := 1; 0 }", "ser", "t.ser")
    net = PDNet(model.ns, 2)
    touched = {loc: [net.names[i] for i in net._groups(loc)[0]]
               for loc in model.ns.local_states}
    assert sorted(map(tuple, touched.values())) == [(), ("X",), ("Y",)]


def test_a_touched_set_the_ns_contradicts_is_not_believed() -> None:
    model = load_source("request a { X := 1 - X; Y := 1 - Y; 0 }", "ser", "t.ser")
    net = PDNet(model.ns, 1)
    (loc,) = [e.local for e in model.ns.requests]
    assert net._group(loc, (net.names.index("X"),)) is None  # it writes Y too


def test_the_budget_is_work_not_time() -> None:
    model = load_model(ROOT / "examples" / "intro-lock.ser")
    ns = model.ns
    formula = parse_formula("G (done(main) <= 3)", ser_globals(ns),
                            frozenset(ns.request_names))
    assert isinstance(formula, Unary)
    small = [unfold_safety(PDNet(ns, 3), formula.arg, 50) for _ in range(2)]
    assert small[0] == small[1] and small[0].verdict == "undecided"
    assert unfold_safety(PDNet(ns, 3), formula.arg, 10**6).verdict == "holds"


def test_concurrent_steps_are_not_interleaved() -> None:
    """Requests on different globals: the prefix grows with the requests, the
    interleavings with their product."""
    src = "\n".join(f"request {r} {{ if ({v} == 0) {{ {v} := 1; yield; {v} := 0 }} "
                    f"else {{ 0 }}; 0 }}" for r, v in (("a", "A"), ("b", "B"), ("c", "C")))
    model = load_source(src, "ser", "t.ser")
    ns = model.ns
    formula = parse_formula("G (A <= 3)", ser_globals(ns), frozenset(ns.request_names))
    assert isinstance(formula, Unary)
    found = unfold_safety(PDNet(ns, 3), formula.arg, 10**6)
    full = search(ns, formula, 3, symmetry=False, reduction=False)
    assert found.verdict == full.verdict == "holds"
    assert found.events < full.states


def pdnet_markings(net: PDNet) -> list[dict[int, object]]:
    """The reachable markings of the PDNet (variable -> value), by firing its steps one
    at a time (no unfolding)."""
    start = dict(net.initial)
    seen = {tuple(sorted(start.items(), key=repr))}
    todo, out = [start], []
    while todo:
        m = todo.pop()
        out.append(m)
        for i in range(net.k):
            for step in net.steps_of((net.slot_var(i), m[net.slot_var(i)])):
                if all(m[var] == value for var, value in step.pre):
                    nxt = {**m, **dict(step.post)}
                    key = tuple(sorted(nxt.items(), key=repr))
                    if key not in seen:
                        seen.add(key)
                        todo.append(nxt)
    return out


def _pdnet_views(net: PDNet) -> set[tuple[object, ...]]:
    """What the atoms can see in each reachable marking of the PDNet."""
    return {_view(net, m) for m in pdnet_markings(net)}


def _view(net: PDNet, m: dict[int, object]) -> tuple[object, ...]:
    globals_ = tuple(m[i] for i in range(net.width)) if net.ns.kind == "ser" else ()
    slots = sorted((v[:2] if v[0] == "flying" else v) for v in
                   (m[net.slot_var(i)] for i in range(net.k))
                   if isinstance(v, tuple) and v[0] in ("flying", "answered"))
    return globals_, tuple(slots)


def _system_views(system: System) -> set[tuple[object, ...]]:
    names = PDNet(system.ns, system.k).names
    start = system.initial()
    seen, todo, views = {start}, [start], set()
    while todo:
        s = todo.pop()
        o = system.observe(s)
        globals_ = tuple(o.globals_.get(n, 0) for n in names) if system.ser else ()
        slots = sorted([("flying", r) for r, n in o.inflight.items() for _ in range(n)]
                       + [("answered", r, v) for (r, v), n in o.answered.items()
                          for _ in range(n)])
        views.add((globals_, tuple(slots)))
        for _, t in system.raw_moves(s):
            if t not in seen:
                seen.add(t)
                todo.append(t)
    return views


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_the_pdnet_sees_what_the_program_sees(path: Path) -> None:
    """The PDNet's reachable markings, fired one step at a time, show the atoms exactly
    the values the program's own executions show (up to which request is which)."""
    ns = load_model(path).ns
    for k in (1, 2):
        assert _pdnet_views(PDNet(ns, k)) == _system_views(System(ns, k, symmetric=False))
