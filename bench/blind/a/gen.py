#!/usr/bin/env python3
"""Generator for the blind benchmark corpus, half A.

Ser has no arrays or constants, so a model of size K spells out K globals and
if-chains that select one of them by an index local.  Run `python3 gen.py` in
this folder: it (re)writes every *.ser file and expected.json (keeping the
"checked" notes already recorded there).
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = {}   # name -> (text, meta)


UNBOUNDED = {"occ1.ser", "occ2rec.ser", "occ3rec.ser", "occ4rec.ser", "occ8rec.ser",
             "occ2-tablever.ser", "seqlock2.ser", "seqlock3.ser", "seqlock4.ser", "seqlock8.ser"}


def model(name, family, size, expected, note, text):
    assert expected in ("serializable", "not_serializable")
    if name in UNBOUNDED:
        note += ("; versions/sequence numbers grow without bound ON PURPOSE (a wrapping one "
                 "would be ABA-prone), so the state space is infinite")
    MODELS[name] = (text.strip() + "\n", dict(expected=expected, family=family,
                                                size=size, note=note))


S, N = "serializable", "not_serializable"


def chain(var, K, body, ind=""):
    """if (var == 0) { body(0) } else if ... else { body(K-1) }"""
    if K == 1:
        return body(0)
    out = []
    for k in range(K):
        if k == 0:
            out.append(f"if ({var} == {k}) {{ {body(k)} }}")
        elif k < K - 1:
            out.append(f"{ind}else if ({var} == {k}) {{ {body(k)} }}")
        else:
            out.append(f"{ind}else {{ {body(k)} }}")
    return "\n".join(out)


def lock(L):
    return f"while ({L} == 1) {{ yield }}; {L} := 1"


def glob(decls):
    return "global " + ", ".join(f"{n} := {v}" for n, v in decls) + ";\n"


# ---------------------------------------------------------------- 1. CAS
def cas_single(bug):
    body_cas = ("if (C == v) { C := (v + 1) % 4; ok := 1 } else { 0 }" if not bug
                else "C := (v + 1) % 4; ok := 1   // BUG: blind store, no compare")
    return f"""
// AtomicInteger-style counter modulo 4 (it wraps), getAndIncrement with a
// compare-and-set retry loop.  inc answers the value it replaced.
request inc {{
  ok := 0;
  while (!ok) {{
    v := C;
    yield;                                 // other threads run between read and CAS
    {body_cas}
  }};
  v
}}
request get {{ C }}
"""


model("cas1.ser", "cas", 1, S,
      "getAndIncrement with CAS retry, wraps mod 4; each inc linearizes at its successful CAS",
      cas_single(False))
model("cas1-bug.ser", "cas", 1, N,
      "read, yield, blind write: two incs both answer 0 (lost update), serially 0 then 1",
      cas_single(True))


def cas_multi(K, mod, bugk=None, bugkind=None, amount=False, snapshot=True):
    def rd(k):
        return f"v := C{k}"

    def cas(k):
        cmp = f"C{k}"
        if bugk == k and bugkind == "wrongcmp":
            cmp = f"C{(k + 1) % K}"      # copy-paste error: compares the neighbour
        if bugk == k and bugkind == "blind":
            return f"// BUG: fast path without compare\n      C{k} := (v + d) % {mod}; ok := 1"
        return f"if ({cmp} == v) {{ C{k} := (v + d) % {mod}; ok := 1 }} else {{ 0 }}"

    d = f"d := ?(1..2);" if amount else "d := 1;"
    tail = "i * 100 + d * 10 + v"
    extra = ""
    if bugkind == "reget":
        extra = "\n  yield;                                  // BUG: answer re-reads the counter\n  " + \
                chain("i", K, lambda k: f"v := C{k}", "  ") + ";"
    snap = ""
    if snapshot:
        expr = " + ".join(f"C{k} * {mod ** (K - 1 - k)}" for k in range(K))
        snap = f"request snapshot {{ {expr} }}\n"
    else:
        snap = "request get {\n  i := ?(0..%d);\n  %s;\n  i * 100 + v\n}\n" % (
            K - 1, chain("i", K, lambda k: f"v := C{k}", "  "))
    return f"""
// {K} independent counters modulo {mod}, each updated with a CAS retry loop.
// inc picks a counter by input and answers (counter, amount, value replaced).
request inc {{
  i := ?(0..{K - 1});
  {d}
  ok := 0;
  while (!ok) {{
    {chain("i", K, rd, "    ")};
    yield;
    {chain("i", K, cas, "    ")}
  }};{extra}
  {tail}
}}
{snap}"""


model("cas2.ser", "cas", 2, S, "two CAS counters mod 3, atomic snapshot; linearizable",
      cas_multi(2, 3))
model("cas2-bug.ser", "cas", 2, N,
      "counter 1's CAS compares counter 0 (copy-paste); two incs of counter 1 both answer 10",
      cas_multi(2, 3, bugk=1, bugkind="wrongcmp"))
model("cas3.ser", "cas", 3, S, "three CAS counters mod 3, add 1 or 2 by input, atomic snapshot",
      cas_multi(3, 3, amount=True))
model("cas3-bug.ser", "cas", 3, N,
      "addAndGet implemented as CAS then re-read after a yield: two adds can both report the final value",
      cas_multi(3, 3, bugkind="reget", amount=True))
model("cas8.ser", "cas", 8, S, "eight CAS bits (counters mod 2), reads of single counters",
      cas_multi(8, 2, snapshot=False))
model("cas8-bug.ser", "cas", 8, N,
      "counter 5 updated on a fast path with read/yield/blind write: lost update",
      cas_multi(8, 2, bugk=5, bugkind="blind", snapshot=False))
model("cas16.ser", "cas", 16, S, "sixteen CAS bits; linearizable",
      cas_multi(16, 2, snapshot=False))
model("cas16-bug.ser", "cas", 16, N,
      "counter 15 compares against counter 0 (wrap of the copy-paste index): two incs of 15 both answer 1500",
      cas_multi(16, 2, bugk=15, bugkind="wrongcmp", snapshot=False))

model("cas2-stale.ser", "cas", 2, S,
      "looks buggy: on CAS failure the loop does not re-read, it waits until the counter "
      "comes back to the stale value (mod 3 wrap). That is only a liveness bug: every "
      "successful CAS still replaces exactly the value it answers, stuck requests never respond",
      """
