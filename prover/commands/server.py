"""`ser-prove server start|stop|status`: a fork server that makes small runs cheap.

While it runs, every `ser-prove ...` of this user is handed to it (prover/run/relay.py) and
runs in a fork of a process that already holds the imports; without one, or with
SER_PROVE_NO_SERVER=1, `ser-prove` runs as before. Results are the same bytes either way.
"""

from __future__ import annotations

import argparse
import json

from prover.errors import UsageError

DEFAULT_IDLE_MIN = 30.0


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=("start", "stop", "status"),
                        help="start a server (or report the running one), stop it, or "
                        "report it")
    parser.add_argument(
        "--idle-timeout", type=float, default=DEFAULT_IDLE_MIN, metavar="MIN",
        help=f"start: the server exits after MIN minutes without work "
        f"(default {DEFAULT_IDLE_MIN:g})",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def _show(status: dict[str, object] | None, as_json: bool, said: str) -> None:
    if as_json:
        print(json.dumps({"up": False, **(status or {})}, sort_keys=True))
    elif status is None:
        print(said)
    else:
        print(f"{said}: pid {status.get('pid')}, socket {status.get('socket')}, "
              f"{status.get('served')} runs served, {status.get('runs_in_progress')} in "
              "progress")


def run(args: argparse.Namespace) -> int:
    from prover.run import server
    from prover.run.relay import socket_path

    if args.action == "start":
        if not 0 < args.idle_timeout <= 7 * 24 * 60:
            raise UsageError("--idle-timeout must be > 0 and at most a week of minutes")
        try:
            started = server.start(args.idle_timeout * 60.0)
        except OSError as exc:
            raise UsageError(f"cannot start the server at {socket_path()}: {exc}") from None
        _show(started, args.json, "server running")
        return 0
    status: dict[str, object] | None
    if args.action == "stop":
        status = server.request_control("stop")
        _show(status, args.json, "no server running" if status is None else "server stopping")
        return 0
    status = server.request_control("status")
    _show(status, args.json, "no server running" if status is None else "server running")
    return 0 if status is not None else 3
