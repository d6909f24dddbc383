"""`--html FILE` of `ser-prove MODEL...` and `ser-prove bench` (prover/commands/html_report.py):
the page of a fixed batch, an end-to-end run, and the destinations refused before any work."""

from __future__ import annotations

import html
import json
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from prover.cli import main
from prover.commands import jsonl
from prover.commands.html_report import reason_parts, render
from prover.run.result import ProveResult

VOID = {"meta", "br", "hr", "img", "input", "link"}


class Page(HTMLParser):
    """A parse of a page that fails on a tag closed out of order or left open, and keeps
    what the tests look at: ids, links, and the cells of each table row."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.ids: list[str] = []
        self.hrefs: list[str] = []
        self.rows: list[list[str]] = []  # every <tr>: its cells' text
        self.row_classes: list[list[str]] = []  # every <tr>: the classes of spans in it
        self.tags: set[str] = set()
        self._cell: list[str] | None = None
        self.feed(text)
        self.close()
        assert self.stack == [], f"left open: {self.stack}"

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        if tag not in VOID:
            self.stack.append(tag)
        at = dict(attrs)
        if at.get("id"):
            self.ids.append(str(at["id"]))
        if tag == "a" and at.get("href"):
            self.hrefs.append(str(at["href"]))
        if tag == "tr":
            self.rows.append([])
            self.row_classes.append([])
        if tag in ("td", "th"):
            self._cell = []
        if tag == "span" and self.row_classes and "tr" in self.stack:
            self.row_classes[-1] += str(at.get("class") or "").split()

    def handle_endtag(self, tag: str) -> None:
        assert self.stack and self.stack[-1] == tag, f"</{tag}> closes {self.stack[-1:]}"
        self.stack.pop()
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


EVIL = "<script>alert(1)</script>"

REDUCTION = {"requests": [{"request": "main", "steps": [{"lines": [2], "label": "R"},
                                                        {"lines": [3], "label": "N"}],
                           "answers_at_once": False}],
             "attempts": [], "sections": [],
             "invariant": [{"text": "L <= 1", "globals": ["L"], "local_states": []}]}


def _step(index: int, instance: int, to: str, response: str | None) -> dict[str, Any]:
    return {"index": index, "instance": instance, "request": "main", "arrives": index <= 2,
            "action": "step", "from": f"({{}}, X := 1; yield; {EVIL})", "to": to,
            "lines": [3], "global_before": "{}", "global_after": "{X=1}",
            "response": response, "globals_before": {}, "globals_after": {"X": 1},
            "value": None}


COUNTEREXAMPLE = {
    "steps": [_step(1, 1, "({}, y)", None), _step(2, 2, "({}, y)", None),
              _step(3, 1, "({}, 1)", "1"), _step(4, 2, "({}, 0)", EVIL)],
    "completed": [{"request": "main", "response": EVIL, "value": None, "count": 1},
                  {"request": "main", "response": "1", "value": 1, "count": 1}],
    "requests": 2, "minimal": True, "lower_bound": 2,
    "reasons": [f"no serial execution of at most 2 requests answers main with {EVIL}: run "
                "one at a time from the initial state, main only answers 1"],
    "serial_answers": {"main": ["1"]}, "serial_within": 2, "serial_among": [],
    "longest_serial_order": [{"request": "main", "response": "1"}],
    "stuck_at": "{}", "left_over": [{"request": "main", "response": EVIL, "count": 1}],
}

UNDECIDED = ("no counterexample and no proof within the budget: explicit: no counterexample "
             "with ≤ 6 requests; reduction: out of time stepping the local states")


def _results() -> list[dict[str, Any]]:
    ok = ProveResult("ok.ser", "serializable", "", "out/ok.ser.cert.json", "reduction", None,
                     "valid", "11 obligations discharged in 0.01 s",
                     {"total_s": 0.5, "check_s": 0.1})
    bad = ProveResult(f"{EVIL}.ser", "not_serializable", "", f"out/{EVIL}.ser.cert.json",
                      "explicit", None, "valid", "7 obligations discharged in 0.01 s",
                      {"total_s": 0.25, "check_s": 0.05})
    slow = ProveResult("slow.ser", "undecided", UNDECIDED, None, None, None, None, "",
                       {"total_s": 60.0})
    return [jsonl.result_record(ok, reduction=REDUCTION),
            jsonl.result_record(bad, counterexample=COUNTEREXAMPLE),
            jsonl.result_record(slow),
            jsonl.error_record("gone.ser", "E-INPUT", "error[E-INPUT]: gone.ser: no such file")]


def test_the_page_of_a_fixed_batch() -> None:
    results = _results()
    meta = {"title": "ser-prove: 4 models", "command": f"ser-prove '{EVIL}.ser'",
            "version": "ser-prove 0.1.0", "total_s": 61.0, "exit_code": 2, "base": "."}
    text = render(results, meta)
    assert text == render(results, meta)  # the same results, the same page
    assert "<script" not in text.lower() and "&lt;script&gt;" in text
    page = Page(text)
    assert "script" not in page.tags
    overview = [r for r in page.rows if len(r) == 8 and r[0].isdigit()]
    assert [r[1] for r in overview] == ["ok.ser", f"{EVIL}.ser", "slow.ser", "gone.ser"]
    assert [r[2] for r in overview] == ["serializable", "not serializable", "undecided",
                                        "input error"]
    assert overview[0][3] == "reduction / movers and an invariant"
    assert overview[1][3] == "explicit / counterexample, 2 requests"
    assert (overview[0][4], overview[0][5]) == ("0.50", "0.10")
    assert (overview[2][4], overview[2][5]) == ("60.00", "-")
    assert overview[0][6] == "out/ok.ser.cert.json" and overview[2][6] == "-"
    assert "out/ok.ser.cert.json" in page.hrefs
    assert "out/%3Cscript%3Ealert%281%29%3C/script%3E.ser.cert.json" in page.hrefs
    # every model has its section, and the overview links to it
    assert [h for h in page.hrefs if h.startswith("#m")] == ["#m1", "#m2", "#m3", "#m4"]
    assert {"m1", "m2", "m3", "m4", "top"} <= set(page.ids)
    # the counterexample's trail: one row per step, with its source lines
    trail = [r for r in page.rows if len(r) == 7 and r[0].isdigit()]
    assert [r[0] for r in trail] == ["1", "2", "3", "4"]
    assert trail[0][1] == "main#1 (new)" and trail[2][1] == "main#1"
    assert all(r[3] == "line 3" for r in trail) and trail[3][6] == EVIL
    assert f"Completed (2 requests, the fewest possible): main/{EVIL}, main/1" in _plain(text)
    assert "Serial executions of at most 2 requests from the initial state can answer: " \
        "main: 1" in _plain(text)
    # the proof, the undecided reasons with the advice, the input error, the summary
    assert "main  R line 2, N line 3" in _plain(text) and "L &lt;= 1" in text
    assert "<li>explicit: no counterexample with ≤ 6 requests</li>" in text
    assert "<li>reduction: out of time stepping the local states</li>" in text
    assert "try: a larger --timeout" in text
    assert "error[E-INPUT]: gone.ser: no such file" in text
    for count in ("1 serializable", "1 not serializable", "1 undecided", "1 error"):
        assert count in text
    assert "ser-prove 0.1.0" in text and "61.00 s" in text
    checked = [r for r in page.rows if r[:1] == ["checker"]]
    assert checked == [["checker", "valid: 11 obligations discharged in 0.01 s"],
                       ["checker", "valid: 7 obligations discharged in 0.01 s"]]


def _plain(text: str) -> str:
    return html.unescape(text)


def test_links_are_relative_to_the_page_and_bench_figures_are_shown() -> None:
    record = _results()[0]
    record["bench"] = {"expected": "serializable", "agrees": True, "prove_s": 1.5,
                       "check_s": 0.25, "check_status": "valid"}
    page = Page(render([record], {"base": "site"}))
    assert "../out/ok.ser.cert.json" in page.hrefs
    row = next(r for r in page.rows if r[:1] == ["1"])
    assert row[3:5] == ["serializable", "yes"] and row[6:8] == ["1.50", "0.25"]
    assert ["ser-check-cert process", "valid in 0.25 s"] in page.rows
    gone = Page(render([record], {"certificates_kept": False}))
    assert not [h for h in gone.hrefs if h.endswith(".cert.json")]


def test_an_undecided_reason_is_split_at_its_parts_only() -> None:
    assert reason_parts(UNDECIDED) == (
        "no counterexample and no proof within the budget",
        ["explicit: no counterexample with ≤ 6 requests",
         "reduction: out of time stepping the local states"])
    quoted = "x: explicit: stuck at X := 1; y := X; network system: too big"
    assert reason_parts(quoted) == ("x", ["explicit: stuck at X := 1; y := X",
                                          "network system: too big"])
    assert reason_parts("time limit of 5 s reached") == ("time limit of 5 s reached", [])


LOCKED = ("global L;\nrequest main {\n  while (L == 1) { yield };\n  L := 1; X := 1; yield;\n"
          "  y := X; X := 0; L := 0; y\n}\n")
RACY = "request main {\n  X := 1; yield; y := X; X := 0; y\n}\n"


def _two_models(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "locked.ser").write_text(LOCKED)
    (tmp_path / "racy.ser").write_text(RACY)
    return tmp_path / "locked.ser", tmp_path / "racy.ser"


def test_a_batch_writes_a_page_that_links_its_certificates(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    _two_models(tmp_path)
    (tmp_path / "site").mkdir()
    code = main(["locked.ser", "racy.ser", "--out-dir", "certs", "--html", "site/report.html"])
    assert code == 1
    printed = capsys.readouterr().out.splitlines()
    assert printed[-1] == "HTML report: site/report.html"
    text = (tmp_path / "site" / "report.html").read_text(encoding="utf-8")
    # the page explains the counterexample as the text output does
    said = [line.strip().removeprefix("- ") for line in printed
            if line.startswith(("Completed", "  - ", "Serial executions"))]
    assert len(said) == 3 and all(line in html.unescape(text) for line in said), said
    page = Page(text)
    certs = [h for h in page.hrefs if h.endswith(".cert.json")]
    assert sorted(set(certs)) == ["../certs/locked.ser.cert.json", "../certs/racy.ser.cert.json"]
    assert all((tmp_path / "site" / h).is_file() for h in certs)
    assert all(h[1:] in page.ids for h in page.hrefs if h.startswith("#"))
    overview = [r for r in page.rows if len(r) == 8 and r[0].isdigit()]
    assert [r[1:3] for r in overview] == [["locked.ser", "serializable"],
                                          ["racy.ser", "not serializable"]]
    assert "ser-prove locked.ser racy.ser --out-dir certs --html site/report.html" in text
    trail = [r for r in page.rows if len(r) == 7 and r[0].isdigit()]
    assert trail and all(r[3].startswith("line") for r in trail)
    assert "Serializable by two-phase locking" in text and "L guards X" in html.unescape(text)
    # run again over its own page: an earlier report is replaced
    assert main(["locked.ser", "--html", "site/report.html", "--quiet"]) == 0
    assert "1 serializable" in (tmp_path / "site" / "report.html").read_text(encoding="utf-8")


def test_bench_writes_a_page_with_its_figures(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "models"
    folder.mkdir()
    _two_models(folder)
    (folder / "expected.json").write_text(json.dumps(
        {"locked.ser": {"expected": "serializable"}, "racy.ser": {"expected": "serializable"}}))
    report = tmp_path / "bench.html"
    code = main(["bench", str(folder), "--out-dir", str(tmp_path / "certs"),
                 "--html", str(report)])
    assert code == 1  # racy.ser disagrees with expected.json
    assert f"HTML report: {report}" in capsys.readouterr().out
    page = Page(report.read_text(encoding="utf-8"))
    overview = [r for r in page.rows if len(r) == 10 and r[0].isdigit()]
    assert [r[1:5] for r in overview] == [
        [str(folder / "locked.ser"), "serializable", "serializable", "yes"],
        [str(folder / "racy.ser"), "not serializable", "serializable", "NO"]]
    assert sorted({h for h in page.hrefs if h.endswith(".cert.json")}) == [
        "certs/locked.ser.cert.json", "certs/racy.ser.cert.json"]
    assert [r for r in page.rows if r[:1] == ["ser-check-cert process"]] and \
        all(r[1].startswith("valid in ") for r in page.rows if r[:1] == ["ser-check-cert process"])


@pytest.mark.parametrize("where, says", [
    ("{m}", "refusing to write the HTML report over the model"),
    ("{d}", "is a directory"),
    ("{d}/missing/r.html", "no folder"),
    ("{d}/notes.txt", "is not an HTML report of ser-prove"),
    ("{d}/m.ser.cert.json", "this run writes"),
])
def test_a_bad_html_destination_is_refused_before_any_work(
        where: str, says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    m = tmp_path / "m.ser"
    m.write_text(RACY)
    (tmp_path / "notes.txt").write_text("mine\n")
    dest = where.replace("{m}", str(m)).replace("{d}", str(tmp_path))
    assert main([str(m), "--html", dest]) == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err, err
    assert m.read_text() == RACY and (tmp_path / "notes.txt").read_text() == "mine\n"
    assert not (tmp_path / "m.ser.cert.json").exists()  # no model was decided


def test_bench_refuses_an_html_over_its_model_or_its_table(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    m = tmp_path / "m.ser"
    m.write_text(RACY)
    assert main(["bench", str(m), "--html", str(m)]) == 2
    assert "over the model" in capsys.readouterr().err
    table = tmp_path / "t.json"
    assert main(["bench", str(m), "--json", str(table), "--html", str(table)]) == 2
    assert "this run writes" in capsys.readouterr().err
    assert m.read_text() == RACY and not table.exists()


def test_a_sweep_refuses_html(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    m = tmp_path / "k.ser"
    m.write_text("const K := 2;\nglobal A[K];\nrequest f[j in 0..K-1] { A[j] := 1; 0 }\n")
    assert main([str(m), "-D", "K=1..2", "--html", str(tmp_path / "r.html")]) == 2
    assert "--html" in capsys.readouterr().err and not (tmp_path / "r.html").exists()