// Two counters modulo 3.  The retry loop keeps its first read: after a failed
// CAS it simply tries again later with the same expected value.
request inc {
  i := ?(0..1);
  if (i == 0) { v := C0 } else { v := C1 };
  ok := 0;
  while (!ok) {
    yield;
    if (i == 0) {
      if (C0 == v) { C0 := (v + 1) % 3; ok := 1 } else { 0 }
    } else {
      if (C1 == v) { C1 := (v + 1) % 3; ok := 1 } else { 0 }
    }
  };
  i * 10 + v
}
request snapshot { C0 * 10 + C1 }
""")


def cas_sat(K, bug):
    if not bug:
        inc_body = f"""  r := -1;
  while (r < 0) {{
    {chain("i", K, lambda k: f"v := C{k}", "    ")};
    if (v == 3) {{ r := 9 }}                 // saturated: refuse
    else {{
      yield;
      {chain("i", K, lambda k: f"if (C{k} == v) {{ C{k} := v + 1; r := v }} else {{ 0 }}", "      ")}
    }}
  }};"""
    else:
        inc_body = f"""  {chain("i", K, lambda k: f"v := C{k}", "  ")};
  if (v == 3) {{ r := 9 }}                   // BUG: the limit is checked once, outside the retry loop
  else {{
    r := -1;
    while (r < 0) {{
      yield;
      {chain("i", K, lambda k: f"w := C{k}", "      ")};
      yield;
      {chain("i", K, lambda k: f"if (C{k} == w) {{ C{k} := w + 1; r := w }} else {{ 0 }}", "      ")}
    }}
  }};"""
    return glob([(f"C{k}", [2, 1, 0, 3][k % 4]) for k in range(K)]) + f"""
// {K} saturating counters (no wrap-around): an increment past 3 is refused
// with answer 9.  inc answers (counter, value replaced or 9).
request inc {{
  i := ?(0..{K - 1});
{inc_body}
  i * 10 + r
}}
request reset {{
  i := ?(0..{K - 1});
  {chain("i", K, lambda k: f"old := C{k}; C{k} := 0", "  ")};
  i * 10 + old
}}
"""


model("cas4-sat.ser", "cas", 4, S, "saturating CAS counters (limit 3) with atomic reset",
      cas_sat(4, False))
model("cas4-sat-bug.ser", "cas", 4, N,
      "limit checked before the retry loop: two incs of counter 0 (starts at 2) succeed, the second answers 3 "
      "(serially it would answer 9); counter can exceed 3 (unbounded over many requests)",
      cas_sat(4, True))

# ---------------------------------------------------------------- 2. OCC


def occ1(mod, ver, bug=None, with_set=True):
    bump = {"unb": "V := v + 1", "wrap": f"V := (v + 1) % {ver}"}["unb" if ver is None else "wrap"]
    commit = f"if (V == v) {{ X := nx; {bump}; done := 1 }} else {{ 0 }}"
    if bug == "nobump":
        commit = "if (V == v) { X := nx; done := 1 } else { 0 }   // BUG: version checked, never bumped"
    if bug == "split":
        commit = (f"if (V == v) {{\n      yield;                    // BUG: validated, then commits later\n"
                  f"      X := nx; {bump}; done := 1\n    }} else {{ 0 }}")
    setreq = ""
    if with_set:
        setreq = f"""request set {{
  n := ?(0..{mod - 1});
  done := 0;
  while (!done) {{
    x := X; v := V;
    yield;
    if (V == v) {{ X := n; {bump}; done := 1 }} else {{ 0 }}
  }};
  x * 10 + n
}}
"""
    vdesc = "an unbounded version" if ver is None else f"a version modulo {ver}"
    return f"""
