#!/bin/sh
# t1040: requests from `dehbq` reach the orchestrator: requeue an
# in-flight trial at once (attempt 2), refuse to requeue a told trial,
# quarantine a malformed request, and stop -> drain -> FINISHED.
. "${DEHBQ_SRC:-.}/tests/lib.sh"
plan 6

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
check "... and republished as attempt 2" \
	sh -c "grep -l '\"attempt\":.2' '$T/s/pending/'*$id.json >/dev/null 2>&1 ||
	       grep -ql '\"attempt\":.2' '$T/s/claimed/'$id@* 2>/dev/null ||
	       ls '$T/s/archive/0000/' | grep -q '$id.result'"
req r2 '{"format": "dehbq-request/1", "action": "explode"}'
wait_for 10 test -e "$T/s/quarantine/state-requests.r2.json.reason"
check "a malformed request is quarantined with a reason" \
	sh -c "ls '$T/s/quarantine' | grep -q 'r2.json.reason'"
touch "$T/go"
bg "$B/dehbq-worker" --study "$T/s" --idle-exit 30 -- sh -c "$TRAINER" 2>>"$T/w.log"
wait_for 20 sh -c "ls '$T/s/archive/0000' | grep -q '$id.result'"
req r3 "{\"format\": \"dehbq-request/1\", \"action\": \"requeue\", \"trial\": \"$id\"}"
wait_for 10 grep -q "trial=$id not requeued" "$T/orch.log"
check "requeue of a told trial is refused with a reason" \
	grep -q "trial=$id not requeued (r3.json): it is not in flight" "$T/orch.log"
req r4 '{"format": "dehbq-request/1", "action": "stop"}'
wait_for 30 test -e "$T/s/FINISHED"
check "stop request: the study drains and finishes early" \
	grep -q '"reason":.*"stopped by request"' "$T/s/FINISHED"
check "independent checker accepts the stopped study" \
	python3 "$DEHBQ_SRC/tests/checkstudy.py" "$T/s" --finished
