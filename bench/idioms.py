"""Scaling families of everyday concurrency idioms, each a correct version and the bug
people make, with verdicts by construction (issue 38).

Usage: .venv/bin/python bench/idioms.py OUTDIR [--sizes 2,3,4,...] [--families a,b]

Writes `FAMILY-KK.ser` for every family and size, `expected.json` (file name → verdict)
and a README.md with the reasoning behind each verdict. Tests generate the families into
a temporary folder with `write_families`; nothing generated is committed.

Every global that could grow without bound is bounded in the program itself (a counter
modulo a constant, a version that stops at a maximum, a reader count that waits at its
maximum): serializability is about unboundedly many requests, and a finite program is
what every method here, the network system's included, needs.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Family:
    name: str
    verdict: str  # "serializable" | "not_serializable"
    why: str  # one line of reasoning
    text: Callable[[int], str]
    sizes: tuple[int, ...]


CORRECT_SIZES = (2, 3, 4, 6, 8, 12, 16, 24)
BUGGY_SIZES = (2, 3, 4, 6, 8, 12, 16)


def _cells(k: int, fmt: str, sep: str = " yield; ") -> str:
    return sep.join(fmt.format(i=i) for i in range(k))


# ------------------------------------------------------------------ compare-and-swap


def cas(k: int) -> str:
    out = [f"// {k} counters modulo 4, each incremented by a compare-and-swap retry loop"]
    for j in range(k):
        out.append(f"""request inc{j} {{
  while (ok == 0) {{
    v := C{j}; yield;
    if (C{j} == v) {{ C{j} := (v + 1) % 4; ok := 1 }} else {{ 0 }}
  }};
  v
}}
request get{j} {{ C{j} }}""")
    return "\n".join(out) + "\n"


def cas_bug(k: int) -> str:
    out = [f"// {k} counters modulo 4: read, yield, write back without compare-and-swap"]
    for j in range(k):
        out.append(f"""request inc{j} {{ v := C{j}; yield; C{j} := (v + 1) % 4; v }}
request get{j} {{ C{j} }}""")
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------ optimistic updates


def occ(k: int) -> str:
    out = [f"// {k} records, each a value X and a version V that stops at 3: read both,"
           " yield, commit only if the version is unchanged, else retry"]
    for j in range(k):
        out.append(f"""request upd{j} {{
  d := ?;
  while (ok == 0) {{
    v := V{j}; x := X{j}; yield;
    if (V{j} == v) {{
      if (v < 3) {{ X{j} := (x + d + 1) % 3; V{j} := v + 1; r := x }} else {{ r := 9 }};
      ok := 1
    }} else {{ 0 }}
  }};
  r
}}
request get{j} {{ X{j} }}""")
    return "\n".join(out) + "\n"


def occ_bug(k: int) -> str:
    out = [f"// {k} records with versions: the commit forgets to compare the version"]
    for j in range(k):
        out.append(f"""request upd{j} {{
  d := ?;
  v := V{j}; x := X{j}; yield;
  if (v < 3) {{ X{j} := (x + d + 1) % 3; V{j} := v + 1; r := x }} else {{ r := 9 }};
  r
}}
request get{j} {{ X{j} }}""")
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------ seqlock


def _seq_writer(k: int) -> str:
    return f"""request write {{
  d := ?;
  while (S % 2 == 1) {{ yield }};
  if (S < 4) {{
    S := S + 1; yield;
    {_cells(k, "C{i} := d;")} yield;
    S := S + 1; 0
  }} else {{ 1 }}
}}"""


def seqlock(k: int) -> str:
    reads = "a := C0;" + "".join(f" yield; a := a + C{i};" for i in range(1, k))
    return f"""// a seqlock over {k} cells: the writer makes S odd, writes every cell, makes S
// even (at most two writes, so S never wraps); the reader retries until it read an even
// S that is unchanged after it read the cells
{_seq_writer(k)}
request read {{
  while (ok == 0) {{
    s := S;
    if (s % 2 == 0) {{
      yield; {reads} yield;
      if (S == s) {{ ok := 1 }} else {{ 0 }}
    }} else {{ yield }}
  }};
  a
}}
"""


def seqlock_bug(k: int) -> str:
    reads = "a := C0;" + "".join(f" yield; a := a + C{i};" for i in range(1, k))
    return f"""// a seqlock over {k} cells whose reader waits for an even S, never checks it again
{_seq_writer(k)}
request read {{
  while (S % 2 == 1) {{ yield }};
  {reads}
  a
}}
"""


# ------------------------------------------------------------------ readers-writer lock


def _rw_writer(k: int) -> str:
    return f"""request write {{
  d := ?;
  while (W == 1) {{ yield }}; W := 1; yield;
  {_cells(k, "C{i} := d;")} yield;
  W := 0; 0
}}"""


def _rw_read(k: int) -> str:
    return "s := C0;" + "".join(f" yield; s := s + C{i};" for i in range(1, k))


def rwcount(k: int) -> str:
    return f"""// a readers-writer lock over {k} cells: a reader count RC under a mutex M (at
