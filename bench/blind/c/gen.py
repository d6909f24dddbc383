#!/usr/bin/env python3
"""Writes the models of blind corpus C (one file per family, variant and size).

Each model is one text with a `const K := ...;` line; the files of one variant differ
only in that line (the same file works at any size with -D K=...).  Run from anywhere:
python bench/blind/c/gen.py.  expected.json is written separately (make_expected.py).
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = {}   # variant -> (text with @K@, sizes, family, note)


def model(name, sizes, family, note, text):
    MODELS[name] = (text.strip() + "\n", sizes, family, note)


# ----------------------------------------------------------------------------- bank
BANK_TRANSFER = r"""
request transfer {
  from := ?(0..K-1);
  to := ?(0..K-2);
  if (to >= from) { to := to + 1 } else { 0 };
  amt := ?(1..2);
  // take the two locks in index order so two transfers cannot deadlock
  first := from; second := to;
  if (second < first) { first := to; second := from } else { 0 };
  while (Lock[first] == 1) { yield }; Lock[first] := 1; yield;
  while (Lock[second] == 1) { yield }; Lock[second] := 1; yield;
  ok := 0;
  if (Bal[from] >= amt) {
    Bal[from] := Bal[from] - amt;
    yield;
    Bal[to] := Bal[to] + amt;
    ok := 1
  } else { 0 };
  yield;
  Lock[second] := 0; Lock[first] := 0;
  ((from * 10 + to) * 10 + amt) * 10 + ok   // receipt: from, to, amount, granted
}
"""
BANK_AUDIT = r"""
request audit {
  for (k in 0..K-1) { while (Lock[k] == 1) { yield }; Lock[k] := 1; yield };
  total := 0;
  for (k in 0..K-1) { total := total + Bal[k] };
  for (k in 0..K-1) { Lock[k] := 0 };
  total
}
"""
HEAD = "const K := @K@;\n"
model("bank", [2, 3, 4, 8], "bank",
      "K accounts with a lock each; transfer of 1-2 units between two accounts chosen by input, locks in index order; audit locks every account then sums",
      HEAD + "global Bal[K] := 2, Lock[K];\n\n// K accounts, two units each, one lock per account.\n" + BANK_TRANSFER + BANK_AUDIT)
model("bank-auditnolock", [2, 4], "bank",
      "BUG: the audit sums the balances one account per step without taking the locks; it can count a unit in flight twice or not at all",
      HEAD + "global Bal[K] := 2, Lock[K];\n\n// the audit reads without locks (\"it only reads\")\n" + BANK_TRANSFER + r"""
request audit {
  total := 0;
  for (k in 0..K-1) { total := total + Bal[k]; yield };
  total
}
""")
model("bank-precheck", [2], "bank",
      "BUG: transfer checks the balance before taking the locks and then debits unconditionally; two transfers from one account both succeed (overdraft)",
      HEAD + "global Bal[K] := 2, Lock[K];\n" + r"""
// the funds check is done up front, before locking
request transfer {
  from := ?(0..K-1);
  to := ?(0..K-2);
  if (to >= from) { to := to + 1 } else { 0 };
  amt := ?(1..2);
  if (Bal[from] < amt) { ((from * 10 + to) * 10 + amt) * 10 } else {
    yield;
    first := from; second := to;
    if (second < first) { first := to; second := from } else { 0 };
    while (Lock[first] == 1) { yield }; Lock[first] := 1; yield;
    while (Lock[second] == 1) { yield }; Lock[second] := 1; yield;
    Bal[from] := Bal[from] - amt;
    Bal[to] := Bal[to] + amt;
    Lock[second] := 0; Lock[first] := 0;
    ((from * 10 + to) * 10 + amt) * 10 + 1
  }
}
""" + BANK_AUDIT)

# ----------------------------------------------------------------------------- bank ring, family
RING_AUDIT = BANK_AUDIT.replace("Lock", "L").replace("Bal", "A")
model("bankring", [3, 4], "bank-family",
      "family pay[j] moves one unit from account j to account (j+1)%K, locking the lower index first; audit locks all and sums",
      HEAD + "global A[K] := 1, L[K];\n" + r"""
