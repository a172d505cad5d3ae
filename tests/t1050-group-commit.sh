#!/bin/sh
# t1050: group commit (runtime.batch_interval, docs/protocol.md section 6).
# One worker with 20 ms trials and 5 trials of prefetch, 400 trials:
#  - with a hold of 10 s (the most batch_interval allows; poll 3600 s),
#    results that arrive one by one are taken together (far fewer snapshots
#    than results), and the hold ends as soon as pending/ may be empty: the
#    study takes seconds (printed), where a hold per refill would take
#    800 s (80 refills) and a wait for the poll hours; the 400 s bound
#    catches those, or a hang, never a slow machine;
#  - with batch_interval 0 (200 trials) every result gets its own batch: the trainer
#    waits until the previous result is archived, so that a slow
#    orchestrator cannot find two results in one batch.
. "${DEHBQ_SRC:-.}/tests/lib.sh"
plan 5
FEVALS=400 PREFETCH=5
# gen STUDY: the newest snapshot's generation (one per batch that changed state)
gen() { ls "$1/state" | sed -n 's/^snapshot-[0-9]*-0*\([0-9][0-9]*\)\.json$/\1/p' | sort -n | tail -1; }
run() { # run NAME BATCH_INTERVAL POLL [TRAINER]: sets secs to the study's seconds
	mkspec "$T/$1.json" $FEVALS "{\"lease\": 7200, \"poll\": $3, \"prefetch\": $PREFETCH, \"batch_interval\": $2}"
	"$B/dehbq" init "$T/$1" --spec "$T/$1.json" >/dev/null || exit 1
	bg "$B/dehbq-worker" --study "$T/$1" --idle-exit 60 --max-poll 0.2 -- \
		sh -c "${4:-sleep 0.02; $TRAINER}" 2>"$T/$1-w.log"
	t0=$(now_s)
	bg "$B/dehbq-orchestrator" "$T/$1" 2>"$T/$1-orch.log"
	wait_for 400 test -e "$T/$1/FINISHED"
	secs=$(since_s "$t0")
}
run hold 10 3600
check "(hold 10 s) the study finishes" test -e "$T/hold/FINISHED"
g=$(gen "$T/hold")
diag "hold 10 s: $FEVALS results in $g snapshots, ${secs} s (a hold per refill would take 800 s or more)"
check "(hold 10 s) results are taken together: snapshots $g < $FEVALS / 2" test "${g:-999}" -lt $((FEVALS / 2))
# each trial first waits (at most 60 s) for the previous one's result to be
# archived: one result per batch, however slow the orchestrator
cat >"$T/gated.sh" <<EOF
if [ -s "$T/none.last" ]; then
	i=0
	while ! ls "$T/none/archive/"*/"\$(cat "$T/none.last").result.json" >/dev/null 2>&1 &&
		[ \$i -lt 600 ]; do
		sleep 0.1
		i=\$((i + 1))
	done
fi
echo "\$DEHBQ_TRIAL_ID" >"$T/none.last"
EOF
FEVALS=200
run none 0 5 ". '$T/gated.sh'; $TRAINER"
g=$(gen "$T/none")
diag "batch_interval 0: $FEVALS results in $g snapshots, ${secs} s"
check "(batch_interval 0) the study finishes" test -e "$T/none/FINISHED"
check "(batch_interval 0) a batch per result: snapshots $g >= $FEVALS * 3 / 4" test "${g:-0}" -ge $((FEVALS * 3 / 4))
check_no_leftovers
