"""`--html FILE` of `ser-prove MODEL...` and `ser-prove bench`: one static page of a batch.

`render(results, meta)` is a pure function of the batch's `--json` records (one
`prove-result/1` object per model, prover/commands/jsonl.py) and a few facts about the
run; both commands call it, so the page says what the JSON says. The page is
self-contained: inline CSS, no script, nothing fetched. Every string that comes from a
model, a certificate or the file system goes through `html.escape` (and a link through
`urllib.parse.quote` first), so a model named `<script>.ser` is shown, never run.

A record may carry one more key, `bench`, that `ser-prove bench` adds: the expected
verdict and the agreement, the wall seconds of its two processes and what the separate
`ser-check-cert` process answered. Models are shown in the order given, as the text
output shows them; nothing is sorted, and the page holds no clock time unless `meta`
gives one.
"""

from __future__ import annotations

import argparse
import html
import os
import re
import shlex
import stat
import urllib.parse
from collections.abc import Mapping, Sequence
from typing import Any

from prover import __version__
from prover.certificate.explain import serial_executions
from prover.certificate.invariant_text import render_invariant
from prover.certificate.reduction_text import render_locking, render_parts, render_reduction
from prover.commands.report import WORDS, advice_for, size_lines
from prover.errors import UsageError
from prover.run.output import check_destination

GENERATOR = "ser-prove HTML report"
"""The page's `<meta name="generator">`: `--html` replaces an existing file only if it
carries it (an earlier report), or is empty."""

_CSS = """
body { font-family: system-ui, sans-serif; margin: 1.5em auto; max-width: 78em;
       padding: 0 1em; color: #1b1b1b; line-height: 1.4; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em;
     border-top: 1px solid #bbb; padding-top: .8em; } h3 { font-size: 1em; }
table { border-collapse: collapse; margin: .5em 0; }
th, td { border: 1px solid #c8c8c8; padding: .2em .5em; text-align: left;
         vertical-align: top; }
th { background: #f0f0f0; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
code, pre { font-family: ui-monospace, monospace; font-size: .92em; }
pre { white-space: pre-wrap; background: #f6f6f6; border: 1px solid #e0e0e0;
      padding: .5em; }
table.trail td { font-family: ui-monospace, monospace; font-size: .88em; }
table.facts th { font-weight: normal; color: #555; background: none; }
.verdict { font-weight: bold; padding: .1em .4em; border-radius: .2em; white-space: nowrap; }
.serializable { background: #d6f5d6; color: #0a5c0a; }
.not_serializable { background: #fbd9d9; color: #8f0d0d; }
.undecided { background: #fcefc7; color: #6b4e00; }
.input_error, .internal_error { background: #e4e0f0; color: #3c2a78; }
.counts span { display: inline-block; margin-right: .6em; }
.warning { color: #7a4a00; }
.muted { color: #666; }
"""


def render(results: Sequence[Mapping[str, Any]], meta: Mapping[str, Any]) -> str:
    """The page of a batch: a summary, one row per model, one section per model.

    `results`: `prove-result/1` records, in the order the models were given (each may
    carry `bench`, see the module's text). `meta`, every key optional: `title`,
    `command` (the command line, one string), `version`, `total_s` (the batch's wall
    seconds), `exit_code`, `base` (the folder of the page: certificate links are made
    relative to it; default the current folder), `notes` (more summary lines), and
    `certificates_kept` (False: the certificates were written to a folder that is gone)."""
    title = str(meta.get("title") or "ser-prove report")
    base = str(meta.get("base") or ".")
    kept = bool(meta.get("certificates_kept", True))
    bench = any("bench" in r for r in results)
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
           f'<meta name="generator" content="{GENERATOR}">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<title>{_e(title)}</title>", f"<style>{_CSS}</style>", "</head>", "<body>",
           f'<h1 id="top">{_e(title)}</h1>']
    out += _summary(results, meta)
    out += _overview(results, base, kept, bench)
    for k, record in enumerate(results, 1):
        out += _section(k, record, base, kept)
    out += ["</body>", "</html>", ""]
    return "\n".join(out)


# ------------------------------------------------------------------------ the parts


