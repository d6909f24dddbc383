"""Constants, arrays, families and `for` written out as core Ser by the checker's own code,
node for node as docs/language.md ("Constants, arrays and request families") says: local
states are named by residual text, so the prover's writer must agree with this one."""

from __future__ import annotations

from typing import Any

from checker.errors import ModelError, invalid
from checker.model import Env, Expr, _choice, _name, mk_bin, mk_if, mk_seq, mk_un, mk_while

MAX_CELLS, MAX_COPIES, MAX_NODES = 1_024, 4_096, 2_000_000  # the prover's, nodes doubled
HIDDEN = "index#"


class _Writer:
    def __init__(self) -> None:
        self.nodes = 0

    def constant(self, e: Expr, sc: dict[str, Any], what: str) -> int:
        if (v := self.ex(e, sc))[0] != "int":
            raise ModelError(f"{what} is not a constant expression")
        return int(v[1])

    def ex(self, e: Expr, sc: dict[str, Any]) -> Expr:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise ModelError(f"the program written out has more than {MAX_NODES} nodes")
        tag, vals, arrays = e[0], sc["values"], sc["arrays"]
        if tag == "seq":
            parts: list[Expr] = []
            while e[0] == "seq":
                parts.append(self.ex(e[1], sc))
                e = e[2]
            return _sequence([*parts, self.ex(e, sc)])
        if tag in ("var", "assign") and e[1] in arrays or tag == "assign" and e[1] in vals:
            raise ModelError(f"{e[1]} is an array or a constant here")
        if tag == "var":
            return ("int", vals[e[1]]) if e[1] in vals else e
        if tag == "assign":
            return ("assign", e[1], self.ex(e[2], sc))
        if tag in ("idx", "idxset"):
            return self.index(e, sc)
        if tag == "for":
            lo, hi = (self.constant(b, sc, "a bound of `for`") for b in e[2:4])
            if hi - lo >= MAX_COPIES or e[1] in vals or e[1] in arrays or e[1][0] < "a":
                raise ModelError(f"for ({e[1]} in {lo}..{hi}): too many copies or a used name")
            copies = [self.ex(e[4], _bind(sc, e[1], k)) for k in range(lo, hi + 1)]
            return _sequence(copies) if copies else ("int", 0)
        if tag == "choose":
            return _choice(*(self.constant(b, sc, "a bound of ?(lo..hi)") for b in e[1:]))
        if tag == "bin":
            return mk_bin(e[1], self.ex(e[2], sc), self.ex(e[3], sc))
        if tag in ("not", "neg"):
            return mk_un(tag, self.ex(e[1], sc))
        if tag == "if":
            return mk_if(self.ex(e[1], sc), self.ex(e[2], sc), self.ex(e[3], sc))
        if tag == "while":
            return mk_while(self.ex(e[1], sc), self.ex(e[2], sc))
        return e  # literals, `?`, `yield`, `exit`

    def index(self, e: Expr, sc: dict[str, Any]) -> Expr:
        if (cells := sc["arrays"].get(e[1])) is None:
            raise ModelError(f"line {e[1].line}: {e[1]} is not an array")
        at = self.ex(e[2], sc)

        def cell(k: int, facts: dict[Expr, int]) -> Expr:
            name = f"{e[1]}[{k}]"
            return ("var", name) if e[0] == "idx" else \
                ("assign", name, self.ex(e[3], {**sc, "facts": facts}))

        if at[0] == "int" or at in sc["facts"]:
            k = at[1] if at[0] == "int" else sc["facts"][at]
            return cell(k, sc["facts"]) if 0 <= k < cells else ("exit",)
        hidden = not _lacks(at, ("assign", "yield", "nd", "while"))
        test = ("var", HIDDEN) if hidden else at
        keep = not hidden and e[0] == "idxset" and _lacks(
            e[3], ("assign", "yield", "while", "idxset", "for"))
        chain: Expr = ("exit",)
        for k in reversed(range(cells)):
            branch = cell(k, {**sc["facts"], at: k} if keep else sc["facts"])
            branch = mk_seq(("assign", HIDDEN, ("int", 0)), branch) if hidden else branch
            chain = mk_if(mk_bin("==", test, ("int", k)), branch, chain)
        return mk_seq(("assign", HIDDEN, at), chain) if hidden else chain


def _bind(sc: dict[str, Any], name: str, value: int) -> dict[str, Any]:
    return {**sc, "values": {**sc["values"], name: value}}


def _sequence(parts: list[Expr]) -> Expr:
    flat: list[Expr] = []
    for p in parts:
        while p[0] == "seq":
            flat.append(p[1])
            p = p[2]
        flat.append(p)
    out = flat[-1]
    for p in reversed(flat[:-1]):
        out = mk_seq(p, out)
    return out


def _lacks(e: Expr, tags: tuple[str, ...]) -> bool:
    todo = [e]
    while todo:
        if (n := todo.pop())[0] in tags:
            return False
        todo.extend(x for x in n[1:] if isinstance(x, tuple))
    return True


def expand(decls: list[Any], blocks: list[Any], constants: dict[str, int]
           ) -> tuple[Env, list[tuple[str, Expr]]]:
    """The initial globals and requests of a file, its constants given `constants`."""
    w, sc = _Writer(), dict[str, Any](values={}, arrays={}, facts={})
    initial: dict[str, int] = {}
    names = [str(d[1]) for d in decls]
    if len(set(names)) != len(names):
        raise ModelError(f"a declared name is repeated: {names}")
    declared = sorted(str(d[1]) for d in decls if d[0] == "const")
    if sorted(constants) != declared:
        raise invalid("E-CONSTANTS", f"the certificate's constants {sorted(constants)} are not "
                                     f"the model's {declared}")
    for d in decls:
        if d[0] == "const":
            sc = _bind(sc, str(d[1]), constants[str(d[1])])
            continue
        value = w.constant(d[3], sc, f"{d[1]}'s value") if d[3] else 0
        if d[2] is None:
            initial[_name(d[1], True)] = value
            continue
        cells = w.constant(d[2], sc, f"{d[1]}'s length")
        if not 1 <= cells <= MAX_CELLS:
            raise ModelError(f"{d[1]} has {cells} cells: an array has 1 to {MAX_CELLS}")
        initial.update((f"{_name(d[1], True)}[{k}]", value) for k in range(cells))
        sc = {**sc, "arrays": {**sc["arrays"], str(d[1]): cells}}
    requests: list[tuple[str, Expr]] = []
    for b in blocks:
        if len(b) == 2:  # (name, body); a family is (family, name, var, lo, hi, body)
            requests.append((b[0], w.ex(b[1], sc)))
            continue
        lo, hi = (w.constant(x, sc, "a bound of a request family") for x in b[3:5])
        if hi - lo >= MAX_CELLS or b[2] in sc["values"] or b[2][0] < "a":
            raise ModelError(f"request {b[1]}[{b[2]} in {lo}..{hi}]: too large or a used name")
        requests += [(f"{b[1]}[{k}]", w.ex(b[5], _bind(sc, str(b[2]), k)))
                     for k in range(lo, hi + 1)]
    if not requests or len({r for r, _ in requests}) != len(requests):
        raise ModelError("no request, or a request name repeated")
    return tuple(sorted((k, v) for k, v in initial.items() if v != 0)), requests
