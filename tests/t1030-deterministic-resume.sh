#!/bin/sh
# t1030: with one worker, one trial in flight and a deterministic trainer,
# a run killed several times ends with the same optimiser state and the
# same trajectory as an uninterrupted run with the same seed; for DEHB and
# for the optimisers added on the optim/ interface (ASHA, RE, TPE, BOHB,
# GP, and GP composed with ASHA: gp:asha is --multi-fidelity asha).
. "${DEHBQ_SRC:-.}/tests/lib.sh"
OPTS="${T1030_OPTS:-dehb asha re tpe bohb gp gp:asha}"
plan $((3 * $(echo "$OPTS" | wc -w)))

# DEHB gets the long run; the others a shorter one (CI's time budget),
# unless chaos asks for the long one everywhere
kills=5 fevals=150 kills_other=3 fevals_other=60
if [ "${DEHBQ_CHAOS:-}" = long ]; then
	kills=25 fevals=700 kills_other=25 fevals_other=700
fi
mkspec "$T/spec.json" $fevals '{"lease": 5, "poll": 0.05, "max_inflight": 1, "prefetch": 1}'
mkspec "$T/spec_other.json" $fevals_other '{"lease": 5, "poll": 0.05, "max_inflight": 1, "prefetch": 1}'

run_study() { # DIR KILLS (optimizer $opt)
	"$B/dehbq" init "$1" --spec "$spec" --optimizer "${opt%:*}" \
		--multi-fidelity "$(echo "$opt:none" | cut -d: -f2)" \
		>/dev/null 2>&1 || return 1
	kill9_run "$1" "$2" 0.1 0.4 "$TRAINER"
}

# the engine state without timestamps, and the trajectory (id -> loss)
traj() {
	for f in "$1"/archive/*/*.result.json; do
		sed -n 's/.*"\(id\|loss\)":[[:space:]]*\(.*\),$/\2/p' "$f" | tr '\n' ' '
		echo
	done
}
for opt in $OPTS; do
	if [ "$opt" = dehb ]; then
		spec=$T/spec.json n=$kills
	else
		spec=$T/spec_other.json n=$kills_other
	fi
	run_study "$T/$opt.a" 0 >/dev/null
	k=$(run_study "$T/$opt.b" $n)
	diag "$opt: kills in the interrupted run: $k"
	a=$(optim_state "$T/$opt.a") b=$(optim_state "$T/$opt.b")
	check "$opt: both runs finish, the second after $n kills" \
		test -e "$T/$opt.a/FINISHED" -a -e "$T/$opt.b/FINISHED" -a "$k" = "$n"
	check "$opt: identical optimiser state (apart from timestamps)" \
		test -n "$a" -a "$a" = "$b"
	check "$opt: identical trajectory of results" \
		test -n "$(traj "$T/$opt.a")" -a "$(traj "$T/$opt.a")" = "$(traj "$T/$opt.b")"
done
