#!/bin/sh
# t0130: the CLI after `dehbq requeue --failed`.  Trial 00000000 fails on
# attempt 1, is requeued and passes on attempt 2; the archive then holds
# 00000000.a1.trial.json and 00000000.a1.result.json beside the latest
# files.  trials, export, plot and status know these names (no warning),
# export has a row for each attempt, and requeue of a trial with an ok
# result is refused by the CLI itself (exit 100, no request written).
. "${DEHBQ_SRC:-.}/tests/lib.sh"
plan 22

# Trial 00000000 fails on its first attempt; every trial started after that
# waits for the flag 'healed', so the study cannot finish before the
# requeue is handled.  max_inflight 1: trial 00000000 runs first.
cat >"$T/trainer.sh" <<EOF
#!/bin/sh
if [ "\$DEHBQ_TRIAL_ID" = 00000000 ] && [ "\$DEHBQ_ATTEMPT" = 1 ]; then
	echo 'trainer: failing on purpose' >&2
	touch '$T/failed'
	exit 3
fi
n=0
while [ -e '$T/failed' ] && [ ! -e '$T/healed' ] && [ \$n -lt 1200 ]; do
	sleep 0.05
	n=\$((n + 1))
done
exec $TRAINER
EOF
chmod +x "$T/trainer.sh"
mkspec "$T/spec.json" 4 '{"lease": 60, "poll": 0.1, "max_inflight": 1}'
"$B/dehbq" init "$T/s" --spec "$T/spec.json" >/dev/null || exit 1
A=$T/s/archive/0000
bg "$B/dehbq-orchestrator" "$T/s" 2>"$T/orch.log"
bg "$B/dehbq-worker" --study "$T/s" --idle-exit 30 -- "$T/trainer.sh" 2>"$T/w.log"
wait_for 30 grep -qs '"status":.*"failed"' "$A/00000000.result.json"
check "trial 00000000 fails on attempt 1" \
	grep -qs '"status":.*"failed"' "$A/00000000.result.json"

"$B/dehbq" requeue "$T/s" --failed >"$T/out" 2>"$T/err"
check "requeue --failed exits 0" test $? = 0
wait_for 30 sh -c "test -e '$A/00000000.a1.result.json' &&
	ls '$T/s/pending' '$T/s/claimed' | grep -q 00000000"
check "... the orchestrator reopens the trial as attempt 2" \
	grep -q "trial=00000000 failed earlier; requeued .* as attempt 2" "$T/orch.log"
check "... and keeps attempt 1 as 00000000.a1.{trial,result}.json" \
	test -e "$A/00000000.a1.trial.json" -a -e "$A/00000000.a1.result.json"

# while attempt 2 is in flight: no archived ID.trial.json, only a1 files
"$B/dehbq" trials "$T/s" >"$T/out" 2>"$T/err"
check "trials during the re-run: exit 0, no warning" \
	sh -c "test $? = 0 && test ! -s '$T/err'"
check "... trial 00000000 is listed once, in flight" \
	sh -c "test \$(grep -c '^00000000 ' '$T/out') = 1 &&
	       grep -Eq '^00000000 +(pending|claimed) ' '$T/out'"
"$B/dehbq" export "$T/s" --csv - >"$T/out" 2>"$T/err"
check "export during the re-run has the failed attempt 1, no warning" \
	sh -c "test ! -s '$T/err' &&
	       grep -q '^00000000,.*,failed,1,' '$T/out'"

touch "$T/healed"
wait_for 60 test -e "$T/s/FINISHED"
check "the study finishes" test -e "$T/s/FINISHED"
check "... attempt 2 of trial 00000000 passed" \
	sh -c "grep -q '\"status\":.*\"ok\"' '$A/00000000.result.json' &&
	       grep -q '\"attempt\":.*2' '$A/00000000.result.json'"
nres=$(ls "$A" | grep -c 'result\.json$')
ntr=$(ls "$A" | grep -c '^[0-9]*\.trial\.json$')

"$B/dehbq" trials "$T/s" >"$T/out" 2>"$T/err"
check "trials: exit 0 and no warning" sh -c "test $? = 0 && test ! -s '$T/err'"
[ -s "$T/err" ] && sed 's/^/# /' "$T/err"
check "... one row per trial: 00000000 once, done, attempt 2" \
	sh -c "test \$((\$(wc -l <'$T/out') - 1)) = $ntr &&
	       test \$(grep -c '^00000000 ' '$T/out') = 1 &&
	       grep -Eq '^00000000 +done .* 2 +[0-9.e-]+ +ok ' '$T/out'"

"$B/dehbq" export "$T/s" --csv - >"$T/out.csv" 2>"$T/err"
check "export --csv -: exit 0 and no warning" \
	sh -c "test $? = 0 && test ! -s '$T/err'"
[ -s "$T/err" ] && sed 's/^/# /' "$T/err"
check "... a row for each attempt of 00000000 (failed 1, ok 2)" python3 -c "
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r['id'] == '00000000']
got = sorted((r['attempt'], r['status'], r['loss'] == '') for r in rows)
assert got == [('1', 'failed', True), ('2', 'ok', False)], got
" "$T/out.csv"
check "... one row per archived result ($nres)" \
	test "$(($(wc -l <"$T/out.csv") - 1))" = "$nres"
"$B/dehbq" export "$T/s" --jsonl - >"$T/out.jsonl" 2>"$T/err"
check "export --jsonl -: both attempts, no warning" python3 -c "
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
got = sorted((r['attempt'], r['status']) for r in rows if r['id'] == '00000000')
assert got == [(1, 'failed'), (2, 'ok')], got
assert open(sys.argv[2]).read() == ''
" "$T/out.jsonl" "$T/err"

"$B/dehbq" status "$T/s" >"$T/out" 2>"$T/err"
check "status: no 'unexpected names' warning" \
	sh -c "! grep -q unexpected '$T/out' '$T/err'"
"$B/dehbq" plot "$T/s" -o "$T/p.svg" >/dev/null 2>"$T/err"
check "plot: exit 0 and no warning" sh -c "test $? = 0 && test ! -s '$T/err'"

# the CLI refuses what the orchestrator would refuse
ok_id=$(grep -l '"status":.*"ok"' "$A"/*.result.json | grep -v '\.a[0-9]' |
	grep -v '/00000000\.' | head -1 | sed 's|.*/||; s|\..*||')
"$B/dehbq" requeue "$T/s" "$ok_id" >"$T/out" 2>"$T/err"
check "requeue of an ok trial ($ok_id) exits 100" test $? = 100
check "... with one line naming the trial and the reason" \
	sh -c "test \$(wc -l <'$T/err') = 1 &&
	       grep -q '^dehbq requeue: trial $ok_id: .*valid result' '$T/err' &&
	       test ! -s '$T/out'"
check "... and writes no request" test -z "$(ls "$T/s/state/requests")"
"$B/dehbq" requeue --help >"$T/out"
check "requeue --help says only failed or in-flight trials" \
	grep -qi 'only failed or in-flight' "$T/out"

check_no_leftovers
