#!/bin/sh
# t0140: dehbq extend.  A finished study gets more evaluations and runs
# again to the new limit; a study stopped by `dehbq stop` resumes; a
# bracket limit grows for DEHB; what cannot be extended is refused by the
# CLI (exit 100, no request) or, written by hand, quarantined by the
# orchestrator with the reason; a worker started after extend and before
# the orchestrator (a SLURM array) waits for the new trials.
. "${DEHBQ_SRC:-.}/tests/lib.sh"
plan 20

TR="$T/trainer.sh"
printf '#!/bin/sh\n%s\n' "$TRAINER" >"$TR"
chmod +x "$TR"
# run_study DIR: orchestrator and one worker until the orchestrator logs
# that the study finished (once more than before)
run_study() {
	touch "$1.orch.log"
	n0=$(grep -c 'study finished' "$1.orch.log")
	bg "$B/dehbq-orchestrator" "$1" 2>>"$1.orch.log"
	rs_orch=$!
	bg "$B/dehbq-worker" --study "$1" --idle-exit 60 -- "$TR" 2>>"$1.w.log"
	wait_for 240 sh -c "test \$(grep -c 'study finished' '$1.orch.log') -gt $n0"
	# it exits once FINISHED is written: the next orchestrator must not
	# find this one still holding the lease
	wait "$rs_orch"
}
nresults() { ls "$1"/archive/0000/*.result.json 2>/dev/null | grep -vc '\.a[0-9]*\.result'; }

mkspec "$T/spec.json" 12
"$B/dehbq" init "$T/s" --spec "$T/spec.json" >/dev/null || exit 1
run_study "$T/s"
check "a 12-evaluation study finishes" test "$(nresults "$T/s")" = 12

"$B/dehbq" extend "$T/s" --brackets 2 2>"$T/err"
check "extend --brackets of a study without a bracket limit: exit 100" \
	sh -c "test $? = 100 && grep -q 'no brackets limit to extend' '$T/err'"
"$B/dehbq" extend "$T/s" --fevals -3 2>"$T/err"
check "extend --fevals -3: exit 100 with the usage" \
	sh -c "test $? = 100 && grep -q 'usage: dehbq extend' '$T/err'"
"$B/dehbq" extend "$T/s" 2>"$T/err"
check "extend with nothing to add: exit 100" \
	sh -c "test $? = 100 && grep -q 'nothing to add' '$T/err'"
check "... none of them wrote a request" test -z "$(ls "$T/s/state/requests")"

"$B/dehbq" extend "$T/s" --fevals 6 >"$T/out"
check "extend --fevals 6 exits 0, says 12 -> 18 and how to continue" \
	sh -c "test $? = 0 && grep -q 'fevals 12 -> 18' '$T/out' &&
	       grep -q 'dehbq-orchestrator' '$T/out'"
run_study "$T/s"
check "the study runs again, to 18 evaluations" test "$(nresults "$T/s")" = 18
check "... the orchestrator logged the new limit" \
	grep -q 'budget extended by request.*fevals 18, .*was 12' "$T/s.orch.log"
check "... trial ids went on from 12 (00000012..00000017)" \
	test -e "$T/s/archive/0000/00000017.result.json"
"$B/dehbq" status "$T/s" >"$T/out"
check "... status shows 18/18 and budget exhausted" \
	sh -c "grep -q 'done .* 18/18' '$T/out' && grep -q 'finished: budget exhausted' '$T/out'"
check "... the request is gone, nothing quarantined" \
	test -z "$(ls -A "$T/s/state/requests")$(ls -A "$T/s/quarantine")"

# a request the optimiser refuses, written by hand, is quarantined
printf '{"format": "dehbq-request/1", "action": "extend", "add": {"total_cost": 5}}\n' \
	>"$T/s/state/requests/extend-by-hand.json"
printf '{"format": "dehbq-request/1", "action": "extend", "add": {"fevals": 1.5}}\n' \
	>"$T/s/state/requests/extend-frac.json"
"$B/dehbq-orchestrator" --once "$T/s" 2>>"$T/s.orch.log"
check "an extend of a limit the study lacks is quarantined with the reason" \
	grep -qs 'total_cost: the study has no such limit' \
	"$T/s/quarantine/state-requests.extend-by-hand.json.reason"
check "... and one of a fractional fevals" \
	grep -qs "'fevals': expected an integer" \
	"$T/s/quarantine/state-requests.extend-frac.json.reason"
check "... the study is still finished at 18" \
	sh -c "test -e '$T/s/FINISHED' && test $(nresults "$T/s") = 18"

# dehbq stop, then extend: the stop is withdrawn
cat >"$T/slow.sh" <<EOF
#!/bin/sh
sleep 0.2
exec "$TR"
EOF
chmod +x "$T/slow.sh"
mkspec "$T/spec2.json" 200
"$B/dehbq" init "$T/p" --spec "$T/spec2.json" >/dev/null || exit 1
bg "$B/dehbq-orchestrator" "$T/p" 2>>"$T/p.orch.log"
p_orch=$!
bg "$B/dehbq-worker" --study "$T/p" --idle-exit 60 -- "$T/slow.sh" 2>>"$T/p.w.log"
wait_for 120 test -e "$T/p/archive/0000/00000002.result.json"
"$B/dehbq" stop "$T/p" >/dev/null
wait_for 120 grep -qs 'study finished' "$T/p.orch.log"
wait "$p_orch" # gone, lease and all, before the next one starts
check "a stopped study is finished, stopped by request" \
	grep -qs 'stopped by request' "$T/p/FINISHED"
"$B/dehbq" extend "$T/p" --fevals 1 >/dev/null
bg "$B/dehbq-orchestrator" "$T/p" 2>>"$T/p.orch.log"
wait_for 120 grep -q 'budget extended' "$T/p.orch.log"
wait_for 120 test ! -e "$T/p/FINISHED"
check "... after extend it runs again (FINISHED removed, issuing)" \
	sh -c "test ! -e '$T/p/FINISHED' || ! grep -q 'stopped by request' '$T/p/FINISHED'"

# DEHB with a bracket limit: the engine opens more brackets
cat >"$T/spec3.json" <<SP
{"format": "dehbq-study/1", "space": "space.json",
 "fidelity": {"min": 1, "max": 9, "eta": 3}, "seed": 7,
 "termination": {"brackets": 1}, "runtime": {"lease": 5, "poll": 0.1}}
SP
"$B/dehbq" init "$T/b" --spec "$T/spec3.json" >/dev/null || exit 1
run_study "$T/b"
n1=$(nresults "$T/b")
check "a one-bracket DEHB study finishes ($n1 evaluations)" test "$n1" -gt 0
"$B/dehbq" extend "$T/b" --brackets 2 >/dev/null
run_study "$T/b"
n3=$(nresults "$T/b")
"$B/dehbq" status "$T/b" >"$T/out"
check "... extended by 2 brackets it runs 3 ($n1 -> $n3 evaluations)" \
	sh -c "test $n3 -gt $n1 && grep -q 'brackets .* 3/3' '$T/out'"

# A worker started right after `dehbq extend`, before any orchestrator has
# taken the request (a SLURM array submitted with it), waits instead of
# exiting on FINISHED; the orchestrator runs in --once batches, started
# only once the worker has said it waits (no timing).
W=$T/w
mkspec "$T/spec-w.json" 4 '{"lease": 600, "poll": 1}'
"$B/dehbq" init "$W" --spec "$T/spec-w.json" >/dev/null || exit 1
lockstep_run "$W" 0 "$TRAINER"
"$B/dehbq" extend "$W" --fevals 3 >/dev/null
"$B/dehbq-worker" --study "$W" --idle-exit 600 -- "$TR" 2>"$W.wlog" &
wpid=$!
BG_PIDS="$BG_PIDS $wpid"
wait_for 120 grep -q 'state/requests/extend-.* is queued: waiting' "$W.wlog"
check "a worker started after extend, before the orchestrator, waits (FINISHED and a queued extend)" \
	sh -c "kill -0 $wpid && grep -q 'is queued: waiting' '$W.wlog'"
wait_for 120 sh -c "'$B/dehbq-orchestrator' -q --once '$W' 2>>'$W.orch.log'; test -e '$W/FINISHED'"
wait "$wpid"
wrc=$?
diag "worker: $(grep 'exiting' "$W.wlog" | tail -1)"
check "... and runs the 3 new trials, then exits 0 (7 results)" \
	sh -c "test $wrc = 0 && test $(nresults "$W") = 7 && grep -q 'exiting: study finished.*(3 trials run)' '$W.wlog'"