request pay[j in 0..K-1] {
  n := (j + 1) % K;
  lo := j; hi := n;
  if (n < j) { lo := n; hi := j } else { 0 };
  while (L[lo] == 1) { yield }; L[lo] := 1; yield;
  while (L[hi] == 1) { yield }; L[hi] := 1; yield;
  moved := 0;
  if (A[j] > 0) { A[j] := A[j] - 1; yield; A[n] := A[n] + 1; moved := 1 } else { 0 };
  L[hi] := 0; L[lo] := 0;
  moved
}
""" + RING_AUDIT)
model("bankring-abba", [3], "bank-family",
      "pay[j] locks its own account first, then the next one (no global order): can deadlock (pay[0..K-1] in a cycle), but every finished execution is serializable",
      HEAD + "global A[K] := 1, L[K];\n" + r"""
// each payment locks the source first, then the destination
request pay[j in 0..K-1] {
  n := (j + 1) % K;
  while (L[j] == 1) { yield }; L[j] := 1; yield;
  while (L[n] == 1) { yield }; L[n] := 1; yield;
  moved := 0;
  if (A[j] > 0) { A[j] := A[j] - 1; yield; A[n] := A[n] + 1; moved := 1 } else { 0 };
  L[n] := 0; L[j] := 0;
  moved
}
""" + RING_AUDIT)
model("bankring-auditrelease", [3], "bank-family",
      "BUG: the audit unlocks each account right after reading it (not two-phase); a payment between two reads is counted twice",
      HEAD + "global A[K] := 1, L[K];\n" + r"""
request pay[j in 0..K-1] {
  n := (j + 1) % K;
  lo := j; hi := n;
  if (n < j) { lo := n; hi := j } else { 0 };
  while (L[lo] == 1) { yield }; L[lo] := 1; yield;
  while (L[hi] == 1) { yield }; L[hi] := 1; yield;
  moved := 0;
  if (A[j] > 0) { A[j] := A[j] - 1; yield; A[n] := A[n] + 1; moved := 1 } else { 0 };
  L[hi] := 0; L[lo] := 0;
  moved
}
request audit {
  total := 0;
  for (k in 0..K-1) {
    while (L[k] == 1) { yield }; L[k] := 1;
    total := total + A[k];
    L[k] := 0;
    yield
  };
  total
}
""")

# ----------------------------------------------------------------------------- cas
CAS_READ = r"""
request read {
  c := ?(0..K-1);
  c * 10 + Cnt[c]
}
"""
model("cas", [2, 3, 4, 8], "cas",
      "family incr[c]: compare-and-swap retry loop on counter c (mod 3), answers the value it replaced; read answers a counter",
      HEAD + "global Cnt[K];\n\n// per-cell counters modulo 3, incremented by a CAS loop\n" + r"""
request incr[c in 0..K-1] {
  done := 0;
  while (done == 0) {
    old := Cnt[c];
    yield;
    if (Cnt[c] == old) { Cnt[c] := (old + 1) % 3; done := 1 } else { yield }
  };
  old
}
""" + CAS_READ)
model("cas-split", [2], "cas",
      "BUG: the 'CAS' compares, yields, then writes: two increments pass the compare and one is lost",
      HEAD + "global Cnt[K];\n" + r"""
request incr[c in 0..K-1] {
  done := 0;
  while (done == 0) {
    old := Cnt[c];
    yield;
    if (Cnt[c] == old) { yield; Cnt[c] := (old + 1) % 3; done := 1 } else { yield }
  };
  old
}
""" + CAS_READ)

# ----------------------------------------------------------------------------- occ
OCC_GET = r"""
request get {
  r := ?(0..K-1);
  r * 10 + Val[r]
}
"""
model("occ", [2, 3, 4], "occ",
      "optimistic update of a record chosen by input: read version and value, yield, commit if the version is unchanged (bump it), else retry; versions grow without bound",
      HEAD + "global Val[K], Ver[K];\n" + r"""
request update {
  r := ?(0..K-1);
  done := 0;
  while (done == 0) {
    v := Ver[r];
    x := Val[r];
    yield;                                  // compute the new value
    if (Ver[r] == v) {
      Val[r] := (x + 1) % 3;
      Ver[r] := v + 1;
      done := 1
    } else { yield }
  };
  r * 10 + x
}
""" + OCC_GET)
model("occ-valcheck", [2], "occ",
      "validates the value itself instead of a version (a CAS on the value): still serializable, the commit is atomic with the check",
      HEAD + "global Val[K];\n" + r"""
