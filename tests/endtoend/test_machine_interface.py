"""The machine interface and the CLI details of issue 12: `--json` is JSON Lines with
fixed keys that validate against schemas/prove-result.schema.json (on the examples, and
on the 47 paper models when they are installed), streamed per model; one error-code
style documented in docs/cli.md; help, version, broken pipes, certificates given as
models, bench exit codes, numeric response order, readable drawings."""

from __future__ import annotations

import importlib.resources
import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from prover.cli import main
from tests.benchmarks import PAPER, needs_paper

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
CODE = re.compile(r"^E-[A-Z0-9]+(-[A-Z0-9]+)*$")


def _validator() -> jsonschema.Draft202012Validator:
    schema = json.loads(
        (importlib.resources.files("schemas") / "prove-result.schema.json").read_text("utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def _records(out: str) -> list[dict[str, Any]]:
    lines = out.splitlines()
    assert lines and all(line.startswith("{") for line in lines), out[:300]
    return [json.loads(line) for line in lines]


def _assert_valid(records: list[dict[str, Any]]) -> None:
    v = _validator()
    for r in records:
        errors = [f"{list(e.absolute_path)}: {e.message}" for e in v.iter_errors(r)]
        assert not errors, (r["model"], errors[:3])
    # fixed keys: every record has the same keys, and so do its times and stats
    assert len({tuple(r) for r in records}) == 1
    assert len({tuple(r["times"]) for r in records}) == 1
    assert len({tuple(r["stats"]) for r in records}) == 1


@pytest.fixture()
def mixed(tmp_path: Path) -> list[Path]:
    """Models with every kind of outcome but internal errors."""
    out = []
    for name in ("intro-nonser.ser", "intro-lock.ser", "mutex.json"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
        out.append(tmp_path / name)
    bad = tmp_path / "bad.ser"
    bad.write_text("request r { x := 1; }\n")
    warn = tmp_path / "warn.json"
    warn.write_text(json.dumps({"initial_global": "g", "requests": [["r", "a"]],
                                "responses": [["a", "1"]], "transitions": [], "extra": 1}))
    return [*out, bad, warn]


def test_json_lines_validate_with_fixed_keys(
    mixed: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main([*map(str, mixed), "--out-dir", str(tmp_path / "c"), "--json", "--jobs", "2"])
    assert code == 2  # the input error is the most severe outcome
    records = _records(capsys.readouterr().out)
    _assert_valid(records)
    by_model = {Path(r["model"]).name: r for r in records}
    assert sorted(by_model) == sorted(m.name for m in mixed)
    assert by_model["intro-nonser.ser"]["verdict"] == "not_serializable"
    assert by_model["intro-nonser.ser"]["counterexample"]["requests"] == 2
    assert by_model["intro-lock.ser"]["verdict"] == "serializable"
    assert by_model["intro-nonser.ser"]["stats"]["explicit_states"] > 0
    assert by_model["intro-lock.ser"]["stats"]["peak_memory_mib"] > 0  # a POSIX machine
    bad = by_model["bad.ser"]
    assert bad["verdict"] == "input_error" and bad["error"]["code"] == "E-SYNTAX"
    warned = by_model["warn.json"]["warnings"]
    assert warned and warned[0]["code"] == "W-NS-IGNORED" and "extra" in warned[0]["message"]


def test_undecided_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ser = tmp_path / "u.ser"
    ser.write_text("request main { X := X + 1; X := X - 1; 0 }\n")
    assert main([str(ser), "--timeout", "0", "--json"]) == 3
    [rec] = _records(capsys.readouterr().out)
    _assert_valid([rec])
    assert rec["verdict"] == "undecided" and rec["reason"] and rec["certificate"] is None


DEADLOCKED = """// ab and ba take A and B in opposite orders; C grows, so no engine decides it
// (ab writes C in two places: get's bare read of C is no single read for two-phase locking).
request ab { while (A == 1) { yield }; A := 1; yield; while (B == 1) { yield }; B := 1;
             C := C + 2; C := C - 1; B := 0; A := 0; 0 }
request ba { while (B == 1) { yield }; B := 1; yield; while (A == 1) { yield }; A := 1;
             C := C + 1; A := 0; B := 0; 0 }
request get { C }
"""


def test_an_undecided_run_still_says_its_deadlock(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """No verdict: the deadlock search still runs in the time left and says what it
    found, with its trace (unchecked: no certificate is made without a verdict)."""
    ser = tmp_path / "d.ser"
    ser.write_text(DEADLOCKED)
    assert main([str(ser), "--timeout", "6", "--json"]) == 3
    [rec] = _records(capsys.readouterr().out)
    _assert_valid([rec])
    assert rec["verdict"] == "undecided" and rec["certificate"] is None
    assert rec["deadlock"]["found"] is True and rec["times"]["deadlock_s"] is not None
    assert "deadlock: 2 requests can get stuck" in rec["reason"]
    assert main([str(ser), "--timeout", "6"]) == 3
    out = capsys.readouterr().out
    assert "deadlock: 2 requests can get stuck" in out and "wait forever" in out


def test_records_stream_in_finishing_order_text_in_given_order() -> None:
    from prover.commands.report import InputFailure, Reporter

    out, err = io.StringIO(), io.StringIO()
    rep = Reporter(2, json=True, out=out, err=err)
    rep.add(1, "b.ser", InputFailure("E-SYNTAX", "b.ser:1:1: error[E-SYNTAX]: x"))
    assert json.loads(out.getvalue())["model"] == "b.ser"  # printed at once, not at the end
    rep.add(0, "a.ser", InputFailure("E-INPUT", "a.ser: no such file"))
    assert rep.finish() == 2 and len(out.getvalue().splitlines()) == 2

    out, err = io.StringIO(), io.StringIO()
    rep = Reporter(2, out=out, err=err)
    rep.add(1, "b.ser", InputFailure("E-SYNTAX", "b.ser: second"))
    assert err.getvalue() == ""  # waits for the model before it
    rep.add(0, "a.ser", InputFailure("E-INPUT", "a.ser: first"))
    assert err.getvalue().splitlines() == ["a.ser: first", "b.ser: second"]
    rep.finish()
    assert "2 models: 2 input error" in out.getvalue()


def test_undecided_reason_is_wrapped() -> None:
    from prover.commands.report import WIDTH, wrap_reason

    parts = tuple(f"engine{i}: " + "word " * 40 for i in range(3))
    reason = "no counterexample and no proof within the budget: " + "; ".join(parts)
    lines = wrap_reason(reason, parts)
    assert lines[0] == "  no counterexample and no proof within the budget:"
    assert sum(1 for line in lines if line.startswith("  - ")) == 3
    assert all(len(line) <= WIDTH for line in lines)


def test_quoted_program_text_is_not_split() -> None:
    from prover.commands.report import WIDTH, wrap_reason

    reason = ("the checker did not decide the certificate in time (consecution: step main "
              "(({}, X := 1; yield; X := 0), {}) -> (({}, X := 0), {X=1}): out of budget)")
    lines = wrap_reason(reason)
    assert not any(line.startswith("  - ") for line in lines)
    assert " ".join(line.strip() for line in lines) == reason
    assert all(len(line) <= WIDTH for line in lines)


@needs_paper
def test_paper_models_json_validates(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    models = sorted(p for p in PAPER.iterdir()
                    if p.suffix in (".ser", ".json") and p.name != "expected.json")
    assert len(models) == 47
    main([*map(str, models), "--json", "--jobs", "2", "--out-dir", str(tmp_path)])
    records = _records(capsys.readouterr().out)
    assert sorted(Path(r["model"]).name for r in records) == [m.name for m in models]
    _assert_valid(records)
    expected = json.loads((PAPER / "expected.json").read_text())
    for r in records:
        if r["verdict"] in ("serializable", "not_serializable"):
            assert r["verdict"] == expected[Path(r["model"]).name]["expected"], r["model"]


# ---------------------------------------------------------------- error codes and docs


def _prover_codes() -> set[str]:
    from prover.commands.export import NoCounterexampleError
    from prover.errors import SerError

    todo, codes = [SerError], set()
    while todo:
        cls = todo.pop()
        codes.add(cls.code)
        todo += cls.__subclasses__()
    return codes | {NoCounterexampleError.code, "E-INTERNAL"}


def _checker_codes() -> set[str]:
    text = "".join(p.read_text(encoding="utf-8") for p in (ROOT / "checker").glob("*.py"))
    return set(re.findall(r'"(E-[A-Z0-9-]+)"', text))


def test_one_error_code_style_all_documented() -> None:
    doc = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    codes = _prover_codes() | _checker_codes()
    assert len(codes) > 20
    for code in sorted(codes):
        assert CODE.match(code), code
        assert f"`{code}`" in doc, f"{code} is not documented in docs/cli.md"


def test_user_docs_stay_inside_the_repository() -> None:
    for doc in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]:
        text = doc.read_text(encoding="utf-8")
        assert "../shared" not in text, doc.name
        for target in re.findall(r"\]\(([^)#]+)\)", text):
            assert not target.startswith(("http:", "https:", "/")), (doc.name, target)
            assert (doc.parent / target).exists(), (doc.name, target)


def test_inspect_does_not_cite_the_reference(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect", "--no-target", str(EXAMPLES / "intro-lock.ser")]) == 0
    assert "ser-reference" not in capsys.readouterr().out


# ---------------------------------------------------------------- the CLI points


def test_top_help_shows_the_default_commands_options(
    capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for option in ("--out-dir", "--jobs", "--json", "--timeout", "--state-bound", "inspect"):
        assert option in out


def _closed_pipe_run(args: list[str]) -> subprocess.CompletedProcess[bytes]:
    """Run with stdout a pipe whose reader is already gone: every write fails."""
    r, w = os.pipe()
    os.close(r)
    try:
        return subprocess.run(args, stdout=w, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                              timeout=120)
    finally:
        os.close(w)


@pytest.mark.parametrize("tool,module", [("ser-prove", "prover.cli"),
                                         ("ser-check-cert", "checker.cli")])
def test_help_into_a_closed_pipe_has_no_traceback(tool: str, module: str) -> None:
    code = ("import sys; from {m} import {f} as entry; sys.exit(entry())"
            .format(m=module, f="main" if tool == "ser-prove" else "run"))
    proc = _closed_pipe_run([sys.executable, "-c", code, "-h"])
    assert b"Traceback" not in proc.stderr and b"BrokenPipe" not in proc.stderr, proc.stderr


def test_check_cert_version() -> None:
    proc = subprocess.run([sys.executable, "-c",
                           "import sys; from checker.cli import run; sys.exit(run())",
                           "--version"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.startswith("ser-check-cert ")


def test_check_cert_all_prints_a_summary_line() -> None:
    proc = subprocess.run([sys.executable, "-m", "checker.cli", "--all",
                           str(ROOT / "certificates")], capture_output=True, text=True,
                          timeout=300)
    n = len(list((ROOT / "certificates").glob("*.json")))
    assert proc.returncode == 0
    assert proc.stdout.rstrip().splitlines()[-1] == f"{n} certificates: {n} valid"


def test_state_bound_message_names_an_existing_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ser = tmp_path / "grow.ser"
    ser.write_text("request r { N := N + 1; N }\n")
    assert main(["export", str(ser), "--what", "ns", "--format", "dot",
                 "--state-bound", "50"]) == 2
    err = capsys.readouterr().err
    assert "E-STATE-BOUND" in err and "--state-bound" in err and str(ser) in err
    assert main([str(ser), "--state-bound", "0"]) == 2
    # Deciding it needs no network system: with none, the run is undecided, and says why
    # in the program's terms (the variable that grows).
    assert main([str(ser), "--state-bound", "50", "--timeout", "5"]) == 3
    out = capsys.readouterr().out
    assert "undecided" in out and "N" in out


def test_prove_keeps_ns_warnings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = tmp_path / "w.json"
    model.write_text(json.dumps({"initial_global": "g", "requests": [["r", "a"]],
                                 "responses": [["a", "1"]], "transitions": [], "note": "x"}))
    assert main([str(model), "--quiet"]) == 0
    err = capsys.readouterr().err
    assert f"{model}: warning[W-NS-IGNORED]:" in err and "note" in err


def test_certificate_given_as_model_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cert = tmp_path / "mutex.json.cert.json"
    shutil.copy(ROOT / "certificates" / "mutex.json.cert.json", cert)
    assert main([str(cert)]) == 2
    err = capsys.readouterr().err
    assert "E-INPUT" in err and "is a certificate" in err and "ser-check-cert" in err


def test_tour_certificates_are_ignored_by_git() -> None:
    patterns = (ROOT / ".gitignore").read_text().splitlines()
    assert "examples/*.cert.json" in patterns


def test_bench_exit_codes() -> None:
    from prover.commands.bench import BenchRow, exit_code

    def row(verdict: str, agrees: bool | None = True, check: str | None = "valid") -> BenchRow:
        return BenchRow("m", None, verdict, agrees, 1.0, 1.0, check, None, None, None)

    assert exit_code([row("serializable"), row("not_serializable")]) == 0
    assert exit_code([row("serializable"), row("undecided", None, None)]) == 3
    assert exit_code([row("undecided", None, None), row("serializable", False)]) == 1
    assert exit_code([row("input_error", None, None)]) == 1
    assert exit_code([row("serializable", check="invalid")]) == 1


def test_bench_agreement() -> None:
    from prover.commands.bench import agreement

    assert agreement("serializable", "serializable", "valid") is True
    assert agreement("serializable", "serializable", "invalid") is False
    assert agreement("serializable", "not_serializable", "valid") is False
    assert agreement("serializable", "input_error", None) is False
    assert agreement("serializable", "undecided", None) is None
    assert agreement(None, "serializable", "valid") is None


def test_bench_family_table_orders_sizes_numerically() -> None:
    from prover.commands.bench import BenchRow, _family_table

    def row(name: str, verdict: str, seconds: float, agrees: bool | None = True) -> BenchRow:
        return BenchRow(name, "serializable", verdict, agrees, seconds, 0.5, "valid", None,
                        None, None)

    table = _family_table([row("ring-12.ser", "serializable", 1.5),
                           row("ring-3.ser", "serializable", 0.25),
                           row("ring-16.ser", "undecided", 30.0, None),
                           row("ring-24.ser", "not_serializable", 2.0, False),
                           row("mutex.json", "serializable", 0.1)])
    assert table.splitlines()[1:] == [
        "ring       3: 0.25  12: 1.50  16: undecided  24: WRONG"]
    assert _family_table([row("mutex.json", "serializable", 0.1)]) == ""


def test_responses_in_numeric_order() -> None:
    from prover.certificate.explain import response_key

    assert sorted(["10", "17", "3", "-1", "x", "19"], key=response_key) == [
        "-1", "3", "10", "17", "19", "x"]


def test_drawings_use_short_ids_legend_and_clusters(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(EXAMPLES / "intro-lock.ser")
    for what in ("ns", "petri"):
        assert main(["export", path, "--format", "dot", "--what", what]) == 0
        out = capsys.readouterr().out
        assert "legend [shape=note" in out and "subgraph cluster_" in out
        assert "tooltip=" in out
        # the program text appears in the legend and tooltips only, never as a node label
        labels = re.findall(r'label="([^"]*)"', out)
        assert all("yield" not in label for label in labels), labels


def test_sequence_chart_lanes_in_instance_order(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", str(EXAMPLES / "e2-i3.ser"), "--format", "dot",
                 "--what", "counterexample"]) == 0
    out = capsys.readouterr().out
    chains = re.findall(r"^  (g_0 -> .*) \[style=invis\];$", out, flags=re.M)
    assert chains, out[:500]
    lanes = [int(m) for m in re.findall(r"i(\d+)_0", chains[0])]
    assert lanes == sorted(lanes) and len(lanes) >= 3
