"""Bounded input and honest errors: every input-caused failure is a `SerError` (exit 2)
with the file, a position where there is one, and the limit hit; hypothesis fuzzes the
NS JSON reader with odd strings, numbers, nesting and sizes."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prover.cli import main
from prover.errors import (
    InputFileError,
    IntegerRangeError,
    NetworkSystemFormatError,
    SerError,
)
from prover.frontend.files import MAX_MODEL_BYTES, read_model_bytes
from prover.frontend.load import load_model, load_source

NS = {"initial_global": "g", "requests": [["r", "l"]], "responses": [["l", "ok"]],
      "transitions": []}


def test_dev_zero_link_is_refused_before_reading(tmp_path: Path) -> None:
    link = tmp_path / "zero.ser"
    link.symlink_to("/dev/zero")
    with pytest.raises(InputFileError, match="not a regular file .a character device"):
        load_model(link)


def test_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "m.json"
    os.mkfifo(fifo)
    with pytest.raises(InputFileError, match="a FIFO"):
        load_model(fifo)


def test_directory_is_refused(tmp_path: Path) -> None:
    d = tmp_path / "d.ser"
    d.mkdir()
    with pytest.raises(InputFileError, match="directory"):
        load_model(d)


def test_oversized_file_is_refused_naming_the_limit(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    big.write_bytes(b" " * 2000)
    with pytest.raises(InputFileError, match="limit is 1000 bytes"):
        read_model_bytes(big, max_bytes=1000)
    assert read_model_bytes(big, max_bytes=2000) == b" " * 2000


def test_documented_limit_is_four_mib(tmp_path: Path) -> None:
    assert MAX_MODEL_BYTES == 4 * 1024 * 1024
    big = tmp_path / "big.ser"
    with big.open("wb") as fh:
        fh.truncate(MAX_MODEL_BYTES + 1)  # sparse: nothing to read, refused by its size
    assert main([str(big)]) == 2


def test_lone_surrogate_escape_is_a_located_error() -> None:
    text = json.dumps(NS).replace('"r"', '"\\ud800x"')
    with pytest.raises(NetworkSystemFormatError, match=r"requests\[0\]\[0\].*surrogate"):
        load_source(text, "ns-json", "m.json")


def test_lone_surrogate_in_a_member_name() -> None:
    text = json.dumps(NS)[:-1] + ', "\\udc00": 1}'
    with pytest.raises(NetworkSystemFormatError, match="member name"):
        load_source(text, "ns-json", "m.json")


def test_repeated_key_is_an_error() -> None:
    text = json.dumps(NS)[:-1] + ', "requests": []}'
    with pytest.raises(NetworkSystemFormatError, match="repeats the member 'requests'"):
        load_source(text, "ns-json", "m.json")


def test_5000_digit_literal_in_ser_is_a_range_error() -> None:
    src = "request main { X := " + "7" * 5000 + " }"
    with pytest.raises(IntegerRangeError, match="5000 digits") as info:
        load_source(src, "ser", "m.ser")
    assert info.value.location is not None and info.value.location.column == 21


def test_leading_zeros_are_still_a_number() -> None:
    m = load_source("request main { " + "0" * 30 + "5 }", "ser", "m.ser")
    assert [r.response for r in m.ns.responses] == ["5"]


def test_5000_digit_number_in_ns_json() -> None:
    text = '{"initial_global": ' + "9" * 5000 + "}"
    with pytest.raises(NetworkSystemFormatError, match="4300 digits"):
        load_source(text, "ns-json", "m.json")


def test_deep_nesting_in_ns_json() -> None:
    with pytest.raises(NetworkSystemFormatError, match="nested too deeply"):
        load_source("[" * 100_000 + "]" * 100_000, "ns-json", "m.json")


def test_cli_input_errors_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "s.json"
    bad.write_text(json.dumps(NS).replace('"ok"', '"\\udfff"'))
    assert main([str(bad)]) == 2
    err = capsys.readouterr().err
    assert "surrogate" in err and "Traceback" not in err


# ---- fuzzing ---------------------------------------------------------------------------

ODD_TEXT = st.text(
    alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF),  # surrogates included
    max_size=12,
)
SCALARS = st.one_of(
    ODD_TEXT, st.integers(min_value=-(10**40), max_value=10**40), st.floats(),
    st.booleans(), st.none(),
)
JSONISH = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(ODD_TEXT, inner, max_size=4)),
    max_leaves=25,
)
NAMES = st.one_of(ODD_TEXT, st.sampled_from(["g", "l", "a", "ok", ""]))


@st.composite
def ns_like(draw: st.DrawFn) -> dict[str, Any]:
    """Mostly well-shaped NS documents with odd names, sometimes a member replaced."""
    doc: dict[str, Any] = {
        "initial_global": draw(NAMES),
        "requests": draw(st.lists(st.lists(NAMES, min_size=2, max_size=2), max_size=4)),
        "responses": draw(st.lists(st.lists(NAMES, min_size=2, max_size=2), max_size=4)),
        "transitions": draw(st.lists(st.lists(NAMES, min_size=4, max_size=4), max_size=6)),
    }
    if draw(st.booleans()):
        key = draw(st.sampled_from([*doc, "extra"]))
        doc[key] = draw(JSONISH)
    return doc


def _text(doc: Any, ascii_only: bool) -> str:
    return json.dumps(doc, ensure_ascii=ascii_only)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=st.one_of(ns_like(), JSONISH), ascii_only=st.booleans(),
       duplicate=st.booleans())
def test_reader_raises_only_ser_errors(doc: Any, ascii_only: bool, duplicate: bool) -> None:
    try:
        text = _text(doc, ascii_only)
    except ValueError:  # NaN and infinities have no JSON spelling
        return
    if duplicate and isinstance(doc, dict) and doc:
        text = text[:-1] + ", " + _text(next(iter(doc)), True) + ": 0}"
    try:
        model = load_source(text, "ns-json", "fuzz.json")
    except SerError as exc:
        assert exc.render()  # printable: no lone surrogate reaches the message
        exc.render().encode("utf-8")
        return
    # accepted: every name can be written as UTF-8 (into a certificate, a terminal)
    for t in model.ns.transitions:
        "".join((t.from_local, t.from_global, t.to_local, t.to_global)).encode("utf-8")
    for r in model.ns.requests:
        (r.request + r.local).encode("utf-8")
    model.ns.initial_global.encode("utf-8")


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=ns_like())
def test_prover_on_fuzzed_ns_never_exits_4(doc: dict[str, Any], tmp_path_factory:
                                          pytest.TempPathFactory) -> None:
    d = tmp_path_factory.mktemp("fuzz")
    model = d / "m.json"
    try:
        model.write_text(json.dumps(doc, ensure_ascii=True), encoding="utf-8")
    except ValueError:
        return
    assert main([str(model), "--timeout", "20", "--quiet"]) in (0, 1, 2, 3)
