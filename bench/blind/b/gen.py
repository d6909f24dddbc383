#!/usr/bin/env python3
"""Generator for the blind benchmark corpus, half b.

Ser has no arrays or constants, so every model of size K spells out its K
globals / branches.  Run `python3 gen.py` in this folder to (re)write all
*.ser files.  expected.json is maintained by hand (see the notes there).
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = {}


def emit(name, text):
    MODELS[name] = text.strip() + "\n"


def chain(idx, k, body, ind=""):
    """if (idx == 0) { body(0) } else if ... else { body(k-1) }"""
    if k == 1:
        return body(0)
    parts = []
    for i in range(k - 1):
        kw = "if" if i == 0 else "else if"
        parts.append(f"{kw} ({idx} == {i}) {{ {body(i)} }}")
    parts.append(f"else {{ {body(k - 1)} }}")
    return ("\n" + ind).join(parts)


def all_equal(names, bad=9):
    if len(names) == 1:
        return names[0]
    cond = " && ".join(f"{names[i]} == {names[i + 1]}" for i in range(len(names) - 1))
    return f"if ({cond}) {{ {names[0]} }} else {{ {bad} }}"


# ---------------------------------------------------------------- 1. ring buffers

def ring_single(k, bug):
    """One mutex M for both ends; waits are release-and-retry loops.
    bug: the consumer tests 'not empty' before taking the mutex and does not
    test again once it holds it (check split from act)."""
    put = f"""
request put {{
  v := ?(1..2);
  done := 0;
  while (done == 0) {{
    while (M == 1) {{ yield }};
    M := 1;
    yield;
    if (Count < {k}) {{
      {chain("Tail", k, lambda i: f"S{i} := v", "      ")};
      yield;
      Tail := (Tail + 1) % {k};
      Count := Count + 1;
      done := 1
    }} else {{ 0 }};
    M := 0;
    if (done == 0) {{ yield }} else {{ 0 }}
  }};
  v
}}"""
    if not bug:
        get = f"""
request get {{
  r := 0;
  got := 0;
  while (got == 0) {{
    while (M == 1) {{ yield }};
    M := 1;
    if (Count > 0) {{
      {chain("Head", k, lambda i: f"r := S{i}; S{i} := 0", "      ")};
      yield;
      Head := (Head + 1) % {k};
      Count := Count - 1;
      got := 1
    }} else {{ 0 }};
    M := 0;
    if (got == 0) {{ yield }} else {{ 0 }}
  }};
  r
}}"""
    else:
        get = f"""
request get {{
  r := 0;
  while (Count == 0) {{ yield }};   // not empty?  (tested without the mutex)
  while (M == 1) {{ yield }};
  M := 1;
  {chain("Head", k, lambda i: f"r := S{i}; S{i} := 0", "  ")};
  yield;
  Head := (Head + 1) % {k};
  if (Count > 0) {{ Count := Count - 1 }} else {{ 0 }};
  M := 0;
  r
}}"""
    hdr = f"// ring buffer, {k} slots, one mutex M for both ends; put answers the item, get the item it took\n"
    if bug:
        hdr += "// BUG: get checks Count > 0 before taking M and never re-checks it under M\n"
    return hdr + put + "\n" + get


def ring_two_locks(k, bug):
    """Producer lock TL, consumer lock HL, Count updated atomically (an atomic counter).
    bug: the consumer forgets HL."""
    put = f"""
request put {{
  v := ?(1..2);
  while (TL == 1) {{ yield }};
  TL := 1;
  while (Count == {k}) {{ yield }};            // full: wait, holding TL
  {chain("Tail", k, lambda i: f"S{i} := v", "  ")};
  yield;
  if (Tail == {k - 1}) {{ Tail := 0 }} else {{ Tail := Tail + 1 }};
  Count := Count + 1;                        // publish: atomic increment
  TL := 0;
  v
}}"""
    lock = "" if bug else "  while (HL == 1) { yield };\n  HL := 1;\n"
    unlock = "" if bug else "  HL := 0;\n"
    get = f"""
