#!/bin/sh
# t4000: workers as a real SLURM job array (deploy/slurm/dehbq-worker.sbatch)
#
# Brings up munged + slurmctld + slurmd on loopback under the test's temp
# dir (tests/infra/slurm-up.sh, ports picked per run), runs a study with
# the orchestrator started here and 4 array tasks as workers, checks that
# every trial ran and that results carry the SLURM ids, that a worker
# SIGTERMed through SLURM releases its claim and exits 0, and that teardown
# leaves no daemon behind.  Needs root and the Debian packages slurmctld
# slurmd slurm-client munge; otherwise it reports a TAP skip.
. "${DEHBQ_SRC:-.}/tests/lib.sh"

skip_all() {
	echo "1..1"
	echo "ok 1 # SKIP $*"
	exit 0
}
[ "$(id -u)" = 0 ] || skip_all "needs root to run slurmd"
for c in slurmctld slurmd sbatch squeue scontrol munged mungekey bash; do
	command -v $c >/dev/null 2>&1 ||
		skip_all "$c not installed (apt-get install slurmctld slurmd slurm-client munge)"
done

plan 16
# munged wants every directory above its socket to be searchable by all
chmod 755 "$T"
export SLURM_BASE="$T/slurm"
SLURM_UP=0
t4000_cleanup() {
	if [ "$SLURM_UP" = 1 ]; then
		bash "$DEHBQ_SRC/tests/infra/slurm-down.sh" >/dev/null 2>&1
	fi
	cleanup
}
trap t4000_cleanup EXIT

# Two free consecutive ports, varied per run so that parallel runs and
# leftovers of a crashed run do not collide.
port_busy() {
	if command -v ss >/dev/null 2>&1; then
		ss -Hltn 2>/dev/null | awk '{print $4}' | grep -q -E ":($1|$(($1 + 1)))\$"
	else
		return 1
	fi
}
i=0
while :; do
	SLURM_PORT=$((17000 + (($$ + i * 7919) % 4000) * 2))
	port_busy $SLURM_PORT || break
	i=$((i + 1))
done
export SLURM_PORT

SLURM_UP=1
if bash "$DEHBQ_SRC/tests/infra/slurm-up.sh" 2>"$T/slurm-up.log"; then
	ok "slurm cluster up on port $SLURM_PORT"
else
	not_ok "slurm cluster up"
	sed 's/^/# /' "$T/slurm-up.log"
	exit 1
fi
. "$SLURM_BASE/env"

# The study: Branin on budgets 1..9, 30 trials, each sleeping 0.02 s a unit.
"$B/dehbq" init "$T/s" --space "$DEHBQ_SRC/examples/space_branin.json" \
	--min-budget 1 --max-budget 9 --eta 3 --fevals 30 --seed 3 \
	--lease 10 --poll 0.2 >/dev/null
bg "$B/dehbq-orchestrator" "$T/s" 2>"$T/orch.log"

# The first trial of each array task waits until two trials are claimed
# (at most 60 s): then at least two tasks run trials, however fast the
# first one to start would have drained the study alone.
cat >"$T/gate.sh" <<EOF
#!/bin/sh
m="$T/gate.\${SLURM_ARRAY_TASK_ID:-x}"
if [ ! -e "\$m" ]; then
	: >"\$m"
	i=0
	while [ "\$(ls "$T/s/claimed" | grep -c '\\.json\$')" -lt 2 ] && [ \$i -lt 600 ]; do
		sleep 0.1
		i=\$((i + 1))
	done
fi
exec "$B/bench_trainer" "\$@"
EOF
chmod +x "$T/gate.sh"
export DEHBQ_WORKER="$B/dehbq-worker" DEHBQ_IDLE_EXIT=60
jid=$(sbatch --parsable --array=1-4 --time=5 -o "$T/job-%A_%a.out" \
	"$DEHBQ_SRC/deploy/slurm/dehbq-worker.sbatch" "$T/s" --max-poll 0.5 \
	-- "$T/gate.sh" branin '{config}' '{budget}' \
	--sleep-per-unit 0.02 2>"$T/sbatch.err")
check "sbatch accepts the array job ($jid)" test -n "$jid"

