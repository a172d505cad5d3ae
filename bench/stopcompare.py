#!/usr/bin/python3
"""stopcompare.py - the live-trials benchmark's tables and goals (#35)

Reads the rows of bench_stop and bench/peer_prune.py (problem,method,
seed,jobs,evals,regret; evals = total epochs in full trainings) and,
optionally, bench_stop's --runs files, and prints markdown:

1. Quality at equal total epochs: for each task and each of --at, every
   method's median and mean ± std regret over its seeds, and a two-sided
   Mann-Whitney U test (scipy) against no stopping with the same searcher
   (nostop-S) and against Optuna's HyperbandPruner with the same sampler
   (optuna-S-hyperband).  A method's searcher is its label's last word
   (asha-stop-tpe: tpe).
2. Goal "stopping reaches no stopping's final quality with at most a third
   of its epochs": every dehbq stopping method (a label with "-stop-") at
   B/3 against nostop-S at B, per task.
3. Goal "at equal epochs, no dehbq stopping scheduler is worse than
   Optuna's HyperbandPruner": every dehbq stopping method against
   optuna-S-hyperband at each of --at, per task; and the same against
   Optuna's pruner of the same rule (asha-stop: SuccessiveHalvingPruner,
   hyperband-stop: HyperbandPruner, median-stop: MedianPruner), which is
   the test of the implementation (table column "same rule").
4. With --runs: per method and worker count, the median simulated time to
   the target regret (and how many runs reached it), the decisions' mean
   and largest CPU time, the share of worker time idle, and the largest
   sat_epoch_s (the epoch length below which one core of decisions could
   not keep the workers fed).  Goal "no decision makes 1,000 workers
   wait": at the largest worker count, no worker idle and sat_epoch_s
   under --sat seconds for every method.

Usage: stopcompare.py [--at 10,30] [--sat 1] [--runs FILE]... FILE...
(--at: the last value is B, the budget; B/3 must be a row too)
Exit codes: 0 ok (goals are reported, not enforced), 100 usage, 111 a file
unreadable or a method with fewer than 20 seeds.
"""
import csv
import statistics
import sys

from seqcompare import load, verdict


RULES = {"nostop": "none", "asha-stop": "sha", "hyperband-stop": "hyperband",
         "median-stop": "median"}


def searcher(label):
    return label.rsplit("-", 1)[-1]


def same_rule(label):
    """Optuna's method of label's rule and sampler, or None."""
    rule = RULES.get(label.rsplit("-", 1)[0])
    return "optuna-%s-%s" % (searcher(label), rule) if rule else None


def regrets(rows, key):
    v = rows.get(key)
    return [v[s] for s in sorted(v)] if v else None


def quality(rows, at):
    """Section 1; returns the methods with fewer than 20 seeds."""
    short = []
    for prob in sorted({k[0] for k in rows}):
        methods = []
        for k in rows:
            if k[0] == prob and k[2] == 1 and k[1] not in methods:
                methods.append(k[1])
        for n in at:
            print("\n### %s, %d full trainings of epochs, 1 worker\n" %
                  (prob, n))
            print("| method | seeds | median | mean ± std | vs no stopping"
                  " (p) | vs Optuna Hyperband (p) | vs Optuna, same rule"
                  " (p) |")
            print("|---|---|---|---|---|---|---|")
            for m in methods:
                x = regrets(rows, (prob, m, 1, n))
                if not x:
                    continue
                if len(x) < 20:
                    short.append("%s %s: %d seeds" % (prob, m, len(x)))
                cells = []
                for ref in ("nostop-" + searcher(m),
                            "optuna-%s-hyperband" % searcher(m),
                            same_rule(m)):
                    y = regrets(rows, (prob, ref, 1, n))
                    if ref == m or not y:
                        cells.append("")
                        continue
                    p, word = verdict(x, y)
                    cells.append("%s (%.2g)" % (word, p))
                sd = statistics.stdev(x) if len(x) > 1 else 0.0
                print("| %s | %d | %.4g | %.4g ± %.3g | %s |" %
                      (m, len(x), statistics.median(x), statistics.mean(x),
                       sd, " | ".join(cells)))
    return short


def goal_line(name, results):
    worse = [r for r in results if r[1] == "worse"]
    if not results:
        print("\ngoal %s: not measured (no such rows)" % name)
        return
    print("\ngoal %s: %s (%d worse of %d)" %
          (name, "MISSED" if worse else "MET", len(worse), len(results)))
    for r in worse:
        print("  worse: %s (p %.2g)" % (r[0], r[2]))


