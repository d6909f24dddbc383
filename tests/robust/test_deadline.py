"""prover/run/deadline.py: each model runs in a forked child that the parent kills at its
deadline; answers, input errors, bugs and memory exhaustion come back as outcomes."""

from __future__ import annotations

import os
import time

import pytest

from prover.errors import SerSyntaxError, SourceLocation
from prover.run.deadline import ChildOutcome, run_isolated, run_isolated_many


def test_value_comes_back() -> None:
    out = run_isolated(lambda: {"answer": [1, 2, 3]}, timeout_s=30)
    assert out.kind == "ok" and out.value == {"answer": [1, 2, 3]}


def test_passthrough_exception_keeps_its_location() -> None:
    loc = SourceLocation("m.ser", 3, 7, "x := ;")

    def fail() -> None:
        raise SerSyntaxError("unexpected ';'", loc)

    out = run_isolated(fail, timeout_s=30, passthrough=(SerSyntaxError,))
    assert out.kind == "raised"
    assert isinstance(out.value, SerSyntaxError)
    assert out.value.location == loc and out.value.message == "unexpected ';'"


def test_passthrough_exception_crosses_without_its_chain(monkeypatch: pytest.MonkeyPatch) -> None:
    """Once `distributed` is imported, tblib pickles every exception with its chain; an
    error raised while handling a parser's exception (which holds closures) must still
    come back as itself, not as an internal error."""
    import copyreg

    def with_chain(exc: BaseException) -> tuple[object, ...]:  # what tblib does
        return (SerSyntaxError, (str(exc), None), {"__context__": exc.__context__})

    monkeypatch.setitem(copyreg.dispatch_table, SerSyntaxError, with_chain)

    def fail() -> None:
        unpicklable = lambda: None  # noqa: E731 (a local closure, like lark's callbacks)
        try:
            raise ValueError(unpicklable)
        except ValueError:
            raise SerSyntaxError("unexpected '}'", None) from None

    out = run_isolated(fail, timeout_s=30, passthrough=(SerSyntaxError,))
    assert out.kind == "raised", out.detail
    assert isinstance(out.value, SerSyntaxError)


def test_other_exception_is_a_bug_with_traceback() -> None:
    def boom() -> None:
        raise ZeroDivisionError("division by zero")

    out = run_isolated(boom, timeout_s=30)
    assert out.kind == "bug" and "ZeroDivisionError" in out.detail


def test_endless_child_is_killed() -> None:
    def forever() -> None:
        while True:
            time.sleep(0.01)

    out = run_isolated(forever, timeout_s=0.2)
    assert out.kind == "timeout" and "time limit" in out.detail


def test_memory_limit_is_memory_outcome() -> None:
    def hog() -> int:
        blocks = []
        while True:
            blocks.append(bytearray(64 * 1024 * 1024))

    out = run_isolated(hog, timeout_s=60, memory_bytes=512 * 1024 * 1024)
    assert out.kind == "memory"


def test_child_dying_is_reported() -> None:
    out = run_isolated(lambda: os._exit(9), timeout_s=30)
    assert out.kind == "died" and "status 9" in out.detail


def test_many_keep_order_and_report_each() -> None:
    seen: list[tuple[int, str]] = []

    def make(i: int):  # type: ignore[no-untyped-def]
        return lambda: i * i

    outs = run_isolated_many(
        [make(i) for i in range(5)], timeout_s=30, jobs=2,
        on_done=lambda i, o: seen.append((i, o.kind)),
    )
    assert [o.value for o in outs] == [0, 1, 4, 9, 16]
    assert sorted(seen) == [(i, "ok") for i in range(5)]


def test_large_answer_is_read_while_the_child_writes() -> None:
    out = run_isolated(lambda: "x" * 5_000_000, timeout_s=30)
    assert out.kind == "ok" and len(out.value) == 5_000_000


def test_outcome_is_frozen() -> None:
    out = ChildOutcome("ok", 1)
    with pytest.raises(AttributeError):
        out.kind = "bug"  # type: ignore[misc]
