#!/usr/bin/python3
"""lctab.py - the shipped learning-curve benchmark (bench/data/lctab.csv.gz)
as a live trainer: it prints its curve epoch by epoch and stops when asked

  python3 lctab.py tasks                  the task labels
  python3 lctab.py train TASK [SECS]      a trainer: looks the trial's
                                          configuration up in TASK and
                                          prints one intermediate result
                                          per epoch, sleeping SECS per
                                          epoch (default 0)

The table holds a small MLP trained with SGD, epoch by epoch, on 4
datasets, the same 300 configurations each, with the validation log loss
after every epoch 1..27 (bench/data/make_lctab.py).  As a trainer it takes
the design point nearest to the configuration (examples/space_lctab.json;
distance over the parameters scaled as the design drew them) and, for
epochs 1..budget, reports {"fidelity": e, "loss": loss_e} through
dehbq.trial.intermediate.  It has no checkpoints: a study runs it at one
fidelity (27) under a stopping scheduler, which ends poor curves early
(dehbq init --scheduler asha-stop).  When the worker asks it to stop
(trial.should_stop), it ends at once; its last point is its result.
The table is read with the standard library only.
"""
import csv
import gzip
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TABLE = os.environ.get("LCTAB") or os.path.join(HERE, "..", "bench", "data",
                                                "lctab.csv.gz")
EPOCHS = 27
# parameter: (low, high, log), as make_lctab.py draws them
PARAMS = {"learning_rate": (1e-4, 1.0, True), "alpha": (1e-6, 1e-1, True),
          "width": (8, 256, True), "batch_size": (16, 256, True),
          "momentum": (0.5, 0.99, False)}


def rows():
    with gzip.open(TABLE, "rt", newline="") as f:
        yield from csv.DictReader(f)


def unit(cfg):
    """Each parameter in [0, 1], scaled as the design drew it."""
    out = []
    for name, (lo, hi, log) in PARAMS.items():
        v = float(cfg[name])
        if log:
            out.append((math.log(v) - math.log(lo)) /
                       (math.log(hi) - math.log(lo)))
        else:
            out.append((v - lo) / (hi - lo))
    return out


def train(task, secs):
    try:
        from dehbq import trial
    except ImportError:  # not installed: the source tree's package
        sys.path.insert(0, os.path.join(HERE, "..", "python"))
        from dehbq import trial
    u = unit(trial.config())
    best, arg = math.inf, None
    for r in rows():
        if r["task"] != task:
            continue
        d = sum((a - b) ** 2 for a, b in zip(unit(r), u))
        if d < best:
            best, arg = d, r
    if arg is None:
        raise SystemExit("lctab.py: no task %r in %s" % (task, TABLE))
    epochs = max(1, min(EPOCHS, int(round(trial.budget()))))
    per_epoch = float(arg["time_%d" % EPOCHS]) / EPOCHS
    for e in range(1, epochs + 1):
        if secs:
            time.sleep(secs)
        trial.intermediate(float(arg["loss_%d" % e]), e, cost=per_epoch * e,
                           config=int(arg["config"]))
        if trial.should_stop():
            return


def main():
    a = sys.argv[1:]
    if a[:1] == ["tasks"]:
        print("\n".join(sorted({r["task"] for r in rows()})))
    elif a[:1] == ["train"] and len(a) in (2, 3):
        train(a[1], float(a[2]) if len(a) == 3 else 0.0)
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
