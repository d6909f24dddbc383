#!/usr/bin/env python3
"""Write expected.json: reasoned verdicts (by hand, below) plus what bounded.py said
(read from bounded-*.json written by run_bounded.py)."""
import json, glob, os, re

HERE = os.path.dirname(os.path.abspath(__file__))
S, N = "serializable", "not_serializable"

NOTES = {
 # ---- ring buffers
 "ring": (S, "ring-buffer", "single mutex for both ends; every slot/index/count access happens while holding M, full/empty waits release M and retry, so each put/get takes effect inside one critical section and the run is equivalent to the order of those sections"),
 "ring-bug": (N, "ring-buffer", "get tests Count > 0 without M and does not re-test once it holds M: with one item, two gets both pass the test, the second reads the already-cleared next slot and answers 0, which no serial get does (a serial get only returns once an item is there)"),
 "ring-cnt-bug": (N, "ring-buffer", "get decrements Count only after releasing M (count updated outside the mutex): a second get sees the stale Count, takes M and reads an empty slot, answering 0"),
 "ring2l": (S, "ring-buffer", "two-lock ring (TL producers, HL consumers) with an atomic Count; a producer writes its slot before incrementing Count and a consumer reads its slot while Count still covers it, so a slot is never read before it is written nor overwritten before it is read; linearisable as a blocking FIFO (put at the increment, get at the read)"),
 "ring2l-bug": (N, "ring-buffer", "consumers forget HL: two gets both see Count = 1 and read the same Head slot; the second reads it after the first cleared it and answers 0"),
 "ring2l-pub-bug": (N, "ring-buffer", "flag published before the data: put increments Count, yields, and only then writes the slot; a get reads the still-empty slot and answers 0"),
 # ---- rw locks
 "rw": (S, "rw-lock", "classic reader-count lock (first reader takes W while holding M, last reader releases it); readers inside always hold W as a group so no writer overlaps a read; the reader cap of 2 (readers wait while R == 2) only keeps R finite"),
 "rw-bug": (N, "rw-lock", "first reader releases M before it has W: while it waits for the writer, a second reader sees R = 2, skips the wait and reads during the write, seeing mixed cells (answers 9); 3 requests"),
 "rw-exit-bug": (N, "rw-lock", "leaving reader copies R, yields, writes copy-1 without M: a reader that entered meanwhile is lost from the count, the leaver releases W, a writer overlaps the remaining reader's reads (torn read, answers 9); 3 requests"),
 "rwm": (S, "rw-lock", "writer-holds-mutex variant: the writer keeps M from before draining readers until after its writes, readers register under M and leave with an atomic decrement; no reader overlaps a write"),
 "rwm-deadlock": (S, "rw-lock", "SURPRISING-LOOKING: readers leave through M, so a writer holding M and waiting for R == 0 deadlocks with a reader waiting for M. A deadlocked run never finishes, and only finished runs (no request in flight) count, so the deadlock is not a serializability violation; every run that finishes is serial-equivalent"),
 # ---- ticket locks
 "ticket": (S, "ticket-lock", "tickets wrap mod K but at most K requests hold a ticket (Out), so held tickets are distinct and FIFO service gives mutual exclusion of the read-yield-write of X; answers 0,1,2,... (mod 4) as serially"),
 "ticket-bug": (N, "ticket-lock", "fetch-and-increment of Next split by a yield: two requests draw the same ticket, both enter, both read X = 0 (answers {0,0}; serially {0,1})"),
 "ticket-wrap-bug": (N, "ticket-lock", "wrap-around without a bound on outstanding tickets: the (K+1)th concurrent request draws a ticket equal to the holder's and enters with it; needs K+1 requests (3 for K=2, 4 for K=3, 5 for K=4, 9 for K=8), e.g. answers {0,0,1} instead of {0,1,2} for K=2; the counter X is kept mod K+2 for K >= 4 so the K+1 serial answers stay distinct"),
 "ticket-inf": (S, "ticket-lock", "ticket lock with unbounded Next/Serving (no wrap); correct, but Next and Serving grow without bound: an infinite-state model on purpose (size 0 stands for unbounded)"),
 "ticket-inf-bug": (N, "ticket-lock", "(size 0 = unbounded) unbounded ticket lock with the fetch-and-increment split by a yield: duplicate ticket, two requests in the critical section, answers {0,0}"),
 "ticket-split": (S, "ticket-lock", "looks like a check split from its act (yield between seeing Serving == t and the critical section) but only the holder moves Serving, so the split is harmless"),
 "ticket-early-bug": (N, "ticket-lock", "holder advances Serving before writing X back: the next ticket holder reads the old X; answers {0,0}"),
 # ---- lock coupling
 "hoh": (S, "lock-coupling", "hand-over-hand: a walker locks node i+1 before releasing node i, so walkers never overtake and visit every node in the same order (conflict-serializable); bump answers the common old value, scan the common value"),
 "hoh-bug": (N, "lock-coupling", "unlock node i, yield, lock node i+1: a later walker overtakes and sees node 0 already flipped but node 1 not (answers 9); 2 requests"),
 "hohw": (S, "lock-coupling", "same protocol as hoh but written as a while loop over a position local with if-chains selecting lock and node; values mod 3"),
 "hohw-bug": (N, "lock-coupling", "loop form, release before acquiring the next node: overtaking walkers see mixed values (answer 0); 2 requests"),
 # ---- rate limiters
 "bucket": (S, "rate-limiter", "token bucket, every read-modify-write of T (refill and take, each with yields inside) under mutex B; linearisable at the write"),
 "bucket-bug": (N, "rate-limiter", "take checks the level outside B (check split from the decrement): after one refill (answers 1) two takes of 1 both pass the check and both are granted, one token serving two takes; 3 requests for every capacity"),
 "bucket-recheck": (S, "rate-limiter", "double-checked take: the unlocked test only short-cuts a refusal (true at that instant), the grant is re-tested under B; looks like bucket-bug but is correct"),
 "window": (S, "rate-limiter", "fixed-window limiter, hit's read-yield-write of the count under lock Lk; tick resets and answers the count"),
 "window-bug": (N, "rate-limiter", "hit increments the window count with read, yield, write and no lock: n+1 hits are all allowed in one window (2 hits for n=1, 3 for n=2)"),
 # ---- epoch fencing
 "fence": (S, "epoch-fencing", "optimistic write: read epoch, prepare (yield), commit only if the epoch is unchanged (test and store in one atomic step), else retry; linearisable at the commit. Epochs wrap mod K; an ABA (K elects in between) lets a write commit, but at the commit E == e, so it still answers what a serial write would"),
 "fence-bug": (N, "epoch-fencing", "epoch test and store split by a yield: a write checked in epoch 0 lands after an elect and after a write of epoch 1, so it reports overwriting the epoch-1 stamp while claiming epoch 0 (answers 2 and 10 with elect 1); 3 requests"),
 "fence-ge-bug": (N, "epoch-fencing", "fence test 'e >= E' is correct for growing epochs but wrong after wrap-around: with K=2 a write holding epoch 1 is accepted after E wrapped to 0. Not visible with fewer than 5 requests (elect, elect and three writes): shorter runs are all explained by reordering"),
 "fence-inf": (S, "epoch-fencing", "unbounded epochs with the test e >= E: since E only grows, e >= E iff e == E, so it is the correct fence; infinite-state on purpose (E and the stamps grow; size 0 stands for unbounded)"),
 # ---- work queues
 "workq": (S, "work-queue", "fill waits for a free slot and publishes payload and flag in one step; workers scan one slot per step and claim with an atomic test-and-set, reading the payload at the claim, freeing the slot after processing. An idle worker (-1) is explained by running it first; otherwise linearise fill at its step and work at its free step (the bag of jobs, counting claimed ones, is the same in both)"),
 "workq-bug": (N, "work-queue", "claim test and set split by a yield: two workers claim the same job and both answer its payload with a single fill; 3 requests"),
 "workq-flag-bug": (N, "work-queue", "flag published before the data: fill sets Full, yields, then writes the payload; a worker claims the slot and reads payload 0, which neither a job (1..2) nor an idle worker (-1) answers serially; 2 requests"),
 # ---- two-phase locking / commit
 "twopl": (S, "two-phase", "strict two-phase locking in one global lock order: all locks taken (growing), all items flipped, then all released; audit does the same with reads"),
 "twopl-bug": (N, "two-phase", "not two-phase: txn locks, flips and unlocks item by item, so a second txn overtakes and sees some items flipped and some not (answers 9)"),
 "twopl-order": (S, "two-phase", "SURPRISING-LOOKING 'wrong lock order': audit locks in reverse order, so txn and audit can deadlock. Both are still two-phase, and deadlocked runs never finish, so they do not count; every finished run is serializable"),
 "twopc": (S, "two-phase", "one-round 2PC: votes are write-once, a participant may time out only before it has voted, the coordinator waits for all votes and decides from them (scan over several steps is fine since votes no longer change); apply answers 10*decision + own vote"),
 "twopc-bug": (N, "two-phase", "a participant may time out (abort) after voting yes while the coordinator is between reading its vote and deciding: the timeout answers 'aborted' while the coordinator commits, which no serial order allows. Needs 2K requests (K votes, timeout, coord): 4 for K=2, 5 for K=3"),
 "twopcr": (S, "two-phase", "transactions prepare all participants (try-lock each, release all and retry if any is busy), then write and release; conservative 2PL with retry"),
 "twopcr-bug": (N, "two-phase", "prepare tests that all participants are free, yields, then takes them: two transactions both 'prepare' and interleave their writes (answers 9,9); 2 requests"),
 "twopcr-early": (S, "two-phase", "each participant released right after it is written; still correct because a second transaction must hold ALL participants before reading any, which only happens once the first has released (hence written) all of them"),
}


