"""MCC export: the `.net` / XML pairs parse as SMPT parses them (../shared/reference/
smpt.md §4.1, §4.4) and mean exactly the sliced disjunct."""

from __future__ import annotations

import json
import random
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from sls_helpers import BENCH_DIR, needs_bench

from prover.frontend.load import load_model
from prover.petri.build import build_interleaving_net
from prover.serial.automaton import build_serial_automaton
from prover.serial.parikh import compute_serial_set
from prover.target import Var, build_target, slice_disjunct

NS = "{http://mcc.lip6.fr/}"
SUFFIX = {"K": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18}


def _num(tok: str) -> int:
    if tok and tok[-1] in SUFFIX:
        return int(tok[:-1]) * SUFFIX[tok[-1]]
    return int(tok)


Arcs = dict[str, int]


def parse_net_like_smpt(text: str) -> tuple[str, Arcs, dict[str, tuple[Arcs, Arcs]]]:
    """Line-oriented, as SMPT: `#`/`,` → `.`, split on whitespace; net/tr/pl lines."""
    name = ""
    places: Arcs = {}
    trans: dict[str, tuple[Arcs, Arcs]] = {}
    for raw in text.splitlines():
        toks = raw.replace("#", ".").replace(",", ".").strip().split()
        if not toks or toks[0].startswith("."):
            continue
        kind = toks[0]
        if kind == "net":
            name = toks[1].replace("{", "").replace("}", "")
        elif kind == "tr":
            tname = toks[1].replace("{", "").replace("}", "")
            assert tname not in trans, "a transition split over lines crashes SMPT"
            rest = toks[2:]
            assert ":" not in rest and "->" in rest
            k = rest.index("->")
            pre: dict[str, int] = {}
            post: dict[str, int] = {}
            for side, arcs in ((pre, rest[:k]), (post, rest[k + 1 :])):
                for a in arcs:
                    p, _, w = a.partition("*")
                    assert "?" not in p and "!" not in p and "[" not in p
                    assert p not in side, "SMPT overwrites duplicate arcs"
                    side[p] = _num(w) if w else 1
                    places.setdefault(p, 0)
            trans[tname] = (pre, post)
        elif kind == "pl":
            p = toks[1].replace("{", "").replace("}", "")
            assert len(toks) == 3, "arcs on pl lines are not supported by SMPT"
            places[p] = _num(toks[2].strip("()"))
    # every name a simple SMT-LIB symbol, no clash between places and transitions
    for n in list(places) + list(trans):
        assert n.isidentifier() and not n[0].isdigit()
    assert not set(places) & set(trans)
    return name, places, trans


def _eval_int(e: ET.Element, m: dict[str, int]) -> int:
    tag = e.tag.removeprefix(NS)
    if tag == "tokens-count":
        return sum(m[p.text or ""] for p in e)
    if tag == "integer-constant":
        return int(e.text or "")
    if tag == "integer-add":
        return sum(_eval_int(c, m) for c in e)
    if tag == "integer-mul":
        r = 1
        for c in e:
            r *= _eval_int(c, m)
        return r
    raise AssertionError(f"unexpected integer term {tag}")


def _eval_bool(e: ET.Element, m: dict[str, int]) -> bool:
    tag = e.tag.removeprefix(NS)
    if tag == "conjunction":
        return all(_eval_bool(c, m) for c in e)
    if tag == "disjunction":
        return any(_eval_bool(c, m) for c in e)
    if tag == "negation":
        return not _eval_bool(e[0], m)
    if tag in ("integer-le", "integer-ge", "integer-eq"):
        a, b = (_eval_int(c, m) for c in e)
        return a <= b if tag == "integer-le" else a >= b if tag == "integer-ge" else a == b
    raise AssertionError(f"unexpected formula {tag}")


def parse_property_like_smpt(text: str) -> ET.Element:
    root = ET.fromstring(text)
    assert root.tag == NS + "property-set"
    (prop,) = list(root)
    kids = list(prop)
    assert kids[0].tag == NS + "id" and kids[1].tag == NS + "description"
    formula = kids[2]
    assert formula.tag == NS + "formula"
    ef = formula[0]
    assert ef.tag == NS + "exists-path" and ef[0].tag == NS + "finally"
    return ef[0][0]


@needs_bench
@pytest.mark.parametrize("name", ["a2.ser", "a5.ser", "d1.ser", "f5.ser", "g6.ser", "b2.json"])
def test_mcc_files_parse_and_agree(name: str, tmp_path: Path) -> None:
    from prover.petri.export_mcc import write_mcc

    model = load_model(BENCH_DIR / name)
    paths = write_mcc(model, tmp_path)
    names = json.loads((tmp_path / "names.json").read_text())
    net = build_interleaving_net(model.ns)
    target = build_target(net, compute_serial_set(build_serial_automaton(model.ns)))
    assert len(names["disjuncts"]) == len(target.disjuncts)
    assert len(paths) == 4 * len(target.disjuncts) + 1  # .net, .xml, and the MCC folder
    rng = random.Random(name)
    for i, d in enumerate(target.disjuncts):
        sd = slice_disjunct(net, d)
        sl = sd.sliced
        _, places, trans = parse_net_like_smpt((tmp_path / f"disjunct-{i:03d}.net").read_text())
        fresh = sd.disjunct.fresh
        assert len(trans) == len(sl.net.transitions) + 2 * len(fresh)
        for j, t in enumerate(sl.net.transitions):
            pre, post = trans[f"t{sl.transition_map[j]}"]
            assert pre == {f"p{sl.place_map[p]}": w for p, w in t.pre}
            assert post == {f"p{sl.place_map[p]}": w for p, w in t.post}
        m0 = sl.net.initial_vector()
        for k, p in enumerate(sl.place_map):
            assert places[f"p{p}"] == m0[k]
        phi = parse_property_like_smpt((tmp_path / f"disjunct-{i:03d}.xml").read_text())
        # the property means the sliced disjunct, fresh q = g_p − g_n
        for _ in range(200):
            mk = [rng.randint(0, 3) for _ in sl.place_map]
            qs = {v: rng.randint(-3, 3) for v in fresh}
            env = {f"p{p}": mk[k] for k, p in enumerate(sl.place_map)}
            for v, q in qs.items():
                env[f"g{v.index}p"], env[f"g{v.index}n"] = max(q, 0), max(-q, 0)
            vals: dict[Var, int] = {Var("place", k): mk[k] for k in range(len(mk))}
            vals.update(qs)
            expected = all(c.evaluate(vals) for c in sd.disjunct.constraints)
            assert _eval_bool(phi, env) == expected
