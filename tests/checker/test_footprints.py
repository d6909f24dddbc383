"""Footprints narrowed by known locals (the prover's walk, given to the checker in the
certificate and checked as the steps run) and deferred steps into a wait
(docs/certificates.md, "Given footprints", "Deferred steps")."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from checker.certificate import Limits
from checker.program import parse_program
from checker.steps import enumerate_steps
from checker.waits import deferred
from prover.frontend import ast
from prover.frontend.footprint import footprint
from prover.frontend.parser import parse
from tests.checker.proved import proved, status

Json = Any

# Two accounts chosen by input, a lock each; the audit takes both. The transfer's first
# step makes its choice and tests its lock at once: at L = 1 it lands in a wait.
PICKED = """global B0 := 1, B1 := 1;
request move {
  i := ?(0..1);
  if (i == 0) { while (L0 == 1) { yield }; L0 := 1 } else { while (L1 == 1) { yield }; L1 := 1 };
  yield;
  if (i == 0) { B0 := (B0 + 1) % 3; L0 := 0 } else { B1 := (B1 + 1) % 3; L1 := 0 };
  i
}
request audit {
  while (L0 == 1) { yield }; L0 := 1; yield;
  while (L1 == 1) { yield }; L1 := 1;
  s := B0 * 3 + B1; L0 := 0; L1 := 0; s
}
"""


def _body(src: str) -> ast.Expr:
    return parse(src, "<t>").requests[0].body


def test_a_condition_the_locals_settle_is_walked_into_its_branch_only() -> None:
    body = _body("request r { i := 2; if (i == 0) { A0 := 1 } else { A2 := 1 }; 0 }")
    assert footprint(body, ()).touched == {"A2"}
    assert footprint(body).touched == {"A0", "A2"}  # no locals given: the syntax's


def test_the_walk_keeps_only_what_it_can_know() -> None:
    chosen = _body("request r { i := ?(0..1); if (i == 0) { A0 := 1 } else { A1 := 1 }; 0 }")
    assert footprint(chosen, ()).touched == {"A0", "A1"}
    from_global = _body("request r { i := G; if (i == 0) { A0 := 1 } else { A1 := 1 }; 0 }")
    assert footprint(from_global, ()).touched == {"G", "A0", "A1"}
    # `&&` is never folded into a value (quirk Q1), but decides a condition
    anded = _body("request r { i := 1; j := (i && 5); "
                  "if (j == 5) { A0 := 1 } else { A1 := 1 }; 0 }")
    assert footprint(anded, ()).touched == {"A0", "A1"}
    cond = _body("request r { i := 1; if (i == 1 && i < 2) { A0 := 1 } else { A1 := 1 }; 0 }")
    assert footprint(cond, ()).touched == {"A0"}
    # what a loop assigns is known in no round, nor after it
    loop = _body("request r { i := 0; while (C < 2) { i := i + 1; C := C + 1 }; "
                 "if (i == 0) { A0 := 1 } else { A1 := 1 }; 0 }")
    assert footprint(loop, ()).touched == {"C", "A0", "A1"}
    # the state's own locals, unset ones reading 0
    later = _body("request r { if (i == 0) { A0 := 1 } else { A1 := 1 }; 0 }")
    assert footprint(later, ()).touched == {"A0"}
    assert footprint(later, (("i", 1),)).touched == {"A1"}
    # a division by zero is the step's to meet, not the footprint's
    zero = _body("request r { i := 0; if (1 / i == 0) { A0 := 1 } else { A1 := 1 }; 0 }")
    assert footprint(zero, ()).touched == {"A0", "A1"}


@pytest.fixture(scope="module")
def picked(tmp_path_factory: pytest.TempPathFactory) -> Json:
    return proved(tmp_path_factory.mktemp("picked"), PICKED)



def test_the_proof_gives_narrow_footprints_and_is_valid(picked: Json) -> None:
    assert picked["producer"]["engine"] == "reduction"
    given = picked["reduction"]["footprints"]
    assert given and all(len(f["reads"]) < 4 for f in given)
    assert status(picked) == ("valid", None)


def _narrowest(cert: Json) -> Json:
    return min(cert["reduction"]["footprints"], key=lambda f: (len(f["reads"]), f["local"]))


@pytest.mark.parametrize(("forge", "code"), [
    ("drop a read", "E-FOOTPRINT"), ("a write it never makes", "E-FOOTPRINT"),
    ("no such state", "E-NAME"), ("not a name", "E-SCHEMA"), ("a float", "E-JSON"),
    ("a local's name", "E-DOMAIN")])
def test_a_forged_footprint_is_rejected(picked: Json, forge: str, code: str) -> None:
    cert = copy.deepcopy(picked)
    f = _narrowest(cert)
    if forge == "drop a read":
        f["reads"] = f["reads"][1:] if f["reads"] else ["B0"]
        f["writes"] = [w for w in f["writes"] if w in f["reads"]]
    elif forge == "a write it never makes":
        f["writes"] = [*f["writes"], next(x for x in ("B0", "B1", "L0", "L1")
                                          if x not in f["reads"] and x not in f["writes"])]
    elif forge == "no such state":
        f["local"] = [f["local"][0], f["local"][1] + " "]
    elif forge == "not a name":
        f["reads"] = [1]
    elif forge == "a float":
        f["local"] = [f["local"][0], 1.0]
    else:
        f["reads"] = [*f["reads"], "i"]
    assert status(cert) == ("unusable", code)


def _steps(src: str) -> Any:
    init, blocks = parse_program(src)
    names = sorted({"L", "G"})
    dom = {x: (0, 1) for x in names}
    return enumerate_steps(blocks, dom, Limits(), [], {}), dom


def test_a_wait_entered_after_local_choices_is_deferred() -> None:
    steps, dom = _steps("request r { i := ?(0..1); j := i + 1; while (L == 1) { yield }; "
                        "L := 1; yield; L := 0; j }")
    waits = deferred(steps, dom, [])
    assert waits and all(m.src in steps.entries and m.reads == (1,) for m in waits)


def test_a_wait_after_reading_a_global_is_not_deferred() -> None:
    """`x := G` before the wait: waiting in S keeps a value of G that E, taking the step
    later, would read afresh. Deferring it would hide a stale read."""
    steps, dom = _steps("request r { x := G; while (L == 1) { yield }; L := 1; yield; "
                        "G := x + 1; L := 0; x }")
    assert deferred(steps, dom, []) == set()


def test_a_step_that_writes_is_not_deferred() -> None:
    steps, dom = _steps("request r { G := 1; while (L == 1) { yield }; L := 1; yield; "
                        "L := 0; 0 }")
    assert deferred(steps, dom, []) == set()