request update {
  r := ?(0..K-1);
  done := 0;
  while (done == 0) {
    x := Val[r];
    yield;
    if (Val[r] == x) { Val[r] := (x + 1) % 3; done := 1 } else { yield }
  };
  r * 10 + x
}
""" + OCC_GET)
model("occ-verwrap", [2], "occ",
      "BUG: a one-bit version (Ver := 1 - v): two commits in between restore it and a stale read commits (ABA), losing an update",
      HEAD + "global Val[K], Ver[K];\n" + r"""
request update {
  r := ?(0..K-1);
  done := 0;
  while (done == 0) {
    v := Ver[r];
    x := Val[r];
    yield;
    if (Ver[r] == v) {
      Val[r] := (x + 1) % 4;
      Ver[r] := 1 - v;
      done := 1
    } else { yield }
  };
  r * 10 + x
}
""" + OCC_GET)
model("occ-split", [2], "occ",
      "BUG: validation and commit in different steps; two updaters validate the same version and one update is lost",
      HEAD + "global Val[K], Ver[K];\n" + r"""
request update {
  r := ?(0..K-1);
  done := 0;
  while (done == 0) {
    v := Ver[r];
    x := Val[r];
    yield;
    if (Ver[r] == v) {
      yield;
      Val[r] := (x + 1) % 3;
      Ver[r] := v + 1;
      done := 1
    } else { yield }
  };
  r * 10 + x
}
""" + OCC_GET)

# ----------------------------------------------------------------------------- dcl
model("dcl", [2, 3, 4, 8], "dcl",
      "family get[k]: double-checked lazy init per key; construction picks an object id 1 or 2 under the key's lock, published by Ready[k] after Obj[k]",
      HEAD + "global Ready[K], Obj[K], Lock[K];\n" + r"""
request get[k in 0..K-1] {
  if (Ready[k] == 0) {
    while (Lock[k] == 1) { yield }; Lock[k] := 1;
    yield;
    if (Ready[k] == 0) {
      Obj[k] := ?(1..2);                    // construct: which object we get is not ours to choose
      yield;
      Ready[k] := 1
    } else { 0 };
    Lock[k] := 0
  } else { 0 };
  Obj[k]
}
""")
model("dcl-nocheck", [2], "dcl",
      "BUG: no second check under the lock: two gets both construct and answer different objects",
      HEAD + "global Ready[K], Obj[K], Lock[K];\n" + r"""
request get[k in 0..K-1] {
  if (Ready[k] == 0) {
    while (Lock[k] == 1) { yield }; Lock[k] := 1;
    yield;
    Obj[k] := ?(1..2);
    yield;
    Ready[k] := 1;
    Lock[k] := 0
  } else { 0 };
  Obj[k]
}
""")
model("dcl-publish", [2], "dcl",
      "BUG: Ready[k] is set before the object is stored; a fast-path get answers 0",
      HEAD + "global Ready[K], Obj[K], Lock[K];\n" + r"""
request get[k in 0..K-1] {
  if (Ready[k] == 0) {
    while (Lock[k] == 1) { yield }; Lock[k] := 1;
    yield;
    if (Ready[k] == 0) {
      Ready[k] := 1;
      yield;
      Obj[k] := ?(1..2)
    } else { 0 };
    Lock[k] := 0
  } else { 0 };
  Obj[k]
}
""")

# ----------------------------------------------------------------------------- refcount
RC_DROP = r"""
request drop {                              // the owner gives up its reference (once per object)
  o := ?(0..K-1);
  if (Dropped[o] == 0) {
    Dropped[o] := 1;
    Rc[o] := Rc[o] - 1;
    if (Rc[o] == 0) { Data[o] := 0 } else { 0 };   // last reference: free
    1
  } else { 0 }
}
"""
model("refcount", [2, 3, 4], "refcount",
      "objects with a reference count (owner holds 1); use takes a reference only if the count is non-zero (atomically), reads, releases, frees at zero; drop releases the owner's reference",
      HEAD + "global Rc[K] := 1, Data[K] := 7, Dropped[K];\n" + r"""
