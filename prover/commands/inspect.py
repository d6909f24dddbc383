"""`ser-prove inspect MODEL [--json] [--no-target]`: for a Ser program, the sizes of its
per-variable steps (domains, local states, transitions, escapes, the widest footprint);
then the sizes of the NS, the interleaving Petri net and the serial automaton (its part
reachable from the initial state, edges sorted), the serial set S (simple linear
components and periods) and the non-serializable target (conjunctive disjuncts and the
sliced net of each). A program too large for a network system (past the state bound)
gets the first part, and the reason for the rest."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from prover.commands.options import add_deadline_option, add_model_options, defines
from prover.errors import StateBoundError, UsageError
from prover.frontend.load import LoadedModel, load_model
from prover.petri.build import build_interleaving_net
from prover.serial.automaton import build_serial_automaton


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", metavar="MODEL", help="a Ser program (.ser) or an NS (.json)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--no-target", action="store_true",
        help="skip splitting the target into disjuncts and slicing each (seconds on the "
        "largest models); S is still reported",
    )
    add_deadline_option(parser, 60.0, "reading, building and measuring the model")
    add_model_options(parser)


def per_variable(model: LoadedModel) -> dict[str, Any] | None:
    """The sizes of a Ser program's per-variable steps on the domains the reduction engine
    grows (prover/reduction/table.py), or why there are none; None for an NS in JSON."""
    if model.steps is None:
        return None
    from prover.errors import CompileError
    from prover.reduction.table import Limits, TableTooLarge, grow_domains

    try:
        return grow_domains(model.steps, Limits()).sizes()
    except (TableTooLarge, CompileError) as exc:
        return {"error": str(exc)}


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


def _human(model: LoadedModel, info: dict[str, Any]) -> str:
    lines = [f"model: {model.path} ({model.kind})"]
    per = info.get("per_variable")
    if per is not None:
        lines += ["per-variable steps (on the domains the reduction engine grows):"]
        lines += _table([(k.replace("_", " "), str(v)) for k, v in per.items()])
    ns = info["network_system"]
    if "error" in ns:
        lines += [f"network system: not built ({ns['error']})"]
        return "\n".join(lines)
    pn = info["petri_net"]
    lines += ["network system:"]
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
        f"serial automaton (reachable part): {len(edges)} edges",
        f"  initial: {info['serial_automaton']['initial']}",
    ]
    for g, req, resp, g2 in edges:
        lines.append(f"  {g} --{req}/{resp}--> {g2}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    if args.state_bound < 1:
        raise UsageError("--state-bound must be a positive integer")
    model = load_model(args.model, state_bound=args.state_bound, ns=args.ns,
                       defines=dict(defines(args)), lazy=True)
    for w in model.warnings:
        print(w.render(), file=sys.stderr)
    info: dict[str, Any] = {}
    steps = per_variable(model)
    if steps is not None:
        info["per_variable"] = steps
    try:
        info.update(summary(model, serial_set=True, target=not args.no_target))
    except StateBoundError as exc:  # too large for a network system, not a wrong model
        if steps is None or "error" in steps:
            raise
        info["network_system"] = {"error": exc.message}
    if args.json:
        # ASCII-only JSON: valid whatever the terminal's encoding, same names once decoded.
        emit(json.dumps(info) + "\n")
    else:
        emit(_human(model, info) + "\n")
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