// most 2 readers); the first reader takes the resource lock W, the last releases it
{_rw_writer(k)}
request read {{
  while (M == 1 || RC == 2) {{ yield }}; M := 1; yield;
  RC := RC + 1; yield;
  while (RC == 1 && W == 1) {{ yield }};
  if (RC == 1) {{ W := 1 }} else {{ 0 }}; M := 0; yield;
  {_rw_read(k)} yield;
  while (M == 1) {{ yield }}; M := 1; yield;
  RC := RC - 1; if (RC == 0) {{ W := 0 }} else {{ 0 }}; M := 0;
  s
}}
"""


def rwcount_bug(k: int) -> str:
    return f"""// a readers-writer lock over {k} cells whose reader count is updated without the
// mutex: two readers can both see a count of 2 and neither takes the resource lock
{_rw_writer(k)}
request read {{
  while (RC == 2) {{ yield }};
  RC := RC + 1; yield;
  while (RC == 1 && W == 1) {{ yield }};
  if (RC == 1) {{ W := 1 }} else {{ 0 }}; yield;
  {_rw_read(k)} yield;
  RC := RC - 1; if (RC == 0) {{ W := 0 }} else {{ 0 }};
  s
}}
"""


def _flag_writer(k: int) -> str:
    return f"""request write {{
  d := ?;
  while (W == 1) {{ yield }}; W := 1; yield;
  while (R > 0) {{ yield }};
  {_cells(k, "C{i} := d;")} yield;
  W := 0; 0
}}"""


def backoff(k: int) -> str:
    return f"""// a writer flag W and a count R of registered readers (at most 2) over {k} cells:
// the reader registers, re-checks the flag and backs off while a writer is there
{_flag_writer(k)}
request read {{
  while (ok == 0) {{
    if (R < 2) {{
      R := R + 1; yield;
      if (W == 1) {{ R := R - 1; yield }} else {{ ok := 1 }}
    }} else {{ yield }}
  }};
  {_rw_read(k)} yield;
  R := R - 1;
  s
}}
"""


def backoff_bug(k: int) -> str:
    return f"""// a writer flag W and a reader count R over {k} cells: the reader checks the flag,
// then registers, and never checks the flag again
{_flag_writer(k)}
request read {{
  while (W == 1) {{ yield }}; yield;
  while (R == 2) {{ yield }}; R := R + 1; yield;
  {_rw_read(k)} yield;
  R := R - 1;
  s
}}
"""


# ------------------------------------------------------------------ ticket lock


def ticket(k: int) -> str:
    out = [f"// a ticket lock over {k} counters: tickets modulo 4, at most 3 outstanding"]
    for j in range(k):
        out.append(f"""request inc{j} {{
  while ((T + 1) % 4 == S) {{ yield }};
  t := T; T := (T + 1) % 4; yield;
  while (S != t) {{ yield }};
  c := C{j}; yield; C{j} := (c + 1) % 3; yield;
  S := (S + 1) % 4;
  c
}}""")
    return "\n".join(out) + "\n"


def ticket_bug(k: int) -> str:
    out = [f"// a ticket lock over {k} counters that serves the next ticket before writing"]
    for j in range(k):
        out.append(f"""request inc{j} {{
  while ((T + 1) % 4 == S) {{ yield }};
  t := T; T := (T + 1) % 4; yield;
  while (S != t) {{ yield }};
  c := C{j}; yield; S := (S + 1) % 4; yield;
  C{j} := (c + 1) % 3;
  c
}}""")
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------ lock coupling


def coupling(k: int, early: bool = False) -> str:
    parts = ["while (L0 == 1) { yield }; L0 := 1; yield;", "s := N0; N0 := 1 - N0; yield;"]
    for i in range(1, k):
        if early:
            parts.append(f"L{i - 1} := 0; yield; while (L{i} == 1) {{ yield }}; L{i} := 1; yield;")
        else:
            parts.append(f"while (L{i} == 1) {{ yield }}; L{i} := 1; L{i - 1} := 0; yield;")
        parts.append(f"s := s + N{i}; N{i} := 1 - N{i}; yield;")
    parts.append(f"L{k - 1} := 0;")
    body = "\n  ".join(parts)
    what = ("releases a node's lock before it takes the next one" if early else
            "takes the next node's lock before it releases the current one")
    return f"""// a walk along a chain of {k} nodes that {what}, flipping each node's bit
