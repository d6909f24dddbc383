"""Model loading: file handling, and NS JSON validated by its schema (ser-reference §3)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prover.errors import InputFileError, NetworkSystemFormatError, SerSyntaxError
from prover.frontend.load import LoadedModel, load_model, load_source
from prover.frontend.nsjson import SCHEMA_PATH
from prover.ns import RequestEntry, ResponseEntry, Transition

README_NS = {
    "initial_global": "G0",
    "requests": [["Req1", "L0"]],
    "responses": [["L0", "RespA"]],
    "transitions": [["L0", "G0", "L1", "G1"]],
}


def ns_json(doc: object) -> LoadedModel:
    return load_source(json.dumps(doc), "ns-json", "m.json")


def violation(doc: object) -> str:
    with pytest.raises(NetworkSystemFormatError) as info:
        ns_json(doc)
    return info.value.message


def test_schema_file_is_in_the_repository() -> None:
    assert SCHEMA_PATH.is_file()
    assert json.loads(SCHEMA_PATH.read_text())["type"] == "object"


def test_readme_example_maps_one_to_one() -> None:
    m = ns_json(README_NS)
    assert m.kind == "ns-json" and m.warnings == ()
    ns = m.ns
    assert ns.initial_global == "G0"
    assert ns.requests == (RequestEntry("Req1", "L0"),)
    assert ns.responses == (ResponseEntry("L0", "RespA"),)
    assert ns.transitions == (Transition("L0", "G0", "L1", "G1"),)


def test_names_are_verbatim() -> None:
    doc = {**README_NS, "initial_global": "g {x=1}, \"quoted\"\nnewline"}
    assert ns_json(doc).ns.initial_global == doc["initial_global"]


def test_violations_are_reported_with_json_paths() -> None:
    doc = {**README_NS, "transitions": [["a", "b", "c", "d"]] * 3 + [["a", "b", 7, "d"]]}
    assert "transitions[3][2]: expected a string, got an integer" in violation(doc)


def test_all_violations_are_reported() -> None:
    doc = {"requests": [["a", 1]], "transitions": [["a", "b", "c"]], "responses": {}}
    msg = violation(doc)
    assert "(top level): missing required member 'initial_global'" in msg
    assert "requests[0][1]: expected a string" in msg
    assert "transitions[0]: expected exactly 4 items, got 3" in msg
    assert "responses: expected an array, got an object" in msg
    assert msg.count("missing required") == 1


def test_top_level_must_be_an_object() -> None:
    assert "(top level): expected an object" in violation([1, 2])


def test_malformed_json_has_line_and_column() -> None:
    with pytest.raises(NetworkSystemFormatError) as info:
        load_source('{"a":\n  [1,}', "ns-json", "m.json")
    loc = info.value.location
    assert loc is not None and (loc.line, loc.column) == (2, 6)


def test_nan_is_not_json() -> None:
    with pytest.raises(NetworkSystemFormatError):
        load_source('{"initial_global": NaN}', "ns-json")


def test_unknown_keys_and_repeated_entries_are_warnings() -> None:
    doc = {**README_NS, "comment": "hi", "requests": [["Req1", "L0"], ["Req1", "L0"]]}
    m = ns_json(doc)
    assert any("unknown top-level member 'comment'" in w.message for w in m.warnings)
    assert any("requests[1] repeats requests[0]" in w.message for w in m.warnings)
    assert {w.code for w in m.warnings} == {"W-NS-IGNORED", "W-NS-REPEAT"}
    assert len(m.ns.requests) == 1


def test_duplicate_member_is_an_error() -> None:
    # the certificate checker refuses repeated keys: one set of limits (issue 10)
    text = json.dumps(README_NS)[:-1] + ', "initial_global": "G9"}'
    with pytest.raises(NetworkSystemFormatError, match="repeats the member 'initial_global'"):
        load_source(text, "ns-json")


# ---- files ----------------------------------------------------------------------------


def test_load_model_dispatches_on_extension(tmp_path: Path) -> None:
    (tmp_path / "m.ser").write_text("request r { 1 }")
    (tmp_path / "m.json").write_text(json.dumps(README_NS))
    (tmp_path / "m.SER").write_text("request r { 1 }")
    assert load_model(tmp_path / "m.ser").kind == "ser"
    assert load_model(str(tmp_path / "m.json")).kind == "ns-json"
    assert load_model(tmp_path / "m.SER").source == "request r { 1 }"
    assert load_model(tmp_path / "m.ser").path == str(tmp_path / "m.ser")


@pytest.mark.parametrize("name", ["m.txt", "m", "m.ser.bak"])
def test_unknown_extension(tmp_path: Path, name: str) -> None:
    (tmp_path / name).write_text("request r { 1 }")
    with pytest.raises(InputFileError, match="extension"):
        load_model(tmp_path / name)


def test_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match="no such file"):
        load_model(tmp_path / "missing.ser")
    (tmp_path / "d.ser").mkdir()
    with pytest.raises(InputFileError):
        load_model(tmp_path / "d.ser")
    (tmp_path / "bin.ser").write_bytes(b"request r { \xff }")
    with pytest.raises(InputFileError, match="UTF-8"):
        load_model(tmp_path / "bin.ser")


@pytest.mark.parametrize("text", ["", "   \n\t\n"])
def test_empty_files(tmp_path: Path, text: str) -> None:
    for name in ("e.ser", "e.json"):
        (tmp_path / name).write_text(text)
        with pytest.raises(InputFileError, match="empty"):
            load_model(tmp_path / name)


def test_comment_only_file_is_a_syntax_error(tmp_path: Path) -> None:
    (tmp_path / "c.ser").write_text("// nothing here\n")
    with pytest.raises(SerSyntaxError):
        load_model(tmp_path / "c.ser")


def test_byte_order_mark_is_skipped(tmp_path: Path) -> None:
    (tmp_path / "b.ser").write_bytes("\ufeffrequest r { 1 }".encode())
    assert load_model(tmp_path / "b.ser").ns.requests[0].request == "r"


def test_unknown_kind() -> None:
    with pytest.raises(InputFileError):
        load_source("x", "python")
