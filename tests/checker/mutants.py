"""Mutants of valid certificates, each invalid by construction, with the reason expected.

A mutant is (label, certificate, expected codes, keyword arguments for check_certificate).
Where the expected reason depends on which obligation breaks first, the set lists the
codes that describe the same defect (e.g. an invariant that is no longer inductive may
fail initiation or consecution, never a trace obligation).
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from collections.abc import Iterator
from typing import Any

from checker.semantics import explore, semantics
from tests.checker.forgeries import nodes

Json = Any
Mutant = tuple[str, Any, frozenset[str], dict[str, Any]]
INVARIANT = frozenset({"E-INITIATION", "E-CONSECUTION", "E-REFUTATION"})
# events are replayed on the one-step semantics: an unknown name is a step that does not exist
UNREPLAYABLE = ("E-NAME", "E-REPLAY")


def _copy(cert: Json) -> Json:
    """A deep copy that never shares sub-objects (a JSON document cannot share them)."""
    return json.loads(json.dumps(cert))


def _m(label: str, cert: Json, *codes: str, **kw: Any) -> Mutant:
    return (label, cert, frozenset(codes), kw)


def _rehash(cert: Json) -> Json:
    cert["model"]["sha256"] = hashlib.sha256(cert["model"]["source"].encode()).hexdigest()
    return cert


def generic(name: str, cert: Json) -> Iterator[Mutant]:
    c = _copy(cert)
    h = c["model"]["sha256"]
    c["model"]["sha256"] = ("0" if h[0] != "0" else "1") + h[1:]
    yield _m(f"{name}: hash broken", c, "E-HASH")
    c = _copy(cert)
    c["model"]["source"] += " "
    yield _m(f"{name}: model text changed, old hash kept", c, "E-HASH")
    yield _m(f"{name}: --model of another file", cert, "E-MODEL-FILE", model_text="request a {1}")
    c = _copy(cert)
    if c["model"]["kind"] == "ser":  # rename the request: every request name is now unknown
        c["model"]["source"] = re.sub(r"^request (\w)", r"request zz\1", c["model"]["source"],
                                      flags=re.M)
    else:
        ns = json.loads(c["model"]["source"])
        ns["requests"] = [["zz" + r, loc] for r, loc in ns["requests"]]
        c["model"]["source"] = json.dumps(ns)
    yield _m(f"{name}: model text changed and rehashed", _rehash(c), "E-NAME", "E-REPLAY")
    c = _copy(cert)
    c["model"]["source"] = "request a { x; }" if c["model"]["kind"] == "ser" else "{"
    yield _m(f"{name}: embedded model does not compile", _rehash(c), "E-MODEL")
    c = _copy(cert)
    c["verdict"] = "serializable" if c["verdict"] == "not_serializable" else "not_serializable"
    yield _m(f"{name}: opposite verdict, same evidence", c, "E-SCHEMA")
    for key in ("format", "model", "verdict", "producer"):
        c = _copy(cert)
        del c[key]
        yield _m(f"{name}: missing {key}", c, "E-SCHEMA")
    c = _copy(cert)
    c["format"] = "ser-certificate/2"
    yield _m(f"{name}: wrong format version", c, "E-SCHEMA")
    c = _copy(cert)
    c["extra"] = 1
    yield _m(f"{name}: unknown top-level member", c, "E-SCHEMA")
    text = json.dumps(cert)
    yield _m(f"{name}: truncated JSON", text[: len(text) // 2], "E-JSON")
    yield _m(f"{name}: repeated key", '{"format": 1, ' + text[1:], "E-JSON")


def counterexample(name: str, cert: Json) -> Iterator[Mutant]:
    ns = explore(semantics(cert["model"]["kind"], cert["model"]["source"]))
    steps = set(ns.transitions)
    resp = set(ns.responses)
    locs = sorted({t[0] for t in ns.transitions} | {t[2] for t in ns.transitions})
    globs = sorted({t[1] for t in ns.transitions} | {t[3] for t in ns.transitions})
    events = cert["counterexample"]["events"]

    def with_events(evs: list[Json]) -> Json:
        c = _copy(cert)
        c["counterexample"]["events"] = evs
        return c

    for i, ev in enumerate(events):
        rest = events[:i] + events[i + 1 :]
        code = "E-QUIESCENT" if ev["event"] == "respond" else "E-REPLAY"
        yield _m(f"{name}: drop event {i + 1} ({ev['event']})", with_events(rest), code)
        later = [j for j in range(i + 1, len(events)) if events[j]["instance"] == ev["instance"]]
        if later:  # move the instance's next event before this one
            j = later[0]
            evs = events[:i] + [events[j]] + [e for k, e in enumerate(events[i:], i) if k != j]
            yield _m(f"{name}: event {j + 1} moved before {i + 1}", with_events(evs), "E-REPLAY")
        evs = _copy(events)
        evs[i]["instance"] = 999
        yield _m(f"{name}: event {i + 1} names another instance", with_events(evs), "E-REPLAY")
        if ev["event"] == "spawn":
            evs = _copy(events)
            evs[i]["local"] = "({}, no such state)"
            yield _m(f"{name}: spawn {i + 1} at an unknown state", with_events(evs), *UNREPLAYABLE)
            other = [r for r, _ in ns.requests if (r, ev["local"]) not in set(ns.requests)]
            if other:
                evs = _copy(events)
                evs[i]["request"] = other[0]
                yield _m(f"{name}: spawn {i + 1} of another request", with_events(evs), "E-REPLAY")
            if i > 0:
                evs = _copy(events)
                evs[i]["instance"] = events[0]["instance"]
                yield _m(f"{name}: spawn {i + 1} reuses an instance", with_events(evs), "E-REPLAY")
        elif ev["event"] == "step":
            (l1, g1), (l2, g2) = ev["from"], ev["to"]
            for slot, pos, pool in (("to", 0, locs), ("to", 1, globs), ("from", 1, globs)):
                for alt in pool:
                    cand = [l1, g1, l2, g2]
                    cand[(2 if slot == "to" else 0) + pos] = alt
                    if tuple(cand) in steps and slot == "to" or alt == ev[slot][pos]:
                        continue
                    evs = _copy(events)
                    evs[i][slot][pos] = alt
                    yield _m(f"{name}: step {i + 1} {slot}[{pos}] := {alt}", with_events(evs),
                             "E-REPLAY")
                    break
            evs = _copy(events)
            evs[i]["to"][1] = "{NOPE=1}"
            yield _m(f"{name}: step {i + 1} to an unknown global", with_events(evs), *UNREPLAYABLE)
        else:
            for v in sorted({v for _, v in ns.responses}):
                if (ev["local"], v) not in resp:
                    evs = _copy(events)
                    evs[i]["response"] = v
                    yield _m(f"{name}: respond {i + 1} with {v}", with_events(evs), "E-REPLAY")
            evs = _copy(events)
            evs[i]["response"] = "no-such-response"
            yield _m(f"{name}: respond {i + 1} unknown response", with_events(evs), *UNREPLAYABLE)
    spawn = next(e for e in events if e["event"] == "spawn")
    yield _m(f"{name}: extra spawn at the end",
             with_events([*events, {**spawn, "instance": 1000}]), "E-QUIESCENT")
    comp = cert["counterexample"]["completed"]
    for i in range(len(comp)):
        c = _copy(cert)
        c["counterexample"]["completed"][i]["count"] += 1
        yield _m(f"{name}: completed[{i}] count + 1", c, "E-COMPLETED")
        c = _copy(cert)
        del c["counterexample"]["completed"][i]
        yield _m(f"{name}: completed[{i}] dropped", c, "E-COMPLETED")
        c = _copy(cert)
        c["counterexample"]["completed"][i]["count"] = 0
        yield _m(f"{name}: completed[{i}] count 0", c, "E-SCHEMA")
    if len(comp) > 1:
        c = _copy(cert)
        c["counterexample"]["completed"].reverse()
        yield _m(f"{name}: completed unsorted", c, "E-SCHEMA")
    c = _copy(cert)
    c["counterexample"]["events"][0]["event"] = "jump"
    yield _m(f"{name}: unknown event kind", c, "E-SCHEMA")
    c = _copy(cert)
    c["counterexample"]["events"][0]["instance"] = 0
    yield _m(f"{name}: instance 0", c, "E-SCHEMA")
    c = _copy(cert)
    c["counterexample"]["completed"].append({"request": "zz", "response": "0", "count": 1})
    yield _m(f"{name}: completed names an extra pair", c, "E-COMPLETED")


def _at(root: Json, path: tuple[Any, ...]) -> Json:
    for p in path:
        root = root[p]
    return root


def _other(c: int) -> int:
    return -c if c else 1  # a sign flip: scaling can be equivalent (c·x = 0 with x ≥ 0)


_FLIP = {"=": "<", "<": ">=", "<=": ">", ">": "<=", ">=": "<"}


def proof(name: str, cert: Json, needed: list[int]) -> Iterator[Mutant]:
    """`needed`: indexes of top-level conjuncts whose removal breaks the proof (checked)."""
    pf = cert["proof"]
    comps = pf.get("serial_set", {"components": []})["components"]

    def edit(fn: Any) -> Json:
        c = _copy(cert)
        fn(c["proof"])
        return c

    for i, comp in enumerate(comps):
        where = f"{name}: component {i}"
        yield _m(f"{where} dropped", edit(lambda p, i=i: p["serial_set"]["components"].pop(i)),
                 "E-REFUTATION")
        for part, key in [(comp["walk"], "walk")] + [(c, f"circ{j}")
                                                     for j, c in enumerate(comp["circulations"])]:
            for k in range(len(part["edges"])):
                def bump(p: Json, i: int = i, key: str = key, k: int = k, d: int = 1) -> None:
                    cp = p["serial_set"]["components"][i]
                    part = cp["walk"] if key == "walk" else cp["circulations"][int(key[4:])]
                    part["edges"][k]["count"] += d
                yield _m(f"{where} {key} edge {k} count + 1", edit(bump), "E-WITNESS")
                yield _m(f"{where} {key} edge {k} count + 2",
                         edit(lambda p, b=bump: b(p, d=2)), "E-WITNESS")

                def drop(p: Json, i: int = i, key: str = key, k: int = k) -> None:
                    cp = p["serial_set"]["components"][i]
                    part = cp["walk"] if key == "walk" else cp["circulations"][int(key[4:])]
                    part["edges"].pop(k)
                yield _m(f"{where} {key} edge {k} dropped", edit(drop), "E-WITNESS", "E-SCHEMA")

                def rename(p: Json, i: int = i, key: str = key, k: int = k) -> None:
                    cp = p["serial_set"]["components"][i]
                    part = cp["walk"] if key == "walk" else cp["circulations"][int(key[4:])]
                    part["edges"][k]["edge"][0] = "{NOPE=1}"
                yield _m(f"{where} {key} edge {k} unknown state", edit(rename), "E-NAME")
        for k in range(len(comp["base"])):
            yield _m(f"{where} base[{k}] + 1",
                     edit(lambda p, i=i, k=k: p["serial_set"]["components"][i]["base"][k]
                          .__setitem__("count", p["serial_set"]["components"][i]["base"][k]
                                       ["count"] + 1)), "E-WITNESS")
        for j, _per in enumerate(comp["periods"]):
            yield _m(f"{where} period {j} scaled",
                     edit(lambda p, i=i, j=j: [e.__setitem__("count", 2 * e["count"])
                          for e in p["serial_set"]["components"][i]["periods"][j]]), "E-WITNESS")
            yield _m(f"{where} period {j} repeated",
                     edit(lambda p, i=i, j=j: (
                         p["serial_set"]["components"][i]["periods"].append(
                             copy.deepcopy(p["serial_set"]["components"][i]["periods"][j])),
                         p["serial_set"]["components"][i]["circulations"].append(
                             copy.deepcopy(p["serial_set"]["components"][i]["circulations"][j])))),
                     "E-WITNESS")
            yield _m(f"{where} circulation {j} missing",
                     edit(lambda p, i=i, j=j: p["serial_set"]["components"][i]["circulations"]
                          .pop(j)), "E-SCHEMA")
            yield _m(f"{where} period {j} unknown pair",
                     edit(lambda p, i=i, j=j: p["serial_set"]["components"][i]["periods"][j]
                          .__setitem__(-1, {"request": "zz", "response": "0", "count": 1})),
                     "E-NAME")
        yield _m(f"{where} walk ends elsewhere",
                 edit(lambda p, i=i: p["serial_set"]["components"][i]["walk"].__setitem__(
                     "end", "{NOPE=1}")), "E-NAME")
    inv = pf["invariant"]
    formula = inv["formula"]
    if isinstance(formula, dict) and "and" in formula:
        for k in needed:
            yield _m(f"{name}: drop needed conjunct {k}",
                     edit(lambda p, k=k: p["invariant"]["formula"]["and"].pop(k)), *INVARIANT)
    for path, node in list(nodes(formula)):
        if isinstance(node, dict) and "cmp" in node:
            yield _m(f"{name}: flip comparison at {path}",
                     edit(lambda p, path=path: _at(p["invariant"]["formula"], path).__setitem__(
                         "cmp", _FLIP[_at(p["invariant"]["formula"], path)["cmp"]])), *INVARIANT)
        if isinstance(node, dict) and "const" in node:
            yield _m(f"{name}: constant + 1 at {path}",
                     edit(lambda p, path=path: _at(p["invariant"]["formula"], path).__setitem__(
                         "const", _at(p["invariant"]["formula"], path)["const"] + 1)), *INVARIANT)
        if (isinstance(node, list) and len(node) == 2 and isinstance(node[0], int)
                and "const" not in node[1]):  # c·const 0 would not change anything
            yield _m(f"{name}: coefficient changed at {path}",
                     edit(lambda p, path=path: _at(p["invariant"]["formula"], path).__setitem__(
                         0, _other(_at(p["invariant"]["formula"], path)[0]))), *INVARIANT)
        if isinstance(node, dict) and "place" in node:
            yield _m(f"{name}: unknown place at {path}",
                     edit(lambda p, path=path: _at(p["invariant"]["formula"], path).__setitem__(
                         "place", {"global": "{NOPE=1}"})), "E-NAME")
    if formula is True:
        yield _m(f"{name}: invariant false", edit(
            lambda p: p["invariant"].__setitem__("formula", False)), "E-INITIATION")
    for k, u in enumerate(inv["updates"]):
        a = next(iter(u["assign"]))
        yield _m(f"{name}: update {k} dropped",
                 edit(lambda p, k=k: p["invariant"]["updates"].pop(k)), "E-CONSECUTION")
        yield _m(f"{name}: update {k} adds 2", edit(
            lambda p, k=k, a=a: p["invariant"]["updates"][k]["assign"].__setitem__(
                a, {"sum": [[1, {"aux": a}], [1, {"const": 2}]]})), "E-CONSECUTION")
        yield _m(f"{name}: update {k} repeated", edit(
            lambda p, k=k: p["invariant"]["updates"].append(p["invariant"]["updates"][k])),
            "E-SCHEMA")
        yield _m(f"{name}: update {k} for an unknown transition", edit(
            lambda p, k=k: p["invariant"]["updates"][k]["transition"].__setitem__(
                "request", "zz")), "E-NAME")
        yield _m(f"{name}: update {k} assigns an undeclared variable", edit(
            lambda p, k=k: p["invariant"]["updates"][k]["assign"].__setitem__(
                "undeclared", {"const": 0})), "E-SCHEMA")
    for a in inv["aux"]:
        yield _m(f"{name}: initial value of {a} + 1", edit(
            lambda p, a=a: p["invariant"]["initial_aux"].__setitem__(
                a, p["invariant"]["initial_aux"][a] + 1)), "E-INITIATION")
        yield _m(f"{name}: no initial value for {a}", edit(
            lambda p, a=a: p["invariant"]["initial_aux"].pop(a)), "E-SCHEMA")
        break
    yield _m(f"{name}: aux named badly", edit(
        lambda p: p["invariant"].__setitem__("aux", ["Bad-Name"])), "E-SCHEMA")
    yield _m(f"{name}: invariant missing", edit(lambda p: p.pop("invariant")), "E-SCHEMA")
    if "serial_set" in pf:
        yield _m(f"{name}: trivial S and invariant true", edit(
            lambda p: (p["serial_set"].__setitem__("components", []),
                       p["invariant"].__setitem__("formula", True))), "E-REFUTATION")
    else:
        yield from _walk(name, pf, edit)


def _walk(name: str, pf: Json, edit: Any) -> Iterator[Mutant]:
    """Mutants of a walk-labelled proof's walk names and hints."""
    walk = pf["walk"]
    yield _m(f"{name}: invariant true", edit(
        lambda p: (p["invariant"].__setitem__("formula", True),
                   p["invariant"].pop("hints", None))), "E-REFUTATION")
    yield _m(f"{name}: a serial set besides the walk", edit(
        lambda p: p.__setitem__("serial_set", {"components": []})), "E-SCHEMA")
    for k, e in enumerate(walk["edges"]):
        yield _m(f"{name}: walk edge {k} unknown state", edit(
            lambda p, k=k: p["walk"]["edges"][k]["edge"].__setitem__(0, "{NOPE=1}")), "E-NAME")
        yield _m(f"{name}: walk edge {k} other response", edit(
            lambda p, k=k: p["walk"]["edges"][k]["edge"].__setitem__(2, "99")), "E-NAME")
        yield _m(f"{name}: walk edge {k} unnamed", edit(
            lambda p, k=k: p["walk"]["edges"].pop(k)), "E-REFUTATION")
        if k:
            yield _m(f"{name}: walk edges 0 and {k} swapped", edit(
                lambda p, k=k, e=e: (p["walk"]["edges"][k].__setitem__("aux",
                                                                       p["walk"]["edges"][0]["aux"]),
                                     p["walk"]["edges"][0].__setitem__("aux", e["aux"]))),
                "E-REFUTATION")
    for k, _ in enumerate(walk["ends"]):
        yield _m(f"{name}: end {k} unnamed", edit(lambda p, k=k: p["walk"]["ends"].pop(k)),
                 "E-REFUTATION")
        yield _m(f"{name}: end {k} undeclared", edit(
            lambda p, k=k: p["walk"]["ends"][k].__setitem__("aux", "undeclared")), "E-SCHEMA")
    for k, h in enumerate(pf["invariant"].get("hints", [])):
        for j in sorted(set(h["checks"][0]["from"]) & {0, 3}):
            yield _m(f"{name}: hint {k} without conjunct {j}", edit(
                lambda p, k=k, j=j: p["invariant"]["hints"][k]["checks"][0]["from"].remove(j)),
                "E-CONSECUTION")
        yield _m(f"{name}: hint {k} for an unknown transition", edit(
            lambda p, k=k: p["invariant"]["hints"][k]["transition"].__setitem__("request", "zz")),
            "E-NAME")
        yield _m(f"{name}: hint {k} out of range", edit(
            lambda p, k=k: p["invariant"]["hints"][k]["checks"][0]["prove"].append(10**6)),
            "E-HINT")
        yield _m(f"{name}: hint {k} repeated", edit(
            lambda p, k=k: p["invariant"]["hints"].append(p["invariant"]["hints"][k])),
            "E-SCHEMA")