def goals(rows, at):
    budget, third = at[-1], at[-1] // 3
    stopping = sorted({k[1] for k in rows
                       if "-stop-" in k[1] and not k[1].startswith("optuna")})
    probs = sorted({k[0] for k in rows})
    thirds, peers, rules = [], [], []
    for m in stopping:
        for prob in probs:
            x = regrets(rows, (prob, m, 1, third))
            y = regrets(rows, (prob, "nostop-" + searcher(m), 1, budget))
            if x and y:
                p, word = verdict(x, y)
                thirds.append(("%s %s at %d vs nostop at %d" %
                               (prob, m, third, budget), word, p))
            for n in at:
                x = regrets(rows, (prob, m, 1, n))
                y = regrets(rows, (prob, "optuna-%s-hyperband" %
                                   searcher(m), 1, n))
                z = regrets(rows, (prob, same_rule(m), 1, n))
                if x and y:
                    p, word = verdict(x, y)
                    peers.append(("%s %s at %d" % (prob, m, n), word, p))
                if x and z:
                    p, word = verdict(x, z)
                    rules.append(("%s %s at %d vs %s" %
                                  (prob, m, n, same_rule(m)), word, p))
    goal_line("stopping at a third of the epochs >= no stopping", thirds)
    goal_line("no dehbq stopping scheduler worse than Optuna's "
              "HyperbandPruner at equal epochs", peers)
    goal_line("each dehbq stopping scheduler at least as good as Optuna's "
              "pruner of the same rule at equal epochs", rules)


def scale(paths, sat):
    runs = {}
    for p in paths:
        with open(p, newline="") as f:
            for r in csv.DictReader(f):
                runs.setdefault((r["method"], int(r["workers"])),
                                []).append(r)
    print("\n### Simulated clock: time to quality and decision cost\n")
    print("| method | workers | runs | reached | median time to target (s)"
          " | trials | decisions | CPU mean µs | CPU max µs | idle |"
          " sat_epoch_s max |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    top = max(w for _, w in runs) if runs else 0
    bad = []
    for (m, w) in sorted(runs, key=lambda k: (k[0], k[1])):
        rs = runs[(m, w)]
        t = [float(r["t_target"]) for r in rs if r["t_target"]]
        dec = sum(int(r["decisions"]) for r in rs)
        cpu = sum(float(r["cpu_mean_us"]) * int(r["decisions"]) for r in rs)
        idle = max(float(r["idle"]) for r in rs)
        satmax = max(float(r["sat_epoch_s"]) for r in rs)
        print("| %s | %d | %d | %d | %s | %.0f | %.0f | %.3g | %.3g | %.3g |"
              " %.3g |" %
              (m, w, len(rs), len(t),
               "%.3g" % statistics.median(t) if t else "never",
               statistics.mean(int(r["trials"]) for r in rs),
               dec / len(rs), cpu / dec if dec else 0,
               max(float(r["cpu_max_us"]) for r in rs), idle, satmax))
        if w == top and (idle > 0 or satmax >= sat):
            bad.append("%s: idle %.3g, sat_epoch_s %.3g" % (m, idle, satmax))
    print("\ngoal no decision makes %d workers wait (no idle worker, "
          "sat_epoch_s < %g s): %s" % (top, sat, "MISSED" if bad else "MET"))
    for b in bad:
        print("  " + b)


def main(argv):
    at, sat, files, runfiles, i = [10, 30], 1.0, [], [], 1
    try:
        while i < len(argv):
            if argv[i] == "--at":
                at = [int(v) for v in argv[i + 1].split(",")]
                i += 2
            elif argv[i] == "--sat":
                sat = float(argv[i + 1])
                i += 2
            elif argv[i] == "--runs":
                runfiles.append(argv[i + 1])
                i += 2
            else:
                files.append(argv[i])
                i += 1
    except (ValueError, IndexError):
        files = []
    if not files and not runfiles:
        sys.stderr.write("usage: stopcompare.py [--at 10,30] [--sat 1] "
                         "[--runs FILE]... FILE...\n")
        return 100
    try:
        short = []
        if files:
            rows = load(files)
            short = quality(rows, at)
            goals(rows, at)
        if runfiles:
            scale(runfiles, sat)
    except (OSError, KeyError, ValueError) as e:
        sys.stderr.write("stopcompare.py: %s\n" % e)
        return 111
    if short:
        sys.stderr.write("stopcompare.py: fewer than 20 seeds: %s\n" %
                         "; ".join(short))
        return 111
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
