#!/usr/bin/python3
"""make_gbtab.py - the related-task tabular benchmark of the transfer issue

One model, scikit-learn's GradientBoostingClassifier, tuned on 8 related
tasks: 6 generated classification problems (make_classification, with
different numbers of informative features, label noise and class
separation) and 2 bundled ones (breast_cancer, wine).  Each task evaluates
the same fixed random design of 500 configurations of 5 hyperparameters at
4 fidelities, the number of boosting rounds 3, 9, 27 and 81 (one fit of 81
rounds, read at each stage with staged_predict_proba).

Columns of gbtab.csv (one row per task and configuration):
  task, config                 task label, configuration index 0..499
  learning_rate                log-uniform in [0.01, 1]
  max_depth                    integer in [1, 6]
  subsample                    uniform in [0.5, 1]
  min_samples_leaf             log-uniform integer in [1, 64]
  max_features                 uniform in [0.2, 1]
  u0 .. u4                     the design's unit-cube vector, from which
                               the five values above were decoded
  loss_3, loss_9, loss_27, loss_81
                               validation log loss after that many rounds
  err_81                       validation error rate after 81 rounds
  time_81                      seconds the 81-round fit took (cost at
                               fidelity b: time_81 * b / 81)

Deterministic from the seeds below, except time_81 (a measured time).

Usage: python3 make_gbtab.py [--configs N] OUT.csv   (then gzip -9n OUT.csv)
About 15 minutes on one core for 500 configurations.
"""
import argparse
import csv
import math
import sys
import time

import numpy as np
from sklearn.datasets import load_breast_cancer, load_wine, make_classification
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.metrics import log_loss
from sklearn.model_selection import train_test_split

STAGES = (3, 9, 27, 81)

# (label, n_informative, flip_y, class_sep): related, not identical
SYNTH = [
    ("synth_a", 4, 0.01, 1.0),
    ("synth_b", 6, 0.03, 0.8),
    ("synth_c", 8, 0.05, 1.2),
    ("synth_d", 10, 0.02, 0.6),
    ("synth_e", 5, 0.08, 1.0),
    ("synth_f", 12, 0.04, 0.9),
]


def tasks():
    for i, (name, inf, flip, sep) in enumerate(SYNTH):
        X, y = make_classification(n_samples=1200, n_features=20,
                                   n_informative=inf, n_redundant=2,
                                   flip_y=flip, class_sep=sep,
                                   random_state=100 + i)
        yield name, X, y
    X, y = load_breast_cancer(return_X_y=True)
    yield "breast_cancer", X, y
    X, y = load_wine(return_X_y=True)
    yield "wine", X, y


def design(n):
    r = np.random.RandomState(0)
    u = r.uniform(size=(n, 5))
    cfg = []
    for row in u:
        cfg.append({"u": row,
            "learning_rate": 10 ** (-2 + 2 * row[0]),
            "max_depth": 1 + min(5, int(row[1] * 6)),
            "subsample": 0.5 + 0.5 * row[2],
            "min_samples_leaf": int(round(math.exp(row[3] * math.log(64)))),
            "max_features": 0.2 + 0.8 * row[4],
        })
    return cfg


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--configs", type=int, default=500)
    ap.add_argument("out")
    a = ap.parse_args()
    cfgs = design(a.configs)
    with open(a.out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["task", "config", "learning_rate", "max_depth",
                    "subsample", "min_samples_leaf", "max_features"] +
                   ["u%d" % i for i in range(5)] +
                   ["loss_%d" % s for s in STAGES] + ["err_81", "time_81"])
        for name, X, y in tasks():
            Xtr, Xva, ytr, yva = train_test_split(X, y, test_size=0.33,
                                                  random_state=1,
                                                  stratify=y)
            t_task = time.time()
            for k, c in enumerate(cfgs):
                hp = {k2: v for k2, v in c.items() if k2 != "u"}
                m = GradientBoostingClassifier(n_estimators=STAGES[-1],
                                               random_state=k, **hp)
                t0 = time.time()
                m.fit(Xtr, ytr)
                dt = time.time() - t0
                losses = {}
                for s, p in enumerate(m.staged_predict_proba(Xva), 1):
                    if s in STAGES:
                        losses[s] = log_loss(yva, np.clip(p, 1e-6, 1),
                                             labels=m.classes_)
                err = float(np.mean(m.predict(Xva) != yva))
                w.writerow([name, k, "%.6g" % c["learning_rate"],
                            c["max_depth"], "%.6g" % c["subsample"],
                            c["min_samples_leaf"],
                            "%.6g" % c["max_features"]] +
                           ["%.17g" % v for v in c["u"]] +
                           ["%.6g" % losses[s] for s in STAGES] +
                           ["%.6g" % err, "%.4g" % dt])
            print("%s: %d configurations in %.0f s" %
                  (name, len(cfgs), time.time() - t_task), file=sys.stderr)


if __name__ == "__main__":
    main()
