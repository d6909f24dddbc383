"""`ser-prove slice` and `ser-prove explain --slice` on hand-drawn nets and examples."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from prover.cli import main
from prover.petri.read import read_net_file

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"

FILTER = "net filt\npl a (1)\ntr t1 a -> b\ntr t2 b c -> q\ntr t3 a -> q\n"
DUPS = "pl x : dup (0)\npl y : dup (0)\n"


def _json(capsys: pytest.CaptureFixture[str], argv: list[str], code: int = 0) -> dict[str, Any]:
    assert main(argv) == code
    return dict(json.loads(capsys.readouterr().out))


def test_maximal_and_minimal_json_and_pnml_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The filter net of test_dynamic_slice: maximal {t3} with places {a, q}; the
    minimal sequence is [t3]. The -o file is the slice as a PNML net of its own."""
    src = tmp_path / "f.net"
    src.write_text(FILTER)
    out = tmp_path / "s.pnml"
    info = _json(capsys, ["slice", str(src), "--criterion", "q", "--algorithm", "maximal",
                          "--json", "-o", str(out)])
    assert info == {"places": ["a", "q"], "transitions": ["t3"], "sequence": [],
                    "status": "sliced"}
    sub = read_net_file(out)
    assert sub.place_ids == ("a", "q") and sub.transition_ids == ("t3",)
    assert sub.initial == (1, 0)
    info = _json(capsys, ["slice", str(src), "--criterion", "q", "--algorithm", "minimal",
                          "--json"])
    assert info["sequence"] == ["t3"] and info["places"] == ["a", "q"]


def test_marking_file_replaces_m0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """With M0 = {b, c} instead of {a}: t2 fires directly (t3 and t1 need a). Maximal:
    B = {t1, t2, t3}; F from {b, c}: t2 only; filter: t2, places {b, c, q}."""
    src = tmp_path / "f.net"
    src.write_text(FILTER)
    mk = tmp_path / "m.txt"
    mk.write_text("# new M0\nb 1\nc = 1\n")
    info = _json(capsys, ["slice", str(src), "--criterion", "q", "--marking", str(mk),
                          "--algorithm", "maximal", "--json"])
    assert info["transitions"] == ["t2"] and info["places"] == ["b", "c", "q"]
    mk.write_text('{"a": 0, "b": 1}')
    info = _json(capsys, ["slice", str(src), "--criterion", "q", "--marking", str(mk),
                          "--algorithm", "minimal", "--json"])
    assert info["status"] == "no-slice" and info["places"] == []


def test_no_slice_and_undecided_exit_codes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "w.net"
    src.write_text("pl a (1)\ntr t a*2 -> q\n")
    assert main(["slice", str(src), "--criterion", "q", "--algorithm", "minimal"]) == 0
    assert "no slice: Q cannot be covered" in capsys.readouterr().out
    gen = tmp_path / "g.net"
    gen.write_text("pl a (1)\ntr g a -> a b\ntr c b -> c1\ntr d c1 -> c2\ntr e c2 c2 -> q\n")
    info = _json(capsys, ["slice", str(gen), "--criterion", "q", "--algorithm", "minimal",
                          "--json", "--max-states", "2"], code=3)
    assert info["status"] == "undecided"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--criterion", "nope", "--algorithm", "maximal"], "no place 'nope'"),
        (["--criterion", "q,", "--algorithm", "maximal"], "empty place name"),
        (["--criterion", "dup", "--algorithm", "maximal"], "shared by places"),
        (["--criterion", "q", "--algorithm", "minimal", "--max-states", "0"], "positive"),
    ],
)
def test_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    src = tmp_path / "f.net"
    src.write_text(FILTER + DUPS)
    assert main(["slice", str(src), *argv]) == 2
    assert message in capsys.readouterr().err


def test_a_marking_that_is_a_fifo_is_refused_without_hanging(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "f.net"
    src.write_text(FILTER)
    mk = tmp_path / "m.txt"
    os.mkfifo(mk)
    assert main(["slice", str(src), "--criterion", "q", "--marking", str(mk),
                 "--algorithm", "maximal"]) == 2
    assert "not a regular file (a FIFO); markings are read" in capsys.readouterr().err


def test_bad_net_file_is_an_error_with_location(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "bad.pnml"
    src.write_text("<pnml>\n<net id='n'>\n<place id='p'>\n</net></pnml>\n")
    assert main(["slice", str(src), "--criterion", "p", "--algorithm", "maximal"]) == 2
    err = capsys.readouterr().err
    assert f"{src}:4:" in err and "not well-formed" in err and "Traceback" not in err


def test_model_criterion_by_label_and_short_form(capsys: pytest.CaptureFixture[str]) -> None:
    """On a model the identifiers are the exporters' p<i>/t<i>; a place can be named by
    its label or REQUEST/RESPONSE. intro-nonser answers main with 0 or 1."""
    model = str(EXAMPLES / "intro-nonser.ser")
    a = _json(capsys, ["slice", model, "--criterion", "main/0", "--algorithm", "minimal",
                       "--json"])
    b = _json(capsys, ["slice", model, "--criterion", "R main/0", "--algorithm", "minimal",
                       "--json"])
    assert a == b and a["status"] == "sliced"
    assert all(str(t).startswith("t") for t in a["transitions"])
    assert a["places"] == sorted(a["places"])
    # 2 spawns, 4 steps (the README tour), one respond: main#1 need not answer
    assert len(a["sequence"]) == 7


def test_explain_no_longer_contradicts_itself(capsys: pytest.CaptureFixture[str]) -> None:
    """flip never answers 100 in e2-i3: the maximal slice is empty (nothing can put a
    token there, forward phase) and the minimal slice is none, with the reason."""
    assert main(["explain", str(EXAMPLES / "e2-i3.ser"), "--slice", "flip/100"]) == 0
    out = capsys.readouterr().out
    assert "maximal dynamic slice: 0 places, 0 transitions" in out
    assert "minimal dynamic slice: none: no firing sequence marks the place" in out
    info = _json(capsys, ["explain", str(EXAMPLES / "e2-i3.ser"), "--slice", "main/100",
                          "--json"])
    assert info["minimal_status"] == "sliced"
    mn, mx = info["minimal"], info["maximal"]
    assert isinstance(mn, dict) and isinstance(mx, dict)
    assert set(mn["transitions"]) <= set(mx["transitions"])
    assert len(mn["sequence"]) == 20  # 6 flips spawned and stepped, main's 7 steps, respond
