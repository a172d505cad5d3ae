#!/bin/sh
# t1040: requests from `dehbq` reach the orchestrator: requeue an
# in-flight trial at once (attempt 2), refuse to requeue a told trial,
# quarantine a malformed request, and stop -> drain -> FINISHED.  Also: a
# told trial's claim never replaces an older copy under its archive name.
. "${DEHBQ_SRC:-.}/tests/lib.sh"
plan 13

mkspec "$T/spec.json" 500 '{"lease": 60, "poll": 0.1, "prefetch": 0}'
"$B/dehbq" init "$T/s" --spec "$T/spec.json" >/dev/null || exit 1
bg "$B/dehbq-orchestrator" "$T/s" 2>"$T/orch.log"
orch=$!
# a worker whose first trial hangs until the test lets it go
bg "$B/dehbq-worker" --study "$T/s" --idle-exit 30 -- \
	sh -c "[ -e '$T/go' ] || sleep 30; $TRAINER" 2>"$T/w.log"
wait_for 20 sh -c "ls '$T/s/claimed' | grep -q @"
id=$(ls "$T/s/claimed" | head -1 | cut -c1-8)
req() { printf '%s\n' "$2" >"$T/s/state/requests/.tmp" &&
	mv "$T/s/state/requests/.tmp" "$T/s/state/requests/$1.json"; }
req r1 "{\"format\": \"dehbq-request/1\", \"action\": \"requeue\", \"trial\": \"$id\"}"
wait_for 10 grep -q "trial=$id requeued by request" "$T/orch.log"
check "an in-flight trial is requeued at once by request" \
	grep -q "trial=$id requeued by request (r1.json) as attempt 2" "$T/orch.log"
# the log line comes before the batch's moves: wait for the publish
republished() {
	grep -l '"attempt":.2' "$T/s/pending/"*$id.json >/dev/null 2>&1 ||
		grep -ql '"attempt":.2' "$T/s/claimed/"$id@* 2>/dev/null ||
		ls "$T/s/archive/0000/" | grep -q "$id.result"
}
wait_for 10 republished
check "... and republished as attempt 2" \
	sh -c "grep -l '\"attempt\":.2' '$T/s/pending/'*$id.json >/dev/null 2>&1 ||
	       grep -ql '\"attempt\":.2' '$T/s/claimed/'$id@* 2>/dev/null ||
	       ls '$T/s/archive/0000/' | grep -q '$id.result'"
req r2 '{"format": "dehbq-request/1", "action": "explode"}'
wait_for 10 test -e "$T/s/quarantine/state-requests.r2.json.reason"
check "a malformed request is quarantined with a reason" \
	sh -c "ls '$T/s/quarantine' | grep -q 'r2.json.reason'"
# an unknown field, and a name dehbq never writes: refused, not acted on
req r2b '{"format": "dehbq-request/1", "action": "stop", "bogus": 1}'
printf '%s\n' '{"format": "dehbq-request/1", "action": "stop"}' >"$T/s/state/requests/.tmp" &&
	mv "$T/s/state/requests/.tmp" "$T/s/state/requests/notjson.txt"
wait_for 10 test -e "$T/s/quarantine/state-requests.notjson.txt.reason"
wait_for 10 test -e "$T/s/quarantine/state-requests.r2b.json.reason"
check "a request with an unknown field or an odd name is quarantined, not acted on" \
	sh -c "grep -q bogus '$T/s/quarantine/state-requests.r2b.json.reason' &&
	       grep -q 'not a request file name' '$T/s/quarantine/state-requests.notjson.txt.reason' &&
	       ! grep -q 'stop requested' '$T/orch.log'"
touch "$T/go"
bg "$B/dehbq-worker" --study "$T/s" --idle-exit 30 -- sh -c "$TRAINER" 2>>"$T/w.log"
wait_for 90 sh -c "ls '$T/s/archive/0000' | grep -q '$id.result'"
req r3 "{\"format\": \"dehbq-request/1\", \"action\": \"requeue\", \"trial\": \"$id\"}"
wait_for 30 grep -q "trial=$id not requeued" "$T/orch.log"
check "requeue of a trial with a valid result is refused with a reason" \
	grep -q "trial=$id not requeued (r3.json): it has a valid result" "$T/orch.log"
