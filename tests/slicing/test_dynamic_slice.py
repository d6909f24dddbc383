"""Maximal and minimal dynamic slices on small hand-drawn nets.

Every expected slice is worked out by hand from the definitions of "Maximal and Minimal
Dynamic Petri Net Slicing" (Llorens, Oliver, Silva, Tamarit) for a criterion ⟨M0, Q⟩:

* backward phase B: start from Q; a place of B pulls in every transition with an arc
  into it (self-loops included), a transition pulls in its input places;
* forward phase F (on B): the places of B marked in M0 are reached; a transition of B
  whose input places are all reached fires and reaches its outputs in B;
* filter: backward again from Q ∩ F, over the transitions of F only;
* the maximal slice is the filtered transitions, their input places and Q ∩ F;
* the minimal slice is a shortest firing sequence from M0 ending with a token on every
  place of Q, the transitions it fires, their input places and Q.

Nets are written in Tina `.net` syntax (`tr t a b -> c`: t consumes a and b, produces c).
"""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from prover.petri.dynamic_slice import (
    PTNet,
    _backward_coverability,
    _bfs,
    fire_sequence,
    maximal_phases,
    maximal_slice,
    minimal_slice,
)
from prover.petri.read import read_tina


def net(text: str) -> PTNet:
    return read_tina(text, "<test>")


def ids(n: PTNet, places: Sequence[int] = (), transitions: Sequence[int] = ()) -> set[str]:
    return {n.place_ids[i] for i in places} | {n.transition_ids[j] for j in transitions}


def crit(n: PTNet, *names: str) -> list[int]:
    return [n.place_ids.index(x) for x in names]


FILTER = """
pl a (1)
tr t1 a -> b
tr t2 b c -> q
tr t3 a -> q
"""


def test_filter_removes_a_transition_that_only_feeds_a_dead_one() -> None:
    """B: q pulls in t2 (c, b) and t3 (a); b pulls in t1 (a); c has no producer:
    B = {t1, t2, t3}, places {a, b, c, q}.
    F: a is marked; t1 and t3 fire (reaching b and q); t2 needs c, never reached:
    F = {t1, t3}, places {a, b, q}.
    Filter from q over {t1, t3}: t3 (a); a has no producer among them; t1 only feeds b,
    which nothing kept reads: removed. Maximal slice: {t3}, places {a, q}."""
    n = net(FILTER)
    ph = maximal_phases(n, crit(n, "q"), n.initial)
    assert ids(n, transitions=ph.backward_transitions) == {"t1", "t2", "t3"}
    assert ids(n, ph.backward_places) == {"a", "b", "c", "q"}
    assert ids(n, transitions=ph.forward_transitions) == {"t1", "t3"}
    assert ids(n, ph.forward_places) == {"a", "b", "q"}
    assert ids(n, transitions=ph.slice.transitions) == {"t3"}
    assert ids(n, ph.slice.places) == {"a", "q"}
    mn = minimal_slice(n, crit(n, "q"), n.initial)
    assert mn.status == "sliced" and mn.slice is not None
    assert [n.transition_ids[j] for j in mn.slice.sequence] == ["t3"]


SELF_LOOP = """
pl p (1)
pl r (1)
tr t p r -> p s
tr u p -> q
"""


def test_transition_kept_only_through_a_self_loop_arc() -> None:
    """B from q: u (arc u→q) pulls in p; t has an arc into p (the self-loop t→p, which
    leaves p's count unchanged), so t is taken and pulls in p and r; s is only an
    output of t and never enters B. F: p, r marked; t and u fire. Filter from q: u, p,
    t, r again. Maximal slice: {t, u}, places {p, q, r} (not s: only an output).
    A slice that took only transitions that *add* tokens to the slice would miss t.
    Minimal: u alone marks q: sequence [u], places {p, q}."""
    n = net(SELF_LOOP)
    sl = maximal_slice(n, crit(n, "q"), n.initial)
    assert ids(n, transitions=sl.transitions) == {"t", "u"}
    assert ids(n, sl.places) == {"p", "q", "r"}
    mn = minimal_slice(n, crit(n, "q"), n.initial)
    assert mn.slice is not None
    assert [n.transition_ids[j] for j in mn.slice.sequence] == ["u"]
    assert ids(n, mn.slice.places) == {"p", "q"}
    assert ids(n, transitions=mn.slice.transitions) == {"u"}


