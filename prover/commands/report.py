"""What `ser-prove MODEL...` prints, one model at a time, as soon as each is settled.

`Reporter.add` takes the outcome of one model (a `ProveResult`, the `SerError` of an
input it could not use, or the message of a crash) and prints it at once: with `--json`
one JSON line (prover/commands/jsonl.py) in the order the models finish; as text, in the
order the models were given (a result waits only for the models before it), so the text
is the same whatever `--jobs` is. Progress goes to stderr, only on a terminal.
"""

from __future__ import annotations

import sys
import textwrap
import time
from dataclasses import dataclass, field
from typing import Any, TextIO

from prover.commands import jsonl
from prover.errors import SerError
from prover.run.pipeline import (
    EXIT_INTERNAL,
    EXIT_NOT_SERIALIZABLE,
    EXIT_SERIALIZABLE,
    EXIT_UNDECIDED,
    EXIT_USAGE,
    ProveResult,
    describe_times,
)
from prover.run.result import search_line

SEVERITY = [EXIT_INTERNAL, EXIT_USAGE, EXIT_UNDECIDED, EXIT_NOT_SERIALIZABLE, EXIT_SERIALIZABLE]
WIDTH = 88



@dataclass(frozen=True)
class InputFailure:
    """A model that could not be used, as plain data (it crosses process boundaries,
    where a `SerError` would lose its location)."""

    code: str
    message: str

    @staticmethod
    def of(path: str, exc: SerError) -> InputFailure:
        return InputFailure(exc.code, with_path(path, exc.render()))


Outcome = ProveResult | InputFailure | str  # a str is the message of an unexpected exception

WORDS = {"serializable": "serializable", "not_serializable": "not serializable",
         "assertion_violated": "assertion violated",
          "undecided": "undecided", "input_error": "input error",
          "internal_error": "internal error"}


SIZE_KEYS = ("network_system", "petri_net", "per_variable")


def sizes_of(result: ProveResult) -> dict[str, dict[str, int] | None] | None:
    """NS and interleaving-net sizes, when an engine built the NS, and the per-variable
    sizes, when the reduction engine ran (for the summary and --json), computed in the
    model's own run, under its deadline (prover/run/pipeline.py)."""
    if result.sizes is None:
        return None
    return {k: result.sizes.get(k) for k in SIZE_KEYS}


def explanation_of(result: ProveResult) -> tuple[str, dict[str, Any] | None]:
    """(text, JSON) of a verdict's explanation, computed in the model's own run: a
    counterexample's, or a reduction proof's; ("", None) without one."""
    if result.status not in ("not_serializable", "serializable", "assertion_violated") or \
            result.explanation is None:
        return "", None
    return result.explanation


def size_lines(sizes: dict[str, dict[str, int] | None] | None) -> list[str]:
    """The `model:` line of the NS and its net, and the `steps:` line of the per-variable
    steps, for those the run built."""
    out = []
    ns, net, per = (sizes or {}).get("network_system"), (sizes or {}).get("petri_net"), \
        (sizes or {}).get("per_variable")
    if ns is not None and net is not None:
        out.append(f"model: NS {ns['globals']} globals, {ns['locals']} locals, "
                   f"{ns['requests']} requests, {ns['responses']} responses, "
                   f"{ns['transitions']} transitions; Petri net {net['places']} places, "
                   f"{net['transitions']} transitions")
    if per is not None:
        out.append(f"steps: {per['local_states']} local states, {per['transitions']} "
                   f"transitions on finite domains, {per['escapes']} escapes")
    return out


def advice(result: ProveResult) -> list[str]:
    """What to try after an undecided run, from its reasons."""
    return advice_for(" ".join([result.reason, *result.reasons]))


