"""Lock coupling (docs/certificates.md, "Two-phase locking", rule 11): with a tree of locks,
a request takes its first lock anywhere and each later one while it holds that lock's
parent, none twice (Silberschatz and Kedem's tree protocol), and is serializable though it
releases before it acquires. The checker rejects a tree that is no tree over the locks, a
parent the walk does not see held, a lock taken twice, a root taken after another lock, a
tree beside readers, sequences or ticket locks, and a correct twin's tree on a buggy walk.
Loops over a position (`while (p < K)`) are followed round by round."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from tests.checker.test_locking import _cert, _claim, _rejected
from tests.checker.test_parts import _decide, _status

Json = Any


def _walk(k: int, early: bool = False) -> str:
    """K nodes, a lock each; bump flips every node walking hand over hand from the head,
    scan answers whether it saw them all alike (`early`: bump releases a node, yields,
    and only then takes the next: a scan overtakes it)."""
    def hop(i: int, body: str) -> str:
        take = f"while (L{i} == 1) {{ yield }}; L{i} := 1"
        if i == 0:
            return f"{take}; {body}; yield"
        if early:
            return f"L{i - 1} := 0; yield; {take}; {body}; yield"
        return f"{take}; L{i - 1} := 0; {body}; yield"
    bump = "; ".join(hop(i, f"V{i} := 1 - V{i}") for i in range(k))
    scan = "; ".join(hop(i, f"a{i} := V{i}") for i in range(k))
    same = " && ".join(f"a{i} == a0" for i in range(1, k))
    return f"""request bump {{ {bump}; L{k - 1} := 0; 1 }}
request scan {{ {scan}; L{k - 1} := 0; if ({same}) {{ 1 }} else {{ 0 }} }}
"""


WALK = _walk(3)
TREE = {"L1": "L0", "L2": "L1"}


def test_a_walk_hand_over_hand_is_proved_by_its_tree(tmp_path: Path) -> None:
    found = _claim(WALK)
    assert found == {"locks": ["L0", "L1", "L2"], "guards": {"V0": "L0", "V1": "L1",
                                                             "V2": "L2"}, "tree": TREE}
    status, code, message = _status(_cert(WALK))
    assert (status, code) == ("valid", None), message
    status, cert = _decide(tmp_path, _walk(8), locking=True)
    assert status == "serializable" and cert["locking"]["tree"]["L7"] == "L6"


def test_a_walk_that_lets_go_first_gets_its_counterexample(tmp_path: Path) -> None:
    buggy = _walk(3, early=True)
    assert _claim(buggy) is None
    _rejected(_cert(buggy, _claim(WALK)), "not holding its parent L0")
    status, cert = _decide(tmp_path, buggy, locking=True)
    assert status == "not_serializable"


def _with(tree: Json) -> Json:
    claim = copy.deepcopy(_claim(WALK))
    claim["tree"] = tree
    return claim


@pytest.mark.parametrize("tree, needle", [
    ({"L1": "L0", "L2": "L0"}, "not holding its parent L0"),  # L2 is taken holding L1 only
    ({"L0": "L1", "L2": "L1"}, "L1 not holding its parent (none: the root)"),
    ({"L1": "L0"}, "no tree over the locks"),  # two roots: a forest is no tree
    ({}, "no tree over the locks"),
    ({"L0": "L2", "L1": "L0", "L2": "L1"}, "no tree over the locks"),  # a cycle, no root
    ({"L1": "L0", "L2": "L1", "L3": "L2"}, "no tree over the locks"),  # a name no lock
    ({"L1": "L0", "L2": "l1"}, "no tree over the locks"),  # a name that almost matches
    ({"L1": "L0", "L2": "V1"}, "no tree over the locks"),  # a guarded global as a parent
])
def test_a_forged_tree_is_rejected(tree: Json, needle: str) -> None:
    _rejected(_cert(WALK, _with(tree)), needle)


@pytest.mark.parametrize("extra", [
    {"shared": [{"writer": "L0", "readers": "R"}]},
    {"sequences": [{"sequence": "S"}]},
    {"tickets": [{"serving": "S", "next": "T"}]},
])
def test_a_tree_stands_beside_no_other_reading(extra: Json) -> None:
    source = WALK + "request other { R := 0; S := 0; T := 0; 0 }\n"
    _rejected(_cert(source, _with(TREE) | extra))


@pytest.mark.parametrize("source, needle", [
    # a lock taken twice: released, then taken again holding its parent
    ("request r { while (L0 == 1) { yield }; L0 := 1; while (L1 == 1) { yield }; L1 := 1; "
     "L1 := 0; while (L1 == 1) { yield }; L1 := 1; V1 := 1; L1 := 0; L0 := 0; 1 }",
     "takes lock L1 twice"),
    # the root taken after another lock
    ("request r { while (L1 == 1) { yield }; L1 := 1; while (L0 == 1) { yield }; L0 := 1; "
     "V0 := 1; L0 := 0; L1 := 0; 1 }", "not holding its parent (none: the root)"),
    # everything released, then a child taken: its parent is not held
    ("request r { while (L0 == 1) { yield }; L0 := 1; L0 := 0; while (L1 == 1) { yield }; "
     "L1 := 1; V1 := 1; L1 := 0; 1 }", "not holding its parent L0"),
    # data touched after its lock is given back
    ("request r { while (L0 == 1) { yield }; L0 := 1; while (L1 == 1) { yield }; L1 := 1; "
     "L0 := 0; V0 := 1; L1 := 0; 1 }", "touched without its lock"),
])
def test_a_request_outside_the_tree_protocol_is_rejected(source: str, needle: str) -> None:
    claim = {"locks": ["L0", "L1"], "guards": {"V0": "L0", "V1": "L1"}, "tree": {"L1": "L0"}}
    _rejected(_cert(source + "\nrequest w { while (L0 == 1) { yield }; L0 := 1; V0 := 2; "
                    "while (L1 == 1) { yield }; L1 := 1; V1 := 2; L1 := 0; L0 := 0; 0 }\n",
                    claim), needle)


def test_a_second_tree_through_another_lock_is_no_tree() -> None:
    """Two requests that each take a lock of the walk and a lock M of their own would
    order themselves through M one way and through the walk the other: M in a forest of
    its own is refused, and M as a leaf refuses the request that takes it after the walk's
    lock."""
    source = WALK + """request m1 { while (L0 == 1) { yield }; L0 := 1; V0 := 5; L0 := 0;
  while (M == 1) { yield }; M := 1; W := 1; M := 0; 1 }
