#!/usr/bin/env python3
"""checkstudy.py - an independent checker for a study directory.

Reads only the files (no dehbq code) and checks the invariants of
docs/protocol.md.  Usage: checkstudy.py STUDY [--finished]

Checks:
  - every trial id 0..issued-1 is in exactly one state: staged, pending,
    claimed, result waiting (results/ID.aN.WID.json, or an archived
    ID.trial.json without its result: the batch that tells a result moves
    the trial file first, the result an instant later) or
    ingested (archive/SSSS/ID.result.json); with --finished
    every one is ingested and nothing is left in staging/pending/claimed/
    results;
  - every result is ingested exactly once: one ID.result.json per id, and
    its id/attempt/study match; with --finished, progress/ and stop/ are
    empty and a stopped trial stopped within its fidelity;
  - the accounting is exact: FINISHED/status counts equal what the files
    show (issued, done, failed, duplicates);
  - the final optimiser state is a replay of the archived results: every
    finite fitness in every subpopulation of the newest snapshot is the
    loss of an archived ok result with the same vector at that fidelity,
    and both incumbents equal the minimum archived loss (overall, and at
    the maximum fidelity).
Prints figures and exits 1 on the first violated invariant.
"""
import glob, json, math, os, re, sys

def fail(msg):
    print("checkstudy: FAIL: " + msg)
    sys.exit(1)

def load(path):
    with open(path) as f:
        return json.load(f)

