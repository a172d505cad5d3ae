#!/bin/sh
# t1010: kill -9 the orchestrator at random instants (also between a temp
# file and its rename) while 8 workers run; the independent checker must
# accept the study.  DEHBQ_CHAOS=long runs 500 kills instead of 30.
. "${DEHBQ_SRC:-.}/tests/lib.sh"
plan 5

kills=30
fevals=300
if [ "${DEHBQ_CHAOS:-}" = long ]; then
	kills=500
	fevals=20000 # long enough that all 500 kills land before the end
fi
mkspec "$T/spec.json" $fevals '{"lease": 3, "poll": 0.1, "max_attempts": 5}'
"$B/dehbq" init "$T/s" --spec "$T/spec.json" >/dev/null || exit 1
: >"$T/exec.log"
for i in 1 2 3 4 5 6 7 8; do
	bg "$B/dehbq-worker" --study "$T/s" --idle-exit 120 --max-poll 0.5 -- \
		sh -c "echo \$DEHBQ_TRIAL_ID >>'$T/exec.log'; $TRAINER" \
		2>>"$T/workers.log"
done

n=0 tries=0
# an orchestrator that exits by itself is not killed; give up after as many
# such starts as kills rather than loop for ever (check 1 then fails)
while [ $n -lt $kills ] && [ $tries -lt $((2 * kills)) ] &&
	[ ! -e "$T/s/FINISHED" ]; do
	tries=$((tries + 1))
	delay=$(awk -v s=$n 'BEGIN{srand(s); print (rand() < 0.5) ? 0 : 3}')
	pause=$(awk -v s=$n 'BEGIN{srand(s+1000); printf "%.3f", 0.05 + rand() * 0.35}')
	DEHBQ_TEST_RENAME_DELAY_MS=$delay "$B/dehbq-orchestrator" "$T/s" \
		2>>"$T/orch.log" &
	pid=$!
	sleep "$pause"
	kill -9 $pid 2>/dev/null && n=$((n + 1))
	wait $pid 2>/dev/null
done
diag "kills survived: $n (starts: $tries)"
[ $n -eq $kills ] || [ -e "$T/s/FINISHED" ] || diag "$(tail -2 "$T/orch.log")"
check "orchestrator was killed $kills times (or the study ended first)" \
	sh -c "[ $n -eq $kills ] || [ -e '$T/s/FINISHED' ]"

bg "$B/dehbq-orchestrator" "$T/s" 2>>"$T/orch.log"
wait_for 300 test -e "$T/s/FINISHED"
check "study completes after the kills" test -e "$T/s/FINISHED"
check "independent checker: one state per trial, results told once, exact accounting, replay" \
	python3 "$DEHBQ_SRC/tests/checkstudy.py" "$T/s" --finished
quarantined=$(ls "$T/s/quarantine" | wc -l)
diag "files quarantined: $quarantined"
check "no partial or corrupt file was ever published (quarantine empty)" \
	test "$quarantined" = 0
execs=$(wc -l <"$T/exec.log")
uniq=$(sort -u "$T/exec.log" | wc -l)
diag "trials: $fevals, executions: $execs, trials run twice: $((execs - uniq)), lost: $((fevals - uniq))"
check "no trial lost" test "$uniq" = "$fevals"
