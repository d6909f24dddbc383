"""One small net written by hand in each dialect the PNML reader meets (PIPE, TINA's
PNML export, the Model Checking Contest, the project's own writer, Tina `.net`): each
reads as the same net, slices the same, and converts through `ser-prove export`; each
kind of real defect is rejected with the element's path and exit 2.

The net (names; the ids differ between dialects): start holds 2 tokens;
  go:    start -> a            join:  a + start -> b*2      step: b -> c
  spare: dead -> c             back:  c -> a
dead is never marked, so spare is in no slice that starts from M0.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from prover.cli import main
from prover.petri.dynamic_slice import PTNet
from prover.petri.read import NetFormatError, read_net_file, read_pnml

# PIPE 4 as the editor saves: ids are the names, graphics everywhere, an empty marking
# value (0), markings as "Default,N", a token class, capacity 0 (no bound), stochastic
# labels that all agree, arcs without an inscription (weight 1) or an empty one (1).
PIPE = """<?xml version="1.0" encoding="ISO-8859-1"?><pnml>
<net id="Net-One" type="P/T net">
<token id="Default" enabled="true" red="0" green="0" blue="0"/>
<place id="start"><graphics><position x="30.0" y="60.0"/></graphics>
<name><value>start</value><graphics><offset x="0.0" y="0.0"/></graphics></name>
<initialMarking><graphics><offset x="0.0" y="0.0"/></graphics><value>Default,2</value>
</initialMarking><capacity><value>0</value></capacity></place>
<place id="a"><name><value>a</value></name>
<initialMarking><graphics/><value></value></initialMarking></place>
<place id="b"><name><value>b</value></name><initialMarking><graphics/></initialMarking></place>
<place id="c"><name><value>c</value></name>
<initialMarking><value>Default,0</value></initialMarking></place>
<place id="dead"><name><value>dead</value></name></place>
{transitions}
<arc id="start to go" source="start" target="go"><graphics/>
<inscription><value>Default,1</value><graphics/></inscription><tagged><value>false</value>
</tagged><arcpath id="000" x="41" y="71" curvePoint="false"/><type value="normal"/></arc>
<arc id="go to a" source="go" target="a"><type value="normal"/></arc>
<arc id="a to join" source="a" target="join"><inscription><value></value></inscription></arc>
<arc id="start to join" source="start" target="join"/>
<arc id="join to b" source="join" target="b">
<inscription><value>Default,2</value></inscription></arc>
<arc id="b to step" source="b" target="step"/>
<arc id="step to c" source="step" target="c"/>
<arc id="dead to spare" source="dead" target="spare"/>
<arc id="spare to c" source="spare" target="c"/>
<arc id="c to back" source="c" target="back"/>
<arc id="back to a" source="back" target="a"/>
</net></pnml>
"""
PIPE_TRANSITIONS = "\n".join(
    f'<transition id="{t}"><graphics><position x="0" y="0"/></graphics><name><value>{t}'
    f"</value></name><orientation><value>0</value></orientation><rate><value>1.0</value>"
    f"</rate><timed><value>false</value></timed><infiniteServer><value>false</value>"
    f"</infiniteServer><priority><value>1</value></priority></transition>"
    for t in ("go", "join", "step", "spare", "back")
)

# TINA's PNML: one page, ids p0.. and t0.., names as labels, every arc inscribed.
TINA_PNML = """<?xml version="1.0" encoding="UTF-8"?>
<pnml xmlns="http://www.pnml.org/version-2009/grammar/pnml">
 <net id="demo" type="http://www.pnml.org/version-2009/grammar/ptnet">
  <name><text>demo</text></name>
  <page id="page">
   <place id="p0"><name><text>start</text><graphics><offset x="0" y="-10"/></graphics>
    </name><graphics><position x="10" y="10"/></graphics>
    <initialMarking><text>2</text></initialMarking></place>
   <place id="p1"><name><text>a</text></name></place>
   <place id="p2"><name><text>b</text></name></place>
   <place id="p3"><name><text>c</text></name></place>
   <place id="p4"><name><text>dead</text></name></place>
   <transition id="t0"><name><text>go</text></name></transition>
   <transition id="t1"><name><text>join</text></name></transition>
   <transition id="t2"><name><text>step</text></name></transition>
   <transition id="t3"><name><text>spare</text></name></transition>
   <transition id="t4"><name><text>back</text></name></transition>
   <arc id="e0" source="p0" target="t0"><inscription><text>1</text></inscription></arc>
   <arc id="e1" source="t0" target="p1"><inscription><text>1</text></inscription></arc>
   <arc id="e2" source="p1" target="t1"><inscription><text>1</text></inscription></arc>
   <arc id="e3" source="p0" target="t1"><inscription><text>1</text></inscription></arc>
   <arc id="e4" source="t1" target="p2"><inscription><text>2</text></inscription></arc>
   <arc id="e5" source="p2" target="t2"><inscription><text>1</text></inscription></arc>
   <arc id="e6" source="t2" target="p3"><inscription><text>1</text></inscription></arc>
   <arc id="e7" source="p4" target="t3"><inscription><text>1</text></inscription></arc>
   <arc id="e8" source="t3" target="p3"><inscription><text>1</text></inscription></arc>
   <arc id="e9" source="p3" target="t4"><inscription><text>1</text></inscription></arc>
   <arc id="e10" source="t4" target="p1"><inscription><text>1</text></inscription></arc>
  </page>
 </net>
