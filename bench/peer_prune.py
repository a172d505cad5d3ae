#!/usr/bin/python3
"""peer_prune.py - Optuna 3.1's pruners on the learning-curve table, the
peer of bench_stop (#35)

Runs an Optuna study per task and seed on bench/data/lctab.csv.gz
(uncompressed), sequentially: each trial suggests u0..u4 in [0, 1], is
looked up at the nearest design point (squared Euclidean distance, ties to
the lower index, as bench_stop looks it up), and reports loss_e at step e
for e = 1..27, asking should_prune after each report below 27; a trial
that reaches epoch 27 returns loss_27.

Methods are SAMPLER-PRUNER:
  SAMPLER  random  RandomSampler(seed)
           tpe     TPESampler(seed) (Optuna's defaults)
  PRUNER   none       NopPruner()
           median     MedianPruner() (5 start-up trials, no warm-up)
           sha        SuccessiveHalvingPruner(min_resource=1,
                      reduction_factor=3, min_early_stopping_rate=0)
           hyperband  HyperbandPruner(min_resource=1, max_resource=27,
                      reduction_factor=3)
labelled optuna-SAMPLER-PRUNER.  SHA and Hyperband get dehbq's eta and
minimum (Optuna's own defaults are 4 and "auto").  The study is named
METHOD-SEED: Hyperband's brackets hash the study name, so that a seed's
run is reproducible.

Accounting, as bench_stop's: every reported epoch costs one; the run ends
when the total reaches B * 27 (a trial cut there does not count).  The
regret is that of the best trial that returned loss_27,
(loss_27 - min) / (max - min) over the task's design, 1 before one has.

Usage: peer_prune.py [--seeds N] [--budget B] [--tasks A,B] TABLE.csv
                     METHOD...
Output (stdout): problem,method,seed,jobs,evals,regret, one row per
k = 1..B when the total epochs first reach k * 27 (jobs 1); on stderr, per
task and method, the mean trials and finished trials per run.
Exit codes: 0 ok, 100 usage or bad table, 111 Optuna missing or not 3.1.
"""
import csv
import sys
import warnings

EPOCHS = 27
SAMPLERS = ("random", "tpe")
PRUNERS = ("none", "median", "sha", "hyperband")


def load(path):
    """{task: (u rows, loss rows, min, max)} in table order."""
    tasks = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            t = tasks.setdefault(r["task"], ([], []))
            if int(r["config"]) != len(t[0]):
                raise ValueError("%s: configurations out of order" % path)
            t[0].append([float(r["u%d" % i]) for i in range(5)])
            t[1].append([float(r["loss_%d" % e])
                         for e in range(1, EPOCHS + 1)])
    out = {}
    for name, (u, loss) in tasks.items():
        final = [c[-1] for c in loss]
        lo, hi = min(final), max(final)
        out[name] = (u, loss, lo, hi if hi > lo else lo + 1)
    return out


def nearest(u, x):
    best, arg = float("inf"), 0
    for c, v in enumerate(u):
        d = sum((a - b) ** 2 for a, b in zip(v, x))
        if d < best:
            best, arg = d, c
    return arg


def make(optuna, method, seed):
    _, sampler, pruner = method.split("-")
    smp = (optuna.samplers.RandomSampler(seed=seed) if sampler == "random"
           else optuna.samplers.TPESampler(seed=seed))
    prn = {
        "none": lambda: optuna.pruners.NopPruner(),
        "median": lambda: optuna.pruners.MedianPruner(),
        "sha": lambda: optuna.pruners.SuccessiveHalvingPruner(
            min_resource=1, reduction_factor=3, min_early_stopping_rate=0),
        "hyperband": lambda: optuna.pruners.HyperbandPruner(
            min_resource=1, max_resource=EPOCHS, reduction_factor=3),
    }[pruner]()
    # HyperbandPruner picks a trial's bracket from crc32 of the study name
    # and the trial number: a fixed name (not Optuna's uuid4) makes a seed
    # reproducible
    return optuna.create_study(direction="minimize", sampler=smp,
                               pruner=prn,
                               study_name="%s-%d" % (method, seed))


class Spent(Exception):
    """The budget ran out inside a trial."""


def run(optuna, name, task, method, seed, budget, out):
    u, loss, lo, hi = task
    st = {"epochs": 0, "row": 1, "best": 1.0, "trials": 0, "done": 0}

    def epoch():
        st["epochs"] += 1
        while (st["row"] <= budget and
               st["epochs"] >= st["row"] * EPOCHS):
            out.write("%s,%s,%d,1,%d,%.10g\n" %
                      (name, method, seed, st["row"], st["best"]))
            st["row"] += 1

    def objective(trial):
        st["trials"] += 1
        c = nearest(u, [trial.suggest_float("u%d" % i, 0, 1)
                        for i in range(5)])
        for e in range(1, EPOCHS + 1):
            if st["epochs"] >= budget * EPOCHS:
                raise Spent
            if e == EPOCHS:  # finished: counts before the row is written
                st["best"] = min(st["best"], (loss[c][-1] - lo) / (hi - lo))
                st["done"] += 1
            epoch()
            trial.report(loss[c][e - 1], e)
            if e < EPOCHS and trial.should_prune():
                raise optuna.TrialPruned()
        return loss[c][-1]

    study = make(optuna, method, seed)
    while st["epochs"] < budget * EPOCHS:
        try:
            study.optimize(objective, n_trials=1, catch=())
        except Spent:
            break
    return st["trials"], st["done"]


def main(argv):
    seeds, budget, only, args, i = 20, 30, None, [], 1
    try:
        while i < len(argv):
            if argv[i] == "--seeds":
                seeds = int(argv[i + 1])
                i += 2
            elif argv[i] == "--budget":
                budget = int(argv[i + 1])
                i += 2
            elif argv[i] == "--tasks":
                only = argv[i + 1].split(",")
                i += 2
            else:
                args.append(argv[i])
                i += 1
    except (ValueError, IndexError):
        args = []
    methods = args[1:]
    ok = all(len(m.split("-")) == 2 and m.split("-")[0] in SAMPLERS and
             m.split("-")[1] in PRUNERS for m in methods)
    if len(args) < 2 or not ok or seeds < 1 or budget < 1:
        sys.stderr.write("usage: peer_prune.py [--seeds N] [--budget B] "
                         "[--tasks A,B] TABLE.csv {random,tpe}-"
                         "{none,median,sha,hyperband}...\n")
        return 100
    try:
        tasks = load(args[0])
    except (OSError, KeyError, ValueError) as e:
        sys.stderr.write("peer_prune.py: %s\n" % e)
        return 100
    warnings.simplefilter("ignore")
    try:
        import optuna
    except ImportError:
        sys.stderr.write("peer_prune.py: python3-optuna is not installed\n")
        return 111
    if not optuna.__version__.startswith("3.1."):
        sys.stderr.write("peer_prune.py: Optuna 3.1 needed (Debian 12's "
                         "python3-optuna), this is %s\n" % optuna.__version__)
        return 111
    optuna.logging.set_verbosity(optuna.logging.ERROR)  # a cut trial fails
    sys.stdout.write("problem,method,seed,jobs,evals,regret\n")
    for name, task in tasks.items():
        if only and name not in only:
            continue
        for m in methods:
            label = "optuna-" + m
            n = [run(optuna, name, task, label, s, budget, sys.stdout)
                 for s in range(seeds)]
            sys.stderr.write("%s %s: %.1f trials, %.1f finished per run\n" %
                             (name, label, sum(a for a, _ in n) / seeds,
                              sum(b for _, b in n) / seeds))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
