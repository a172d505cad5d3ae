#!/bin/sh
# t0100: dehbq status, workers, stop and requeue on a real study with
# two workers; argument errors exit 100 with a usage line.
. "${DEHBQ_SRC:-.}/tests/lib.sh"
plan 32

cat >"$T/trainer.sh" <<'TR'
#!/bin/sh
sleep 0.3
awk -v x="$DEHBQ_P_X" -v l="$DEHBQ_P_LAYERS" -v b="$DEHBQ_BUDGET" 'BEGIN{
 loss = (x-0.3)^2 + l/100 + 1/b
 printf "{\"loss\": %.10g, \"cost\": %s, \"info\": {\"acc\": %.4f, \"nested\": {\"a\": 1}}}\n", loss, b, 1-loss }'
TR
chmod +x "$T/trainer.sh"

"$B/dehbq" status --help >"$T/out"
check "status --help exits 0 and prints usage" \
	sh -c "test $? = 0 && grep -q 'usage: dehbq status' '$T/out'"
"$B/dehbq" status 2>"$T/err"
check "status without STUDY exits 100 with usage" \
	sh -c "test $? = 100 && grep -q usage: '$T/err'"
# every argument error is one line on stderr and exit 100
bad=0
while IFS='|' read -r prog args; do
	# shellcheck disable=SC2086
	"$B/$prog" $args >/dev/null 2>"$T/err1"
	rc=$?
	n=$(wc -l <"$T/err1")
	if [ "$rc" != 100 ] || [ "$n" != 1 ]; then
		bad=$((bad + 1))
		diag "not one line/100: $prog $args -> rc $rc, $n lines"
	fi
done <<'BAD'
dehbq|bogus
dehbq|init x --fevals 10x --space s.json --min-budget 1 --max-budget 9
dehbq|init a b --space x
dehbq|show S 00000001 extra
dehbq|trials S --state bogus
dehbq|export S
dehbq|plot S
dehbq|stop
dehbq|requeue S
dehbq|workers
dehbq|validate
dehbq-orchestrator|--bogus
dehbq-orchestrator|
dehbq-worker|--study x --idle-exit 10x -- true
dehbq-worker|--idle-exit 1
BAD
check "argument errors: one line each, exit 100 ($bad not)" test "$bad" = 0
"$B/dehbq" status "$T" 2>"$T/err"
rc=$?
check "status on a non-study exits 100" test $rc = 100
check "... saying there is no study.json" \
	grep -q "dehbq status: '$T': not a study directory (no study.json)" "$T/err"
"$B/dehbq" status "$T/s" --bogus 2>/dev/null
check "status with an unknown option exits 100" test $? = 100

mkspec "$T/spec.json" 200
"$B/dehbq" init "$T/s" --spec "$T/spec.json" >/dev/null
"$B/dehbq" status "$T/s" >"$T/out" 2>"$T/err"
check "status before the orchestrator ran exits 0" test $? = 0
check "... says the orchestrator has not run" grep -q "has not run" "$T/out"
check "... and shows directory counts" grep -q "^directory: .*pending 0" "$T/out"

bg "$B/dehbq-orchestrator" "$T/s" 2>"$T/orch.log"
orch=$!
for i in 1 2; do
	bg "$B/dehbq-worker" --study "$T/s" --idle-exit 30 -- "$T/trainer.sh" 2>>"$T/workers.log"
done
wait_for 30 sh -c "ls '$T/s/archive/0000' 2>/dev/null | grep -q result"
wait_for 10 sh -c "test \$(ls '$T/s/workers' | wc -l) = 2"
"$B/dehbq" status "$T/s" >"$T/out" 2>"$T/err"
check "status of a running study exits 0" test $? = 0
check "... shows the fevals progress bar" grep -q "issued *\[#*\.*\]" "$T/out"
check "... shows an active bracket by rung" grep -q "bracket [0-9]*: rung0" "$T/out"
check "... shows both live workers" test "$(grep -c '^  .*heartbeat .* ago' "$T/out")" = 2
check "... shows the max-fidelity incumbent first" \
	sh -c "grep -n 'fidelity:' '$T/out' | head -1 | grep -q 'at max fidelity'"
check "... and no warning about the lease" sh -c "! grep -q 'lease stale' '$T/out'"
check "... and says it runs, with the heartbeat's age" \
	grep -q "^orchestrator .*running (heartbeat [0-9.]*s ago)" "$T/out"
"$B/dehbq" workers "$T/s" >"$T/out"
check "workers lists two live workers" \
	sh -c "test $? = 0 && test \$(grep -c ' live\$' '$T/out') = 2"

"$B/dehbq" stop "$T/s" >"$T/out"
check "stop exits 0 and says the orchestrator will act" \
	sh -c "test $? = 0 && grep -q 'next batch' '$T/out'"
wait_for 60 test -e "$T/s/FINISHED"
check "the orchestrator honours the stop request" test -e "$T/s/FINISHED"
wait $orch
timeout 20 "$B/dehbq" status "$T/s" --watch 0.2 >"$T/out"
check "status --watch returns once FINISHED exists" test $? = 0
check "... and warns that the study is finished" grep -q "FINISHED is present" "$T/out"

