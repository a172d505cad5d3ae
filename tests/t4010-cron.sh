#!/bin/sh
# t4010: deploy/cron/dehbq-cron-worker.sh keeps at most N workers per node
# (flock slots), starts none once the study is FINISHED, and stays quiet.
. "${DEHBQ_SRC:-.}/tests/lib.sh"
command -v flock >/dev/null 2>&1 || { echo "1..1"; echo "ok 1 # SKIP flock (util-linux) not installed"; exit 0; }
plan 9

W="$DEHBQ_SRC/deploy/cron/dehbq-cron-worker.sh"
export DEHBQ_SLOT_DIR="$T/slots" DEHBQ_WORKER="$B/dehbq-worker"
"$B/dehbq" init "$T/s" --space "$DEHBQ_SRC/examples/space_branin.json" \
	--min-budget 1 --max-budget 9 --eta 3 --fevals 12 --seed 5 \
	--lease 10 --poll 0.2 >/dev/null
S=$(cd "$T/s" && pwd -P)

# pids of the workers the wrapper started for this study (they are not our
# children, so lib.sh's cleanup cannot see them)
worker_pids() {
	ps -eo pid=,args= | grep -F "$B/dehbq-worker --study $S " |
		grep -v grep | awk '{print $1}'
}
nworkers() { worker_pids | wc -l | tr -d ' '; }
t4010_cleanup() {
	for p in $(worker_pids); do kill -TERM "$p" 2>/dev/null; done
	cleanup
}
trap t4010_cleanup EXIT

out=
for i in 1 2 3 4 5; do
	out="$out$(sh "$W" -n 2 -i 30 "$T/s" -- "$B/bench_trainer" branin \
		'{config}' '{budget}' --sleep-per-unit 0.05 2>&1)"
done
check "5 runs with -n 2 print nothing" test -z "$out"
wait_for 10 sh -c "test \$(ls '$T/s/workers' 2>/dev/null | wc -l) -ge 2"
sleep 1
check "exactly 2 workers run (got $(nworkers))" test "$(nworkers)" = 2
check "... and 2 registered in workers/" test "$(ls "$T/s/workers" | wc -l)" = 2
sh "$W" -n 2 -i 30 "$T/s" -- "$B/bench_trainer" branin '{config}' '{budget}'
sleep 0.5
check "a 6th run while both slots are taken starts none" test "$(nworkers)" = 2

bg "$B/dehbq-orchestrator" "$T/s" 2>"$T/orch.log"
wait_for 60 test -e "$T/s/FINISHED"
check "the 2 cron-started workers finish the study" test -e "$T/s/FINISHED"
no_workers() { [ "$(nworkers)" = 0 ]; }
wait_for 15 no_workers
check "the workers exit on FINISHED" test "$(nworkers)" = 0

out=$(sh "$W" -n 2 "$T/s" -- "$B/bench_trainer" branin '{config}' '{budget}' 2>&1)
rc=$?
sleep 0.5
check "on a FINISHED study: exit 0, no output, no worker" \
	test "$rc" = 0 -a -z "$out" -a "$(nworkers)" = 0

sh "$W" -n 2 "$T/nope" -- true 2>"$T/err"
rc=$?
check "a missing study: exit 100 with one line" \
	test "$rc" = 100 -a "$(wc -l <"$T/err")" = 1
sh "$W" -n x "$T/s" -- true 2>"$T/err"
rc=$?
check "bad -n: exit 100" test "$rc" = 100
