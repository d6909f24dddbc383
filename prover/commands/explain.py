"""`ser-prove explain MODEL --slice PLACE [--json]`: the part of the interleaving net that
can put a token on PLACE (debugging view), computed by the same code as `ser-prove
slice` (prover/petri/dynamic_slice.py) for the criterion ⟨M0, {PLACE}⟩:

* maximal dynamic slice: backward from PLACE over every transition with an arc into the
  slice, forward from the initial marking over what that kept, then the filter that
  keeps only what can still lead to PLACE; the transitions and their input places. It is
  structural: it over-approximates what firing sequences can do;
* minimal dynamic slice: first an exact decision whether PLACE can be marked at all
  (breadth-first search, then backward coverability, bounded by `--max-states`), then a
  shortest firing sequence that marks it and what it uses. "none" means the place can
  never be marked, and is said only when that was decided.

PLACE is a place label as printed by `inspect`/exports (`R main/1`, `G {X=1}`,
`L main ({}, y)`), the short form `REQUEST/RESPONSE` for a completed-pair place, or
`p<N>` for the place of index N.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from prover.commands.options import add_deadline_option, add_model_options, defines
from prover.commands.slice import find_place as find_ptnet_place
from prover.errors import UsageError
from prover.frontend.load import load_model
from prover.petri.build import build_interleaving_net
from prover.petri.dynamic_slice import PTNet, from_interleaving, maximal_slice, minimal_slice
from prover.petri.net import PetriNet


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", metavar="MODEL", help="a Ser program (.ser) or an NS (.json)")
    parser.add_argument(
        "--slice", required=True, metavar="PLACE",
        help="place to explain: a label (`R main/1`), REQUEST/RESPONSE, or p<N>",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--max-states", type=int, default=200_000, metavar="N",
        help="bound on markings explored for the minimal slice (default 200000)",
    )
    add_deadline_option(parser, 60.0, "reading the model and explaining the place")
    add_model_options(parser)


def find_place(net: PetriNet, spec: str) -> int:
    """Resolve a PLACE argument (see the module docstring)."""
    i = find_ptnet_place(from_interleaving(net), spec, from_model=True)
    if i is not None:
        return i
    known = ", ".join(p.label() for p in net.places if p.kind == "response")
    raise UsageError(f"no place {spec!r} in the net (completed-pair places: {known})")


def explain_slice(net: PetriNet, place: int, max_states: int) -> dict[str, Any]:
    """The `--json` object. `minimal` is None exactly when `minimal_status` is not
    "sliced"; `minimal_status` "not-coverable" is an exact answer, "undecided" is not."""
    pt: PTNet = from_interleaving(net)
    mx = maximal_slice(pt, [place], pt.initial)
    mn = minimal_slice(pt, [place], pt.initial, max_states=max_states)
    out: dict[str, Any] = {
        "place": {"index": place, "label": net.places[place].label()},
        "net": net.sizes(),
        "maximal": {
            "places": [net.places[i].label() for i in mx.places],
            "transitions": [net.transitions[j].label() for j in mx.transitions],
        },
        "minimal_status": mn.status,
        "minimal_method": mn.method,
    }
    if mn.slice is None:
        out["minimal"] = None
    else:
        sl = mn.slice
        out["minimal"] = {
            "sequence": [net.transitions[j].label() for j in sl.sequence],
            "places": [net.places[i].label() for i in sl.places],
            "transitions": [net.transitions[j].label() for j in sl.transitions],
        }
    return out


def _human(info: dict[str, Any]) -> str:
    mx = info["maximal"]
    lines = [
        f"slice for place {info['place']['label']} (p{info['place']['index']})",
        f"net: {info['net']['places']} places, {info['net']['transitions']} transitions",
        f"maximal dynamic slice: {len(mx['places'])} places, "
        f"{len(mx['transitions'])} transitions",
    ]
    lines += [f"  {t}" for t in mx["transitions"]]
    mn, status = info["minimal"], info["minimal_status"]
    if status == "not-coverable":
        lines.append(
            "minimal dynamic slice: none: no firing sequence marks the place (decided by "
            f"{info['minimal_method']})"
        )
        if mx["transitions"]:
            lines.append(
                "  (the maximal slice is structural: its transitions are connected to the "
                "place, but the token counts never let them mark it)"
            )
    elif status == "undecided":
        lines.append(f"minimal dynamic slice: undecided ({info['minimal_method']})")
    else:
        lines.append(f"minimal dynamic slice: shortest sequence of {len(mn['sequence'])} firings")
        lines += [f"  {k + 1}. {t}" for k, t in enumerate(mn["sequence"])]
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    if args.max_states < 1:
        raise UsageError("--max-states must be a positive integer")
    model = load_model(args.model, state_bound=args.state_bound, ns=args.ns,
                       defines=dict(defines(args)))
    for w in model.warnings:
        print(w.render(), file=sys.stderr)
    net = build_interleaving_net(model.ns)
    info = explain_slice(net, find_place(net, args.slice), args.max_states)
    if args.json:
        print(json.dumps(info, indent=2, ensure_ascii=False))
    else:
        print(_human(info))
    return 0
