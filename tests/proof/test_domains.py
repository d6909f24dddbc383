"""Growing the reduction's domains (prover/reduction/table.py): a global that grows past
every constant of the program round after round is named with the line that writes it,
quickly, instead of the table being rebuilt for thousands of values."""

from __future__ import annotations

import pytest

from prover.frontend.load import load_source
from prover.reduction.table import Limits, TableTooLarge, grow_domains

VERSION = """request update {
  ok := 0;
  while (ok == 0) {
    v := V; d := D;
    yield;
    if (V == v) { D := (d + 1) % 3; V := v + 1; ok := 1 } else { 0 }
  };
  d
}
request read { D }
"""


def test_an_unbounded_version_is_named_with_its_line() -> None:
    steps = load_source(VERSION, "ser", lazy=True).steps
    assert steps is not None
    with pytest.raises(TableTooLarge, match=r"global V grows without bound \(line 6 ") as err:
        grow_domains(steps, Limits())
    assert "past every constant of the program, 2" in str(err.value)  # after its rounds


def test_a_guarded_counter_within_the_constants_still_grows() -> None:
    steps = load_source("request inc { if (C < 40) { C := C + 1 } else { 0 }; C }", "ser",
                        lazy=True).steps
    assert steps is not None
    assert grow_domains(steps, Limits()).domains["C"] == tuple(range(41))


def test_a_round_that_cannot_fit_is_not_stepped(monkeypatch: pytest.MonkeyPatch) -> None:
    """The local states of a round, on the grown domains, already step more valuations
    than the limit: the engine gives up before stepping that round (the same outcome, a
    round sooner; buffer8 of the shared set: 22 s), and no round it steps fails."""
    from prover.reduction import table

    source = "request put { if (N < 8) { N := N + 1 } else { 0 }; S0 := N; S1 := S0; 0 }"
    steps = load_source(source, "ser", lazy=True).steps
    assert steps is not None
    rounds: list[str] = []
    real = table.build_table

    def counted(*args: object, **kwargs: object) -> table.Table:
        rounds.append("raised")
        got = real(*args, **kwargs)  # type: ignore[arg-type]
        rounds[-1] = "stepped"
        return got

    monkeypatch.setattr(table, "build_table", counted)
    assert grow_domains(steps, Limits()).domains["N"] == tuple(range(9))
    rounds.clear()
    with pytest.raises(TableTooLarge, match="more than 20 "):
        grow_domains(steps, Limits(max_valuations=20))
    assert rounds and set(rounds) == {"stepped"}
