"""Narrowed inputs (prover/frontend/narrow.py): a request that chooses among many values
in its first step is searched first with three values of each input; a counterexample
found there is one of the program (its answers checked not serial in the program)."""

from __future__ import annotations

import json
from pathlib import Path

from checker.api import check_certificate
from checker.program import parse_program
from prover.frontend.narrow import narrowed
from prover.run.decide import decide
from tests.checker.test_locking import _bank


def test_wide_first_choices_keep_three_values() -> None:
    text = narrowed(_bank(8), None)
    assert text is not None and "?(0..2)" in text and "?(0..7)" not in text
    (_, body), _ = parse_program(text)[1]
    (_, whole), _ = parse_program(_bank(8))[1]
    assert body[2] == whole[2][:1] + body[2][1:] or body != whole  # the rest is the same


def test_narrow_inputs_or_late_choices_are_left_alone() -> None:
    assert narrowed("request r { k := ?(0..3); X := k; k }\n", None) is None  # 4 < 16
    assert narrowed("request r { yield; k := ?(0..99); X := k; k }\n", None) is None
    assert narrowed("global A[2];\nrequest r { k := ?(0..99); j := ?(0..99); A[0] := k; j }\n",
                    None) is None  # arrays: not printed as the same text


def _unlocked_destination(k: int) -> str:
    """The transfer locks its lower account only: two opposite transfers overwrite each
    other's credit; it answers its accounts too (else a serial run with other accounts
    may answer the same)."""
    out = []
    for line in _bank(k).splitlines():
        if line.strip().startswith("x := hi; if (x == 0) { while"):
            line = "  0;"  # the higher account's lock is never taken
        elif line.strip().startswith("x := hi; if (x == 0) { L0 := 0 }"):
            line = "  " + line[line.index("x := lo;"):]  # nor given back
        out.append(line.replace("  bi * 10 + bj", "  ((i * 10 + j) * 10 + bi) * 10 + bj"))
    return "\n".join(out) + "\n"


def test_a_bug_among_many_accounts_is_found_narrowed(tmp_path: Path) -> None:
    path = tmp_path / "unlocked8.ser"
    path.write_text(_unlocked_destination(8))
    got = decide(str(path), str(path) + ".cert.json", timeout_s=60, check_timeout_s=30,
                 progress=None, use_proofs=True)
    assert got.result.status == "not_serializable" and got.text is not None
    cert = json.loads(got.text)
    assert "?(0..7)" in cert["model"]["source"]  # the program's own, not the narrowed one
    assert check_certificate(got.text).status == "valid"
