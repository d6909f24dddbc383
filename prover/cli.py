"""`ser-prove`: command-line entry point.

`ser-prove MODEL...` decides serializability; `ser-prove COMMAND ...` runs one of the
other commands (inspect, export, explain, simulate, bench, ...). Each command lives in its
own module under `prover/commands/` exposing `configure(parser)` and `run(args) -> int`.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import time
from collections.abc import Sequence

from prover import __version__
from prover.errors import SerError
from prover.run.bounded import run_bounded
from prover.run.deadline import Interrupted, interruptible

# command name -> (module, one-line help). The default command is "prove".
COMMANDS: dict[str, tuple[str, str]] = {
    "prove": ("prover.commands.prove", "decide serializability and write a certificate"),
    "inspect": ("prover.commands.inspect", "print sizes of the NS, Petri net and serial automaton"),
    "export": ("prover.commands.export", "write the net (.net, PNML, MCC) or DOT drawings"),
    "explain": ("prover.commands.explain", "debugging views: slices of the net"),
    "slice": ("prover.commands.slice", "maximal/minimal dynamic slice of a model or P/T net"),
    "bench": ("prover.commands.bench", "run models and print a benchmark table"),
    "ltl": ("prover.commands.ltl", "check an LTL-X property with at most K requests"),
    "simulate": ("prover.commands.simulate", "random runs of a Ser program, printed as trails"),
    "server": ("prover.commands.server", "a fork server that makes small runs cheap"),
    "benchmarks": ("prover.commands.benchmarks", "get the paper's models and the scale families"),
}

# Run in a child under their --timeout and the memory limit (prove, ltl and bench bound
# each model themselves; the server serves runs that do).
BOUNDED = frozenset({"inspect", "export", "explain", "slice", "simulate"})
EXIT_USAGE = 2
EXIT_INTERNAL = 4
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, what a shell reports for a writer killed by it


def _parser_for(command: str) -> argparse.ArgumentParser:
    module_name, help_text = COMMANDS[command]
    module = importlib.import_module(module_name)
    prog = "ser-prove" if command == "prove" else f"ser-prove {command}"
    parser = argparse.ArgumentParser(prog=prog, description=help_text)
    module.configure(parser)
    parser.set_defaults(_run=module.run)
    return parser


def _top_help() -> str:
    """The commands, then the default command's own help (its options are the ones most
    used, so `ser-prove --help` shows them instead of hiding them behind `prove --help`)."""
    lines = [
        f"ser-prove {__version__}: decide serializability of Ser programs and network systems",
        "",
        "usage: ser-prove MODEL... [options]       (same as: ser-prove prove MODEL...)",
        "       ser-prove COMMAND [options]",
        "",
        "commands:",
    ]
    for name, (_, help_text) in COMMANDS.items():
        lines.append(f"  {name:<10} {help_text}")
    lines += ["", "Run `ser-prove COMMAND --help` for the options of a command.\n"
              "Exit codes: 0 serializable, 1 not serializable, 2 input or usage error,\n"
              "3 undecided (a certificate the checker rejected, a bug, is among the\n"
              "reasons; the next engine goes on), 4 internal error (a crash: a bug);\n"
              "with several models the most severe (4 > 2 > 3 > 1 > 0). Errors carry a\n"
              "stable code (E-SYNTAX, E-STATE-BOUND, ...).", "",
              "ser-prove MODEL... (the default command, `prove`):", ""]
    prove_help = _parser_for("prove").format_help()
    options = prove_help[prove_help.find("positional arguments"):]
    return "\n".join(lines) + "\n" + options.rstrip()


def main(argv: Sequence[str] | None = None, *, started: float | None = None) -> int:
    """Run one command line; `started`: the `time.monotonic()` at which the `ser-prove`
    process started, whose start-up then counts against the first model's deadline (None:
    nothing spent, as when tests call this). A reader that goes away (`ser-prove -h |
    head`) ends the output quietly: stdout is pointed at /dev/null so that the exit flush
    does not fail again."""
    try:
        code = _main(argv, started)
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE


def _main(argv: Sequence[str] | None, started: float | None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if not args_list or args_list[0] in ("-h", "--help"):
        print(_top_help())
        return 0 if args_list else EXIT_USAGE
    if args_list[0] == "--version":
        print(f"ser-prove {__version__}")
        return 0
    command = args_list[0] if args_list[0] in COMMANDS else "prove"
    rest = args_list[1:] if args_list[0] in COMMANDS else args_list
    try:
        parser = _parser_for(command)
    except ModuleNotFoundError as exc:  # a command whose module does not exist yet
        print(f"ser-prove: command '{command}' is not available ({exc.name})", file=sys.stderr)
        return EXIT_USAGE
    try:
        args = parser.parse_args(rest)
    except SystemExit as exc:  # argparse already printed its message
        return 0 if exc.code == 0 else EXIT_USAGE
    args.spent_s = 0.0 if started is None else max(0.0, time.monotonic() - started)
    args.argv = ["ser-prove", *args_list]  # the command line, as `--html` reports it
    try:
        with interruptible():  # SIGINT/SIGTERM: one line, exit 130/143, no partial file
            code: int = run_bounded(command, args._run, args) if command in BOUNDED \
                else args._run(args)
        return code
    except SerError as exc:  # an error without a position still names its model file
        text, model = exc.render(), getattr(args, "model", None)
        if exc.location is None and isinstance(model, str) and model not in text:
            text = f"{model}: {text}"
        print(text, file=sys.stderr)
        return EXIT_USAGE
    except Interrupted as exc:
        print("ser-prove: interrupted", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("ser-prove: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # `python -m prover.cli`: start-up counts, as for `ser-prove`
    from prover.run.deadline import process_age

    raise SystemExit(main(started=time.monotonic() - process_age()))