def advice_for(why: str) -> list[str]:
    """What to try after an undecided run whose reason (with its parts) is `why`."""
    if why.startswith("--timeout 0"):
        return ["a --timeout above 0 (0 only reads and checks the model)"]
    out = []
    if "time limit" in why or "out of time" in why:
        out.append("a larger --timeout")
    if "looks unbounded" in why:
        out.append("a guard that keeps the unbounded variable in a finite range (the "
                   "reduction engine then proves lock-based and counter-like programs at "
                   "any size)")
    if "state bound" in why:
        out.append("a larger --state-bound, if the model is finite (its network system is "
                   "what the other proof engines read)")
    out.append("splitting the model into smaller ones (fewer requests or globals)")
    return out


def _strict(result: ProveResult) -> str:
    n = len(result.warnings)
    return f"{n} warning{'s' if n != 1 else ''}, which --strict makes errors"


def with_path(path: str, message: str) -> str:
    """Every message names its model (an error without a location does not by itself)."""
    return message if path in message else f"{path}: {message}"


def wrap_reason(reason: str, parts: tuple[str, ...] = (), *, indent: str = "  ") -> list[str]:
    """`reason` wrapped; when it is `head: ` followed by `parts` joined with "; ", the head
    line and one wrapped bullet per part."""
    head = reason.partition(": ")[0]
    if not parts or reason != f"{head}: " + "; ".join(parts):
        return textwrap.wrap(reason, WIDTH, initial_indent=indent, subsequent_indent=indent)
    lines = [f"{indent}{head}:"]
    for part in parts:
        lines += textwrap.wrap(part, WIDTH, initial_indent=f"{indent}- ",
                               subsequent_indent=f"{indent}  ")
    return lines