# trial 00000001 succeeded (the trainer never fails): only the orchestrator
# could refuse it before; the CLI now says so itself and writes nothing
"$B/dehbq" requeue "$T/s" 00000001 >"$T/out" 2>"$T/err"
check "requeue of a trial with a valid result exits 100, one line, no request" \
	sh -c "test $? = 100 && grep -q 'valid result' '$T/err' && test \$(wc -l <'$T/err') = 1 && ! ls '$T/s'/state/requests/requeue-0* 2>/dev/null"
"$B/dehbq" requeue "$T/s" --failed >"$T/out"
check "requeue --failed writes a requeue-failed request" python3 -c "
import json, glob, sys
f = glob.glob(sys.argv[1] + '/state/requests/requeue-failed-*.json')
d = json.load(open(f[0]))
assert d == {'format': 'dehbq-request/1', 'action': 'requeue-failed'}, d
" "$T/s"
"$B/dehbq" show "$T/s" 1 >"$T/show1" 2>&1
"$B/dehbq" show "$T/s" 00000001 >"$T/show8" 2>&1
check "show takes an unpadded id as pandas prints it (1 = 00000001)" \
	sh -c "test -s '$T/show1' && cmp -s '$T/show1' '$T/show8'"
"$B/dehbq" requeue "$T/s" 1x 2>"$T/err"
check "requeue of a malformed id exits 100" test $? = 100
"$B/dehbq" requeue "$T/s" 99999999 2>"$T/err"
check "requeue of an unknown id exits 100" \
	sh -c "test $? = 100 && grep -q 'no such trial' '$T/err'"

# --version, for all three programs
v=$(for p in dehbq dehbq-worker dehbq-orchestrator; do "$B/$p" --version; done)
check "--version prints each program's name and the release" \
	sh -c "test \"\$(echo '$v' | grep -c '^dehbq[a-z-]* [0-9][0-9.]*\$')\" = 3"

# a finished study whose budget never reached the top fidelity says so
mkspec "$T/small.json" 4
"$B/dehbq" init "$T/f" --spec "$T/small.json" >/dev/null
# (the worker exits on FINISHED; a long --idle-exit, for a slow orchestrator)
bg "$B/dehbq-worker" --study "$T/f" --idle-exit 60 -- "$T/trainer.sh" 2>>"$T/workers.log"
timeout 60 "$B/dehbq-orchestrator" -q "$T/f" 2>>"$T/orch.log"
"$B/dehbq" status "$T/f" >"$T/out"
check "finished below the top fidelity: 'none', with the reason, not 'none yet'" \
	sh -c "grep -q 'at max fidelity: *none: no trial reached fidelity 9' '$T/out' && ! grep -q 'none yet' '$T/out'"

# kill -9: a dead orchestrator on this host shows at once, not after a lease
mkspec "$T/dead.json" 200 '{"lease": 60, "poll": 0.1}'
"$B/dehbq" init "$T/d" --spec "$T/dead.json" >/dev/null
bg "$B/dehbq-orchestrator" "$T/d" 2>>"$T/orch.log"
o=$!
wait_for 10 test -e "$T/d/state/status.json"
kill -9 $o
wait $o 2>/dev/null
"$B/dehbq" status "$T/d" >"$T/out"
check "kill -9: status says DEAD at once, no ETA, and how to resume" \
	sh -c "grep -q '^orchestrator .*DEAD (pid gone from this host)' '$T/out' && ! grep -q ETA '$T/out' && grep -q 'resume the study with dehbq-orchestrator' '$T/out'"

# a held study: HELD in the top line, no ETA
mkspec "$T/held.json" 200 '{"lease": 60, "poll": 0.1, "max_failures_in_a_row": 2}'
"$B/dehbq" init "$T/h" --spec "$T/held.json" >/dev/null
bg "$B/dehbq-orchestrator" "$T/h" 2>>"$T/orch.log"
bg "$B/dehbq-worker" --study "$T/h" --idle-exit 60 --max-failures-in-a-row 0 -- false 2>>"$T/workers.log"
wait_for 60 sh -c "grep -q '\"held\"' '$T/h/state/status.json' 2>/dev/null"
"$B/dehbq" status "$T/h" >"$T/out"
check "held: HELD in the top line and no ETA" \
	sh -c "grep -q '^orchestrator .*HELD (heartbeat' '$T/out' && ! grep -q ETA '$T/out'"

# init: the fidelity ladder, a warning for a budget too small for it, and
# no study in a directory that holds something else
"$B/dehbq" init "$T/lad" --space "$T/space.json" --min-budget 1 --max-budget 27 --fevals 20 >"$T/out" 2>"$T/err"
check "init prints the ladder and warns that --fevals 20 never reaches fidelity 27" \
	sh -c "grep -q 'fidelity ladder (eta 3): 1, 3, 9, 27' '$T/out' && grep -q 'one round of 4 brackets: 65 evaluations' '$T/out' && grep -q 'warning: --fevals 20 .* no trial will reach fidelity 27' '$T/err'"
mkdir "$T/notes"
echo keep >"$T/notes/paper.tex"
"$B/dehbq" init "$T/notes" --space "$T/space.json" --min-budget 1 --max-budget 27 --fevals 200 >/dev/null 2>"$T/err"
check "init into a non-empty directory that is no study exits 100 and changes nothing" \
	sh -c "test $? = 100 && grep -q \"not empty and holds no study (it has 'paper.tex')\" '$T/err' && test \"\$(ls '$T/notes')\" = paper.tex"