// One record X (values modulo {mod}) guarded by {vdesc}.
// Optimistic update: read value and version, compute outside any lock,
// validate the version and commit in one atomic step, else retry.
request update {{
  done := 0;
  while (!done) {{
    x := X; v := V;
    yield;                       // compute the new value outside the critical section
    nx := (x + 1) % {mod};
    {commit}
  }};
  x
}}
{setreq}request read {{ X }}
"""


model("occ1.ser", "occ", 1, S, "single-record OCC with an update and a blind set",
      occ1(3, None))
model("occ1-nobump.ser", "occ", 1, N,
      "update validates V but never bumps it: two updates both answer 0",
      occ1(3, None, "nobump"))
model("occ1-split.ser", "occ", 1, N,
      "validation and commit split by a yield: both validate, both commit, both answer 0",
      occ1(3, None, "split"))
model("occ1-wrap2.ser", "occ", 1, N,
      "version mod 2, value mod 3: ABA after two commits; A reads 0, B and C commit, A's "
      "validation passes: answers {0,0,1}, serially {0,1,2}. Needs 3 requests",
      occ1(3, 2, with_set=False))
model("occ1-lockstep.ser", "occ", 1, S,
      "SURPRISE: version and value both mod 2 and only incremented together, so X == V is "
      "invariant and validating V is exactly a CAS on X; the ABA on V is harmless",
      occ1(2, 2, with_set=False))
model("occ1-wrap4.ser", "occ", 1, N,
      "version mod 4, value mod 5: ABA after 4 commits inside one update's window, so the "
      "counterexample needs 5 requests (1 + 4); with any number of requests this is not serializable",
      occ1(5, 4, with_set=False))


def occ_multi(K, init, cap, vermode="unb", bug=None):
    """K records X0..X{K-1} in 0..cap, versions V0.. (unbounded, or mod 2).
    move i->j by OCC reading both, deposit k by OCC on one record, audit atomic."""
    def bump(k, vv):
        if vermode == "unb":
            return f"V{k} := {vv} + 1"
        return f"V{k} := ({vv} + 1) % 2"

    def rd(pfx, idx):
        return chain(idx, K, lambda k: f"{pfx} := X{k}; v{pfx} := V{k}", "    ")

    def cur(pfx, idx):
        return chain(idx, K, lambda k: f"c{pfx} := V{k}", "    ")

    valid = "ca == va && cb == vb"
    if bug == "forget":
        valid = "ca == va"          # BUG: the destination (or X) version is not validated
    wr_a = chain("i", K, lambda k: f"X{k} := a - 1; {bump(k, 'va')}", "        ")
    if bug == "nobumpdst":
        wr_b = chain("j", K, lambda k: f"X{k} := b + 1", "        ")  # BUG: no version bump
    else:
        wr_b = chain("j", K, lambda k: f"X{k} := b + 1; {bump(k, 'vb')}", "        ")
    commit = f"""if ({valid}) {{
      if (a > 0 && b < {cap}) {{
        {wr_a};
        {wr_b};
        r := 1
      }} else {{ r := 0 }};
      done := 1
    }} else {{ 0 }}"""
    if bug == "split":
        commit = f"""if ({valid}) {{
      yield;                     // BUG: validated, then commits in a later step
      if (a > 0 && b < {cap}) {{
        {wr_a};
        {wr_b};
        r := 1
      }} else {{ r := 0 }};
      done := 1
    }} else {{ 0 }}"""
    if K == 2:
        pick = "i := ?(0..1); j := 1 - i;"
    else:
        pick = f"i := ?(0..{K - 1}); j := ?(0..{K - 2}); if (j >= i) {{ j := j + 1 }} else {{ 0 }};"
    audit = " + ".join(f"X{k} * {10 ** (K - 1 - k)}" for k in range(K)) if K <= 4 else \
        " + ".join(f"X{k}" for k in range(K))
    return glob([(f"X{k}", init[k]) for k in range(K)]) + f"""
// {K} records, each with its own {'unbounded version' if vermode == 'unb' else 'version modulo 2'}.
// move: optimistic transaction that reads two records, computes outside any
// lock, then validates both versions and writes both in one atomic step.
request move {{
  {pick}
  done := 0;
  while (!done) {{
    {rd('a', 'i')};
    {rd('b', 'j')};
    yield;                       // compute outside any lock
    {cur('a', 'i')};
    {cur('b', 'j')};
    {commit}
  }};
  ((i * 10 + j) * 10 + a) * 10 + b + r * 10000
}}
request deposit {{
  k := ?(0..{K - 1});
  done := 0;
  while (!done) {{
    {chain('k', K, lambda q: f"x := X{q}; v := V{q}", "    ")};
    yield;
    {chain('k', K, lambda q: f"c := V{q}", "    ")};
    if (c == v) {{
      if (x < {cap}) {{ {chain('k', K, lambda q: f"X{q} := x + 1; {bump(q, 'v')}", "        ")}; r := 1 }} else {{ r := 0 }};
      done := 1
    }} else {{ 0 }}
  }};
  (k * 10 + x) * 10 + r
}}
request audit {{ {audit} }}
"""


model("occ2rec.ser", "occ", 2, S,
      "two records, each with an unbounded version; move validates both (backward validation)",
      occ_multi(2, [0, 1], 2))
model("occ2rec-bug.ser", "occ", 2, N,
      "move validates only the source version: a concurrent deposit into the destination is lost; "
      "move and deposit both report the same destination value",
      occ_multi(2, [0, 1], 2, bug="forget"))
model("occ2rec-wrap2.ser", "occ", 2, N,
      "versions modulo 2: two deposits into X restore VX (ABA) while a move Y->X is computing; "
      "its validation passes and both deposits are lost. Needs 3 requests",
      occ_multi(2, [0, 1], 2, vermode="wrap"))
model("occ3rec.ser", "occ", 3, S, "three records with unbounded versions, move between any two",
      occ_multi(3, [1, 1, 1], 2))
model("occ3rec-bug.ser", "occ", 3, N,
      "destination version not validated: two moves into one destination both see the same value",
      occ_multi(3, [1, 1, 1], 2, bug="forget"))
model("occ4rec.ser", "occ", 4, S, "four records with unbounded versions",
      occ_multi(4, [1, 1, 1, 1], 2))
model("occ4rec-bug.ser", "occ", 4, N,
      "version compared but not bumped on the destination: a second move into it validates "
      "against a stale read",
      occ_multi(4, [1, 1, 1, 1], 2, bug="nobumpdst"))
model("occ8rec.ser", "occ", 8, S, "eight records with unbounded versions",
      occ_multi(8, [1] * 8, 2))
model("occ8rec-bug.ser", "occ", 8, N,
      "validation and write split by a yield (time-of-check to time-of-use)",
      occ_multi(8, [1] * 8, 2, bug="split"))

model("occ2-tablever.ser", "occ", 2, S,
      "two records under one table-wide unbounded version; every commit bumps it",
      glob([("X", 1), ("Y", 1)]) + """
