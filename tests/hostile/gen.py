#!/usr/bin/env python3
"""gen.py STUDY MANIFEST - drop malformed and hostile files into every
directory of a running study that the programs read.

Writes MANIFEST: one line per file, "DIR<TAB>NAME-repr<TAB>KIND", where
NAME-repr is Python's repr of the name (names may hold control characters).
Files are created in place (a hostile writer does not use tmp+rename); the
content files are written to a dotfile first and renamed, so a reader never
sees them half-written (that is tested elsewhere).  Most ids are chosen so
that no hostile file can be a valid forgery of a real trial's result; the
"forgery" kinds at the end are exactly that: copies of real, told trials'
files and results (real ids, real attempts) with a wrong or missing token,
which must be quarantined, never archived under the real id.
"""
import glob, json, os, sys

root, manifest = sys.argv[1], sys.argv[2]
study = json.load(open(os.path.join(root, "study.json")))["study"]
out = []


SKIP = set(k for k in os.environ.get("HOSTILE_SKIP", "").split(",") if k)


class Skipped(Exception):
    pass


def put(d, name, data=None, kind=""):
    if "%s:%s" % (d, kind) in SKIP:
        raise Skipped()
    dp = os.path.join(root, d)
    os.makedirs(dp, exist_ok=True)
    p = os.path.join(dp, name)
    if data is not None:
        tmp = os.path.join(dp, ".hostile.%d.tmp" % len(out))
        with open(tmp, "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode())
        os.rename(tmp, p)
    out.append((d, name, kind))
    return p


def trial(i, **kw):
    t = {"format": "dehbq-trial/1", "id": "%08d" % i, "study": study,
         "epoch": 1, "bracket": 0, "rung": 0, "fidelity": 1, "kind": "trial",
         "parent": None, "attempt": 1, "created": "2026-11-22T04:30:00.123Z",
         "seed": 1, "config": {"x": 0.5, "layers": 2, "opt": "adam"},
         "vector": [0.5, 0.2, 0.1]}
    t.update(kw)
    return json.dumps(t, indent=1)


def result(i, w="abcdefabcdef", raw_loss=None, **kw):
    r = {"format": "dehbq-result/1", "id": "%08d" % i, "study": study,
         "attempt": 1, "status": "ok", "loss": 0.5, "cost": 1, "info": {},
         "worker": w, "host": "evil", "pid": 1,
         "started": "2026-11-22T04:30:00.123Z",
         "finished": "2026-11-22T04:30:01.123Z", "wall_time": 1,
         "max_rss_kb": -1, "exit_code": 0, "signal": 0}
    r.update(kw)
    s = json.dumps(r, indent=1)
    if raw_loss is not None:
        s = s.replace('"loss": 0.5', '"loss": ' + raw_loss)
    return s


DEEP = "[" * 100000
BIG = 100 * 1024 * 1024


def big(d, name):
    p = put(d, name, None, "100 MB file")  # raises Skipped if skipped
    with open(p, "wb") as f:
        f.truncate(BIG)  # sparse: cheap to make, 100 MB to read


# ---- results/ (read by the orchestrator) ---------------------------------
R = "results"
try:
    put(R, "99999901.a1.abcdefabcdef.json", result(99999901)[:40], "truncated JSON")
except Skipped:
    pass
try:
    put(R, "99999902.a1.abcdefabcdef.json", result(99999902, raw_loss="NaN"), "NaN token")
except Skipped:
    pass
try:
    put(R, "99999903.a1.abcdefabcdef.json", result(99999903, raw_loss="Infinity"), "Infinity token")
except Skipped:
    pass
try:
    put(R, "99999904.a1.abcdefabcdef.json", result(99999904, raw_loss="1e400"), "1e400")
except Skipped:
    pass
try:
    put(R, "99999905.a1.abcdefabcdef.json", DEEP, "100k '[' nesting")
except Skipped:
    pass
try:
    put(R, "99999906.a1.abcdefabcdef.json", result(99999906, loss="low", attempt="one"), "wrong types")
except Skipped:
    pass
try:
    big(R, "99999907.a1.abcdefabcdef.json")
except Skipped:
    pass
try:
    put(R, "99999908.a1.abcdefabcdef.json", result(99999908), "valid result, unknown id")
except Skipped:
    pass
try:
    put(R, "99999909.a1.abcdefabcdef.json", result(99999909, id="../../etc/passwd"), "id with .. inside")
except Skipped:
    pass
try:
    put(R, "..%2F..%2Fetc.a1.abcdefabcdef.json", result(99999910), "bad name")
except Skipped:
    pass
try:
    os.symlink("/etc/passwd", put(R, "99999911.a1.abcdefabcdef.json", None, "symlink to /etc/passwd"))
except Skipped:
    pass
try:
    os.mkfifo(put(R, "99999912.a1.abcdefabcdef.json", None, "FIFO"))
except Skipped:
    pass
try:
    os.chmod(put(R, "99999913.a1.abcdefabcdef.json", result(99999913), "unreadable (chmod 000)"), 0)
except Skipped:
    pass
try:
    os.mkdir(put(R, "99999914.a1.abcdefabcdef.json", None, "directory"))
except Skipped:
    pass
try:
    put(R, "99999915.a1.abcdefabcdef.json", b"", "empty file")
except Skipped:
    pass
try:
    put(R, "99999916.a1.abc\ndef.json", result(99999916), "newline in name")
except Skipped:
    pass
try:
    put(R, "\x1b[31m99999917.a1.abcdefabcdef.json", result(99999917), "escape sequence in name")
except Skipped:
    pass
try:
    put(R, ".nfs000000000099999918", result(99999918), ".nfsXXXX silly rename")
except Skipped:
    pass
try:
    put(R, "99999919.a1.abcdefabcdef.json", '{"format": "dehbq-result/1", "format": "x"}', "duplicate key")
except Skipped:
    pass
try:
    put(R, "99999920.a1.abcdefabcdef.json", result(99999920, study="0" * 36), "wrong study")
except Skipped:
    pass

# ---- pending/ (read by workers) -------------------------------------------
P = "pending"
try:
    put(P, "99-99999930.json", trial(99999930)[:50], "truncated JSON")
except Skipped:
    pass
try:
    put(P, "99-99999931.json", trial(99999931).replace('"seed": 1', '"seed": NaN'), "NaN token")
except Skipped:
    pass
try:
    put(P, "99-99999932.json", trial(99999932).replace('"fidelity": 1', '"fidelity": 1e400'), "1e400")
except Skipped:
    pass
try:
    put(P, "99-99999933.json", DEEP, "100k '[' nesting")
except Skipped:
    pass
try:
    put(P, "99-99999934.json", trial(99999934, config={"x": "rm -rf /", "layers": [], "opt": 7}), "wrong types")
except Skipped:
    pass
try:
    big(P, "99-99999935.json")
except Skipped:
    pass
try:
    put(P, "99-99999936.json", trial(99999936, id="../../../etc/passwd"), "id with .. inside")
except Skipped:
    pass
try:
    os.symlink("/etc/passwd", put(P, "99-99999937.json", None, "symlink to /etc/passwd"))
except Skipped:
    pass
try:
    os.mkfifo(put(P, "99-99999938.json", None, "FIFO"))
except Skipped:
    pass
try:
    os.chmod(put(P, "99-99999939.json", trial(99999939), "unreadable (chmod 000)"), 0)
except Skipped:
    pass
try:
    os.mkdir(put(P, "99-99999940.json", None, "directory"))
except Skipped:
    pass
try:
    put(P, "99-99999941.json", b"", "empty file")
except Skipped:
    pass
try:
    put(P, "99-9999\n9942.json", trial(99999942), "newline in name")
except Skipped:
    pass
try:
    put(P, ".nfs000000000099999943", trial(99999943), ".nfsXXXX silly rename")
except Skipped:
    pass
try:
    put(P, "99-99999944.json", trial(99999944, study="0" * 36), "wrong study")
except Skipped:
    pass
try:
    put(P, "99-99999945.json", trial(99999945, extra={"a": 1}), "unknown field")
except Skipped:
    pass

# ---- claimed/ (read by the orchestrator) ----------------------------------
C = "claimed"
try:
    put(C, "99999950@evil.1.abcdefabcdef.json", trial(99999950)[:30], "truncated JSON")
except Skipped:
    pass
try:
    put(C, "99999951@..%2F.1.abcdefabcdef.json", trial(99999951), "bad host part")
except Skipped:
    pass
try:
    os.symlink("/etc/passwd", put(C, "99999952@evil.1.abcdefabcdef.json", None, "symlink to /etc/passwd"))
except Skipped:
    pass
try:
    os.mkfifo(put(C, "99999953@evil.1.abcdefabcdef.json", None, "FIFO"))
except Skipped:
    pass
try:
    put(C, "99999954@evil.1.abcdefabcdef.json", trial(99999954), "unknown id")
except Skipped:
    pass
try:
    put(C, "garbage\x07.json", b"{}", "control character in name")
except Skipped:
    pass

# ---- workers/ (read by the orchestrator) ----------------------------------
W = "workers"
try:
    put(W, "evil.1.abcdefabcdef.json", DEEP, "100k '[' nesting")
except Skipped:
    pass
try:
    os.symlink("/etc/passwd", put(W, "evil.2.abcdefabcdef.json", None, "symlink to /etc/passwd"))
except Skipped:
    pass
try:
    os.mkfifo(put(W, "evil.3.abcdefabcdef.json", None, "FIFO"))
except Skipped:
    pass
try:
    put(W, "not-a-worker", b"hello", "bad name")
except Skipped:
    pass
try:
    big(W, "evil.4.abcdefabcdef.json")
except Skipped:
    pass

# ---- state/requests/ (read by the orchestrator) ---------------------------
Q = "state/requests"
try:
    put(Q, "r1.json", '{"format": "dehbq-request/1", "action": "requeue", "trial": "../../etc/passwd"}', "id with .. inside")
except Skipped:
    pass
try:
    put(Q, "r2.json", '{"format": "dehbq-request/1", "action": "rm -rf /"}', "unknown action")
except Skipped:
    pass
try:
    put(Q, "r3.json", DEEP, "100k '[' nesting")
except Skipped:
    pass
try:
    os.symlink("/etc/passwd", put(Q, "r4.json", None, "symlink to /etc/passwd"))
except Skipped:
    pass
try:
    os.mkfifo(put(Q, "r5.json", None, "FIFO"))
except Skipped:
    pass
try:
    put(Q, "r6.json", b"", "empty file")
except Skipped:
    pass
try:
    put(Q, "r7.json", '{"format": "dehbq-request/1", "action": "requeue", "trial": "99999999"}', "unknown id")
except Skipped:
    pass

# ---- staging/ and state/ (read by the orchestrator at restart) ------------
try:
    put("staging", "99999960.json", trial(99999960), "unknown staged trial")
except Skipped:
    pass
try:
    os.symlink("/etc/passwd", put("staging", "99999961.json", None, "symlink to /etc/passwd"))
except Skipped:
    pass
try:
    put("state", "snapshot-000099-0000000001.json", DEEP, "corrupt newest snapshot")
except Skipped:
    pass

# ---- valid forgeries: real ids and attempts, wrong identity ---------------
told = sorted(glob.glob(os.path.join(root, "archive", "*", "*[0-9].trial.json")))
for k, tp in enumerate(told[:2]):
    rp = tp[:-len(".trial.json")] + ".result.json"
    try:
        t, r = json.load(open(tp)), json.load(open(rp))
    except (OSError, ValueError):
        continue
    i = int(t["id"])
    wrong = "%016x" % (0x0123456789abcdef + k)
    t["token"] = wrong
    try:
        put(P, "99-%08d.json" % i, json.dumps(t, indent=1), "forgery: told trial's file, wrong token")
    except Skipped:
        pass
    try:
        put(C, "%08d@evil.%d.abcdefabcde%d.json" % (i, k + 2, k), json.dumps(t, indent=1),
            "forgery: claim of a told trial, wrong token")
    except Skipped:
        pass
    r["token"], r["worker"] = wrong, "abcdefabcde%d" % k
    try:
        put(R, "%08d.a%d.abcdefabcde%d.json" % (i, r["attempt"], k), json.dumps(r, indent=1),
            "forgery: told trial's result, wrong token")
    except Skipped:
        pass
    del r["token"]
    r["worker"] = "abcdefabcdf%d" % k
    try:
        put(R, "%08d.a%d.abcdefabcdf%d.json" % (i, r["attempt"], k), json.dumps(r, indent=1),
            "forgery: told trial's result, no token")
    except Skipped:
        pass

with open(manifest, "w") as f:
    for d, n, k in out:
        if k:
            f.write("%s\t%r\t%s\n" % (d, n, k))
print(len([o for o in out if o[2]]))
