"""MCC export: per target disjunct, the sliced net (Tina `.net`) and the question as an
MCC `ReachabilityCardinality` property (XML), for SMPT, TAPAAL or ITS-Tools.

`write_mcc(model, out_dir)` writes, for disjunct i (three digits):

* `disjunct-NNN.net`: the bidirectionally sliced interleaving net. Places are named
  `p<k>` and transitions `t<k>` with k the index in the FULL net (plain identifiers:
  SMPT maps names to SMT-LIB symbols verbatim and mangles `#`, `,`, braces). Fresh
  integer variables of the disjunct (divisibility) become two generator places
  `g<j>p` / `g<j>n` (q = g<j>p − g<j>n) with generator transitions `tg<j>p` / `tg<j>n`
  with no input, so "∃ q" becomes reachability of enough generator tokens.
* `disjunct-NNN.xml`: `<property-set xmlns="http://mcc.lip6.fr/">` with one property
  `EF (conjunction of the disjunct's constraints)`, written with `integer-le` only (an
  equality is two `integer-le`), `tokens-count`, `integer-constant`, `integer-add` and
  `integer-mul` (SMPT reads all of them).
* `disjunct-NNN/model.pnml` and `disjunct-NNN/ReachabilityCardinality.xml`: the same
  net and property as an MCC model folder, for tools that read the contest's layout;
* `names.json`: every place/transition name → the NS objects it stands for, and per
  disjunct whether slicing alone showed it unreachable.

EF TRUE for some disjunct means the model is NOT serializable (a quiescent reachable
marking with completed counts outside S); FALSE for all disjuncts means serializable.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Protocol
from xml.sax.saxutils import escape

from prover.ns import NetworkSystem
from prover.petri.build import build_interleaving_net
from prover.petri.net import PetriNet
from prover.petri.read import ptnet_to_pnml, read_tina
from prover.serial.automaton import build_serial_automaton
from prover.serial.parikh import compute_serial_set
from prover.target import Conjunction, LinearConstraint, Var, build_target, slice_disjunct


class _Model(Protocol):
    @property
    def ns(self) -> NetworkSystem: ...

    @property
    def path(self) -> str: ...


def _place_name(v: Var, place_map: tuple[int, ...]) -> list[tuple[int, str]]:
    """(sign, name) pairs standing for variable v (a fresh variable is g_p − g_n)."""
    if v.kind == "place":
        return [(1, f"p{place_map[v.index]}")]
    return [(1, f"g{v.index}p"), (-1, f"g{v.index}n")]


def net_text(
    net: PetriNet, place_map: tuple[int, ...], transition_map: tuple[int, ...],
    fresh: tuple[Var, ...], name: str,
) -> str:
    """The sliced net (and generator places) in Tina `.net` syntax."""

    def arcs(items: tuple[tuple[int, int], ...]) -> str:
        return " ".join(
            f"p{place_map[p]}" + (f"*{w}" if w != 1 else "") for p, w in items
        )

    lines = [f"net {name}"]
    for j, t in enumerate(net.transitions):
        lines.append(f"tr t{transition_map[j]} {arcs(t.pre)} -> {arcs(t.post)}".replace("  ", " "))
    for v in fresh:
        lines.append(f"tr tg{v.index}p -> g{v.index}p")
        lines.append(f"tr tg{v.index}n -> g{v.index}n")
    init = dict(net.initial)
    for i in range(len(net.places)):
        lines.append(f"pl p{place_map[i]} ({init.get(i, 0)})")
    for v in fresh:
        lines.append(f"pl g{v.index}p (0)")
        lines.append(f"pl g{v.index}n (0)")
    return "\n".join(lines) + "\n"


def _term(parts: list[tuple[int, str]], const: int) -> str:
    """Σ c·tokens(name) + const with every c > 0 and const ≥ 0."""
    items: list[str] = []
    for c, nm in parts:
        tc = f"<tokens-count><place>{nm}</place></tokens-count>"
        if c == 1:
            items.append(tc)
        else:
            items.append(f"<integer-mul><integer-constant>{c}</integer-constant>{tc}</integer-mul>")
    if const or not items:
        items.append(f"<integer-constant>{const}</integer-constant>")
    if len(items) == 1:
        return items[0]
    return "<integer-add>" + "".join(items) + "</integer-add>"


def _le(c: LinearConstraint, place_map: tuple[int, ...], flip: bool) -> str:
    """`Σ coeff·var + const ≥ 0` (or ≤ 0 when flip) as `integer-le(rhs, lhs)`."""
    pos: dict[str, int] = {}
    neg: dict[str, int] = {}
    sign = -1 if flip else 1
    for v, k in c.coeffs:
        for s, nm in _place_name(v, place_map):
            kk = sign * s * k
            if kk > 0:
                pos[nm] = pos.get(nm, 0) + kk
            else:
                neg[nm] = neg.get(nm, 0) - kk
    const = sign * c.constant
    lhs = _term(sorted((k, n) for n, k in pos.items() if k), max(const, 0))
    rhs = _term(sorted((k, n) for n, k in neg.items() if k), max(-const, 0))
    return f"<integer-le>{rhs}{lhs}</integer-le>"


def property_xml(d: Conjunction, place_map: tuple[int, ...], prop_id: str, desc: str) -> str:
    """One MCC ReachabilityCardinality property `EF d`."""
    atoms: list[str] = []
    for c in d.constraints:
        atoms.append(_le(c, place_map, False))
        if c.relation == "=":
            atoms.append(_le(c, place_map, True))
    if not atoms:
        body = (
            "<integer-le><integer-constant>0</integer-constant>"
            "<integer-constant>0</integer-constant></integer-le>"
        )
    elif len(atoms) == 1:
        body = atoms[0]
    else:
        body = "<conjunction>" + "".join(atoms) + "</conjunction>"
    return (
        '<?xml version="1.0"?>\n'
        '<property-set xmlns="http://mcc.lip6.fr/">\n'
        "  <property>\n"
        f"    <id>{escape(prop_id)}</id>\n"
        f"    <description>{escape(desc)}</description>\n"
        "    <formula>\n"
        f"      <exists-path><finally>{body}</finally></exists-path>\n"
        "    </formula>\n"
        "  </property>\n"
        "</property-set>\n"
    )


def write_mcc(model: _Model, out_dir: str | Path) -> list[Path]:
    """Write the MCC files for `model` (a `LoadedModel`) into `out_dir`; returns the
    written paths (sorted)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    ns = model.ns
    net = build_interleaving_net(ns)
    s = compute_serial_set(build_serial_automaton(ns))
    target = build_target(net, s)
    base = "".join(ch if ch.isalnum() else "_" for ch in Path(model.path).stem) or "model"
    written: list[Path] = []
    index: list[dict[str, object]] = []
    for i, d in enumerate(target.disjuncts):
        sd = slice_disjunct(net, d)
        sl = sd.sliced
        stem = f"disjunct-{i:03d}"
        net_path = out / f"{stem}.net"
        xml_path = out / f"{stem}.xml"
        text = net_text(sl.net, sl.place_map, sl.transition_map, sd.disjunct.fresh,
                        f"{base}_{i}")
        net_path.write_text(text)
        # the property is over the sliced net: place indices of sd.disjunct are sliced
        prop = property_xml(
            sd.disjunct, sl.place_map, f"{base}-ReachabilityCardinality-{i:03d}",
            f"disjunct {i}: quiescent marking whose completed counts are not serial",
        )
        xml_path.write_text(prop)
        # the same as an MCC model folder: model.pnml and ReachabilityCardinality.xml
        folder = out / stem
        folder.mkdir(exist_ok=True)
        pnml_path = folder / "model.pnml"
        pnml_path.write_text(ptnet_to_pnml(read_tina(text, str(net_path))))
        (folder / "ReachabilityCardinality.xml").write_text(prop)
        written += [net_path, xml_path, pnml_path, folder / "ReachabilityCardinality.xml"]
        index.append(
            {
                "disjunct": i,
                "net": net_path.name,
                "property": xml_path.name,
                "places": sl.sizes()[0],
                "transitions": sl.sizes()[1],
                "unreachable_by_slicing": sd.unreachable,
            }
        )
    names = {
        "model": model.path,
        "meaning": "EF TRUE for some disjunct = not serializable; FALSE for all = serializable",
        "places": {f"p{i}": p.label() for i, p in enumerate(net.places)},
        "transitions": {f"t{j}": t.label() for j, t in enumerate(net.transitions)},
        "disjuncts": index,
    }
    names_path = out / "names.json"
    names_path.write_text(json.dumps(names, indent=2, ensure_ascii=False) + "\n")
    written.append(names_path)
    return sorted(written)