// Two records X, Y and ONE version TV for the whole table.
request swap {
  fin := 0;
  while (fin == 0) {
    x := X; y := Y; t := TV;
    yield;                                // compute
    if (TV == t) { X := y; Y := x; TV := t + 1; fin := 1 } else { 0 }
  };
  x * 10 + y
}
request bumpx {
  fin := 0;
  while (fin == 0) {
    x := X; t := TV;
    yield;
    if (TV != t) { 0 }
    else if (x < 2) { X := x + 1; TV := t + 1; fin := 1 }
    else { X := 0; TV := t + 1; fin := 1 }
  };
  x
}
request read {
  fin := 0;
  while (fin == 0) {
    t := TV; x := X;
    yield;
    y := Y;
    if (TV == t) { fin := 1 } else { 0 }    // read-only validation
  };
  x * 10 + y
}
""")

# ---------------------------------------------------------------- 3. seqlock


def seqlock(K, mode="unb", bug=None):
    # mode: "unb" unbounded sequence, or an int modulus for a wrapping sequence
    inc = "S := S + 1" if mode == "unb" else f"S := (S + 1) % {mode}"
    wlock = f"while (S % 2 == 1) {{ yield }};\n  {inc};                 // odd: write in progress (also the writer lock)"
    if bug == "wnolock":
        wlock = f"{inc};                 // BUG: does not wait for an even sequence"
    wend = inc
    if bug == "bumpend":
        wlock = f"{lock('WL')};\n  yield;"
        wend = "// BUG: the sequence only moves after the write\n  S := S + 2; WL := 0"
    writes = ";\n  yield;\n  ".join(f"A{k} := val" for k in range(K))
    wr = f"""request write {{
  {wlock}
  old := A0;
  val := ?(1..2);
  yield;
  {writes};
  yield;
  {wend};
  old
}}"""
    reads = ";\n    yield;\n    ".join(f"a{k} := A{k}" for k in range(K))
    check = "S == s1 && s1 % 2 == 0"
    if bug == "noodd":
        check = "S == s1             /* */".replace("             /* */", "") + "   // BUG: odd sequence not rejected"
    pre = "s1 := S;\n    yield;"
    if bug == "noodd":
        pass
    body_reads = reads
    if bug == "early":
        # validate before the last cell is read
        head = ";\n    yield;\n    ".join(f"a{k} := A{k}" for k in range(K - 1))
        body_reads = head + f";\n    yield;\n    if ({check}) {{ done := 1 }} else {{ 0 }};   // BUG: validated before the last read\n    yield;\n    a{K - 1} := A{K - 1}"
        loop = f"""    {pre}
    {body_reads}"""
    else:
        loop = f"""    {pre}
    {body_reads};
    yield;
    if ({check}) {{ done := 1 }} else {{ 0 }}"""
    if check.endswith("not rejected"):
        loop = loop.replace(f"if ({check}) {{ done := 1 }} else {{ 0 }}",
                            "if (S == s1) { done := 1 } else { 0 }   // BUG: an odd sequence is not rejected")
    if K <= 4:
        resp = " + ".join(f"a{k} * {10 ** (K - 1 - k)}" for k in range(K))
    else:
        eq = " + ".join(f"(a{k} == a0)" for k in range(1, K))
        resp = f"a0 * 100 + {eq}"
    seqdesc = "an unbounded sequence number" if mode == "unb" else f"a sequence number modulo {mode}"
    return f"""
// Seqlock over {K} cells with {seqdesc}.  A writer makes the
// sequence odd, writes one value into every cell (yielding between cells) and
// makes it even again.  A reader reads the sequence, the cells, the sequence
// again, and retries on a change or an odd value.  The reader answers the
// cells it returned, the writer the old contents of cell 0.
{wr}
request read {{
  done := 0;
  while (!done) {{
{loop}
  }};
  {resp}
}}
"""


model("seqlock2.ser", "seqlock", 2, S,
      "textbook seqlock", seqlock(2))
model("seqlock2-mod4.ser", "seqlock", 2, N,
      "sequence mod 4 wraps after two writes: reader reads s=0, W1 completes, reads A0, W2 "
      "completes, reads A1, sees s=0 again: torn 12. Needs 3 requests", seqlock(2, 4))
model("seqlock2-mod8.ser", "seqlock", 2, N,
      "sequence mod 8: the wrap-around torn read needs 4 complete writes inside one read, "
      "i.e. 5 requests; not serializable for unboundedly many requests", seqlock(2, 8))
model("seqlock2-noodd.ser", "seqlock", 2, N,
      "reader accepts an odd sequence: reads during a write, answers a torn pair",
      seqlock(2, bug="noodd"))
model("seqlock2-wnolock.ser", "seqlock", 2, N,
      "writers do not wait for an even sequence: two writers make it even mid-write; "
      "two writers also both answer the initial old value", seqlock(2, bug="wnolock"))
model("seqlock3.ser", "seqlock", 3, S, "seqlock with 3 cells, unbounded sequence", seqlock(3))
model("seqlock3-bumpend.ser", "seqlock", 3, N,
      "writer lock is separate and the sequence is only bumped after the writes: a reader "
      "finishing during a write sees an unchanged sequence and a torn snapshot",
      seqlock(3, bug="bumpend"))
model("seqlock4.ser", "seqlock", 4, S, "seqlock with 4 cells, unbounded sequence", seqlock(4))
model("seqlock4-early.ser", "seqlock", 4, N,
      "reader validates the sequence before it reads the last cell", seqlock(4, bug="early"))
model("seqlock8.ser", "seqlock", 8, S, "seqlock with 8 cells, unbounded sequence", seqlock(8))
model("seqlock8-noodd.ser", "seqlock", 8, N, "8 cells, reader accepts an odd sequence",
      seqlock(8, bug="noodd"))

# ---------------------------------------------------------------- 4. bank


def acq(idx, K, pfx="L"):
    return chain(idx, K, lambda k: lock(f"{pfx}{k}"), "  ")


def rel(idx, K):
    return chain(idx, K, lambda k: f"L{k} := 0", "  ")


def bank(K, init, bug=None, audit="locked"):
    base = 10 if K <= 4 else 100
    if bug == "order":
        locks = f"""{acq('i', K)};                                 // source first (no global order)
  yield;
  {acq('j', K)};"""
    elif bug == "nolock":
        locks = f"""{acq('i', K)};                                 // BUG: only the source is locked
  yield;"""
    else:
        locks = f"""if (i < j) {{ lo := i; hi := j }} else {{ lo := j; hi := i }};
  {acq('lo', K)};                                 // lower-numbered lock first
  yield;
  {acq('hi', K)};"""
    if bug == "early":
        core = f"""{acq('i', K)};
  {chain('i', K, lambda k: f"bi := B{k}", "  ")};
  yield;                                       // check the balance
  if (bi > 0) {{ {chain('i', K, lambda k: f"B{k} := bi - 1", "  ")} }} else {{ 0 }};
  {rel('i', K)};                               // BUG: source released before the credit
  yield;
  if (bi > 0) {{
    {acq('j', K)};
    {chain('j', K, lambda k: f"bj := B{k}; B{k} := bj + 1", "    ")};
    {rel('j', K)}
  }} else {{ 0 }};"""
    else:
        relj = rel('j', K) if bug != "nolock" else ""
        core = f"""{locks}
  {chain('i', K, lambda k: f"bi := B{k}", "  ")};
  {chain('j', K, lambda k: f"bj := B{k}", "  ")};
  yield;                                       // compute the new balances
  if (bi > 0) {{
    {chain('i', K, lambda k: f"B{k} := bi - 1", "    ")};
    {chain('j', K, lambda k: f"B{k} := bj + 1", "    ")}
  }} else {{ 0 }};
  {relj + ";" if relj else ""}
  {rel('i', K)};"""
    if audit == "locked":
        aud = ";\n  yield;\n  ".join(lock(f"L{k}") for k in range(K))
        aud += ";\n  s := " + " + ".join(f"B{k}" for k in range(K)) + ";\n  "
        aud += "; ".join(f"L{k} := 0" for k in range(K)) + ";\n  s"
    elif audit == "nolock":
        aud = "s := 0;\n  " + ";\n  yield;\n  ".join(f"s := s + B{k}" for k in range(K)) + \
            ";                        // BUG: no locks held while summing\n  s"
    elif audit == "partial":
        aud = "s := 0;\n  " + ";\n  yield;\n  ".join(
            f"{lock(f'L{k}')}; s := s + B{k}; L{k} := 0" for k in range(K)) + \
            ";                 // BUG: each lock released before the next is taken\n  s"
    return glob([(f"B{k}", init) for k in range(K)]) + f"""
