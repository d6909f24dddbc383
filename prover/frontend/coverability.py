"""Which (local, global) pairs can co-occur: a Karp–Miller coverability set of the NS
configurations, and the restricted NS N_P of DESIGN.md ("Restricted network systems").

A configuration is a global state and a count of requests per local state (responses
and completed counters only ever decrease the in-flight counts, so they cannot make a
new pair co-occur and are left out). Requests arrive without bound, so the initial
locals count ω from the start. Steps are computed on demand through `step(local,
global)`, which returns the one-step outcomes `(local', global')`; the caller caches
it, so that each pair is executed once for the coverability set and for N_P.

The tree is Karp–Miller's (acceleration against ancestors with the same global), with
two prunings that keep the result sound: a new node below an existing node is not
added, and a queued node below a newer node is not expanded. Every node of the tree is
then below an expanded one, and every successor of an expanded node is below a node of
the tree, so the downward closure of the expanded nodes ("ideals") is closed under
every step: it contains every reachable configuration and is an inductive invariant
(by monotonicity of the counter semantics). Every node is a limit of reachable
configurations, so the co-occurring pairs read from the ideals are exact.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from operator import le

from prover.ns import Ideal

OMEGA = 1 << 62
"""ω: larger than any count that can occur, so `<=` compares ω-markings correctly."""

Step = Callable[[str, str], Sequence[tuple[str, str]]]


WORK_PER_BOUND = 50
"""Comparisons of markings (and ancestors walked) allowed per configuration of the state
bound: 5,000,000 at the default 100,000. No model of the paper, scale or others sets that
builds its network system needs 1,200,000; those past it walked minutes to no end."""


class CoverabilityBound(Exception):
    """The exploration exceeded its bound; `local` is the local state being stepped."""

    def __init__(self, what: str, local: str, locals_: Sequence[str], globals_: Sequence[str]):
        super().__init__(what)
        self.what = what
        self.local = local
        self.locals = tuple(locals_)
        self.globals = tuple(globals_)


@dataclass(frozen=True)
class Coverability:
    """The result: `pairs` (non-final local, global) sorted; `ideals` sorted; the
    discovered locals and globals in order of discovery; `nodes` the tree size."""

    pairs: tuple[tuple[str, str], ...]
    ideals: tuple[Ideal, ...]
    locals: tuple[str, ...]
    globals: tuple[str, ...]
    nodes: int


def _leq(a: Sequence[int], b: Sequence[int]) -> bool:
    """a ≤ b componentwise, missing components being 0."""
    nb = len(b)
    if len(a) > nb and any(a[nb:]):
        return False
    return all(map(le, a, b))  # map stops at the shorter one: the rest of a is 0


def coverability_set(
    initial_global: str,
    initial_locals: Iterable[str],
    step: Step,
    is_final: Callable[[str], bool],
    *,
    bound: int,
) -> Coverability:
    """The Karp–Miller coverability set. More than `bound` tree nodes, or more than
    `bound` discovered (local, global) combinations, raise `CoverabilityBound`."""
    ids: dict[str, int] = {}
    names: list[str] = []
    final: list[bool] = []
    globals_: dict[str, None] = {initial_global: None}

    def ident(name: str) -> int:
        i = ids.get(name)
        if i is None:
            i = len(names)
            ids[name] = i
            names.append(name)
            final.append(is_final(name))
        return i

    for loc in initial_locals:
        ident(loc)
    root = tuple(OMEGA for _ in names)
    # node: (global, marking, parent index or -1)
    nodes: list[tuple[str, tuple[int, ...], int]] = [(initial_global, root, -1)]
    by_global: dict[str, list[int]] = {initial_global: [0]}
    skipped: set[int] = set()
    stack: list[int] = [0]
    work = [0]  # markings compared and ancestors walked: bounded, so never a clock's matter
    while stack:
        n = stack.pop()
        if n in skipped:
            continue
        g, m, _ = nodes[n]
        for i, c in enumerate(m):
            if c == 0 or final[i]:
                continue
            here = names[i]
            for l2, g2 in step(here, g):
                j = ident(l2)
                if g2 not in globals_:
                    globals_[g2] = None
                work[0] += 1 + len(by_global.get(g2, ()))
                if len(names) * len(globals_) > bound or len(nodes) > bound \
                        or work[0] > WORK_PER_BOUND * bound:
                    raise CoverabilityBound(
                        f"the reachable part has more than {bound} "
                        + ("configurations" if len(nodes) > bound else
                           f"local x global combinations ({len(names)} local states x "
                           f"{len(globals_)} global states)" if work[0] <= WORK_PER_BOUND *
                           bound else f"configurations to compare ({WORK_PER_BOUND} "
                           "comparisons of markings per configuration of the bound)"),
                        here, names, list(globals_),
                    )
                new = list(m) + [0] * (len(names) - len(m))
                if new[i] != OMEGA:
                    new[i] -= 1
                if final[j]:
                    # A final local only waits to respond: its count never enables a
                    # step, so it is left unconstrained (ω) instead of being counted.
                    new[j] = OMEGA
                elif new[j] != OMEGA:
                    new[j] += 1
                # covered before acceleration: nothing new (acceleration only grows it)
                if any(_leq(new, nodes[k][1]) for k in by_global.get(g2, ())):
                    continue
                if _accelerate(nodes, n, g2, new, work) and any(
                    _leq(new, nodes[k][1]) for k in by_global.get(g2, ())
                ):
                    continue
                k = len(nodes)
                nodes.append((g2, tuple(new), n))
                # by_global holds the maximal nodes only: a node below the new one covers
                # nothing the new one does not; if queued, it need not be expanded.
                keep = []
                for old in by_global.get(g2, ()):
                    if _leq(nodes[old][1], new):
                        skipped.add(old)  # harmless for expanded nodes: never read again
                    else:
                        keep.append(old)
                keep.append(k)
                by_global[g2] = keep
                stack.append(k)
    return _result(nodes, by_global, names, final, list(globals_))


def _accelerate(
    nodes: list[tuple[str, tuple[int, ...], int]], parent: int, g2: str, new: list[int],
    work: list[int],
) -> bool:
    """ω for every component that strictly grew since an ancestor with the same global
    that the new marking covers (the difference can be pumped); to a fixpoint, since one
    acceleration can make an older ancestor covered. True if something became ω."""
    if all(x == 0 or x == OMEGA for x in new):
        return False  # nothing finite can grow
    grew = False
    changed = True
    while changed:
        changed = False
        a = parent
        while a >= 0:
            work[0] += 1
            ga, ma, pa = nodes[a]
            if ga == g2 and _leq(ma, new):
                for k, x in enumerate(new):
                    old = ma[k] if k < len(ma) else 0
                    if x != OMEGA and x > old:
                        new[k] = OMEGA
                        changed = grew = True
            a = pa
    return grew


def _result(
    nodes: list[tuple[str, tuple[int, ...], int]],
    by_global: dict[str, list[int]],
    names: list[str],
    final: list[bool],
    globals_: list[str],
) -> Coverability:
    # At the end every node of by_global was expanded, and every other expanded node lies
    # below one of them: they are the maximal expanded nodes, with no pairwise comparison
    # (quadratic in the nodes of a global: minutes at 100,000 nodes).
    maximal = sorted(n for members in by_global.values() for n in members)
    pairs: set[tuple[str, str]] = set()
    ideals: list[Ideal] = []
    for n in maximal:
        g, m, _ = nodes[n]
        omega = sorted(names[i] for i, c in enumerate(m) if c == OMEGA)
        finite = sorted((names[i], c) for i, c in enumerate(m) if 0 < c < OMEGA)
        ideals.append(Ideal(g, tuple(omega), tuple(finite)))
        pairs.update((names[i], g) for i, c in enumerate(m) if c and not final[i])
    return Coverability(
        tuple(sorted(pairs)), tuple(sorted(ideals)), tuple(names), tuple(globals_), len(nodes)
    )


@dataclass(frozen=True)
class Restricted:
    """N_P as the discovery procedure of the contract builds it: the discovered locals
    and globals (in order of discovery) and the steps `(l, g, l2, g2)` of the listed
    pairs, in the order they were found."""

    locals: tuple[str, ...]
    globals: tuple[str, ...]
    steps: tuple[tuple[str, str, str, str], ...]
    unreached: tuple[tuple[str, str], ...]


def restrict(
    initial_global: str,
    initial_locals: Iterable[str],
    pairs: Iterable[tuple[str, str]],
    step: Step,
) -> Restricted:
    """The checker's discovery procedure, literally: L := initial locals, G := {initial
    global}; step every listed (l, g) with l ∈ L and g ∈ G until nothing changes.
    `unreached` lists the pairs whose local or global was never discovered (the checker
    rejects a certificate listing one)."""
    todo = list(dict.fromkeys(pairs))
    locs: dict[str, None] = dict.fromkeys(initial_locals)
    globs: dict[str, None] = {initial_global: None}
    steps: dict[tuple[str, str, str, str], None] = {}
    done: set[tuple[str, str]] = set()
    changed = True
    while changed:
        changed = False
        for lg in todo:
            loc, glo = lg
            if lg in done or loc not in locs or glo not in globs:
                continue
            done.add(lg)
            changed = True
            for l2, g2 in step(loc, glo):
                steps[(loc, glo, l2, g2)] = None
                locs.setdefault(l2, None)
                globs.setdefault(g2, None)
    unreached = tuple(p for p in todo if p not in done)
    return Restricted(tuple(locs), tuple(globs), tuple(steps), unreached)
