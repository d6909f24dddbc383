"""Deferred steps of a plain reduction proof (docs/certificates.md, "Deferred steps"): a
step into a wait that the request could as well have taken later; the checker finds them
itself, so a certificate cannot name one."""

from __future__ import annotations

from functools import cache

from checker.steps import Linear, Local, Step, Steps, Values, valuations


def deferred(s: Steps, dom: dict[str, tuple[int, ...]], bounds: list[Linear]) -> set[Step]:
    """Steps into a wait (docs/certificates.md, "Deferred steps"): E → S changing no global,
    where E has, at each valuation of its reads, every outcome of S there that changes
    something."""
    outs: dict[tuple[Local, Values], set[tuple[Local, Values]]] = {}
    for m in s.moves + s.escapes:
        outs.setdefault((m.src, m.reads), set()).add((m.dst, m.after))

    @cache
    def covers(src: Local, dst: Local) -> bool:
        e, w = s.foot[src], s.foot[dst]
        if not set(w.touched) <= set(e.reads):
            return False
        for vals in valuations(e.reads, dom, bounds):
            at, mine = dict(zip(e.reads, vals, strict=True)), outs.get((src, vals), set())
            for d, after in outs.get((dst, tuple(at[x] for x in w.reads)), ()):
                end = {**at, **dict(zip(w.touched, after, strict=True))}
                if (d, end) != (dst, at) and (d, tuple(end[x] for x in e.reads)) not in mine:
                    return False
        return True

    return {m for m in s.moves if m.dst != m.src and m.dst in s.foot and m.read_only()
            and covers(m.src, m.dst)}
