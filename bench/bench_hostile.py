"""Hostile inputs against `ser-prove --timeout 10` and its other commands.

Generates the classes of hostile input into a temporary folder, runs one `ser-prove`
process per input and prints, per input: wall seconds, peak memory of the process tree
(ru_maxrss from wait4, which covers the model's child process), exit code, whether a
traceback was printed, and the first line of stderr. Every row must end within
`timeout + 1` s, under 2 GB, with exit 2 or 3 (or a verdict where the case allows one: a
model that is decided) and no traceback; the summary line says whether they all did
(exit status 1 if not). No timing is asserted anywhere else.

    .venv/bin/python bench/bench_hostile.py [--timeout 10] [--only NAME...]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.sets import bench_dir  # noqa: E402

MEMORY_LIMIT_KB = 2_000_000  # "under 2 GB"


@dataclass(frozen=True)
class Case:
    name: str
    what: str
    make: Callable[[Path], list[str]]  # writes the input, returns the ser-prove arguments
    codes: tuple[int, ...] = (2, 3)  # the exit codes that keep the promise
    prove: bool = True  # the default command: `--quiet` is added
    timed: bool = True  # `--timeout` is added (a case about budgets gives its own)


def _write(d: Path, name: str, text: str) -> Path:
    p = d / name
    p.write_text(text, encoding="utf-8", errors="surrogatepass")
    return p


def _ns(requests: list[list[str]], responses: list[list[str]],
        transitions: list[list[str]], initial: str = "g") -> str:
    return json.dumps({"initial_global": initial, "requests": requests,
                       "responses": responses, "transitions": transitions})


def _counter(d: Path) -> list[str]:
    src = bench_dir("scale") / "counter-10.ser"
    text = src.read_text() if src.exists() else (
        "request inc { while (C == 10) { yield }; C := C + 1; 0 }\n"
        "request dec { while (C == 0) { yield }; C := C - 1; 0 }\n")
    return [str(_write(d, "counter-10.ser", text))]


def _dev_zero(d: Path) -> list[str]:
    link = d / "zero.ser"
    link.symlink_to("/dev/zero")
    return [str(link)]


def _fifo(d: Path) -> list[str]:
    p = d / "fifo.ser"
    os.mkfifo(p)
    return [str(p)]


def _many_requests(d: Path) -> list[str]:
    n = 100_000
    reqs = [[f"r{i}", f"l{i}"] for i in range(n)]
    resps = [[f"l{i}", "ok"] for i in range(n)]
    return [str(_write(d, "requests-1e5.json", _ns(reqs, resps, [])))]


def _many_transitions(d: Path) -> list[str]:
    n = 1_000_000
    trans = [[f"a{i}", "g", f"a{i + 1}", "g"] for i in range(n)]
    return [str(_write(d, "transitions-1e6.json",
                       _ns([["r", "a0"]], [[f"a{n}", "ok"]], trans)))]


def _transitions_within(d: Path) -> list[str]:
    n = 100_000  # ~3.5 MB: inside the 4 MiB file limit, so the engines must face it
    trans = [[f"a{i}", "g", f"a{i + 1}", "g"] for i in range(n)]
    return [str(_write(d, "transitions-1e5.json",
                       _ns([["r", "a0"]], [[f"a{n}", "ok"]], trans)))]


def _chain_globals(d: Path) -> list[str]:
    n = 2_000
    trans = [["l", f"g{i}", "l", f"g{i + 1}"] for i in range(n)]
    return [str(_write(d, "globals-2000.json",
                       _ns([["r", "l"]], [["l", "ok"]], trans, initial="g0")))]


def _big_file(d: Path) -> list[str]:
    p = d / "big-17mb.json"
    with p.open("w") as fh:
        fh.write('{"initial_global": "g", "requests": [], "responses": [], "transitions": [')
        row = '["a", "g", "b", "g"], '
        fh.write(row * (17 * 1024 * 1024 // len(row)))
        fh.write('["a", "g", "b", "g"]]}')
    return [str(p)]


def _surrogate(d: Path) -> list[str]:
    text = '{"initial_global": "g", "requests": [["\\ud800", "l"]], ' \
        '"responses": [["l", "ok"]], "transitions": []}'
    return [str(_write(d, "surrogate.json", text))]


def _duplicate_key(d: Path) -> list[str]:
    text = '{"initial_global": "g", "initial_global": "h", "requests": [], ' \
        '"responses": [], "transitions": []}'
    return [str(_write(d, "duplicate-key.json", text))]


def _deep_json(d: Path) -> list[str]:
    return [str(_write(d, "deep.json", "[" * 200_000 + "]" * 200_000))]


def _huge_json_number(d: Path) -> list[str]:
    return [str(_write(d, "number.json", '{"initial_global": ' + "9" * 5000 + "}"))]


def _long_literal(d: Path) -> list[str]:
    return [str(_write(d, "literal.ser", "request main { X := " + "9" * 5000 + " }\n"))]


def _long_sum(d: Path) -> list[str]:
    body = " + ".join("X" for _ in range(1000))
    return [str(_write(d, "sum-1000.ser", f"request main {{ y := {body}; y }}\n"))]


def _many_assignments(d: Path) -> list[str]:
    body = "; ".join(f"X := {i % 7}" for i in range(5000))
    return [str(_write(d, "assign-5000.ser", f"request main {{ {body}; 0 }}\n"))]


def _yields(command: list[str]) -> Callable[[Path], list[str]]:
    """A flat request of 5,000 lines `X := i; yield;`: sequences are not nesting."""
    def make(d: Path) -> list[str]:
        body = "\n".join(f"  X := {i}; yield;" for i in range(5000))
        m = str(_write(d, "yields-5000.ser", f"request main {{\n{body}\n  X\n}}\n"))
        return [a.replace("{m}", m) for a in command]
    return make


FAULT_BESIDE_CEX = ("request bad { y := 1 / X; y }\n"
                    "request inc { x := X; yield; X := x + 1; x }\n")


def _fault(command: list[str]) -> Callable[[Path], list[str]]:
    """A division by zero reachable beside a lost update (docs/cli.md's rule)."""
    def make(d: Path) -> list[str]:
        m = str(_write(d, "fault.ser", FAULT_BESIDE_CEX))
        return [a.replace("{m}", m) for a in command]
    return make


def _state_blowup(d: Path) -> list[str]:
    text = "request main { while (X == X) { X := X + 1; yield }; 0 }\n"
    return [str(_write(d, "unbounded.ser", text))]


def _binary(d: Path) -> list[str]:
    p = d / "binary.ser"
    p.write_bytes(bytes(range(256)) * 64)
    return [str(p)]


def _output_is_model(d: Path) -> list[str]:
    m = _write(d, "keep.ser", "request main { X := 1; yield; y := X; X := 0; y }\n")
    return [str(m), "-o", str(m)]


def _output_dev_full(d: Path) -> list[str]:
    m = _write(d, "full.ser", "request main { X := 1; yield; y := X; X := 0; y }\n")
    return [str(m), "-o", "/dev/full"]


def _out_dir_collision(d: Path) -> list[str]:
    (d / "a").mkdir()
    (d / "b").mkdir()
    a = _write(d / "a", "m.ser", "request main { 1 }\n")
    b = _write(d / "b", "m.ser", "request main { X := 1; yield; y := X; X := 0; y }\n")
    return [str(a), str(b), "--out-dir", str(d / "certs")]


LOST_UPDATE = "request main { X := 1; yield; y := X; X := 0; y }\n"


def _other(command: list[str], output: list[str] | None = None) -> Callable[[Path], list[str]]:
    """Another command on a small model; `{m}` in `command` or `output` is the model."""
    def make(d: Path) -> list[str]:
        m = str(_write(d, "m.ser", LOST_UPDATE))
        return [a.replace("{m}", m) for a in [*command, *(output or [])]]
    return make


def _wide(command: list[str]) -> Callable[[Path], list[str]]:
    """200 one-line handlers: more than a deadline's worth for inspect and export."""
    def make(d: Path) -> list[str]:
        m = str(_write(d, "wide.ser", "".join(
            f"request r{i} {{ X{i % 7} := 1; yield; X{i % 7} := 0; 0 }}\n" for i in range(200))))
        return [a.replace("{m}", m) for a in command]
    return make


def _expected_broken(d: Path) -> list[str]:
    _write(d, "m.ser", LOST_UPDATE)
    _write(d, "expected.json", "[1,2")
    return ["bench", str(d)]


OTHERS = [  # issue 39: every command keeps the promises `prove` keeps
    Case("ltl-o-model", "ltl -o names the model", _other(
        ["ltl", "{m}", "-f", "G (X <= 0)", "-k", "2", "-o", "{m}"]), prove=False),
    Case("export-o-model", "export -o names the model", _other(
        ["export", "{m}", "--format", "dot", "-o", "{m}"]), prove=False),
    Case("slice-o-model", "slice -o names the model", _other(
        ["slice", "{m}", "--criterion", "p0", "--algorithm", "maximal", "-o", "{m}"]),
        prove=False),
    Case("bench-json-model", "bench --json names the model", _other(
        ["bench", "{m}", "--json", "{m}"]), prove=False),
    Case("bench-outdir-model", "bench --out-dir names the model", _other(
        ["bench", "{m}", "--out-dir", "{m}"]), prove=False),
    *[Case(f"{cmd}-timeout-{v}", f"{cmd} --timeout {v}", _other(
        [*pre, "--timeout", v]), prove=False, timed=False)
      for cmd, pre in (("prove", ["{m}"]), ("ltl", ["ltl", "{m}", "-f", "G (X <= 1)", "-k", "2"]),
                       ("bench", ["bench", "{m}"]))
      for v in ("inf", "1e19", "nan", "-1")],
    Case("inspect-wide", "inspect of 200 one-line handlers", _wide(["inspect", "{m}"]),
         codes=(0, 2, 3), prove=False),
    Case("export-pdnet-wide", "export --what pdnet --requests 200 of 200 handlers", _wide(
        ["export", "{m}", "--format", "net", "--what", "pdnet", "--requests", "200", "-o",
         "pd.net"]), prove=False),
    Case("bench-expected", "bench with a malformed expected.json", _expected_broken,
         prove=False),
    Case("yields-5000", "a flat request of 5,000 lines with yields", _yields(["{m}"]),
         codes=(1, 3)),
    Case("ltl-yields-5000", "ltl on the 5,000-line request", _yields(
        ["ltl", "{m}", "-f", "G (X <= 5000)", "-k", "2"]), codes=(0, 1, 3), prove=False),
    Case("inspect-yields-5000", "inspect of the 5,000-line request", _yields(
        ["inspect", "{m}"]), codes=(0, 2, 3), prove=False),
    Case("fault-beside-cex", "division by zero beside a counterexample", _fault(["{m}"]),
         codes=(1,)),
    Case("fault-strict", "the same with --strict", _fault(["{m}", "--strict"]), codes=(2,)),
]

CASES = [
    Case("counter-10", "bounded counter, runaway serial set", _counter, codes=(0, 2, 3)),
    Case("dev-zero", "model path links to /dev/zero", _dev_zero),
    Case("fifo", "model path is a FIFO", _fifo),
    Case("requests-1e5", "NS JSON with 10^5 request entries", _many_requests),
    Case("transitions-1e6", "NS JSON with 10^6 transitions (40 MB)", _many_transitions),
    Case("transitions-1e5", "NS JSON with 10^5 transitions (3.5 MB)", _transitions_within),
    Case("globals-2000", "NS JSON chain of 2,000 globals", _chain_globals),
    Case("file-17mb", "NS JSON file over 16 MB", _big_file),
    Case("surrogate", "lone surrogate escape in an NS JSON name", _surrogate),
    Case("duplicate-key", "duplicate key in NS JSON", _duplicate_key),
    Case("deep-json", "JSON nested 200,000 deep", _deep_json),
    Case("json-number", "5,000-digit number in NS JSON", _huge_json_number),
    Case("literal-5000", "5,000-digit literal in Ser", _long_literal),
    Case("sum-1000", "1,000-term sum", _long_sum),
    Case("assign-5000", "5,000 sequential assignments", _many_assignments, codes=(0, 2, 3)),
    Case("unbounded", "a global that grows without bound", _state_blowup),
    Case("binary", "binary garbage as .ser", _binary),
    Case("o-is-model", "-o names the model itself", _output_is_model),
    Case("o-dev-full", "-o /dev/full", _output_dev_full),
    Case("out-dir-clash", "a/m.ser b/m.ser --out-dir", _out_dir_collision),
    *OTHERS,
]


@dataclass(frozen=True)
class Row:
    name: str
    seconds: float
    peak_kb: int
    code: int
    traceback: bool
    message: str
    codes: tuple[int, ...] = (2, 3)

    def ok(self, timeout: float) -> bool:
        return (self.seconds <= timeout + 1 and self.peak_kb < MEMORY_LIMIT_KB
                and self.code in self.codes and not self.traceback)


def _generate(case: Case, d: Path) -> list[str]:
    """Write the input in a forked child: the generators build large strings, and a
    ser-prove process forked from a large bench process would inherit its peak RSS."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            os.close(read_fd)
            os.write(write_fd, json.dumps(case.make(d)).encode())
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    os.close(write_fd)
    with os.fdopen(read_fd, "rb") as fh:
        data = fh.read()
    _, status = os.waitpid(pid, 0)
    if status != 0:
        raise RuntimeError(f"generating {case.name} failed")
    args: list[str] = json.loads(data)
    return args


def run_case(case: Case, folder: Path, timeout: float) -> Row:
    d = folder / case.name
    d.mkdir()
    args = _generate(case, d)
    exe = [sys.executable, "-m", "prover.cli", *args,
           *(["--timeout", str(timeout)] if case.timed else []),
           *(["--quiet"] if case.prove else [])]
    start = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(exe, stdout=out, stderr=err, cwd=d)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.monotonic() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        out.seek(0)
        text = err.read().decode("utf-8", "replace") + out.read().decode("utf-8", "replace")
    first = next((ln for ln in text.splitlines() if ln.strip()), "")
    return Row(case.name, seconds, int(usage.ru_maxrss), proc.returncode,
               "Traceback" in text, first[:110], case.codes)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=10.0, metavar="S")
    parser.add_argument("--only", nargs="*", metavar="NAME", help="run only these cases")
    args = parser.parse_args(argv)
    cases = [c for c in CASES if not args.only or c.name in args.only]
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="hostile-") as tmp:
        print(f"{'input':<16} {'wall s':>7} {'peak MB':>8} {'exit':>4}  ok  message")
        for case in cases:
            row = run_case(case, Path(tmp), args.timeout)
            rows.append(row)
            mark = "yes" if row.ok(args.timeout) else "NO"
            print(f"{row.name:<16} {row.seconds:7.2f} {row.peak_kb / 1024:8.0f} "
                  f"{row.code:>4}  {mark:<3} {row.message}", flush=True)
    good = sum(r.ok(args.timeout) for r in rows)
    worst = max((r.seconds for r in rows), default=0.0)
    peak = max((r.peak_kb for r in rows), default=0) / 1024
    print(f"\n{good}/{len(rows)} inputs within {args.timeout + 1:g} s, under 2 GB, "
          f"the exits allowed, no traceback; slowest {worst:.2f} s, largest {peak:.0f} MB")
    return 0 if good == len(rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
