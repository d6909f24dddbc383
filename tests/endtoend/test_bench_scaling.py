"""The scaling bench (bench/bench_scaling.py) at tiny sizes: the table's shape, the fitted
exponent on synthetic data, --compare noticing a changed certificate, and the output
safety of --json (it never overwrites a model it proves)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from bench import bench_scaling as bs
from bench.perlock import perlock, perlock_bug
from checker.semantics import ser_semantics
from prover.errors import UsageError
from tests.benchmarks import absent

ARGS = ["--families", "perlock,perlock-bug", "--sizes", "2,3", "--timeout", "20"]


def test_exponent_of_synthetic_power_laws() -> None:
    for k in (1.0, 2.0, 3.5):
        pts = [(float(n), 0.01 * n ** k) for n in (2, 4, 8, 16)]
        e = bs.fit_exponent(pts)
        assert e is not None and math.isclose(e, k, rel_tol=1e-9)
    assert bs.fit_exponent([(4.0, 1.0), (4.0, 2.0)]) is None  # one size: no slope
    assert bs.fit_exponent([(4.0, 0.0), (8.0, 1.0)]) is None  # a zero time is dropped


def test_perlock_programs_parse() -> None:
    for text in (perlock(3), perlock_bug(3)):
        assert ser_semantics(text) is not None
    assert "L2 := 1" in perlock(3).split("request audit")[1]
    assert "L2 := 1" not in perlock_bug(3).split("request audit")[1]


@pytest.fixture(scope="module")
def first(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    d = tmp_path_factory.mktemp("scaling")
    import contextlib
    import io
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = bs.main([*ARGS, "--out-dir", str(d / "run1"), "--json", str(d / "t.json")])
    assert code == 0
    return d, buf.getvalue()


def test_table_shape(first: tuple[Path, str]) -> None:
    d, out = first
    lines = out.splitlines()
    rows = [ln for ln in lines if ln.startswith("| perlock")]
    assert [r.split("|")[1:3] for r in rows[:4]] == [
        [" perlock ", " 2 "], [" perlock ", " 3 "], [" perlock-bug ", " 2 "],
        [" perlock-bug ", " 3 "]]
    assert all(len(r.split("|")) == 9 for r in rows[:4])
    table = json.loads((d / "t.json").read_text())
    assert [x["verdict"] for x in table["rows"]] == [
        "serializable", "serializable", "not_serializable", "not_serializable"]
    assert set(table["exponents"]) == {"perlock", "perlock-bug"}
    assert json.loads((d / "run1" / bs.VERDICTS).read_text())["perlock-002"] == "serializable"


def test_compare_detects_a_changed_certificate(first: tuple[Path, str], tmp_path: Path) -> None:
    d, _ = first
    old = tmp_path / "old"
    old.mkdir()
    for p in (d / "run1").iterdir():
        (old / p.name).write_bytes(p.read_bytes())
    assert bs.compare(d / "run1", old) == []
    cert = sorted(old.glob("*.cert.json"))[0]
    cert.write_bytes(cert.read_bytes() + b" ")
    verdicts = json.loads((old / bs.VERDICTS).read_text())
    verdicts["perlock-003"] = "undecided"
    (old / bs.VERDICTS).write_text(json.dumps(verdicts))
    diffs = bs.compare(d / "run1", old)
    assert f"certificate {cert.name}: bytes differ" in diffs
    assert any(x.startswith("verdict perlock-003") for x in diffs)


def test_json_refuses_to_overwrite_a_model(tmp_path: Path) -> None:
    if not (bs.SCALE / "counter-03.ser").is_file():
        pytest.skip(absent("scale"))
    target = bs.SCALE / "counter-03.ser"
    before = target.read_bytes()
    with pytest.raises(UsageError):
        bs.main(["--families", "counter", "--sizes", "3", "--json", str(target)])
    assert target.read_bytes() == before


def test_missing_many_handler_generators_are_named(capsys: pytest.CaptureFixture[str]) -> None:
    gens = bs.many_handler_gens(lambda m: print(m))
    names = {g.family for g in gens}
    assert {"perlock", "perlock-bug"} <= names
    out = capsys.readouterr().out
    for fn, fam, _, _ in bs.MANY:
        assert (fam in names) != (f"no {fn}()" in out)


def test_the_bars_are_those_of_the_issue() -> None:
    """15 s for a serializable idiom at 24 and a buggy twin at 16, 8 s for locked-16, 2 s
    and 10 s for the 200-handler programs, the idiom bench's bar elsewhere."""
    def x(family: str, size: int) -> dict[str, object]:
        return {"family": family, "size": size}

    assert bs.bar_s(x("rwcount", 24)) == 15.0
    assert bs.bar_s(x("rwcount-bug", 16)) == 15.0
    assert bs.bar_s(x("rwcount-bug", 24)) == bs.BAR_S
    assert bs.bar_s(x("perlock", 24)) == 15.0
    assert bs.bar_s(x("locked", 16)) == 8.0
    assert bs.bar_s(x("independent", 200)) == 2.0
    assert bs.bar_s(x("one-global", 200)) == 10.0
    assert bs.bar_s(x("counter", 256)) == bs.BAR_S
