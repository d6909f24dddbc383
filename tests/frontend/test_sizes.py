"""Constants, arrays, request families and `for` (docs/language.md): both tools write a
program out alike, an array model is its hand-written twin, and bad sizes are clear errors."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import checker.model as cm
from checker.api import check_certificate
from checker.errors import CheckerError
from checker.program import parse_program
from prover.errors import IndexRangeError, SerError, SerSyntaxError, UsageError
from prover.frontend.load import load_source
from prover.frontend.parser import parse

BANK = """const K := 3;
global A[K] := 2, L[K];
request move[j in 0..K-1] {
  n := (j + 1) % K;
  while (L[j] == 1) { yield }; L[j] := 1; yield;
  if (A[j] > 0) { A[j] := A[j] - 1; A[n] := A[n] + 1 } else { 0 };
  L[j] := 0
}
request audit {
  s := 0;
  for (j in 0..K-1) { while (L[j] == 1) { yield }; L[j] := 1; yield; s := s + A[j] };
  for (j in 0..K-1) { L[j] := 0 };
  s
}
"""


def _twin(k: int) -> str:
    """BANK written out by hand at size k, cells named A0, L0, ..."""
    out = ["global " + ", ".join(f"A{i} := 2, L{i}" for i in range(k)) + ";"]
    for j in range(k):
        n = (j + 1) % k
        out.append(f"request move{j} {{ n := {n}; while (L{j} == 1) {{ yield }}; L{j} := 1; "
                   f"yield; if (A{j} > 0) {{ A{j} := A{j} - 1; "
                   + " else ".join(f"if (n == {i}) {{ A{i} := A{i} + 1 }}" for i in range(k))
                   + " else { exit } } else { 0 }; " + f"L{j} := 0 }}")
    audit = "".join(f"while (L{j} == 1) {{ yield }}; L{j} := 1; yield; s := s + A{j}; "
                    for j in range(k))
    out.append("request audit { s := 0; " + audit
               + "".join(f"L{j} := 0; " for j in range(k)) + "s }")
    return "\n".join(out)


def _checker_texts(src: str, constants: dict[str, int] | None = None) -> list[tuple[str, str]]:
    _, blocks = parse_program(src, constants)
    return [(r, cm.expr_text(b)) for r, b in blocks]


def _prover_texts(src: str, defines: dict[str, int] | None = None) -> list[tuple[str, str]]:
    return [(r.name, r.body.text) for r in parse(src, defines=defines).requests]


def test_the_bank_is_its_hand_written_twin() -> None:
    for k in (2, 3):
        model = load_source(BANK, "ser", defines={"K": k})
        twin = load_source(_twin(k), "ser")
        assert model.constants == (("K", k),)
        assert model.ns.sizes() == twin.ns.sizes()
        rename = {f"move[{j}]": f"move{j}" for j in range(k)}
        body = {rename.get(r.name, r.name): r.body.text for r in model.steps.program.requests}
        for r in twin.steps.program.requests:
            text = body[r.name]
            for j in range(k):
                text = text.replace(f"A[{j}]", f"A{j}").replace(f"L[{j}]", f"L{j}")
            assert text == r.body.text


def test_both_tools_write_the_bank_out_alike() -> None:
    for k in (1, 2, 5):
        assert _prover_texts(BANK, {"K": k}) == _checker_texts(BANK, {"K": k})


FORMS = [
    "global A[4]; request r { i := ?(0..3); A[i] := A[i] + 1; yield; A[i] }",
    "global A[3]; request r { A[(yield; 1)] := 2; A[?(0..2)] }",
    "global A[2], B[2]; request r { A[B[X]] := B[A[0]] + 1 }",
    "global A[2]; request r { i := 5; if (X) { A[i] } else { A[1] := 1 } }",
    "const N := 3; request r[k in 0..N-1] { for (j in 0..k) { X := X + j; yield }; k }",
    "const N := 2; request r { for (j in 1..0) { X := 1 }; for (j in 0..N) { 3; Y := j } }",
    "const M := -9223372036854775808; global Z := M + 1; request r { Z := ?(M..M+2) }",
    "global A[2]; request r { A[i := 1] := A[i]; A[1 / X] }",
    "global A[3] := 7; request r { while (A[i] > 0) { A[i] := A[i] - 1; i := (i + 1) % 3 } }",
]


@pytest.mark.parametrize("src", FORMS)
def test_both_tools_write_every_form_out_alike(src: str) -> None:
    assert _prover_texts(src) == _checker_texts(src, dict(parse(src).constants))


_INDEX = st.sampled_from(["i", "0", "2", "i + 1", "X", "A[i]", "(i := ?(0..2); i)", "j",
                          "(yield; 1)", "i % 3", "K - 1"])


@st.composite
def _programs(draw: Any) -> str:
    stmts = []
    for _ in range(draw(st.integers(1, 4))):
        a, b = draw(_INDEX), draw(_INDEX)
        stmts.append(draw(st.sampled_from([
            f"A[{a}] := A[{b}] + 1", f"x := A[{a}]", f"for (j in 0..K-1) {{ A[{a}] := j }}",
            f"if (A[{a}] == {b}) {{ yield }} else {{ B := A[{b}] }}", "i := ?(0..K)",
            f"A[{a}] := (yield; A[{a}])"])))
    family = draw(st.booleans())
    head = "request r[j in 0..K-1]" if family else "request r"
    return f"const K := 3; global A[K] := 1; {head} {{ {'; '.join(stmts)} }}"


@settings(max_examples=60, deadline=None)
@given(_programs())
def test_both_tools_write_random_array_programs_out_alike(src: str) -> None:
    try:
        want = _prover_texts(src)
    except SerError:
        with pytest.raises(CheckerError):
            _checker_texts(src, {"K": 3})
        return
    assert _checker_texts(src, {"K": 3}) == want


@pytest.mark.parametrize("src, message", [
    ("const K := x; request r { 1 }", "constant expression"),
    ("global A[0]; request r { 1 }", "1 to 1,024"),
    ("global A[2]; request r { A := 1 }", "is an array"),
    ("global A[2]; request r { A + 1 }", "is an array"),
    ("request r { B[1] }", "not an array"),
    ("const K := 2; request r { K := 3 }", "is a constant"),
    ("const K := 2; request r { for (K in 0..1) { 1 } }", "new lower-case name"),
    ("request r { for (j in 0..x) { 1 } }", "constant expression"),
    ("request r { for (j in 0..5000) { 1 } }", "4,096"),
    ("request r[j in 0..5000] { 1 }", "1,024 members"),
    ("request r[j in 1..0] { 1 }", "every request family is empty"),
    ("request r[j in 0..1] { 1 } request r[j in 1..2] { 1 }", "defined twice"),
    ("const K := 1; global K; request r { 1 }", "declared twice"),
    ("request r { X := ?(0..x) }", "constant expression"),
    ("const K := 1 / 0; request r { 1 }", "divides by zero"),
])
def test_bad_sizes_are_errors_at_their_place(src: str, message: str) -> None:
    with pytest.raises(SerError, match=message) as info:
        parse(src, "m.ser")
    assert info.value.location is not None and info.value.location.line >= 1


def test_defines_override_and_unknown_names_are_usage_errors() -> None:
    src = "const K := 2; const N := K * 2; global A[N]; request r { A[N - 1] := K }"
    assert parse(src, defines={"K": 3}).requests[0].body.text == "A[5] := 3"
    with pytest.raises(UsageError, match="no constant Q"):
        parse(src, defines={"Q": 1})
    with pytest.raises(SerSyntaxError, match="1 to 1,024"):
        parse(src, defines={"K": 1_000_000_000})


@pytest.mark.parametrize("src", [
    "global A[10000]; request r { 1 }",
    "request r[j in 0..9999] { 1 }",
    "request r { " + "for (j in 0..1) { " * 200 + "X := 1" + " }" * 200 + " }",
    "request r { " + "for (j in 0..1) { " * 40 + "X := 1" + " }" * 40 + " }",
    "global A[300]; request r { A[i] }",
])
def test_hostile_sizes_end_quickly_with_a_clear_error(src: str) -> None:
    start = time.monotonic()
    with pytest.raises(SerError) as info:
        load_source(src, "ser")
    assert info.value.code in ("E-SYNTAX", "E-COMPILE")
    assert time.monotonic() - start < 30  # bounded, not a timing target
    if "A[300]" not in src:  # the checker reads deeper programs than the prover writes
        with pytest.raises(CheckerError):
            parse_program(src, {})


def test_an_index_out_of_range_is_a_fault_only_where_reached() -> None:
    unreached = "global A[2]; request r { if (X == 7) { A[2] } else { A[1] := 1 } }"
    assert load_source(unreached, "ser").ns.sizes()
    reached = "global A[2]; request r { i := ?(0..2); yield; A[i] := 1 }"
    with pytest.raises(IndexRangeError) as info:
        load_source(reached, "ser", path="m.ser")
    assert info.value.code == "E-INDEX" and "outside 0..1" in info.value.message
    assert info.value.location is not None
    assert (info.value.location.line, info.value.location.column) == (1, reached.index("A[i]") + 1)


FLIP = """const K := 3;
global A[K], L[K];
request flip[j in 0..K-1] {
  while (L[j] == 1) { yield }; L[j] := 1; yield; A[j] := 1 - A[j]; v := A[j]; L[j] := 0; v
}
request get { i := ?(0..K-1); A[i] }
"""


@pytest.fixture(scope="module")
def bank_cert(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    from tests.checker.proved import proved

    cert: dict[str, Any] = proved(tmp_path_factory.mktemp("flip"), FLIP, "serializable",
                                  (("K", 2),))
    return cert


def test_a_certificate_records_its_constants_and_checks(bank_cert: dict[str, Any]) -> None:
    assert bank_cert["model"]["constants"] == {"K": 2}
    assert check_certificate(bank_cert).status == "valid"


@pytest.mark.parametrize("change, code", [
    (lambda m: m["constants"].update(K=3), None),  # another size: its own check decides
    (lambda m: m.pop("constants"), "E-CONSTANTS"),
    (lambda m: m["constants"].update(Q=1), "E-CONSTANTS"),
    (lambda m: m["constants"].pop("K") and m["constants"].update(k=2), "E-CONSTANTS"),
    (lambda m: m["constants"].update(K=2**63), "E-LIMIT"),
    (lambda m: m["constants"].update(K="2"), "E-SCHEMA"),
])
def test_forged_constants_are_rejected(bank_cert: dict[str, Any], change: Any,
                                       code: str | None) -> None:
    cert = json.loads(json.dumps(bank_cert))
    change(cert["model"])
    result = check_certificate(cert)
    assert result.status != "valid"
    if code is not None:
        assert result.code == code, result.message


def test_a_float_spelled_constant_is_rejected(bank_cert: dict[str, Any]) -> None:
    text = json.dumps(bank_cert).replace('"constants": {"K": 2}', '"constants": {"K": 2.0}')
    assert '"K": 2.0' in text
    assert check_certificate(text).code == "E-JSON"


def test_checked_against_other_constants_is_invalid(bank_cert: dict[str, Any],
                                                    tmp_path: Path) -> None:
    cert = tmp_path / "c.json"
    cert.write_text(json.dumps(bank_cert))
    run = [sys.executable, "-m", "checker.cli", str(cert), "--json"]
    same = subprocess.run([*run, "-D", "K=2"], capture_output=True, text=True)
    assert same.returncode == 0, same.stdout + same.stderr
    other = subprocess.run([*run, "-D", "K=4"], capture_output=True, text=True)
    assert other.returncode == 1 and json.loads(other.stdout)["code"] == "E-CONSTANTS"
    assert "made with K=2" in other.stdout
    absent = subprocess.run([*run, "-D", "K=2", "-D", "Q=4"], capture_output=True, text=True)
    assert absent.returncode == 1 and "no constant Q" in absent.stdout


def test_checked_against_a_model_file_its_own_constants_are_asked(
        bank_cert: dict[str, Any], tmp_path: Path) -> None:
    """Made with -D K=2 of a model that declares K := 3: checked against the model file
    with no -D, the certificate is of another instance (the red team's observation: it
    was said valid, of a verdict the model as written does not have)."""
    cert, model = tmp_path / "c.json", tmp_path / "m.ser"
    cert.write_text(json.dumps(bank_cert))
    model.write_text(FLIP)
    run = [sys.executable, "-m", "checker.cli", str(cert), "--model", str(model), "--json"]
    own = subprocess.run(run, capture_output=True, text=True)
    assert own.returncode == 1 and json.loads(own.stdout)["code"] == "E-CONSTANTS"
    assert "the model file gives K=3: the certificate was made with K=2" in own.stdout
    asked = subprocess.run([*run, "-D", "K=2"], capture_output=True, text=True)
    assert asked.returncode == 0, asked.stdout + asked.stderr
    alone = subprocess.run(run[:4] + ["--json"], capture_output=True, text=True)
    assert alone.returncode == 0  # no model file and no -D: the instance it names


def test_a_core_program_given_constants_is_rejected(tmp_path: Path) -> None:
    from tests.checker.proved import proved

    cert = proved(tmp_path, "request r { X := 1; yield; X }", "serializable")
    assert "constants" not in cert["model"]
    cert["model"]["constants"] = {"K": 2}
    assert check_certificate(cert).code == "E-CONSTANTS"


def test_only_a_model_with_sizes_loads_the_checkers_writer(bank_cert: dict[str, Any]) -> None:
    """A claim on a core program does not trust checker/sizes.py: it is not even loaded."""
    code = ("import sys, json; from checker.api import check_certificate\n"
            "r = check_certificate(sys.stdin.read()); assert r.status == 'valid', r.message\n"
            "print('checker.sizes' in sys.modules)\n")
    core = json.loads(json.dumps(bank_cert))
    loaded = subprocess.run([sys.executable, "-c", code], input=json.dumps(core), text=True,
                            capture_output=True)
    assert loaded.stdout.strip() == "True", loaded.stderr
    from tests.checker import certs

    plain = subprocess.run([sys.executable, "-c", code], text=True, capture_output=True,
                           input=json.dumps(certs.reduction_intro_lock()))
    assert plain.stdout.strip() == "False", plain.stderr


def test_a_part_of_a_family_is_its_members_range() -> None:
    from prover.frontend.parts import part_source

    src = "const K := 4;\nrequest get[i in 0..K-1] { X := i }\nrequest put { Y := 1 }\n"
    one = part_source(src, ("get[1]", "get[2]"))
    assert one is not None and [r.name for r in parse(one).requests] == ["get[1]", "get[2]"]
    assert one.count("\n") == src.count("\n")  # the lines stay the whole file's
    two = part_source(src, ("put",))
    assert two is not None and [r.name for r in parse(two).requests] == ["put"]
    assert part_source(src, ("get[0]", "get[2]")) is None  # a gap: no program of its own


def test_a_request_named_family_is_no_family() -> None:
    src = "const K := 2; global A[K]; request family { A[1] := 1 } request f[j in 0..1] { j }"
    assert _prover_texts(src) == _checker_texts(src, {"K": 2})
    assert [r for r, _ in _prover_texts(src)] == ["family", "f[0]", "f[1]"]


def test_a_long_array_program_is_written_out_in_linear_time() -> None:
    body = "; ".join(f"A[{i % 4}] := A[{(i + 1) % 4}] + 1" for i in range(600))
    src = f"global A[4]; request r {{ {body} }}"
    assert _prover_texts(src) == _checker_texts(src, {})


def test_a_remark_on_many_cells_is_said_once() -> None:
    from prover.frontend.lint import lint

    program = parse("const K := 8; global A[K] := 1, B[3]; request r { i := ?(0..K-1); "
                    "x := B[0] + B[2]; A[i] }")
    said = sorted(d.message for d in lint(program) if d.code == "W-CONSTANT")
    assert said == ["global 'A[0..7]' is never assigned: it keeps its initial value 1 "
                    "(a constant)", "global 'B[0], B[2]' is never assigned: it keeps its "
                    "initial value 0 (a constant)"]


DERIVED = """const N := 2;
const K := N;
request take { if (K > 2) { t := X; yield; X := 1 - t; 1 - t } else { X := 1 - X; X } }
"""


def test_d_on_the_checker_recomputes_the_constants_that_follow(tmp_path: Path) -> None:
    """Made with N=3 but K overridden to 2 (a true claim about another program than the
    model at N=3): `ser-check-cert -D N=3` asks for K=3 too (red team)."""
    from tests.checker.proved import proved

    cert = proved(tmp_path, DERIVED, "serializable", (("N", 3), ("K", 2)))
    assert cert["model"]["constants"] == {"N": 3, "K": 2}
    path = tmp_path / "c.json"
    path.write_text(json.dumps(cert))
    run = [sys.executable, "-m", "checker.cli", str(path), "--json"]
    asked = subprocess.run([*run, "-D", "N=3"], capture_output=True, text=True)
    assert asked.returncode == 1 and json.loads(asked.stdout)["code"] == "E-CONSTANTS"
    assert "K=3" in asked.stdout
    both = subprocess.run([*run, "-D", "N=3", "-D", "K=2"], capture_output=True, text=True)
    assert both.returncode == 0, both.stdout
    twice = subprocess.run([*run, "-D", "N=3", "-D", "N=2"], capture_output=True, text=True)
    assert twice.returncode == 2 and "two values" in twice.stderr


def test_a_network_system_has_no_constants() -> None:
    from tests.checker.test_cli_and_isolation import ROOT as CROOT

    cert = json.loads((CROOT / "certificates" / "mutex.json.cert.json").read_text())
    cert["model"]["constants"] = {"K": 3}
    assert check_certificate(cert).code == "E-CONSTANTS"
