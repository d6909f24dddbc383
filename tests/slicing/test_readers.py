"""PNML and Tina `.net` readers: dialects, round trips, clear errors, no other exception
on arbitrary input."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prover.frontend.load import load_model
from prover.petri.build import build_interleaving_net
from prover.petri.dynamic_slice import PTNet, Slice, from_interleaving
from prover.petri.read import (
    NetFormatError,
    ptnet_to_pnml,
    ptnet_to_tina,
    read_net_file,
    read_pnml,
    read_tina,
    subnet,
)
from tests.benchmarks import PAPER, absent

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"

ISO = b"""<?xml version="1.0" encoding="UTF-8"?>
<pnml xmlns="http://www.pnml.org/version-2009/grammar/pnml">
  <net id="n1" type="http://www.pnml.org/version-2009/grammar/ptnet">
    <name><text>demo</text></name>
    <page id="pg1">
      <place id="p1"><name><text>start</text></name>
        <initialMarking><text>2</text></initialMarking></place>
      <transition id="t1"><name><text>go</text></name></transition>
      <arc id="a1" source="p1" target="t1"><inscription><text>2</text></inscription></arc>
      <page id="pg2">
        <place id="p2"/>
        <referencePlace id="r1" ref="p1"/>
        <arc id="a2" source="t1" target="p2"/>
        <arc id="a3" source="t1" target="r1"/>
      </page>
    </page>
  </net>
</pnml>
"""

PIPE = b"""<?xml version="1.0" encoding="ISO-8859-1"?>
<pnml>
<net id="Net-One" type="P/T net">
<place id="P0"><name><value>P0</value></name>
  <initialMarking><value>Default,3</value></initialMarking></place>
<place id="P1"><name><value>P1</value></name>
  <initialMarking><value>Default,0</value></initialMarking></place>
<transition id="T0"><name><value>T0</value></name></transition>
<arc id="P0 to T0" source="P0" target="T0">
  <inscription><value>Default,1</value></inscription><type value="normal"/></arc>
<arc id="T0 to P1" source="T0" target="P1">
  <inscription><value>Default,2</value></inscription><type value="normal"/></arc>