def main():
    root = sys.argv[1]
    finished = "--finished" in sys.argv
    study = load(os.path.join(root, "study.json"))
    sid = study["study"]
    states = {}
    def put(i, st):
        if i in states:
            fail("trial %08d is both %s and %s" % (i, states[i], st))
        states[i] = st
    for n in os.listdir(os.path.join(root, "staging")):
        if not n.startswith("."):
            put(int(n[:8]), "staged")
    for n in os.listdir(os.path.join(root, "pending")):
        if not n.startswith("."):
            put(int(n[3:11]), "pending")
    for n in os.listdir(os.path.join(root, "claimed")):
        if not n.startswith("."):
            put(int(n[:8]), "claimed")
    results = {}
    dups = 0
    for p in glob.glob(os.path.join(root, "archive", "*", "*")):
        n = os.path.basename(p)
        m = re.fullmatch(r"(\d{8})\.result\.json", n)
        if m:
            i = int(m.group(1))
            r = load(p)
            if r["id"] != m.group(1) or r["study"] != sid:
                fail("%s: id or study mismatch" % p)
            if i in results:
                fail("trial %08d ingested twice" % i)
            results[i] = r
            if states.get(i) in ("pending", "staged"):
                fail("trial %08d ingested and still %s" % (i, states[i]))
            states.pop(i, None)
            put(i, "ingested")
        elif n.endswith(".duplicate.json"):
            dups += 1
    left = [n for n in os.listdir(os.path.join(root, "results"))
            if not n.startswith(".")]
    snaps = sorted(glob.glob(os.path.join(root, "state", "snapshot-*.json")))
    if not snaps:
        fail("no snapshot")
    snap = load(snaps[-1])
    opt = snap["optimizer"]
    eng = opt["state"]
    # result waiting: the orchestrator archives the claim as ID.trial.json
    # an instant before the result.  Only ids the optimiser issued.
    waiting = [int(n[:8]) for n in left
               if re.fullmatch(r"\d{8}\.a\d+\.[0-9a-f]{12}\.json", n)]
    for p in glob.glob(os.path.join(root, "archive", "*", "*.trial.json")):
        m = re.fullmatch(r"(\d{8})\.trial\.json", os.path.basename(p))
        if m:
            waiting.append(int(m.group(1)))
    for i in waiting:
        if i < opt["books"]["asked"]:
            states.setdefault(i, "result waiting")
    issued = max(states) + 1 if states else 0
    for i in range(issued):
        if i not in states:
            fail("trial %08d is lost (in no state)" % i)
    inflight = {p[0] for p in snap["inflight"]}
    for i, st in states.items():
        if st != "ingested" and i not in inflight and not finished:
            pass  # a leftover the orchestrator retires on its next batch
    def trial_of(i):
        p = os.path.join(root, "archive", "%04d" % (i // 10000),
                         "%08d.trial.json" % i)
        return load(p) if os.path.exists(p) else None
    if finished:
        fin = load(os.path.join(root, "FINISHED"))
        c = fin["counts"]
        notdone = [i for i, s in states.items() if s != "ingested"]
        if notdone and study["runtime"]["drain"]:
            fail("finished but not ingested: %s" % notdone[:5])
        if left:
            fail("finished but results/ still holds %s" % left[:5])
        for d in ("progress", "stop"):  # a told trial's: archived
            p = os.path.join(root, d)
            rest = [n for n in os.listdir(p) if not n.startswith(".")] \
                if os.path.isdir(p) else []
            if rest:
                fail("finished but %s/ still holds %s" % (d, rest[:5]))
        for r in results.values():  # stopped: before the trial's fidelity
            t = trial_of(int(r["id"]))
            if r["status"] == "stopped" and t is not None and \
                    not 0 < r["fidelity"] <= t["fidelity"]:
                fail("trial %s stopped at fidelity %r, not within its %r" %
                     (r["id"], r["fidelity"], t["fidelity"]))
        if c["done"] != len(results):
            fail("FINISHED done=%d but %d results archived" %
                 (c["done"], len(results)))
        if c["issued"] != issued:
            fail("FINISHED issued=%d but %d trials exist" % (c["issued"], issued))
        if c["duplicates"] != dups:
            fail("FINISHED duplicates=%d but %d archived" % (c["duplicates"], dups))
        failed = sum(1 for r in results.values()
                     if r["status"] not in ("ok", "stopped"))
        if c["failed"] != failed:
            fail("FINISHED failed=%d but %d failed results" % (c["failed"], failed))
    # replay check: every finite fitness in the populations is the loss
    # archived for the job that produced it, with the same vector (in a
    # multi-objective study the fitness is the job's current score, which
    # moves with every result: only the job and its vector are checked)
    multi = "objectives" in study
    dim = opt["setup"]["dim"]
    checked = 0
    for pop in eng.get("pops", []) if isinstance(eng, dict) else []:
        xs, fits, jobs = pop["x"], pop["fit"], pop["job"]
        for k, f in enumerate(fits):
            if f is None or jobs[k] < 0:
                continue
            r = results.get(jobs[k])
            if r is None or r["status"] != "ok" or (r["loss"] != f and
                                                    not multi):
                fail("population slot holds fitness %r from job %d, which "
                     "has no matching archived result" % (f, jobs[k]))
            t = trial_of(jobs[k])
            if t is not None and t["vector"] != xs[k * dim:(k + 1) * dim]:
                fail("population slot of job %d holds another vector" % jobs[k])
            checked += 1
    ok = [r for r in results.values() if r["status"] == "ok"]
    inc = opt["books"]["best"]
    if ok and finished and not multi:
        best = min(r["loss"] for r in ok)
        if inc["any"]["loss"] != best:
            fail("incumbent %r != best archived loss %r" %
                 (inc["any"]["loss"], best))
        top = [r["loss"] for r in ok
               if trial_of(int(r["id"])) is not None and
               trial_of(int(r["id"]))["fidelity"] == study["fidelity"]["max"]]
        if top and inc["max"]["loss"] != min(top):
            fail("max-fidelity incumbent %r != best archived %r" %
                 (inc["max"]["loss"], min(top)))
    print("checkstudy: ok: %d trials, %d ingested, %d duplicates, %d "
          "in flight, %d population entries replay-checked" %
          (issued, len(results), dups,
           sum(1 for s in states.values() if s != "ingested"), checked))

main()