wait_for 120 test -e "$T/s/FINISHED"
check "the study finishes with the array's workers" test -e "$T/s/FINISHED"
array_done() { [ -z "$(squeue -h -j "$jid" 2>/dev/null)" ]; }
wait_for 60 array_done
check "every array task exits once the study is FINISHED" array_done
n=$(scontrol -o show job "$jid" 2>/dev/null | grep -c 'JobState=COMPLETED.*ExitCode=0:0')
check "all 4 tasks COMPLETED with exit 0 (got $n)" test "$n" = 4
check "independent checker accepts the study" \
	python3 "$DEHBQ_SRC/tests/checkstudy.py" "$T/s" --finished

R="$T/s/archive/0000"
nres=$(ls "$R" | grep -c '\.result\.json$')
nok=$(grep -l '"status":[[:space:]]*"ok"' "$R"/*.result.json | wc -l)
check "every one of the 30 trials has an ok result ($nres, $nok ok)" \
	test "$nres" = 30 -a "$nok" = 30
nslurm=$(grep -l "\"slurm_array_job_id\":[[:space:]]*\"*$jid\"*," "$R"/*.result.json | wc -l)
check "every result names the array job ($nslurm of 30)" test "$nslurm" = 30
grep -h '"slurm_array_task_id"' "$R"/*.result.json |
	sed 's/[^0-9]//g' | sort -u >"$T/tasks"
check "results carry slurm_job_id" \
	test "$(grep -l '"slurm_job_id":[[:space:]]*"*[0-9]' "$R"/*.result.json | wc -l)" = 30
check "at least 2 array tasks ran trials (tasks: $(tr '\n' ' ' <"$T/tasks"))" \
	test "$(wc -l <"$T/tasks")" -ge 2 -a -z "$(grep -v -x '[1-4]' "$T/tasks")"

# SIGTERM through SLURM: scancel --batch --signal=TERM reaches the worker
# because the sbatch script execs it; the worker is a --slots 2 worker
# (issue 37), and both slots release their claims.
"$B/dehbq" init "$T/s2" --space "$DEHBQ_SRC/examples/space_branin.json" \
	--min-budget 1 --max-budget 9 --eta 3 --fevals 3 --seed 3 \
	--lease 10 --poll 0.2 >/dev/null
bg "$B/dehbq-orchestrator" "$T/s2" 2>"$T/orch2.log"
jid2=$(sbatch --parsable --array=1 --time=5 -o "$T/job2-%A_%a.out" \
	"$DEHBQ_SRC/deploy/slurm/dehbq-worker.sbatch" "$T/s2" --slots 2 \
	--max-poll 0.5 -- "$B/bench_trainer" branin '{config}' '{budget}' \
	--sleep-per-unit 10 2>>"$T/sbatch.err")
claimed() { [ "$(ls "$T/s2/claimed" 2>/dev/null | wc -l)" = 2 ]; }
wait_for 60 claimed
check "a --slots 2 worker job claims two (long) trials at once" claimed
check "its two slots are two workers in workers/, slots 0 and 1" \
	sh -c "cat '$T/s2'/workers/*.json | grep '\"slot\":' | tr -dc '01\n' | sort | tr '\n' ' ' | grep -qx '0 1 '"

scancel --batch --signal=TERM "$jid2"
done2() { [ -z "$(squeue -h -j "$jid2" 2>/dev/null)" ]; }
wait_for 60 done2
check "SIGTERM: the job ends, COMPLETED with exit 0" \
	sh -c "scontrol -o show job $jid2 | grep -q 'JobState=COMPLETED.*ExitCode=0:0'"
check "SIGTERM: both slots released their claims to pending/" \
	sh -c "test -z \"\$(ls '$T/s2/claimed')\" && test -n \"\$(ls '$T/s2/pending')\""

SLURM_UP=0
bash "$DEHBQ_SRC/tests/infra/slurm-down.sh" >"$T/slurm-down.log" 2>&1
check "slurm-down stops every daemon" test $? = 0
left=$(ps -eo pid=,args= | grep -F "$SLURM_BASE" | grep -v -e grep -e ' ps ' || :)
check "no slurm or munge process is left${left:+: $left}" test -z "$left"
if [ "$TAP_FAIL" != 0 ]; then
	for f in "$T"/job-*.out "$T"/job2-*.out "$T/sbatch.err"; do
		[ -e "$f" ] && sed "s|^|# ${f##*/}: |" "$f"
	done
	tail -5 "$T/orch.log" | sed 's/^/# orch: /'
fi
