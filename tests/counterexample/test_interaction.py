"""Interaction groups and twins (prover/engines/interaction.py) and the explicit search
that spawns by them: the same verdicts, counterexample sizes and exhaustive claims as the
unreduced search, far fewer states on many independent handlers."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.many_handlers import (
    cache_locked,
    cache_unlocked_get,
    independent_lost_updates,
    one_global,
    one_global_distinct,
)
from prover.engines import replay_program
from prover.engines.explicit import (
    ProgramTables,
    SearchResult,
    Tables,
    find_counterexample,
    search,
    tables,
)
from prover.engines.interaction import groups, names, twins
from prover.frontend.load import load_model
from prover.frontend.parser import parse
from prover.frontend.steps import ProgramSteps
from prover.serial.ondemand import SerialOnDemand

from .conftest import BENCH, EXAMPLES, expected, needs_bench


def _steps(text: str) -> ProgramSteps:
    return ProgramSteps(parse(text), source=text)


def _unreduced(steps: ProgramSteps) -> Tables:
    """The search's view of `steps` with every request spawnable from every state."""
    tab = tables(steps)
    requests = [r for r, _ in steps.entries]
    tab.restrict(requests, dict.fromkeys(requests, 0), {r: r for r in requests})
    return tab


def _both(steps: ProgramSteps, max_requests: int = 64, max_inflight: int | None = None,
          max_states: int = 2_000_000) -> tuple[SearchResult, SearchResult]:
    def run(tab: Tables) -> SearchResult:
        return search(tab, max_requests=max_requests, max_inflight=max_inflight,
                      max_states=max_states)

    return run(tables(steps)), run(_unreduced(steps))


def test_names_reads_and_writes_anywhere_in_the_body() -> None:
    prog = parse("request a { x := X; yield; if (x == 1) { Y := 2 } else { 0 }; Z }")
    got = names(prog.requests[0].body)
    assert got.reads == {"X", "Z"} and got.writes == {"Y"}


def test_groups_join_handlers_that_write_what_another_names() -> None:
    prog = parse("""
        request r1 { X }
        request r2 { X }
        request w { Y := 1; 0 }
        request rw { y := Y; Z := y; 0 }
        request z { Z }
        request alone { 7 }
    """)
    got = groups(prog)
    # Two readers of a global nobody writes do not interact; writes chain w, rw, z.
    assert got["r1"] != got["r2"]
    assert got["w"] == got["rw"] == got["z"] == 2
    assert len({got["r1"], got["r2"], got["w"], got["alone"]}) == 4


def test_groups_of_the_many_handler_families() -> None:
    assert len(set(groups(parse(independent_lost_updates(5))).values())) == 5
    assert set(groups(parse(one_global(5))).values()) == {0}
    cache = groups(parse(cache_unlocked_get(2)))
    assert cache["get0"] == cache["incr0"] == cache["add0"] != cache["get1"]
    assert cache["get1"] == cache["incr1"] == cache["add1"]


def test_twins_are_requests_with_the_same_body() -> None:
    steps = _steps(one_global(3) + "request other { X := 5; 0 }\n")
    assert twins(steps.entries) == {"h0": "h0", "h1": "h0", "h2": "h0", "other": "other"}
    assert set(twins(_steps(independent_lost_updates(3)).entries).values()) == {
        "h0", "h1", "h2"}


def test_twins_need_the_same_initial_local_states() -> None:
    """A network system may start a request in several local states: a request that
    starts in fewer of them is no twin (a serial run of the other may use the rest)."""
    got = twins([("a", "l1"), ("a", "l2"), ("b", "l1"), ("c", "l2"), ("c", "l1")])
    assert got == {"a": "a", "b": "b", "c": "a"}


def test_spawnable_keeps_a_state_in_its_group() -> None:
    tab = tables(_steps(cache_unlocked_get(2)))
    get0, incr1 = tab.entries[0], tab.entries[4]
    assert tab.spawnable((), ()) == tuple(range(6))
    t0 = tab.token(get0[0], get0[1])
    assert tab.spawnable((t0,), ()) == (0, 1, 2)
    p1 = tab.pair(incr1[0], "1")
    assert tab.spawnable((), (p1,)) == (3, 4, 5)
    assert tables(_steps(one_global(4))).spawnable((), ()) == (0,)


SMALL = {
    "independent-3": independent_lost_updates(3),
    "one-global-3": one_global(3),
    "cache-unlocked-2": cache_unlocked_get(2),
    "mixed": one_global(2) + "request a { y := Y; yield; Y := y + 2; y }\n"
    + "request r { Y }\nrequest s { 3 }\n",
}


@pytest.mark.parametrize("name", sorted(SMALL))
def test_same_shortest_counterexample_as_unreduced(name: str) -> None:
    steps = _steps(SMALL[name])
    reduced, full = _both(steps, max_requests=4)
    assert reduced.counterexample is not None and full.counterexample is not None
    assert reduced.counterexample.requests == full.counterexample.requests
    assert reduced.counterexample.minimal
    assert reduced.states < full.states
    cex = reduced.counterexample
    assert replay_program(steps, cex.events) == cex.completed
    assert not SerialOnDemand(steps).is_serial(cex.completed)


def test_exhaustive_claims_agree_with_unreduced() -> None:
    """A serializable cache over two keys: both searches explore every execution of
    at most 3 requests and find nothing; so do they on a buggy one below its bound."""
    reduced, full = _both(_steps(cache_locked(2)), max_requests=3)
    for res in (reduced, full):
        assert res.counterexample is None and res.complete and res.exhausted_requests == 3
    assert reduced.states < full.states
    reduced, full = _both(_steps(cache_unlocked_get(2)), max_requests=2)
    for res in (reduced, full):
        assert res.counterexample is None and res.complete and res.exhausted_requests == 2


