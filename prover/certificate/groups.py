"""Named groups of local states in a reduction certificate: a sum in the invariant that
counts many local states with one coefficient (the readers between their registration
and their release, each with its running sum) names them once, in the certificate's
`groups`, and refers to the group (docs/certificates.md, "Groups"). The checker defines a
group's counter as the sum of its states' counters; the certificate shrinks by the number
of times a group recurs."""

from __future__ import annotations

from typing import Any

GROUP_MIN = 4  # states summed with one coefficient, from which they are named as a group

Group = tuple[tuple[str, str], ...]


def grouped(invariant: Any) -> tuple[Any, list[list[list[str]]]]:
    """The invariant with each sum's local states of one coefficient, when there are at
    least GROUP_MIN of them, replaced by a group; and the groups, in order of first use."""
    groups: dict[Group, int] = {}

    def walk(f: Any) -> Any:
        if isinstance(f, list):
            return [walk(x) for x in f]
        if not isinstance(f, dict):
            return f
        if "sum" not in f:
            return {k: walk(v) for k, v in f.items()}
        others, by_coefficient = [], dict[int, list[tuple[str, str]]]()
        for c, term in f["sum"]:
            local = term.get("place", {}).get("local") if isinstance(term, dict) else None
            if local is None:
                others.append([c, walk(term)])
            else:
                by_coefficient.setdefault(c, []).append((local[0], local[1]))
        for c, locals_ in by_coefficient.items():
            if len(locals_) < GROUP_MIN:
                others += [[c, {"place": {"local": list(loc)}}] for loc in locals_]
                continue
            index = groups.setdefault(tuple(sorted(locals_)), len(groups))
            others.append([c, {"place": {"group": index}}])
        return {"sum": others}

    return walk(invariant), [[list(loc) for loc in g] for g in groups]
