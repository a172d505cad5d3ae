#!/usr/bin/python3
"""peer_tpe.py - Optuna 3.1's TPE on bench_seq's problems, the peer of #38

Runs optuna.samplers.TPESampler sequentially on the problems of
bench/lib/benchfn.c at their maximum budget (noise-free), with every
parameter a float in [0, 1] scaled to the problem's domain as benchfn.c
scales it, and writes the rows bench_seq writes: the regret of the best
trial so far after every trial.

Methods:
  optuna-uni          TPESampler() (univariate, Optuna's defaults)
  optuna-multi        TPESampler(multivariate=True)
  optuna-uni-fixed    the same with optuna#5109 fixed at run time
  optuna-multi-fixed
Optuna 3.1's truncated-normal log density leaves out the -log(sigma) term
(optuna/samplers/_tpe/_truncnorm.py, logpdf), so kernels of different
widths are weighed wrongly; Optuna 3.5 fixed it.  The "-fixed" methods
replace that function by one with the term, so that a strength of the
stock sampler that is only the bug can be told apart.

Usage: peer_tpe.py [--seeds N] [--evals N] METHOD... -- PROBLEM...
Problems: branin, hartmann6, levyN, rosenbrockN, mixed4 (declared to
Optuna as it would be by a user: a log float, an int, a categorical and a
float, where dehbq's optimisers see the unit cube with one categorical).
Output (stdout): problem,method,seed,jobs,evals,regret
Exit codes: 0 ok, 100 usage, 111 Optuna missing or not 3.1.
"""
import math
import sys
import warnings

H6_A = [[10, 3, 17, 3.5, 1.7, 8], [0.05, 10, 17, 0.1, 8, 14],
        [3, 3.5, 1.7, 10, 17, 8], [17, 8, 0.05, 10, 0.1, 14]]
H6_P = [[1312, 1696, 5569, 124, 8283, 5886],
        [2329, 4135, 8307, 3736, 1004, 9991],
        [2348, 1451, 3522, 2883, 3047, 6650],
        [4047, 8828, 8732, 5743, 1091, 381]]
H6_ALPHA = [1.0, 1.2, 3.0, 3.2]


def branin(u):
    x1, x2 = -5 + 15 * u[0], 15 * u[1]
    b, c, t = 5.1 / (4 * math.pi ** 2), 5 / math.pi, 1 / (8 * math.pi)
    q = x2 - b * x1 * x1 + c * x1 - 6
    return q * q + 10 * (1 - t) * math.cos(x1) + 10 - 0.397887357729738


def hartmann6(u):
    h = 0.0
    for i in range(4):
        e = sum(H6_A[i][j] * (u[j] - H6_P[i][j] * 1e-4) ** 2
                for j in range(6))
        h -= H6_ALPHA[i] * math.exp(-e)
    return h + 3.322368011415513


def levy(u):
    w = [1 + (-10 + 20 * v - 1) / 4 for v in u]
    s = math.sin(math.pi * w[0]) ** 2
    for i in range(len(w) - 1):
        s += (w[i] - 1) ** 2 * (1 + 10 * math.sin(math.pi * w[i] + 1) ** 2)
    return s + (w[-1] - 1) ** 2 * (1 + math.sin(2 * math.pi * w[-1]) ** 2)


def rosenbrock(u):
    x = [-5 + 15 * v for v in u]
    return sum(100 * (x[i + 1] - x[i] ** 2) ** 2 + (1 - x[i]) ** 2
               for i in range(len(x) - 1))


def mixed(lr, layers, act, dropout):
    """benchfn.c's mixed4, from its native values."""
    a, b, d = math.log10(lr) + 3.2, layers - 3, dropout - 0.15
    pen = (0.4, 0.0, 0.7)[act]
    return 0.5 * a * a + 0.08 * b * b + 0.1 * a * b + pen + 3 * d * d


def problem(name):
    """(dim, regret function) of a benchfn.c problem, or None; mixed4's
    dim is 0: it suggests its own parameters (suggest_mixed)."""
    if name == "mixed4":
        return 0, None
    if name == "branin":
        return 2, branin
    if name == "hartmann6":
        return 6, hartmann6
    for stem, fn in (("levy", levy), ("rosenbrock", rosenbrock)):
        if name.startswith(stem) and name[len(stem):].isdigit():
            n = int(name[len(stem):])
            if 2 <= n <= 64:
                return n, fn
    return None