def test_bounded_concurrency_agrees_with_unreduced() -> None:
    reduced, full = _both(_steps(cache_unlocked_get(2)), max_requests=4, max_inflight=1)
    assert (reduced.counterexample is None) == (full.counterexample is None)
    assert reduced.complete == full.complete


def test_states_grow_linearly_with_independent_handlers() -> None:
    small = find_counterexample(_steps(independent_lost_updates(20)))
    large = find_counterexample(_steps(independent_lost_updates(80)))
    for res in (small, large):
        assert res.counterexample is not None and res.counterexample.requests == 2
    assert large.states <= 4.5 * small.states
    unreduced = search(_unreduced(_steps(independent_lost_updates(80))))
    assert unreduced.states > 10 * large.states


def test_cache_counterexample_at_sixteen_keys() -> None:
    res = find_counterexample(_steps(cache_unlocked_get(16)))
    cex = res.counterexample
    assert cex is not None and cex.requests == 3 and cex.minimal
    assert {r for (r, _), _ in cex.completed} <= {"get0", "incr0", "add0"}
    assert res.states < 20_000


def test_one_global_two_hundred_twins() -> None:
    res = find_counterexample(_steps(one_global(200)))
    assert res.counterexample is not None and res.counterexample.completed == (
        (("h0", "0"), 2),)


def _ser_models() -> list[Path]:
    paper = [BENCH / n for n in expected() if n.endswith(".ser")]
    return sorted(EXAMPLES.glob("*.ser")) + paper


@needs_bench
@pytest.mark.parametrize("path", _ser_models(), ids=lambda p: p.name)
def test_models_same_first_counterexample_as_unreduced(path: Path) -> None:
    """On the examples and the paper's Ser programs, the reduced search finds the very
    counterexample the unreduced one finds (or agrees there is none up to 3 requests)."""
    steps = load_model(path, lazy=True).steps
    assert steps is not None
    reduced, full = _both(steps, max_requests=3, max_states=200_000)
    if full.stop_reason == "states":
        pytest.skip("too large for the unreduced search")
    assert reduced.states <= full.states
    if full.counterexample is None:
        assert reduced.counterexample is None
        assert reduced.exhausted_requests == full.exhausted_requests
    else:
        assert reduced.counterexample is not None
        assert reduced.counterexample.completed == full.counterexample.completed


def test_the_search_oracle_gives_the_same_explanation() -> None:
    """The pipeline hands the explanation the serial automaton the search built for the
    counterexample's group: the explanation is the one built from scratch."""
    from prover.certificate.explain import explain

    steps = _steps(one_global(3) + "request a { y := Y; yield; Y := y + 2; y }\n")
    tab = tables(steps)
    assert isinstance(tab, ProgramTables)
    cex = search(tab).counterexample
    assert cex is not None
    oracle = tab.oracle(cex.completed)
    assert oracle is not None
    assert explain(steps, cex, membership=oracle) == explain(steps, cex)
    assert [r for r, _ in explain(steps, cex).serial_answers] == ["h0", "h1", "h2"]
    assert tab.oracle(((("h0", "0"), 1), (("a", "0"), 1))) is None  # two groups


def test_one_request_alone_finds_the_bug_of_a_wide_group() -> None:
    """Forty distinct handlers over one global: the search of one request's instances
    alone finds the lost update in a fraction of the states of the full layer of pairs;
    its counterexample claims only the lower bound it was given."""
    steps = _steps(one_global_distinct(40))
    tab = tables(steps)
    assert tab.widest == 40
    full = search(tab, max_requests=2)
    alone = search(tab, max_requests=2, alone=True, lower_bound_known=2)
    assert full.counterexample is not None and alone.counterexample is not None
    assert alone.counterexample.completed == ((("h0", "0"), 2),)
    assert alone.states * 10 < full.states
    unproved = search(tab, max_requests=2, alone=True).counterexample
    assert unproved is not None and not unproved.minimal


def test_wide_group_rounds_report_minimal_counterexamples() -> None:
    res = find_counterexample(_steps(one_global_distinct(200)))
    cex = res.counterexample
    assert cex is not None and cex.requests == 2 and cex.minimal
    assert res.states < 20_000  # the first round's full search ran out; alone found it


@pytest.mark.parametrize("text", [one_global(10), one_global_distinct(10)])
def test_a_wide_group_is_explained_by_the_counterexample_requests(text: str) -> None:
    """Ten handlers over one global: the explanation speaks of serial executions of the
    counterexample's own request, and the search hands it that very automaton."""
    from prover.certificate.explain import explain, render_text

    steps = _steps(text)
    tab = tables(steps)
    assert isinstance(tab, ProgramTables)
    cex = find_counterexample(tab).counterexample
    assert cex is not None and cex.completed == ((("h0", "0"), 2),)
    expl = explain(steps, cex)
    assert expl.among == ("h0",) and [r for r, _ in expl.serial_answers] == ["h0"]
    assert explain(steps, cex, membership=tab.oracle(cex.completed)) == expl
    assert "Serial executions of at most 2 requests of h0 from the initial state" \
        in render_text(expl)
    assert "no serial execution of at most 2 requests of h0 answers" in expl.reasons[0] \
        or "every pair can occur serially" in expl.reasons[0]