// {K} bank accounts, one lock per account.  transfer moves 1 unit from
// account i to account j (chosen by input) if i has money, and answers
// i, j and the two balances it saw; audit answers the total.
request transfer {{
  i := ?(0..{K - 1});
  j := ?(0..{K - 2});
  if (j >= i) {{ j := j + 1 }} else {{ 0 }};
  {core}
  ((i * {base} + j) * {base} + bi) * {base} + bj
}}
request audit {{
  {aud}
}}
"""


model("bank2.ser", "bank", 2, S, "ordered two-lock transfers, audit under all locks", bank(2, 2))
model("bank2-nolock.ser", "bank", 2, N,
      "destination not locked: opposite transfers each overwrite the other's credit",
      bank(2, 2, bug="nolock"))
model("bank2-early.ser", "bank", 2, N,
      "source lock released before the destination is credited: audit sees a missing unit",
      bank(2, 2, bug="early"))
model("bank2-order.ser", "bank", 2, S,
      "SURPRISE-ish: locks taken source-then-destination (no global order) can deadlock, but "
      "deadlocked requests never respond and every finished run is two-phase locked, so it is "
      "serializable (a liveness bug only)", bank(2, 2, bug="order"))
model("bank3.ser", "bank", 3, S, "three accounts, ordered locks, locked audit", bank(3, 2))
model("bank3-auditnolock.ser", "bank", 3, N,
      "audit sums without taking locks, yielding between accounts: sees 5 or 7",
      bank(3, 2, audit="nolock"))
model("bank4.ser", "bank", 4, S, "four accounts", bank(4, 1))
model("bank4-auditpartial.ser", "bank", 4, N,
      "audit locks, reads and unlocks accounts one at a time: a transfer from a later "
      "account to an earlier one is counted zero times or twice", bank(4, 1, audit="partial"))
model("bank8.ser", "bank", 8, S, "eight accounts", bank(8, 1))
model("bank8-nolock.ser", "bank", 8, N, "eight accounts, destination not locked",
      bank(8, 1, bug="nolock"))
model("bank16.ser", "bank", 16, S, "sixteen accounts", bank(16, 1))
model("bank16-early.ser", "bank", 16, N, "sixteen accounts, source lock released early",
      bank(16, 1, bug="early"))


def bankdw(K, bug=False):
    if not bug:
        wd = f"""{acq('i', K)};
  {chain('i', K, lambda k: f"b := B{k}", "  ")};
  yield;                                       // fraud check, logging ...
  if (b >= a) {{ {chain('i', K, lambda k: f"B{k} := b - a", "  ")}; r := 1 }} else {{ r := 0 }};
  {rel('i', K)};"""
    else:
        wd = f"""{acq('i', K)};
  {chain('i', K, lambda k: f"b := B{k}", "  ")};
  ok := b >= a;
  {rel('i', K)};                               // BUG: lock dropped between check and debit
  yield;                                       // fraud check, logging ...
  {acq('i', K)};
  if (ok) {{ {chain('i', K, lambda k: f"B{k} := b - a", "  ")}; r := 1 }} else {{ r := 0 }};
  {rel('i', K)};"""
    return glob([(f"B{k}", 1) for k in range(K)]) + f"""
