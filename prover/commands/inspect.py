"""`ser-prove inspect MODEL [--json]`: sizes of the NS, the interleaving Petri net and
the serial automaton (its part reachable from the initial state, edges sorted)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from prover.errors import UsageError
from prover.frontend.load import DEFAULT_STATE_BOUND, LoadedModel, load_model
from prover.petri.build import build_interleaving_net
from prover.serial.automaton import SerialAutomaton, build_serial_automaton


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", metavar="MODEL", help="a Ser program (.ser) or an NS (.json)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--state-bound",
        type=int,
        default=DEFAULT_STATE_BOUND,
        metavar="N",
        help=f"stop compiling beyond N local x global states (default {DEFAULT_STATE_BOUND})",
    )


def summary(model: LoadedModel) -> dict[str, Any]:
    """The `--json` object (also used by tests and other commands)."""
    net = build_interleaving_net(model.ns)
    serial = build_serial_automaton(model.ns).reachable()
    return {
        "network_system": model.ns.sizes(),
        "petri_net": net.sizes(),
        "serial_automaton": {
            "initial": serial.initial,
            "edges": sorted(e.as_list() for e in serial.edges),
        },
    }


def _table(rows: list[tuple[str, str]]) -> list[str]:
    width = max(len(k) for k, _ in rows)
    return [f"  {k:<{width}}  {v}" for k, v in rows]


def _human(model: LoadedModel, info: dict[str, Any], serial: SerialAutomaton) -> str:
    ns, pn = info["network_system"], info["petri_net"]
    lines = [f"model: {model.path} ({model.kind})", "network system:"]
    lines += _table([(k, str(v)) for k, v in ns.items()])
    lines += ["petri net (interleaving, ser-reference 4.2):"]
    lines += _table([(k, str(v)) for k, v in pn.items()])
    edges = info["serial_automaton"]["edges"]
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
    model = load_model(args.model, state_bound=args.state_bound)
    for w in model.warnings:
        print(f"warning: {w}", file=sys.stderr)
    info = summary(model)
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