request use {
  o := ?(0..K-1);
  got := 0;
  if (Rc[o] > 0) { Rc[o] := Rc[o] + 1; got := 1 } else { 0 };
  if (got) {
    yield;
    v := Data[o];
    yield;
    Rc[o] := Rc[o] - 1;
    if (Rc[o] == 0) { Data[o] := 0 } else { 0 };
    o * 10 + v
  } else { o * 10 + 9 }                     // 9: the object is gone
}
""" + RC_DROP)
model("refcount-retainsplit", [2], "refcount",
      "BUG: use tests the count, yields, then increments: the object can be freed in between and use reads freed data",
      HEAD + "global Rc[K] := 1, Data[K] := 7, Dropped[K];\n" + r"""
request use {
  o := ?(0..K-1);
  if (Rc[o] > 0) {
    yield;
    Rc[o] := Rc[o] + 1;
    yield;
    v := Data[o];
    yield;
    Rc[o] := Rc[o] - 1;
    if (Rc[o] == 0) { Data[o] := 0 } else { 0 };
    o * 10 + v
  } else { o * 10 + 9 }
}
""" + RC_DROP)
model("refcount-decsplit", [2], "refcount",
      "BUG: release reads the count, yields, writes it minus one: two releases lose a decrement, the object is never freed and a later use still finds it",
      HEAD + "global Rc[K] := 1, Data[K] := 7, Dropped[K];\n" + r"""
request use {
  o := ?(0..K-1);
  got := 0;
  if (Rc[o] > 0) { Rc[o] := Rc[o] + 1; got := 1 } else { 0 };
  if (got) {
    yield;
    v := Data[o];
    n := Rc[o];
    yield;
    Rc[o] := n - 1;
    if (n - 1 == 0) { Data[o] := 0 } else { 0 };
    o * 10 + v
  } else { o * 10 + 9 }
}
""" + RC_DROP)

# ----------------------------------------------------------------------------- ring buffer
RING_GET = r"""
request get {
  while (M == 1) { yield }; M := 1;
  yield;
  r := -1;                                  // -1: empty
  if (Count > 0) {
    r := Buf[Head];
    Buf[Head] := 0;
    Head := (Head + 1) % K;
    Count := Count - 1
  } else { 0 };
  M := 0;
  r
}
"""
model("ring", [2, 3, 4], "ring",
      "bounded ring buffer of K slots (head, tail, count) under one mutex with yields inside; put answers 1 or 0 when full, get answers the value or -1 when empty",
      HEAD + "global Buf[K], Head, Tail, Count, M;\n" + r"""
request put {
  v := ?(1..2);
  while (M == 1) { yield }; M := 1;
  yield;
  ok := 0;
  if (Count < K) {
    Buf[Tail] := v;
    yield;
    Tail := (Tail + 1) % K;
    Count := Count + 1;
    ok := 1
  } else { 0 };
  M := 0;
  ok
}
""" + RING_GET)
model("ring-publish", [2], "ring",
      "BUG: put reserves the slot and bumps the count under the mutex, but writes the value after unlocking; a get reads the empty slot (answers 0)",
      HEAD + "global Buf[K], Head, Tail, Count, M;\n" + r"""
request put {
  v := ?(1..2);
  while (M == 1) { yield }; M := 1;
  yield;
  ok := 0;
  t := -1;
  if (Count < K) {
    t := Tail;
    Tail := (Tail + 1) % K;
    Count := Count + 1;
    ok := 1
  } else { 0 };
  M := 0;
  yield;                                    // copy the payload outside the lock
  if (ok) { Buf[t] := v } else { 0 };
  ok
}
""" + RING_GET)
model("ring-getnolock", [2], "ring",
      "BUG: get skips the mutex (\"only one consumer\"): it reads the head slot, yields, then advances; two gets answer the same item",
      HEAD + "global Buf[K], Head, Tail, Count, M;\n" + r"""