CONSERVED = """
pl a (1)
tr t1 a -> b
tr t2 b -> a
tr g a -> a x
tr t3 a b x -> q
"""


def test_uncoverable_criterion_decided_by_backward_coverability() -> None:
    """B from q: t3 (a, b, x); a: t2 (b) and g (a, its self-loop); b: t1 (a); x: g.
    F: a marked, t1, t2, g fire, then t3 (a, b, x all reached). Filter keeps all four.
    Maximal slice: {g, t1, t2, t3}, places {a, b, q, x}: structurally every transition
    is connected to q.
    But a + b = 1 in every reachable marking (t1, t2 move the token, g and t3's inputs
    keep it), so a and b are never marked together and t3 never fires: q is not
    coverable. x is unbounded (g), so the breadth-first search cannot exhaust the
    markings; backward coverability reaches the fixpoint {q}, {a, b}, {2a}, {2b} whose
    upward closure misses M0 = {a}: no minimal slice, decided exactly."""
    n = net(CONSERVED)
    q = crit(n, "q")
    sl = maximal_slice(n, q, n.initial)
    assert ids(n, transitions=sl.transitions) == {"g", "t1", "t2", "t3"}
    assert ids(n, sl.places) == {"a", "b", "q", "x"}
    mn = minimal_slice(n, q, n.initial, max_states=50)
    assert mn.status == "not-coverable" and mn.slice is None
    assert mn.method == "backward coverability"
    # with a finite net the breadth-first search decides it alone
    finite = net(CONSERVED.replace("tr g a -> a x", "pl x (1)"))
    mf = minimal_slice(finite, crit(finite, "q"), finite.initial)
    assert mf.status == "not-coverable" and mf.method.startswith("breadth-first")


def test_uncoverable_through_arc_weights_only() -> None:
    """t needs two tokens on a, M0 has one and nothing produces a. Structurally (sets
    of places) t can fire: maximal slice {t}, places {a, q}. By the token count it
    never can: no minimal slice."""
    n = net("pl a (1)\ntr t a*2 -> q\n")
    sl = maximal_slice(n, crit(n, "q"), n.initial)
    assert ids(n, sl.places, sl.transitions) == {"a", "q", "t"}
    assert minimal_slice(n, crit(n, "q"), n.initial).status == "not-coverable"


def test_structurally_unreachable_criterion_has_empty_slices() -> None:
    """c is never marked and nothing produces it, so t (needing c) never fires and q is
    never reached forward: the filter starts from Q ∩ F = ∅, the maximal slice is
    empty, and there is no minimal slice (decided by the forward phase)."""
    n = net("pl a (1)\ntr t a c -> q\n")
    sl = maximal_slice(n, crit(n, "q"), n.initial)
    assert sl.places == () and sl.transitions == ()
    mn = minimal_slice(n, crit(n, "q"), n.initial)
    assert mn.status == "not-coverable" and "forward" in mn.method


MARKED = """
pl a (1)
pl q (1)
tr t a -> q
tr u q -> z
"""


def test_criterion_already_marked_in_m0() -> None:
    """q holds a token in M0. Maximal: B from q takes t (a); u only consumes q, it has
    no arc into the slice, so it stays out. F: a and q marked, t fires. Filter keeps t.
    Maximal slice: {t}, places {a, q}.
    Minimal: the empty sequence already covers Q: no transition, places {q}."""
    n = net(MARKED)
    sl = maximal_slice(n, crit(n, "q"), n.initial)
    assert ids(n, sl.places, sl.transitions) == {"a", "q", "t"}
    mn = minimal_slice(n, crit(n, "q"), n.initial)
    assert mn.status == "sliced" and mn.slice is not None
    assert mn.slice.sequence == () and mn.slice.transitions == ()
    assert ids(n, mn.slice.places) == {"q"}


def test_criterion_with_two_places_needs_both_marked() -> None:
    """Q = {q1, q2}; t1 and t2 each take the single token of a. Maximal slice: both
    (each can contribute tokens to Q), places {a, q1, q2}. Minimal: q1 and q2 are never
    marked together from M0 = {a}: no slice; from M0 = {2a} (another marking for the
    same net) the shortest sequence has two firings."""
    n = net("pl a (1)\ntr t1 a -> q1\ntr t2 a -> q2\n")
    q = crit(n, "q1", "q2")
    sl = maximal_slice(n, q, n.initial)
    assert ids(n, sl.places, sl.transitions) == {"a", "q1", "q2", "t1", "t2"}
    assert minimal_slice(n, q, n.initial).status == "not-coverable"
    two = (2, 0, 0)
    mn = minimal_slice(n, q, two)
    assert mn.slice is not None and sorted(mn.slice.sequence) == [0, 1]