// {K} accounts with a lock each; withdrawals refuse an overdraft, deposits
// refuse to go above 3.  Every request answers the balance it saw.
request withdraw {{
  i := ?(0..{K - 1});
  a := ?(1..2);
  {wd}
  ((i * 10 + a) * 10 + b) * 10 + r
}}
request deposit {{
  i := ?(0..{K - 1});
  {acq('i', K)};
  {chain('i', K, lambda k: f"b := B{k}", "  ")};
  yield;
  if (b < 3) {{ {chain('i', K, lambda k: f"B{k} := b + 1", "  ")}; r := 1 }} else {{ r := 0 }};
  {rel('i', K)};
  (i * 10 + b) * 10 + r
}}
request balance {{
  i := ?(0..{K - 1});
  {acq('i', K)};
  {chain('i', K, lambda k: f"b := B{k}", "  ")};
  {rel('i', K)};
  i * 10 + b
}}
"""


model("bankdw2.ser", "bank", 2, S, "deposit/withdraw with overdraft check under the account lock",
      bankdw(2))
model("bankdw2-bug.ser", "bank", 2, N,
      "overdraft check and debit under two separate lock sections: two withdrawals both "
      "granted from balance 1 (the second writes the stale balance back)", bankdw(2, True))
model("bankdw4.ser", "bank", 4, S, "four accounts, deposit/withdraw", bankdw(4))
model("bankdw4-bug.ser", "bank", 4, N, "four accounts, check and debit in separate lock sections",
      bankdw(4, True))

# ---------------------------------------------------------------- 5. DCL


def dcl1(bug=None, inval=False):
    fast = "if (Ready == 1) { o := Obj }"
    if bug == "inval":
        fast = "if (Ready == 1) { yield; o := Obj }     // BUG: flag and object read in two steps"
    lk = lock("L")
    inner_check = "if (Ready == 1) { o := Obj } else {"
    close = "}"
    if bug == "nocheck":
        inner_check = "// BUG: no second check under the lock\n    o := 0;"
        close = ""
    publish = "Obj := o;\n        yield;\n        Ready := 1"
    if bug == "early":
        publish = "Ready := 1;                        // BUG: published before the object is stored\n        yield;\n        Obj := o"
    if bug == "nolock":
        lk = "// BUG: no lock at all\n    0"
    rl = "L := 0" if bug != "nolock" else "0"
    reset = ""
    if inval or bug == "inval":
        reset = f"""request reset {{
  {lock('L')};
  old := Obj; Obj := 0; Ready := 0;
  L := 0;
  old
}}
"""
    return f"""
// Lazily initialised singleton with double-checked locking.  Building the
// object takes time (yields) and yields one of three identities; get answers
// the identity it was handed.
request get {{
  o := 0;
  {fast}
  else {{
    yield;
    {lk};
    {inner_check}
        yield;                             // construct
        o := ?(1..3);
        {publish}
    {close};
    {rl}
  }};
  o
}}
{reset}"""


model("dcl1.ser", "dcl", 1, S, "double-checked locking, object stored before the flag", dcl1())
model("dcl1-nocheck.ser", "dcl", 1, N,
      "no re-check under the lock: two gets build two objects and answer different identities",
      dcl1("nocheck"))
model("dcl1-early.ser", "dcl", 1, N, "flag published before the object: a fast-path get answers 0",
      dcl1("early"))
model("dcl1-nolock.ser", "dcl", 1, N, "check then build with no lock at all", dcl1("nolock"))
model("dcl1-inval.ser", "dcl", 1, S,
      "DCL plus a reset (invalidate) under the lock; fast path reads flag and object atomically",
      dcl1(inval=True))
model("dcl1-inval-bug.ser", "dcl", 1, N,
      "fast path reads the flag, yields, then the object: a reset in between makes get answer 0",
      dcl1("inval"))


def dclk(K, perkey_lock, bugk=None):
    def lk(k):
        return lock(f"L{k}") if perkey_lock else lock("L")

    def unl(k):
        return f"L{k} := 0" if perkey_lock else "L := 0"

    def slow(k):
        if bugk == k:
            inner = f"// BUG: no re-check for this key\n      yield; o := ?(1..2); O{k} := o; yield; R{k} := 1"
        else:
            inner = f"if (R{k} == 1) {{ o := O{k} }} else {{ yield; o := ?(1..2); O{k} := o; yield; R{k} := 1 }}"
        return f"{lk(k)}; {inner}; {unl(k)}"

    return f"""
// {K} independent lazily initialised entries (a per-key cache), double-checked
// locking with {'one lock per key' if perkey_lock else 'one lock for the whole table'}.
// get(k) answers the key and the identity of the entry it obtained.
request get {{
  k := ?(0..{K - 1});
  o := 0;
  {chain('k', K, lambda q: f"if (R{q} == 1) {{ o := O{q} }} else {{ 0 }}", "  ")};
  if (o == 0) {{
    yield;
    {chain('k', K, slow, "    ")}
  }} else {{ 0 }};
  k * 10 + o
}}
"""


model("dcl2.ser", "dcl", 2, S, "two keys, one global lock", dclk(2, False))
model("dcl2-bug.ser", "dcl", 2, N, "two keys, key 1 misses the re-check", dclk(2, False, bugk=1))
model("dcl4.ser", "dcl", 4, S, "four keys, lock per key", dclk(4, True))
model("dcl4-bug.ser", "dcl", 4, N, "four keys, key 2 misses the re-check", dclk(4, True, bugk=2))
model("dcl8.ser", "dcl", 8, S, "eight keys, lock per key", dclk(8, True))
model("dcl8-bug.ser", "dcl", 8, N, "eight keys, key 7 misses the re-check", dclk(8, True, bugk=7))
model("dcl16.ser", "dcl", 16, S, "sixteen keys, one global lock", dclk(16, False))
model("dcl16-bug.ser", "dcl", 16, N, "sixteen keys under one lock, key 9 misses the re-check",
      dclk(16, False, bugk=9))

# ---------------------------------------------------------------- 6. refcount


def rc_close(bug=None):
    take = "Rc := Rc + 1;"
    if bug == "split":
        take = "yield;                           // BUG: closed-check and reference-take split\n    Rc := Rc + 1;"
    if bug == "lostinc":
        take = "c := Rc;\n    yield;                           // BUG: non-atomic increment\n    Rc := c + 1;"
    wait = "// wait for the last user\n    while (Rc > 0) { yield }"
    if bug == "nowait":
        wait = "// BUG: frees without waiting for users\n    0"
    return glob([("St", 1)]) + f"""