</pnml>
"""

# The Model Checking Contest's P/T form: several pages, <toolspecific> to ignore, names
# apart from ids, whitespace inside <text>, an arc that crosses pages.
MCC = """<?xml version="1.0" encoding="UTF-8"?>
<pnml xmlns="http://www.pnml.org/version-2009/grammar/pnml">
<net id="Demo-PT-002" type="http://www.pnml.org/version-2009/grammar/ptnet">
<name><text>Demo-PT-002</text></name>
<toolspecific tool="generator" version="1.0"><anything><place id="p0"/></anything>
</toolspecific>
<page id="page-places">
<place id="pl_start"><name><text>start</text></name>
<initialMarking><text>
 2 </text></initialMarking>
<toolspecific tool="x" version="2"><size>3</size></toolspecific></place>
<place id="pl_a"><name><text>a</text></name></place>
<place id="pl_b"><name><text>b</text></name></place>
<place id="pl_c"><name><text>c</text></name></place>
<place id="pl_dead"><name><text>dead</text></name>
<initialMarking><text>0</text></initialMarking></place>
</page>
<page id="page-transitions">
<transition id="tr_go"><name><text>go</text></name></transition>
<transition id="tr_join"><name><text>join</text></name></transition>
<transition id="tr_step"><name><text>step</text></name></transition>
<transition id="tr_spare"><name><text>spare</text></name></transition>
<transition id="tr_back"><name><text>back</text></name></transition>
<arc id="a1" source="pl_start" target="tr_go"/>
<arc id="a2" source="tr_go" target="pl_a"/>
<arc id="a3" source="pl_a" target="tr_join"/>
<arc id="a4" source="pl_start" target="tr_join"/>
<arc id="a5" source="tr_join" target="pl_b"><inscription><text>2</text></inscription></arc>
<arc id="a6" source="pl_b" target="tr_step"/>
<arc id="a7" source="tr_step" target="pl_c"/>
<arc id="a8" source="pl_dead" target="tr_spare"/>
<arc id="a9" source="tr_spare" target="pl_c"/>
</page>
<page id="page-more"><page id="page-nested">
<arc id="a10" source="pl_c" target="tr_back"/>
<arc id="a11" source="tr_back" target="pl_a"/>
</page></page>
</net>
</pnml>
"""

# Tina's own text format, with labels.
TINA_NET = """net demo
pl p0 : start (2)
pl p1 : a
pl p2 : b
pl p3 : c
pl p4 : dead
tr t0 : go p0 -> p1
tr t1 : join p1 p0 -> p2*2
tr t2 : step p2 -> p3
tr t3 : spare p4 -> p3
tr t4 : back p3 -> p1
"""

DIALECTS = {
    "pipe.xml": PIPE.replace("{transitions}", PIPE_TRANSITIONS),
    "tina.pnml": TINA_PNML,
    "mcc.pnml": MCC,
    "tina.net": TINA_NET,
}


def _by_names(n: PTNet) -> tuple[object, ...]:
    """The net with every node named by its name: what the dialects must agree on."""
    def side(arcs: tuple[tuple[int, int], ...]) -> tuple[tuple[str, int], ...]:
        return tuple(sorted((n.place_names[p], w) for p, w in arcs))

    return (
        sorted(zip(n.place_names, n.initial, strict=True)),
        sorted((n.transition_names[j], side(n.pre[j]), side(n.post[j]))
               for j in range(len(n.transition_ids))),
    )


EXPECTED = (
    [("a", 0), ("b", 0), ("c", 0), ("dead", 0), ("start", 2)],
    [("back", (("c", 1),), (("a", 1),)),
     ("go", (("start", 1),), (("a", 1),)),
     ("join", (("a", 1), ("start", 1)), (("b", 2),)),
     ("spare", (("dead", 1),), (("c", 1),)),
     ("step", (("b", 1),), (("c", 1),))],
)


def _write(tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    path.write_text(DIALECTS[name], encoding="utf-8")
    return path


def _names(n: PTNet, ids: list[str]) -> tuple[str, ...]:
    table = dict(zip(n.place_ids, n.place_names, strict=True))
    table |= dict(zip(n.transition_ids, n.transition_names, strict=True))
    return tuple(sorted(table[i] for i in ids))


@pytest.mark.parametrize("name", sorted(DIALECTS))
def test_each_dialect_reads_as_the_same_net(name: str, tmp_path: Path) -> None:
    assert _by_names(read_net_file(_write(tmp_path, name))) == EXPECTED


@pytest.mark.parametrize("name", sorted(DIALECTS))
@pytest.mark.parametrize("fmt", ["net", "pnml"])
def test_each_dialect_converts_through_export(
    name: str, fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`ser-prove export NET --format net|pnml` writes a file that reads back as the same
    net with the same ids, and converting that again changes nothing."""
    src = _write(tmp_path, name)
    out = tmp_path / f"out.{fmt}"
    assert main(["export", str(src), "--format", fmt, "-o", str(out)]) == 0
    first, again = read_net_file(src), read_net_file(out)
    assert again.place_ids == first.place_ids
    assert again.transition_ids == first.transition_ids
    assert _by_names(again) == EXPECTED
    out2 = tmp_path / f"out2.{fmt}"
    assert main(["export", str(out), "--format", fmt, "-o", str(out2)]) == 0
    assert out2.read_text() == out.read_text()