request get {{
{lock}  while (Count == 0) {{ yield }};
  {chain("Head", k, lambda i: f"r := S{i}; S{i} := 0", "  ")};
  yield;
  if (Head == {k - 1}) {{ Head := 0 }} else {{ Head := Head + 1 }};
  if (Count > 0) {{ Count := Count - 1 }} else {{ 0 }};
{unlock}  r
}}"""
    hdr = f"// two-lock ring buffer, {k} slots: TL for producers, HL for consumers, atomic Count\n"
    if bug:
        hdr += "// BUG: consumers do not take HL\n"
    return hdr + put + "\n" + get


for k in (2, 3, 4, 8):
    emit(f"ring{k}.ser", ring_single(k, False))
    emit(f"ring{k}-bug.ser", ring_single(k, True))
for k in (2, 4):
    emit(f"ring2l{k}.ser", ring_two_locks(k, False))
    emit(f"ring2l{k}-bug.ser", ring_two_locks(k, True))


# ---------------------------------------------------------------- 2. readers-writer locks

def rw(k, bug):
    """Mutex M protects the reader count R (at most 2 readers inside); W is the
    resource lock, taken by the first reader (while holding M) and by writers.
    bug 'late': the first reader releases M before taking W.
    bug 'exit': the leaving reader decrements R outside M, from a stale copy."""
    reads = ";\n  yield;\n  ".join(f"a{i} := C{i}" for i in range(k))
    if bug == "late":
        entry = """  while (M == 1 || R == 2) { yield };
  M := 1;
  R := R + 1;
  first := R == 1;
  M := 0;
  if (first) {
    while (W == 1) { yield };
    W := 1
  } else { 0 };"""
    else:
        entry = """  while (M == 1 || R == 2) { yield };
  M := 1;
  R := R + 1;
  if (R == 1) {
    while (W == 1) { yield };   // first reader waits for the writer, holding M
    W := 1
  } else { 0 };
  M := 0;"""
    if bug == "exit":
        exitc = """  c := R;
  yield;
  R := c - 1;
  if (c == 1) { W := 0 } else { 0 };"""
    else:
        exitc = """  while (M == 1) { yield };
  M := 1;
  R := R - 1;
  if (R == 0) { W := 0 } else { 0 };
  M := 0;"""
    read = f"""
request read {{
{entry}
  yield;
  {reads};
  yield;
{exitc}
  {all_equal([f"a{i}" for i in range(k)])}
}}"""
    writes = ";\n  yield;\n  ".join(f"C{i} := nv" for i in range(k))
    write = f"""
