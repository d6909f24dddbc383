"""Reduction proofs (DESIGN.md, "Per-variable steps and reduction proofs").

A Ser program is proved serializable by Lipton's reduction under an inductive invariant,
on its per-variable steps (prover/frontend/steps.py), with no network system and no
serial automaton:

- `table`: finite domains for the globals, found by a closure of the steps bounded by the
  program's constants, and the transitions of every local state on them;
- `invariant`: candidates read off the transitions (conservation laws of lock-like
  globals, bounds relating a global to the requests whose next step changes it) and the
  z3 context they are asked in; `guards` and `samples` add value sets and what seeded
  runs suggest, and drop what the runs refute;
- `houdini`: the largest inductive subset of the candidates (Flanagan and Leino);
- `movers`: which transitions commute to the right or to the left with every step of
  another request, under the invariant;
- `engine`: the labels that give each request the shape (R|B)* N? (L|B)*, and the
  certificate's `reduction` member, which the checker verifies on its own steps.
"""
