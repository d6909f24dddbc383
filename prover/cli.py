"""`ser-prove`: command-line entry point.

`ser-prove MODEL...` decides serializability; `ser-prove COMMAND ...` runs one of the
other commands (inspect, export, explain, bench). Each command lives in its own module
under `prover/commands/` exposing `configure(parser)` and `run(args) -> int`.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from prover import __version__
from prover.errors import SerError

# command name -> (module, one-line help). The default command is "prove".
COMMANDS: dict[str, tuple[str, str]] = {
    "prove": ("prover.commands.prove", "decide serializability and write a certificate"),
    "inspect": ("prover.commands.inspect", "print sizes of the NS, Petri net and serial automaton"),
    "export": ("prover.commands.export", "write the net (.net, PNML, MCC) or DOT drawings"),
    "explain": ("prover.commands.explain", "debugging views: slices of the net"),
    "slice": ("prover.commands.slice", "maximal/minimal dynamic slice of a model or P/T net"),
    "bench": ("prover.commands.bench", "run models and print a benchmark table"),
}

EXIT_USAGE = 2
EXIT_INTERNAL = 4


def _parser_for(command: str) -> argparse.ArgumentParser:
    module_name, help_text = COMMANDS[command]
    module = importlib.import_module(module_name)
    prog = "ser-prove" if command == "prove" else f"ser-prove {command}"
    parser = argparse.ArgumentParser(prog=prog, description=help_text)
    module.configure(parser)
    parser.set_defaults(_run=module.run)
    return parser


def _top_help() -> str:
    lines = [
        f"ser-prove {__version__}: decide serializability of Ser programs and network systems",
        "",
        "usage: ser-prove MODEL... [options]       (same as: ser-prove prove MODEL...)",
        "       ser-prove COMMAND [options]",
        "",
        "commands:",
    ]
    for name, (_, help_text) in COMMANDS.items():
        lines.append(f"  {name:<9} {help_text}")
    lines += ["", "Run `ser-prove COMMAND --help` for the options of a command."]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
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
    try:
        code: int = args._run(args)
        return code
    except SerError as exc:
        print(exc.render(), file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("ser-prove: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