request write {{
  nv := ?(1..2);
  while (W == 1) {{ yield }};
  W := 1;
  {writes};
  yield;
  W := 0;
  nv
}}"""
    hdr = f"// readers-writer lock from a mutex M and a reader count R (max 2 readers), {k} cells\n"
    hdr += "// read answers the common value of the cells it read (9 if they differ); write answers its value\n"
    if bug == "late":
        hdr += "// BUG: the first reader lets go of M before it has the resource lock W\n"
    if bug == "exit":
        hdr += "// BUG: the leaving reader updates R from a copy taken before a yield, without M\n"
    return hdr + read + "\n" + write


for k in (2, 3, 4, 8):
    emit(f"rw{k}.ser", rw(k, None))
    emit(f"rw{k}-bug.ser", rw(k, "late"))
for k in (2, 3):
    emit(f"rw{k}-exit-bug.ser", rw(k, "exit"))


# ---------------------------------------------------------------- 3. ticket locks

def ticket(k, bug, wrap=True, mod=4):
    """Ticket lock; the critical section is a read-yield-write of counter X (mod 4),
    each request answers the value it read.
    wrap: tickets are mod k and at most k requests hold tickets (Out counts them).
    bug 'fai': the fetch-and-increment of Next is split by a yield.
    bug 'nocap': tickets wrap mod k but nothing bounds the outstanding tickets."""
    if wrap:
        nxt = f"Next := (t + 1) % {k}"
        srv = f"if (Serving == {k - 1}) {{ Serving := 0 }} else {{ Serving := Serving + 1 }}"
    else:
        nxt = "Next := t + 1"
        srv = "Serving := Serving + 1"
    cap = wrap and bug != "nocap"
    lines = []
    if cap:
        lines += [f"while (Out == {k}) {{ yield }}", "Out := Out + 1"]
    lines.append("t := Next")
    if bug == "fai":
        lines.append("yield")
    lines.append(nxt)
    lines += ["while (Serving != t) { yield }",
              "x := X", "yield", f"X := (x + 1) % {mod}", srv]
    if cap:
        lines.append("Out := Out - 1")
    lines.append("x")
    body = ";\n  ".join(lines)
    hdr = "// ticket lock: take a ticket from Next, wait until Serving equals it\n"
    if wrap:
        hdr += f"// ticket numbers wrap modulo {k}\n"
    else:
        hdr += "// ticket numbers grow without bound (unbounded counters are the point)\n"
    if cap:
        hdr += f"// at most {k} requests hold a ticket (Out), so wrapped tickets never collide\n"
    if bug == "fai":
        hdr += "// BUG: taking a ticket is a read, a yield, then a write of Next\n"
    if bug == "nocap":
        hdr += f"// BUG: nothing stops a {k + 1}th request from drawing a ticket that is already held\n"
    return hdr + f"\nrequest work {{\n  {body}\n}}"


for k in (2, 3, 4, 8):
    emit(f"ticket{k}.ser", ticket(k, None))
    emit(f"ticket{k}-bug.ser", ticket(k, "fai"))
for k in (2, 3):
    emit(f"ticket{k}-wrap-bug.ser", ticket(k, "nocap"))
for k in (4, 8):   # the counter X needs more values than the k+1 requests of the witness
    emit(f"ticket{k}-wrap-bug.ser", ticket(k, "nocap", mod=k + 2))
emit("ticket-inf.ser", ticket(0, None, wrap=False))
emit("ticket-inf-bug.ser", ticket(0, "fai", wrap=False))


# ---------------------------------------------------------------- 4. lock coupling

def hoh_unrolled(k, bug):
    """K nodes V_i (0/1) with locks L_i. bump flips every node walking hand over hand,
    scan reads every node. Both answer the common value seen (9 if mixed).
    bug: a walker lets go of node i before it has locked node i+1."""
    def walker(visit):
        out = ["while (L0 == 1) { yield }", "L0 := 1", visit(0)]
        for i in range(1, k):
            out.append("yield")
            if bug:
                out += [f"L{i - 1} := 0", "yield",
                        f"while (L{i} == 1) {{ yield }}", f"L{i} := 1"]
            else:
                out += [f"while (L{i} == 1) {{ yield }}", f"L{i} := 1", f"L{i - 1} := 0"]
            out.append(visit(i))
        out.append(f"L{k - 1} := 0")
        out.append(all_equal([f"a{i}" for i in range(k)]))
        return ";\n  ".join(out)
    bump = walker(lambda i: f"a{i} := V{i}; V{i} := 1 - a{i}")
    scan = walker(lambda i: f"a{i} := V{i}")
    hdr = f"// lock coupling (hand over hand) along a list of {k} nodes\n"
    if bug:
        hdr += "// BUG: unlock the current node, yield, then lock the next one (walkers can overtake)\n"
    return hdr + f"\nrequest bump {{\n  {bump}\n}}\n\nrequest scan {{\n  {scan}\n}}"


def hoh_loop(k, bug):
    """The same list walked by a while loop over a position local p; lock and node
    selected by if-chains. bump adds 1 mod 3 to each node; scan sums them mod 3
    and answers 1 + the common value, or 0 if the nodes differ."""
    def acq(i):
        return f"while (L{i} == 1) {{ yield }}; L{i} := 1"
    if bug:
        step = f"""if (p < {k - 1}) {{
      {chain("p", k - 1, lambda i: f"L{i} := 0", "      ")};
      yield;
      {chain("p", k - 1, lambda i: acq(i + 1), "      ")}
    }} else {{ L{k - 1} := 0 }}"""
    else:
        step = f"""if (p < {k - 1}) {{
      {chain("p", k - 1, lambda i: acq(i + 1) + f"; L{i} := 0", "      ")}
    }} else {{ L{k - 1} := 0 }}"""

    def walker(is_bump):
        if is_bump:
            visit = chain("p", k, lambda i: f"v := V{i}; V{i} := (v + 1) % 3", "    ")
        else:
            visit = chain("p", k, lambda i: f"v := V{i}", "    ")
        return f"""  p := 0;
  first := -1;
  same := 1;
  while (L0 == 1) {{ yield }};
  L0 := 1;
  while (p < {k}) {{
    {visit};
    if (first == -1) {{ first := v }} else if (first != v) {{ same := 0 }} else {{ 0 }};
    yield;
    {step};
    p := p + 1
  }};
  if (same) {{ first + 1 }} else {{ 0 }}"""
    hdr = f"// lock coupling along {k} nodes, written as a loop over a position\n"
    hdr += "// every request answers 1 + the common value it saw (values mod 3), 0 if they differed\n"
    if bug:
        hdr += "// BUG: the walker releases node p, yields, and only then locks node p+1\n"
    return (hdr + f"\nrequest bump {{\n{walker(True)}\n}}\n\nrequest scan {{\n{walker(False)}\n}}")


for k in (2, 3, 4, 8):
    emit(f"hoh{k}.ser", hoh_unrolled(k, False))
    emit(f"hoh{k}-bug.ser", hoh_unrolled(k, True))
for k in (3, 16):
    emit(f"hohw{k}.ser", hoh_loop(k, False))
    emit(f"hohw{k}-bug.ser", hoh_loop(k, True))


# ---------------------------------------------------------------- 5. rate limiters

def bucket(cap, bug):
    """Token bucket of capacity cap, mutex B. refill adds one token (capped) and
    answers the level; take asks for 1 or 2 tokens and answers what it got.
    bug: take tests the level before taking B and does not test again."""
    refill = f"""
