"""Exact membership of a concrete multiset of (request, response) pairs in the serial set.

A multiset `C` of completed pairs is *serial* iff some walk of the serial automaton
(prover/serial/automaton.py) from the initial global state has label counts exactly `C`
(every state is accepting: a serial execution may stop anywhere). This module decides
that by depth-first search over `(automaton state, remaining multiset)`:

* from `(g, R)` with `R` empty: success;
* otherwise try every edge `g --r/v--> g'` with `R[(r, v)] > 0` and continue at
  `(g', R - {(r, v)})`.

The search is finite (every edge consumes one pair) and exact. Failed configurations
are memoised (a configuration's answer does not depend on how it was reached), which
bounds the work by `|states| × Π (count + 1)`. A configuration is also cut at once when
some remaining pair is not the label of any edge reachable from its state (a sound
over-approximation of what can still be produced).

Everything is deterministic: edges are tried in the automaton's (sorted) order, so
`serial_order` always returns the same witness.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from prover.serial.automaton import SerialAutomaton, SerialEdge

Pair = tuple[str, str]
"""A completed `(request, response)` pair."""

Multiset = tuple[tuple[Pair, int], ...]
"""A multiset of pairs: `(pair, count)` with count ≥ 1, sorted by pair, no duplicates."""


def make_multiset(items: Iterable[Pair] | Mapping[Pair, int]) -> Multiset:
    """Normalise a bag of pairs (an iterable with repetitions, or a count map)."""
    counts: dict[Pair, int] = {}
    if isinstance(items, Mapping):
        for pair, n in items.items():
            if n < 0:
                raise ValueError(f"negative count for {pair}")
            if n:
                counts[pair] = counts.get(pair, 0) + n
    else:
        for pair in items:
            counts[pair] = counts.get(pair, 0) + 1
    return tuple(sorted(counts.items()))


@dataclass
class SerialMembership:
    """Memoised membership oracle for one serial automaton (reusable across queries).

    Not a frozen dataclass on purpose: it owns caches. Its answers are pure functions
    of the automaton and the query.
    """

    automaton: SerialAutomaton
    _labels: tuple[Pair, ...] = field(init=False, repr=False)
    _label_index: dict[Pair, int] = field(init=False, repr=False)
    _out: dict[str, tuple[tuple[int, SerialEdge], ...]] = field(init=False, repr=False)
    _reach_labels: dict[str, frozenset[int]] = field(init=False, repr=False)
    _answers: dict[Multiset, tuple[SerialEdge, ...] | None] = field(
        init=False, repr=False, default_factory=dict
    )
    # Configurations (state, remaining counts) known to admit no completing walk. Shared
    # by all queries: whether a configuration can be completed does not depend on the
    # query it was met in.
    _dead: set[_Conf] = field(init=False, repr=False, default_factory=set)

    def __post_init__(self) -> None:
        aut = self.automaton
        self._labels = aut.labels
        self._label_index = {p: i for i, p in enumerate(self._labels)}
        out: dict[str, list[tuple[int, SerialEdge]]] = {}
        for e in aut.edges:
            out.setdefault(e.source, []).append((self._label_index[(e.request, e.response)], e))
        self._out = {k: tuple(v) for k, v in out.items()}
        self._reach_labels = _reachable_labels(aut, self._label_index)

    # ---- queries -------------------------------------------------------------------

    @property
    def labels(self) -> tuple[Pair, ...]:
        """The pairs that label some edge of the automaton, sorted."""
        return self._labels

    def producible_from_initial(self) -> frozenset[Pair]:
        """Pairs that some serial execution from the initial state can complete."""
        idx = self._reach_labels.get(self.automaton.initial, frozenset())
        return frozenset(self._labels[i] for i in idx)

    def is_serial(self, multiset: Multiset | Mapping[Pair, int]) -> bool:
        return self.serial_order(multiset) is not None

    def serial_order(
        self, multiset: Multiset | Mapping[Pair, int]
    ) -> tuple[SerialEdge, ...] | None:
        """A serial walk from the initial state with label counts `multiset`, or None."""
        ms = make_multiset(multiset) if isinstance(multiset, Mapping) else multiset
        if ms in self._answers:
            return self._answers[ms]
        answer = self._search(ms)
        self._answers[ms] = answer
        return answer

    def longest_serial_prefix(self, multiset: Multiset) -> tuple[SerialEdge, ...]:
        """A longest serial walk from the initial state whose label counts are ≤ `multiset`.

        Used by explanations ("a serial order can complete these, then gets stuck").
        Exhaustive (memoised per configuration), deterministic.
        """
        need = self._vector(multiset)
        if need is None:
            # Pairs that label no edge can never be consumed: drop them.
            need = [0] * len(self._labels)
            for pair, n in multiset:
                i = self._label_index.get(pair)
                if i is not None:
                    need[i] = n
        best: dict[tuple[str, tuple[int, ...]], tuple[SerialEdge, ...]] = {}

        def go(g: str, rem: tuple[int, ...]) -> tuple[SerialEdge, ...]:
            key = (g, rem)
            if key in best:
                return best[key]
            result: tuple[SerialEdge, ...] = ()
            for li, e in self._out.get(g, ()):
                if rem[li] > 0:
                    nxt = list(rem)
                    nxt[li] -= 1
                    cand = (e, *go(e.target, tuple(nxt)))
                    if len(cand) > len(result):
                        result = cand
            best[key] = result
            return result

        total = sum(need)
        if total > 400:  # keep the recursion shallow; explanations only
            return ()
        return go(self.automaton.initial, tuple(need))

    # ---- internals -----------------------------------------------------------------

    def _vector(self, multiset: Multiset) -> list[int] | None:
        vec = [0] * len(self._labels)
        for pair, n in multiset:
            i = self._label_index.get(pair)
            if i is None:
                return None
            vec[i] += n
        return vec

    def _search(self, multiset: Multiset) -> tuple[SerialEdge, ...] | None:
        # Remaining counts are kept sparse, (label index, count) with count > 0 in index
        # order: the work per configuration follows the multiset, not the alphabet.
        counts: dict[int, int] = {}
        for pair, n in multiset:
            i = self._label_index.get(pair)
            if i is None:
                return None  # the pair is the label of no serial edge at all
            if n:
                counts[i] = counts.get(i, 0) + n
        start = (self.automaton.initial, tuple(sorted(counts.items())))
        if len(self._dead) > 4_000_000:  # bound the memory of the shared memo
            self._dead.clear()
        failed = self._dead
        if start in failed:
            return None
        # Iterative DFS: a stack of (configuration, edge choices still to try).
        path: list[SerialEdge] = []
        stack: list[tuple[_Conf, list[tuple[int, SerialEdge]]]] = []

        def choices(conf: _Conf) -> list[tuple[int, SerialEdge]] | None:
            g, rem = conf
            if not rem:
                return None  # success marker
            reach = self._reach_labels.get(g, frozenset())
            if any(i not in reach for i, _ in rem):
                return []
            left = dict(rem)
            return [(li, e) for li, e in self._out.get(g, ()) if li in left][::-1]

        first = choices(start)
        if first is None:
            return ()
        stack.append((start, first))
        while stack:
            conf, todo = stack[-1]
            if not todo:
                failed.add(conf)
                stack.pop()
                if path:
                    path.pop()
                continue
            li, e = todo.pop()
            nxt = (e.target, _take(conf[1], li))
            if nxt in failed:
                continue
            ch = choices(nxt)
            path.append(e)
            if ch is None:
                return tuple(path)
            stack.append((nxt, ch))
        return None


_Conf = tuple[str, tuple[tuple[int, int], ...]]
"""(state, remaining counts as sorted (label index, count > 0) pairs)."""


def _take(rem: tuple[tuple[int, int], ...], label: int) -> tuple[tuple[int, int], ...]:
    """`rem` with one fewer of `label` (present)."""
    return tuple((i, n - 1 if i == label else n) for i, n in rem if i != label or n > 1)


def _reachable_labels(
    aut: SerialAutomaton, label_index: Mapping[Pair, int]
) -> dict[str, frozenset[int]]:
    """Per state, the labels of the edges reachable from it: the least sets with each
    state's own labels and its successors' (a fixpoint over the predecessors, labels as
    bits; a search from every state took 13 s of a/cas16's 23 s)."""
    preds: dict[str, set[str]] = {s: set() for s in aut.states}
    bits: dict[str, int] = {s: 0 for s in aut.states}
    for e in aut.edges:
        preds.setdefault(e.target, set()).add(e.source)
        preds.setdefault(e.source, set())
        bits[e.source] = bits.get(e.source, 0) | 1 << label_index[(e.request, e.response)]
        bits.setdefault(e.target, 0)
    todo = list(bits)
    while todo:
        t = todo.pop()
        for s in preds[t]:
            if bits[t] & ~bits[s]:
                bits[s] |= bits[t]
                todo.append(s)
    return {s: frozenset(i for i in range(b.bit_length()) if b >> i & 1)
            for s, b in bits.items()}


def is_serial(automaton: SerialAutomaton, multiset: Multiset | Mapping[Pair, int]) -> bool:
    """One-shot convenience wrapper around `SerialMembership`."""
    return SerialMembership(automaton).is_serial(multiset)
