"""Affine subspaces of Q^n over named coordinates, exact (fractions), sparse.

What the replay summaries of attempts are computed with (prover/reduction/attempts.py):
per program point, the affine hull of the pairs (globals a replay read, the request's
locals) over the enumerated read-only steps, Karr's analysis run on concrete steps. A
space is a point and a basis in reduced row echelon form (each basis vector has a pivot
coordinate where it is 1 and every other basis vector is 0)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import reduce
from math import gcd, lcm

Vec = dict[str, Fraction]  # absent coordinates are 0


def _axpy(a: Fraction, x: Vec, y: Vec) -> Vec:
    """y + a·x, zeros dropped."""
    out = dict(y)
    for k, v in x.items():
        w = out.get(k, Fraction(0)) + a * v
        if w:
            out[k] = w
        else:
            out.pop(k, None)
    return out


@dataclass(frozen=True)
class Affine:
    point: Vec
    basis: tuple[tuple[str, Vec], ...]  # (pivot, vector)

    def reduce(self, v: Vec) -> Vec:
        """v minus its component in the span of the basis."""
        for piv, b in self.basis:
            c = v.get(piv)
            if c:
                v = _axpy(-c, b, v)
        return v

    def insert(self, v: Vec) -> Affine:
        """The space with direction v added."""
        r = self.reduce(v)
        if not r:
            return self
        piv = min(r)
        r = {k: x / r[piv] for k, x in r.items()}
        basis = [(p, _axpy(-b[piv], r, b) if piv in b else b) for p, b in self.basis]
        return Affine(self.point, tuple(sorted([*basis, (piv, r)])))

    def contains(self, other: Affine) -> bool:
        diff = _axpy(Fraction(-1), self.point, other.point)
        return not self.reduce(diff) and all(not self.reduce(b) for _, b in other.basis)

    def join(self, other: Affine) -> Affine:
        """The affine hull of both spaces."""
        out = self.insert(_axpy(Fraction(-1), self.point, other.point))
        for _, b in other.basis:
            out = out.insert(b)
        return out

    def restrict(self, coord: str, value: int) -> Affine | None:
        """The intersection with coord = value, None when empty."""
        gap = value - self.point.get(coord, Fraction(0))
        hit = [(p, b) for p, b in self.basis if coord in b]
        if not hit:
            return self if gap == 0 else None
        piv, star = hit[0]
        point = _axpy(gap / star[coord], star, self.point)
        basis = tuple((p, _axpy(-b[coord] / star[coord], star, b) if coord in b else b)
                      for p, b in self.basis if p != piv)  # fmt: skip
        return Affine(point, basis)

    def equations(self, coords: list[str]) -> list[tuple[dict[str, int], int]]:
        """Integer equations Σ c·x = d that define the space's projection on `coords`
        (the basis vectors must be 0 outside them): one per coordinate that is no pivot."""
        pivots = {p for p, _ in self.basis}
        out = []
        for k in coords:
            if k in pivots:
                continue
            row: Vec = {k: Fraction(1)}  # x_k − Σ b[k]·x_pivot = point_k − Σ b[k]·point_pivot
            for p, b in self.basis:
                if b.get(k):
                    row[p] = row.get(p, Fraction(0)) - b[k]
            rhs = sum((c * self.point.get(x, Fraction(0)) for x, c in row.items()), Fraction(0))
            scale = reduce(lcm, [c.denominator for c in [*row.values(), rhs]], 1)
            ints = {x: int(c * scale) for x, c in row.items()}
            g = reduce(gcd, [*ints.values(), int(rhs * scale)])
            out.append(({x: c // g for x, c in ints.items()}, int(rhs * scale) // g))
        return out


def everything(free: list[str], fixed: dict[str, int]) -> Affine:
    """The coordinates in `free` unconstrained, the others fixed."""
    return Affine({k: Fraction(v) for k, v in fixed.items() if v},
                  tuple((k, {k: Fraction(1)}) for k in sorted(free)))