@dataclass
class Reporter:
    """Prints the outcomes of `total` models; `exit_code()` is the most severe one."""

    total: int
    json: bool = False
    quiet: bool = False
    strict: bool = False  # a warning makes the model an input error (exit 2)
    out: TextIO = field(default_factory=lambda: sys.stdout)
    err: TextIO = field(default_factory=lambda: sys.stderr)
    _pending: dict[int, tuple[str, Outcome]] = field(default_factory=dict)
    _next: int = 0
    _codes: list[int] = field(default_factory=list)
    _verdicts: list[str] = field(default_factory=list)
    _records: dict[int, dict[str, Any]] = field(default_factory=dict)
    _start: float = field(default_factory=time.monotonic)
    _progress_shown: bool = False

    def add(self, index: int, path: str, outcome: Outcome) -> None:
        """The outcome of model number `index` (0-based, in command-line order)."""
        record = self._record(path, outcome)
        self._records[index] = record
        self._codes.append(int(record["exit_code"]))
        self._verdicts.append(str(record["verdict"]))
        if self.json:
            self._clear_progress()
            self._write(self.out, jsonl.dumps(record) + "\n")
        else:
            self._pending[index] = (path, outcome)
            while self._next in self._pending:
                self._clear_progress()
                self._text(*self._pending.pop(self._next))
                self._next += 1
        self._progress(path, str(record["verdict"]))

    def finish(self) -> int:
        self._clear_progress()
        if not self.json and not self.quiet and self.total > 1:
            counts: dict[str, int] = {}
            for v in self._verdicts:
                counts[v] = counts.get(v, 0) + 1
            parts = [f"{counts[v]} {WORDS[v]}" for v in WORDS if v in counts]
            self._write(self.out, f"\n{self.total} models: {', '.join(parts)}\n")
        return self.exit_code()

    def exit_code(self) -> int:
        return min(self._codes, key=SEVERITY.index) if self._codes else EXIT_SERIALIZABLE

    def records(self) -> list[dict[str, Any]]:
        """The `--json` record of every model added so far, in command-line order (with
        the explanations, also when the text is printed): what `--html` shows."""
        return [self._records[i] for i in sorted(self._records)]

    # ------------------------------------------------------------------ records and text

    def _record(self, path: str, outcome: Outcome) -> dict[str, Any]:
        if isinstance(outcome, InputFailure):
            return jsonl.error_record(path, outcome.code, outcome.message)
        if isinstance(outcome, str):
            return jsonl.crash_record(path, outcome)
        data = explanation_of(outcome)[1]
        proved = outcome.status == "serializable"
        by_net = proved and data is not None and "conjuncts" in data  # not a reduction's
        failed = outcome.status == "assertion_violated"
        record = jsonl.result_record(outcome, warnings=outcome.warnings,
                                     sizes=sizes_of(outcome),
                                     counterexample=None if proved or failed else data,
                                     assertion=data if failed else None,
                                     reduction=data if proved and not by_net else None,
                                     deadlock=outcome.deadlock[1] if outcome.deadlock else None,
                                     invariant_proof=data if by_net else None)
        if self.strict and outcome.warnings:
            record.update(exit_code=EXIT_USAGE, error={"code": "E-STRICT",
                                                       "message": _strict(outcome)})
        return record

    def _text(self, path: str, outcome: Outcome) -> None:
        if isinstance(outcome, InputFailure):
            self._write(self.err, outcome.message + "\n")
            return
        if isinstance(outcome, str):
            self._write(self.err, with_path(path, outcome) + "\n")
            return
        for w in outcome.warnings:
            self._write(self.err, w.render() + "\n")
        if self.strict and outcome.warnings:
            self._write(self.err, f"{path}: error[E-STRICT]: {_strict(outcome)}\n")
        if outcome.status == "error":
            lines = wrap_reason(outcome.reason, outcome.reasons)
            self._write(self.err, f"{path}: error:\n" + "\n".join(lines) + "\n")
            return
        if outcome.status == "undecided":
            lines = [f"{path}: undecided"]
            if not self.quiet:
                lines += wrap_reason(outcome.reason, outcome.reasons)
                lines += textwrap.wrap("try: " + "; ".join(advice(outcome)), WIDTH,
                                       initial_indent="  ", subsequent_indent="    ")
                lines += textwrap.wrap(search_line(outcome.stats, outcome.times), WIDTH,
                                       subsequent_indent="  ")
                if outcome.deadlock is not None and outcome.deadlock[0]:
                    lines += ["", outcome.deadlock[0]]
            self._write(self.out, "\n".join(lines) + "\n")
            return
        word = {"serializable": "serializable", "assertion_violated": "assertion violated"}.get(
            outcome.status, "NOT serializable")
        lines = [f"{path}: {word}"]
        if any(w.code == "W-VACUOUS" for w in outcome.warnings):
            lines.append("vacuous: no request can finish")
        if not self.quiet:
            text = explanation_of(outcome)[0]
            if text:
                lines += ["", text, ""]
            deadlock = outcome.deadlock[0] if outcome.deadlock is not None else ""
            if deadlock:
                lines += [deadlock, ""]
            lines.append(f"engine: {outcome.engine}; time: {describe_times(outcome.times)}")
            if searched := search_line(outcome.stats, outcome.times):
                lines.append(searched)
            lines += size_lines(sizes_of(outcome))
            lines.append(f"certificate: {outcome.certificate_path} "
                         f"(checked: {outcome.check_message})")
        self._write(self.out, "\n".join(lines) + "\n")

    # ------------------------------------------------------------------ output helpers

    def _progress(self, path: str, verdict: str) -> None:
        if self.quiet or self.total < 2 or not self.err.isatty():
            return
        done = len(self._codes)
        if done == self.total:
            return
        self.err.write(f"\r\x1b[K[{done}/{self.total}] {time.monotonic() - self._start:.0f} s; "
                       f"last: {path} {WORDS.get(verdict, verdict)}")
        self.err.flush()
        self._progress_shown = True

    def _clear_progress(self) -> None:
        if self._progress_shown:
            self.err.write("\r\x1b[K")
            self.err.flush()
            self._progress_shown = False

    @staticmethod
    def _write(stream: TextIO, text: str) -> None:
        try:
            stream.write(text)
            stream.flush()
        except UnicodeEncodeError:  # a name the terminal cannot encode: print an escape
            enc = stream.encoding or "utf-8"
            stream.buffer.write(text.encode(enc, errors="backslashreplace"))
            stream.buffer.flush()
