#!/bin/sh
# t1020: one orchestrator per study.  A second one refuses; after kill -9
# the lease is taken over; a SIGSTOPped orchestrator resumed after a
# takeover stops without writing (fencing).
. "${DEHBQ_SRC:-.}/tests/lib.sh"
plan 8

mkspec "$T/spec.json" 1000 '{"lease": 2, "poll": 0.1}'
"$B/dehbq" init "$T/s" --spec "$T/spec.json" >/dev/null || exit 1
bg "$B/dehbq-orchestrator" "$T/s" 2>"$T/a.log"
a=$!
wait_for 10 test -e "$T/s/state/lease.json"
sleep 0.3
"$B/dehbq-orchestrator" "$T/s" 2>"$T/b.log"
check "a second orchestrator refuses with exit 111" test $? = 111
check "... naming the holder" grep -q "another orchestrator on .* (pid $a" "$T/b.log"

kill -9 $a
wait $a 2>/dev/null
bg "$B/dehbq-orchestrator" "$T/s" 2>"$T/b.log"
b=$!
wait_for 10 grep -q "lease taken: epoch 2" "$T/b.log"
check "after kill -9 the lease is taken over (epoch 2)" \
	grep -q "lease taken: epoch 2" "$T/b.log"
wait_for 10 grep -q "resumed from snapshot" "$T/b.log"

kill -STOP $b
sleep 0.2
start=$(date +%s)
until "$B/dehbq-orchestrator" "$T/s" 2>"$T/c.log" & c=$!; BG_PIDS="$BG_PIDS $c"
	wait_for 3 grep -q "lease taken: epoch 3" "$T/c.log"; do
	wait $c 2>/dev/null
	[ $(($(date +%s) - start)) -gt 30 ] && break
	sleep 0.3
done
check "a stopped holder loses its lease only after it expires (epoch 3)" \
	grep -q "lease taken: epoch 3" "$T/c.log"
waited=$(($(date +%s) - start))
diag "takeover of the stopped holder after ${waited}s (lease 2s)"
check "... and not before the lease time" test "$waited" -ge 2
wait_for 10 grep -q "resumed from snapshot" "$T/c.log"
sleep 0.3
ls "$T/s/state" >"$T/before"
kill -CONT $b
wait $b
rc=$?
check "the resumed old orchestrator exits 111" test $rc = 111
check "... saying it was fenced" grep -q "fenced" "$T/b.log"
sleep 0.5
ls "$T/s/state" >"$T/after"
check "... and wrote no snapshot of its old epoch" \
	sh -c "! comm -13 '$T/before' '$T/after' | grep -q '^snapshot-000002-'"