def _summary(results: Sequence[Mapping[str, Any]], meta: Mapping[str, Any]) -> list[str]:
    counts = {v: sum(1 for r in results if r.get("verdict") == v) for v in WORDS}
    errors = counts["input_error"] + counts["internal_error"]
    n = len(results)
    out = ['<p class="counts">',
           f"<span><b>{n}</b> model{'s' if n != 1 else ''}:</span>",
           f'<span class="verdict serializable">{counts["serializable"]} serializable</span>',
           f'<span class="verdict not_serializable">{counts["not_serializable"]} not '
           "serializable</span>",
           *([f'<span class="verdict not_serializable">{counts["assertion_violated"]} '
              "assertion violated</span>"] if counts["assertion_violated"] else []),
           f'<span class="verdict undecided">{counts["undecided"]} undecided</span>',
           f'<span class="verdict input_error">{errors} error{"s" if errors != 1 else ""}'
           + (f" ({counts['input_error']} input, {counts['internal_error']} internal)"
              if errors else "") + "</span>", "</p>"]
    facts: list[tuple[str, str]] = []
    if meta.get("total_s") is not None:
        facts.append(("total time", f"{float(meta['total_s']):.2f} s"))
    if meta.get("exit_code") is not None:
        facts.append(("exit code", _e(str(meta["exit_code"]))))
    if meta.get("command"):
        facts.append(("command", f"<code>{_e(str(meta['command']))}</code>"))
    if meta.get("version"):
        facts.append(("version", _e(str(meta["version"]))))
    for note in meta.get("notes") or ():
        facts.append(("", _e(str(note))))
    out += _facts(facts)
    return out


def _overview(results: Sequence[Mapping[str, Any]], base: str, kept: bool,
              bench: bool) -> list[str]:
    head = ["#", "model", "verdict", *(["expected", "agrees"] if bench else []),
            "engine / proof form", "prove s", "check s", "certificate", ""]
    out = ['<table class="overview">',
           "<tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>"]
    for k, r in enumerate(results, 1):
        prove_s, check_s = _seconds(r)
        cells = [f'<td class="n">{k}</td>', f"<td><code>{_e(str(r.get('model')))}</code></td>",
                 f"<td>{_verdict(r)}</td>"]
        if bench:
            b = r.get("bench") or {}
            agrees = b.get("agrees")
            cells += [f"<td>{_e(WORDS.get(str(b.get('expected')), '-'))}</td>",
                      f"<td>{'-' if agrees is None else ('yes' if agrees else '<b>NO</b>')}</td>"]
        cells += [f"<td>{_e(_engine_form(r))}</td>", f'<td class="n">{_num(prove_s)}</td>',
                  f'<td class="n">{_num(check_s)}</td>',
                  f"<td>{_certificate(r, base, kept)}</td>",
                  f'<td><a href="#m{k}">details</a></td>']
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</table>")
    return out


def _section(k: int, r: Mapping[str, Any], base: str, kept: bool) -> list[str]:
    verdict = str(r.get("verdict"))
    out = [f'<h2 id="m{k}">{k}. <code>{_e(str(r.get("model")))}</code> {_verdict(r)}</h2>']
    warnings = r.get("warnings") or []
    if any(w.get("code") == "W-VACUOUS" for w in warnings) and \
            verdict in ("serializable", "not_serializable"):
        out.append("<p>vacuous: no request can finish</p>")
    error = r.get("error")
    if error:
        code, message = str(error.get("code")), str(error.get("message"))
        said = message if f"error[{code}]" in message else f"error[{code}]: {message}"
        out.append(f"<pre>{_e(said)}</pre>")
    if verdict == "not_serializable" and r.get("counterexample"):
        out += _counterexample(r["counterexample"])
    elif verdict == "serializable":
        out += _proof(r)
    elif verdict == "assertion_violated" and r.get("assertion"):
        out += _assertion(r["assertion"])
    elif verdict == "undecided" and r.get("reason"):
        out += _undecided(str(r["reason"]))
    elif verdict == "internal_error" and r.get("reason") and not error:
        out += ["<p>internal error (a bug):</p>", f"<pre>{_e(str(r['reason']))}</pre>"]
    if r.get("deadlock"):
        out += _deadlock(r["deadlock"])
    if warnings:
        out.append("<h3>Warnings</h3>")
        out.append('<ul class="warning">')
        for w in warnings:
            where = f"line {w.get('line')}, column {w.get('column')}: " if w.get("line") else ""
            out.append(f"<li>{_e(where)}warning[{_e(str(w.get('code')))}]: "
                       f"{_e(str(w.get('message')))}</li>")
        out.append("</ul>")
    out += _run_facts(r, base, kept)
    out.append('<p><a href="#top">back to the summary</a></p>')
    return out


