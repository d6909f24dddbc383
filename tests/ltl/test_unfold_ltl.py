"""Every LTL-X formula on the unfolding of the Büchi product (prover/ltl/product.py,
prover/ltl/unfold_ltl.py), its prefix grown in the adequate order or by the exploration
tree (prover/ltl/tree.py): the three kinds of counterexample, each replayed and
certified; verdicts equal to the explicit search's on random programs and formulas, with
and without weak fairness; the fallback to the explicit search when only unfair lassos
are found."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checker.api import check_certificate
from prover.certificate.write import dump_certificate
from prover.cli import main
from prover.frontend.load import LoadedModel, load_model, load_source
from prover.ltl.certify import by_unfolding
from prover.ltl.explore import LtlResult, System, search
from prover.ltl.formula import Formula, parse_formula
from prover.ltl.lasso import ser_globals
from prover.ltl.pdnet import PDNet, Step
from prover.ltl.replay import lasso
from prover.ltl.unfold_ltl import Decided, unfold_ltl
from tests.strategies import ser_programs

ROOT = Path(__file__).resolve().parents[2]
LOCK = str(ROOT / "examples" / "intro-lock.ser")
NONSER = (ROOT / "examples" / "intro-nonser.ser").read_text(encoding="utf-8")
FLIP = "request flip { while (1 == 1) { X := 1 - X; yield }; 0 }\n"


def _phi(model: LoadedModel, text: str) -> Formula:
    names = frozenset(e.request for e in model.ns.requests)
    return parse_formula(text, ser_globals(model.ns), names)


def _decide(model: LoadedModel, text: str, k: int, fair: bool = False, tree: bool = False
            ) -> Decided[LtlResult]:  # fmt: skip
    net, phi = PDNet(model.ns, k), _phi(model, text)
    system = System(model.ns, k, symmetric=False)

    def accept(prefix: tuple[Step, ...], loop: tuple[Step, ...], kind: str
               ) -> LtlResult | None:  # fmt: skip
        return lasso(net, system, prefix, loop, phi, 0, fair)

    return unfold_ltl(net, phi, 10**6, accept, tree=tree)


@pytest.mark.parametrize("tree", [False, True])
@pytest.mark.parametrize(("source", "text", "k", "kind"), [
    (NONSER, "F done(main) > 0", 2, "deadlock"),  # no request need ever arrive
    (None, "G F inflight(main) == 0", 2, "livelock"),  # a waiter spins behind the lock
    (FLIP, "F G X == 0", 1, "infinite"),  # X flips forever
])
def test_each_kind_of_counterexample_is_found_and_certified(
        tmp_path: Path, source: str | None, text: str, k: int, kind: str, tree: bool) -> None:
    if source is None:
        model = load_model(LOCK)
    else:
        (tmp_path / "m.ser").write_text(source)
        model = load_model(str(tmp_path / "m.ser"))
    decided = _decide(model, text, k, tree=tree)
    assert decided.verdict == "violated" and decided.kind == kind
    found, cert = by_unfolding(model, text, _phi(model, text), k, "none", 10**6, tree=tree)
    assert found.verdict == "violated" and cert is not None
    res = check_certificate(dump_certificate(cert))
    assert res.status == "valid" and res.verdict == "ltl_violated", res.message


@pytest.mark.parametrize("tree", [False, True])
def test_holds_on_a_complete_prefix(tree: bool) -> None:
    model = load_model(str(ROOT / "examples" / "semaphore.ser"))
    decided = _decide(model, "G (inflight(worker) > 0 -> F inflight(worker) == 0)", 2,
                      tree=tree)
    assert decided.verdict == "holds" and decided.events > 0 and decided.found is None
    assert (decided.runs is not None) == tree and (not tree or decided.runs)


def test_only_unfair_lassos_leave_the_verdict_to_the_explicit_search() -> None:
    model = load_model(LOCK)
    text = "G F inflight(main) == 0"
    found, cert = by_unfolding(model, text, _phi(model, text), 2, "weak", 10**6)
    assert found.verdict == "unfair" and cert is None
    assert search(model.ns, _phi(model, text), 2, fairness="weak").verdict == "holds"


def test_deterministic_and_bounded() -> None:
    model = load_model(LOCK)
    text = "G (inflight(main) > 0 -> F inflight(main) == 0)"
    runs = [_decide(model, text, 2) for _ in range(2)]
    assert runs[0] == runs[1]
    small = _decide_budget(model, text, 2, 20)
    assert small.verdict == "undecided" and small.limit == "work"


def _decide_budget(model: LoadedModel, text: str, k: int, budget: int) -> Decided[LtlResult]:
    return unfold_ltl(PDNet(model.ns, k), _phi(model, text), budget, lambda *_: None)


# ---- the command -----------------------------------------------------------------------


def test_the_command_decides_liveness_on_the_unfolding(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cert = tmp_path / "c.json"
    code = main(["ltl", LOCK, "-f", "G F inflight(main) == 0", "-k", "2", "--engine",
                 "unfold", "--json", "-o", str(cert)])
    doc = json.loads(capsys.readouterr().out)
    assert code == 1 and doc["verdict"] == "violated" and doc["engine"] == "unfold"
    assert doc["events"] > 0 and doc["checker"]["status"] == "valid"


def test_the_command_explores_a_tree_when_asked(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["ltl", LOCK, "-f", "G (inflight(main) > 0 -> F inflight(main) == 0)", "-k",
                 "1", "--engine", "unfold", "--unfolding", "tree"])
    out = capsys.readouterr().out
    assert code == 0 and "from an exploration tree of" in out and " runs over " in out
    assert main(["ltl", LOCK, "-f", "G (L <= 1)", "-k", "2", "--unfolding", "tree"]) == 2
    assert "--unfolding tree needs --engine unfold" in capsys.readouterr().err


def test_the_command_says_when_the_explicit_search_decided(
        capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["ltl", LOCK, "-f", "G F inflight(main) == 0", "-k", "2", "--engine",
                 "unfold", "--fairness", "weak"])
    out, err = capsys.readouterr()
    assert code == 0 and "holds for every execution with at most 2 requests" in out
    assert "found only unfair lassos; the explicit search decided" in err


# ---- the same verdicts as the explicit search ------------------------------------------

def _formula(draw: st.DrawFn, names: list[str], gl: list[str], depth: int) -> str:
    atoms = [f"{g} == {c}" for g in gl for c in (0, 1)] + \
        [f"inflight({r}) >= 1" for r in names] + [f"done({r}) >= 1" for r in names]
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        return f"({draw(st.sampled_from(atoms))})"
    op = draw(st.sampled_from(["!", "G", "F", "&&", "||", "U", "R", "W", "->"]))
    if op in ("!", "G", "F"):
        return f"{op} ({_formula(draw, names, gl, depth - 1)})"
    return f"({_formula(draw, names, gl, depth - 1)}) {op} ({_formula(draw, names, gl, depth - 1)})"


@settings(max_examples=80, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(ser_programs(with_locals=False, results=["X", "1"]), st.data(), st.sampled_from([1, 2]),
       st.sampled_from(["none", "weak"]))
def test_same_verdicts_as_the_explicit_search(text: str, data: st.DataObject, k: int,
                                              fairness: str) -> None:
    model = load_source(text, "ser", "random.ser")
    names = sorted({e.request for e in model.ns.requests})
    formula = _formula(data.draw, names, sorted(ser_globals(model.ns)), 3)
    phi = _phi(model, formula)
    explicit = search(model.ns, phi, k, fairness=fairness, max_states=100_000)
    assert explicit.verdict in ("holds", "violated")
    for tree in (False, True):
        found, cert = by_unfolding(model, formula, phi, k, fairness, 200_000, tree=tree)
        if found.verdict not in ("unfair", "undecided"):
            assert found.verdict == explicit.verdict, (formula, tree)
        if cert is not None:
            res = check_certificate(dump_certificate(cert))
            assert res.status == "valid", res.message
