#!/usr/bin/env python3
"""studystats.py - figures from a finished study's archive

For every ingested trial, reads archive/SSSS/ID.trial.json ("created": when
the orchestrator wrote the trial) and ID.result.json ("started",
"finished", "wall_time" from the worker).  Prints one line:

  n=N lat_p50_ms=.. lat_p99_ms=.. makespan_s=.. busy_s=.. util=..

- latency: result "started" minus trial "created", the time from the
  orchestrator writing a trial to the trainer being started.  It is an
  upper bound of publish -> claim: it also holds the batch's snapshot
  write before the publish, and the worker's validation and fork/exec
  after the claim.  Timestamps have millisecond resolution.
- With W, the idle time is split into: startup (first trial "created" to
  each worker's first "started"), gaps (between a worker's "finished" and
  its next "started") and tail (a worker's last "finished" to the end),
  each as a fraction of W * makespan; workers that ran nothing count as
  idle for the whole makespan, under startup.
- Trials whose trial file is missing (n < trials) are skipped.
- util (with W given): sum of wall_time / (W * makespan), makespan from the
  first trial's "created" to the last result's "finished".

Usage: studystats.py STUDY [W]
"""
import datetime
import json
import os
import sys


def ts(s):
    return datetime.datetime.strptime(
        s, "%Y-%m-%dT%H:%M:%S.%fZ").replace(
        tzinfo=datetime.timezone.utc).timestamp()


def pct(xs, q):
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main():
    root = sys.argv[1]
    w = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    lat, busy, first, last = [], 0.0, None, None
    runs = {}
    arch = os.path.join(root, "archive")
    for shard in sorted(os.listdir(arch)):
        d = os.path.join(arch, shard)
        names = set(os.listdir(d))
        # A claim the orchestrator saw only after ingesting its result is
        # archived as claimed.ID@HOST.PID.WID.stale.json, not ID.trial.json.
        stale = {n[8:16]: n for n in names
                 if n.startswith("claimed.") and n.endswith(".stale.json")}
        for name in names:
            if not name.endswith(".result.json"):
                continue
            tid = name.split(".")[0]
            tname = tid + ".trial.json"
            if tname not in names and tid in stale:
                tname = stale[tid]
            try:
                with open(os.path.join(d, name)) as f:
                    r = json.load(f)
                with open(os.path.join(d, tname)) as f:
                    t = json.load(f)
            except (OSError, ValueError):
                continue
            if r.get("worker") == "000000000000":
                continue
            c, s, e = ts(t["created"]), ts(r["started"]), ts(r["finished"])
            lat.append(s - c)
            runs.setdefault(r["worker"], []).append((s, e))
            busy += r["wall_time"]
            first = c if first is None else min(first, c)
            last = e if last is None else max(last, e)
    span = (last - first) if lat else float("nan")
    util = busy / (w * span) if w and lat and span > 0 else float("nan")
    startup = gaps = tail = float("nan")
    if w and lat and span > 0:
        startup = gaps = tail = 0.0
        for v in runs.values():
            v.sort()
            startup += v[0][0] - first
            gaps += sum(v[i + 1][0] - v[i][1] for i in range(len(v) - 1))
            tail += last - v[-1][1]
        startup += max(0, w - len(runs)) * span
        startup, gaps, tail = (x / (w * span) for x in (startup, gaps, tail))
    print("n=%d lat_p50_ms=%.1f lat_p99_ms=%.1f makespan_s=%.3f busy_s=%.3f "
          "util=%.4f idle_startup=%.4f idle_gaps=%.4f idle_tail=%.4f"
          % (len(lat), pct(lat, 0.5) * 1e3, pct(lat, 0.99) * 1e3, span, busy,
             util, startup, gaps, tail))
    return 0


if __name__ == "__main__":
    sys.exit(main())