request refill {{
  while (B == 1) {{ yield }};
  B := 1;
  t := T;
  yield;
  if (t < {cap}) {{ T := t + 1 }} else {{ 0 }};
  lvl := T;
  B := 0;
  lvl
}}"""
    if not bug:
        take = """
request take {
  n := ?(1..2);
  while (B == 1) { yield };
  B := 1;
  yield;
  t := T;
  if (t >= n) {
    yield;
    T := t - n;
    got := n
  } else { got := 0 };
  B := 0;
  got
}"""
    else:
        take = """
request take {
  n := ?(1..2);
  if (T >= n) {
    while (B == 1) { yield };
    B := 1;
    yield;
    if (T >= n) { T := T - n } else { T := 0 };   // never go negative
    B := 0;
    n
  } else { 0 }
}"""
    hdr = f"// token bucket, capacity {cap}, starts empty; refill adds one token under mutex B\n"
    if bug:
        hdr += "// BUG: take checks the level outside the mutex (check split from the decrement)\n"
    return hdr + refill + "\n" + take


def window(n, bug):
    """Fixed-window limiter: at most n hits per window; tick closes the window and
    answers how many hits it saw. bug: hit reads the count, yields, writes it back."""
    if bug:
        hit = f"""
request hit {{
  c := Hits;
  yield;
  if (c < {n}) {{
    Hits := c + 1;
    1
  }} else {{ 0 }}
}}"""
    else:
        hit = f"""
request hit {{
  allowed := 0;
  while (Lk == 1) {{ yield }};
  Lk := 1;
  c := Hits;
  yield;
  if (c < {n}) {{ Hits := c + 1; allowed := 1 }} else {{ 0 }};
  Lk := 0;
  allowed
}}"""
    tick = """
request tick {
  while (Lk == 1) { yield };
  Lk := 1;
  seen := Hits;
  Hits := 0;
  Lk := 0;
  seen
}"""
    hdr = f"// fixed-window rate limiter, at most {n} hits per window\n"
    if bug:
        hdr += "// BUG: hit increments the counter outside the lock (read, yield, write)\n"
    return hdr + hit + "\n" + tick


for k in (2, 3, 4, 8):
    emit(f"bucket{k}.ser", bucket(k, False))
    emit(f"bucket{k}-bug.ser", bucket(k, True))
for n in (1, 2):
    emit(f"window{n}.ser", window(n, False))
    emit(f"window{n}-bug.ser", window(n, True))


# ---------------------------------------------------------------- 6. epoch fencing

def fence(k, bug):
    """Leader epoch E (mod k, or unbounded when k == 0). A writer reads the epoch,
    prepares (yield), and commits only if the epoch did not change, else retries.
    The store keeps the stamp Stamp = epoch + 1 of the last write. A write answers
    10 * its epoch + the stamp it overwrote; elect answers the new epoch.
    bug 'split': the epoch test and the store are separated by a yield.
    bug 'ge': the test is e >= E, which is wrong once epochs wrap."""
    if k == 0:
        elect = "E := E + 1;\n  E"
    else:
        elect = f"E := (E + 1) % {k};\n  E"
    test = "e >= E" if bug in ("ge", "inf") else "E == e"
    pause = "yield;\n      " if bug == "split" else ""
    write = f"""
