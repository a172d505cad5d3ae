#!/usr/bin/python3
"""pbt_digits.py - PBT, PB2 and random search on the real checkpointing
trainer (examples/pbtdigits.py: SGDClassifier on digits, partial_fit), at
equal total training (issue 36).

Usage: /usr/bin/python3 bench/pbt_digits.py BIN_DIR [--seeds N] [--pop P]

Each run is a real study driven in lockstep by the real programs: one
`dehbq-orchestrator --once`, then one `dehbq-worker --max-trials P` (the
trials run one after another: no timing anywhere), until FINISHED.  pbt
and pb2 (population P, interval 3 epochs, 12 epochs in all, no limit) run
until every member is done; their epochs trained are the sum of the
trainer's trained_epochs.  Random search then runs trials of 12 epochs
from scratch until it has trained at least as many epochs as that seed's
pbt and pb2 runs (ceil(max / 12) trials).  Quality: the lowest validation
log loss of a trial at 12 epochs.  Prints one CSV row per run, then per
method the mean and standard deviation and, against pbt, the two-sided
Mann-Whitney U p-value (scipy).
"""
import argparse
import csv
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)
TRAINER = [sys.executable, os.path.join(SRC, "examples", "pbtdigits.py")]
SPACE = os.path.join(SRC, "examples", "space_pbtdigits.json")


def run_study(b, d, opt, seed, fevals, pop):
    spec = {"format": "dehbq-study/1", "space": SPACE, "seed": seed,
            "fidelity": {"min": 1 if fevals is None else 12, "max": 12,
                         "eta": 3},
            "optimizer": opt, "runtime": {"lease": 600, "poll": 1}}
    if fevals is not None:
        spec["termination"] = {"fevals": fevals}
    with open(d + ".json", "w") as f:
        json.dump(spec, f)
    subprocess.run([b + "/dehbq", "init", d, "--spec", d + ".json"],
                   check=True, stdout=subprocess.DEVNULL)
    for _ in range(2000):
        subprocess.run([b + "/dehbq-orchestrator", "-q", "--once", d],
                       check=True)
        if os.path.exists(d + "/FINISHED"):
            break
        if os.listdir(d + "/pending"):
            subprocess.run([b + "/dehbq-worker", "--study", d,
                            "--max-trials", str(pop), "--idle-exit", "1",
                            "--"] + TRAINER, check=True,
                           stderr=subprocess.DEVNULL)
    out = d + ".csv"
    subprocess.run([b + "/dehbq", "export", d, "--csv", out], check=True,
                   stderr=subprocess.DEVNULL)
    rows = list(csv.DictReader(open(out)))
    ok = [r for r in rows if r["status"] == "ok"]
    trained = sum(int(float(r["info.trained_epochs"])) for r in ok)
    best = min((float(r["loss"]) for r in ok if float(r["fidelity"]) == 12),
               default=math.inf)
    return trained, len(rows), best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--pop", type=int, default=4)
    a = ap.parse_args()
    from scipy.stats import mannwhitneyu
    tmp = tempfile.mkdtemp(prefix="dehbq-pbtdigits.")
    res = {"pbt": [], "pb2": [], "random": []}
    print("method,seed,epochs,trials,loss")
    try:
        for s in range(1, a.seeds + 1):
            most = 0
            for m, ex in (("pbt", "perturb"), ("pb2", "pb2")):
                opt = {"name": "pbt", "searcher": "random",
                       "population_size": a.pop, "perturbation_interval": 3,
                       "explore": ex}
                t, n, l = run_study(a.bin, "%s/%s%d" % (tmp, m, s), opt, s,
                                    None, a.pop)
                most = max(most, t)
                res[m].append(l)
                print("%s,%d,%d,%d,%.6g" % (m, s, t, n, l), flush=True)
            k = -(-most // 12)
            t, n, l = run_study(a.bin, "%s/random%d" % (tmp, s),
                                {"name": "fifo", "searcher": "random"}, s,
                                k, a.pop)
            res["random"].append(l)
            print("random,%d,%d,%d,%.6g" % (s, t, n, l), flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for m, v in res.items():
        mu = sum(v) / len(v)
        sd = math.sqrt(sum((x - mu) ** 2 for x in v) / max(len(v) - 1, 1))
        line = "# %-7s log loss %.4f +- %.4f" % (m, mu, sd)
        if m != "pbt":
            line += "   p = %.2g against pbt" % mannwhitneyu(
                v, res["pbt"], alternative="two-sided").pvalue
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
