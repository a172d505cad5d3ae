#!/bin/bash
# t3000-worker-death.sh - issue 7 item 3: workers die or stall mid-trial.
# Which worker dies or stalls, and when, is decided by the trainer wrapper
# (its parent is the worker), not by a race with the test: trials of
# $KILL_IDS kill their worker (SIGKILL) on their first attempt, trials of
# $STALL_IDS stop it (SIGSTOP) and then finish, so each happens mid-trial
# whatever the machine's speed, and every wait is for an event.
#  (a) SIGKILL a worker (its trainer exits too, as on a lost node): the
#      trial is requeued, never sooner than the lease after the claim's
#      last heartbeat (its mtime, kept by the stale claim in the archive;
#      the orchestrator's own log time), and later completes.  The delays
#      are printed; how soon after the lease a requeue comes depends on the
#      machine's speed, so no check bounds it: (E) checks the expiry
#      itself without timing, by --once batches around a claim whose
#      heartbeat is set by touch -d.
#  (b) a worker SIGSTOPped mid-trial stays stopped until the requeued copy
#      is told, then SIGCONT: its late result is archived as a duplicate
#      with a note and never told; the requeued copy's result is told
#      exactly once.
# The study completes and tests/checkstudy.py --finished accepts it.
#  (F) a claim whose lease expires max_attempts times: the trial is failed
#      and archived as told (ID.trial.json beside its failed result), so
#      `dehbq trials`, `dehbq export` and `requeue --failed` see it.
# DEHBQ_CHAOS=long: 20 kills + 3 stalls on a longer study.
. "${DEHBQ_SRC:-.}/tests/lib.sh"
plan 18

LEASE=2
POLL=0.1
fevals=200
KILL_IDS="00000010 00000025 00000040 00000055"
STALL_IDS="00000070"
if [ "${DEHBQ_CHAOS:-}" = long ]; then
	fevals=700
	KILL_IDS=$(seq -f %08g 10 30 580 | tr '\n' ' ')
	STALL_IDS="00000600 00000630 00000660"
fi
kills=$(echo $KILL_IDS | wc -w)
stalls=$(echo $STALL_IDS | wc -w)
NW=4
mkspec "$T/spec.json" $fevals "{\"lease\": $LEASE, \"poll\": $POLL, \"max_attempts\": 5}"
"$B/dehbq" init "$T/s" --spec "$T/spec.json" >/dev/null || exit 1
S=$T/s
: >"$T/exec.log"
# the trainer logs "id attempt"; a first attempt of a chosen trial leaves
# its worker's pid in $T/kill.ID or $T/stall.ID and kills or stops it
cat >"$T/trainer.sh" <<TR
#!/bin/sh
echo "\$DEHBQ_TRIAL_ID \$DEHBQ_ATTEMPT" >>'$T/exec.log'
if [ "\$DEHBQ_ATTEMPT" = 1 ]; then
	case " $KILL_IDS " in *" \$DEHBQ_TRIAL_ID "*)
		echo \$PPID >"$T/kill.\$DEHBQ_TRIAL_ID.tmp"
		mv "$T/kill.\$DEHBQ_TRIAL_ID.tmp" "$T/kill.\$DEHBQ_TRIAL_ID"
		kill -9 \$PPID
		exit 9 ;;
	esac
	case " $STALL_IDS " in *" \$DEHBQ_TRIAL_ID "*)
		echo \$PPID >"$T/stall.\$DEHBQ_TRIAL_ID.tmp"
		mv "$T/stall.\$DEHBQ_TRIAL_ID.tmp" "$T/stall.\$DEHBQ_TRIAL_ID"
		kill -STOP \$PPID ;;
	esac
fi
$TRAINER
TR
chmod +x "$T/trainer.sh"

WPIDS=
start_worker() {
	"$B/dehbq-worker" --study "$S" --idle-exit 60 --max-poll 0.2 -- \
		"$T/trainer.sh" 2>>"$T/workers.log" &
	BG_PIDS="$BG_PIDS $!"
	WPIDS="$WPIDS $!"
}
bg "$B/dehbq-orchestrator" "$S" 2>"$T/orch.log"
ORCH=$!
for _ in $(seq $NW); do start_worker; done

