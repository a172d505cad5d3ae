#!/bin/sh
# t0200-importance.sh - dehbq importance (issue 39): which hyperparameters
# mattered, on a study where the truth is known, side by side with
# Optuna's fANOVA on the same results.
#  (a) 6 parameters, of which a and b matter (a most), c a little and
#      d, e, f not at all: the ranking is a, b, c first, and d, e, f
#      explain almost nothing.
#  (b) the same study gives the same numbers on every call (the study's
#      seed), in every format; Python's dehbq.importance() says the same.
#  (c) Optuna 3.1's FanovaImportanceEvaluator on the same results (read
#      back with dehbq export) ranks the same top two.
#  (d) bad input: one line naming the option or the study, exit 100.
. "${DEHBQ_SRC:-.}/tests/lib.sh"
plan 7

cat >"$T/space6.json" <<'EOF'
{"format": "dehbq-space/1", "parameters": [
 {"name": "a", "type": "float", "low": 0, "high": 1},
 {"name": "b", "type": "float", "low": 0, "high": 1},
 {"name": "c", "type": "float", "low": 0, "high": 1},
 {"name": "d", "type": "float", "low": 0, "high": 1},
 {"name": "e", "type": "int", "low": 1, "high": 8},
 {"name": "f", "type": "categorical", "choices": ["x", "y", "z"]}]}
EOF
S=$T/s
"$B/dehbq" init "$S" --space "$T/space6.json" --min-budget 1 --max-budget 3 \
	--optimizer random --fevals 200 --seed 11 --lease 60 --poll 0.05 \
	>/dev/null || exit 1
bg "$B/dehbq-orchestrator" -q "$S" 2>"$T/orch.log"
"$B/dehbq-worker" --study "$S" --idle-exit 120 -- awk \
	'BEGIN {
	a = ENVIRON["DEHBQ_P_A"]; b = ENVIRON["DEHBQ_P_B"]; c = ENVIRON["DEHBQ_P_C"]
	printf "{\"loss\": %.12g}\n", 4 * (a - 0.3)^2 + 2 * (b - 0.7)^2 + 0.3 * c }' \
	2>"$T/worker.log"
wait_for 120 test -e "$S/FINISHED"

"$B/dehbq" importance "$S" --format csv >"$T/imp.csv" 2>"$T/imp.err"
rc=$?
diag "$(tr '\n' ' ' <"$T/imp.csv")"
order=$(sed 1d "$T/imp.csv" | cut -d, -f1 | head -3 | tr '\n' ' ')
check "(a) exit 0; the ranking starts a, b, c (got $order)" \
	test "$rc" = 0 -a "$order" = "a b c "
small=$(sed 1d "$T/imp.csv" | awk -F, '$1 ~ /^[def]$/ && $2 >= 0.02' | wc -l)
check "(a) d, e and f each explain under 2 % of the variance" test "$small" = 0
check "(a) one row per parameter, at the maximum fidelity, 200 results" \
	sh -c "[ \$(sed 1d '$T/imp.csv' | cut -d, -f4,5 | sort -u) = 3,200 ] &&
	[ \$(sed 1d '$T/imp.csv' | wc -l) = 6 ]"

"$B/dehbq" importance "$S" --format csv >"$T/imp2.csv"
"$B/dehbq" importance "$S" --format jsonl >"$T/imp.jsonl"
"$B/dehbq" importance "$S" >"$T/imp.txt"
check "(b) the same numbers on every call and in every format" sh -c "
	cmp -s '$T/imp.csv' '$T/imp2.csv' &&
	python3 - '$T/imp.csv' '$T/imp.jsonl' '$T/imp.txt' <<'PY'
import csv, json, sys
c = {r['parameter']: float(r['importance']) for r in csv.DictReader(open(sys.argv[1]))}
j = {r['parameter']: r['importance'] for r in map(json.loads, open(sys.argv[2]))}
t = {l.split()[0]: float(l.split()[1]) for l in open(sys.argv[3]).readlines()[1:]}
sys.exit(not (c == j and all(abs(t[k] - c[k]) < 1e-4 for k in c)))
PY"
check "(b) Python's dehbq.importance() gives the same" env \
	PYTHONPATH="$DEHBQ_SRC/python" DEHBQ_CLI="$B/dehbq" python3 -c "
import csv, dehbq, sys
c = {r['parameter']: float(r['importance']) for r in csv.DictReader(open('$T/imp.csv'))}
p = dehbq.importance('$S')
sys.exit(not (p == c and list(p)[:2] == ['a', 'b']))"

# (c) Optuna's fANOVA on the same results (Debian's python3-optuna, which
# uses sklearn: deploy/deps.sh installs both)
"$B/dehbq" export "$S" --jsonl "$T/rows.jsonl" 2>/dev/null
py_with optuna sklearn
"$PY" - "$T/rows.jsonl" >"$T/optuna.txt" 2>"$T/optuna.err" <<'PY'
import json, sys
import optuna
from optuna.distributions import (CategoricalDistribution,
                                  FloatDistribution, IntDistribution)
optuna.logging.set_verbosity(optuna.logging.ERROR)
dist = {k: FloatDistribution(0, 1) for k in "abcd"}
dist["e"] = IntDistribution(1, 8)
dist["f"] = CategoricalDistribution(["x", "y", "z"])
study = optuna.create_study()
for r in map(json.loads, open(sys.argv[1])):
    if r.get("status") != "ok":
        continue
    params = {k: r[k] for k in dist}
    study.add_trial(optuna.trial.create_trial(
        params=params, distributions=dist, value=r["loss"]))
imp = optuna.importance.get_param_importances(
    study, evaluator=optuna.importance.FanovaImportanceEvaluator(seed=0))
print(" ".join("%s=%.4f" % kv for kv in imp.items()))
PY
diag "(c) optuna: $(cat "$T/optuna.txt" "$T/optuna.err" | tail -2)"
check "(c) Optuna's fANOVA ranks the same top two (a, b)" \
	sh -c "cut -d' ' -f1,2 '$T/optuna.txt' | sed 's/=[0-9.]*//g' | grep -qx 'a b'"

# (d) bad input
bad() {
	"$B/dehbq" importance "$@" >/dev/null 2>"$T/bad.err"
	[ $? = 100 ] && [ "$(wc -l <"$T/bad.err")" = 1 ]
}
check "(d) --format xml, --fidelity 2 (no result there), --objective on a single-objective study" \
	eval 'bad "$S" --format xml && grep -q format "$T/bad.err" &&
	bad "$S" --fidelity 2 && grep -q "no ok result at that fidelity" "$T/bad.err" &&
	bad "$S" --objective acc && grep -q "not an objective" "$T/bad.err"'
