"""`?(lo..hi)` (issue 41, item 5): parsed, printed, bounded and run alike by the prover
and by the checker; the transfer-amount examples are proved and refuted as their lock
placement says, with certificates the checker accepts."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from prover.errors import IntegerRangeError, SerSyntaxError
from prover.frontend import ast
from prover.frontend.load import load_source
from prover.frontend.parser import parse
from prover.reduction.table import constants

from .test_against_checker import _checker_ns, _prover_ns

ROOT = Path(__file__).resolve().parents[2]
cm = pytest.importorskip("checker.model")
parse_program = pytest.importorskip("checker.program").parse_program


def _body(src: str) -> ast.Expr:
    return parse(src).requests[0].body


@pytest.mark.parametrize(("src", "text"), [
    ("X := ?(1..3)", "X := ?(1..3)"),
    ("X := ? ( 1 .. 3 )", "X := ?(1..3)"),
    ("X := ?(0..1)", "X := ?"),  # plain `?` is `?(0..1)`, printed as before
    ("X := ?", "X := ?"),
    ("X := ?(7..7)", "X := ?(7..7)"),
    ("?(0..10) - 5", "?(0..10) - 5"),
    ("-?(2..4)", "-?(2..4)"),
    (f"X := ?(0..{ast.MAX_CHOICE_VALUES - 1})", f"X := ?(0..{ast.MAX_CHOICE_VALUES - 1})"),
])
def test_both_parsers_accept_and_print_alike(src: str, text: str) -> None:
    assert _body(src).text == text
    assert cm.expr_text(parse_program(src)[1][0][1]) == text


def test_plain_choice_is_the_zero_one_range() -> None:
    assert _body("?") == _body("?(0..1)") == ast.Nondet()
    assert parse_program("?")[1] == parse_program("?(0..1)")[1]


@pytest.mark.parametrize(("src", "col"), [
    ("X := ?(3..1)", 6),  # inverted: empty
    (f"X := ?(0..{ast.MAX_CHOICE_VALUES})", 6),  # one value too many
    ("X := 1;\n  ?(5..0)", 3),
])
def test_prover_rejects_bad_ranges_at_the_choice(src: str, col: int) -> None:
    with pytest.raises(SerSyntaxError, match="is not a range of 1 to 1024 values") as info:
        parse(src)
    loc = info.value.location
    assert loc is not None and (loc.line, loc.column) == (src.count("\n") + 1, col)


@pytest.mark.parametrize("src", ["X := ?(3..1)", f"X := ?(0..{ast.MAX_CHOICE_VALUES})",
                                 "X := ?(0..99999999999999999999)"])
def test_checker_rejects_the_same_ranges(src: str) -> None:
    with pytest.raises(cm.CheckerError):
        parse_program(src)


@pytest.mark.parametrize("src", ["X := ?(1..99999999999999999999)",
                                 "X := ?(9223372036854775807..9223372036854775808)"])
def test_literals_beyond_64_bits_are_refused(src: str) -> None:
    with pytest.raises(IntegerRangeError):
        parse(src)
    with pytest.raises(cm.CheckerError):
        parse_program(src)


@pytest.mark.parametrize("src", ["X := ?()", "X := ?(1...3)", "X := ?(1..)",
                                 "X := ?(x..3)", "X := ?(1,3)"])
def test_other_forms_are_syntax_errors_on_both_sides(src: str) -> None:
    with pytest.raises(SerSyntaxError):
        parse(src)
    with pytest.raises(cm.ModelError):
        parse_program(src)


def test_negative_and_constant_bounds_are_read_alike_on_both_sides() -> None:
    src = "const N := 2; request r { X := ?(-1..N) }"
    assert parse(src).requests[0].body.text == "X := ?(-1..2)"
    assert cm.expr_text(parse_program(src, {"N": 2})[1][0][1]) == "X := ?(-1..2)"


def test_the_limits_agree() -> None:
    assert ast.MAX_CHOICE_VALUES == cm.CHOICE_BOUND


def test_every_value_is_an_outcome() -> None:
    ns = load_source("request t { yield; ?(1..3) }", "ser", ns="closure").ns
    assert sorted({r.response for r in ns.responses}) == ["1", "2", "3"]
    assert sorted(v for _, v, _, _ in cm.run(("nd", 2, 5), (), ())) == [2, 3, 4, 5]


@pytest.mark.parametrize("src", [
    "request t { X := ?(1..3); yield; x := X + ?(0..2); x }",
    "request t { y := ?(0..4) - 2; if (y < 0) { yield; X := y } else { X := ?(2..3) }; y }"
    " request u { Y := X; yield; ?(1..1) }",
])
def test_prover_and_checker_give_the_same_ns(src: str) -> None:
    assert _prover_ns("ser", src) == _checker_ns("ser", src)


def test_reduction_constants_include_the_bounds() -> None:
    assert constants(parse("request a { X := ?(1..3); 0 }")) == (0, 3)
    assert constants(parse("request a { X := ?; 0 }")) == (0, 0)  # as before


@pytest.mark.parametrize(("name", "verdict", "code"), [
    ("transfer-amount.ser", "serializable", 0),
    ("transfer-amount-nolock.ser", "NOT serializable", 1),
])
def test_transfer_of_an_amount(tmp_path: Path, name: str, verdict: str, code: int) -> None:
    model = ROOT / "examples" / name
    assert "?(1..3)" in model.read_text(encoding="utf-8")
    cert = tmp_path / "c.json"
    proc = subprocess.run([sys.executable, "-m", "prover.cli", str(model), "-o", str(cert)],
                          capture_output=True, text=True)
    assert proc.returncode == code, proc.stdout + proc.stderr
    assert proc.stdout.startswith(f"{model}: {verdict}\n") or f": {verdict}\n" in proc.stdout
    check = subprocess.run([sys.executable, "-m", "checker.cli", str(cert), "--model", str(model)],
                           capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr


DEPOSIT = """request deposit {
  while (L == 1) { yield };
  L := 1;
  n := ?(1..3);
  B := (B + n) % 7;
  yield;
  L := 0;
  n
}
request audit { while (L == 1) { yield }; L := 1; s := B; L := 0; s }
"""


def test_a_reduction_proof_over_per_variable_steps_with_a_range(tmp_path: Path) -> None:
    """A proof by reduction: the per-variable steps of both tools run every value of
    ?(1..3), B's domain is every value (B + n) % 7 takes, and the checker accepts it."""
    model, cert = tmp_path / "deposit.ser", tmp_path / "c.json"
    model.write_text(DEPOSIT, encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "prover.cli", str(model), "-o", str(cert),
                           "--no-locking"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    doc = json.loads(cert.read_text(encoding="utf-8"))
    assert {"global": "B", "range": [0, 6]} in doc["reduction"]["domains"]
    check = subprocess.run([sys.executable, "-m", "checker.cli", str(cert)],
                           capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
