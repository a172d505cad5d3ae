#!/usr/bin/python3
"""make_lctab.py - the learning-curve tabular benchmark of the live-trials
issue (#35)

One model, scikit-learn's MLPClassifier (one hidden layer, SGD with
Nesterov momentum), trained epoch by epoch with partial_fit on 4 tasks:
2 bundled datasets (digits, breast_cancer) and 2 generated ones
(make_classification).  Each task trains the same fixed random design of
300 configurations of 5 hyperparameters for 27 epochs and records the
validation log loss after every epoch: the curves a stopping scheduler
sees, one point per epoch.

Columns of lctab.csv (one row per task and configuration):
  task, config                 task label, configuration index 0..299
  learning_rate                log-uniform in [1e-4, 1]
  alpha                        L2 penalty, log-uniform in [1e-6, 1e-1]
  width                        hidden units, log-uniform integer [8, 256]
  batch_size                   log-uniform integer in [16, 256]
  momentum                     uniform in [0.5, 0.99]
  u0 .. u4                     the design's unit-cube vector, from which
                               the five values above were decoded
  loss_1 .. loss_27            validation log loss after that many epochs;
                               a run that diverges (a non-finite
                               prediction, an error, or a loss above
                               CAP = 3 ln K for K classes) holds CAP from
                               then on
  err_27                       validation error rate after 27 epochs
  time_27                      seconds the 27 partial_fit calls took
                               (evaluation excluded; the cost of epoch e
                               is time_27 / 27 each)

Deterministic from the seeds below, except time_27 (a measured time).

Usage: python3 make_lctab.py [--configs N] [--jobs J] OUT.csv
       (then gzip -9n OUT.csv)
About 5 minutes with 2 processes (--jobs 2) for 300 configurations.
"""
import argparse
import csv
import math
import sys
import time
import warnings
from multiprocessing import Pool

import numpy as np
from sklearn.datasets import load_breast_cancer, load_digits, \
    make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import log_loss
from sklearn.model_selection import train_test_split
from sklearn.neural_network import MLPClassifier
from sklearn.preprocessing import StandardScaler

EPOCHS = 27
TASKS = ("digits", "breast_cancer", "synth_a", "synth_b")


def dataset(name):
    if name == "digits":
        return load_digits(return_X_y=True)
    if name == "breast_cancer":
        return load_breast_cancer(return_X_y=True)
    if name == "synth_a":
        return make_classification(n_samples=2000, n_features=20,
                                   n_informative=6, n_redundant=2,
                                   n_classes=2, flip_y=0.05,
                                   random_state=11)
    return make_classification(n_samples=2000, n_features=20,
                               n_informative=8, n_redundant=2, n_classes=4,
                               flip_y=0.02, random_state=12)


def split(name):
    X, y = dataset(name)
    seed = TASKS.index(name) + 1
    Xt, Xv, yt, yv = train_test_split(X, y, test_size=0.25, stratify=y,
                                      random_state=seed)
    sc = StandardScaler().fit(Xt)
    return sc.transform(Xt), sc.transform(Xv), yt, yv


def logu(u, lo, hi):
    return math.exp(math.log(lo) + u * (math.log(hi) - math.log(lo)))


def decode(u):
    return {
        "learning_rate": logu(u[0], 1e-4, 1.0),
        "alpha": logu(u[1], 1e-6, 1e-1),
        "width": min(256, int(math.floor(logu(u[2], 8, 257)))),
        "batch_size": min(256, int(math.floor(logu(u[3], 16, 257)))),
        "momentum": 0.5 + u[4] * 0.49,
    }


def design(n):
    return np.random.default_rng(0).random((n, 5))


_DATA = {}


def curve(args):
    """One configuration on one task: its row."""
    task, c, u = args
    if task not in _DATA:
        _DATA[task] = split(task)
    Xt, Xv, yt, yv = _DATA[task]
    classes = np.unique(np.concatenate([yt, yv]))
    cap = 3 * math.log(len(classes))
    p = decode(u)
    m = MLPClassifier(hidden_layer_sizes=(p["width"],), solver="sgd",
                      learning_rate_init=p["learning_rate"],
                      alpha=p["alpha"], batch_size=p["batch_size"],
                      momentum=p["momentum"], nesterovs_momentum=True,
                      random_state=c)
    losses, secs, err, dead = [], 0.0, 1.0, False
    for _ in range(EPOCHS):
        if dead:
            losses.append(cap)
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t0 = time.perf_counter()
                m.partial_fit(Xt, yt, classes=classes)
                secs += time.perf_counter() - t0
                pr = m.predict_proba(Xv)
            if not np.all(np.isfinite(pr)):
                raise FloatingPointError
            ll = log_loss(yv, pr, labels=classes)
            if not math.isfinite(ll) or ll > cap:
                raise FloatingPointError
            losses.append(ll)
            err = float(np.mean(classes[np.argmax(pr, axis=1)] != yv))
        except (FloatingPointError, ValueError, OverflowError):
            dead, err = True, 1.0
            losses.append(cap)
    if dead:
        err = 1.0
    row = [task, c] + [p[k] for k in ("learning_rate", "alpha", "width",
                                      "batch_size", "momentum")]
    return row + list(u) + losses + [err, secs]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--configs", type=int, default=300)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("out")
    a = ap.parse_args()
    warnings.filterwarnings("ignore", category=ConvergenceWarning)
    np.seterr(all="ignore")
    U = design(a.configs)
    work = [(t, c, U[c].tolist()) for t in TASKS for c in range(a.configs)]
    head = (["task", "config", "learning_rate", "alpha", "width",
             "batch_size", "momentum"] + ["u%d" % i for i in range(5)] +
            ["loss_%d" % e for e in range(1, EPOCHS + 1)] +
            ["err_27", "time_27"])
    with open(a.out, "w", newline="") as f, Pool(a.jobs) as pool:
        w = csv.writer(f)
        w.writerow(head)
        for k, row in enumerate(pool.imap(curve, work, chunksize=4)):
            w.writerow([("%.10g" % v) if isinstance(v, float) else v
                        for v in row])
            if k % 100 == 99:
                sys.stderr.write("%d/%d\n" % (k + 1, len(work)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