request write {{
  ok := 0;
  while (!ok) {{
    e := E;
    yield;                              // prepare the write; the lease may expire
    if ({test}) {{
      {pause}old := Stamp;
      Stamp := e + 1;
      ok := 1
    }} else {{ yield }}
  }};
  10 * e + old
}}"""
    hdr = "// epoch fencing: a write carries the epoch it read and is refused if the epoch moved on\n"
    hdr += (f"// epochs wrap modulo {k}\n" if k else "// epochs grow without bound (the point of this model)\n")
    if bug == "split":
        hdr += "// BUG: the epoch is checked, then a yield, then the store is written\n"
    if bug == "ge":
        hdr += "// BUG: the fence test is e >= E, wrong once the epoch wraps around\n"
    return hdr + f"\nrequest elect {{\n  {elect}\n}}\n" + write


for k in (2, 3, 4, 8):
    emit(f"fence{k}.ser", fence(k, None))
    emit(f"fence{k}-bug.ser", fence(k, "split"))
emit("fence2-ge-bug.ser", fence(2, "ge"))
emit("fence-inf.ser", fence(0, "inf"))


# ---------------------------------------------------------------- 7. work queues with claim flags

def workq(k, bug):
    """K slots: Full_i, Claim_i, Job_i. fill waits for a free slot and publishes
    payload and flag together; work scans the slots one per step, claims one whose
    flag is set and claim clear (test-and-set), processes it and frees the slot.
    work answers the payload (1 or 2), or -1 if it found nothing.
    bug 'claim': test and set of the claim are split by a yield.
    bug 'flag': fill sets Full_i, yields, then writes the payload."""
    full = " && ".join(f"Full{i} == 1" for i in range(k))
    if bug == "flag":
        fill = f"""
request fill {{
  v := ?(1..2);
  while ({full}) {{ yield }};
  {chain_first_free(k)};
  yield;
  {chain("s", k, lambda i: f"Job{i} := v", "  ")};
  v
}}"""
    else:
        fill = f"""
request fill {{
  v := ?(1..2);
  while ({full}) {{ yield }};
  {chain_first_free(k, "Job{i} := v; ")};
  v
}}"""
    if bug == "claim":
        claim = lambda i: (f"if (Full{i} == 1 && Claim{i} == 0) {{ yield; Claim{i} := 1; "
                           f"r := Job{i}; found := 1 }} else {{ 0 }}")
    else:
        claim = lambda i: (f"if (Full{i} == 1 && Claim{i} == 0) {{ Claim{i} := 1; "
                           f"r := Job{i}; found := 1 }} else {{ 0 }}")
    work = f"""
