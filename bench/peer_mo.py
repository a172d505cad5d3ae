#!/usr/bin/python3
"""peer_mo.py - Optuna 3.1's multi-objective samplers on bench_moseq's
problems, the multi-objective peer of #38

Runs sequentially, on the problems of bench/bench_moseq.c (zdt1, zdt2,
zdt3, dtlz2: 6 floats in [0, 1], two objectives), and writes the rows
bench_moseq writes: after every trial, the hypervolume error of every
trial so far, objectives normalised by the true front's ideal and nadir
(from the same dense sample of the front), reference point (2, 2).

Methods:
  optuna-motpe        TPESampler() on a two-objective study: Optuna 3.1's
                      MOTPE (Ozaki et al. 2020), its defaults
  optuna-motpe-fixed  the same with optuna#5109 fixed at run time
                      (peer_tpe.py's fix_5109)
  optuna-motpe-multi  TPESampler(multivariate=True)
  optuna-nsga2        NSGAIISampler(), population 50
  optuna-random       RandomSampler(), a check of the harness against
                      bench_moseq's random search

Usage: peer_mo.py [--seeds N] [--evals N] METHOD... -- PROBLEM...
Output (stdout): problem,method,seed,jobs,evals,regret
Exit codes: 0 ok, 100 usage, 111 Optuna missing or not 3.1.
"""
import math
import sys

from peer_tpe import fix_5109, load_optuna, parse_args

FRONT = 100001
REF = (2.0, 2.0)
PROBLEMS = ("zdt1", "zdt2", "zdt3", "dtlz2")


def evaluate(name, u):
    """The two objectives of bench_moseq.c's problem at u."""
    if name == "dtlz2":
        g = sum((v - 0.5) ** 2 for v in u[1:])
        a = u[0] * math.pi / 2
        return (1 + g) * math.cos(a), (1 + g) * math.sin(a)
    g = 1 + 9 * sum(u[1:]) / (len(u) - 1)
    r = u[0] / g
    if name == "zdt1":
        h = 1 - math.sqrt(r)
    elif name == "zdt2":
        h = 1 - r * r
    else:
        h = 1 - math.sqrt(r) - r * math.sin(10 * math.pi * u[0])
    return u[0], g * h


def hypervolume(points):
    """Two objectives, minimised, bounded by REF: slabs between the x's."""
    pts = sorted(p for p in points if p[0] < REF[0] and p[1] < REF[1])
    hv, best = 0.0, REF[1]
    for i, (a, b) in enumerate(pts):
        best = min(best, b)
        nxt = pts[i + 1][0] if i + 1 < len(pts) else REF[0]
        hv += (nxt - a) * (REF[1] - best)
    return hv


def front(name):
    """(ideal, nadir, normalised HV) of the problem's true front."""
    rest = 0.5 if name == "dtlz2" else 0.0
    pts = [evaluate(name, [i / (FRONT - 1)] + [rest] * 5)
           for i in range(FRONT)]
    pts.sort()
    nd, best = [], math.inf
    for p in pts:
        if p[1] < best:
            nd.append(p)
            best = p[1]
    lo = (min(p[0] for p in nd), min(p[1] for p in nd))
    hi = (max(p[0] for p in nd), max(p[1] for p in nd))
    hv = hypervolume([normalise(p, lo, hi) for p in nd])
    return lo, hi, hv


def normalise(p, lo, hi):
    return ((p[0] - lo[0]) / (hi[0] - lo[0]), (p[1] - lo[1]) / (hi[1] - lo[1]))


def sampler(optuna, method, seed):
    if method == "optuna-nsga2":
        return optuna.samplers.NSGAIISampler(seed=seed)
    if method == "optuna-random":
        return optuna.samplers.RandomSampler(seed=seed)
    return optuna.samplers.TPESampler(
        seed=seed, multivariate=method == "optuna-motpe-multi")


def run(optuna, name, fr, method, seed, evals, out):
    lo, hi, hvstar = fr
    study = optuna.create_study(directions=["minimize", "minimize"],
                                sampler=sampler(optuna, method, seed))
    seen = []
    for k in range(evals):
        trial = study.ask()
        y = evaluate(name, [trial.suggest_float("x%d" % i, 0.0, 1.0)
                            for i in range(6)])
        study.tell(trial, list(y))
        seen.append(normalise(y, lo, hi))
        out.write("%s,%s,%d,1,%d,%.10g\n" %
                  (name, method, seed, k + 1, hvstar - hypervolume(seen)))


METHODS = ("optuna-motpe", "optuna-motpe-fixed", "optuna-motpe-multi",
           "optuna-nsga2", "optuna-random")


def main(argv):
    seeds, evals, methods, probs = parse_args(argv, METHODS, 200)
    if not methods or not probs or any(p not in PROBLEMS for p in probs):
        sys.stderr.write("usage: peer_mo.py [--seeds N] [--evals N] "
                         "{%s}... -- {%s}...\n" %
                         (",".join(METHODS), ",".join(PROBLEMS)))
        return 100
    optuna = load_optuna("peer_mo.py")
    if optuna is None:
        return 111
    from optuna.samplers._tpe import parzen_estimator
    stock = parzen_estimator.truncnorm.logpdf
    sys.stdout.write("problem,method,seed,jobs,evals,regret\n")
    for p in probs:
        fr = front(p)
        sys.stderr.write("peer_mo.py: %s: ideal (%.6g, %.6g), nadir "
                         "(%.6g, %.6g), true HV %.6f\n" %
                         (p, fr[0][0], fr[0][1], fr[1][0], fr[1][1], fr[2]))
        for m in methods:
            if m.endswith("-fixed"):
                fix_5109()
            for s in range(seeds):
                run(optuna, p, fr, m, s, evals, sys.stdout)
            parzen_estimator.truncnorm.logpdf = stock
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
