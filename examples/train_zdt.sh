#!/bin/sh
# train_zdt.sh - a two-objective shell trainer for dehbq (ZDT2)
#
# It "trains" on examples/space_zdt.json and reports two objectives, as a
# multi-objective study wants them ($DEHBQ_OBJECTIVES names them):
#   {"objectives": {"f1": ..., "f2": ...}, "cost": budget}
# f1 = x0, f2 = g (1 - (x0 / g)^2) with g = 1 + 3 (x1 + x2 + x3): ZDT2,
# whose Pareto front (g = 1) is f2 = 1 - f1^2, a concave curve that no
# weighted sum of f1 and f2 can reach inside its ends.  At a budget below
# the maximum (9) both carry an error that shrinks with the budget.
#
#   dehbq init study --space examples/space_zdt.json --min-budget 1 \
#       --max-budget 9 --fevals 200 --objective f1 --objective f2
#   dehbq-orchestrator study &
#   dehbq-worker --study study --idle-exit 10 -- sh $PWD/examples/train_zdt.sh
set -eu

: "${DEHBQ_BUDGET:?run me under dehbq-worker (DEHBQ_BUDGET is not set)}"
: "${DEHBQ_P_X0:?the config has no x0 (use examples/space_zdt.json)}"

awk -v x0="$DEHBQ_P_X0" -v x1="$DEHBQ_P_X1" -v x2="$DEHBQ_P_X2" \
    -v x3="$DEHBQ_P_X3" -v b="$DEHBQ_BUDGET" 'BEGIN {
	g = 1 + 3 * (x1 + x2 + x3)
	e = b < 9 ? 0.3 * (9 / b - 1) / 8 : 0
	f1 = x0 + e * sin(13 * x1)
	f2 = g * (1 - (x0 / g) ^ 2) + e * cos(11 * x2)
	printf "{\"objectives\": {\"f1\": %.17g, \"f2\": %.17g}, \"cost\": %s}\n", f1, f2, b
}' > "${DEHBQ_RESULT:?}"
