"""The exploration tree (docs/ltl.md, "The exploration tree"): the prefix of the product's
unfolding (prover/ltl/product.py) grown by exploring its partial-order runs one at a time,
depth first, instead of adding every possible extension in the adequate order.

A node is a configuration C of the prefix, with a set D of *delayed* events (enabled, but
explored elsewhere) and a *guide* A (the events the next run must take first). From C the
events enabled at C's cut are made (prover/ltl/prefix.py judges each a cut-off or not, as
for the complete prefix; nothing is enabled after a cut-off). The chosen event e is the
smallest enabled one in A, or, with no guide, the smallest not delayed. The left child
is C ∪ {e}, with D and A \\ {e}; it explores the runs that contain e. The right child
explores those that do not: it delays e (D ∪ {e}) and follows an *alternative*, a set J
of known events such that C ∪ J is a configuration, J holds no delayed event, and some
event of J is in conflict with a delayed one (it consumes a condition that the delayed
event consumes): J \\ C becomes the guide. No alternative, no right child. A node where
every enabled event is delayed is left (its runs were explored elsewhere); one where none
is enabled ends a run, which is counted.

These are Rodríguez, Sousa, Sharma and Kroening's unfolding-based partial-order
reduction, with the 1-partial alternatives of Nguyen et al.'s quasi-optimal variant
(conflict with one delayed event, not all): each maximal configuration of the prefix is
reached, some possibly more than once (`blocked` counts the nodes that turn back).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from prover.ltl.prefix import Added, Prefix, bits
from prover.ltl.product import Move, Product


@dataclass(frozen=True)
class Explored:
    runs: int  # maximal configurations reached
    blocked: int  # nodes left because every enabled event was delayed
    nodes: int
    stopped: bool  # `on_event` asked to stop


class _Stop(Exception):
    pass


class _Tree:
    def __init__(self, prefix: Prefix[Move], product: Product,
                 on_event: Callable[[Added], bool],
                 progress: Callable[[str], None] | None) -> None:
        self.p, self.product, self.on_event, self.progress = prefix, product, on_event, progress
        self.primaries = [product.auto, *product.slots]
        self.consumers: dict[int, int] = {}  # condition -> the events that consume it
        self.seen = 0  # events whose preset is in `consumers`
        self.runs = self.blocked = self.nodes = 0

    def enabled(self, cut: list[int]) -> list[int]:
        """The events enabled at a cut (made when new), in the order they were made."""
        p = self.p
        out: list[int] = []
        for var in self.primaries:
            c = cut[var]
            if p.dead >> c & 1:
                continue
            for t in self.product.transitions(p.place[c]):
                pre = [cut[pl[0]] for pl in t.pre]
                if any(p.place[b] != pl for b, pl in zip(pre, t.pre, strict=True)):
                    continue
                pre += [cut[v] for v in t.reads]
                if any(p.dead >> b & 1 for b in pre) or \
                        not self.product.allows(t, tuple(p.place[cut[v]] for v in t.reads)):
                    continue
                added = p.create(t, tuple(pre))
                if added.event >= self.seen:
                    self._made()
                    if self.on_event(added):
                        raise _Stop
                out.append(added.event)
        return sorted(set(out))

    def _made(self) -> None:
        p = self.p
        for e in range(self.seen, len(p.trans)):
            for b in p.pre[e]:
                self.consumers[b] = self.consumers.get(b, 0) | 1 << e
        self.seen = len(p.trans)
        if self.progress is not None and self.seen // 1000 != (self.seen - 1) // 1000:
            self.progress(f"{self.seen:,} events, {p.cutoffs:,} cut-offs, {self.runs:,} runs")

    def alternative(self, config: int, delayed: int) -> int | None:
        """Events J \\ C of an alternative to the delayed events after C (above)."""
        p = self.p
        for d in sorted(bits(delayed), reverse=True):  # the newest first
            for b in p.pre[d]:
                for f in bits(self.consumers.get(b, 0) & ~(1 << d)):
                    p.spend()
                    if p.below[f] & delayed:
                        continue
                    extra = p.below[f] & ~config
                    if not any(self.consumers.get(c, 0) & config
                               for g in bits(extra) for c in p.pre[g]):
                        return extra
        return None

    def explore(self) -> None:
        """Depth first, with an explicit stack: (C, cut, D, A), or the marker of a right
        child still to try after the left one: (C, cut, D ∪ {e}, None)."""
        stack: list[tuple[int, list[int], int, int | None, bool]] = [
            (0, list(self.p.cut0), 0, 0, False)]
        while stack:
            config, cut, delayed, guide, right = stack.pop()
            if right:
                j = self.alternative(config, delayed)
                if j is not None:
                    stack.append((config, cut, delayed, j, False))
                continue
            assert guide is not None
            self.nodes += 1
            self.p.spend()
            en = self.enabled(cut)
            if not en:
                self.runs += 1
                continue
            pick = [e for e in en if guide >> e & 1] if guide else \
                [e for e in en if not delayed >> e & 1]
            if not pick:
                self.blocked += 1
                continue
            e = pick[0]
            after = list(cut)
            for c in self.p.made[e]:
                after[self.p.place[c][0]] = c
            stack.append((config, cut, delayed | 1 << e, None, True))
            stack.append((config | 1 << e, after, delayed, guide & ~(1 << e), False))


def explore(prefix: Prefix[Move], product: Product, on_event: Callable[[Added], bool],
            progress: Callable[[str], None] | None = None) -> Explored:
    """Grow `prefix` by the exploration tree; `on_event` sees each new event, and stops
    the exploration by answering True."""
    tree = _Tree(prefix, product, on_event, progress)
    try:
        tree.explore()
    except _Stop:
        return Explored(tree.runs, tree.blocked, tree.nodes, True)
    return Explored(tree.runs, tree.blocked, tree.nodes, False)