request walk {{
  {body}
  s
}}
"""


# ------------------------------------------------------------------ bounded buffer


def buffer(k: int, mutex: bool = True) -> str:
    lock = "while (M == 1) { yield }; M := 1; yield;" if mutex else ""
    unlock = "M := 0; yield;" if mutex else ""
    what = "with a mutex M around the count" if mutex else "without the mutex around the count"
    return f"""// a bounded buffer of {k} slots: counting semaphores E (free slots) and F (items),
// {what} N of items
global E := {k};
request produce {{
  while (E == 0) {{ yield }}; E := E - 1; yield;
  {lock}
  n := N; yield; N := n + 1; yield;
  {unlock}
  F := F + 1;
  n
}}
request consume {{
  while (F == 0) {{ yield }}; F := F - 1; yield;
  {lock}
  n := N; yield; N := n - 1; yield;
  {unlock}
  E := E + 1;
  n
}}
"""


# ------------------------------------------------------------------ ring of transfers


def ring2pl(k: int, early: bool = False) -> str:
    out = [f"// a ring of {k} accounts (one unit each, at most 2): move j takes a unit from "
           f"A j to A j+1 under both accounts' locks"
           + (", releasing the first lock before it takes the second" if early else
              ", taken in index order and held to the end (strict two-phase locking)"),
           "global " + ", ".join(f"A{j} := 1" for j in range(k)) + ";"]
    for j in range(k):
        n = (j + 1) % k
        lo, hi = min(j, n), max(j, n)
        if early:
            out.append(f"""request move{j} {{
  while (L{j} == 1) {{ yield }}; L{j} := 1; yield;
  if (A{j} >= 1) {{ A{j} := A{j} - 1; r := 1 }} else {{ 0 }}; L{j} := 0; yield;
  while (L{n} == 1) {{ yield }}; L{n} := 1; yield;
  if (r == 1) {{ A{n} := A{n} + 1 }} else {{ 0 }}; L{n} := 0;
  r
}}""")
        else:
            out.append(f"""request move{j} {{
  while (L{lo} == 1) {{ yield }}; L{lo} := 1; yield;
  while (L{hi} == 1) {{ yield }}; L{hi} := 1; yield;
  if (A{j} >= 1 && A{n} <= 1) {{ A{j} := A{j} - 1; yield; A{n} := A{n} + 1; r := 1 }} else {{ 0 }};
  yield; L{lo} := 0; L{hi} := 0;
  r
}}""")
    # The audit answers the parity of the total (K serially; one short with a unit in
    # flight): a running sum would give it K·2K local states and every lock's law as many.
    take = " ".join(f"while (L{j} == 1) {{ yield }}; L{j} := 1; s := (s + A{j}) % 2; yield;"
                    for j in range(k))
    free = " ".join(f"L{j} := 0;" for j in range(k))
    out.append(f"""request audit {{
  {take}
  {free}
  s
}}""")
    return "\n".join(out) + "\n"


FAMILIES: tuple[Family, ...] = (
    Family("cas", "serializable", "a CAS commits only on the value it read: every finished "
           "increment is an atomic increment at its commit", cas, CORRECT_SIZES),
    Family("cas-bug", "not_serializable", "two increments read 0 and both write 1: both "
           "answer 0, serially the second answers 1", cas_bug, BUGGY_SIZES),
    Family("occ", "serializable", "every commit bumps the version, which never wraps: an "
           "unchanged version means an unchanged value, so the commit acts on what is there",
           occ, CORRECT_SIZES),
    Family("occ-bug", "not_serializable", "the commit does not compare the version: two "
           "updates of one record both answer its old value (a lost update)", occ_bug,
           BUGGY_SIZES),
    Family("seqlock", "serializable", "cells change only while S is odd and S never repeats "
           "a value: an even S unchanged across the reads means the cells did not change",
           seqlock, CORRECT_SIZES),
    Family("seqlock-bug", "not_serializable", "a writer between two reads of the reader: it "
           "answers a sum no serial order gives (a torn read)", seqlock_bug, BUGGY_SIZES),
    Family("rwcount", "serializable", "readers share W through the count (the first takes "
           "it, the last frees it) and the count changes under M: no cell is written while "
           "a reader reads", rwcount, CORRECT_SIZES),
    Family("rwcount-bug", "not_serializable", "two readers raise the count to 2 before "
           "either tests it: neither takes W and a writer writes under their reads",
           rwcount_bug, BUGGY_SIZES),
    Family("backoff", "serializable", "a reader that is registered and saw no writer flag "
           "afterwards excludes writers (they wait for R = 0 after raising the flag)",
           backoff, CORRECT_SIZES),
    Family("backoff-bug", "not_serializable", "the flag is checked before registering: a "
           "writer raises it and sees R = 0 in between, then writes under the reads",
           backoff_bug, BUGGY_SIZES),
    Family("ticket", "serializable", "the ticket lock is a mutex (at most 3 tickets out of "
           "4 values are outstanding): each increment runs alone", ticket, CORRECT_SIZES),
    Family("ticket-bug", "not_serializable", "the next ticket is served before the write: "
           "two increments read the same value (a lost update)", ticket_bug, BUGGY_SIZES),
    Family("coupling", "serializable", "with the next lock taken before the current one is "
           "freed, no walk overtakes another: walks are serial in the order of their first "
           "lock", coupling, CORRECT_SIZES),
    Family("coupling-bug", "not_serializable", "a walk frees a node before locking the next "
           "and a second walk overtakes it: each sees the other's flip at one node and not "
           "at the other", lambda k: coupling(k, early=True), BUGGY_SIZES),
    Family("buffer", "serializable", "the count N changes under the mutex; the semaphores "
           "only delay requests, and a delayed request reads what a serial run would",
           buffer, CORRECT_SIZES),
    Family("buffer-bug", "not_serializable", "without the mutex two producers read the same "
           "N and both answer it (a lost update)", lambda k: buffer(k, mutex=False),
           BUGGY_SIZES),
    Family("ring2pl", "serializable", "strict two-phase locking, locks in index order: "
           "every move and the audit are serial in the order of their last lock", ring2pl,
           CORRECT_SIZES),
    Family("ring2pl-bug", "not_serializable", "a move frees its first account before "
           "locking the second: the audit sees the unit in flight (the parity of the total "
           "flips)",
           lambda k: ring2pl(k, early=True), BUGGY_SIZES),
)

BY_NAME = {f.name: f for f in FAMILIES}


def model_name(family: str, size: int) -> str:
    return f"{family}-{size:02d}.ser"


def write_families(out: Path, sizes: tuple[int, ...] | None = None,
                   families: tuple[str, ...] | None = None) -> dict[str, str]:
    """Write the models, expected.json and README.md into `out`; the verdicts by file."""
    out.mkdir(parents=True, exist_ok=True)
    expected: dict[str, str] = {}
    table: dict[str, dict[str, object]] = {}
    for fam in FAMILIES:
        if families is not None and fam.name not in families:
            continue
        for k in fam.sizes if sizes is None else [s for s in sizes if s in fam.sizes]:
            name = model_name(fam.name, k)
            (out / name).write_text(fam.text(k), encoding="utf-8")
            expected[name] = fam.verdict
            table[name] = {"expected": fam.verdict, "family": fam.name, "n": k}
    (out / "expected.json").write_text(json.dumps(table, indent=1, sort_keys=True) + "\n",
                                       encoding="utf-8")
    rows = "\n".join(f"| `{f.name}` | {f.verdict} | {f.why} |" for f in FAMILIES
                     if families is None or f.name in families)
    (out / "README.md").write_text(
        "# Idiom families (generated by bench/idioms.py)\n\n"
        "| family | verdict | why |\n|---|---|---|\n" + rows + "\n", encoding="utf-8")
    return expected


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description="Write the idiom families (issue 38) into a folder.")
    p.add_argument("out", type=Path, help="output folder (created)")
    p.add_argument("--sizes", help="comma-separated sizes (default: each family's own)")
    p.add_argument("--families", help="comma-separated family names (default: all): "
                   + ", ".join(BY_NAME))
    a = p.parse_args(argv)
    sizes = None if a.sizes is None else tuple(int(s) for s in a.sizes.split(","))
    fams = None if a.families is None else tuple(a.families.split(","))
    if fams is not None and (bad := [f for f in fams if f not in BY_NAME]):
        p.error(f"unknown family {bad[0]!r}")
    expected = write_families(a.out, sizes, fams)
    print(f"wrote {len(expected)} models to {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