def _run_facts(r: Mapping[str, Any], base: str, kept: bool) -> list[str]:
    """The lines that end a model's text block (engine and times, sizes, certificate and
    checker), as a small table; and, under bench, what the separate processes took."""
    facts: list[tuple[str, str]] = [("exit code", _e(str(r.get("exit_code"))))]
    if r.get("engine"):
        facts.append(("engine", _e(_engine_form(r))))
    times = {k: v for k, v in (r.get("times") or {}).items() if v is not None}
    if times:
        facts.append(("time", _e(", ".join(f"{k[:-2]} {float(v):.2f} s"
                                            for k, v in times.items()))))
    for line in size_lines(r.get("sizes")):
        head, _, rest = line.partition(": ")
        facts.append((_e(head), _e(rest)))
    if r.get("certificate") or r.get("checker"):
        facts.append(("certificate", _certificate(r, base, kept)))
    checker = r.get("checker")
    if checker:
        facts.append(("checker", f'{_status(str(checker.get("status")))}: '
                                 f'{_e(str(checker.get("message")))}'))
    b = r.get("bench")
    if b:
        facts.append(("ser-prove process", f"{_num(b.get('prove_s'))} s"))
        status = b.get("check_status")
        facts.append(("ser-check-cert process",
                      "not run" if status is None else
                      f"{_status(str(status))} in {_num(b.get('check_s'))} s"))
    return _facts(facts)


def _counterexample(c: Mapping[str, Any]) -> list[str]:
    """The text output's explanation: the interleaving (a table with the source lines of
    each step), the completed multiset, why no serial execution produces it, and what
    serial executions can answer."""
    out = ["<h3>Counterexample</h3>"]
    out += _trail(c.get("steps") or [])
    n = int(c.get("requests") or 0)
    minimal = ("the fewest possible" if c.get("minimal")
               else f"no counterexample has fewer than {c.get('lower_bound')}")
    out.append(f"<p>Completed ({n} request{'s' if n != 1 else ''}, {_e(minimal)}): "
               f"{_e(_pairs(c.get('completed') or []))}</p>")
    out.append("<p>Not serializable, because:</p>")
    out.append("<ul>" + "".join(f"<li>{_e(str(x))}</li>" for x in c.get("reasons") or [])
               + "</ul>")
    answers = "; ".join(f"{r}: {', '.join(vs) if vs else 'never finishes'}"
                        for r, vs in (c.get("serial_answers") or {}).items())
    which = serial_executions(c.get("serial_within"), tuple(c.get("serial_among") or ()))
    out.append(f"<p>{_e(which)} from the initial state can answer: {_e(answers)}</p>")
    return out


def _trail(steps: Sequence[Mapping[str, Any]]) -> list[str]:
    head = ("#", "instance", "executes", "source", "global before", "global after", "response")
    out = ['<table class="trail">', "<tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>"]
    for s in steps:
        who = f"{s.get('request')}#{s.get('instance')}" + (" (new)" if s.get("arrives") else "")
        if s.get("action") == "step":
            what = f"{s.get('from')} → {s.get('to')}"
        else:
            what = f"responds from {s.get('from')}"
        response = s.get("response")
        cells = [str(s.get("index")), who, what, _lines(s.get("lines") or []),
                 str(s.get("global_before")), str(s.get("global_after")),
                 "" if response is None else str(response)]
        out.append("<tr>" + "".join(f"<td>{_e(c)}</td>" for c in cells) + "</tr>")
    out.append("</table>")
    return out


def _proof(r: Mapping[str, Any]) -> list[str]:
    """A reduction's movers and invariant, the independent parts, or the lock and the
    invariant of a proof on the net: the text the text output prints."""
    red, inv = r.get("reduction"), r.get("invariant_proof")
    if isinstance(red, Mapping) and "parts" in red:
        text = render_parts(red["parts"])
    elif isinstance(red, Mapping) and "locking" in red:
        text = render_locking(dict(red["locking"]))
    elif isinstance(red, Mapping):
        text = render_reduction(dict(red))
    elif isinstance(inv, Mapping):
        text = render_invariant(inv)
    else:
        return []
    return ["<h3>Proof</h3>", f"<pre>{_e(text)}</pre>"]