request work {{
  i := 0;
  found := 0;
  r := -1;
  while (found == 0 && i < {k}) {{
    {chain("i", k, claim, "    ")};
    if (found == 0) {{ i := i + 1; yield }} else {{ 0 }}
  }};
  if (found) {{
    yield;                                    // process the job
    {chain("i", k, lambda j: f"Job{j} := 0; Claim{j} := 0; Full{j} := 0", "    ")};
    r
  }} else {{ -1 }}
}}"""
    hdr = f"// work queue of {k} slots with claim flags; work answers the job payload, -1 if none found\n"
    if bug == "claim":
        hdr += "// BUG: a worker tests the claim flag, yields, then sets it\n"
    if bug == "flag":
        hdr += "// BUG: fill raises the Full flag before it has written the payload\n"
    return hdr + fill + "\n" + work


def chain_first_free(k, extra=""):
    """pick the lowest free slot: set s and Full, plus extra (formatted with i)."""
    parts = []
    for i in range(k):
        act = f"{extra.format(i=i)}Full{i} := 1; s := {i}"
        if i == 0:
            parts.append(f"if (Full0 == 0) {{ {act} }}")
        elif i < k - 1:
            parts.append(f"else if (Full{i} == 0) {{ {act} }}")
        else:
            parts.append(f"else {{ {act} }}")
    return "\n  ".join(parts)


for k in (2, 3, 4, 8, 16):
    emit(f"workq{k}.ser", workq(k, None))
    emit(f"workq{k}-bug.ser", workq(k, "claim"))
for k in (2, 4):
    emit(f"workq{k}-flag-bug.ser", workq(k, "flag"))


# ---------------------------------------------------------------- 8. two-phase locking / commit

def twopl(k, bug):
    """K items X_i (0/1) with locks L_i. txn locks every item (growing phase), flips
    every item, then unlocks (shrinking phase); audit locks, reads, unlocks.
    Both answer the common value they saw, 9 if mixed.
    bug 'early': txn locks, flips and unlocks one item at a time.
    bug 'order': audit locks in the opposite order (deadlock possible)."""
    def lock(i):
        return f"while (L{i} == 1) {{ yield }};\n  L{i} := 1"
    if bug == "early":
        steps = []
        for i in range(k):
            steps += [lock(i), f"a{i} := X{i}", "yield", f"X{i} := 1 - a{i}", f"L{i} := 0", "yield"]
        txn_body = ";\n  ".join(steps[:-1])
    else:
        steps = []
        for i in range(k):
            steps += [lock(i), "yield"]
        for i in range(k):
            steps += [f"a{i} := X{i}", "yield", f"X{i} := 1 - a{i}", "yield"]
        for i in range(k):
            steps += [f"L{i} := 0"]
        txn_body = ";\n  ".join(steps)
    order = list(range(k))[::-1] if bug == "order" else list(range(k))
    steps = []
    for i in order:
        steps += [lock(i), "yield"]
    for i in range(k):
        steps += [f"a{i} := X{i}", "yield"]
    for i in order:
        steps += [f"L{i} := 0"]
    audit_body = ";\n  ".join(steps)
    res = all_equal([f"a{i}" for i in range(k)])
    hdr = f"// two-phase locking over {k} items; txn flips all items, audit reads them\n"
    hdr += "// both answer the common value they saw (9 if the items differed)\n"
    if bug == "early":
        hdr += "// BUG: txn releases each item as soon as it has written it (not two-phase)\n"
    if bug == "order":
        hdr += "// audit locks the items in the reverse order: it can deadlock with txn\n"
    return hdr + f"\nrequest txn {{\n  {txn_body};\n  {res}\n}}\n\nrequest audit {{\n  {audit_body};\n  {res}\n}}"


def twopc(k, bug):
    """Coordinator and K participants (one-shot round). vote_i votes yes (1) or no (2)
    once; timeout_i lets a participant abort on its own; coord waits for all votes,
    scans them one per step and decides D (1 commit, 2 abort); apply_i waits for
    the decision and answers 10 * decision + its own vote.
    bug: timeout_i aborts whenever no decision is known yet, even after voting yes."""
    reqs = []
    for i in range(k):
        reqs.append(f"""
request vote{i} {{
  if (V{i} == 0) {{ V{i} := ?(1..2); V{i} }} else {{ 0 }}
}}""")
        guard = f"D == 0" if bug else f"V{i} == 0"
        reqs.append(f"""
request timeout{i} {{
  if ({guard}) {{ V{i} := 2; 1 }} else {{ 0 }}
}}""")
        reqs.append(f"""
request apply{i} {{
  while (D == 0) {{ yield }};
  A{i} := D;
  10 * A{i} + V{i}
}}""")
    waitc = " || ".join(f"V{i} == 0" for i in range(k))
    scan = ";\n  yield;\n  ".join(f"if (V{i} == 2) {{ d := 2 }} else {{ 0 }}" for i in range(k))
    reqs.append(f"""
