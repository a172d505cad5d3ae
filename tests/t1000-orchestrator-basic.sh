#!/bin/sh
# t1000: orchestrator + real workers run a study to completion; exit
# codes; SIGTERM leaves a resumable study.
. "${DEHBQ_SRC:-.}/tests/lib.sh"
plan 20

"$B/dehbq-orchestrator" --help >/dev/null
check "orchestrator --help exits 0" test $? = 0
"$B/dehbq-orchestrator" 2>/dev/null
check "orchestrator without STUDY exits 100" test $? = 100
"$B/dehbq-orchestrator" "$T/nope" 2>"$T/err"
rc=$?
check "orchestrator on a missing study exits 100" test $rc = 100
check "... and names the file" grep -q "nope/study.json" "$T/err"
: >"$T/afile"
"$B/dehbq-orchestrator" --once "$T/afile" 2>/dev/null
rc=$?
"$B/dehbq-worker" --study "$T/afile" -- true 2>/dev/null
check "orchestrator and worker on a file, not a directory, exit 100 (bad input)" \
	test "$rc $?" = "100 100"
write_space "$T/space0.json"
"$B/dehbq" init "$T/afile/s" --space "$T/space0.json" --min-budget 1 --max-budget 9 --fevals 3 2>"$T/err"
check "init below a file exits 100" sh -c "test $? = 100 && grep -q 'Not a directory' '$T/err'"

mkspec "$T/spec.json" 60
"$B/dehbq" init "$T/s" --spec "$T/spec.json" >/dev/null
bg "$B/dehbq-orchestrator" "$T/s" 2>"$T/orch.log"
orch=$!
for i in 1 2 3 4; do
	bg "$B/dehbq-worker" --study "$T/s" --idle-exit 20 -- sh -c "$TRAINER" 2>>"$T/workers.log"
done
wait_for 60 test -e "$T/s/FINISHED"
check "study finishes with 4 workers" test -e "$T/s/FINISHED"
wait $orch
check "orchestrator exits 0 when finished" test $? = 0
check "independent checker accepts the study" \
	python3 "$DEHBQ_SRC/tests/checkstudy.py" "$T/s" --finished

# SIGTERM mid-study, then resume
mkspec "$T/spec2.json" 40
"$B/dehbq" init "$T/s2" --spec "$T/spec2.json" >/dev/null
bg "$B/dehbq-orchestrator" "$T/s2" 2>"$T/orch2.log"
orch=$!
bg "$B/dehbq-worker" --study "$T/s2" --idle-exit 30 -- sh -c "sleep 0.05; $TRAINER" 2>>"$T/workers2.log"
wait_for 20 sh -c "ls '$T/s2/archive/0000' 2>/dev/null | grep -q result"
kill -TERM $orch
wait $orch
check "SIGTERM: orchestrator exits 0 without FINISHED" \
	sh -c "test ! -e '$T/s2/FINISHED'"
"$B/dehbq" status "$T/s2" >"$T/st2" 2>&1
check "... and dehbq status says it stopped (no ETA, how to resume)" \
	sh -c "grep -q 'stopped (stopped by signal) after' '$T/st2' && ! grep -q ETA '$T/st2' && grep -q 'resume the study with dehbq-orchestrator' '$T/st2'"
bg "$B/dehbq-orchestrator" "$T/s2" 2>>"$T/orch2.log"
wait_for 60 test -e "$T/s2/FINISHED"
check "restarted orchestrator resumes and finishes" \
	python3 "$DEHBQ_SRC/tests/checkstudy.py" "$T/s2" --finished
check "it resumed from the snapshot, not from scratch" \
	grep -q "resumed from snapshot" "$T/orch2.log"
check "a clean SIGTERM leaves no duplicate results" \
	grep -q '"duplicates":[[:space:]]*0,' "$T/s2/FINISHED"
check "only the newest 3 snapshots are kept" \
	test "$(ls "$T/s2/state" | grep -c '^snapshot-')" = 3

# a corrupt newest snapshot: warn, fall back to the previous one, lose nothing
mkspec "$T/spec3.json" 40
"$B/dehbq" init "$T/s3" --spec "$T/spec3.json" >/dev/null
bg "$B/dehbq-orchestrator" "$T/s3" 2>"$T/orch3.log"
orch=$!
bg "$B/dehbq-worker" --study "$T/s3" --idle-exit 30 -- sh -c "sleep 0.05; $TRAINER" 2>>"$T/workers3.log"
wait_for 20 sh -c "[ \$(ls '$T/s3/archive/0000' 2>/dev/null | grep -c result) -ge 10 ]"
kill -9 $orch
wait $orch 2>/dev/null
newest=$(ls "$T/s3/state" | grep '^snapshot-' | tail -1)
printf '{"format": "dehbq-snapshot/1", "truncated' >"$T/s3/state/$newest"
bg "$B/dehbq-orchestrator" "$T/s3" 2>>"$T/orch3.log"
wait_for 60 test -e "$T/s3/FINISHED"
check "a corrupt newest snapshot is skipped with a warning" \
	grep -q "skipped 1 unreadable snapshot" "$T/orch3.log"
check "... the previous one is loaded and the study finishes" \
	python3 "$DEHBQ_SRC/tests/checkstudy.py" "$T/s3" --finished
check "... and no result is lost or told twice" \
	grep -q '"done":[[:space:]]*40,' "$T/s3/FINISHED"

# a first batch killed after it made the archive shard of its trials and
# before its first snapshot: an empty shard is no history, the study starts
# (one with an archived file and no snapshot is still refused)
"$B/dehbq" init "$T/s4" --spec "$T/spec3.json" >/dev/null
mkdir "$T/s4/archive/0000"
"$B/dehbq-orchestrator" -q --once "$T/s4" 2>"$T/orch4.log"
check "an empty archive shard without a snapshot: the study starts" \
	sh -c "test $? = 0 && ls '$T/s4/state' | grep -q '^snapshot-'"
rm -r "$T/s4/state"/snapshot-*
: >"$T/s4/archive/0000/00000000.trial.json"
"$B/dehbq-orchestrator" -q --once "$T/s4" 2>"$T/orch4.log"
check "an archived file without a snapshot: refused (exit 100)" \
	sh -c "test $? = 100 && grep -q 'has no snapshot' '$T/orch4.log'"
