"""Commands other than `prove` under the same promises: each runs in a forked child with
a hard deadline (its `--timeout`, plus a second to report) and the memory limit, and ends
with exit 3 and a one-line reason when it meets either, never a traceback."""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Callable

from prover.errors import SerError
from prover.run.deadline import MEMORY_LIMIT_BYTES, detached, run_isolated

GRACE_S = 0.2  # the command's own searches stop at --timeout; the child is ended after
EXIT_UNDECIDED, EXIT_INTERNAL, EXIT_BROKEN_PIPE = 3, 4, 141


def run_bounded(command: str, run: Callable[[argparse.Namespace], int],
                args: argparse.Namespace) -> int:
    """`run(args)` in a child under the deadline and the memory limit. Its output goes to
    this process's streams as it is printed, or, where they are not files (a caller that
    captures them in memory), is handed back with the answer and printed here."""
    capture = not (_is_file(sys.stdout) and _is_file(sys.stderr))

    def child() -> tuple[int | SerError, str, str]:
        if capture:
            sys.stdout, sys.stderr = io.StringIO(), io.StringIO()
        try:
            code: int | SerError = run(args)
            sys.stdout.flush()
            sys.stderr.flush()
        except BrokenPipeError:
            code = EXIT_BROKEN_PIPE
        except SerError as exc:  # with what was printed before it
            code = detached(exc)
        texts = [f.getvalue() if isinstance(f, io.StringIO) else "" for f in (
            sys.stdout, sys.stderr)]
        return code, texts[0], texts[1]

    left = args.timeout + GRACE_S - getattr(args, "spent_s", 0.0)  # start-up counts too
    out = run_isolated(child, timeout_s=max(left, 0.05), memory_bytes=MEMORY_LIMIT_BYTES)
    if out.kind == "ok":
        code, text, err = out.value
        sys.stdout.write(text)
        sys.stderr.write(err)
        if isinstance(code, SerError):
            raise code
        return int(code)
    if out.kind == "timeout":
        why = f"no answer within --timeout {args.timeout:g} s"
    elif out.kind == "memory":
        why = f"out of memory (the limit is {MEMORY_LIMIT_BYTES // 2**20:,} MiB)"
    else:
        last = (out.detail.strip().splitlines() or ["no detail"])[-1]
        print(f"ser-prove {command}: internal error (a bug, please report it): {last}",
              file=sys.stderr)
        return EXIT_INTERNAL
    print(f"ser-prove {command}: {getattr(args, 'model', '')}: stopped: {why}",
          file=sys.stderr)
    return EXIT_UNDECIDED


def _is_file(stream: object) -> bool:
    try:
        stream.fileno()  # type: ignore[attr-defined]
        return True
    except (AttributeError, OSError, ValueError):
        return False
