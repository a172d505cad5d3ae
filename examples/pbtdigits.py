#!/usr/bin/python3
"""pbtdigits.py - a dehbq trainer that checkpoints, for --scheduler pbt.

Trains sklearn.linear_model.SGDClassifier (logistic loss, a constant
learning rate) on the digits data bundled with scikit-learn (load_digits:
no download; Debian package python3-sklearn), one epoch of partial_fit per
fidelity unit, and reports the validation log loss.

  data     fixed stratified split 60 % train / 20 % validation / 20 % test
           (random_state 0, identical in every trial)
  budget   epochs to have trained in all: int(round(budget)), at least 1
  space    examples/space_pbtdigits.json: eta0 (the learning rate, log
           scale) and alpha (L2 regularisation, log scale)
  report   {"loss": validation log loss, "cost": wall seconds,
            "info": {"test_error", "epochs", "trained_epochs",
                     "resumed_from", "from_trial"}}

A PBT segment continues training: when dehbq-worker passes a parent work
directory ({parent_workdir}, $DEHBQ_PARENT_WORKDIR) with a model.pkl, the
model is loaded with its weights and epoch count, whatever configuration
trained it, and trains the missing epochs with this trial's eta0 and alpha
(an exploit takes the donor's weights and new hyperparameters).  The
checkpoint records the trial that wrote it ($DEHBQ_TRIAL_ID); info
"from_trial" is that of the checkpoint this trial started from (-1: from
scratch), so the lineage can be checked against the study's: every
segment starts from its parent trial's checkpoint, a donor's when it
exploited one.  A checkpoint is a pickle: only load study directories you
trust.

Usage:
  dehbq init S --space examples/space_pbtdigits.json --min-budget 1 \\
      --max-budget 12 --scheduler pbt --searcher random --fevals 1000
  dehbq-worker --study S -- python3 $PWD/examples/pbtdigits.py

Exit codes: 0 ok; 100 bad configuration (one line on stderr); 111 system
failure (missing scikit-learn, unwritable result); 112 the parent's
checkpoint is missing or damaged (a fresh segment cannot start from it:
the trial fails and PBT resamples the member).
"""

import os

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import pickle
import sys
import time
import warnings

try:
    from dehbq import trial
except ImportError:  # run from a dehbq source tree, not installed
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(
        __file__)), os.pardir, "python"))
    from dehbq import trial

EXIT_USAGE = 100
EXIT_SYS = 111
EXIT_CHECKPOINT = 112
CHECKPOINT = "model.pkl"
SPACE = {"eta0": (1e-5, 1.0), "alpha": (1e-7, 1e-1)}


def die(code, msg):
    print("pbtdigits: " + msg, file=sys.stderr)
    sys.exit(code)


def check_config(cfg):
    extra = sorted(set(cfg) - set(SPACE))
    if extra:
        die(EXIT_USAGE, "config: unknown parameter '%s' (use "
            "examples/space_pbtdigits.json)" % extra[0])
    for name, (lo, hi) in SPACE.items():
        v = cfg.get(name)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or \
                not lo <= v <= hi:
            die(EXIT_USAGE, "config: '%s' = %r: want a number in [%g, %g]"
                % (name, v, lo, hi))
        cfg[name] = float(v)
    return cfg


def load_data():
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    x, y = load_digits(return_X_y=True)
    x_tr, x_rest, y_tr, y_rest = train_test_split(
        x, y, train_size=0.6, stratify=y, random_state=0)
    x_va, x_te, y_va, y_te = train_test_split(
        x_rest, y_rest, train_size=0.5, stratify=y_rest, random_state=0)
    sc = StandardScaler().fit(x_tr)
    return (sc.transform(x_tr), y_tr, sc.transform(x_va), y_va,
            sc.transform(x_te), y_te)


def load_parent(parent, epochs):
    """The parent's checkpoint, or None without a parent."""
    if not parent:
        return None
    path = os.path.join(parent, CHECKPOINT)
    try:
        with open(path, "rb") as f:
            ck = pickle.load(f)
    except Exception as e:
        die(EXIT_CHECKPOINT, "%s: no usable checkpoint (%s)" % (path, e))
    if not isinstance(ck, dict) or not 0 < ck.get("epochs", 0) < epochs:
        die(EXIT_CHECKPOINT, "%s: a checkpoint of %r epochs cannot "
            "continue to %d" % (path, ck.get("epochs") if isinstance(
                ck, dict) else None, epochs))
    return ck


def main():
    t0 = time.time()
    try:
        cfg = check_config(trial.config())
        epochs = max(1, int(round(trial.budget())))
        seed = trial.seed() % (2 ** 32)
        me = int(trial.trial_id() or -1)  # -1: run by hand
    except (trial.TrialError, ValueError) as e:
        die(EXIT_USAGE, str(e))
    try:
        import numpy as np
        from sklearn.exceptions import ConvergenceWarning
        from sklearn.linear_model import SGDClassifier
        from sklearn.metrics import log_loss
    except ImportError as e:
        die(EXIT_SYS, "scikit-learn is missing for %s (apt-get install -y "
            "python3-sklearn): %s" % (sys.executable, e))
    x_tr, y_tr, x_va, y_va, x_te, y_te = load_data()
    ck = load_parent(trial.parent_workdir(), epochs)
    if ck is None:
        model, done, origin = SGDClassifier(
            loss="log_loss", learning_rate="constant",
            random_state=seed), 0, -1
    else:
        model, done, origin = ck["model"], ck["epochs"], ck["trial"]
    model.set_params(eta0=cfg["eta0"], alpha=cfg["alpha"])
    rng = np.random.default_rng(seed)
    classes = np.unique(y_tr)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for _ in range(epochs - done):
            order = rng.permutation(len(y_tr))
            model.partial_fit(x_tr[order], y_tr[order], classes=classes)
    try:
        tmp = os.path.join(trial.checkpoint_dir(), "." + CHECKPOINT + ".tmp")
        with open(tmp, "wb") as f:
            pickle.dump({"trial": me, "epochs": epochs, "model": model}, f)
        os.replace(tmp, os.path.join(trial.checkpoint_dir(), CHECKPOINT))
    except OSError as e:
        die(EXIT_SYS, "cannot save the checkpoint: %s" % e)
    p = np.clip(model.predict_proba(x_va), 1e-15, 1)
    loss = log_loss(y_va, p, labels=classes)
    if not np.isfinite(loss):
        die(EXIT_SYS, "the validation loss is not finite (diverged)")
    try:
        trial.report(float(loss), cost=time.time() - t0,
                     test_error=1.0 - model.score(x_te, y_te),
                     epochs=epochs, trained_epochs=epochs - done,
                     resumed_from=done, from_trial=origin)
    except trial.TrialError as e:
        die(EXIT_SYS, str(e))
    return 0


if __name__ == "__main__":
    sys.exit(main())