req r4 '{"format": "dehbq-request/1", "action": "stop"}'
wait_for 90 test -e "$T/s/FINISHED"
check "stop request: the study drains and finishes early" \
	grep -q '"reason":.*"stopped by request"' "$T/s/FINISHED"
check "independent checker accepts the stopped study" \
	python3 "$DEHBQ_SRC/tests/checkstudy.py" "$T/s" --finished

# requeue of failed trials: a trainer that fails until a flag file exists.
# After its first failure every trial waits for the flag, so the study
# cannot finish before the request is handled (fast trials once did).
mkspec "$T/spec2.json" 40 '{"lease": 60, "poll": 0.1}'
"$B/dehbq" init "$T/f" --spec "$T/spec2.json" >/dev/null || exit 1
cat >"$T/fail.sh" <<EOF
#!/bin/sh
if [ ! -e '$T/healed' ] && [ -e '$T/failed' ]; then
	n=0
	while [ ! -e '$T/healed' ] && [ \$n -lt 1200 ]; do sleep 0.05; n=\$((n + 1)); done
elif [ ! -e '$T/healed' ] && [ "\$DEHBQ_P_LAYERS" -le 3 ]; then
	touch '$T/failed'
	exit 3
fi
exec $TRAINER
EOF
bg "$B/dehbq-orchestrator" "$T/f" 2>"$T/orchf.log"
bg "$B/dehbq-worker" --study "$T/f" --idle-exit 30 -- sh "$T/fail.sh" 2>"$T/wf.log"
wait_for 60 sh -c "grep -q '\"status\":.*\"failed\"' '$T'/f/archive/*/*.result.json 2>/dev/null"
nfail=$(grep -l '"status":.*"failed"' "$T"/f/archive/*/*.result.json | wc -l)
diag "failed trials before the requeue: $nfail"
req_f() { printf '%s\n' "$2" >"$T/f/state/requests/.tmp" &&
	mv "$T/f/state/requests/.tmp" "$T/f/state/requests/$1.json"; }
req_f rf '{"format": "dehbq-request/1", "action": "requeue-failed"}'
wait_for 30 grep -q "failed trial(s) requeued" "$T/orchf.log"
touch "$T/healed"
check "requeue-failed reopens the failed trials" \
	grep -q "failed earlier; requeued by request (rf.json)" "$T/orchf.log"
wait_for 60 test -e "$T/f/FINISHED"
check "the study finishes" test -e "$T/f/FINISHED"
check "... the earlier failures are kept in the archive as attempt files" \
	sh -c "ls '$T'/f/archive/*/ | grep -q '^[0-9]*\.a1\.result\.json$'"
check "... and the checker's accounting is exact" \
	python3 "$DEHBQ_SRC/tests/checkstudy.py" "$T/f" --finished

# an older copy under a trial's archive name: the told claim goes beside it
mkspec "$T/spec3.json" 1 '{"lease": 60, "poll": 0.1, "prefetch": 0}'
"$B/dehbq" init "$T/c" --spec "$T/spec3.json" >/dev/null || exit 1
bg "$B/dehbq-orchestrator" "$T/c" 2>"$T/orchc.log"
bg "$B/dehbq-worker" --study "$T/c" --idle-exit 30 -- \
	sh -c "while [ ! -e '$T/go3' ]; do sleep 0.1; done; $TRAINER" 2>"$T/wc.log"
wait_for 20 sh -c "ls '$T/c/claimed' | grep -q @"
claim=$(ls "$T/c/claimed" | head -1)
id=$(echo "$claim" | cut -c1-8)
mkdir -p "$T/c/archive/0000"
cp "$T/c/claimed/$claim" "$T/c/archive/0000/$id.trial.json"
echo older >>"$T/c/archive/0000/$id.trial.json"
cp "$T/c/archive/0000/$id.trial.json" "$T/older"
touch "$T/go3"
wait_for 60 test -e "$T/c/FINISHED"
check "the older copy under the archive name is kept as it was" \
	cmp -s "$T/older" "$T/c/archive/0000/$id.trial.json"
check "... and the told claim is archived beside it as stale" \
	sh -c "test -e '$T/c/archive/0000/claimed.${claim%.json}.stale.json' &&
	       ! ls '$T/c/claimed' | grep -q ."