request put {
  v := ?(1..2);
  while (M == 1) { yield }; M := 1;
  yield;
  ok := 0;
  if (Count < K) {
    Buf[Tail] := v;
    Tail := (Tail + 1) % K;
    Count := Count + 1;
    ok := 1
  } else { 0 };
  M := 0;
  ok
}
request get {
  r := -1;
  if (Count > 0) {
    r := Buf[Head];
    yield;
    Buf[Head] := 0;
    Head := (Head + 1) % K;
    Count := Count - 1
  } else { 0 };
  r
}
""")

# ----------------------------------------------------------------------------- rw lock
RW_WRITE = r"""
request write {
  v := ?(1..2);
  while (Writer == 1 || Readers > 0) { yield }; Writer := 1;
  for (k in 0..K-1) { yield; D[k] := v };
  Writer := 0;
  v
}
"""
RW_READ = r"""
request read {
  while (Writer == 1) { yield }; Readers := Readers + 1;
  first := D[0]; torn := 0;
  for (k in 1..K-1) { yield; if (D[k] != first) { torn := 1 } else { 0 } };
  Readers := Readers - 1;
  torn * 10 + first                         // 1x: a torn read
}
"""
model("rwlock", [2, 3, 4, 8], "rwlock",
      "readers-writer lock (reader count, writer flag) over K cells; write stores one value into every cell with yields between, read checks every cell and answers whether it saw a torn state",
      HEAD + "global D[K], Readers, Writer;\n" + RW_WRITE + RW_READ)
model("rwlock-noreaders", [2], "rwlock",
      "BUG: the writer only waits for other writers, not for readers in progress; a reader sees a torn state",
      HEAD + "global D[K], Readers, Writer;\n" + RW_WRITE.replace("Writer == 1 || Readers > 0", "Writer == 1") + RW_READ)
model("rwlock-readsplit", [2], "rwlock",
      "BUG: the reader tests the writer flag, yields, then registers; a writer starts in between",
      HEAD + "global D[K], Readers, Writer;\n" + RW_WRITE + RW_READ.replace(
          "while (Writer == 1) { yield }; Readers", "while (Writer == 1) { yield }; yield; Readers"))

# ----------------------------------------------------------------------------- ticket lock
TICKET = r"""
request work {
  c := ?(0..K-1);
  while (Out == K) { yield }; Out := Out + 1;       // at most K tickets outstanding
  t := Next; Next := (Next + 1) % K;                // take a ticket
  while (Serving != t) { yield };
  x := C[c];
  yield;
  C[c] := (x + 1) % 3;
  Serving := (Serving + 1) % K;                     // next please
  Out := Out - 1;
  c * 10 + x
}
"""
model("ticket", [2, 3, 4], "ticket",
      "ticket lock (tickets mod K, at most K outstanding) protecting K counters; work increments the counter chosen by input and answers the old value",
      HEAD + "global Next, Serving, Out, C[K];\n" + TICKET)
model("ticket-takesplit", [2], "ticket",
      "BUG: taking a ticket reads Next, yields, then writes it: two requests get the same ticket and both enter",
      HEAD + "global Next, Serving, Out, C[K];\n" + TICKET.replace(
          "t := Next; Next := (Next + 1) % K;", "t := Next; yield; Next := (t + 1) % K;"))
model("ticket-nobound", [2], "ticket",
      "BUG: no bound on outstanding tickets, and tickets wrap modulo K: the (K+1)-th ticket equals the first and two requests are served together",
      HEAD + "global Next, Serving, C[K];\n" + r"""
request work {
  c := ?(0..K-1);
  t := Next; Next := (Next + 1) % K;
  while (Serving != t) { yield };
  x := C[c];
  yield;
  C[c] := (x + 1) % 3;
  Serving := (Serving + 1) % K;
  c * 10 + x
}
""")
model("ticket-handoff", [3], "ticket",
      "BUG: the holder advances Serving before it writes the counter back",
      HEAD + "global Next, Serving, Out, C[K];\n" + TICKET.replace(
          "  C[c] := (x + 1) % 3;\n  Serving := (Serving + 1) % K;                     // next please\n",
          "  Serving := (Serving + 1) % K;                     // next please\n  yield;\n  C[c] := (x + 1) % 3;\n"))

# ----------------------------------------------------------------------------- lock coupling
COUPLING_SCAN = r"""
request scan {
  while (L[0] == 1) { yield }; L[0] := 1;
  first := V[0]; mixed := 0;
  yield;
  for (k in 1..K-1) {
    while (L[k] == 1) { yield }; L[k] := 1;
    L[k-1] := 0;
    if (V[k] != first) { mixed := 1 } else { 0 };
    yield
  };
  L[K-1] := 0;
  mixed * 10 + first
}
"""
model("coupling", [2, 3, 4, 8], "coupling",
      "lock coupling (hand over hand) along a list of K nodes: bump flips every node's bit, scan checks all nodes hold the same bit; both walk from the head",
      HEAD + "global V[K], L[K];\n" + r"""
