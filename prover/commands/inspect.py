"""`ser-prove inspect MODEL [--json] [--no-target]`: sizes of the NS, the interleaving
Petri net and the serial automaton (its part reachable from the initial state, edges
sorted), the serial set S (simple linear components and periods) and the
non-serializable target (conjunctive disjuncts and the sliced net of each)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from prover.commands.options import add_model_options
from prover.errors import UsageError
from prover.frontend.load import LoadedModel, load_model
from prover.petri.build import build_interleaving_net
from prover.serial.automaton import SerialAutomaton, build_serial_automaton


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", metavar="MODEL", help="a Ser program (.ser) or an NS (.json)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--no-target", action="store_true",
        help="skip splitting the target into disjuncts and slicing each (seconds on the "
        "largest models); S is still reported",
    )
    add_model_options(parser)


def summary(model: LoadedModel, *, serial_set: bool = False,
            target: bool = False) -> dict[str, Any]:
    """The `--json` object (also used by tests and other commands)."""
    net = build_interleaving_net(model.ns)
    automaton = build_serial_automaton(model.ns)
    serial = automaton.reachable()
    info: dict[str, Any] = {
        "network_system": model.ns.sizes(),
        "petri_net": net.sizes(),
        "serial_automaton": {
            "initial": serial.initial,
            "edges": sorted(e.as_list() for e in serial.edges),
        },
    }
    if serial_set or target:
        from prover.serial.parikh import compute_serial_set, serial_set_summary
        from prover.target import TargetTooLarge, build_target, target_summary

        s = compute_serial_set(automaton)
        info["serial_set"] = serial_set_summary(s)
        if target:
            try:
                info["target"] = target_summary(net, build_target(net, s, split=True))
            except TargetTooLarge as exc:
                info["target"] = {"disjuncts": None, "error": str(exc)}
    return info


def _table(rows: list[tuple[str, str]]) -> list[str]:
    width = max(len(k) for k, _ in rows)
    return [f"  {k:<{width}}  {v}" for k, v in rows]


def _human(model: LoadedModel, info: dict[str, Any], serial: SerialAutomaton) -> str:
    ns, pn = info["network_system"], info["petri_net"]
    lines = [f"model: {model.path} ({model.kind})", "network system:"]
    lines += _table([(k, str(v)) for k, v in ns.items()])
    lines += ["petri net (interleaving net of the NS):"]
    lines += _table([(k, str(v)) for k, v in pn.items()])
    edges = info["serial_automaton"]["edges"]
    if "serial_set" in info:
        lines += ["serial set S (simple linear sets):"]
        lines += _table([(k, str(v)) for k, v in info["serial_set"].items()])
    if "target" in info:
        t = info["target"]
        sliced = t.get("sliced") or []
        lines += [f"target (quiescent, completed counts not in S): {t.get('disjuncts')} "
                  "disjuncts" + (f" ({t['error']})" if "error" in t else "")]
        lines += [f"  disjunct {i}: sliced net {d['places']} places, {d['transitions']} "
                  "transitions" for i, d in enumerate(sliced)]
    lines += [
        f"serial automaton (reachable part): {len(serial.states)} states, {len(edges)} edges",
        f"  initial: {serial.initial}",
    ]
    for g, req, resp, g2 in edges:
        lines.append(f"  {g} --{req}/{resp}--> {g2}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    if args.state_bound < 1:
        raise UsageError("--state-bound must be a positive integer")
    model = load_model(args.model, state_bound=args.state_bound, ns=args.ns)
    for w in model.warnings:
        print(f"warning: {w}", file=sys.stderr)
    info = summary(model, serial_set=True, target=not args.no_target)
    if args.json:
        # ASCII-only JSON: valid whatever the terminal's encoding, same names once decoded.
        emit(json.dumps(info) + "\n")
    else:
        emit(_human(model, info, build_serial_automaton(model.ns).reachable()) + "\n")
    return 0


def emit(text: str) -> None:
    """Write to stdout; names the terminal cannot encode are shown as escapes instead of
    failing (a model may use any Unicode in NS JSON names)."""
    try:
        sys.stdout.write(text)
    except UnicodeEncodeError:
        enc = sys.stdout.encoding or "utf-8"
        sys.stdout.flush()
        sys.stdout.buffer.write(text.encode(enc, errors="backslashreplace"))
        sys.stdout.buffer.flush()