"""
    claim = _with(TREE)
    claim["locks"] = ["L0", "L1", "L2", "M"]
    claim["guards"] = claim["guards"] | {"W": "M"}
    _rejected(_cert(source, claim), "no tree over the locks")
    claim["tree"] = TREE | {"M": "L2"}
    _rejected(_cert(source, claim), "not holding its parent L2")


def test_a_loop_over_a_position_is_followed_round_by_round() -> None:
    """An audit that takes every lock in a `while` over its index, then sums: two-phase,
    read round by round; the same loop that gives each lock back before the next is not
    (a lock taken after a release), nor one whose rounds leave the index as it was."""
    take = " else ".join(f"if (i == {k}) {{ while (L{k} == 1) {{ yield }}; L{k} := 1 }}"
                         for k in range(3)) + " else { 0 }"
    audit = (f"request audit {{ i := 0; while (i < 3) {{ {take}; i := i + 1 }}; "
             "s := B0 + B1 + B2; L0 := 0; L1 := 0; L2 := 0; s }\n")
    put = ("request put { k := ?(0..2); " + " else ".join(
        f"if (k == {k}) {{ while (L{k} == 1) {{ yield }}; L{k} := 1; B{k} := B{k} + 1; "
        f"L{k} := 0 }}" for k in range(3)) + " else { 0 }; 1 }\n")
    assert _claim(audit + put) == {"locks": ["L0", "L1", "L2"],
                                   "guards": {"B0": "L0", "B1": "L1", "B2": "L2"}}
    status, code, message = _status(_cert(audit + put))
    assert (status, code) == ("valid", None), message
    free = audit.replace("i := i + 1 }", "i := i + 1; L0 := 0 }")
    assert _claim(free + put) is None
    stuck = audit.replace("i := i + 1 }", "i := i + 0 }")
    _rejected(_cert(stuck + put, _claim(audit + put)), "ends holding other locks")
