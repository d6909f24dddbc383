"""`ser-prove simulate MODEL [-k K] [--seed N] [--runs N] [--max-steps N] [--json]`: random
runs of a Ser program, printed as the trails a counterexample is printed as, so that a
modeller can watch the model before proving it (SPIN's `spin -p`, TLC's `-simulate`).

Each run (prover/engines/simulation.py) lets K requests arrive at random points and picks
uniformly among the enabled moves; it prints the interleaving table of the counterexamples
(prover/certificate/explain.py), the answers, how the run ended (finished, a deadlock, cut
at --max-steps, a run-time error, the deadline) and, for a finished run of at most
`MAX_SERIAL_CHECK` requests, whether some serial order of its requests answers the same.
The output is a function of the model, the options and the seed only.

Exit code: 3 when --timeout expired (what was done is printed), else 1 when a run is not
serializable, else 2 when a run ran into a run-time error, else 0 (deadlocks and cut runs
are reported, not failures); 2 for a bad model or usage, as for every command.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from prover.certificate.deadlock import who_waits
from prover.certificate.explain import (
    build_rows,
    explain,
    rows_json,
    table_lines,
    typed_env,
    typed_value,
)
from prover.commands.options import add_deadline_option, add_define_option, defines
from prover.engines import Counterexample
from prover.engines.simulation import (
    END_DEADLOCK,
    END_ERROR,
    END_FINISHED,
    END_MAX_STEPS,
    END_TIMEOUT,
    MAX_SERIAL_CHECK,
    Run,
    SerialCheck,
    Simulator,
    start_position,
)
from prover.errors import UsageError
from prover.frontend.choices import DEFAULT_STATE_BOUND
from prover.frontend.load import load_model
from prover.frontend.steps import ProgramSteps
from prover.serial.ondemand import SoloTooLarge

DEFAULT_REQUESTS = 3
MAX_REQUESTS = 1_000
"""Requests of one run (`-k`, or `--request` given that often)."""
MAX_RUNS = 1_000_000
FORMAT = "simulate-run/1"
LOCAL_WIDTH = 60  # of a waiting request's local state in the text


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", metavar="MODEL", help="a Ser program (.ser)")
    parser.add_argument(
        "-k", "--requests", type=int, default=None, metavar="K",
        help=f"K requests arrive in each run, each drawn at random among the program's "
        f"requests (default {DEFAULT_REQUESTS}; 1 to {MAX_REQUESTS:,})")
    parser.add_argument(
        "--request", action="append", metavar="NAME", dest="fixed",
        help="this request arrives in each run (a family's member as NAME[i]); repeat it "
        "for several: these requests, in this order, instead of K drawn at random")
    parser.add_argument(
        "--seed", type=int, default=0, metavar="N",
        help="the seed of the first run (default 0); run i (from 0) draws from seed N + i, "
        "so `--seed N+i --runs 1` replays it; the same seed and options give the same "
        "output on every machine")
    parser.add_argument("--runs", type=int, default=1, metavar="N",
                        help=f"how many runs (default 1; at most {MAX_RUNS:,})")
    parser.add_argument(
        "--max-steps", type=int, default=1000, metavar="N",
        help="cut a run after N atomic steps (default 1000); the output says so")
    parser.add_argument(
        "--json", action="store_true",
        help=f"print one JSON object per run and line ({FORMAT}: seed, run, requests, "
        "steps, responses, end, finished, serializable, ...) instead of text")
    parser.add_argument(
        "--width", type=int, default=None, metavar="N",
        help="fit the table of each run to N columns by shortening the local states and "
        "globals it shows (default: shown in full, or up to 48 characters of a local "
        "state; the output does not depend on the terminal)")
    parser.add_argument(
        "--state-bound", type=int, default=DEFAULT_STATE_BOUND, metavar="N",
        help=f"states of one atomic step's loops and outcomes before it is an error "
        f"(E-STATE-BOUND; default {DEFAULT_STATE_BOUND:,})")
    add_deadline_option(parser, 30.0, "all the runs; past it, what was done is printed")
    add_define_option(parser)


def _positive(value: int, option: str, most: int | None = None) -> None:
    if value < 1 or (most is not None and value > most):
        top = "" if most is None else f" and at most {most:,}"
        raise UsageError(f"{option} must be at least 1{top} (got {value})")


def _requests(args: argparse.Namespace, sim: Simulator) -> tuple[int, tuple[str, ...] | None]:
    """K, and the requests `--request` fixes (None: drawn at random)."""
    fixed = tuple(args.fixed or ())
    if not fixed:
        k = DEFAULT_REQUESTS if args.requests is None else args.requests
        _positive(k, "-k/--requests", MAX_REQUESTS)
        return k, None
    unknown = [r for r in fixed if r not in sim.starts]
    if unknown:
        raise UsageError(f"--request {unknown[0]}: the model has no such request (its "
                         f"requests: {', '.join(sim.requests)})")
    if args.requests is not None and args.requests != len(fixed):
        raise UsageError(f"-k {args.requests} and {len(fixed)} --request: give one or the "
                         "other (--request fixes K)")
    if len(fixed) > MAX_REQUESTS:
        raise UsageError(f"--request given {len(fixed):,} times: at most {MAX_REQUESTS:,}")
    return len(fixed), fixed


def run(args: argparse.Namespace) -> int:
    started = time.monotonic() - getattr(args, "spent_s", 0.0)
    deadline = started + args.timeout
    _positive(args.runs, "--runs", MAX_RUNS)
    _positive(args.max_steps, "--max-steps")
    _positive(args.state_bound, "--state-bound")
    if args.width is not None:
        _positive(args.width, "--width")
    if args.seed < 0:
        raise UsageError(f"--seed must be at least 0 (got {args.seed})")
    model = load_model(args.model, state_bound=args.state_bound,
                       defines=dict(defines(args)), lazy=True)
    if model.steps is None:
        raise UsageError(f"{args.model}: simulate runs Ser programs (.ser); this is a "
                         "network system in JSON")
    for w in model.warnings:
        print(w.render(), file=sys.stderr)
    sim = Simulator(model.steps)
    k, fixed = _requests(args, sim)
    ends: list[str] = []
    checks: list[SerialCheck] = []
    expired = False
    for i in range(args.runs):
        if i and time.monotonic() > deadline:  # a run started is printed, even if cut
            expired = True
            break
        seed = args.seed + i
        one = sim.run(seed, k=k, requests=fixed, max_steps=args.max_steps, deadline=deadline)
        check = sim.serial(one)
        ends.append(one.end)
        checks.append(check)
        reasons = _reasons(model.steps, one) if check.serializable is False else ()
        if args.json:
            record = _record(args, model.constants, model.steps, i + 1, one, check, reasons)
            _emit(json.dumps(record, ensure_ascii=True, separators=(",", ":")) + "\n")
        else:
            _emit(_text(args, model.steps, i + 1, one, check, reasons) + "\n")
        if one.end == END_TIMEOUT:
            expired = True
            break
    if not args.json and (args.runs > 1 or expired):
        _emit(_summary(args, ends, checks, expired) + "\n")
    if expired:
        return 3
    if any(c.serializable is False for c in checks):
        return 1
    return 2 if END_ERROR in ends else 0


def _reasons(steps: ProgramSteps, one: Run) -> tuple[str, ...]:
    """Why no serial execution answers as the run did, as a counterexample is explained
    (the serial executions of the requests that share globals with the run's)."""
    n = len(one.requests)
    cex = Counterexample(one.events, one.completed, n, 0, "simulate")
    try:
        return explain(steps, cex).reasons
    except SoloTooLarge:  # a request run alone visits too many states: no reasons given
        return ()


def _answers(one: Run) -> str:
    return ", ".join(f"{r}#{i} → {v}" for i, r, v in one.answers) or "(none)"


def _short(text: str) -> str:
    return text if len(text) <= LOCAL_WIDTH else text[:LOCAL_WIDTH - 1] + "…"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _text(args: argparse.Namespace, steps: ProgramSteps, index: int, one: Run,
          check: SerialCheck, reasons: tuple[str, ...]) -> str:
    out = [f"run {index} (seed {one.seed}): {', '.join(one.requests)} arrive"]
    rows = build_rows(steps, one.events)
    out += table_lines(rows, columns=args.width) if rows else ["(no step)"]
    out.append(f"responses: {_answers(one)}")
    in_flight = [f"  {who_waits(b)} at {_short(b.local)}" for b in one.waiting]
    if one.end == END_FINISHED:
        out.append(f"finished: {_plural(len(one.requests), 'request')} answered in "
                   f"{_plural(one.steps, 'step')}")
    elif one.end == END_DEADLOCK:
        out.append(f"deadlock: every request in flight waits, at global {one.global_} "
                   "(each of their steps changes nothing):")
        out += [f"  {who_waits(b)} waits at {_short(b.local)}"
                + ("" if b.lines else " (no step: a loop without yield that never ends)")
                for b in one.waiting]
    elif one.end == END_MAX_STEPS:
        out.append(f"cut: --max-steps {args.max_steps} reached, "
                   f"{_plural(len(one.waiting), 'request')} in flight, {one.left} yet to "
                   "arrive:")
        out += in_flight
    elif one.end == END_TIMEOUT:
        out.append(f"stopped: --timeout {args.timeout:g} s expired after "
                   f"{_plural(one.steps, 'step')} of this run")
    elif one.failure is not None:
        f = one.failure
        out.append(f"run-time error at step {one.steps + 1}: {f.request}#{f.instance} at "
                   f"{_short(f.local)} runs into")
        out += [f"  {line}" for line in f.error.render().splitlines()]
    if check.serializable is True:
        order = ", ".join(f"{r} → {v}" for r, v in check.order)
        out.append(f"serializable: the serial order {order} answers the same")
    elif check.serializable is False:
        out.append(f"run {index} is not serializable: no serial order of these requests "
                   "answers so; prove the model to get a certificate")
        out += [f"  - {r}" for r in reasons]
    elif one.finished:
        out.append(f"serializability not checked: {check.why}")
    return "\n".join(out)


_WORDS = (("not serializable", lambda e, c: c.serializable is False),
          ("serializable", lambda e, c: c.serializable is True),
          ("not checked", lambda e, c: e == END_FINISHED and c.serializable is None),
          ("deadlock", lambda e, c: e == END_DEADLOCK),
          ("run-time error", lambda e, c: e == END_ERROR),
          ("cut at --max-steps", lambda e, c: e == END_MAX_STEPS),
          ("stopped at --timeout", lambda e, c: e == END_TIMEOUT))


def _summary(args: argparse.Namespace, ends: list[str], checks: list[SerialCheck],
             expired: bool) -> str:
    counts = [(word, sum(1 for e, c in zip(ends, checks, strict=True) if test(e, c)))
              for word, test in _WORDS]
    done = ", ".join(f"{n} {word}" for word, n in counts if n)
    last = args.seed + len(ends) - 1
    seeds = f"seed {args.seed}" if len(ends) == 1 else f"seeds {args.seed} to {last}"
    head = f"{_plural(len(ends), 'run')} ({seeds})"
    if expired and len(ends) < args.runs:
        head += f" of {args.runs:,}, stopped by --timeout {args.timeout:g} s"
    return f"{head}: {done}"


def _record(args: argparse.Namespace, constants: tuple[tuple[str, int], ...],
            steps: ProgramSteps, index: int, one: Run, check: SerialCheck,
            reasons: tuple[str, ...]) -> dict[str, Any]:
    """One run as JSON (schemas/simulate-run.schema.json): every key always present."""
    rows = []
    for row in rows_json(build_rows(steps, one.events)):
        line, column = start_position(steps.local(row["from"]).expr)
        rows.append({**row, "line": line or None, "column": column or None})
    failure = one.failure
    error = None
    if failure is not None:
        where = failure.error.location
        error = {"code": failure.error.code, "message": failure.error.message,
                 "line": where.line if where else None,
                 "column": where.column if where else None,
                 "instance": failure.instance, "request": failure.request,
                 "local": failure.local}
    return {
        "format": FORMAT,
        "model": args.model,
        "constants": dict(constants),
        "seed": one.seed,
        "run": index,
        "requests": list(one.requests),
        "steps": rows,
        "responses": [{"instance": i, "request": r, "response": v, "value": typed_value(v)}
                      for i, r, v in one.answers],
        "finished": one.finished,
        "end": one.end,
        "atomic_steps": one.steps,
        "global": one.global_,
        "globals": typed_env(one.global_),
        "in_flight": [{"instance": b.instance, "request": b.request, "local": b.local,
                       "lines": list(b.lines)} for b in one.waiting],
        "not_arrived": one.left,
        "error": error,
        "serializable": check.serializable,
        "serial_order": None if check.serializable is not True else
        [{"request": r, "response": v} for r, v in check.order],
        "not_checked": check.why or None,
        "reasons": list(reasons),
        "max_serial_check": MAX_SERIAL_CHECK,
    }


def _emit(text: str) -> None:
    """Write and flush (a run printed survives a deadline that ends the process); names
    the terminal cannot encode are shown as escapes."""
    try:
        sys.stdout.write(text)
    except UnicodeEncodeError:
        sys.stdout.flush()
        sys.stdout.buffer.write(text.encode(sys.stdout.encoding or "utf-8",
                                            errors="backslashreplace"))
    sys.stdout.flush()
