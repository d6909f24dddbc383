"""Reduction proofs (DESIGN.md, "Per-variable steps and reduction proofs").

A Ser program is proved serializable by Lipton's reduction under an inductive invariant,
on its per-variable steps (prover/frontend/steps.py), with no network system and no
serial automaton:

- `table`: finite domains for the globals, found by a closure of the steps bounded by the
  program's constants, and the transitions of every local state on them;
- `invariant`: Houdini (Flanagan and Leino) over candidates read off the transitions:
  conservation laws of lock-like globals, and bounds relating a global to the requests
  whose next step changes it;
- `movers`: which transitions commute to the right or to the left with every step of
  another request, under the invariant;
- `engine`: the labels that give each request the shape (R|B)* N? (L|B)*, and the
  certificate's `reduction` member, which the checker verifies on its own steps.
"""
