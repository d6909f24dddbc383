"""The text that says why a reduction proof holds, in the program's terms.

Each request's steps with their source lines and mover labels: the steps before its
commit point (N) move right (R), those after it left (L), B both; so every concurrent
execution can be reordered into a serial one with the same answers. Then the invariant's
conjuncts, which keep the pairs apart that do not commute (two lock holders, a step and a
lock's other holder). Attempts and sections (blocks) are said in a line each: what a
retry loop reads, where it commits and what validates it; which lines a section covers.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Any


def render_reduction(data: dict[str, Any]) -> str:
    out = textwrap.wrap("Serializable by reduction: in each request, the steps before its "
                        "commit point (N) move to the right (R), those after it to the left "
                        "(L), B both ways; so every execution reorders into a serial one with "
                        "the same answers:", 88)
    width = max((len(r["request"]) for r in data["requests"]), default=0)
    for req in data["requests"]:
        steps = _steps(req["steps"])
        none = "answers at once" if req["answers_at_once"] else "no step that ends"
        out.append(f"  {req['request'].ljust(width)}  {steps or none}")
    tried = dict.fromkeys(  # one per head (a split request's: one per choice): said once
        f"{a['request']}: {_span(a['lines'])} only read, and retry until they commit "
        f"({_span(a['commit'])}); the commit finds {a['version']} as they last read it, "
        f"so what they read is unchanged: they count as run at the commit, in one step (N)"
        for a in data.get("attempts", []))
    for text in tried:
        out += textwrap.wrap(text, 86, initial_indent="  ", subsequent_indent="    ")
    said = dict.fromkeys(
        f"{sec['request']}: the critical section at {_span(sec['lines'])} is reduced first ("
        + ", ".join(f"{s['label']} {_span(s['lines'])}" for s in sec["steps"])
        + "), so it runs at once: one step of the request above"
        for sec in data.get("sections", []))  # one per state it starts at: said once
    for text in said:
        out += textwrap.wrap(text, 86, initial_indent="  ", subsequent_indent="    ")
    if data["invariant"]:
        out.append("Invariant (#r«p»: the requests r whose rest of the program is p):")
        shown = dict.fromkeys(c["text"] for c in data["invariant"])  # one line per text
        out += [f"  {text}" for text in list(shown)[:SHOWN]]
        if len(shown) > SHOWN:
            out.append(f"  ... and {len(shown) - SHOWN} more conjuncts (every one in `--json` "
                       "and in the certificate)")
    return "\n".join(out)


def render_parts(parts: list[dict[str, Any]], cases: Sequence[dict[str, str]] = ()) -> str:
    """A model proved in independent parts: which requests each part has, and its engine;
    with `cases`, the parts of the program whose requests were split by their inputs."""
    split = ", ".join(f"{c['request']} by {c['input']}" for c in cases)
    lines = [f"Serializable by cases of its inputs: {split} split into one request per "
             "value, the program so split is serializable:"] if cases else []
    locks = sorted({g for p in parts for g in p.get("holders", ())})
    lines += [f"Serializable in {len(parts)} independent parts (no request of one part writes "
              "a global that a request of another reads or writes" + (
                  f", but the lock{'s' * (len(locks) > 1)} {', '.join(locks)}, which every "
                  "request takes and gives back in holds" if locks else "") + (
                  "), each proved alone") + (
                  " with one request that holds each lock it shares" if locks else "") + ":"]
    lines += [f"  part {k}: {', '.join(p['requests'])} (by {p['engine']}" + (
        f"; with holders of {', '.join(p['holders'])}" if p.get("holders") else "") + ")"
        for k, p in enumerate(parts, 1)]
    return "\n".join(lines)


ORDER = "RBNLD"  # the order of a path's labels: (R|B)* N? (L|B)*


def _steps(steps: list[dict[str, Any]]) -> str:
    """`R line 24, R/N lines 26-28`: one entry per span of lines, in the order of the lines,
    with every label its steps have there (by path or by the globals' values) in path
    order, so that the listing never shows an R after an N of the same lines."""
    by_span: dict[tuple[int, ...], set[str]] = {}
    for s in steps:
        by_span.setdefault(tuple(s["lines"]), set()).add(s["label"])
    return ", ".join(f"{'/'.join(sorted(labels, key=ORDER.find))} {_span(list(span))}"
                     for span, labels in sorted(by_span.items()))


SHOWN = 12
"""Conjuncts of the invariant printed: a proof of 110 is read in `--json`, not scrolled."""


def _span(numbers: list[int]) -> str:
    if not numbers:
        return ""
    return f"line {numbers[0]}" if len(numbers) == 1 else f"lines {numbers[0]}-{numbers[-1]}"


def render_locking(claim: dict[str, Any]) -> str:
    """Why two-phase locking proves the program (docs/certificates.md): each lock and
    what it guards."""
    by: dict[str, list[str]] = {}
    for g, lock in claim["guards"].items():
        by.setdefault(lock, []).append(g)
    counts = {p["writer"]: f" (readers counted in {p['readers']}" + (
        f" under mutex {p['mutex']}" if "mutex" in p else "") + ": they read)"
        for p in claim.get("shared", [])}
    kinds = {q["sequence"]: " (a version: validated reads, commits that raise it)"
             if q.get("commits") else " (a seqlock: validated reads, writes between raises"
             + (f" under {q['lock']})" if "lock" in q else ")")
             for q in claim.get("sequences", [])}
    lines = [f"  {lock}{counts.get(lock, kinds.get(lock, ''))} guards "
             f"{', '.join(sorted(by[lock])) if lock in by else 'nothing'}"
             for lock in [*claim["locks"], *kinds]]
    if "tree" in claim:
        parents = claim["tree"]
        lines = [f"{line}, taken holding {parents[lock]}" if lock in parents else
                 f"{line} (the root)" for line, lock in zip(lines, claim["locks"], strict=True)]
        return ("Serializable by lock coupling (the tree protocol): every request takes its "
                "first lock anywhere\nand each later one while it holds that lock's parent, "
                "none twice, and touches a global\nthat some request writes only while it "
                "holds that global's lock; so every execution\nreorders into a serial one "
                "(Silberschatz and Kedem):\n" + "\n".join(lines))
    return ("Serializable by two-phase locking: every request takes its locks before it "
            "releases any,\nand touches a global that some request writes only while it "
            "holds that global's lock;\nso every execution reorders into the serial one "
            "in the order of the requests' last locks:\n" + "\n".join(lines))