</net>
</pnml>
"""


def test_iso_pnml_with_nested_pages_and_reference_places() -> None:
    """The arc into the reference place r1 is an arc into p1 (a self-loop of t1)."""
    n = read_pnml(ISO, "iso.pnml")
    assert n.name == "demo"
    assert n.place_ids == ("p1", "p2") and n.place_names == ("start", "p2")
    assert n.transition_ids == ("t1",) and n.transition_names == ("go",)
    assert n.pre == (((0, 2),),)
    assert n.post == (((0, 1), (1, 1)),)
    assert n.initial == (2, 0)


def test_pipe_dialect_default_markings() -> None:
    n = read_pnml(PIPE, "pipe.xml")
    assert n.place_ids == ("P0", "P1")
    assert n.initial == (3, 0)
    assert n.pre == (((0, 1),),) and n.post == (((1, 2),),)


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        (b'<?xml version="1.0"?><!DOCTYPE pnml [<!ENTITY a "aaaa">]><pnml/>', "DOCTYPE"),
        (b'<!DOCTYPE pnml SYSTEM "file:///etc/passwd"><pnml/>', "DOCTYPE"),
        (b"<pnml><net id='n'><place id='p'/>", "not well-formed"),
        (b"<petri/>", "expected <pnml>"),
        (b"<pnml/>", "exactly one <net>"),
        (b"<pnml><net id='n' type='http://www.pnml.org/version-2009/grammar/symmetricnet'/>"
         b"</pnml>", "not a place/transition net"),
        (b"<pnml><net id='n'><place id='p'/><place id='p'/></net></pnml>", "duplicate id"),
        (b"<pnml><net id='n'><place/></net></pnml>", "without an id"),
        (b"<pnml><net id='n'><place id='p'><initialMarking><text>-1</text></initialMarking>"
         b"</place></net></pnml>", "not a non-negative integer"),
        (b"<pnml><net id='n'><place id='p'><initialMarking><value>Default,1,Red,2</value>"
         b"</initialMarking></place></net></pnml>", "several colours"),
        (b"<pnml><net id='n'><place id='p'/><place id='q'/><arc id='a' source='p' "
         b"target='q'/></net></pnml>", "joins two places"),
        (b"<pnml><net id='n'><place id='p'/><transition id='t'/><arc id='a' source='p' "
         b"target='t'><inscription><text>0</text></inscription></arc></net></pnml>",
         "out of range"),
        (b"<pnml><net id='n'><place id='p'/><transition id='t'/><arc id='a' source='p' "
         b"target='x'/></net></pnml>", "not a place or transition"),
        (b"<pnml><net id='n'><place id='p'/><transition id='t'/><arc id='a' source='p' "
         b"target='t'><type value='inhibitor'/></arc></net></pnml>", "inhibitor arc"),
    ],
)
def test_pnml_errors_name_file_line_and_element(doc: bytes, message: str) -> None:
    with pytest.raises(NetFormatError) as info:
        read_pnml(doc, "bad.pnml")
    text = info.value.render()
    assert message in text
    assert "bad.pnml" in text


def test_pnml_error_gives_the_element_path_and_line() -> None:
    doc = ISO.replace(b'<arc id="a2" source="t1" target="p2"/>',
                      b'<arc id="a2" source="t1" target="nowhere"/>')
    with pytest.raises(NetFormatError) as info:
        read_pnml(doc, "x.pnml")
    text = info.value.render()
    assert text.startswith("x.pnml:13:9:")
    assert "/pnml[1]/net[1]/page[1]/page[1]/arc[1]" in text


TINA = """# a comment line
net {my net}
pl p0 (1K)   # marking 1000
pl {odd place} : label (2)
pl p2 t3 -> t2
tr t1 : go p0*3 {odd place}?1 -> p2
tr t2 [0,w[ -> p0
lb t1 other
"""


def test_tina_features() -> None:
    """K suffix, braced names, labels, weights, a test arc (pre and post of weight 1),
    a `pl` line with arcs (t3 produces into p2, t2 consumes from it), the trivial time
    interval, comments."""
    n = read_tina(TINA, "x.net")
    assert n.name == "my net"
    assert n.place_ids == ("p0", "odd place", "p2")
    assert n.place_names == ("p0", "label", "p2")
    assert n.initial == (1000, 2, 0)
    assert n.transition_ids == ("t3", "t2", "t1")
    t1, t2, t3 = (n.transition_ids.index(x) for x in ("t1", "t2", "t3"))
    assert n.transition_names[t1] == "go"
    assert n.pre[t1] == ((0, 3), (1, 1)) and n.post[t1] == ((1, 1), (2, 1))
    assert n.pre[t2] == ((2, 1),) and n.post[t2] == ((0, 1),)
    assert n.post[t3] == ((2, 1),) and n.pre[t3] == ()


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("pl p (1)\ntr t p?-1 -> p\n", 2, "inhibitor"),
        ("tr t p!1 -> q\n", 1, "reset"),
        ("tr t [1,2] p -> q\n", 1, "time interval"),
        ("pl p (x)\n", 1, "expected a marking"),
        ("pl p (1)\npl p (2)\n", 2, "declared twice"),
        ("tr t p q\n", 1, "expected '->'"),
        ("tr t p -> q -> r\n", 1, "second '->'"),
        ("foo bar\n", 1, "unknown declaration"),
        ("pr t1 > t2\n", 1, "not supported"),
        ("tr t p*0 -> q\n", 1, "out of range"),
        ("net\n", 1, "expected a net name"),
        ("pl p (1) )\n", 1, "expected a transition name"),
    ],
)
def test_tina_errors_name_file_and_line(text: str, line: int, message: str) -> None:
    with pytest.raises(NetFormatError) as info:
        read_tina(text, "bad.net")
    rendered = info.value.render()
    assert rendered.startswith(f"bad.net:{line}:")
    assert message in rendered


def _structure(n: PTNet) -> tuple[object, ...]:
    return (n.place_ids, n.transition_ids, n.pre, n.post, n.initial)


def _model_net(name: str) -> PTNet:
    return from_interleaving(build_interleaving_net(load_model(EXAMPLES / name).ns))


@pytest.mark.parametrize("model", ["intro-lock.ser", "e2-i3.ser"])
def test_exporter_files_read_back_as_the_same_net(model: str, tmp_path: Path) -> None:
    """`ser-prove export --format pnml|net` of an example, read back: same places,
    transitions, arcs and M0 as the interleaving net (ids p<i>, t<i>)."""
    from prover.cli import main

    expected = _model_net(model)
    for fmt in ("pnml", "net"):
        out = tmp_path / f"m.{fmt}"
        assert main(["export", str(EXAMPLES / model), "--format", fmt, "-o", str(out)]) == 0
        got = read_net_file(out)
        assert _structure(got) == _structure(expected)
    assert read_net_file(tmp_path / "m.pnml").place_names == expected.place_names


def test_round_trip_of_our_writers() -> None:
    n = read_tina(TINA, "x.net")
    for text, reader in (
        (ptnet_to_pnml(n).encode(), lambda b: read_pnml(b, "r.pnml")),
        (ptnet_to_tina(n).encode(), lambda b: read_tina(b.decode(), "r.net")),
    ):
        back = reader(text)
        assert _structure(back) == _structure(n)
        assert back.place_names == n.place_names
        assert back.transition_names == n.transition_names
    sub = subnet(n, Slice((0, 2), (n.transition_ids.index("t2"),)))
    back = read_pnml(ptnet_to_pnml(sub).encode(), "s.pnml")
    assert _structure(back) == (("p0", "p2"), ("t2",), (((1, 1),),), (((0, 1),),), (1000, 0))


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400))
def test_pnml_reader_raises_only_net_format_errors(data: bytes) -> None:
    try:
        read_pnml(data, "fuzz.pnml")
    except NetFormatError:
        pass


_PNML_PIECES = [
    b"<pnml>", b"</pnml>", b"<net id='n'>", b"</net>", b"<page id='g'>", b"</page>",
    b"<place id='p'>", b"<place id='q'/>", b"</place>", b"<transition id='t'/>",
    b"<arc id='a' source='p' target='t'/>", b"<arc id='b' source='t' target='q'>",
    b"</arc>", b"<inscription><text>2</text></inscription>",
    b"<initialMarking><value>Default,1</value></initialMarking>", b"<text>x</text>",
    b"<referencePlace id='r' ref='p'/>", b"<referencePlace id='s' ref='s'/>",
    b"<name><text>n</text></name>", b"&amp;", b"<!DOCTYPE x>", b"<type value='reset'/>",
]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_PNML_PIECES), max_size=14))
def test_pnml_reader_on_almost_pnml(pieces: list[bytes]) -> None:
    try:
        read_pnml(b"".join(pieces), "fuzz.pnml")
    except NetFormatError:
        pass


_TINA_ALPHABET = st.sampled_from(
    ["pl ", "tr ", "net ", "lb ", "p", "t", "q", " ", "->", "*", "?", "?-", "!", "(", ")",
     "1", "2K", "[", "]", ",", "w", ":", "{", "}", "\\", "#", "\n", "-", "0"]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_TINA_ALPHABET, max_size=30))
def test_tina_reader_raises_only_net_format_errors(parts: list[str]) -> None:
    try:
        read_tina("".join(parts), "fuzz.net")
    except NetFormatError:
        pass


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_tina_reader_on_arbitrary_text(text: str) -> None:
    try:
        read_tina(text, "fuzz.net")
    except NetFormatError:
        pass


def test_deep_nesting_is_an_error_not_a_crash() -> None:
    doc = b"<pnml><net id='n'>" + b"<page id='x'>" * 5000
    with pytest.raises(NetFormatError) as info:
        read_pnml(doc, "deep.pnml")
    assert "nested deeper" in info.value.render()


def test_slice_of_an_ns_json_model(capsys: pytest.CaptureFixture[str]) -> None:
    """NS JSON models are read like .ser ones (the interleaving net, ids p<i>/t<i>)."""
    import json

    from prover.cli import main

    bench = PAPER / "b1.json"
    if not bench.exists():
        pytest.skip(absent("paper"))
    net = from_interleaving(build_interleaving_net(load_model(bench).ns))
    resp = next(n for n in net.place_names if n.startswith("R "))
    assert main(["slice", str(bench), "--criterion", resp, "--algorithm", "maximal",
                 "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["status"] == "sliced"
    assert set(info["places"]) <= set(net.place_ids)


# Raw net files are read like model files: regular files only, and bounded.


def test_a_fifo_named_like_a_net_is_refused_without_hanging(tmp_path: Path) -> None:
    from prover.errors import InputFileError
    from prover.petri.read import read_net_file

    fifo = tmp_path / "model.pnml"
    os.mkfifo(fifo)
    with pytest.raises(InputFileError, match="not a regular file \\(a FIFO\\); nets"):
        read_net_file(fifo)


def test_a_directory_named_like_a_net_is_refused(tmp_path: Path) -> None:
    from prover.errors import InputFileError
    from prover.petri.read import read_net_file

    folder = tmp_path / "model.net"
    folder.mkdir()
    with pytest.raises(InputFileError, match="is a directory, not a net file"):
        read_net_file(folder)


def test_a_net_over_the_size_limit_is_refused_before_it_is_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from prover.errors import InputFileError
    from prover.petri import read

    big = tmp_path / "big.net"
    big.write_text("net big\n" + "pl p (1)\n" * 100)
    monkeypatch.setattr(read, "MAX_NET_BYTES", 64)
    with pytest.raises(InputFileError, match="the net is .* the limit is 64 bytes"):
        read.read_net_file(big)