def _undecided(reason: str) -> list[str]:
    head, parts = reason_parts(reason)
    if parts:
        out = [f"<p>{_e(head)}:</p>", "<ul>"]
        out += [f"<li>{_e(p)}</li>" for p in parts]
        out.append("</ul>")
    else:
        out = [f"<p>{_e(reason)}</p>"]
    out.append(f"<p>try: {_e('; '.join(advice_for(reason)))}</p>")
    return out


_PART = re.compile(r"; (?=[\w][\w -]{0,40}: )")


def reason_parts(reason: str) -> tuple[str, list[str]]:
    """An undecided model's reason `head: one: ...; two: ...` as its head and its parts
    (the text output's bullets), or (reason, []) when it is one reason. A part starts
    with the name of what gave it (`explicit: `, `network system: `): a "; " inside
    program text that a reason quotes starts none."""
    head, sep, rest = reason.partition(": ")
    parts = _PART.split(rest) if sep else []
    return (head, parts) if len(parts) > 1 else (reason, [])


def _assertion(a: Mapping[str, Any]) -> list[str]:
    out = ["<h3>Assertion violated</h3>",
           f"<p>After this interleaving, {_e(str(a.get('request')))}#"
           f"{_e(str(a.get('instance')))} fails the assertion at line {_e(str(a.get('line')))}, "
           f"column {_e(str(a.get('column')))}:</p>"]
    out += _trail(a.get("steps") or [])
    out.append(f"<p>at <code>{_e(str(a.get('local')))}</code>, global "
               f"<code>{_e(str(a.get('global')))}</code></p>")
    return out


def _deadlock(d: Mapping[str, Any]) -> list[str]:
    extent = f"{int(d.get('states') or 0):,} states searched, at most " \
        f"{d.get('max_inflight')} requests in flight"
    if not d.get("found"):
        if d.get("complete"):
            return []
        return [f"<p>deadlocks: none found; the search was cut at its budget "
                f"({_e(extent)})</p>"]
    out = ["<h3>Deadlock (W-DEADLOCK)</h3>",
           "<p>After this interleaving, the requests in flight wait forever:</p>"]
    out += _trail(d.get("steps") or [])
    out.append("<ul>")
    for b in d.get("blocked") or []:
        lines = list(b.get("lines") or [])
        at = f" (line {lines[0]})" if len(lines) == 1 else \
            f" (lines {lines[0]}-{lines[-1]})" if lines else ""
        out.append(f"<li>{_e(str(b.get('request')))}#{_e(str(b.get('instance')))}{at} waits "
                   f"at <code>{_e(str(b.get('local')))}</code></li>")
    out.append(f"<li>global <code>{_e(str(d.get('global')))}</code>; requests that arrive "
               "never free them</li>")
    out.append("</ul>")
    return out


# ------------------------------------------------------------------------ cells


def _e(text: str) -> str:
    return html.escape(text, quote=True)


def _facts(facts: list[tuple[str, str]]) -> list[str]:
    """Rows of (name, HTML): the names are the page's own; the values are escaped."""
    if not facts:
        return []
    return ['<table class="facts">',
            *(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in facts), "</table>"]


def _verdict(r: Mapping[str, Any]) -> str:
    v = str(r.get("verdict"))
    cls = v if v in WORDS else "internal_error"
    return f'<span class="verdict {cls}">{_e(WORDS.get(v, v))}</span>'


def _status(status: str) -> str:
    cls = "serializable" if status == "valid" else "not_serializable"
    return f'<span class="verdict {cls}">{_e(status)}</span>'


def _engine_form(r: Mapping[str, Any]) -> str:
    """The engine, and the form of what it found: a counterexample of N requests, a
    reduction, independent parts, an invariant on the net."""
    engine = r.get("engine")
    if not engine:
        return "-"
    cex, red, inv = r.get("counterexample"), r.get("reduction"), r.get("invariant_proof")
    if isinstance(cex, Mapping):
        form = f"counterexample, {cex.get('requests')} requests"
    elif isinstance(red, Mapping) and "parts" in red:
        form = f"{len(red['parts'])} independent parts"
    elif isinstance(red, Mapping) and "locking" in red:
        form = "two-phase locking"
    elif isinstance(red, Mapping):
        form = "movers and an invariant"
    elif isinstance(inv, Mapping):
        form = f"invariant, {inv.get('conjuncts')} conjuncts"
    else:
        return str(engine)
    return f"{engine} / {form}"


