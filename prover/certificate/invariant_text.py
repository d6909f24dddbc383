"""Why a proof by an inductive invariant on the interleaving net holds (the locked walk,
the state equation and the other net engines), in the program's terms: the lock (the
program points at most one request is at, and the globals it needs there), then the
invariant's conjuncts with each place named by its request and source line, the first
few of them and a count (a big invariant is summarized).

Presentation only: it reads a certificate the checker has accepted.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Mapping
from typing import Any

SHOWN = 10  # conjuncts listed; the rest are counted
Lines = Callable[[str], tuple[int, ...]]  # a local state's text -> the lines it stands at

ENGINES = {
    "locked-walk": "the locked walk: a request commits at the step that takes the lock, "
    "and the committed requests label a walk of the serial automaton",
    "state-equation": "the state equation: counters of the serial walk that every "
    "reachable marking's answers satisfy",
}


Owners = Callable[[str], frozenset[str]]  # a local state's text -> the requests reaching it


def explain_invariant(proof: Mapping[str, Any], engine: str, lines: Lines,
                      owners: Owners | None = None) -> dict[str, Any] | None:
    """The `--json` data of a proof whose certificate carries an invariant formula.
    `owners`: the requests whose runs reach each local state; a place of another request
    there (the net has one for every request at every local state) is never marked, and
    is left out of the sums shown."""
    inv = proof.get("invariant")
    if not isinstance(inv, dict) or not isinstance(inv.get("formula"), dict):
        return None
    formula = inv["formula"]
    conj = formula["and"] if "and" in formula else [formula]
    lines = _distinct(formula, lines, owners)
    never = [c for c in conj if _never(c) or _only_foreign(c, lines)]
    rest = sorted((c for c in conj if c not in never), key=_rank)  # program points first
    locks = [c for c in rest if _exclusion(c)]
    holders = {str(t["place"]["local"]) for c in locks for _, t in _terms(c["lhs"])}
    return {
        "engine": engine,
        "conjuncts": len(conj),
        "never_marked": len(never),
        "counters": sum(_rank(c) == 2 for c in rest),
        "lock": [_said(c, lines) for c in locks],
        "holder_needs": [_said(c, lines) for c in rest if _needs(c, holders)],
        "invariant": [_said(c, lines) for c in rest[:SHOWN]],
        "more": max(0, len(rest) - SHOWN),
    }


def _distinct(formula: Any, lines: Lines, owners: Owners | None = None) -> Lines:
    """`lines`, and the name of each local place of `formula` (the `name` attribute of the
    returned callable's owner): `#r@N{x=1}`, with the start of its rest of the program
    added where two distinct places would read the same, and a number after that."""
    found: dict[tuple[str, str], None] = {}
    todo = [formula]
    while todo:
        f = todo.pop()
        if isinstance(f, dict):
            if isinstance(f.get("local"), list) and len(f["local"]) == 2:
                found[(str(f["local"][0]), str(f["local"][1]))] = None
            todo.extend(f.values())
        elif isinstance(f, list):
            todo.extend(f)
    by_base: dict[str, list[tuple[str, str]]] = {}
    for key in sorted(found):
        by_base.setdefault(_base(*key, lines), []).append(key)
    names: dict[tuple[str, str], str] = {}
    for base, keys in by_base.items():
        for key in keys:
            names[key] = base if len(keys) == 1 else f"{base}«{_short(_residual(key[1]))}»"
        for n, key in enumerate(k for k in keys if [names[j] for j in keys].count(names[k]) > 1):
            names[key] += f"#{n + 1}"
    return _Lines(lines, names, owners)


class _Lines:
    """The lines of a local state, the name each local place of the invariant gets, and
    the requests that reach each local state (when known)."""

    def __init__(self, lines: Lines, names: dict[tuple[str, str], str],
                 owners: Owners | None) -> None:
        self.lines, self.names, self.owners = lines, names, owners

    def foreign(self, t: Any) -> bool:
        """A place of a request at a local state only other requests reach (never marked)."""
        local = t.get("place", {}).get("local") if isinstance(t, dict) else None
        if self.owners is None or not isinstance(local, list) or len(local) != 2:
            return False
        reach = self.owners(str(local[1]))
        return bool(reach) and str(local[0]) not in reach

    def __call__(self, text: str) -> tuple[int, ...]:
        return self.lines(text)


def _base(request: str, text: str, lines: Lines) -> str:
    at, env = lines(text), _env(text)
    return f"#{request}@{at[0]}{env}" if at else f"#{request}«{_short(_residual(text))}»{env}"


def _only_foreign(c: Any, lines: Lines) -> bool:
    """Every place `c` names is one that is never marked (a request at another's code)."""
    if not isinstance(lines, _Lines) or lines.owners is None:
        return False
    places, todo = [], [c]
    while todo:
        f = todo.pop()
        if isinstance(f, dict):
            if "place" in f or "aux" in f:
                places.append(f)
            else:
                todo.extend(f.values())
        elif isinstance(f, list):
            todo.extend(f)
    return bool(places) and all(lines.foreign(p) for p in places)


def _rank(c: Any) -> int:
    """0: names a program point; 1: only the globals; 2: only the proof's counters."""
    text = str(c)
    return 0 if "'local'" in text else 1 if "'place'" in text else 2


def _terms(t: Any) -> list[tuple[int, Any]]:
    return [(k, s) for k, s in t["sum"]] if "sum" in t else [(1, t)]


def _needs(c: Any, holders: set[str]) -> bool:
    """`#holder ≤ Σ globals`: where the lock's holder stands, the globals it needs."""
    if not isinstance(c, dict) or c.get("cmp") != "<=" or "place" not in c["lhs"]:
        return False
    return str(c["lhs"]["place"].get("local")) in holders and \
        all("global" in t.get("place", {}) for _, t in _terms(c["rhs"]))


def render_invariant(data: Mapping[str, Any]) -> str:
    how = ENGINES.get(data["engine"], f"the {data['engine']} engine")
    out = textwrap.wrap(f"Serializable by {how}; its invariant holds in every reachable "
                        "state. (#r@N{x=1}: the requests r at line N with local x = 1; "
                        "#r«e»: those about to answer e; [g]: the globals are g; done(r, v): "
                        "the requests r that answered v; other names: the proof's counters, "
                        "in the certificate)", 88)
    for lock in data["lock"]:
        out.append(f"Lock: at most one request at a time holds it: {lock['text']}"
                   + _named(lock))
    if not data["lock"] and data["engine"] == "locked-walk":
        out.append("Lock: none is held across a yield (no request stands between its "
                   "commit and its answer)")
    for need in data["holder_needs"]:
        out.append(f"  its holder stands only where the globals let it step: {need['text']}"
                   + _named(need))
    out += textwrap.wrap(f"Invariant: {data['conjuncts']} conjuncts ({data['never_marked']} "
                         f"say a program point is never reached, {data['counters']} bound "
                         "only the proof's counters), those naming the program first:", 88)
    out += [f"  {c['text']}" + _named(c) for c in data["invariant"]]
    if data["more"]:
        out.append(f"  ... and {data['more']} more (all in the certificate)")
    return "\n".join(out)


def _named(c: Mapping[str, Any]) -> str:
    parts = []
    if c["globals"]:
        parts.append("globals " + ", ".join(c["globals"]))
    if c["lines"]:
        parts.append("lines " + ",".join(map(str, c["lines"])))
    return f"   ({'; '.join(parts)})" if parts else ""


def _never(c: Any) -> bool:
    """`place = 0`: a program point no request reaches."""
    if not isinstance(c, dict) or c.get("cmp") != "=":
        return False
    a, b = c.get("lhs", {}), c.get("rhs", {})
    return ("place" in a and b == {"const": 0}) or ("place" in b and a == {"const": 0})


def _exclusion(c: Any) -> bool:
    """`Σ local places ≤ 1`: at most one request at these points, the lock's holders."""
    if not isinstance(c, dict) or c.get("cmp") != "<=" or c.get("rhs") != {"const": 1}:
        return False
    terms = _terms(c["lhs"])
    return all(k == 1 and "local" in t.get("place", {}) for k, t in terms)


def _said(c: Any, lines: Lines) -> dict[str, Any]:
    names: set[str] = set()
    seen: set[int] = set()
    text = _form(c, lines, names, seen)
    return {"text": text, "globals": sorted(names), "lines": sorted(seen)}


def _form(f: Any, lines: Lines, names: set[str], seen: set[int]) -> str:
    if "and" in f or "or" in f:
        op = "and" if "and" in f else "or"
        parts = [_form(g, lines, names, seen) for g in f[op]]
        return "(" + f" {'∧' if op == 'and' else '∨'} ".join(parts) + ")"
    if "not" in f:
        return "¬" + _form(f["not"], lines, names, seen)
    op = {"<=": "≤", ">=": "≥", "=": "="}.get(f["cmp"], f["cmp"])
    return f"{_term(f['lhs'], lines, names, seen)} {op} {_term(f['rhs'], lines, names, seen)}"


def _term(t: Any, lines: Lines, names: set[str], seen: set[int]) -> str:
    if "const" in t:
        return str(t["const"])
    if "aux" in t:
        return str(t["aux"])
    if "place" in t:
        return "0" if isinstance(lines, _Lines) and lines.foreign(t) else \
            _place(t["place"], lines, names, seen)
    if "sum" in t:
        kept = [(k, s) for k, s in t["sum"] if not (isinstance(lines, _Lines) and
                                                    lines.foreign(s))]
        return _sum([(k, _term(s, lines, names, seen)) for k, s in kept])
    c, a, b = t["ite"]
    return f"(if {_form(c, lines, names, seen)} then {_term(a, lines, names, seen)} " \
        f"else {_term(b, lines, names, seen)})"


def _sum(parts: list[tuple[int, str]]) -> str:
    out = ""
    for k, text in parts:
        sign = "-" if k < 0 else "+"
        mag = f"{abs(k)}·{text}" if abs(k) != 1 else text
        out = (f"-{mag}" if k < 0 else mag) if not out else f"{out} {sign} {mag}"
    return out or "0"


def _place(p: Any, lines: Lines, names: set[str], seen: set[int]) -> str:
    if "global" in p:
        names.update(_GLOBAL.findall(str(p["global"])))
        return f"[{str(p['global']).strip('{}') or 'all 0'}]"
    if "response" in p:
        return f"done({p['response'][0]}, {p['response'][1]})"
    if "local" in p:
        request, text = p["local"]
        seen.update(lines(text)[:1])
        named = lines.names if isinstance(lines, _Lines) else {}
        return named.get((str(request), str(text))) or _base(request, text, lines)
    return str(p)


_GLOBAL = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=")


def _residual(local: str) -> str:
    """The rest of the program of a local state `(env, rest)`."""
    return local[local.find("}, ") + 3:-1] if local.startswith("({") else local


def _env(local: str) -> str:
    """The locals of a local state `({x=1}, rest)`, which tell apart points on one line."""
    env = local[1:local.find("}") + 1] if local.startswith("({") else "{}"
    return "" if env == "{}" else env


def _short(text: str, width: int = 24) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
