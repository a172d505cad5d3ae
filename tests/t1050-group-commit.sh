#!/bin/sh
# t1050: group commit (runtime.batch_interval, docs/protocol.md section 6).
# One worker with 20 ms trials and 10 trials of prefetch:
#  - with a hold of 5 s, results that arrive one by one are taken together
#    (far fewer snapshots than results), and the hold ends as soon as
#    pending/ may be empty: the study takes seconds, not a hold per refill;
#  - with batch_interval 0 every result gets its own batch.
. "${DEHBQ_SRC:-.}/tests/lib.sh"
plan 6
FEVALS=40
# gen STUDY: the newest snapshot's generation (one per batch that changed state)
gen() { ls "$1/state" | sed -n 's/^snapshot-[0-9]*-0*\([0-9][0-9]*\)\.json$/\1/p' | sort -n | tail -1; }
run() { # run NAME BATCH_INTERVAL: sets secs to the study's seconds
	mkspec "$T/$1.json" $FEVALS "{\"lease\": 10, \"poll\": 5, \"prefetch\": 10, \"batch_interval\": $2}"
	"$B/dehbq" init "$T/$1" --spec "$T/$1.json" >/dev/null || exit 1
	bg "$B/dehbq-worker" --study "$T/$1" --idle-exit 60 --max-poll 0.2 -- \
		sh -c "sleep 0.02; $TRAINER" 2>"$T/$1-w.log"
	t0=$(date +%s)
	bg "$B/dehbq-orchestrator" "$T/$1" 2>"$T/$1-orch.log"
	wait_for 60 test -e "$T/$1/FINISHED"
	secs=$(($(date +%s) - t0))
}
run hold 5
check "(hold 5 s) the study finishes" test -e "$T/hold/FINISHED"
g=$(gen "$T/hold")
diag "hold 5 s: $FEVALS results in $g snapshots, ${secs} s (a hold per refill would take 20 s or more)"
check "(hold 5 s) results are taken together: snapshots $g < $FEVALS / 2" test "${g:-999}" -lt $((FEVALS / 2))
check "(hold 5 s) no worker waits for the hold: ${secs} s < 15 s" test "$secs" -lt 15
run none 0
g=$(gen "$T/none")
diag "batch_interval 0: $FEVALS results in $g snapshots, ${secs} s"
check "(batch_interval 0) the study finishes" test -e "$T/none/FINISHED"
check "(batch_interval 0) a batch per result: snapshots $g >= $FEVALS * 3 / 4" test "${g:-0}" -ge $((FEVALS * 3 / 4))
check_no_leftovers
