"""prover/certificate/groups.py: sums of many local states with one coefficient become a
named group, listed once; small sums and other terms are left as they are."""

from __future__ import annotations

from typing import Any

from prover.certificate.groups import GROUP_MIN, grouped


def _local(i: int) -> dict[str, Any]:
    return {"place": {"local": ["r", f"({{}}, {i})"]}}


def test_a_large_sum_becomes_a_group_named_once() -> None:
    many = [[1, _local(i)] for i in range(GROUP_MIN)]
    f = {"and": [{"cmp": "=", "lhs": {"sum": [[1, {"place": {"value": "L"}}], *many]},
                  "rhs": {"const": 0}},
                 {"or": [{"cmp": "<=", "lhs": {"sum": list(reversed(many))},
                          "rhs": {"const": 0}}]}]}
    out, groups = grouped(f)
    assert groups == [[["r", f"({{}}, {i})"] for i in range(GROUP_MIN)]]
    assert out["and"][0]["lhs"]["sum"] == [[1, {"place": {"value": "L"}}],
                                           [1, {"place": {"group": 0}}]]
    assert out["and"][1]["or"][0]["lhs"]["sum"] == [[1, {"place": {"group": 0}}]]


def test_small_sums_and_other_coefficients_stay() -> None:
    few = {"sum": [[1, _local(0)], [1, _local(1)], [-1, _local(2)]]}
    out, groups = grouped({"cmp": "<=", "lhs": few, "rhs": {"const": 1}})
    assert groups == [] and out["lhs"] == few