def _seconds(r: Mapping[str, Any]) -> tuple[Any, Any]:
    """(prove, check) seconds: under bench the wall seconds of its two processes, else
    the run's total and its checker's."""
    b = r.get("bench")
    if b:
        return b.get("prove_s"), b.get("check_s")
    times = r.get("times") or {}
    return times.get("total_s"), times.get("check_s")


def _num(value: Any) -> str:
    return "-" if not isinstance(value, int | float) else f"{float(value):.2f}"


def _certificate(r: Mapping[str, Any], base: str, kept: bool) -> str:
    cert = r.get("certificate")
    if not cert:
        return "-"
    if not kept:
        return '<span class="muted">not kept (give --out-dir)</span>'
    rel = os.path.relpath(str(cert), base)
    href = urllib.parse.quote(rel.replace(os.sep, "/"), safe="/")
    return f'<a href="{_e(href)}"><code>{_e(rel)}</code></a>'


def _lines(lines: Sequence[int]) -> str:
    if not lines:
        return ""
    if len(lines) == 1:
        return f"line {lines[0]}"
    return "lines " + ",".join(str(x) for x in lines)


def _pairs(pairs: Sequence[Mapping[str, Any]]) -> str:
    parts = [f"{p.get('request')}/{p.get('response')}"
             + (f" ×{p.get('count')}" if int(p.get("count") or 1) > 1 else "") for p in pairs]
    return ", ".join(parts) if parts else "(nothing)"


# ------------------------------------------------------------------------ the file


def meta_of(args: argparse.Namespace, total_s: float, exit_code: int, title: str
            ) -> dict[str, Any]:  # fmt: skip
    """What the page of a run of `args` (with `--html FILE`) says besides its models: the
    command line (`args.argv`, set by prover/cli.py), the version, the batch's seconds and
    exit code; certificate links are relative to FILE's folder."""
    argv = getattr(args, "argv", None)
    return {"title": title, "version": f"ser-prove {__version__}", "total_s": total_s,
            "exit_code": exit_code, "command": shlex.join(argv) if argv else None,
            "base": os.path.dirname(os.path.abspath(args.html))}


def check_html_destination(dest: str, inputs: Sequence[str], written: Sequence[str] = ()
                           ) -> None:  # fmt: skip
    """Refuse, before any work, a `--html FILE` that would destroy something or cannot be
    written: the rule of every output (an input of the run, a directory, a device:
    prover/run/output.py), a file another output of the run writes (`written`: the
    certificates, bench's `--json FILE`), an existing file that is not an earlier report
    (nor empty), or a folder that does not exist or cannot be written."""
    if not os.path.basename(dest):
        raise UsageError(f"--html {dest!r}: give a file name for the HTML report")
    check_destination(dest, inputs, "HTML report")
    for other in written:
        if os.path.realpath(other) == os.path.realpath(dest):
            raise UsageError(f"--html {dest}: this run writes {other} there already; give "
                             "another file for the HTML report")
    try:
        st = os.stat(dest)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise UsageError(f"cannot use {dest} as HTML report: {exc.strerror or exc}") from None
    if st is not None and stat.S_ISREG(st.st_mode) and not _replaceable(dest):
        raise UsageError(f"refusing to replace {dest}: it exists and is not an HTML report of "
                         "ser-prove (a file of yours?); remove it or give another path")
    folder = os.path.dirname(os.path.abspath(dest))
    if not os.path.isdir(folder):
        raise UsageError(f"cannot write the HTML report {dest}: no folder {folder}")
    probe = os.path.join(folder, f".{os.path.basename(dest)}.probe{os.getpid()}")
    try:
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as exc:
        raise UsageError(f"cannot write the HTML report {dest}: "
                         f"{exc.strerror or exc}") from None
    os.close(fd)
    os.unlink(probe)


def _replaceable(path: str) -> bool:
    try:
        with open(path, "rb") as f:
            head = f.read(512)
    except OSError:
        return False
    return not head.strip() or GENERATOR.encode() in head