request coord {{
  while ({waitc}) {{ yield }};
  d := 1;
  {scan};
  yield;
  if (D == 0) {{ D := d }} else {{ 0 }};
  D
}}""")
    hdr = f"// two-phase commit, one round, coordinator and {k} participants\n"
    if bug:
        hdr += "// BUG: a participant may time out and abort after it has voted yes (prepared)\n"
    return hdr + "\n".join(reqs)


def twopc_retry(k, bug):
    """Transactions that prepare K participants (lock P_i, or fail if busy), commit
    only if all prepared (else release and retry), then write every participant and
    release. Answer: the common old value (9 if mixed).
    bug 'check': test all P_i free, yield, then take them all.
    variant 'early': release each participant right after writing it (still fine)."""
    lines = ["ok := 0", "while (ok == 0) {"]
    if bug == "check":
        cond = " && ".join(f"P{i} == 0" for i in range(k))
        takes = "; ".join(f"P{i} := 1" for i in range(k))
        lines.append(f"    if ({cond}) {{\n      yield;\n      {takes};\n      ok := 1\n    }} else {{ yield }}")
    else:
        lines.append("    " + "; ".join(f"g{i} := 0" for i in range(k)) + ";")
        for i in range(k):
            lines.append(f"    if (P{i} == 0) {{ P{i} := 1; g{i} := 1 }} else {{ 0 }};")
            lines.append("    yield;")
        allg = " && ".join(f"g{i}" for i in range(k))
        rel = "; ".join(f"if (g{i}) {{ P{i} := 0 }} else {{ 0 }}" for i in range(k))
        lines.append(f"    if ({allg}) {{ ok := 1 }} else {{ {rel}; yield }}")
    lines.append("  }")
    body = lines[0] + ";\n  " + lines[1] + "\n" + "\n".join(lines[2:]) + ";\n  "
    w = []
    for i in range(k):
        w.append(f"a{i} := X{i}; X{i} := 1 - a{i}")
        if bug == "early":
            w.append(f"P{i} := 0")
        w.append("yield")
    if bug != "early":
        w.append("; ".join(f"P{i} := 0" for i in range(k)))
    else:
        w = w[:-1]
    body += ";\n  ".join(w) + ";\n  " + all_equal([f"a{i}" for i in range(k)])
    hdr = f"// two-phase commit as retrying transactions over {k} participants (prepare = lock P_i)\n"
    hdr += "// txn answers the common value of the items before its write (9 if they differed)\n"
    if bug == "check":
        hdr += "// BUG: prepare checks that every participant is free, yields, then takes them\n"
    if bug == "early":
        hdr += "// each participant is released as soon as it has been written (still all-or-nothing)\n"
    return hdr + f"\nrequest txn {{\n  {body}\n}}"


for k in (2, 3, 4, 8):
    emit(f"twopl{k}.ser", twopl(k, None))
    emit(f"twopl{k}-bug.ser", twopl(k, "early"))
for k in (2, 3):
    emit(f"twopl{k}-order.ser", twopl(k, "order"))
    emit(f"twopc{k}.ser", twopc(k, False))
    emit(f"twopc{k}-bug.ser", twopc(k, True))
for k in (2, 3, 4):
    emit(f"twopcr{k}.ser", twopc_retry(k, None))
    emit(f"twopcr{k}-bug.ser", twopc_retry(k, "check"))
emit("twopcr3-early.ser", twopc_retry(3, "early"))


# ---------------------------------------------------------------- additional variants

def ring_count_late(k):
    """Single-mutex ring where get decrements Count only after it has released M
    (a count updated outside the mutex)."""
    base = ring_single(k, False)
    get = f"""
request get {{
  r := 0;
  got := 0;
  while (got == 0) {{
    while (M == 1) {{ yield }};
    M := 1;
    if (Count > 0) {{
      {chain("Head", k, lambda i: f"r := S{i}; S{i} := 0", "      ")};
      yield;
      Head := (Head + 1) % {k};
      got := 1
    }} else {{ 0 }};
    M := 0;
    yield;
    if (got) {{
      if (Count > 0) {{ Count := Count - 1 }} else {{ 0 }}   // outside the mutex
    }} else {{ 0 }}
  }};
  r
}}"""
    put = base[base.index("\nrequest put"):base.index("\nrequest get")]
    hdr = f"// ring buffer, {k} slots, one mutex M for both ends; put answers the item, get the item it took\n"
    hdr += "// BUG: get decrements Count after it has released M\n"
    return hdr + put + "\n" + get


def ring_publish_early(k):
    """Two-lock ring where the producer bumps Count (publishes) before it writes the slot."""
    txt = ring_two_locks(k, False)
    old_put = txt[txt.index("\nrequest put"):txt.index("\nrequest get")]
    put = f"""
