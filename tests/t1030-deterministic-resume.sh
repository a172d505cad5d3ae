#!/bin/sh
# t1030: with one worker, one trial in flight and a deterministic trainer,
# a run killed several times ends with the same optimiser state and the
# same trajectory as an uninterrupted run with the same seed.
. "${DEHBQ_SRC:-.}/tests/lib.sh"
plan 3

kills=5
fevals=150
if [ "${DEHBQ_CHAOS:-}" = long ]; then
	kills=25
	fevals=700
fi
mkspec "$T/spec.json" $fevals '{"lease": 5, "poll": 0.05, "max_inflight": 1, "prefetch": 1}'

run_study() { # DIR KILLS
	"$B/dehbq" init "$1" --spec "$T/spec.json" >/dev/null || return 1
	"$B/dehbq-worker" --study "$1" --idle-exit 60 --max-poll 0.2 -- \
		sh -c "sleep 0.01; $TRAINER" 2>>"$1.workers.log" &
	w=$!
	k=0 starts=0
	# an orchestrator that exits by itself is not killed: stop after twice
	# as many starts as kills rather than loop for ever
	while [ $k -lt "$2" ] && [ $starts -lt $((2 * $2)) ] &&
		[ ! -e "$1/FINISHED" ]; do
		starts=$((starts + 1))
		"$B/dehbq-orchestrator" -q "$1" 2>>"$1.orch.log" &
		o=$!
		sleep "$(awk -v s=$k 'BEGIN{srand(s); printf "%.2f", 0.1 + rand() * 0.4}')"
		kill -9 $o 2>/dev/null && k=$((k + 1))
		wait $o 2>/dev/null
	done
	[ -e "$1/FINISHED" ] || "$B/dehbq-orchestrator" -q "$1" 2>>"$1.orch.log"
	wait $w
	echo "$k"
}

run_study "$T/a" 0 >/dev/null
k=$(run_study "$T/b" $kills)
diag "kills in the interrupted run: $k"

# the engine state without timestamps, and the trajectory (id -> loss)
state() {
	python3 - "$1" <<'PY'
import glob, json, sys
snap = json.load(open(sorted(glob.glob(sys.argv[1] + "/state/snapshot-*"))[-1]))
e = snap["engine"]
e["counts"].pop("elapsed", None)
print(json.dumps(e, sort_keys=True))
PY
}
traj() {
	for f in "$1"/archive/*/*.result.json; do
		sed -n 's/.*"\(id\|loss\)":[[:space:]]*\(.*\),$/\2/p' "$f" | tr '\n' ' '
		echo
	done
}
check "both runs finish, the second after $kills kills" \
	test -e "$T/a/FINISHED" -a -e "$T/b/FINISHED" -a "$k" = "$kills"
check "identical optimiser state (apart from timestamps)" \
	test "$(state "$T/a")" = "$(state "$T/b")"
check "identical trajectory of results" test "$(traj "$T/a")" = "$(traj "$T/b")"