// An object shared by reference count.  use takes a reference unless the
// object is being closed, uses it, and drops the reference; it answers 1 if
// the object stayed alive, 2 if it saw freed memory, 0 if it was closed.
// close marks the object closed, waits for the users and frees it; reopen
// allocates it again once it is fully freed.
request use {{
  while (Rc == 2) {{ yield }};        // at most two users at a time
  if (Closed == 1) {{ r := 0 }} else {{
    {take}
    yield;                             // use the object
    if (St == 1) {{ r := 1 }} else {{ r := 2 }};
    yield;
    Rc := Rc - 1
  }};
  r
}}
request close {{
  if (Closed == 1) {{ c := 0 }} else {{
    Closed := 1;
    {wait};
    St := 0;
    c := 1
  }};
  c
}}
request reopen {{
  if (Closed == 1 && St == 0) {{ Closed := 0; St := 1; 1 }} else {{ 0 }}
}}
"""


model("rc1.ser", "refcount", 1, S, "close waits for the reference count to drop to zero", rc_close())
model("rc1-nowait.ser", "refcount", 1, N, "close frees immediately: a user sees freed memory",
      rc_close("nowait"))
model("rc1-split.ser", "refcount", 1, N,
      "closed-check and increment split: close sees count 0, frees, then the user takes a reference",
      rc_close("split"))
model("rc1-lostinc.ser", "refcount", 1, N,
      "increment is read/yield/write: close can run between the read and the write (count still 0) "
      "and free the object under the user; also two users can count as one",
      rc_close("lostinc"))


def rc_get(K, bugk=None, putsplit=False):
    def take(k):
        if bugk == k:
            return (f"// BUG: inc-not-zero is not atomic (test, yield, increment)\n    "
                    f"while (Rc{k} == 2) {{ yield }}; if (Rc{k} > 0) {{ yield; Rc{k} := Rc{k} + 1 }} "
                    f"else {{ St{k} := 1; Rc{k} := 1 }}")
        return (f"while (Rc{k} == 2) {{ yield }}; if (Rc{k} == 0) {{ St{k} := 1 }} else {{ 0 }}; "
                f"Rc{k} := Rc{k} + 1")

    def use(k):
        return f"if (St{k} == 1) {{ ok := 1 }} else {{ ok := 0 }}"

    def put(k):
        if putsplit:
            return f"Rc{k} := Rc{k} - 1; yield; if (Rc{k} == 0) {{ St{k} := 0 }} else {{ 0 }}"
        return f"Rc{k} := Rc{k} - 1; if (Rc{k} == 0) {{ St{k} := 0 }} else {{ 0 }}"

    return f"""
// {K} cached objects, each allocated on first reference and freed when its
// reference count drops to zero (at most two references each).  A request
// gets a reference to object k, uses it, and puts it; it answers whether the
// object was alive while used.
request work {{
  k := ?(0..{K - 1});
  {chain('k', K, take, "  ")};
  yield;                                  // use
  {chain('k', K, use, "  ")};
  yield;
  {chain('k', K, put, "  ")};
  k * 10 + ok
}}
"""


model("rcget1.ser", "refcount", 1, S, "get/put with allocate on 0->1 and free on 1->0", rc_get(1))
model("rcget1-bug.ser", "refcount", 1, N,
      "inc-not-zero split: sees count 1, the holder puts and frees, then the increment revives a freed object",
      rc_get(1, bugk=0))
model("rcget1-putsplit.ser", "refcount", 1, S,
      "looks racy: decrement and the zero test are in separate steps; but a holder always "
      "counts, so the test can only see 0 when no one holds the object; at worst a double "
      "free of a freed object", rc_get(1, putsplit=True))
model("rcget2.ser", "refcount", 2, S, "two objects", rc_get(2))
model("rcget3.ser", "refcount", 3, S, "three objects", rc_get(3))
model("rcget3-bug.ser", "refcount", 3, N, "three objects, object 1 has the split inc-not-zero",
      rc_get(3, bugk=1))
model("rcget4.ser", "refcount", 4, S, "four objects", rc_get(4))
model("rcget4-bug.ser", "refcount", 4, N, "four objects, object 3 has the split inc-not-zero",
      rc_get(4, bugk=3))

# ---------------------------------------------------------------- 7. pools


def pick_first(K):
    """take the first free slot; the counter guarantees one exists, so the
    last slot is taken without looking"""
    if K == 1:
        return "B0 := 1; s := 0"
    pick = []
    for k in range(K):
        if k < K - 1:
            pick.append(f"{'if' if k == 0 else 'else if'} (B{k} == 0) {{ B{k} := 1; s := {k} }}")
        else:
            pick.append(f"else {{ B{k} := 1; s := {k} }}")
    return "\n  ".join(pick)


def pool_counter(K, bug=False):
    take = f"while (Free == 0) {{ yield }};\n  Free := Free - 1;"
    if bug:
        take = f"while (Free == 0) {{ yield }};\n  yield;                                // BUG: test and take split\n  Free := Free - 1;"
    # pick the first free slot; the counter guarantees one exists, so the
    # last slot is taken without looking
    pick = pick_first(K)
    return glob([("Free", K)]) + f"""
