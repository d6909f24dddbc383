"""`ser-prove export MODEL --format net|pnml|dot|mcc [--what ns|petri|serial] [-o FILE]`.

* `net`  : the interleaving Petri net in Tina `.net` syntax (SMPT and Tina read it);
* `pnml` : the same net as a PNML place/transition net;
* `dot`  : a Graphviz drawing of the NS, the Petri net or the serial automaton
  (`--what`, default `petri`; the serial automaton is drawn reachable part only);
* `mcc`  : reserved for the MCC export (see `_export_mcc`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from prover import export
from prover.commands.inspect import emit
from prover.errors import UsageError
from prover.frontend.load import DEFAULT_STATE_BOUND, load_model
from prover.petri.build import build_interleaving_net
from prover.serial.automaton import build_serial_automaton

FORMATS = ("net", "pnml", "dot", "mcc")
WHATS = ("ns", "petri", "serial")
EXIT_NOT_AVAILABLE = 2


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", metavar="MODEL", help="a Ser program (.ser) or an NS (.json)")
    parser.add_argument("--format", required=True, choices=FORMATS, help="output format")
    parser.add_argument(
        "--what",
        choices=WHATS,
        default=None,
        help="what to draw with --format dot (default petri); net/pnml/mcc export the net",
    )
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE (default stdout)")
    parser.add_argument(
        "--state-bound", type=int, default=DEFAULT_STATE_BOUND, metavar="N",
        help=f"stop compiling beyond N local x global states (default {DEFAULT_STATE_BOUND})",
    )


# ---- MCC export: placeholder -----------------------------------------------------------
# The MCC format (model directory with PNML and property XML) is added by its own issue.
# Replace the body of `_export_mcc` with the real writer; keep the signature.
def _export_mcc(args: argparse.Namespace) -> int:
    print("ser-prove export: --format mcc is not available yet", file=sys.stderr)
    return EXIT_NOT_AVAILABLE
# ---- end of the MCC placeholder --------------------------------------------------------


def render(args: argparse.Namespace) -> str:
    """The exported text for `--format` net/pnml/dot."""
    what = args.what or "petri"
    if args.format in ("net", "pnml") and what != "petri":
        raise UsageError(f"--format {args.format} exports the Petri net; use --what petri")
    model = load_model(args.model, state_bound=args.state_bound)
    for w in model.warnings:
        print(f"warning: {w}", file=sys.stderr)
    name = Path(args.model).stem
    if args.format == "dot" and what == "ns":
        return export.ns_to_dot(model.ns, name)
    if args.format == "dot" and what == "serial":
        return export.serial_to_dot(build_serial_automaton(model.ns).reachable(), name)
    net = build_interleaving_net(model.ns)
    if args.format == "net":
        return export.petri_to_tina(net, name)
    if args.format == "pnml":
        return export.petri_to_pnml(net, name)
    return export.petri_to_dot(net, name)


def run(args: argparse.Namespace) -> int:
    if args.state_bound < 1:
        raise UsageError("--state-bound must be a positive integer")
    if args.format == "mcc":
        return _export_mcc(args)
    text = render(args)
    if args.output is None:
        emit(text)
        return 0
    try:
        Path(args.output).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {args.output}: {exc.strerror or exc}") from None
    return 0