request bump {
  while (L[0] == 1) { yield }; L[0] := 1;
  V[0] := 1 - V[0];
  yield;
  for (k in 1..K-1) {
    while (L[k] == 1) { yield }; L[k] := 1;
    L[k-1] := 0;
    V[k] := 1 - V[k];
    yield
  };
  L[K-1] := 0;
  1
}
""" + COUPLING_SCAN)
model("coupling-early", [3], "coupling",
      "BUG: bump releases a node before locking the next; a scan overtakes it and sees a mix of flipped and unflipped nodes",
      HEAD + "global V[K], L[K];\n" + r"""
request bump {
  while (L[0] == 1) { yield }; L[0] := 1;
  V[0] := 1 - V[0];
  yield;
  for (k in 1..K-1) {
    L[k-1] := 0;
    yield;
    while (L[k] == 1) { yield }; L[k] := 1;
    V[k] := 1 - V[k];
    yield
  };
  L[K-1] := 0;
  1
}
""" + COUPLING_SCAN)

# ----------------------------------------------------------------------------- work queue
WQ_SUBMIT = r"""
request submit {
  v := ?(1..2);
  s := -1;
  while (s == -1) {
    for (k in 0..K-1) { if (s == -1 && Full[k] == 0) { s := k } else { 0 } };
    if (s == -1) { yield } else { Job[s] := v; Full[s] := 1 }
  };
  v
}
"""
model("workq", [2, 3, 4], "workq",
      "work queue of K task slots with a claim flag each; submit fills a free slot; take scans the slots one per step and claims one atomically, processes it, frees the slot; answers the job or -1",
      HEAD + "global Job[K], Full[K], Claimed[K];\n" + WQ_SUBMIT + r"""
request take {
  mine := -1;
  for (k in 0..K-1) {
    if (mine == -1 && Full[k] == 1 && Claimed[k] == 0) { Claimed[k] := 1; mine := k } else { 0 };
    yield
  };
  if (mine >= 0) {
    r := Job[mine];
    yield;                                  // process
    Job[mine] := 0; Claimed[mine] := 0; Full[mine] := 0;
    r
  } else { -1 }
}
""")
model("workq-claimsplit", [2], "workq",
      "BUG: take tests the claim flag, yields, then sets it: two workers take the same task",
      HEAD + "global Job[K], Full[K], Claimed[K];\n" + WQ_SUBMIT + r"""
request take {
  mine := -1;
  for (k in 0..K-1) {
    if (mine == -1 && Full[k] == 1 && Claimed[k] == 0) { yield; Claimed[k] := 1; mine := k } else { 0 };
    yield
  };
  if (mine >= 0) {
    r := Job[mine];
    yield;
    Job[mine] := 0; Claimed[mine] := 0; Full[mine] := 0;
    r
  } else { -1 }
}
""")
model("workq-freeearly", [2], "workq",
      "BUG: take frees the slot as soon as it claims it and reads the payload later; a submit reuses the slot and the taker answers the new job, which is then taken again",
      HEAD + "global Job[K], Full[K], Claimed[K];\n" + WQ_SUBMIT + r"""
