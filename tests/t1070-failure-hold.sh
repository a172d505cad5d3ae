#!/bin/sh
# t1070: a trainer that fails every trial does not burn the study's budget.
# After runtime.max_failures_in_a_row failed results in a row the
# orchestrator holds: it issues no new trial, says why in its log and in
# status.json (dehbq status shows it), and keeps running.  A requeue
# request releases the hold; the failed trials run again and the study
# finishes.  An ok result between failures restarts the count, and 0
# turns the hold off.
. "${DEHBQ_SRC:-.}/tests/lib.sh"
plan 12
MAXF=4

# A: a broken trainer (exit 3) with 4 workers, prefetch 2
mkspec "$T/spec.json" 60 "{\"lease\": 60, \"poll\": 0.1, \"prefetch\": 2, \"max_failures_in_a_row\": $MAXF}"
"$B/dehbq" init "$T/a" --spec "$T/spec.json" >/dev/null || exit 1
bg "$B/dehbq-orchestrator" "$T/a" 2>"$T/a.log"
# (a long --idle-exit: a slow orchestrator must not see them go; they are
# stopped below once they have drained what was published)
WA=
for i in 1 2 3 4; do
	bg "$B/dehbq-worker" --study "$T/a" --idle-exit 120 -- sh -c 'echo broken >&2; exit 3' 2>>"$T/aw.log"
	WA="$WA $!"
done
wait_for 60 grep -q "holding the study" "$T/a.log"
check "(broken trainer) the orchestrator holds after $MAXF failures in a row" \
	grep -q "holding the study, no new trials: $MAXF results in a row failed" "$T/a.log"
check "... naming the last failure, its log and the command that resumes" \
	sh -c "grep 'holding the study' '$T/a.log' | grep -q 'exit code 3 (its log: logs/0000/' &&
	       grep 'holding the study' '$T/a.log' | grep -q 'dehbq requeue .* --failed'"
# the workers drain what was published: nothing left in pending/,
# claimed/ or results/ (then stop them: they would fail the requeued trials)
drained() {
	[ -z "$(ls "$T/a/pending" "$T/a/claimed" "$T/a/results" 2>&1 | grep -v -e '^$' -e ':$')" ]
}
wait_for 60 drained
for p in $WA; do kill "$p" 2>/dev/null; done
for p in $WA; do wait "$p" 2>/dev/null; done
issued=$(ls "$T/a/archive/0000" | grep -c 'result.json$')
check "... and issues no new trial: $issued evaluations, at most $MAXF + in flight (4 workers + prefetch 2)" \
	test "$issued" -ge "$MAXF" -a "$issued" -le $((MAXF + 6))
# status.json is rewritten after the batch that held: wait for it
wait_for 60 grep -q '"held":.*results in a row failed' "$T/a/state/status.json"
check "... status.json and dehbq status say why" \
	sh -c "grep -q '\"held\":.*results in a row failed' '$T/a/state/status.json' &&
	       '$B/dehbq' status '$T/a' | grep -q 'held, no new trials: .*; fix the trainer, then dehbq requeue'"
check "... the study is not finished and the orchestrator still runs" \
	sh -c "test ! -e '$T/a/FINISHED' && grep -q '\"pid\"' '$T/a/state/lease.json' &&
	       kill -0 \$(sed -n 's/.*\"pid\":[[:space:]]*\([0-9]*\).*/\1/p' '$T/a/state/lease.json')"
"$B/dehbq" trials "$T/a" --state failed >"$T/failed.txt"
check "dehbq trials --state failed shows each failure's error" \
	sh -c "test \$(grep -c 'failed .*exit code 3' '$T/failed.txt') -ge $MAXF"
"$B/dehbq" requeue "$T/a" --failed >/dev/null
wait_for 60 grep -q "hold released by request" "$T/a.log"
check "a requeue request releases the hold" grep -q "hold released by request" "$T/a.log"
bg "$B/dehbq-worker" --study "$T/a" --idle-exit 30 -- sh -c "$TRAINER" 2>>"$T/aw.log"
wait_for 90 test -e "$T/a/FINISHED"
check "... the failed trials run again and the study finishes" \
	grep -q '"reason":.*"budget exhausted"' "$T/a/FINISHED"
check "... independent checker (--finished)" \
	python3 "$DEHBQ_SRC/tests/checkstudy.py" "$T/a" --finished

# B: a trainer that fails 2 trials in 3 never holds at 4 in a row: every
# ok result restarts the count (one worker taking one trial at a time, so
# results come in id order; ids divisible by 3 succeed)
cat >"$T/flaky.sh" <<EOF
#!/bin/sh
n=\$(echo "\$DEHBQ_TRIAL_ID" | sed 's/^0*//')
[ \$((\${n:-0} % 3)) = 0 ] || exit 5
exec $TRAINER
EOF
mkspec "$T/specb.json" 40 "{\"lease\": 60, \"poll\": 0.1, \"prefetch\": 0, \"max_failures_in_a_row\": $MAXF}"
"$B/dehbq" init "$T/b" --spec "$T/specb.json" >/dev/null || exit 1
bg "$B/dehbq-orchestrator" "$T/b" 2>"$T/b.log"
bg "$B/dehbq-worker" --study "$T/b" --idle-exit 30 --pick 1 -- sh "$T/flaky.sh" 2>"$T/bw.log"
wait_for 90 test -e "$T/b/FINISHED"
check "(flaky trainer, one worker) failures with ok results between them never hold" \
	sh -c "test -e '$T/b/FINISHED' && ! grep -q 'holding the study' '$T/b.log' &&
	       grep -q 'told status=failed' '$T/b.log'"

# C: max_failures_in_a_row 0 turns the hold off (the old behaviour)
mkspec "$T/specc.json" 12 '{"lease": 60, "poll": 0.1, "max_failures_in_a_row": 0}'
"$B/dehbq" init "$T/c" --spec "$T/specc.json" >/dev/null || exit 1
bg "$B/dehbq-orchestrator" "$T/c" 2>"$T/c.log"
bg "$B/dehbq-worker" --study "$T/c" --idle-exit 30 -- sh -c 'exit 3' 2>"$T/cw.log"
wait_for 60 test -e "$T/c/FINISHED"
check "(max_failures_in_a_row 0) every trial fails and the study finishes, no hold" \
	sh -c "test -e '$T/c/FINISHED' && ! grep -q 'holding' '$T/c.log'"
check_no_leftovers
