#!/bin/bash
# t3050-clock-skew.sh - issue 7 item 10: workers whose clocks are 5 minutes
# ahead or behind (libfaketime: faketime -f '+5m' / '-5m').  Ages are server
# mtimes against server mtimes (protocol 7), so
#  (a) no false lease expiry: trials longer than the lease (10 s; 12 s
#      trials) run on skewed workers; FINISHED requeues = 0, no "expired"
#      line;
#  (b) no missed expiry: a skewed worker SIGKILLed mid-trial has its trial
#      requeued, no sooner than the lease after its last heartbeat (the
#      stale claim's mtime), by the orchestrator's log time.  How soon after
#      the lease depends on the machine's speed: it is printed, not bounded
#      (t3000's (E) checks the expiry without timing).  The lease is long so
#      that a loaded machine cannot make a live worker miss it.
# First it checks that libfaketime really shifts the worker's clock (the
# worker's own log timestamps).
. "${DEHBQ_SRC:-.}/tests/lib.sh"
# Sanitizer builds: let libfaketime be preloaded ahead of the ASan runtime.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
NCHK=9
plan $NCHK
# libfaketime is preloaded directly (the faketime wrapper forks, which would
# hide the worker's pid).  FAKE_UTIME=1: libfaketime 0.9.10 otherwise turns
# utime(path, NULL) into utime(path, <faked now>), i.e. it stamps heartbeats
# with the skewed clock -- a real skewed host's utime(NULL) is stamped by its
# kernel or, on NFS, by the server (SET_TO_SERVER_TIME).  Verified below.
FT=$(ls /usr/lib/*/faketime/libfaketime.so.1 /usr/lib/faketime/libfaketime.so.1 2>/dev/null | head -1)
[ -n "$FT" ] || {
	for _ in $(seq $NCHK); do skip "libfaketime not installed (apt-get install faketime)"; done
	exit 0
}
LEASE=10
POLL=0.1
FEVALS=8
[ "${DEHBQ_CHAOS:-}" = long ] && FEVALS=60
epoch_of() { # ISO timestamp -> epoch seconds
	python3 -c 'import sys, datetime; print(datetime.datetime.strptime(sys.argv[1], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc).timestamp())' "$1"
}
# skewed OFFSET LOG ARGS...: a worker with its clock shifted by OFFSET
skewed() {
	off=$1
	log=$2
	shift 2
	LD_PRELOAD=$FT FAKETIME=$off FAKE_UTIME=1 "$B/dehbq-worker" --study "$S" \
		--idle-exit 60 --max-poll 0.2 "$@" 2>>"$log" &
	BG_PIDS="$BG_PIDS $!"
}

touch "$T/probe"
sleep 1.1
LD_PRELOAD=$FT FAKETIME=-5m FAKE_UTIME=1 python3 -c 'import os, sys; os.utime(sys.argv[1], None)' "$T/probe"
age=$(python3 -c 'import os, sys, time; print("%.0f" % (time.time() - os.stat(sys.argv[1]).st_mtime))' "$T/probe")
# (a faked stamp would be 300 s off; a slow machine adds seconds, not minutes)
check "under this libfaketime setup utime(NULL) is stamped by the kernel (probe age ${age}s)" test "$age" -lt 60 -a "$age" -gt -60

# ---- (a) no false expiry -------------------------------------------------
S=$T/a
mkspec "$T/spec.json" $FEVALS "{\"lease\": $LEASE, \"poll\": $POLL}"
"$B/dehbq" init "$S" --spec "$T/spec.json" >/dev/null || exit 1
bg "$B/dehbq-orchestrator" "$S" 2>"$T/orch-a.log"
TR="sleep 12; $TRAINER" # longer than the lease: heartbeats must count
t_start=$(date +%s)
skewed +5m "$T/w-plus.log" -- sh -c "$TR"
skewed +5m "$T/w-plus.log" -- sh -c "$TR"
skewed -5m "$T/w-minus.log" -- sh -c "$TR"
skewed -5m "$T/w-minus.log" -- sh -c "$TR"
wait_for 60 test -s "$T/w-plus.log" -a -s "$T/w-minus.log"
tp=$(epoch_of "$(head -1 "$T/w-plus.log" | cut -d' ' -f1)")
tm=$(epoch_of "$(head -1 "$T/w-minus.log" | cut -d' ' -f1)")
sp=$(awk -v a="$tp" -v b="$t_start" 'BEGIN{printf "%+.0f", a - b}')
sm=$(awk -v a="$tm" -v b="$t_start" 'BEGIN{printf "%+.0f", a - b}')
diag "worker clocks as seen in their logs: ${sp}s and ${sm}s against the real clock"
# t_start is taken before the workers start: a slow start adds to both
check "libfaketime shifts the workers' clocks (+5m: ${sp}s, -5m: ${sm}s)" \
	awk -v p="$sp" -v m="$sm" 'BEGIN{exit !(p > 290 && p < 360 && m < -240 && m > -310)}'
wait_for 240 test -e "$S/FINISHED"
check "(a) study with 2 workers at +5 min and 2 at -5 min completes" test -e "$S/FINISHED"
rq=$(python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["counts"]; print(c["requeues"] + c["expired"])' "$S/FINISHED" 2>/dev/null)
nexp=$(grep -c 'expired' "$T/orch-a.log")
diag "(a) trials $FEVALS of 12 s each (lease ${LEASE}s): requeues+expired in FINISHED: $rq, 'expired' log lines: $nexp"
check "(a) no false lease expiry (requeues = 0, no 'expired' line)" test "$rq" = 0 -a "$nexp" = 0
grep 'expired' "$T/orch-a.log" | head -3 | while read -r l; do diag "orchestrator: $l"; done
check "(a) independent checker (--finished)" python3 "$DEHBQ_SRC/tests/checkstudy.py" "$S" --finished
for p in $BG_PIDS; do kill -9 "$p" 2>/dev/null; done
wait 2>/dev/null
BG_PIDS=

# ---- (b) no missed expiry -------------------------------------------------
S=$T/b
mkspec "$T/spec.json" 16 "{\"lease\": $LEASE, \"poll\": $POLL, \"max_attempts\": 5}"
"$B/dehbq" init "$S" --spec "$T/spec.json" >/dev/null || exit 1
bg "$B/dehbq-orchestrator" "$S" 2>"$T/orch-b.log"
# both skewed workers first, each until it holds a claim and runs its
# trainer (no other worker competes for the trials meanwhile)
skewed +5m "$T/w-b+5m.log" -- sh -c "sleep 120; $TRAINER"
w1=$!
skewed -5m "$T/w-b-5m.log" -- sh -c "sleep 120; $TRAINER"
w2=$!
claim_of() { ls "$S/claimed" | grep "@[^.]*\.$1\." | head -1; }
running() { [ -n "$(claim_of "$1")" ] && [ -n "$(cat /proc/"$1"/task/*/children 2>/dev/null)" ]; }
wait_for 60 running $w1
wait_for 60 running $w2
ids=
for w in $w1 $w2; do
	id=$(claim_of $w | cut -c1-8)
	ids="$ids ${id:-none}"
	for c in $(cat /proc/"$w"/task/*/children 2>/dev/null); do kill -9 -- "-$c" 2>/dev/null; done
	kill -9 "$w"
	wait "$w" 2>/dev/null
done
# delay ID PID: seconds from the last heartbeat of PID's claim of ID (the
# stale claim's mtime) to the log line that requeued it.  The line comes
# first and the stale claim reaches the archive after it: wait for both
# (seen once: the claim was looked for between the two, and the trial
# counted as never requeued).
stale_of() { ls "$S"/archive/*/claimed."$1"@*."$2".*.stale.json 2>/dev/null | head -1; }
delay() {
	wait_for 60 sh -c "ls '$S'/archive/*/claimed.$1@*.$2.*.stale.json >/dev/null 2>&1"
	f=$(stale_of "$1" "$2")
	tl=$(grep "trial=$1 claim by [^ ]*:$2 expired" "$T/orch-b.log" | tail -1 | cut -d' ' -f1)
	[ -n "$f" ] && [ -n "$tl" ] || return 1
	awk -v a="$(stat -c %.9Y "$f")" -v b="$(epoch_of "$tl")" 'BEGIN{printf "%.3f", b - a}'
}
delays=
bad=0
set -- $ids
for w in $w1 $w2; do
	id=$1
	shift
	if [ "$id" != none ] && wait_for 240 grep -q "trial=$id claim by [^ ]*:$w expired" "$T/orch-b.log" &&
		d=$(delay "$id" "$w"); then
		delays="$delays $id:${d}s"
		# the log time is rounded to the millisecond
		awk -v d="$d" -v l="$LEASE" 'BEGIN{exit !(d < l - 0.001)}' && bad=$((bad + 1))
	else
		delays="$delays $id:never"
		bad=$((bad + 1))
		# what the orchestrator said of it, and where its claim went
		diag "(b) $id of worker $w: $(grep "trial=$id" "$T/orch-b.log" | tail -4 | cut -c1-160 | tr '\n' '|')"
		diag "(b) $id files: $(ls "$S"/claimed "$S"/pending "$S"/archive/* 2>/dev/null | grep "$id" | tr '\n' ' ')"
	fi
done
diag "(b) skewed workers SIGKILLed mid-trial (+5m, -5m): requeue delays after the last heartbeat:$delays (lease ${LEASE}s)"
check "(b) a killed skewed worker's trial is requeued, never before its lease" test "$bad" = 0
# one unskewed worker finishes the study
bg "$B/dehbq-worker" --study "$S" --idle-exit 60 --max-poll 0.2 -- sh -c "sleep 0.5; $TRAINER" 2>>"$T/w-b.log"
wait_for 120 test -e "$S/FINISHED"
check "(b) the study completes" test -e "$S/FINISHED"
check "(b) independent checker (--finished)" python3 "$DEHBQ_SRC/tests/checkstudy.py" "$S" --finished

check_no_leftovers
# libfaketime shares its clock through /dev/shm/faketime_shm_PID and
# sem.faketime_sem_PID, removed at exit; the SIGKILLed processes leave them
for f in /dev/shm/faketime_shm_* /dev/shm/sem.faketime_sem_*; do
	if [ -e "$f" ] && ! kill -0 "${f##*_}" 2>/dev/null; then rm -f "$f"; fi
done
