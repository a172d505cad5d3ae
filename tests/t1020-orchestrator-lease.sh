#!/bin/sh
# t1020: one orchestrator per study.  A second one refuses; after kill -9
# the lease is taken over; a SIGSTOPped orchestrator resumed after a
# takeover stops without writing (fencing).
. "${DEHBQ_SRC:-.}/tests/lib.sh"
plan 8

# A long lease: no check waits for it to run out.  Its expiry is played by
# backdating state/lease.json while the holder is stopped.
mkspec "$T/spec.json" 1000 '{"lease": 30, "poll": 0.1}'
"$B/dehbq" init "$T/s" --spec "$T/spec.json" >/dev/null || exit 1
bg "$B/dehbq-orchestrator" "$T/s" 2>"$T/a.log"
a=$!
wait_for 30 grep -q "lease taken: epoch 1" "$T/a.log"
"$B/dehbq-orchestrator" "$T/s" 2>"$T/b.log"
check "a second orchestrator refuses with exit 111" test $? = 111
check "... naming the holder" grep -q "another orchestrator on .* (pid $a" "$T/b.log"

kill -9 $a
wait $a 2>/dev/null
bg "$B/dehbq-orchestrator" "$T/s" 2>"$T/b.log"
b=$!
wait_for 30 grep -q "lease taken: epoch 2" "$T/b.log"
check "after kill -9 the lease is taken over (epoch 2)" \
	grep -q "lease taken: epoch 2" "$T/b.log"
wait_for 30 grep -q "resumed from snapshot" "$T/b.log"
# b writes one snapshot of epoch 2 when it resumes, then (no workers) only
# its status: stop it after that snapshot, not in the middle of writing it
snap2() { ls "$T/s/state" | grep -q '^snapshot-000002-'; }
wait_for 30 snap2

kill -STOP $b
"$B/dehbq-orchestrator" "$T/s" 2>"$T/c.log"
rc=$?
check "a stopped holder keeps its lease while it is fresh (exit $rc)" \
	sh -c "test $rc = 111 && grep -q 'another orchestrator on .* (pid $b' '$T/c.log'"
# the lease runs out: its heartbeat is 60 s old (the lease is 30 s)
touch -d "@$(($(date +%s) - 60))" "$T/s/state/lease.json"
bg "$B/dehbq-orchestrator" "$T/s" 2>"$T/c.log"
wait_for 30 grep -q "lease taken: epoch 3" "$T/c.log"
check "a stopped holder loses its lease once it has expired (epoch 3)" \
	grep -q "lease taken: epoch 3" "$T/c.log"
wait_for 30 grep -q "resumed from snapshot" "$T/c.log"
ls "$T/s/state" >"$T/before"
kill -CONT $b
wait $b
rc=$?
check "the resumed old orchestrator exits 111" test $rc = 111
check "... saying it was fenced" grep -q "fenced" "$T/b.log"
ls "$T/s/state" >"$T/after"
check "... and wrote no snapshot of its old epoch" \
	sh -c "! comm -13 '$T/before' '$T/after' | grep -q '^snapshot-000002-'"
