"""`ser-prove slice MODEL|NET --criterion P[,Q...] [--marking FILE] --algorithm
maximal|minimal [--json] [-o SLICE.pnml]`: the maximal or minimal dynamic slice of a
Petri net for the criterion ⟨M0, Q⟩ (Llorens, Oliver, Silva, Tamarit; see
prover/petri/dynamic_slice.py).

The net is read from a Ser program (`.ser`) or an NS (`.json`), whose interleaving net
is used with the exporters' identifiers `p<i>`/`t<i>`, or from a raw P/T net: PNML
(`.pnml`, `.xml`) or Tina (`.net`), with the file's own identifiers.

A place of Q is named by its identifier or, when unique, its name (for models also the
canonical label, e.g. `R main/1`, or `REQUEST/RESPONSE`). Names containing commas can be
given with one `--criterion` each. `--marking FILE` replaces M0: a JSON object
`{"place": tokens}` or lines `place tokens` / `place = tokens` (`#` comments); places
not listed are empty.

Exit codes: 0 answered (a slice, or "no slice" for a minimal slice when Q cannot be
covered), 2 input error, 3 undecided (the minimal search hit `--max-states`).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from prover.commands.options import add_deadline_option
from prover.errors import InputFileError, SourceLocation, UsageError
from prover.frontend.files import read_model_bytes
from prover.petri.dynamic_slice import (
    DEFAULT_MAX_STATES,
    MinimalResult,
    PTNet,
    Slice,
    from_interleaving,
    maximal_slice,
    minimal_slice,
)
from prover.petri.read import (
    RAW_SUFFIXES,
    NetFormatError,
    ptnet_to_pnml,
    read_net_file,
    subnet,
)
from prover.run.output import check_destination, write_atomically

EXIT_UNDECIDED = 3


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "model", metavar="MODEL|NET",
        help="a Ser program (.ser), an NS (.json), a PNML P/T net (.pnml, .xml) or a Tina "
        "net (.net)",
    )
    parser.add_argument(
        "--criterion", required=True, action="append", metavar="P[,Q...]",
        help="the places of Q (identifiers or names; repeat the option for names with commas)",
    )
    parser.add_argument(
        "--marking", metavar="FILE",
        help="initial marking M0 (JSON object or `place tokens` lines); default: the net's",
    )
    parser.add_argument(
        "--algorithm", required=True, choices=("maximal", "minimal"),
        help="maximal: everything that can contribute tokens to Q; minimal: a shortest "
        "firing sequence marking every place of Q, and what it uses",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("-o", "--output", metavar="SLICE.pnml", help="write the slice as PNML")
    parser.add_argument(
        "--max-states", type=int, default=DEFAULT_MAX_STATES, metavar="N",
        help=f"bound on the markings each minimal-slice search explores (default "
        f"{DEFAULT_MAX_STATES})",
    )
    parser.add_argument(
        "--state-bound", type=int, default=None, metavar="N",
        help="for models: stop compiling beyond N local x global states (default: the "
        "front end's, as for `ser-prove`)",
    )
    add_deadline_option(parser, 60.0, "reading the model or net and slicing it")


# ---- loading ----------------------------------------------------------------------------


def load_net(path: str, state_bound: int | None = None) -> tuple[PTNet, bool]:
    """The net of a model or raw net file, and whether it came from a model."""
    suffix = Path(path).suffix.lower()
    if suffix in RAW_SUFFIXES:
        return read_net_file(path), False
    if suffix in (".ser", ".json"):
        # the front end (lark, jsonschema) is imported only for models: raw nets are
        # read and sliced without paying for it
        from prover.frontend.load import DEFAULT_STATE_BOUND, load_model
        from prover.petri.build import build_interleaving_net

        bound = DEFAULT_STATE_BOUND if state_bound is None else state_bound
        model = load_model(path, state_bound=bound)
        for w in model.warnings:
            print(w.render(), file=sys.stderr)
        return from_interleaving(build_interleaving_net(model.ns), Path(path).stem), True
    raise InputFileError(
        f"{path}: unknown extension {suffix or '(none)'!r} (expected .ser, .json, .pnml, "
        ".xml or .net)"
    )


def find_place(net: PTNet, spec: str, from_model: bool) -> int | None:
    """Index of the place named by `spec`, or None. An identifier wins over a name; a
    name must be unique."""
    spec = spec.strip()
    if spec in net.place_ids:
        return net.place_ids.index(spec)
    named = [i for i, n in enumerate(net.place_names) if n == spec]
    if len(named) == 1:
        return named[0]
    if from_model and "/" in spec:  # REQUEST/RESPONSE for the place `R REQUEST/RESPONSE`
        short = [i for i, n in enumerate(net.place_names) if n == f"R {spec}"]
        if len(short) == 1:
            return short[0]
    return None


def _place_hint(net: PTNet, from_model: bool) -> str:
    if from_model:
        known = [n for n in net.place_names if n.startswith("R ")]
        return f" (completed-pair places: {', '.join(known)})" if known else ""
    ids = net.place_ids
    return f" (places: {', '.join(ids[:20])}{', ...' if len(ids) > 20 else ''})"


def parse_criterion(net: PTNet, specs: Sequence[str], from_model: bool) -> tuple[int, ...]:
    out: set[int] = set()
    for spec in specs:
        whole = find_place(net, spec, from_model)
        if whole is not None:
            out.add(whole)
            continue
        for part in spec.split(","):
            if not part.strip():
                raise UsageError(f"empty place name in --criterion {spec!r}")
            i = find_place(net, part, from_model)
            if i is None:
                same = [net.place_ids[k] for k, n in enumerate(net.place_names)
                        if n == part.strip()]
                if len(same) > 1:
                    raise UsageError(
                        f"the name {part.strip()!r} is shared by places {', '.join(same)}: "
                        "give an identifier"
                    )
                raise UsageError(
                    f"no place {part.strip()!r} in the net{_place_hint(net, from_model)}"
                )
            out.add(i)
    return tuple(sorted(out))


_LINE = re.compile(r"\s*(?P<place>.*?)\s*(?:=|:|\s)\s*(?P<n>[0-9]+)\s*$")


def read_marking(path: str, net: PTNet, from_model: bool) -> tuple[int, ...]:
    """A marking file (see the module docstring); places not listed are empty."""
    data = read_model_bytes(path, kind="marking")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputFileError(f"{path}: cannot read the marking ({exc})") from None
    m = [0] * len(net.place_ids)
    entries: list[tuple[str, object, int]] = []  # place, tokens, line
    if text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputFileError(
                f"not valid JSON: {exc.msg}", SourceLocation(path, exc.lineno, exc.colno)
            ) from None
        if not isinstance(data, dict):
            raise InputFileError(f"{path}: a JSON marking must be an object")
        entries = [(str(k), v, 0) for k, v in data.items()]
    else:
        for lineno, raw in enumerate(text.splitlines(), start=1):
            line = raw.split("#", 1)[0]
            if not line.strip():
                continue
            mt = _LINE.fullmatch(line)
            if mt is None or not mt.group("place"):
                raise InputFileError(
                    "expected `place tokens`", SourceLocation(path, lineno, 1, raw)
                )
            entries.append((mt.group("place"), int(mt.group("n")), lineno))
    for place, tokens, lineno in entries:
        loc = SourceLocation(path, lineno, 1) if lineno else None
        if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 0:
            raise InputFileError(
                f"{'' if loc else path + ': '}tokens of {place!r} must be a non-negative "
                "integer", loc
            )
        i = find_place(net, place, from_model)
        if i is None:
            raise InputFileError(
                f"{'' if loc else path + ': '}no place {place!r} in the net", loc
            )
        m[i] = tokens
    return tuple(m)


# ---- output -----------------------------------------------------------------------------


def slice_json(net: PTNet, sl: Slice | None, status: str) -> dict[str, Any]:
    """`{"places", "transitions", "sequence"}` with the net's identifiers (places and
    transitions sorted, the sequence in firing order), and the status."""
    if sl is None:
        return {"places": [], "transitions": [], "sequence": [], "status": status}
    return {
        "places": sorted(net.place_ids[i] for i in sl.places),
        "transitions": sorted(net.transition_ids[j] for j in sl.transitions),
        "sequence": [net.transition_ids[j] for j in sl.sequence],
        "status": status,
    }


def _named(ident: str, name: str) -> str:
    return ident if ident == name else f"{ident}  {name}"


def _human(
    net: PTNet, q: Sequence[int], algorithm: str, sl: Slice | None, mres: MinimalResult | None
) -> str:
    sz = net.sizes()
    lines = [
        f"net {net.name}: {sz['places']} places, {sz['transitions']} transitions",
        "criterion Q: " + ", ".join(_named(net.place_ids[i], net.place_names[i]) for i in q),
    ]
    if mres is not None and mres.status == "not-coverable":
        lines.append(f"no slice: Q cannot be covered from M0 (decided by {mres.method})")
        return "\n".join(lines)
    if mres is not None and mres.status == "undecided":
        lines.append(f"undecided: {mres.method}")
        return "\n".join(lines)
    assert sl is not None
    head = f"{algorithm} dynamic slice: {len(sl.places)} places, {len(sl.transitions)} transitions"
    if mres is not None:
        head += (f"; shortest sequence of {len(sl.sequence)} firings ({mres.method}, "
                 f"{mres.explored} markings)")
    lines.append(head)
    if mres is not None and sl.sequence:
        lines.append("sequence:")
        lines += [f"  {k + 1}. {_named(net.transition_ids[j], net.transition_names[j])}"
                  for k, j in enumerate(sl.sequence)]
    lines.append("places:")
    lines += [f"  {_named(net.place_ids[i], net.place_names[i])}" for i in sl.places]
    lines.append("transitions:")
    lines += [f"  {_named(net.transition_ids[j], net.transition_names[j])}"
              for j in sl.transitions]
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    if args.max_states < 1:
        raise UsageError("--max-states must be a positive integer")
    if args.output:
        check_destination(args.output, [args.model], "slice")
    net, from_model = load_net(args.model, args.state_bound)
    q = parse_criterion(net, args.criterion, from_model)
    marking = net.initial if args.marking is None else read_marking(
        args.marking, net, from_model
    )
    mres: MinimalResult | None = None
    if args.algorithm == "maximal":
        sl: Slice | None = maximal_slice(net, q, marking)
        status = "sliced"
    else:
        mres = minimal_slice(net, q, marking, max_states=args.max_states)
        sl = mres.slice
        status = {"sliced": "sliced", "not-coverable": "no-slice"}.get(mres.status, "undecided")
    if args.output:
        if sl is None:
            print(f"ser-prove slice: no slice to write to {args.output}", file=sys.stderr)
        else:
            sub = subnet(net, sl)
            sub = sub if args.marking is None else _with_marking(sub, sl, marking)
            write_atomically(ptnet_to_pnml(sub), args.output, "slice")
    if args.json:
        print(json.dumps(slice_json(net, sl, status), indent=2, ensure_ascii=False))
    else:
        print(_human(net, q, args.algorithm, sl, mres))
    return EXIT_UNDECIDED if status == "undecided" else 0


def _with_marking(sub: PTNet, sl: Slice, marking: Sequence[int]) -> PTNet:
    from dataclasses import replace

    return replace(sub, initial=tuple(marking[p] for p in sl.places))


__all__ = ["NetFormatError", "configure", "find_place", "load_net", "parse_criterion", "run"]
