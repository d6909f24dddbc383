"""Constants, arrays, families and `for` written out as core Ser (docs/language.md)."""
# Node for node as the docs say: local states are named by residual text, so both tools'
# writers agree.

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial, reduce
from typing import Any

from checker import model as m
from checker.errors import ModelError, invalid
from checker.model import Env, Expr

MAX_CELLS, MAX_COPIES, MAX_NODES = 1_024, 4_096, 2_000_000  # the prover's, nodes doubled
HIDDEN = "index#"
# the nodes folded by a smart constructor (§1.4) as they are rebuilt; the others as they are
_MAKE: dict[str, Callable[..., Expr]] = {"bin": m.mk_bin, "if": m.mk_if, "while": m.mk_while,
                                         "not": partial(m.mk_un, "not"),
                                         "neg": partial(m.mk_un, "neg")}


class _Writer:
    nodes = 0

    def constant(self, e: Expr, sc: dict[str, Any], what: str) -> int:
        if (v := self.ex(e, sc))[0] != "int":
            raise ModelError(f"{what} is not a constant expression")
        return int(v[1])

    def copies(self, var: str, bounds: Expr, body: Expr, sc: dict[str, Any], most: int,
               what: str) -> dict[int, Expr]:
        """`body` written out at each value of `var` in the constant range `bounds`."""
        lo, hi = (self.constant(b, sc, f"a bound of {what}") for b in bounds)
        if hi - lo >= most or var in sc["values"] or not m.is_local(var):
            raise ModelError(f"{what} ({var} in {lo}..{hi}): too many copies or a used name")
        return {k: self.ex(body, {**sc, "values": {**sc["values"], var: k}})
                for k in range(lo, hi + 1)}

    def ex(self, e: Expr, sc: dict[str, Any]) -> Expr:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise ModelError(f"the program written out has more than {MAX_NODES} nodes")
        tag, vals = e[0], sc["values"]
        if tag == "seq":
            return _sequence([self.ex(s, sc) for s in _flat(e)])
        if tag in ("var", "assign") and e[1] in sc["arrays"] or tag == "assign" and e[1] in vals:
            raise ModelError(f"{e[1]} is an array or a constant here")
        if tag == "var" and e[1] in vals:
            return ("int", vals[e[1]])
        if tag in ("idx", "idxset"):
            return self.index(e, sc)
        if tag == "for":
            copies = list(self.copies(e[1], e[2:4], e[4], sc, MAX_COPIES, "`for`").values())
            return _sequence(copies) if copies else ("int", 0)
        if tag == "choose":
            return m._choice(*(self.constant(b, sc, "a bound of ?(lo..hi)") for b in e[1:]))
        kids = [self.ex(x, sc) if isinstance(x, tuple) else x for x in e[1:]]
        return _MAKE[tag](*kids) if tag in _MAKE else (tag, *kids)

    def index(self, e: Expr, sc: dict[str, Any]) -> Expr:
        if (cells := sc["arrays"].get(e[1])) is None:
            raise ModelError(f"line {e[1].line}: {e[1]} is not an array")
        at = self.ex(e[2], sc)

        def cell(k: int, facts: dict[Expr, int]) -> Expr:
            name = f"{e[1]}[{k}]"
            return ("var", name) if e[0] == "idx" else \
                ("assign", name, self.ex(e[3], {**sc, "facts": facts}))

        if (k := sc["facts"].get(at, at[1] if at[0] == "int" else None)) is not None:
            return cell(k, sc["facts"]) if 0 <= k < cells else ("exit",)  # a known index
        hidden = any(n[0] in ("assign", "yield", "nd", "while") for n in m.nodes(at))
        test = ("var", HIDDEN) if hidden else at
        keep = not hidden and e[0] == "idxset" and not any(
            n[0] in ("assign", "yield", "while", "idxset", "for") for n in m.nodes(e[3]))
        chain: Expr = ("exit",)
        for k in reversed(range(cells)):
            branch = cell(k, {**sc["facts"], at: k} if keep else sc["facts"])
            branch = m.mk_seq(("assign", HIDDEN, ("int", 0)), branch) if hidden else branch
            chain = m.mk_if(m.mk_bin("==", test, ("int", k)), branch, chain)
        return m.mk_seq(("assign", HIDDEN, at), chain) if hidden else chain


def _flat(e: Expr) -> Iterator[Expr]:
    """The statements of `e`, a sequence nested to the right (or one statement)."""
    while e[0] == "seq":
        yield e[1]
        e = e[2]
    yield e


def _sequence(parts: list[Expr]) -> Expr:
    """The statements of `parts` as one sequence nested to the right (literals dropped)."""
    flat = [s for p in parts for s in _flat(p)]
    return reduce(lambda rest, s: m.mk_seq(s, rest), reversed(flat[:-1]), flat[-1])


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
            sc["values"][str(d[1])] = constants[str(d[1])]
            continue
        value = w.constant(d[3], sc, f"{d[1]}'s value") if d[3] else 0
        if d[2] is None:
            initial[m._name(d[1], True)] = value
        elif not 1 <= (cells := w.constant(d[2], sc, f"{d[1]}'s length")) <= MAX_CELLS:
            raise ModelError(f"{d[1]} has {cells} cells: an array has 1 to {MAX_CELLS}")
        else:
            initial.update((f"{m._name(d[1], True)}[{k}]", value) for k in range(cells))
            sc["arrays"][str(d[1])] = cells
    requests: list[tuple[str, Expr]] = []
    for b in blocks:
        if len(b) == 2:  # (name, body); a family is (family, name, var, lo, hi, body)
            requests.append((b[0], w.ex(b[1], sc)))
            continue
        copies = w.copies(str(b[2]), b[3:5], b[5], sc, MAX_CELLS, f"request family {b[1]}")
        requests += [(f"{b[1]}[{k}]", body) for k, body in copies.items()]
    if not requests or len({r for r, _ in requests}) != len(requests):
        raise ModelError("no request, or a request name repeated")
    return tuple(sorted((k, v) for k, v in initial.items() if v != 0)), requests
