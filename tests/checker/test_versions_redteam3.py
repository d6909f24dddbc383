"""Red team, round 3, of the claim "Versions that never wrap" (docs/certificates.md): more
certificates that `check_certificate` must not accept, each for a Ser program that is NOT
serializable (bench/blind/bounded.py finds a counterexample for each, checked here too).

Forged as in tests/checker/test_versions_redteam.py (`_forge`): the abstract program is the
checker's own abstraction printed as core Ser, proved by the prover on its own, and wrapped
with the model's hash recomputed. Each test fails until the finding is fixed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.checker.test_versions_redteam import _forge, _not_serializable, _refused

# ---------------------------------------------------------------------------------------------
# Finding 1 (rule 6, "the embedded abstract program is exactly that abstraction"): `_rewrite`
# rebuilds the body with the folding constructors (mk_seq, mk_bin), which fold as the PARSER
# does, quirk Q1 included (`n && B` is B itself, `0 || B` is B itself). A removed `l := V` (or
# raise `V := V + 1`) turns `(l := V; 1) && 2` into the literal `1 && 2`, folded to 2, where
# the program computes `1 && 2` at run time: 1. The abstraction writes X := 2, the program
# X := 1: the reader's `(a - b) % 2` is always 0 in the abstraction (serializable) and -1 in
# the program when it sees the write between its reads (not serializable).

AND_FOLDED = """request w { X := ((l := V; 1) && 2); 0 }
request r { a := X; yield; b := X; (a - b) % 2 }
"""

OR_FOLDED = """request w { X := ((V := V + 1; 0) || 2); 0 }
request r { a := X; yield; b := X; (a - b) % 2 }
"""


# The same with V read, raised and guarding X, as the prover's frontend would choose it (the
# prover itself finds this program's counterexample: only a forged certificate is accepted).
GUARDED_FOLDED = """request w { X := ((l := V; V := V + 1; 0) || 2); 0 }
request r { a := X; yield; b := X; (a - b) % 2 }
"""


@pytest.mark.parametrize(("source", "versions"), [(AND_FOLDED, {"V": []}),
                                                  (OR_FOLDED, {"V": []}),
                                                  (GUARDED_FOLDED, {"V": ["X"]})],
                         ids=["and", "or", "guarded"])
def test_the_abstraction_folds_quirk_q1_where_the_program_does_not(
        tmp_path: Path, source: str, versions: dict[str, list[str]]) -> None:
    _not_serializable(tmp_path, source)
    _refused(_forge(tmp_path, source, versions))
