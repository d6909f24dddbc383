"""`ser-prove MODEL -D K=2..24` (or `-D K=2,4,8`): the model decided at each size of one
constant, a table of sizes and the fitted growth of the time (docs/cli.md, "Sizes").

Sizes run in increasing order, each a whole `ser-prove` run of its own (its deadline, its
certificate `MODEL.K=8.cert.json`, checked); the sweep stops after the first size that is
undecided, since a larger one seldom is decided where a smaller one is not, and says so.
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from prover.commands.options import given_values
from prover.errors import SerError, UsageError

if TYPE_CHECKING:
    from prover.run.pipeline import ProveResult

EXIT_SEVERITY = (4, 2, 3, 1, 0)  # the most severe exit code of the sizes wins


@dataclass(frozen=True)
class Row:
    value: int
    verdict: str
    seconds: float
    local_states: int | None
    transitions: int | None
    form: str
    exit_code: int
    certificate: str | None


def swept(args: argparse.Namespace) -> tuple[str, tuple[int, ...], tuple[tuple[str, int], ...]]:
    """The one constant given several values, its values (increasing) and the others."""
    given = given_values(args)
    many = [n for n, vs in given.items() if len(vs) > 1]
    if len(many) > 1:
        raise UsageError(f"-D: give several values to one constant at a time, not to "
                         f"{many[0]} and {many[1]}")
    name = many[0]
    fixed = tuple((n, vs[0]) for n, vs in given.items() if n != name)
    return name, tuple(sorted(set(given[name]))), fixed


def certificate_path(model: str, name: str, value: int, out_dir: str | None) -> str:
    file = f"{Path(model).name}.{name}={value}.cert.json"
    return str(Path(out_dir) / file) if out_dir else str(Path(model).with_name(file))


def row_of(value: int, result: ProveResult | SerError) -> Row:
    if isinstance(result, SerError):
        return Row(value, f"error[{result.code}]", 0.0, None, None, "-", 2, None)
    sizes: dict[str, Any] = result.sizes or {}
    per = sizes.get("per_variable") or {}
    ns = sizes.get("network_system") or {}
    local = per.get("local_states", ns.get("local_states"))
    trans = per.get("transitions", ns.get("transitions"))
    form = result.engine or "-"
    return Row(value, result.status, float(result.times.get("total_s", 0.0)), local, trans,
               form, result.exit_code, result.certificate_path)


def growth(rows: list[Row]) -> float | None:
    """The least-squares slope of log(seconds) over log(size) of the decided sizes."""
    pts = [(math.log(r.value), math.log(max(r.seconds, 1e-3))) for r in rows
           if r.exit_code in (0, 1) and r.value > 0]
    if len(pts) < 2:
        return None
    mx = sum(x for x, _ in pts) / len(pts)
    my = sum(y for _, y in pts) / len(pts)
    den = sum((x - mx) ** 2 for x, _ in pts)
    return None if den == 0 else sum((x - mx) * (y - my) for x, y in pts) / den


def _cell(v: int | None) -> str:
    return "-" if v is None else f"{v:,}"


def table(name: str, rows: list[Row]) -> list[str]:
    head = f"{name:>6}  {'verdict':<18} {'seconds':>8} {'local states':>13} " \
           f"{'transitions':>12}  proof form"
    lines = [head]
    for r in rows:
        lines.append(f"{r.value:>6}  {r.verdict:<18} {r.seconds:>8.2f} "
                     f"{_cell(r.local_states):>13} {_cell(r.transitions):>12}  {r.form}")
    return lines


def record(name: str, fixed: tuple[tuple[str, int], ...], row: Row) -> dict[str, Any]:
    return {"format": "prove-size/1", "constants": {**dict(fixed), name: row.value},
            "verdict": row.verdict, "exit_code": row.exit_code, "seconds": round(row.seconds, 3),
            "local_states": row.local_states, "transitions": row.transitions,
            "proof_form": row.form, "certificate": row.certificate}


def run(args: argparse.Namespace) -> int:
    import json

    from prover.run.pipeline import prove_models

    if len(args.models) != 1 or args.output:
        raise UsageError("-D NAME=LO..HI decides one MODEL at several sizes: give one model "
                         "and no -o (certificates are MODEL.NAME=VALUE.cert.json)")
    model = args.models[0]
    name, values, fixed = swept(args)
    rows: list[Row] = []
    if not args.json:
        print(f"{model}: {name} = {', '.join(map(str, values))}", flush=True)
    for value in values:
        dest = certificate_path(model, name, value, args.out_dir)
        if not args.json and not args.quiet:  # progress, on a terminal or not
            end = "\r" if sys.stderr.isatty() else "\n"
            print(f"  deciding {name}={value} ...", end=end, file=sys.stderr, flush=True)
        result = prove_models([(model, dest)], timeout_s=args.timeout,
                              check_timeout_s=args.check_timeout, state_bound=args.state_bound,
                              ns_choice=args.ns, defines=(*fixed, (name, value)))[0]
        if not args.json and not args.quiet and sys.stderr.isatty():
            print("\r\033[K", end="", file=sys.stderr, flush=True)
        row = row_of(value, result)
        rows.append(row)
        if args.json:
            print(json.dumps(record(name, fixed, row), sort_keys=True), flush=True)
        elif isinstance(result, SerError):
            print(result.render(), file=sys.stderr)
        if row.exit_code not in (0, 1):
            break
    if not args.json:
        print("\n".join(table(name, rows)))
        exponent = growth(rows)
        if exponent is not None:
            decided = [r.value for r in rows if r.exit_code in (0, 1)]
            print(f"time grows as {name}^{exponent:.2f} (least squares over {name}="
                  f"{decided[0]}..{decided[-1]}, {len(decided)} sizes)")
        skipped = [v for v in values if v > rows[-1].value]
        if skipped:
            print(f"not tried: {name}={', '.join(map(str, skipped))} "
                  f"({name}={rows[-1].value} was {rows[-1].verdict})")
    return next(c for c in EXIT_SEVERITY if any(r.exit_code == c for r in rows))