def key_of(name):
    base = name[:-4]
    m = re.match(r"([a-z]+?)(\d+|-inf)(?:l(\d+))?(-.*)?$", base)
    fam, num, num2, suf = m.group(1), m.group(2), m.group(3), m.group(4) or ""
    if num2 is not None:          # ring2l4
        fam, num = fam + "2l", num2
    size = 0 if num == "-inf" else int(num)
    if num == "-inf":
        suf = suf or ""
        return (fam + "-inf" + suf, size)
    return (fam + suf, size)


def checked(name):
    res = {}
    timeouts = []
    for f in glob.glob(os.path.join(HERE, "bounded-*.json")):
        bound = int(re.match(r"bounded-(\d+)", os.path.basename(f)).group(1))
        for n, r in json.load(open(f)).items():
            if n == name:
                res.setdefault(bound, []).append(r)
                if r["result"] == "timeout":
                    timeouts.append((bound, r["wall"]))
    ce = [r for rs in res.values() for r in rs if r["result"] == "counterexample"]
    if ce:
        r = min(ce, key=lambda r: len(r["multiset"]))
        resp = ", ".join(f"{a}:{b}" for a, b in r["responses"])
        return f"bounded.py: counterexample with {len(r['multiset'])} requests ({resp})"
    done = [r for rs in res.values() for r in rs if r["result"] == "none"]
    if done:
        r = max(done, key=lambda r: r["requests"])
        cap = " (state cap hit)" if r.get("cap_hit") else ""
        t = "".join(f"; --max-requests {b} timed out after {int(w)} s" for b, w in sorted(timeouts))
        return f"bounded.py: no counterexample up to {r['requests']} requests ({r['states']} states){cap}{t}"
    return "bounded.py: no result"


def main():
    out = {}
    for path in sorted(glob.glob(os.path.join(HERE, "*.ser"))):
        name = os.path.basename(path)
        k, size = key_of(name)
        verdict, fam, note = NOTES[k]
        extra = {"hohw16.ser": "; the same protocol at size 3 (hohw3.ser) has no counterexample up to 5 requests"}.get(name, "")
        out[name] = {"expected": verdict, "family": fam, "size": size, "note": note, "checked": checked(name) + extra}
    json.dump(out, open(os.path.join(HERE, "expected.json"), "w"), indent=1)
    print(len(out), "entries")


if __name__ == "__main__":
    main()
