#!/usr/bin/python3
"""gbtab.py - the shipped transfer benchmark (bench/data/gbtab.csv.gz) as a
trainer and as earlier results, for trying --transfer-from in seconds

  python3 gbtab.py tasks                      the task labels
  python3 gbtab.py export --exclude TASK      every other task's
                                              evaluations, as JSON lines
                                              for dehbq init --transfer-from
  python3 gbtab.py train TASK                 a trainer: looks the trial's
                                              configuration up in TASK

The table holds gradient boosting on 8 datasets, the same 500
configurations each, at 3, 9, 27 and 81 boosting rounds
(bench/data/make_gbtab.py).  As a trainer it takes the design point nearest
to the configuration (examples/space_gbtab.json), and reports the
validation log loss at the budget's rounds (3, 9, 27 or 81, the nearest)
and, as cost, that fit's share of the 81-round fit's time.  The table is
read with the standard library only.
"""
import csv
import gzip
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TABLE = os.environ.get("GBTAB") or os.path.join(HERE, "..", "bench", "data",
                                                "gbtab.csv.gz")
ROUNDS = (3, 9, 27, 81)
PARAMS = ("learning_rate", "max_depth", "subsample", "min_samples_leaf",
          "max_features")


def rows():
    with gzip.open(TABLE, "rt", newline="") as f:
        yield from csv.DictReader(f)


def unit(cfg):
    """The design's unit vector of a configuration (make_gbtab.py)."""
    return (
        (math.log10(float(cfg["learning_rate"])) + 2) / 2,
        (int(cfg["max_depth"]) - 1 + 0.5) / 6,
        (float(cfg["subsample"]) - 0.5) / 0.5,
        math.log(int(cfg["min_samples_leaf"])) / math.log(64),
        (float(cfg["max_features"]) - 0.2) / 0.8,
    )


def export(exclude):
    for r in rows():
        if r["task"] == exclude:
            continue
        for b in ROUNDS:
            out = {"task": r["task"], "fidelity": b,
                   "loss": float(r["loss_%d" % b])}
            for p in PARAMS:
                v = float(r[p])
                out[p] = int(v) if p in ("max_depth",
                                         "min_samples_leaf") else v
            print(json.dumps(out))


def train(task):
    try:
        from dehbq import trial
    except ImportError:  # not installed: the source tree's package
        sys.path.insert(0, os.path.join(HERE, "..", "python"))
        from dehbq import trial
    cfg = trial.config()
    b = min(ROUNDS, key=lambda r: abs(r - trial.budget()))
    u = unit(cfg)
    best, arg = math.inf, None
    for r in rows():
        if r["task"] != task:
            continue
        d = sum((float(r["u%d" % i]) - u[i]) ** 2 for i in range(5))
        if d < best:
            best, arg = d, r
    if arg is None:
        raise SystemExit("gbtab.py: no task %r in %s" % (task, TABLE))
    trial.report(float(arg["loss_%d" % b]),
                 cost=float(arg["time_81"]) * b / 81,
                 config=int(arg["config"]), error=float(arg["err_81"]))


def main():
    a = sys.argv[1:]
    if a[:1] == ["tasks"]:
        print("\n".join(sorted({r["task"] for r in rows()})))
    elif a[:2] == ["export", "--exclude"] and len(a) == 3:
        export(a[2])
    elif a[:1] == ["train"] and len(a) == 2:
        train(a[1])
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
