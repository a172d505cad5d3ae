#!/bin/sh
# t1030: with one worker, one trial in flight and a deterministic trainer,
# a run killed several times ends with the same optimiser state and the
# same trajectory as an uninterrupted run with the same seed; for DEHB and
# for the optimisers added on the optim/ interface (ASHA, RE, TPE, BOHB,
# GP, and GP composed with ASHA: gp:asha is --multi-fidelity asha).
#
# The gate is deterministic (lockstep_run in lib.sh): orchestrator --once
# and one worker trial in turn, every 3rd step first crashed by
# DEHBQ_TEST_CRASH_AFTER at a fixed file-system change; the kill count is
# exact.  DEHBQ_CHAOS=long (make chaos) runs the timed soak instead: random
# kill -9 of free-running orchestrators (kill9_run), where the number of
# kills that landed depends on speed, so it is only reported.
. "${DEHBQ_SRC:-.}/tests/lib.sh"
OPTS="${T1030_OPTS:-dehb asha re tpe bohb gp gp:asha}"
plan $((3 * $(echo "$OPTS" | wc -w)))

# DEHB gets the long run (every crash point); the others a shorter one
kills=15 fevals=60 kills_other=8 fevals_other=30
if [ "${DEHBQ_CHAOS:-}" = long ]; then
	kills=25 fevals=700 kills_other=25 fevals_other=700
fi
mkspec "$T/spec.json" $fevals '{"lease": 5, "poll": 0.05, "max_inflight": 1, "prefetch": 1}'
mkspec "$T/spec_other.json" $fevals_other '{"lease": 5, "poll": 0.05, "max_inflight": 1, "prefetch": 1}'

init() { # DIR (optimizer $opt, spec $spec)
	"$B/dehbq" init "$1" --spec "$spec" --optimizer "${opt%:*}" \
		--multi-fidelity "$(echo "$opt:none" | cut -d: -f2)" >/dev/null 2>&1
}

# the trajectory (id -> loss)
traj() {
	for f in "$1"/archive/*/*.result.json; do
		sed -n 's/.*"\(id\|loss\)":[[:space:]]*\(.*\),$/\2/p' "$f" | tr '\n' ' '
		echo
	done
}
i=0
for opt in $OPTS; do
	if [ "$opt" = dehb ]; then
		spec=$T/spec.json n=$kills
	else
		spec=$T/spec_other.json n=$kills_other
	fi
	init "$T/$opt.a" && init "$T/$opt.b" || diag "$opt: init failed"
	# the crash points in turn, from a different place for each
	LS_POINTS=$(echo $LS_POINTS_DEFAULT $LS_POINTS_DEFAULT |
		cut -d' ' -f$((i * 4 % 15 + 1))-$((i * 4 % 15 + 15)))
	killed_pair "$opt" "$T/$opt.a" "$T/$opt.b" $n "$TRAINER"
	a=$(optim_state "$T/$opt.a") b=$(optim_state "$T/$opt.b")
	check "$opt: identical optimiser state (apart from timestamps)" \
		test -n "$a" -a "$a" = "$b"
	check "$opt: identical trajectory of results" \
		test -n "$(traj "$T/$opt.a")" -a "$(traj "$T/$opt.a")" = "$(traj "$T/$opt.b")"
	i=$((i + 1))
done
