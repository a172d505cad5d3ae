#!/bin/sh
# train.sh - a minimal shell trainer for dehbq, showing what a trainer gets
#
# dehbq-worker runs the trainer in the trial's working directory with these
# environment variables (see dehbq-worker(1)):
#   DEHBQ_TRIAL_ID   8-digit trial id          DEHBQ_ATTEMPT  attempt, from 1
#   DEHBQ_BUDGET     fidelity to train at      DEHBQ_SEED     seed to use
#   DEHBQ_CONFIG     config JSON file          DEHBQ_RESULT   where to report
#   DEHBQ_WORKDIR    this trial's directory    DEHBQ_STUDY    study directory
#   DEHBQ_PARENT_WORKDIR  workdir of the same config at the lower fidelity
#                    (promotions only; empty otherwise) - resume from there
#   DEHBQ_P_<NAME>   one per parameter, NAME upper-cased, non-alnum -> _
#
# It reports {"loss": L, "cost": C, "info": {...}} by writing $DEHBQ_RESULT
# (or by printing it as the last line of stdout).  Everything else it
# prints goes to the study's logs/ directory.
#
# This one "trains" on the Branin space (examples/space_branin.json): the
# loss is the Branin function of x1, x2 plus a term that shrinks with the
# budget, and it sleeps budget * ${TRAIN_SLEEP:-0.01} seconds.
#
#   dehbq init study --space examples/space_branin.json \
#       --min-budget 1 --max-budget 100 --fevals 100
#   dehbq-orchestrator study &
#   dehbq-worker --study study --idle-exit 10 -- sh $PWD/examples/train.sh
set -eu

: "${DEHBQ_BUDGET:?run me under dehbq-worker (DEHBQ_BUDGET is not set)}"
: "${DEHBQ_P_X1:?the config has no x1 (use examples/space_branin.json)}"
: "${DEHBQ_P_X2:?the config has no x2 (use examples/space_branin.json)}"

echo "trial $DEHBQ_TRIAL_ID attempt $DEHBQ_ATTEMPT budget $DEHBQ_BUDGET" \
	"seed $DEHBQ_SEED in $(pwd)"
echo "config file $DEHBQ_CONFIG:"
cat "$DEHBQ_CONFIG"
echo
if [ -n "${DEHBQ_PARENT_WORKDIR:-}" ]; then
	echo "promoted: the lower-fidelity run is in $DEHBQ_PARENT_WORKDIR"
fi

start=$(date +%s.%N)
sleep "$(awk -v b="$DEHBQ_BUDGET" -v s="${TRAIN_SLEEP:-0.01}" \
	'BEGIN { printf "%.3f", b * s }')"

# "Training": Branin plus a budget-dependent error, written as the report.
awk -v x1="$DEHBQ_P_X1" -v x2="$DEHBQ_P_X2" -v b="$DEHBQ_BUDGET" \
	-v t0="$start" -v t1="$(date +%s.%N)" 'BEGIN {
	pi = 3.141592653589793
	f = (x2 - 5.1 / (4 * pi * pi) * x1 * x1 + 5 / pi * x1 - 6) ^ 2 \
	    + 10 * (1 - 1 / (8 * pi)) * cos(x1) + 10
	printf "{\"loss\": %.17g, \"cost\": %.6f, ", f + 5 / b, t1 - t0
	printf "\"info\": {\"branin\": %.17g, \"budget\": %s}}\n", f, b
}' >"$DEHBQ_RESULT.tmp"
# rename, so the worker never reads a half-written report
mv "$DEHBQ_RESULT.tmp" "$DEHBQ_RESULT"
echo "reported: $(cat "$DEHBQ_RESULT")"