def _slice(capsys: pytest.CaptureFixture[str], path: Path, algorithm: str) -> dict[str, Any]:
    assert main(["slice", str(path), "--criterion", "c", "--algorithm", algorithm,
                 "--json"]) == 0
    return dict(json.loads(capsys.readouterr().out))


@pytest.mark.parametrize("algorithm", ["maximal", "minimal"])
def test_the_same_slices_whatever_the_dialect(
    algorithm: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Criterion c, by name. Maximal: everything but spare (it needs the unmarked dead;
    back is in, as its a feeds join again). Minimal: go, join, step, the shortest
    sequence marking c."""
    seen = {}
    for name in sorted(DIALECTS):
        path = _write(tmp_path, name)
        net, info = read_net_file(path), _slice(capsys, path, algorithm)
        seen[name] = (_names(net, info["places"]), _names(net, info["transitions"]),
                      _names(net, info["sequence"]) if algorithm == "minimal" else ())
    maximal = algorithm == "maximal"
    assert set(seen.values()) == {(("a", "b", "c", "start"),
                                   ("back", "go", "join", "step") if maximal
                                   else ("go", "join", "step"),
                                   () if maximal else ("go", "join", "step"))}


def _mutate(name: str, old: str, new: str) -> str:
    text = DIALECTS[name]
    assert old in text
    return text.replace(old, new, 1)


DEFECTS = [
    ("negative marking", "mcc.pnml", "\n 2 </text>", "-2</text>",
     "initial marking of 'pl_start' '-2' is not a non-negative integer",
     "/pnml[1]/net[1]/page[1]/place[1]/initialMarking[1]"),
    ("non-numeric marking", "pipe.xml", "Default,2", "Default,two",
     "'Default,two' is not a non-negative integer", "/pnml[1]/net[1]/place[1]/initialMarking[1]"),
    ("arc to a missing node", "tina.pnml", 'target="t4"', 'target="t9"',
     "arc end 't9' is not a place or transition", "/page[1]/arc[10]"),
    ("coloured net type", "tina.pnml", "grammar/ptnet", "grammar/symmetricnet",
     "is not a place/transition net", "/pnml[1]/net[1]"),
    ("coloured labels in a P/T net", "mcc.pnml", "<initialMarking><text>0</text>",
     "<hlinitialMarking><text>0</text></hlinitialMarking><initialMarking><text>0</text>",
     "<hlinitialMarking> of a coloured net: not a P/T net", "/place[5]/hlinitialMarking[1]"),
    ("a declaration", "mcc.pnml", '<page id="page-places">',
     '<declaration><structure/></declaration><page id="page-places">',
     "<declaration> of a coloured net", "/pnml[1]/net[1]/declaration[1]"),
    ("a capacity", "pipe.xml", "<capacity><value>0</value>", "<capacity><value>3</value>",
     "a place capacity bounds the marking", "/place[1]/capacity[1]"),
    ("mixed priorities", "pipe.xml", "<priority><value>1</value></priority></transition>\n"
     '<transition id="join">', "<priority><value>2</value></priority></transition>\n"
     '<transition id="join">', "transitions differ in timing or priority", "/transition[2]"),
    ("zero weight", "pipe.xml", "<value>Default,2</value></inscription>",
     "<value>Default,0</value></inscription>", "is out of range (1..", "/arc[5]/inscription[1]"),
]


@pytest.mark.parametrize(("what", "name", "old", "new", "message", "where"), DEFECTS,
                         ids=[d[0] for d in DEFECTS])
def test_real_defects_are_rejected_with_their_path(
    what: str, name: str, old: str, new: str, message: str, where: str, tmp_path: Path,
    capsys: pytest.CaptureFixture[str]
) -> None:
    text = _mutate(name, old, new)
    if name == "pipe.xml":
        text = text.replace("{transitions}", PIPE_TRANSITIONS)
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(NetFormatError) as info:
        read_pnml(text.encode(), str(path))
    assert message in info.value.render() and where in info.value.render()
    for argv in (["slice", str(path), "--criterion", "c", "--algorithm", "maximal"],
                 ["export", str(path), "--format", "net"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert "E-NET-FORMAT" in err and message in err and where in err
        assert str(path) in err and "Traceback" not in err
