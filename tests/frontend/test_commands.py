"""`ser-prove inspect` and `ser-prove export`, through the CLI entry point."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from prover.cli import main
from prover.frontend.load import load_model, load_source
from prover.petri.build import build_interleaving_net
from prover.petri.export import petri_to_tina
from prover.petri.net import PetriNet
from tests.benchmarks import PAPER, needs_paper

BENCH = PAPER
A2 = "request main { X := 1; yield; y := X; X := 0; y }\n"


@pytest.fixture()
def a2(tmp_path: Path) -> Path:
    p = tmp_path / "a2.ser"
    p.write_text(A2)
    return p


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_inspect_json(a2: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "inspect", str(a2), "--json")
    assert code == 0
    assert out.count("\n") == 1
    assert json.loads(out) == {
        "per_variable": {"globals": 1, "domain_values": 2, "local_states": 4,
                         "transitions": 3, "stutters": 0, "escapes": 0,
                         "widest_footprint": 1},
        "network_system": {
            "globals": 2, "locals": 4, "requests": 1, "responses": 2, "transitions": 4,
        },
        "petri_net": {"places": 8, "transitions": 7},
        "serial_automaton": {"initial": "{}", "edges": [["{}", "main", "1", "{}"]]},
        "serial_set": {"components": 1, "periods": 1},
        "target": {"disjuncts": 1, "sliced": [{"places": 8, "transitions": 7}]},
    }


def test_inspect_human(a2: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "inspect", str(a2))
    assert code == 0
    assert "places" in out and "{} --main/1--> {}" in out and "local states" in out


def test_inspect_a_program_too_large_for_a_network_system(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Its per-variable sizes, and why there is no NS: not an error of the model."""
    accounts = [f"A{i}" for i in range(6)]
    p = tmp_path / "wide.ser"
    p.write_text("\n".join(
        f"request d{i} {{ while (L == 1) {{ yield }}; L := 1; if ({a} == 2) {{ 0 }} else "
        f"{{ {a} := {a} + 1 }}; L := 0; 0 }}" for i, a in enumerate(accounts)))
    code, out, _ = run_cli(capsys, "inspect", str(p), "--json", "--state-bound", "100")
    assert code == 0
    info = json.loads(out)
    assert info["per_variable"]["globals"] == 7 and info["per_variable"]["escapes"] == 0
    assert "state bound 100" in info["network_system"]["error"]


@needs_paper
def test_inspect_json_on_a_benchmark_is_sorted_and_stable(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # --no-target: splitting g1's target takes seconds; its determinism is tested on c2
    args = ("inspect", "--json", "--no-target", "--ns", "closure", str(BENCH / "g1.ser"))
    _, out1, _ = run_cli(capsys, *args)
    _, out2, _ = run_cli(capsys, *args)
    assert out1 == out2
    info = json.loads(out1)
    edges = info["serial_automaton"]["edges"]
    assert edges == sorted(edges) and edges
    assert info["petri_net"] == {"places": 86, "transitions": 285}
    _, out1, _ = run_cli(capsys, "inspect", "--json", str(BENCH / "c2.ser"))
    _, out2, _ = run_cli(capsys, "inspect", "--json", str(BENCH / "c2.ser"))
    assert out1 == out2 and json.loads(out1)["target"]["disjuncts"] > 0


@pytest.mark.parametrize(
    ("text", "suffix", "code_text"),
    [
        ("request r { x; }", ".ser", "E-SYNTAX"),
        ("request r { exit }", ".ser", "E-EXIT"),
        ("", ".ser", "E-INPUT"),
        ("{", ".json", "E-NS-FORMAT"),
        ("[]", ".json", "E-NS-FORMAT"),
        ("x", ".txt", "E-INPUT"),
        ("99999999999999999999", ".ser", "E-INT-RANGE"),
    ],
)
def test_bad_input_exits_2_without_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, suffix: str, code_text: str
) -> None:
    p = tmp_path / f"m{suffix}"
    p.write_text(text)
    for command in ("inspect", "export"):
        extra = ["--format", "net"] if command == "export" else []
        code, out, err = run_cli(capsys, command, str(p), *extra)
        assert code == 2
        assert code_text in err and "Traceback" not in err
        assert out == ""