request take {
  mine := -1;
  for (k in 0..K-1) {
    if (mine == -1 && Full[k] == 1 && Claimed[k] == 0) { Claimed[k] := 1; mine := k } else { 0 };
    yield
  };
  if (mine >= 0) {
    Claimed[mine] := 0; Full[mine] := 0;    // give the slot back early
    yield;
    Job[mine]
  } else { -1 }
}
""")

# ----------------------------------------------------------------------------- connection pool
POOL_QUERY_HEAD = r"""
request query {
  me := ?(1..2);                            // what this client writes into its session
  c := -1;
  while (c == -1) {
    for (k in 0..K-1) { if (c == -1 && Busy[k] == 0) { c := k } else { 0 } };
    if (c == -1) { yield } else { Busy[c] := 1 }
  };
"""
POOL_QUERY_TAIL = r"""  yield;
  Sess[c] := me;
  yield;
  got := Sess[c];
  Sess[c] := 0;
  Busy[c] := 0;
  me * 10 + got                             // 11 or 22 when the session was ours alone
}
"""
model("pool", [2, 3, 4, 8], "pool",
      "connection pool of K connections with a busy flag each; query picks and marks a free connection in one step, writes its session data, yields, reads it back, releases; answers what it read",
      HEAD + "global Busy[K], Sess[K];\n" + POOL_QUERY_HEAD + POOL_QUERY_TAIL)
model("pool-split", [2], "pool",
      "BUG: query finds a free connection in one step and marks it busy in the next; two clients share a connection and read each other's session",
      HEAD + "global Busy[K], Sess[K];\n" + POOL_QUERY_HEAD.replace(
          "if (c == -1) { yield } else { Busy[c] := 1 }", "yield; if (c == -1) { 0 } else { Busy[c] := 1 }") + POOL_QUERY_TAIL)
model("pool-stats", [2], "pool",
      "BUG (by design): a stats request counts busy connections while queries run; a serial execution never sees one busy",
      HEAD + "global Busy[K], Sess[K];\n" + POOL_QUERY_HEAD + POOL_QUERY_TAIL + r"""
request stats {
  n := 0;
  for (k in 0..K-1) { n := n + Busy[k] };
  n
}
""")
model("pool-release", [2], "pool",
      "BUG: the connection is marked free before the session is read back",
      HEAD + "global Busy[K], Sess[K];\n" + POOL_QUERY_HEAD + r"""  yield;
  Sess[c] := me;
  yield;
  Busy[c] := 0;
  yield;
  got := Sess[c];
  me * 10 + got
}
""")

# ----------------------------------------------------------------------------- epoch fencing
FENCE_EXPIRE = r"""
request expire {                            // the lease of a key times out
  k := ?(0..K-1);
  Lease[k] := 0;
  1
}
"""
model("fence", [2, 3], "fence",
      "per-key leases with epochs and fencing tokens; an increment takes the lease (new epoch), reads and writes the cell presenting its epoch (the store raises the fence on each access and refuses older epochs), retries when fenced out; expire drops a lease at any time; epochs grow without bound",
      HEAD + "global Lease[K], Epoch[K], Fence[K], Store[K];\n" + r"""
request incr {
  k := ?(0..K-1);
  done := 0;
  while (done == 0) {
    while (Lease[k] == 1) { yield }; Lease[k] := 1;
    e := Epoch[k] + 1; Epoch[k] := e;
    yield;
    ok := 0;
    if (Fence[k] <= e) { Fence[k] := e; x := Store[k]; ok := 1 } else { 0 };   // fenced read
    yield;
    if (ok && Fence[k] <= e) { Fence[k] := e; Store[k] := (x + 1) % 3; done := 1 } else { 0 };  // fenced write
    if (Epoch[k] == e) { Lease[k] := 0 } else { 0 }   // give the lease back if it is still ours
  };
  k * 10 + x
}
""" + FENCE_EXPIRE)
model("fence-writeonly", [2], "fence",
      "BUG: only writes carry the fencing token; a holder whose lease expired writes after a newer holder has read, and an increment is lost",
      HEAD + "global Lease[K], Epoch[K], Fence[K], Store[K];\n" + r"""
request incr {
  k := ?(0..K-1);
  done := 0;
  while (done == 0) {
    while (Lease[k] == 1) { yield }; Lease[k] := 1;
    e := Epoch[k] + 1; Epoch[k] := e;
    yield;
    x := Store[k];
    yield;
    if (Fence[k] <= e) { Fence[k] := e; Store[k] := (x + 1) % 3; done := 1 } else { 0 };
    if (Epoch[k] == e) { Lease[k] := 0 } else { 0 }
  };
  k * 10 + x
}
""" + FENCE_EXPIRE)


def main():
    n = 0
    for name, (text, sizes, family, note) in MODELS.items():
        for k in sizes:
            path = os.path.join(HERE, f"{name}-k{k}.ser")
            body = f"// {family}: {note}\n" + text.replace("@K@", str(k))
            with open(path, "w") as fh:
                fh.write(body)
            n += 1
    print(f"wrote {n} models")


if __name__ == "__main__":
    main()