// A pool of {K} connections: a counter of free connections plus a busy flag per
// slot.  A request waits for a free connection, takes the first free slot,
// uses it (U counts the users of a slot) and gives it back.  It answers how
// many users it saw on its connection (1 unless a connection is shared).
request work {{
  {take}
  {pick};
  yield;
  {chain('s', K, lambda k: f"U{k} := U{k} + 1", "  ")};
  yield;                                // talk to the database
  {chain('s', K, lambda k: f"u := U{k}; U{k} := U{k} - 1", "  ")};
  yield;
  {chain('s', K, lambda k: f"B{k} := 0", "  ")};
  Free := Free + 1;
  u
}}
"""


model("pool2.ser", "pool", 2, S, "counter + flags pool of 2", pool_counter(2))
model("pool2-split.ser", "pool", 2, N,
      "free-count test and decrement split: three requests get in, two share slot 1. Needs 3 requests",
      pool_counter(2, True))
model("pool4.ser", "pool", 4, S, "counter + flags pool of 4", pool_counter(4))
model("pool4-split.ser", "pool", 4, N,
      "pool of 4 with the split test: needs 5 requests to share a slot (4 legitimate holders + 1)",
      pool_counter(4, True))


def pool_scan(K, bug=False):
    def tryk(k):
        if bug:
            return f"if (B{k} == 0) {{ yield; B{k} := 1; s := {k} }} else {{ 0 }}"
        return f"if (B{k} == 0) {{ B{k} := 1; s := {k} }} else {{ 0 }}"

    return f"""
// A pool of {K} connection slots, each with a busy flag and no counter.
// acquire scans the slots one per step (test-and-set on each) until it gets
// one, uses it and releases it.  Answers how many users it saw on its slot.
request work {{
  s := -1;
  n := 0;
  while (s < 0) {{
    {chain('n', K, tryk, "    ")};
    n := (n + 1) % {K};
    yield
  }};
  {chain('s', K, lambda k: f"U{k} := U{k} + 1", "  ")};
  yield;                                // use
  {chain('s', K, lambda k: f"u := U{k}; U{k} := U{k} - 1", "  ")};
  yield;
  {chain('s', K, lambda k: f"B{k} := 0", "  ")};
  u
}}
"""


model("poolflags3.ser", "pool", 3, S, "flag-per-slot pool, scanning test-and-set", pool_scan(3))
model("poolflags3-bug.ser", "pool", 3, N, "test and set of a slot flag split by a yield",
      pool_scan(3, True))
model("poolflags8.ser", "pool", 8, S, "flag-per-slot pool of 8", pool_scan(8))
model("poolflags8-bug.ser", "pool", 8, N, "pool of 8, test and set split", pool_scan(8, True))


def pool_sep(K, bug=False):
    def tk(k):
        if bug:
            return f"if (B{k} == 0) {{ yield; B{k} := 1; s := {k} }}"
        return f"if (B{k} == 0) {{ B{k} := 1; s := {k} }}"
    scan = "\n      ".join((("if" if k == 0 else "else if") + tk(k)[2:]) for k in range(K))
    return f"""
// A pool of {K} connections handed out by acquire (answers the slot number)
// and given back by release (input slot; answers 1 if it was in use).
request acquire {{
  s := -1;
  while (s < 0) {{
      {scan}
      else {{ yield }}                     // none free: wait
  }};
  s
}}
request release {{
  i := ?(0..{K - 1});
  {chain('i', K, lambda k: f"if (B{k} == 1) {{ B{k} := 0; r := 1 }} else {{ r := 0 }}", "  ")};
  i * 10 + r
}}
"""


model("poolsep2.ser", "pool", 2, S, "acquire/release as separate requests, atomic scan", pool_sep(2))
model("poolsep2-bug.ser", "pool", 2, N,
      "acquire sees slot 0 free, yields (logging), then takes it: two acquires both answer 0",
      pool_sep(2, True))
model("poolsep4.ser", "pool", 4, S, "acquire/release as separate requests, 4 slots", pool_sep(4))


def pool_cv(K, bug=False):
    loop = "while" if not bug else "if"
    els = "" if not bug else " else { 0 }"
    cmt = "// condition-variable wait: re-test after waking" if not bug else \
          "// BUG: 'if' instead of 'while': no re-test after waking"
    pick = pick_first(K)
    return glob([("Free", K)]) + f"""
// A pool of {K} connections behind a monitor (mutex M).  With no free
// connection a request releases the monitor, sleeps, and re-acquires it.
// Answers how many users it saw on its connection.
request work {{
  {lock('M')};
  {cmt}
  {loop} (Free == 0) {{ M := 0; yield; {lock('M')} }}{els};
  Free := Free - 1;
  {pick};
  M := 0;
  yield;
  {chain('s', K, lambda k: f"U{k} := U{k} + 1", "  ")};
  yield;                                // use
  {chain('s', K, lambda k: f"u := U{k}; U{k} := U{k} - 1", "  ")};
  {lock('M')};
  {chain('s', K, lambda k: f"B{k} := 0", "  ")};
  Free := Free + 1;
  M := 0;
  u
}}
"""


model("poolcv1.ser", "pool", 1, S, "monitor-protected pool of 1, while-loop wait", pool_cv(1))
model("poolcv1-if.ser", "pool", 1, N,
      "if instead of while around the wait: after waking, a newcomer has taken the only "
      "connection; both use it. Needs 3 requests", pool_cv(1, True))
model("poolcv2.ser", "pool", 2, S, "monitor-protected pool of 2", pool_cv(2))
model("poolcv2-if.ser", "pool", 2, N,
      "if-wait with 2 connections: needs 4 requests (2 holders, a sleeper, a newcomer)",
      pool_cv(2, True))


def main():
    exp_path = os.path.join(HERE, "expected.json")
    old = {}
    if os.path.exists(exp_path):
        with open(exp_path) as f:
            old = json.load(f)
    out = {}
    for name, (text, meta) in sorted(MODELS.items()):
        with open(os.path.join(HERE, name), "w") as f:
            f.write(text)
        meta = dict(meta)
        meta["checked"] = old.get(name, {}).get("checked", "not yet checked")
        out[name] = meta
    with open(exp_path, "w") as f:
        json.dump(out, f, indent=2, sort_keys=True)
        f.write("\n")
    print(len(out), "models")


if __name__ == "__main__":
    main()
