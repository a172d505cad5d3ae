#!/usr/bin/env python3
"""claim_latency.py - publish -> trainer start latency of an idle worker.

Usage: claim_latency.py BINDIR DIR N

Creates a study in DIR (a local-disk directory), starts one dehbq-worker
with inotify, and N times: publishes one trial by rename(2) into pending/
(the moment the orchestrator would) and waits for the trainer to start.
The trainer records its start time (CLOCK_REALTIME, same host) as its first
action; latency = trainer start - the instant just before the rename.  This
includes the worker's wake-up, the claim rename, validation, the workdir
and config file, and fork+exec of the trainer.  Each publish waits until
the previous trial's result exists, so the worker is idle every time.
Prints p50/p90/p99/max in ms and a CSV line on stdout's last line.
"""
import json, os, subprocess, sys, time

def main():
    bindir, root, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    os.makedirs(root, exist_ok=True)
    space = os.path.join(root, "space.json")
    with open(space, "w") as f:
        json.dump({"format": "dehbq-space/1", "parameters": [
            {"name": "x", "type": "float", "low": 0, "high": 1}]}, f)
    study = os.path.join(root, "s")
    subprocess.run([os.path.join(bindir, "dehbq"), "init", study, "--space",
                    space, "--min-budget", "1", "--max-budget", "9",
                    "--fevals", str(n)], check=True, stdout=subprocess.DEVNULL)
    sid = json.load(open(os.path.join(study, "study.json")))["study"]
    marks = os.path.join(root, "starts")
    w = subprocess.Popen([os.path.join(bindir, "dehbq-worker"), "--study",
                          study, "--max-poll", "5", "--idle-exit", "60", "--",
                          "/bin/sh", "-c",
                          'printf "%s %s\\n" "$1" "$(date +%s.%N)" >> "$0"; '
                          'echo \'{"loss": 0}\'', marks, "{id}"],
                         stderr=subprocess.DEVNULL)
    time.sleep(1.0)  # let it scan, find nothing and wait on inotify
    lat = []
    try:
        for i in range(n):
            tid = "%08d" % i
            t = {"format": "dehbq-trial/1", "id": tid, "study": sid,
                 "epoch": 1, "bracket": 0, "rung": 0, "fidelity": 1,
                 "kind": "random", "parent": None, "attempt": 1,
                 "created": time.strftime("%Y-%m-%dT%H:%M:%S.000Z",
                                          time.gmtime()),
                 "seed": i, "config": {"x": 0.5}, "vector": [0.5]}
            tmp = os.path.join(study, "pending", ".t%s.tmp" % tid)
            with open(tmp, "w") as f:
                json.dump(t, f)
                f.flush()
                os.fsync(f.fileno())
            t0 = time.time()
            os.rename(tmp, os.path.join(study, "pending", "99-%s.json" % tid))
            res = os.path.join(study, "results")
            deadline = time.time() + 30
            while not any(x.startswith(tid) for x in os.listdir(res)):
                if time.time() > deadline:
                    raise SystemExit("trial %s never ran" % tid)
                time.sleep(0.002)
            with open(marks) as f:
                start = float(f.read().split("\n")[i].split()[1])
            lat.append((start - t0) * 1000.0)
            time.sleep(0.05 + (i % 7) * 0.01)  # let the worker go idle
    finally:
        w.terminate()
        w.wait()
    # the trainer's own start-up before it reads the clock (sh + date)
    t0 = time.time()
    for _ in range(20):
        subprocess.run(["/bin/sh", "-c", 'date +%s.%N >/dev/null'])
    shell = (time.time() - t0) / 20 * 1000.0
    lat.sort()
    q = lambda p: lat[min(len(lat) - 1, int(p * len(lat)))]
    print("claim latency, idle worker woken by inotify, %d trials: "
          "p50 %.2f ms  p90 %.2f ms  p99 %.2f ms  max %.2f ms "
          "(includes the trainer's sh+date start-up, about %.2f ms)"
          % (n, q(0.5), q(0.9), q(0.99), lat[-1], shell))
    print("csv,%d,%.3f,%.3f,%.3f,%.3f,%.3f" % (n, q(0.5), q(0.9), q(0.99),
                                               lat[-1], shell))

main()
