"""`ser-prove ltl MODEL --formula F --requests K`: an LTL-X property of the executions with
at most K requests (docs/ltl.md).

Exit 0: it holds for every such execution (a bounded claim, from an exhaustive search);
1: violated, with a lasso certificate that `ser-check-cert` accepted; 2: input error;
3: undecided (state or time budget); 4: the checker rejected our own lasso (a bug).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING, Any

from prover.commands.options import add_model_options, defines, seconds
from prover.commands.progress import Progress
from prover.errors import FormulaError, SerError, StateBoundError, UsageError
from prover.run.deadline import run_isolated

if TYPE_CHECKING:
    from prover.frontend.load import LoadedModel
    from prover.ltl.formula import Formula, Unary

MAX_STATES = 500_000  # default --max-states of the explicit engine: product states
UNFOLD_WORK = 3_000_000  # and of the unfolding: events added and co-set search steps
MAX_REQUESTS = 200  # as for the Promela export: beyond this no search is of any use
EXIT = {"holds": 0, "always": 0, "violated": 1, "undecided": 3, "rejected": 4}


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", metavar="MODEL", help="a Ser program (.ser) or an NS (.json)")
    parser.add_argument("--formula", "-f", required=True, metavar="F",
                        help="the LTL-X property, e.g. 'G (L == 0 || L == 1)': comparisons "
                        "(== != < <= > >=) of integer terms (globals, literals, + - * / %%, "
                        "inflight(R), done(R), answered(R, v)); ! && || -> <->; G F U R W "
                        "(no next operator X)")
    parser.add_argument("--requests", "-k", type=int, required=True, metavar="K",
                        help=f"at most K requests arrive (1 to {MAX_REQUESTS})")
    parser.add_argument("--fairness", choices=("none", "weak"), default="none",
                        help="weak: a request able to move from some point on eventually "
                        "moves (SPIN's weak fairness); default none")
    parser.add_argument("-o", "--output", metavar="CERT",
                        help="where a violation's certificate goes (default MODEL.ltl.cert.json)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--timeout", type=seconds(), default=60.0, metavar="S",
                        help="seconds for the search and its check (default 60)")
    parser.add_argument("--max-states", type=int, default=None, metavar="N",
                        help="undecided beyond N product states (default 500,000), or for "
                        "--engine unfold N units of work: events added and co-set search "
                        "steps (default 3,000,000)")
    parser.add_argument("--engine", choices=("explicit", "unfold"), default="explicit",
                        help="explicit: the product with the Büchi automaton of ¬φ, with "
                        "request symmetry and ample sets (default); unfold: a complete "
                        "prefix of the unfolding of the program's PDNet (for G p, p "
                        "without temporal operators) or of its product with the "
                        "automaton (any other formula), each partial-order run once; "
                        "under weak fairness, when it finds only unfair lassos, the "
                        "explicit search decides")
    parser.add_argument("--unfolding", choices=("prefix", "tree"), default="prefix",
                        help="with --engine unfold: grow the prefix in the adequate order, "
                        "adding every possible extension (default), or by the exploration "
                        "tree, one partial-order run at a time (every formula then goes "
                        "through the product with the automaton)")
    add_model_options(parser)


@dataclass(frozen=True)
class Searched:
    """What the isolated search sends back: the verdict, the product states explored and,
    for a violation or an unbounded G p, the certificate."""

    verdict: str
    states: int  # product states, or for the unfolding its events
    certificate: dict[str, Any] | None = None
    cutoffs: int | None = None  # the unfolding's cut-off events
    why: str = ""  # undecided: which bound
    constant: tuple[tuple[str, bool], ...] = ()  # comparisons with one value everywhere
    fallback: str = ""  # the unfolding left the verdict to the explicit search: why
    runs: int | None = None  # the exploration tree's maximal configurations
    table: tuple[str, ...] = ()  # a violation's table (prover/ltl/table.py)
    lasso: tuple[dict[str, Any], ...] = ()  # and its events with their source lines
    first_bad: int | None = None  # G p: the events up to the first state where p is false


def _search(args: argparse.Namespace) -> Searched:
    from prover.frontend.load import load_model
    from prover.ltl.always import always_certificate
    from prover.ltl.formula import parse_formula, shown
    from prover.ltl.inductive import invariant_certificate
    from prover.ltl.lasso import ser_globals

    model = load_model(args.model, state_bound=args.state_bound, ns=args.ns,
                       defines=dict(defines(args)), lazy=True)
    if model.steps is not None:  # a Ser program: its names without a network system
        names = frozenset(model.steps.globals), frozenset(r for r, _ in model.steps.entries)
    else:
        names = ser_globals(model.ns), frozenset(model.ns.request_names)
    try:
        formula = parse_formula(args.formula, *names)
    except FormulaError as exc:
        raise FormulaError(f"--formula {shown(args.formula)}: {exc.message}") from None
    proof = always_certificate(args.model, args.formula, formula, args.state_bound) or \
        invariant_certificate(args.model, args.formula, formula)
    if proof is not None:
        return Searched("always", 0, proof)
    try:
        model.ns  # noqa: B018 -- the bounded searches read the network system
    except StateBoundError as exc:  # too large to step through: no bounded verdict
        return Searched("undecided", 0, why=f"{exc.message}; the bounded search needs the "
                        "program's network system (no invariant on the per-variable steps "
                        "implied the formula either)")
    decided = replace(_decide(args, model, formula), constant=_constant(args, model, formula))
    return _explained(decided, model, formula)


def _explained(searched: Searched, model: LoadedModel, formula: Formula) -> Searched:
    """A violation with its table: source lines, repeats folded, G p cut at its first
    bad state (the certificate keeps the lasso)."""
    from prover.ltl.table import first_bad, lines_of, render, rows_json

    if searched.verdict != "violated" or searched.certificate is None:
        return searched
    ltl = searched.certificate["ltl"]
    lines = lines_of(model.ns)
    initial = model.ns.initial_global if model.ns.kind == "ser" else None  # JSON: opaque
    bad = first_bad(formula, [*ltl["prefix"], *ltl["loop"]], initial)
    return replace(searched, table=tuple(render(ltl, lines, bad)),
                   lasso=tuple(rows_json(ltl, lines)), first_bad=bad)


def _constant(args: argparse.Namespace, model: LoadedModel, formula: Formula
              ) -> tuple[tuple[str, bool], ...]:  # fmt: skip
    """The formula's comparisons that no reachable state with at most K requests can
    change: a verdict about them is vacuous, and the output says so."""
    from prover.ltl.explore import constant_atoms

    found = constant_atoms(model.ns, formula, args.requests, args.max_states)
    return tuple((a.text, v) for a, v in found or [])


def _decide(args: argparse.Namespace, model: LoadedModel, formula: Formula) -> Searched:
    from prover.ltl.certify import violation_certificate
    from prover.ltl.explore import search
    from prover.ltl.formula import is_safety

    ns = model.ns
    if args.engine == "unfold":
        return _unfold(args, model, formula)
    if is_safety(formula) and args.fairness == "weak":
        return _safety_fairly(args, model, formula)
    result = search(ns, formula, args.requests, fairness=args.fairness,
                    max_states=args.max_states, progress=_progress(args))
    if result.verdict != "violated":
        return Searched(result.verdict, result.states)
    cert = violation_certificate(model, args.formula, args.requests, args.fairness, result)
    return Searched("violated", result.states, cert)


def _safety_fairly(args: argparse.Namespace, model: LoadedModel, formula: Unary) -> Searched:
    from prover.ltl.certify import safety_fairly

    result, cert = safety_fairly(model, args.formula, formula, args.requests, args.max_states,
                                 _progress(args))
    return Searched(result.verdict, result.states, cert)


def _unfold(args: argparse.Namespace, model: LoadedModel, formula: Formula) -> Searched:
    from prover.ltl.certify import by_unfolding
    from prover.ltl.unfold import MAX_CONDITIONS

    found, cert = by_unfolding(model, args.formula, formula, args.requests, args.fairness,
                               args.max_states, _progress(args), tree=args.unfolding == "tree")
    if found.verdict == "unfair":  # no fair loop among those the prefix shows: ask the search
        fallback = f"the unfolding ({found.events:,} events, {found.cutoffs:,} cut-offs) " \
            "found only unfair lassos; the explicit search decided"
        decided = _decide(argparse.Namespace(**{**vars(args), "engine": "explicit",
                                                "max_states": MAX_STATES}), model, formula)
        return replace(decided, fallback=fallback)
    why = f"more than {MAX_CONDITIONS:,} conditions in the prefix" \
        if found.limit == "conditions" else ""
    return Searched(found.verdict, found.events, cert, found.cutoffs, why, runs=found.runs)


def _progress(args: argparse.Namespace) -> Progress | None:
    return None if args.json else Progress(args.model)


def run(args: argparse.Namespace) -> int:
    if not 1 <= args.requests <= MAX_REQUESTS:
        raise UsageError(f"--requests must be between 1 and {MAX_REQUESTS}, not {args.requests}")
    if args.unfolding == "tree" and args.engine != "unfold":
        raise UsageError("--unfolding tree needs --engine unfold")
    if args.max_states is None:
        args.max_states = UNFOLD_WORK if args.engine == "unfold" else MAX_STATES
    if not args.timeout > 0 or args.max_states < 1:
        raise UsageError("--timeout must be > 0 and --max-states at least 1")
    from prover.certificate.write import dump_certificate
    from prover.run.output import check_destination, write_atomically
    from prover.run.pipeline import check_text

    target = args.output or f"{args.model}.ltl.cert.json"  # a violation, or G p for all
    check_destination(target, [args.model])
    outcome = run_isolated(partial(_search, args), timeout_s=args.timeout,
                           passthrough=(SerError,))
    if not args.json:
        Progress(args.model).clear()  # the search's child may have left a progress line
    if outcome.kind == "raised":
        raise outcome.value
    searched: Searched | None = outcome.value if outcome.kind == "ok" else None
    verdict = "undecided" if searched is None else searched.verdict
    why = {"timeout": f"no verdict within {args.timeout:g} s", "memory": "out of memory"}.get(
        outcome.kind, "" if searched is not None else f"internal error: {outcome.value}")
    dest, checked = None, None
    if searched is not None and searched.certificate is not None:
        text = dump_certificate(searched.certificate)
        status, message = check_text(text, searched.certificate["model"]["source"], args.timeout)
        checked = {"status": status, "message": message}
        if status == "valid":  # no certificate the checker did not accept is written
            write_atomically(text, target)
            dest = target
        else:
            what = "lasso" if searched.verdict == "violated" else "proof"
            verdict, why = "rejected", f"the checker rejected our {what}: {message}"
    if searched is not None and verdict == "undecided" and not why:
        unit = "units of work (events and co-set search steps)" if args.engine == "unfold" \
            else "product states"
        why = searched.why or f"more than {args.max_states:,} {unit}"
    _report(args, verdict, why, searched, dest, checked)
    return EXIT[verdict]


def _report(args: argparse.Namespace, verdict: str, why: str, searched: Searched | None,
            dest: str | None, checked: dict[str, str] | None) -> None:
    requests = f"{args.requests} request" + ("s" if args.requests > 1 else "")
    bound = f"every execution with at most {requests}" + \
        (" (weakly fair ones)" if args.fairness == "weak" else "")
    fallback = "" if searched is None else searched.fallback
    unfolded = args.engine == "unfold" and not fallback
    if args.json:
        print(json.dumps({
            "format": "ltl-result/1", "model": args.model, "formula": args.formula,
            "requests": args.requests, "fairness": args.fairness,
            "verdict": "holds" if verdict == "always" else verdict,
            "bounded": verdict != "always", "reason": why or None, "certificate": dest,
            "checker": checked, "engine": "explicit" if fallback else args.engine,
            "fallback": fallback or None,
            "product_states": None if searched is None or unfolded else searched.states,
            "events": searched.states if searched is not None and unfolded else None,
            "cutoffs": None if searched is None else searched.cutoffs,
            "runs": None if searched is None else searched.runs,
            "lasso": None if searched is None or not searched.lasso else list(searched.lasso),
            "first_bad_event": None if searched is None else searched.first_bad,
            "constant_atoms": [] if searched is None else
            [{"atom": a, "value": v} for a, v in searched.constant],
        }, sort_keys=False))
        return
    if fallback:
        print(f"{args.model}: note: {fallback}", file=sys.stderr)
    for note in _vacuity(searched.constant if searched is not None else (), verdict, requests):
        print(f"{args.model}: note: {note}", file=sys.stderr)
    if verdict == "always":
        how = "an inductive invariant on the per-variable steps implies p" \
            if searched is not None and searched.certificate is not None and \
            "invariant" in searched.certificate["always"] \
            else "p holds in every global state of the closure NS"
        print(f"{args.model}: {args.formula} holds for every execution, with any number of "
              f"requests: unbounded, {how}\n"
              f"certificate: {dest} (checked: {checked['message'] if checked else ''})")
        return
    if verdict == "holds" and searched is not None:
        how = f"an exhaustive search of {searched.states} product states"
        if unfolded and searched.runs is not None:
            how = f"an exploration tree of {searched.runs} runs over {searched.states} " \
                f"events ({searched.cutoffs} cut-offs)"
        elif unfolded:
            how = f"a complete unfolding prefix of {searched.states} events " \
                f"({searched.cutoffs} cut-offs)"
        print(f"{args.model}: {args.formula} holds for {bound}: a bounded claim, from {how}")
        return
    if verdict == "violated" and searched is not None and searched.certificate is not None:
        print(f"{args.model}: {args.formula} is VIOLATED by an execution with at most "
              f"{requests}\n")
        print("\n".join(searched.table))
        print(f"\ncertificate: {dest} (checked: {checked['message'] if checked else ''})")
        return
    print(f"{args.model}: {verdict}: {why}", file=sys.stderr if verdict == "rejected" else
          sys.stdout)


def _vacuity(constant: tuple[tuple[str, bool], ...], verdict: str, requests: str
             ) -> list[str]:  # fmt: skip
    """What a constant atom says of the verdict: an atom never true in a formula that holds
    may make it hold vacuously (`[] (p -> q)` with p never true); one always true there is
    the answer itself (`[] (IN <= 1)`), not a note."""
    shown = [(a, v) for a, v in constant if not (v and verdict in ("holds", "always"))]
    if not shown:
        return []
    said = ", ".join(f"`{a}` is always {str(v).lower()}" for a, v in shown)
    why = "a formula that holds because of that may hold vacuously" \
        if verdict in ("holds", "always") else "the verdict does not depend on them"
    return [f"on every reachable state with at most {requests}, {said}: {why}"]
