#!/usr/bin/python3
"""seqcompare.py - bench_seq's and peer_tpe.py's rows side by side (#38)

Reads CSV files of rows problem,method,seed,jobs,evals,regret and prints,
for each problem and each evaluation count of --at, one markdown table:
every method's median, mean and std of the regret over its seeds, and a
two-sided Mann-Whitney U test (scipy) against each reference method
(--ref, comma-separated), with the verdict at p < 0.05.

With --goal M, the last line says in how many of the tables M is worse
than the first reference (p < 0.05): "goal M vs REF: W worse of N".
With --goal-all, a table counts as worse when M is worse than any of the
references, and the line says "goal M vs REF+REF2...: W worse of N": the
best peer, whichever it is on that problem.

Usage: seqcompare.py [--at 20,60] [--ref optuna-multi,optuna-multi-fixed]
                     [--goal METHOD [--goal-all]] FILE...
Exit codes: 0 ok, 100 usage, 111 a file unreadable or a method with fewer
than 20 seeds (the house minimum for a quality claim).
"""
import csv
import statistics
import sys


def load(paths):
    """{(problem, method, jobs, evals): {seed: regret}}"""
    rows = {}
    for p in paths:
        with open(p, newline="") as f:
            for r in csv.DictReader(f):
                key = (r["problem"], r["method"], int(r["jobs"]),
                       int(r["evals"]))
                rows.setdefault(key, {})[int(r["seed"])] = float(r["regret"])
    return rows


def verdict(a, b):
    """p and 'better'/'worse'/'tie' of a against b (lower is better)."""
    from scipy.stats import mannwhitneyu
    if a == b:
        return 1.0, "tie"
    u, p = mannwhitneyu(a, b, alternative="two-sided")
    if p >= 0.05:
        return p, "tie"
    return p, "better" if u < len(a) * len(b) / 2 else "worse"


def main(argv):
    at, refs, files, i = [20, 60], ["optuna-multi", "optuna-multi-fixed"], \
        [], 1
    goal, goal_all, n_worse, n_cells = None, False, 0, 0
    try:
        while i < len(argv):
            if argv[i] == "--at":
                at = [int(v) for v in argv[i + 1].split(",")]
                i += 2
            elif argv[i] == "--ref":
                refs = argv[i + 1].split(",")
                i += 2
            elif argv[i] == "--goal":
                goal = argv[i + 1]
                i += 2
            elif argv[i] == "--goal-all":
                goal_all = True
                i += 1
            else:
                files.append(argv[i])
                i += 1
    except (ValueError, IndexError):
        files = []
    if not files:
        sys.stderr.write("usage: seqcompare.py [--at 20,60] "
                         "[--ref M,...] FILE...\n")
        return 100
    try:
        rows = load(files)
    except (OSError, KeyError, ValueError) as e:
        sys.stderr.write("seqcompare.py: %s\n" % e)
        return 111
    keys = sorted({(k[0], k[2]) for k in rows})
    short = []
    for prob, jobs in keys:
        methods = []
        for k in rows:
            if k[0] == prob and k[2] == jobs and k[1] not in methods:
                methods.append(k[1])
        for n in at:
            have = [m for m in methods if (prob, m, jobs, n) in rows]
            if not have:
                continue
            print("\n### %s, %d evaluations, %d job%s\n" %
                  (prob, n, jobs, "" if jobs == 1 else "s"))
            print("| method | seeds | median | mean ± std | " +
                  " | ".join("vs %s (p)" % r for r in refs) + " |")
            print("|---|---|---|---|" + "---|" * len(refs))
            for m in have:
                v = rows[(prob, m, jobs, n)]
                x = [v[s] for s in sorted(v)]
                if len(x) < 20:
                    short.append("%s %s %d: %d seeds" % (prob, m, n, len(x)))
                cells, worse, counted = [], False, False
                for r in refs:
                    ref = rows.get((prob, r, jobs, n))
                    if r == m or not ref:
                        cells.append("")
                        continue
                    p, word = verdict(x, [ref[s] for s in sorted(ref)])
                    cells.append("%s (%.2g)" % (word, p))
                    if m == goal and (goal_all or r == refs[0]):
                        worse |= word == "worse"
                        counted = True
                n_worse += worse
                n_cells += counted
                sd = statistics.stdev(x) if len(x) > 1 else 0.0
                print("| %s | %d | %.4g | %.4g ± %.3g | %s |" %
                      (m, len(x), statistics.median(x), statistics.mean(x),
                       sd, " | ".join(cells)))
    if goal:
        print("\ngoal %s vs %s: %d worse of %d" %
              (goal, "+".join(refs) if goal_all else refs[0], n_worse,
               n_cells))
    if short:
        sys.stderr.write("seqcompare.py: fewer than 20 seeds: %s\n" %
                         "; ".join(short))
        return 111
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
