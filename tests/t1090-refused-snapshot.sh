#!/bin/sh
# t1090: a study whose snapshots an earlier dehbq could not load again (GP
# saved next_fit past what its loader took: 0.3.0 at 4b59f9c, kept in
# tests/data/study-gp-next-fit with its three snapshots) resumes and
# finishes; a snapshot this dehbq refuses stops the orchestrator with one
# line naming the file and why, and leaves every file where it is, at
# every start; put back, the study resumes.  Deterministic: the
# orchestrator runs one batch at a time (--once), the worker one trial.
. "${DEHBQ_SRC:-.}/tests/lib.sh"
plan 8

S=$T/s
mkdir -p "$S"
cp -R "$DEHBQ_SRC/tests/data/study-gp-next-fit/." "$S/"
for d in archive claimed logs quarantine results staging work workers \
	state/requests; do
	mkdir -p "$S/$d"
done

# lockstep: one batch, one trial, until FINISHED (at most N steps)
lockstep() {
	ls_i=0
	while [ ! -e "$S/FINISHED" ] && [ $ls_i -lt "$1" ]; do
		"$B/dehbq-orchestrator" -q --once "$S" 2>>"$T/orch.log" || return 1
		[ -e "$S/FINISHED" ] && break
		"$B/dehbq-worker" --study "$S" --max-trials 1 --idle-exit 5 -- \
			sh -c "$TRAINER" 2>>"$T/worker.log" || return 1
		ls_i=$((ls_i + 1))
	done
	test -e "$S/FINISHED"
}

"$B/dehbq-orchestrator" -q --once "$S" 2>"$T/first.log"
rc=$?
check "0.3.0's GP snapshot (next_fit 124 at 121 asked) loads (exit $rc)" \
	test $rc = 0
check "... nothing went to quarantine" test "$(ls "$S/quarantine")" = ""

# this dehbq's own snapshot, with a value its loader refuses
newest=$(ls "$S/state" | grep '^snapshot-' | tail -1)
cp "$S/state/$newest" "$T/good.json"
sed 's/"next_fit":[[:space:]]*[0-9]*/"next_fit":	99999/' "$T/good.json" \
	>"$S/state/$newest"
ls -R "$S" | sort >"$T/before"
"$B/dehbq-orchestrator" --once "$S" 2>"$T/refused.log"
rc1=$?
"$B/dehbq-orchestrator" --once "$S" 2>"$T/refused2.log"
rc2=$?
ls -R "$S" | sort >"$T/after"
diag "$(grep ' E ' "$T/refused.log" | cut -c1-300)"
check "a refused snapshot stops the orchestrator: exit 100, twice ($rc1 $rc2)" \
	test "$rc1$rc2" = 100100
check "... with one error line naming the file and what is wrong" \
	sh -c "[ \$(grep -c ' E ' '$T/refused.log') = 1 ] &&
		grep ' E ' '$T/refused.log' | grep -q 'state/$newest' &&
		grep ' E ' '$T/refused.log' | grep -q 'saved state does not fit'"
check "... the same line at the next start (not a misleading one)" \
	sh -c "grep ' E ' '$T/refused.log' | cut -d' ' -f4- >'$T/e1' &&
		grep ' E ' '$T/refused2.log' | cut -d' ' -f4- >'$T/e2' &&
		cmp -s '$T/e1' '$T/e2'"
check "... and every file stays where it was, none quarantined" \
	sh -c "cmp -s '$T/before' '$T/after' && [ -z \"\$(ls '$S/quarantine')\" ]"

cp "$T/good.json" "$S/state/$newest"
check "put back, the study resumes and finishes" lockstep 200
check "... with its 150 evaluations, the last 30 run here once each" \
	sh -c "grep -q '\"done\":[[:space:]]*150,' '$S/FINISHED' &&
		grep -q '\"duplicates\":[[:space:]]*0,' '$S/FINISHED' &&
		[ \$(ls '$S/archive/0000' | grep -c 'result.json$') = 30 ] &&
		[ \$(ls '$S/archive/0000' | grep -c '^0000012[0-9].result.json$') = 10 ]"