CHAINS = """
pl s (1)
tr l1 s -> x1
tr l2 x1 -> x2
tr l3 x2 -> q
tr k1 s -> y
tr k2 y -> q
"""


def test_minimal_takes_the_shortest_of_two_routes() -> None:
    """Two routes from s to q: l1 l2 l3 (three firings) and k1 k2 (two). The maximal
    slice has both routes (places {s, x1, x2, y, q}); the minimal one only k1 k2,
    places {s, y, q}."""
    n = net(CHAINS)
    q = crit(n, "q")
    assert len(maximal_slice(n, q, n.initial).transitions) == 5
    mn = minimal_slice(n, q, n.initial)
    assert mn.slice is not None
    assert [n.transition_ids[j] for j in mn.slice.sequence] == ["k1", "k2"]
    assert ids(n, mn.slice.places) == {"s", "y", "q"}


def test_undecided_when_both_bounds_are_hit() -> None:
    """An unbounded generator g and a long chain to q: with a bound of 3 markings
    neither search finishes, and the answer is "undecided", not "no slice"."""
    n = net("pl a (1)\ntr g a -> a b\n" + "".join(
        f"tr c{i} b{'' if i == 0 else i} -> b{i + 1}\n" for i in range(6)
    ) + "tr e b6 b6 -> q\n")
    mn = minimal_slice(n, crit(n, "q"), n.initial, max_states=3)
    assert mn.status == "undecided" and mn.slice is None
    assert minimal_slice(n, crit(n, "q"), n.initial).status == "sliced"


# ---- random nets: the two exact procedures agree; slices are consistent ----------------


@st.composite
def small_nets(draw: st.DrawFn) -> tuple[PTNet, list[int]]:
    np_ = draw(st.integers(2, 5))
    nt = draw(st.integers(1, 6))
    arcs = st.lists(st.tuples(st.integers(0, np_ - 1), st.integers(1, 2)), max_size=3)
    pre, post = [], []
    for _ in range(nt):
        pre.append(tuple(sorted(dict(draw(arcs)).items())))
        post.append(tuple(sorted(dict(draw(arcs)).items())))
    init = tuple(draw(st.lists(st.integers(0, 2), min_size=np_, max_size=np_)))
    n = PTNet(
        "rnd", tuple(f"p{i}" for i in range(np_)), tuple(f"p{i}" for i in range(np_)),
        tuple(f"t{j}" for j in range(nt)), tuple(f"t{j}" for j in range(nt)),
        tuple(pre), tuple(post), init,
    )
    q = sorted(set(draw(st.lists(st.integers(0, np_ - 1), min_size=1, max_size=2))))
    return n, q


@settings(max_examples=300, deadline=None)
@given(small_nets())
def test_random_nets_bfs_and_backward_coverability_agree(case: tuple[PTNet, list[int]]) -> None:
    n, q = case
    qs = set(q)
    every = list(range(len(n.place_ids)))
    alltr = list(range(len(n.transition_ids)))
    st1, seq1, _ = _bfs(n, every, alltr, n.initial, qs, 3000)
    st2, seq2, _ = _backward_coverability(n, alltr, n.initial, qs, 3000)
    if all(n.initial[p] > 0 for p in q):
        assert st2 == "found" and seq2 == ()
        return
    if st1 == "found":
        assert st2 != "not-coverable"
        if st2 == "found":
            assert len(seq1) == len(seq2)
    if st1 == "exhausted":
        assert st2 != "found"
    for status, seq in ((st1, seq1), (st2, seq2)):
        if status == "found":
            end = fire_sequence(n, n.initial, seq)
            assert end is not None and all(end[p] > 0 for p in q)
    mn = minimal_slice(n, q, n.initial, max_states=3000)
    mx = maximal_slice(n, q, n.initial)
    if mn.slice is not None:
        assert set(mn.slice.transitions) <= set(mx.transitions)
        assert set(mn.slice.places) <= set(mx.places) | qs
        if st1 == "found":
            assert len(mn.slice.sequence) == len(seq1)
    if st1 == "found" or st2 == "found":
        assert mn.status == "sliced"
    if st1 == "exhausted" or st2 == "not-coverable":
        assert mn.status == "not-coverable"
