"""Deferred steps (docs/certificates.md, "Deferred steps"): steps into a wait, found here."""
# A step into a wait that the request could as well have taken later; the checker finds them
# itself, so a certificate cannot name one. Used at layer 0 (pass 0 of a claim with blocks)
# and on the top layer.

from __future__ import annotations

from functools import cache

from checker.steps import Linear, Local, Step, Steps, group, valuations


def deferred(s: Steps, dom: dict[str, tuple[int, ...]], bounds: list[Linear]) -> set[Step]:
    # E → S changing no global, S not answering, where E has, at each valuation of its reads,
    # every outcome of S there that changes something (with the same values after).
    outs = {k: set(v) for k, v in group(((m.src, m.reads), (m.dst, m.after))
                                        for m in s.moves + s.escapes).items()}

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
