"""The search statistics printed after a verdict (issue 50: states, rate, depth, memory)."""

from __future__ import annotations

from prover.run.result import peak_memory_mib, search_line


def test_search_line_names_states_rate_depth_and_memory() -> None:
    line = search_line({"explicit_states": 2500, "exhausted_requests": 3,
                        "peak_memory_mib": 81}, {"explicit_s": 0.5})
    assert line == ("search: 2,500 explicit states, 5,000 states/s; every run of at most "
                    "3 requests searched; peak memory 81 MiB")


def test_search_line_of_a_reduction_and_one_request() -> None:
    line = search_line({"exhausted_requests": 1, "solver_queries": 12,
                        "reduction": {"local_states": 40, "transitions": 300}}, {})
    assert "at most 1 request searched" in line
    assert "40 local states and 300 transitions stepped" in line and "12 solver queries" in line


def test_no_statistics_no_line() -> None:
    assert search_line({"explicit_states": 0, "peak_memory_mib": None}, {}) == ""


def test_peak_memory_is_a_positive_count_here() -> None:
    peak = peak_memory_mib()
    assert peak is None or peak > 0