def test_state_bound_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "g.ser"
    p.write_text("request up { X := X + 1 }")
    code, _, err = run_cli(capsys, "export", str(p), "--format", "net", "--state-bound", "50")
    assert code == 2 and "E-STATE-BOUND" in err and "X (" in err
    code, out, _ = run_cli(capsys, "inspect", str(p), "--state-bound", "50")
    assert code == 0 and "network system: not built" in out and "state bound 50" in out


def test_warnings_go_to_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "w.json"
    p.write_text(json.dumps({"initial_global": "g", "requests": [], "responses": [],
                             "transitions": [], "extra": 1}))
    code, out, err = run_cli(capsys, "inspect", "--json", str(p))
    assert code == 0 and "unknown top-level member 'extra'" in err
    json.loads(out)


# ---- export ---------------------------------------------------------------------------


Arcs = dict[str, int]


def read_net_like_smpt(text: str) -> tuple[Arcs, dict[str, tuple[Arcs, Arcs]]]:
    """A reader following SMPT's line rules (reference/smpt.md §4.1): `#` and `,` become
    `.`, lines then starting with `.` are comments unless their second word is pl/tr."""
    places: dict[str, int] = {}
    trans: dict[str, tuple[dict[str, int], dict[str, int]]] = {}
    for raw in text.splitlines():
        words = raw.replace("#", ".").replace(",", ".").strip().split()
        if not words:
            continue
        if words[0].startswith("."):
            assert len(words) < 2 or words[1] not in ("pl", "tr")
            continue
        if words[0] == "pl":
            places[words[1]] = int(words[2].strip("()"))
        elif words[0] == "tr":
            arrow = words.index("->")
            def arcs(ws: list[str]) -> dict[str, int]:
                out: dict[str, int] = {}
                for w in ws:
                    name, _, weight = w.partition("*")
                    assert name not in out
                    out[name] = int(weight or 1)
                    places.setdefault(name, 0)
                return out
            trans[words[1]] = (arcs(words[2:arrow]), arcs(words[arrow + 1:]))
        else:
            assert words[0] == "net"
    return places, trans


def _check_net_text(net: PetriNet, text: str) -> None:
    places, trans = read_net_like_smpt(text)
    assert len(places) == len(net.places) and len(trans) == len(net.transitions)
    assert all(re.fullmatch(r"[pt][0-9]+", n) for n in [*places, *trans])
    init = dict(net.initial)
    assert places == {f"p{i}": init.get(i, 0) for i in range(len(net.places))}
    for j, t in enumerate(net.transitions):
        pre, post = trans[f"t{j}"]
        assert pre == {f"p{i}": w for i, w in t.pre}
        assert post == {f"p{i}": w for i, w in t.post}


def test_tina_net_reads_back_like_smpt(a2: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "export", str(a2), "--format", "net")
    assert code == 0
    _check_net_text(build_interleaving_net(load_model(a2).ns), out)
    assert '# p0 = "G {}"' in out


def test_tina_net_with_hostile_names() -> None:
    doc = {
        "initial_global": "g #1, {x}",
        "requests": [["r\nq", "pl p0 (5)"], ["tr t0 -> p0", "x.1"]],
        "responses": [["x.1", "#"], ["pl p0 (5)", "}{"]],
        "transitions": [["x.1", "g #1, {x}", "x#1", "g.1"], ["x#1", "g.1", "x.1", "g #1, {x}"]],
    }
    net = build_interleaving_net(load_source(json.dumps(doc), "ns-json").ns)
    _check_net_text(net, petri_to_tina(net, "weird name!"))


@needs_paper
@pytest.mark.parametrize("name", ["g1.ser", "b2.json", "e6.ser"])
def test_tina_net_on_benchmarks(name: str) -> None:
    net = build_interleaving_net(load_model(BENCH / name).ns)
    _check_net_text(net, petri_to_tina(net, name))


