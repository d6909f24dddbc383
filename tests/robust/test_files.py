"""Never lose a file: -o never replaces the model or a non-regular file, --out-dir name
clashes are errors, certificates are written atomically and nothing partial is left."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from prover.cli import main
from prover.errors import UsageError
from prover.run import pipeline
from prover.run.deadline import Interrupted

NONSER = "request main { X := 1; yield; y := X; X := 0; y }\n"
SER = "request main { 1 }\n"


def _model(d: Path, name: str = "m.ser", text: str = NONSER) -> Path:
    p = d / name
    p.write_text(text)
    return p


def test_output_equal_to_model_is_refused(tmp_path: Path) -> None:
    m = _model(tmp_path)
    assert main([str(m), "-o", str(m)]) == 2
    assert m.read_text() == NONSER


def test_output_through_a_link_to_the_model_is_refused(tmp_path: Path) -> None:
    m = _model(tmp_path)
    link = tmp_path / "link.json"
    link.symlink_to(m)
    assert main([str(m), "-o", str(link)]) == 2
    assert m.read_text() == NONSER and link.is_symlink()


@pytest.mark.parametrize("dest", ["/dev/null", "/dev/full"])
def test_output_to_a_device_is_refused(tmp_path: Path, dest: str,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    if not os.path.exists(dest):
        pytest.skip(f"{dest} does not exist here")
    assert main([str(_model(tmp_path)), "-o", dest]) == 2
    assert "not a regular file" in capsys.readouterr().err
    assert not Path(dest).is_file()


def test_output_to_a_directory_is_refused(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    assert main([str(_model(tmp_path)), "-o", str(tmp_path / "d")]) == 2


def test_out_dir_name_clash_is_an_error(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a = _model(tmp_path / "a", text=SER)
    b = _model(tmp_path / "b")
    out = tmp_path / "certs"
    assert main([str(a), str(b), "--out-dir", str(out)]) == 2
    assert "would both write" in capsys.readouterr().err
    assert not any(out.iterdir())


def test_same_model_twice_in_out_dir_is_fine(tmp_path: Path) -> None:
    m = _model(tmp_path, text=SER)
    assert main([str(m), str(m), "--out-dir", str(tmp_path / "c"), "--quiet"]) == 0


def test_existing_regular_certificate_is_replaced(tmp_path: Path) -> None:
    m = _model(tmp_path)
    dest = tmp_path / "old.json"
    dest.write_text('{"format": "ser-certificate/1", "verdict": "serializable"}')
    assert main([str(m), "-o", str(dest), "--quiet"]) == 1
    assert '"model"' in dest.read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.ser", "old.json"]
    empty = tmp_path / "empty.json"
    empty.write_text("")
    assert main([str(m), "-o", str(empty), "--quiet"]) == 1
    assert empty.read_text().startswith("{")


@pytest.mark.parametrize("command", [[], ["ltl", "-f", "[] (X <= 1)", "-k", "1"]])
def test_a_file_that_is_no_certificate_is_never_replaced(
        tmp_path: Path, command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """`ser-prove dcl.ser -o cas2.ser` once replaced another model with a certificate."""
    m, other = _model(tmp_path), _model(tmp_path, "cas2.ser", SER)
    args = [*command, str(m), "-o", str(other)] if command else [str(m), "-o", str(other)]
    assert main(args) == 2
    assert other.read_text() == SER
    assert "is not a certificate" in capsys.readouterr().err


def test_check_destination_directly(tmp_path: Path) -> None:
    m = _model(tmp_path)
    with pytest.raises(UsageError, match="over the model"):
        pipeline.check_destination(str(m), [str(m)])
    pipeline.check_destination(str(tmp_path / "new.json"), [str(m)])


def test_interrupted_write_leaves_nothing(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    dest = tmp_path / "c.json"

    def interrupted(src: str, dst: str) -> None:
        raise Interrupted(15)

    monkeypatch.setattr(pipeline.os, "replace", interrupted)
    with pytest.raises(Interrupted):
        pipeline.write_atomically("{}\n", str(dest))
    assert list(tmp_path.iterdir()) == []


def test_atomic_write_leaves_only_the_file(tmp_path: Path) -> None:
    dest = tmp_path / "c.json"
    pipeline.write_atomically("{}\n", str(dest))
    pipeline.write_atomically("{\"a\": 1}\n", str(dest))
    assert [p.name for p in tmp_path.iterdir()] == ["c.json"]
    assert dest.read_text() == "{\"a\": 1}\n"


def test_rejected_certificate_is_kept_by_the_parent(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from prover.run import decide  # the child runs the checker

    monkeypatch.setattr(decide, "check_text",

        lambda text, source, timeout, bound=None: ("invalid", "boom"))
    m = _model(tmp_path)
    assert main([str(m)]) == 3  # every engine's answer refused: undecided, never a verdict
    assert (tmp_path / "m.ser.cert.rejected.json").exists()
    assert not (tmp_path / "m.ser.cert.json").exists()


def test_a_foreign_checker_package_is_never_trusted(monkeypatch: pytest.MonkeyPatch) -> None:
    """`checker` and `schemas` are generic names (PyPI has other distributions of them):
    a package of another distribution in their place makes every verdict unavailable."""
    import checker
    from prover.run import pipeline as pl

    monkeypatch.setattr(checker, "__distribution__", "someone-else")
    status, message = pl.check_text("{}", "", 5)
    assert status == "unavailable" and "`checker` package is not ser-prove's" in message


MODEL_TEXT = ("global L := 0;\n"
              "request main { while (L == 1) { yield }; L := 1; yield; X := 1 - X; L := 0; 0 }\n")


@pytest.mark.parametrize("args", [
    ["ltl", "{m}", "-f", "G (X <= 1)", "-k", "2", "-o", "{m}"],
    ["export", "{m}", "--format", "dot", "-o", "{m}"],
    ["export", "{m}", "--format", "dot", "--output", "{m}"],
    ["export", "{m}", "--format", "mcc", "-o", "{m}"],
    ["slice", "{m}", "--criterion", "p0", "--algorithm", "maximal", "-o", "{m}"],
    ["bench", "{m}", "--json", "{m}"],
    ["bench", "{m}", "--out-dir", "{m}"],
    ["bench", "{m}", "--html", "{m}"],
    ["{m}", "-o", "{m}"],
    ["{m}", "--html", "{m}"],
])
def test_no_command_replaces_its_model(args: list[str], tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    """Every command that writes refuses an output that is its own input (exit 2, the
    file named), before any work; the model is left as it was."""
    m = tmp_path / "m.ser"
    m.write_text(MODEL_TEXT)
    assert main([a.replace("{m}", str(m)) for a in args]) == 2
    err = capsys.readouterr().err
    assert str(m) in err and "Traceback" not in err, err
    assert m.read_text() == MODEL_TEXT


def test_bench_out_dir_that_is_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    m, f = tmp_path / "m.ser", tmp_path / "taken"
    m.write_text(MODEL_TEXT)
    f.write_text("mine\n")
    assert main(["bench", str(m), "--out-dir", str(f)]) == 2
    assert "not a folder" in capsys.readouterr().err and f.read_text() == "mine\n"


@pytest.mark.parametrize("table, says", [
    ("[1,2", "expected.json:1:5: not JSON"),
    ('{"m.ser": {"expected": "serialisable"}}', "at m.ser/expected"),
    ('{"m.ser": "serializable"}', "at m.ser"),
    ('{"m": {"expected": "serializable"}}', "at the top level"),
    ("[]", "at the top level"),
])
def test_bench_refuses_a_malformed_expected_json(table: str, says: str, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """expected.json is checked against its schema before any model runs: not JSON, a
    verdict misspelt, a name without its extension are usage errors naming the file."""
    m = tmp_path / "m.ser"
    m.write_text(MODEL_TEXT)
    (tmp_path / "expected.json").write_text(table)
    assert main(["bench", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "expected.json" in err and says in err and "Traceback" not in err, err


def test_bench_warns_of_names_that_are_no_model(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    m = tmp_path / "m.ser"
    m.write_text(MODEL_TEXT)
    (tmp_path / "other.ser").write_text(MODEL_TEXT)
    (tmp_path / "expected.json").write_text(
        '{"m.ser": {"expected": "serializable"}, "gone.ser": {"expected": "serializable"}}')
    assert main(["bench", str(tmp_path), "--timeout", "20"]) == 0
    captured = capsys.readouterr()
    assert "'gone.ser' names no model file here" in captured.err
    assert "no expected verdict for other.ser" in captured.err
    assert "1/1 agree" in captured.out
