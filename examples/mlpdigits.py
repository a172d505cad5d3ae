#!/usr/bin/python3
"""mlpdigits.py - a real dehbq trainer: an MLP on scikit-learn's digits.

Trains sklearn.neural_network.MLPClassifier (one hidden layer) on the digits
data bundled with scikit-learn (load_digits: no download; Debian package
python3-sklearn) and reports the validation error.

  data     fixed stratified split 60 % train / 20 % validation / 20 % test
           (random_state 0, identical in every trial)
  budget   epochs: max_iter = int(round(budget)), at least 1
  space    examples/space_mlpdigits.json: learning_rate_init, alpha,
           hidden_units, batch_size, activation
  report   {"loss": validation error, "cost": wall seconds,
            "info": {"test_error", "train_error", "epochs", "trained_epochs",
                     "resumed_from", "n_iter"}}
           by dehbq.trial.report(): written to $DEHBQ_RESULT (or --result),
           or printed as the last line of stdout when there is neither.

It reads its trial through the dehbq Python package (python/dehbq, used
from this source tree when it is not installed): trial.config(),
trial.budget(), trial.parent_workdir(), trial.checkpoint_dir().

Warm start.  After training, the model is pickled to model.pkl in the trial's
working directory.  For a promotion dehbq-worker passes the lower-fidelity
trial's working directory ({parent_workdir}, also $DEHBQ_PARENT_WORKDIR); if
it holds a model.pkl for the same configuration trained for fewer epochs, the
model is loaded and trained only for the missing epochs (warm_start=True), so
a promotion from 11 to 33 epochs costs 22 epochs, not 33.  Without a usable
checkpoint it trains from scratch.  A checkpoint is a pickle: only load
study directories you trust.

Usage (the options override the DEHBQ_* environment):
  dehbq-worker --study S -- python3 $PWD/examples/mlpdigits.py \\
      --config {config} --budget {budget} --parent-workdir {parent_workdir}

Study: dehbq init S --space examples/space_mlpdigits.json \\
           --min-budget 1 --max-budget 27 --fevals 100

Exit codes: 0 ok; 100 bad arguments or configuration (one line on stderr);
111 system failure (missing scikit-learn, unwritable result).
"""

import os

# Before numpy is imported: one BLAS thread per trainer, since a node runs
# one worker per core.
for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import argparse
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
CHECKPOINT = "model.pkl"
SPACE = {
    "learning_rate_init": (float, 1e-4, 1e-1),
    "alpha": (float, 1e-6, 1e-1),
    "hidden_units": (int, 16, 512),
    "batch_size": (int, 16, 512),
    "activation": (str, ("relu", "tanh", "logistic")),
}


def die(code, msg):
    print("mlpdigits: " + msg, file=sys.stderr)
    sys.exit(code)


