"""`ser-prove export MODEL --format net|pnml|dot|mcc [--what ns|petri|serial] [-o FILE]`.

* `net`  : the interleaving Petri net in Tina `.net` syntax (SMPT and Tina read it);
* `pnml` : the same net as a PNML place/transition net;
* `dot`  : a Graphviz drawing of the NS, the Petri net or the serial automaton
  (`--what`, default `petri`; the serial automaton is drawn reachable part only);
* `mcc`  : per target disjunct, the sliced net and an MCC ReachabilityCardinality
  property, into the folder `-o DIR` (see prover/petri/export_mcc.py);
* `promela`: the program with at most `--requests K` requests for SPIN, with the temporal
  property `--formula F` as an inline `ltl` claim (prover/ltl/promela.py, docs/ltl.md);
* `net` or `pnml` with `--what pdnet --requests K`: the program's PDNet (a place per
  variable value, prover/ltl/pdnet_export.py), a safe net for unfolding tools.

A raw P/T net (PNML in any dialect prover/petri/read.py reads, or Tina `.net`) is
converted: `--format net` or `pnml` writes it again with its own identifiers and names.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from prover.commands.inspect import emit
from prover.commands.options import add_deadline_option, add_model_options, defines
from prover.errors import SerError, UsageError
from prover.frontend.load import load_model
from prover.ns import NetworkSystem
from prover.petri import export
from prover.petri.build import build_interleaving_net
from prover.petri.read import RAW_SUFFIXES, ptnet_to_pnml, ptnet_to_tina, read_net_file
from prover.run.output import check_destination, check_folder, write_atomically
from prover.serial.automaton import build_serial_automaton


class NoCounterexampleError(SerError):
    """`export --what counterexample` on a model where the search found none."""

    code = "E-NO-COUNTEREXAMPLE"


FORMATS = ("net", "pnml", "dot", "mcc", "promela")
MAX_PROMELA_REQUESTS = 200
"""SPIN runs at most 255 processes, the environment and the requests together."""
WHATS = ("ns", "petri", "serial", "counterexample", "pdnet")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", metavar="MODEL|NET",
                        help="a Ser program (.ser), an NS (.json), or a P/T net to convert "
                        "(.pnml, .xml: PNML of any dialect; .net: Tina)")
    parser.add_argument("--format", required=True, choices=FORMATS, help="output format")
    parser.add_argument(
        "--what",
        choices=WHATS,
        default=None,
        help="what to draw with --format dot (default petri): the NS, the Petri net, the "
        "serial automaton, or a shortest counterexample as a message-sequence chart "
        "(found by the explicit search within --timeout); net/pnml/mcc export the net; "
        "with net/pnml, pdnet: the program's PDNet with --requests K (a safe net with a "
        "place per variable value, for unfolding tools)",
    )
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE (default stdout)")
    add_deadline_option(parser, 20.0, "the whole export, and the counterexample search of "
                        "--what counterexample")
    parser.add_argument("--requests", type=int, metavar="K",
                        help="with --format promela or --what pdnet: at most K requests "
                        f"arrive (1 to {MAX_PROMELA_REQUESTS})")
    parser.add_argument("--formula", metavar="F",
                        help="with --format promela: an LTL-X property, in the syntax of "
                        "`ser-prove ltl --formula`, written as the model's `ltl` claim")
    add_model_options(parser)


def _promela(args: argparse.Namespace) -> str:
    from prover.errors import FormulaError
    from prover.ltl.formula import parse_formula, shown
    from prover.ltl.lasso import ser_globals
    from prover.ltl.promela import to_promela

    k = args.requests
    if k is None or not 1 <= k <= MAX_PROMELA_REQUESTS:
        raise UsageError(f"--format promela needs --requests K with 1 <= K <= "
                         f"{MAX_PROMELA_REQUESTS}" + ("" if k is None else f" (got {k})"))
    ns = load_model(args.model, state_bound=args.state_bound, ns=args.ns,
                       defines=dict(defines(args))).ns
    formula = None
    if args.formula is not None:
        try:
            formula = parse_formula(args.formula, ser_globals(ns),
                                    frozenset(e.request for e in ns.requests))
        except FormulaError as exc:
            raise FormulaError(f"--formula {shown(args.formula)}: {exc.message}") from None
    return to_promela(ns, k, formula)


def _pdnet(args: argparse.Namespace) -> str:
    from prover.ltl.pdnet import PDNet
    from prover.ltl.pdnet_export import pdnet_to_ptnet

    k = args.requests
    if args.format not in ("net", "pnml"):
        raise UsageError("--what pdnet is written with --format net or pnml")
    if k is None or not 1 <= k <= MAX_PROMELA_REQUESTS:
        raise UsageError(f"--what pdnet needs --requests K with 1 <= K <= "
                         f"{MAX_PROMELA_REQUESTS}" + ("" if k is None else f" (got {k})"))
    ns = load_model(args.model, state_bound=args.state_bound, ns=args.ns,
                       defines=dict(defines(args))).ns
    net = pdnet_to_ptnet(PDNet(ns, k), Path(args.model).stem)
    return ptnet_to_tina(net) if args.format == "net" else ptnet_to_pnml(net)


def _export_mcc(args: argparse.Namespace) -> int:
    """Per target disjunct, the sliced net (.net) and an MCC ReachabilityCardinality
    property (XML) into the folder given by -o."""
    from prover.petri.export_mcc import write_mcc

    if args.output is None:
        raise UsageError("--format mcc writes a folder: give it with -o DIR")
    check_folder(args.output, [args.model], "net files")
    model = load_model(args.model, state_bound=args.state_bound, ns=args.ns,
                       defines=dict(defines(args)))
    try:
        written = write_mcc(model, args.output)
    except OSError as exc:
        raise UsageError(f"cannot write {args.output}: {exc.strerror or exc}") from None
    print(f"wrote {len(written)} files to {args.output}", file=sys.stderr)
    return 0


def _counterexample_dot(ns: NetworkSystem, name: str, timeout_s: float) -> str:
    import time

    from prover.certificate.explain import counterexample_to_dot
    from prover.engines.explicit import find_counterexample

    res = find_counterexample(ns, deadline=time.monotonic() + max(0.0, timeout_s))
    if res.counterexample is None:
        raise NoCounterexampleError(
            f"no counterexample found with up to {res.exhausted_requests} requests"
            + ("" if res.complete else f" ({res.stop_reason} limit)")
            + "; `ser-prove MODEL` decides the model"
        )
    return counterexample_to_dot(ns, res.counterexample, title=name)


def _convert(args: argparse.Namespace) -> str:
    """A raw P/T net written again as Tina `.net` or PNML."""
    if args.format not in ("net", "pnml") or args.what not in (None, "petri"):
        raise UsageError(f"{args.model}: a P/T net converts to --format net or pnml only")
    net = read_net_file(args.model)
    return ptnet_to_tina(net) if args.format == "net" else ptnet_to_pnml(net)


def render(args: argparse.Namespace) -> str:
    """The exported text for `--format` net/pnml/dot."""
    what = args.what or "petri"
    if args.format in ("net", "pnml") and what != "petri":
        raise UsageError(f"--format {args.format} exports the Petri net; use --what petri")
    model = load_model(args.model, state_bound=args.state_bound, ns=args.ns,
                       defines=dict(defines(args)))
    for w in model.warnings:
        print(w.render(), file=sys.stderr)
    name = Path(args.model).stem
    if args.format == "dot" and what == "ns":
        return export.ns_to_dot(model.ns, name)
    if args.format == "dot" and what == "counterexample":
        return _counterexample_dot(model.ns, name, args.timeout)
    if what == "counterexample":
        raise UsageError("--what counterexample needs --format dot")
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
    raw = Path(args.model).suffix.lower() in RAW_SUFFIXES
    if args.format == "mcc" and not raw:
        return _export_mcc(args)
    if args.output is not None:
        check_destination(args.output, [args.model], "output")
    if args.formula is not None and args.format != "promela" or args.requests is not None \
            and args.format != "promela" and args.what != "pdnet":
        raise UsageError("--requests goes with --format promela or --what pdnet, --formula "
                         "with --format promela")
    if args.format == "promela" or args.what == "pdnet":
        if raw:
            raise UsageError(f"{args.model}: a P/T net has no requests to write")
        text = _promela(args) if args.format == "promela" else _pdnet(args)
    else:
        text = _convert(args) if raw else render(args)
    if args.output is None:
        emit(text)
        return 0
    write_atomically(text, args.output, "output")
    return 0