# requeue_delay ID PID: seconds from the last heartbeat of PID's claim of ID
# (the stale claim's mtime) to the log line that requeued it
requeue_delay() {
	local f tl
	f=$(ls "$S"/archive/*/claimed."$1"@*."$2".*.stale.json 2>/dev/null | head -1)
	tl=$(grep "trial=$1 claim by [^ ]*:$2 expired" "$T/orch.log" | tail -1 | cut -d' ' -f1)
	[ -n "$f" ] && [ -n "$tl" ] || return 1
	awk -v a="$(stat -c %.9Y "$f")" -v b="$(date -d "$tl" +%s.%N)" \
		'BEGIN{printf "%.3f", b - a}'
}

# (a) kills, in the order the trials run; each waits (240 s only catches a
# hang) for the kill, then for the orchestrator to requeue the dead claim
delays=
early=0
maxdelay=0
n=0
for id in $KILL_IDS; do
	wait_for 240 test -s "$T/kill.$id" || break
	pid=$(cat "$T/kill.$id")
	wait "$pid" 2>/dev/null
	start_worker
	n=$((n + 1))
	wait_for 240 grep -q "trial=$id claim by [^ ]*:$pid expired.*requeued" "$T/orch.log" &&
		wait_for 240 sh -c "ls '$S'/archive/*/claimed.$id@*.$pid.*.stale.json >/dev/null 2>&1" &&
		d=$(requeue_delay "$id" "$pid") || continue
	delays="$delays $d"
	# the log time is rounded to the millisecond
	if awk -v d="$d" -v l="$LEASE" 'BEGIN{exit !(d < l - 0.001)}'; then early=$((early + 1)); fi
	maxdelay=$(awk -v a="$maxdelay" -v b="$d" 'BEGIN{print (b > a) ? b : a}')
done
diag "workers SIGKILLed mid-trial: $n; requeue delays after the last heartbeat (s):$delays; max $maxdelay (lease $LEASE)"
check "SIGKILLed $kills workers mid-trial (got $n)" test "$n" = "$kills"
measured=$(echo "$delays" | wc -w)
check "every killed worker's trial was requeued, no sooner than its lease ($measured of $n measured)" \
	test "$early" = 0 -a "$measured" = "$n"

# (b) stalls: the stopped worker's trainer finishes meanwhile (its own
# process group, not stopped), but the worker cannot write its result
m=0
for id in $STALL_IDS; do
	wait_for 240 test -s "$T/stall.$id" || break
	pid=$(cat "$T/stall.$id")
	start_worker
	# the requeued attempt is run and told by another worker
	wait_for 240 grep -q "trial=$id attempt=[2-9] told" "$T/orch.log" || break
	kill -CONT "$pid"
	m=$((m + 1))
	# its late result: archived as a duplicate with a note, or, when that
	# told copy was the study's last trial, left in results/ after FINISHED
	wait_for 240 sh -c "ls '$S'/archive/*/ | grep -q '^$id\.a1\..*\.note\$' ||
		{ test -e '$S/FINISHED' && ls '$S/results' | grep -q '^$id\.a1\.'; }"
done
killed_ids=$KILL_IDS
stalled_ids=$STALL_IDS
diag "workers SIGSTOPped mid-trial past the lease and resumed: $m ($stalled_ids)"
check "stalled $stalls workers past their lease (got $m)" test "$m" = "$stalls"

wait_for 240 test -e "$S/FINISHED"
check "study completes" test -e "$S/FINISHED"
# workers exit when they see FINISHED
for p in $WPIDS; do wait_for 120 sh -c "! kill -0 $p 2>/dev/null"; done
wait "$ORCH" 2>/dev/null
# a late result written after FINISHED (a stall whose re-run was the last
# trial) waits in results/ for the next orchestrator run on the study
# (docs/protocol.md, "Finish"), which archives it as a duplicate
late=$(ls "$S/results" | wc -l)
[ "$late" = 0 ] || "$B/dehbq-orchestrator" --once "$S" 2>>"$T/orch.log"
diag "late results after FINISHED, archived by one more orchestrator run: $late"
check "independent checker: one state per trial, results told once, exact accounting, replay" \
	python3 "$DEHBQ_SRC/tests/checkstudy.py" "$S" --finished

# every killed trial completed, on a later attempt
notdone=0
for id in $killed_ids $stalled_ids; do
	f=$S/archive/$(printf '%04d' $((10#$id / 10000)))/$id.result.json
	[ -e "$f" ] || notdone=$((notdone + 1))
done
check "every killed/stalled trial completed (missing: $notdone)" test $notdone = 0

# the stalled workers' late results: one duplicate + note each, one tell
dup_missing=0
told_twice=0
for id in $stalled_ids; do
	sh_=$(printf '%04d' $((10#$id / 10000)))
	ls "$S/archive/$sh_/" | grep -q "^$id\.a[0-9]*\..*duplicate\.json$" || dup_missing=$((dup_missing + 1))
	ls "$S/archive/$sh_/" | grep -q "^$id\.a[0-9]*\..*\.note$" || dup_missing=$((dup_missing + 1))
	t=$(grep -c "trial=$id attempt=[0-9]* told" "$T/orch.log")
	[ "$t" = 1 ] || told_twice=$((told_twice + 1))
done
check "each late result was archived as a duplicate with a note" test $dup_missing = 0
check "no stalled trial was told twice" test $told_twice = 0
alltold=$(grep -o 'trial=[0-9]* attempt=[0-9]* told' "$T/orch.log" | cut -d' ' -f1 | sort | uniq -d | wc -l)
check "no trial told twice in the whole study ($alltold)" test "$alltold" = 0

c=$(python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["counts"]; print(c["requeues"], c["duplicates"], c["expired"], c["done"], c["issued"])' "$S/FINISHED")
set -- $c
execs=$(wc -l <"$T/exec.log")
uniq=$(cut -d' ' -f1 "$T/exec.log" | sort -u | wc -l)
twice=$(cut -d' ' -f1 "$T/exec.log" | sort | uniq -d | wc -l)
diag "trials issued $5, done $4, requeues $1, duplicates archived $2, failed by expiry $3"
diag "trainer executions $execs, distinct trials run $uniq, trials run more than once $twice (expected: the killed/stalled ones), trials lost $(($5 - uniq))"
check "requeues >= kills + stalls ($1 >= $((n + m)))" test "$1" -ge $((n + m))
# each stall leaves one duplicate (checked by id above); a live worker that
# a loaded machine kept from its heartbeat for a lease may leave one more,
# but only a requeue that was not a kill can leave one
diag "duplicates beyond the stalls (live workers late on a loaded machine): $(($2 - m))"
check "stalls <= duplicates archived <= requeues - kills ($m <= $2 <= $1 - $n)" \
	test "$2" -ge "$m" -a "$2" -le $(($1 - n))

# Regression check (bug found under t3030's injected faults, fixed in HEAD;
# before, the claim was requeued first and the result told as well): the
# orchestrator restarts while a worker's result is waiting next to its claim
# and the claim's heartbeat is older than the lease (the worker finished and
# stopped touching it while no orchestrator ran).  The result must be told
# and the claim archived; requeueing the trial as well re-runs it for nothing
# and leaves it "ingested and still pending" until the re-run is archived as
# a duplicate.
R=$T/r
mkspec "$T/spec-r.json" 10 '{"lease": 2, "poll": 0.1}'
"$B/dehbq" init "$R" --spec "$T/spec-r.json" >/dev/null
"$B/dehbq-orchestrator" --once "$R" 2>>"$T/r.log"
"$B/dehbq-worker" --study "$R" --max-trials 1 -- sh -c "$TRAINER" 2>>"$T/r.log"
touch -d '-30 sec' "$R"/claimed/*
"$B/dehbq-orchestrator" --once "$R" 2>>"$T/r.log"
rq=$(grep -c 'expired.*requeued' "$T/r.log")
pend=$(ls "$R/pending" | grep -c -- '-00000000\.json$')
diag "R: restart with a waiting result and a stale claim: requeued $rq, trial 00000000 back in pending/: $pend"
check "R: a waiting result is told, not requeued, when its claim went stale while no orchestrator ran" \
	test "$rq" = 0 -a "$pend" = 0

# E: the expiry without timing, played by hand in --once batches: a claim
# by a worker on another host, its heartbeat set by touch -d, lease 60 s
E=$T/e
mkspec "$T/spec-e.json" 10 '{"lease": 60, "poll": 0.1}'
"$B/dehbq" init "$E" --spec "$T/spec-e.json" >/dev/null
"$B/dehbq-orchestrator" --once "$E" 2>>"$T/e.log"
p=$(ls "$E/pending" | grep -- '-00000000\.json$')
mv "$E/pending/$p" "$E/claimed/00000000@node1.999999.0123456789ab.json"
touch -d '-30 sec' "$E"/claimed/*
"$B/dehbq-orchestrator" --once "$E" 2>>"$T/e.log"
kept=$(ls "$E/claimed" | grep -c '^00000000@')
touch -d '-90 sec' "$E"/claimed/*
"$B/dehbq-orchestrator" --once "$E" 2>>"$T/e.log"
rq=$(grep -c 'trial=00000000 claim by .* expired.*requeued' "$T/e.log")
diag "E: claim kept at a 30 s heartbeat: $kept; requeued at 90 s: $rq ($(grep -c . "$T/e.log") log lines)"
check "E: a claim is kept while its heartbeat is younger than the lease, and requeued (attempt 2) once it is older" \
	sh -c "test '$kept' = 1 -a '$rq' = 1 && grep -q '\"attempt\":[[:space:]]*2' '$E'/pending/*-00000000.json"

# F: played by hand, two --once batches: claim a trial as a worker that then
# vanished, age its heartbeat past the lease; max_attempts 1 fails it.
F=$T/f
mkspec "$T/spec-f.json" 10 '{"lease": 2, "poll": 0.1, "max_attempts": 1}'
"$B/dehbq" init "$F" --spec "$T/spec-f.json" >/dev/null
"$B/dehbq-orchestrator" --once "$F" 2>>"$T/f.log"
p=$(ls "$F/pending" | grep -- '-00000000\.json$')
mv "$F/pending/$p" "$F/claimed/00000000@node1.999999.0123456789ab.json"
touch -d '-30 sec' "$F"/claimed/*
"$B/dehbq-orchestrator" --once "$F" 2>>"$T/f.log"
fst=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["status"])' "$F/archive/0000/00000000.result.json" 2>/dev/null)
diag "F: $(grep 'trial=00000000' "$T/f.log" | tail -1)"
check "F: a trial failed by lease expiry is archived as told (ID.trial.json, result status '$fst')" \
	test -f "$F/archive/0000/00000000.trial.json" -a "$fst" = failed -a ! -e "$F/archive/0000/claimed.00000000@node1.999999.0123456789ab.stale.json"
check "F: dehbq trials --state failed lists it" \
	sh -c "'$B/dehbq' trials '$F' --state failed --format csv | grep -q '^00000000,failed,'"
check "F: dehbq export includes it" \
	sh -c "'$B/dehbq' export '$F' --csv - | grep -q '^00000000,'"
"$B/dehbq" requeue "$F" --failed >>"$T/f.log" 2>&1
"$B/dehbq-orchestrator" --once "$F" 2>>"$T/f.log"
check "F: requeue --failed runs it again (attempt 2 in pending/)" \
	sh -c "grep -q '\"attempt\":[[:space:]]*2' '$F'/pending/*-00000000.json"
check_no_leftovers
exit 0