def fix_5109():
    """Give Optuna 3.1's truncated-normal log density its -log(sigma)."""
    import numpy as np
    from optuna.samplers._tpe import _truncnorm, parzen_estimator
    stock = _truncnorm.logpdf

    def logpdf(x, a, b, loc=0, scale=1):
        return stock(x, a, b, loc=loc, scale=scale) - np.log(scale)

    parzen_estimator.truncnorm.logpdf = logpdf
    return stock


def suggest_mixed(trial):
    """mixed4's parameters as a tuner declares them, and its regret."""
    return mixed(trial.suggest_float("lr", 1e-5, 1.0, log=True),
                 trial.suggest_int("layers", 1, 8),
                 trial.suggest_categorical("act", [0, 1, 2]),
                 trial.suggest_float("dropout", 0.0, 0.8))


def run(optuna, name, dim, fn, method, seed, evals, out):
    multi = method.startswith("optuna-multi")
    sampler = optuna.samplers.TPESampler(seed=seed, multivariate=multi)
    study = optuna.create_study(sampler=sampler)
    best = math.inf
    for k in range(evals):
        trial = study.ask()
        if fn is None:
            r = suggest_mixed(trial)
        else:
            r = fn([trial.suggest_float("x%d" % i, 0.0, 1.0)
                    for i in range(dim)])
        study.tell(trial, r)
        best = min(best, r)
        out.write("%s,%s,%d,1,%d,%.10g\n" % (name, method, seed, k + 1, best))


METHODS = ("optuna-uni", "optuna-multi", "optuna-uni-fixed",
           "optuna-multi-fixed")


def parse_args(argv, methods_known, evals):
    """[--seeds N] [--evals N] METHOD... -- PROBLEM...: (seeds, evals,
    methods, problems); methods empty when argv is malformed."""
    seeds, methods, probs, i = 20, [], [], 1
    try:
        while i < len(argv):
            a = argv[i]
            if a in ("--seeds", "--evals"):
                v = int(argv[i + 1])
                if v < 1:
                    raise ValueError(a)
                seeds, evals = (v, evals) if a == "--seeds" else (seeds, v)
                i += 2
                continue
            if a == "--":
                probs = argv[i + 1:]
                break
            if a not in methods_known:
                raise ValueError(a)
            methods.append(a)
            i += 1
    except (ValueError, IndexError):
        methods = []
    return seeds, evals, methods, probs


def load_optuna(prog):
    """Debian 12's Optuna 3.1, quiet; None (with one line) without it."""
    warnings.simplefilter("ignore")
    try:
        import optuna
    except ImportError:
        sys.stderr.write("%s: python3-optuna is not installed\n" % prog)
        return None
    if not optuna.__version__.startswith("3.1."):
        # the -fixed methods patch 3.1's module: 3.2 moved it, 3.5 fixed it
        sys.stderr.write("%s: Optuna 3.1 needed (Debian 12's "
                         "python3-optuna), this is %s\n" %
                         (prog, optuna.__version__))
        return None
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    return optuna


def main(argv):
    seeds, evals, methods, probs = parse_args(argv, METHODS, 60)
    if not methods or not probs or any(problem(p) is None for p in probs):
        sys.stderr.write("usage: peer_tpe.py [--seeds N] [--evals N] "
                         "{%s}... -- PROBLEM...\n" % ",".join(METHODS))
        return 100
    optuna = load_optuna("peer_tpe.py")
    if optuna is None:
        return 111
    from optuna.samplers._tpe import parzen_estimator
    stock = parzen_estimator.truncnorm.logpdf
    sys.stdout.write("problem,method,seed,jobs,evals,regret\n")
    for p in probs:
        dim, fn = problem(p)
        for m in methods:
            if m.endswith("-fixed"):
                fix_5109()
            for s in range(seeds):
                run(optuna, p, dim, fn, m, s, evals, sys.stdout)
            parzen_estimator.truncnorm.logpdf = stock
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