def test_pnml(a2: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_file = tmp_path / "a2.pnml"
    code, out, _ = run_cli(capsys, "export", str(a2), "--format", "pnml", "-o", str(out_file))
    assert code == 0 and out == ""
    ns = {"p": "http://www.pnml.org/version-2009/grammar/pnml"}
    root = ET.parse(out_file).getroot()
    net_el = root.find("p:net", ns)
    assert net_el is not None
    assert net_el.get("type") == "http://www.pnml.org/version-2009/grammar/ptnet"
    places = root.findall(".//p:place", ns)
    transitions = root.findall(".//p:transition", ns)
    arcs = root.findall(".//p:arc", ns)
    net = build_interleaving_net(load_model(a2).ns)
    assert len(places) == len(net.places) and len(transitions) == len(net.transitions)
    assert len(arcs) == sum(len(t.pre) + len(t.post) for t in net.transitions)
    marked = [p.get("id") for p in places if p.find("p:initialMarking", ns) is not None]
    assert marked == ["p0"]
    ids = [e.get("id") for e in [*places, *transitions, *arcs]]
    assert len(ids) == len(set(ids))


def test_pnml_escapes_hostile_names() -> None:
    from prover.petri.export import petri_to_pnml

    doc = {"initial_global": "<g & \"h\">\x01", "requests": [["r", "l"]], "responses": [],
           "transitions": [["l", "<g & \"h\">\x01", "l", "x"]]}
    net = build_interleaving_net(load_source(json.dumps(doc), "ns-json").ns)
    ET.fromstring(petri_to_pnml(net, "m"))


@pytest.mark.parametrize("what", ["ns", "petri", "serial"])
def test_dot(a2: Path, capsys: pytest.CaptureFixture[str], what: str) -> None:
    code, out, _ = run_cli(capsys, "export", str(a2), "--format", "dot", "--what", what)
    assert code == 0
    assert out.startswith("digraph a2 {") and out.rstrip().endswith("}")
    if what == "serial":
        assert 'label="main/1"' in out


def test_dot_escapes_quotes() -> None:
    from prover.petri.export import dot_string

    assert dot_string('a "b" \\ c\nd') == '"a \\"b\\" \\\\ c\\nd"'


def test_net_and_pnml_only_export_the_petri_net(
    a2: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run_cli(capsys, "export", str(a2), "--format", "net", "--what", "serial")
    assert code == 2 and "E-USAGE" in err


def test_mcc_needs_an_output_folder(a2: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "export", str(a2), "--format", "mcc")
    assert code == 2 and "-o DIR" in err and out == ""


def test_mcc_writes_net_and_property_per_disjunct(
    a2: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_dir = tmp_path / "mcc"
    code, _, err = run_cli(capsys, "export", str(a2), "--format", "mcc", "-o", str(out_dir))
    assert code == 0 and "wrote 5 files" in err
    assert sorted(p.name for p in out_dir.iterdir()) == [
        "disjunct-000", "disjunct-000.net", "disjunct-000.xml", "names.json"]
    # an MCC model folder: model.pnml, read back as the same net, and the property
    folder = out_dir / "disjunct-000"
    assert sorted(p.name for p in folder.iterdir()) == [
        "ReachabilityCardinality.xml", "model.pnml"]
    from prover.petri.read import read_net_file

    pnml, tina = read_net_file(folder / "model.pnml"), read_net_file(out_dir / "disjunct-000.net")
    assert (pnml.place_ids, pnml.pre, pnml.post) == (tina.place_ids, tina.pre, tina.post)


def test_slicing_by_place_name_reads_our_own_net_export(
        a2: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    net = tmp_path / "a2.net"
    assert run_cli(capsys, "export", str(a2), "--format", "net", "-o", str(net))[0] == 0
    code, out, _ = run_cli(capsys, "slice", str(net), "--criterion", "R main/1",
                           "--algorithm", "minimal")
    assert code == 0 and "R main/1" in out


def test_export_is_deterministic(a2: Path, capsys: pytest.CaptureFixture[str]) -> None:
    outs = {run_cli(capsys, "export", str(a2), "--format", f)[1] for f in ("net",) * 3}
    assert len(outs) == 1