def parse_args():
    """Options override the trial dehbq-worker passes (dehbq.trial)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--config")
    p.add_argument("--budget")
    p.add_argument("--result")
    p.add_argument("--workdir")
    p.add_argument("--parent-workdir")
    p.add_argument("--seed")
    a = p.parse_args()
    for name, value in (("DEHBQ_CONFIG", a.config), ("DEHBQ_BUDGET", a.budget),
                        ("DEHBQ_RESULT", a.result), ("DEHBQ_SEED", a.seed),
                        ("DEHBQ_WORKDIR", a.workdir),
                        ("DEHBQ_PARENT_WORKDIR", a.parent_workdir)):
        if value is not None:
            os.environ[name] = value
    try:
        a.cfg = trial.config()
        a.epochs = max(1, int(round(trial.budget())))
        a.seed = trial.seed() % (2 ** 32)
    except trial.TrialError as e:
        die(EXIT_USAGE, str(e))
    a.workdir = trial.checkpoint_dir()
    a.parent_workdir = trial.parent_workdir()
    return a


def check_config(cfg):
    """cfg checked against SPACE; ints made ints."""
    extra = sorted(set(cfg) - set(SPACE))
    if extra:
        die(EXIT_USAGE, "config: unknown parameter '%s' (use "
            "examples/space_mlpdigits.json)" % extra[0])
    for name, (typ, *rng) in SPACE.items():
        if name not in cfg:
            die(EXIT_USAGE, "config: missing parameter '%s'" % name)
        v = cfg[name]
        if typ is str:
            if v not in rng[0]:
                die(EXIT_USAGE, "config: '%s' must be one of %s"
                    % (name, ", ".join(rng[0])))
            continue
        if isinstance(v, bool) or not isinstance(v, (int, float)) or \
                (typ is int and v != int(v)) or not rng[0] <= v <= rng[1]:
            die(EXIT_USAGE, "config: '%s' = %r: want %s in [%g, %g]"
                % (name, v, typ.__name__, rng[0], rng[1]))
        cfg[name] = typ(v)
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


def load_parent(parent, cfg, epochs):
    """The parent's checkpoint if it fits this trial, else None."""
    if not parent:
        return None
    path = os.path.join(parent, CHECKPOINT)
    try:
        with open(path, "rb") as f:
            ck = pickle.load(f)
    except OSError:
        return None
    except Exception as e:  # a damaged checkpoint: train from scratch
        print("mlpdigits: ignoring %s: %s" % (path, e), file=sys.stderr)
        return None
    if not isinstance(ck, dict) or ck.get("config") != cfg or \
            not 0 < ck.get("epochs", 0) <= epochs:
        print("mlpdigits: %s does not match this trial; from scratch" % path,
              file=sys.stderr)
        return None
    return ck


def main():
    t0 = time.time()
    a = parse_args()
    cfg = check_config(a.cfg)
    try:
        from sklearn.exceptions import ConvergenceWarning
        from sklearn.neural_network import MLPClassifier
    except ImportError as e:
        die(EXIT_SYS, "scikit-learn is missing for %s (apt-get install -y "
            "python3-sklearn gives Debian's /usr/bin/python3 its copy; "
            "a venv needs pip install scikit-learn): %s"
            % (sys.executable, e))
    x_tr, y_tr, x_va, y_va, x_te, y_te = load_data()

    ck = load_parent(a.parent_workdir, cfg, a.epochs)
    if ck is not None:
        model, done = ck["model"], ck["epochs"]
    else:
        model, done = MLPClassifier(
            hidden_layer_sizes=(cfg["hidden_units"],),
            activation=cfg["activation"],
            alpha=cfg["alpha"],
            batch_size=cfg["batch_size"],
            learning_rate_init=cfg["learning_rate_init"],
            random_state=a.seed,
            warm_start=True,
        ), 0
    todo = a.epochs - done
    if todo > 0:
        # With warm_start, each fit() runs at most max_iter more epochs.
        model.set_params(max_iter=todo)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(x_tr, y_tr)
    print("trained %d epochs (%d resumed from %s), %d iterations in total"
          % (todo, done, a.parent_workdir or "-", model.n_iter_))

    try:
        tmp = os.path.join(a.workdir, "." + CHECKPOINT + ".tmp")
        with open(tmp, "wb") as f:
            pickle.dump({"config": cfg, "epochs": a.epochs, "model": model},
                        f)
        os.replace(tmp, os.path.join(a.workdir, CHECKPOINT))
    except OSError as e:  # a checkpoint is an optimisation, not a result
        print("mlpdigits: no checkpoint: %s" % e, file=sys.stderr)

    try:
        trial.report(1.0 - model.score(x_va, y_va), cost=time.time() - t0,
                     test_error=1.0 - model.score(x_te, y_te),
                     train_error=1.0 - model.score(x_tr, y_tr),
                     epochs=a.epochs, trained_epochs=max(todo, 0),
                     resumed_from=done, n_iter=int(model.n_iter_))
    except trial.TrialError as e:
        die(EXIT_SYS, str(e))
    return 0


if __name__ == "__main__":
    sys.exit(main())