request put {{
  v := ?(1..2);
  while (TL == 1) {{ yield }};
  TL := 1;
  while (Count == {k}) {{ yield }};
  Count := Count + 1;                        // publish first ...
  yield;
  {chain("Tail", k, lambda i: f"S{i} := v", "  ")};   // ... then write the item
  if (Tail == {k - 1}) {{ Tail := 0 }} else {{ Tail := Tail + 1 }};
  TL := 0;
  v
}}
"""
    txt = txt.replace(old_put, put)
    return txt.replace("atomic Count\n", "atomic Count\n// BUG: put increments Count before it writes the slot\n", 1)


def rw_mutex_writer(k, deadlock):
    """Writer takes M and keeps it while it waits for the readers to drain and while it
    writes; readers register under M and leave with an atomic decrement.
    deadlock: readers leave by taking M too, so a writer holding M waiting for R == 0
    and a reader waiting for M block each other forever."""
    reads = ";\n  yield;\n  ".join(f"a{i} := C{i}" for i in range(k))
    writes = ";\n  yield;\n  ".join(f"C{i} := nv" for i in range(k))
    if deadlock:
        leave = "while (M == 1) { yield };\n  M := 1;\n  R := R - 1;\n  M := 0"
    else:
        leave = "// leave with an atomic decrement, no mutex needed\n  R := R - 1"
    read = f"""
request read {{
  while (M == 1 || R == 2) {{ yield }};
  M := 1;
  R := R + 1;
  M := 0;
  yield;
  {reads};
  yield;
  {leave};
  {all_equal([f"a{i}" for i in range(k)])}
}}"""
    write = f"""
request write {{
  nv := ?(1..2);
  while (M == 1) {{ yield }};
  M := 1;                                   // no new reader can register
  while (R != 0) {{ yield }};               // wait for the readers inside to leave
  {writes};
  yield;
  M := 0;
  nv
}}"""
    hdr = f"// readers-writer lock: the writer holds the reader mutex M while it drains readers and writes; {k} cells\n"
    if deadlock:
        hdr += "// readers leave through M as well: writer (holding M, waiting R == 0) and reader (waiting M) can deadlock\n"
    return hdr + read + "\n" + write


def bucket_recheck(cap):
    txt = bucket(cap, False)
    take = """
request take {
  n := ?(1..2);
  if (T >= n) {                             // cheap test without the mutex ...
    while (B == 1) { yield };
    B := 1;
    yield;
    if (T >= n) { T := T - n; got := n } else { got := 0 };   // ... and again under it
    B := 0;
    got
  } else { 0 }
}"""
    txt = txt[:txt.index("\nrequest take")] + take
    return txt.replace("under mutex B\n", "under mutex B\n// take tests the level without B first, then re-tests it under B (double-checked)\n", 1)


def ticket_variant(k, kind):
    rel = f"if (Serving == {k - 1}) {{ Serving := 0 }} else {{ Serving := Serving + 1 }}"
    if kind == "split":
        cs = ["while (Serving != t) { yield }", "yield", "x := X", "yield", "X := (x + 1) % 4", rel]
        hdr = "// the wait for Serving and the critical section are separated by a yield (harmless: only the holder moves Serving)\n"
    else:
        cs = ["while (Serving != t) { yield }", "x := X", "yield", rel, "yield", "X := (x + 1) % 4"]
        hdr = "// BUG: the holder passes the lock on (Serving) before it has written X back\n"
    lines = [f"while (Out == {k}) {{ yield }}", "Out := Out + 1", "t := Next", f"Next := (t + 1) % {k}"]
    lines += cs + ["Out := Out - 1", "x"]
    body = ";\n  ".join(lines)
    return (f"// ticket lock, tickets mod {k}, at most {k} outstanding (Out); answers the value of X it read\n" + hdr
            + f"\nrequest work {{\n  {body}\n}}")


for k in (2, 4):
    emit(f"ring{k}-cnt-bug.ser", ring_count_late(k))
    emit(f"ring2l{k}-pub-bug.ser", ring_publish_early(k))
    emit(f"bucket{k}-recheck.ser", bucket_recheck(k))
emit("ring16.ser", ring_single(16, False))
emit("ring16-bug.ser", ring_single(16, True))
for k in (2, 3):
    emit(f"rwm{k}.ser", rw_mutex_writer(k, False))
    emit(f"rwm{k}-deadlock.ser", rw_mutex_writer(k, True))
emit("ticket3-split.ser", ticket_variant(3, "split"))
emit("ticket3-early-bug.ser", ticket_variant(3, "early"))

if __name__ == "__main__":
    for name, text in sorted(MODELS.items()):
        with open(os.path.join(HERE, name), "w") as f:
            f.write(text)
    print(len(MODELS), "models written")
