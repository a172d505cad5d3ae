#!/bin/sh
# t2000-worker-basic.sh - dehbq-worker end to end: placeholders and the
# environment reach a shell and a python3 trainer, the result file has the
# right fields, and the worker exits on FINISHED, --max-trials and
# --idle-exit.  The test plays the orchestrator by writing trial files
# straight into pending/.

. "${DEHBQ_SRC:-$(cd "$(dirname "$0")/.." && pwd)}/tests/lib.sh"
BGPID=

# mkstudy DIR: a study on a 3-parameter space; sets SID
mkstudy() {
	cat >"$T/space.json" <<'EOF'
{"format": "dehbq-space/1", "parameters": [
 {"name": "lr", "type": "float", "low": 0.001, "high": 1, "log": true},
 {"name": "n-layers", "type": "int", "low": 1, "high": 8},
 {"name": "opt", "type": "categorical", "choices": ["adam", "sgd"]}]}
EOF
	"$DEHBQ_BIN/dehbq" init "$1" --space "$T/space.json" --min-budget 1 \
		--max-budget 9 --fevals 10 --lease 4 >/dev/null || exit 1
	SID=$(sed -n 's/^[[:space:]]*"study":[[:space:]]*"\([^"]*\)".*/\1/p' \
		"$1/study.json")
}

# trial DIR ID RUNG FIDELITY ATTEMPT PARENT CONFIG: publish a trial
trial() {
	pp=$((99 - $3))
	[ "$6" = null ] && par=null || par="\"$6\""
	printf '{"format": "dehbq-trial/1", "id": "%s", "study": "%s",
 "epoch": 1, "bracket": 0, "rung": %d, "fidelity": %s, "kind": "%s",
 "parent": %s, "attempt": %d, "created": "2026-11-22T04:30:00.123Z",
 "seed": 77, "config": %s, "vector": [0.5, 0.25, 1]}\n' \
		"$2" "$SID" "$3" "$4" \
		"$([ "$6" = null ] && echo trial || echo promotion)" \
		"$par" "$5" "$7" >"$1/pending/.$2.tmp"
	mv "$1/pending/.$2.tmp" "$(printf '%s/pending/%02d-%s.json' "$1" \
		"$pp" "$2")"
}

CFG='{"lr": 0.01, "n-layers": 3, "opt": "sgd"}'
S=$T/s
mkstudy "$S"

echo "1..34"

# 1. A shell trainer sees every placeholder and variable.
trial "$S" 00000042 1 3 2 00000007 "$CFG"
cat >"$T/trainer.sh" <<'EOF'
#!/bin/sh
out=$DEHBQ_WORKDIR/seen
for a in "$@"; do printf 'arg=%s\n' "$a"; done >"$out"
env | grep '^DEHBQ_' | sort >>"$out"
pwd >>"$out"
echo "some noise"
echo '{"loss": 0.25, "cost": 7, "info": {"epochs": 3}}'
EOF
chmod +x "$T/trainer.sh"
timeout 30 "$DEHBQ_BIN/dehbq-worker" --study "$S" --max-trials 1 -- \
	"$T/trainer.sh" {config} {budget} {id} {attempt} {workdir} {result} \
	{seed} {parent_workdir} {nope} "x={id}.{attempt}" 2>"$T/w1.log"
check "worker exits 0 after --max-trials 1" [ $? = 0 ]
W=$(cd "$S" && pwd -P)/work/0000/00000042
SEEN=$W/seen
expect() { grep -qxF "$1" "$SEEN" || { echo "# missing: $1"; return 1; }; }
check "{config} {budget} {id} {attempt}" eval 'expect "arg=$W/config.json" &&
	expect "arg=3" && expect "arg=00000042" && expect "arg=2"'
check "{workdir} {result} {seed} {parent_workdir}" eval 'expect "arg=$W" &&
	expect "arg=$W/result.json" && expect "arg=77" &&
	expect "arg=$(dirname "$W")/00000007"'
check "unknown placeholder kept, substitution inside an element" \
	eval 'expect "arg={nope}" && expect "arg=x=00000042.2"'
check "DEHBQ_* variables" eval 'expect "DEHBQ_TRIAL_ID=00000042" &&
	expect "DEHBQ_BUDGET=3" && expect "DEHBQ_ATTEMPT=2" &&
	expect "DEHBQ_SEED=77" && expect "DEHBQ_CONFIG=$W/config.json" &&
	expect "DEHBQ_RESULT=$W/result.json" && expect "DEHBQ_WORKDIR=$W" &&
	expect "DEHBQ_PARENT_WORKDIR=$(dirname "$W")/00000007"'
check "DEHBQ_P_ variables, names sanitised" eval 'expect "DEHBQ_P_LR=0.01" &&
	expect "DEHBQ_P_N_LAYERS=3" && expect "DEHBQ_P_OPT=sgd"'
check "cwd is the workdir" expect "$W"
check "config.json holds the config" \
	grep -q '"n-layers":[[:space:]]*3' "$W/config.json"
R=$(ls "$S"/results/00000042.a2.*.json 2>/dev/null)
check "one result file results/ID.aN.WID.json" eval '[ -n "$R" ] && [ -f "$R" ]'
field() { grep -q "^[[:space:]]*\"$1\":[[:space:]]*$2,\{0,1\}\$" "$R" ||
	{ echo "# $1 != $2 in $R"; return 1; }; }
check "result: status ok, loss, cost, info" eval 'field status "\"ok\"" &&
	field loss 0.25 && field cost 7 && field epochs 3'
check "result: id, attempt, study, host, pid, worker" eval \
	'field id "\"00000042\"" && field attempt 2 &&
	field study "\"$SID\"" && field pid "[1-9][0-9]*" &&
	field worker "\"[0-9a-f]\{12\}\"" && field host "\"[A-Za-z0-9-]*\""'
check "result: times, rss, exit code" eval 'field wall_time "[0-9.e-]*" &&
	field max_rss_kb "[1-9][0-9]*" && field exit_code 0 && field signal 0 &&
	field started "\"20[0-9-]*T[0-9:.]*Z\"" && field finished "\".*Z\""'
check "claim left for the orchestrator, pending empty" eval \
	'[ -f "$S"/claimed/00000042@*.json ] && [ -z "$(ls "$S/pending")" ]'
check "logs/SSSS/ID.aN.out holds stdout" \
	grep -q "some noise" "$S/logs/0000/00000042.a2.out"
check "log lines claimed and done" eval 'grep -q "trial=00000042 attempt=2 fidelity=3 claimed" "$T/w1.log" &&
	grep -q "trial=00000042 attempt=2 fidelity=3 done status=ok loss=0.25" "$T/w1.log"'
check "registry file removed on exit" [ -z "$(ls "$S/workers")" ]

# 2. A python3 trainer reading the config file and writing $DEHBQ_RESULT.
if command -v python3 >/dev/null 2>&1; then
	trial "$S" 00000043 0 1.5 1 null '{"lr": 0.5, "n-layers": 8, "opt": "adam"}'
	cat >"$T/trainer.py" <<'EOF'
import json, os, sys
cfg = json.load(open(sys.argv[1]))
b = float(sys.argv[2])
assert os.environ["DEHBQ_P_OPT"] == cfg["opt"] == "adam"
assert os.environ["DEHBQ_PARENT_WORKDIR"] == ""
loss = cfg["lr"] * cfg["n-layers"] + b
json.dump({"loss": loss, "info": {"b": b}}, open(os.environ["DEHBQ_RESULT"], "w"))
EOF
	timeout 30 "$DEHBQ_BIN/dehbq-worker" --study "$S" --max-trials 1 -- \
		python3 "$T/trainer.py" {config} {budget} 2>"$T/w2.log"
	R=$(ls "$S"/results/00000043.a1.*.json 2>/dev/null)
	check "python3 trainer: report via \$DEHBQ_RESULT" eval '[ -n "$R" ] &&
		field status "\"ok\"" && field loss 5.5 && field b 1.5'
else
	skip "python3 not installed"
fi

# 3. Exit conditions.
timeout 30 "$DEHBQ_BIN/dehbq-worker" --study "$S" --idle-exit 1 \
	--max-poll 0.3 -- true 2>"$T/w3.log"
rc=$?
check "--idle-exit: exit 0 with nothing to claim" eval '[ $rc = 0 ] &&
	grep -q "exiting: --idle-exit" "$T/w3.log"'

"$DEHBQ_BIN/dehbq-worker" --study "$S" --max-poll 0.5 -- true \
	2>"$T/w4.log" &
BGPID=$!
BG_PIDS="$BG_PIDS $BGPID"
wait_for 20 eval '[ -n "$(ls "$S/workers")" ]'
check "idle worker registers in workers/" eval \
	'grep -q "\"format\":[[:space:]]*\"dehbq-worker/1\"" "$S"/workers/*.json &&
	grep -q "\"trial\":[[:space:]]*null" "$S"/workers/*.json'
echo '{"format": "dehbq-finished/1"}' >"$S/.FINISHED.tmp"
mv "$S/.FINISHED.tmp" "$S/FINISHED"
wait_for 30 eval '! kill -0 $BGPID 2>/dev/null'
wait $BGPID
rc=$?
BGPID=
check "FINISHED: exit 0" eval '[ $rc = 0 ] &&
	grep -q "exiting: study finished" "$T/w4.log"'
check "FINISHED: registry removed" [ -z "$(ls "$S/workers")" ]

"$DEHBQ_BIN/dehbq-worker" --study "$T/nonexistent" -- true 2>/dev/null
check "bad study: exit 100" [ $? = 100 ]
"$DEHBQ_BIN/dehbq-worker" --study "$S" 2>/dev/null
check "no command: exit 100" [ $? = 100 ]

# 4. Log cap: the log stops at the cap, the report is still found.
rm -f "$S/FINISHED"
trial "$S" 00000044 0 1 1 null "$CFG"
timeout 30 "$DEHBQ_BIN/dehbq-worker" --study "$S" --max-trials 1 \
	--log-cap 1K -- sh -c 'i=0; while [ $i -lt 2000 ]; do
	echo "line $i of noise noise noise"; i=$((i + 1)); done
	echo "{\"loss\": 3}"' 2>"$T/w5.log"
R=$(ls "$S"/results/00000044.a1.*.json 2>/dev/null)
check "--log-cap 1K: log capped, report past the cap found" eval \
	'[ "$(wc -c <"$S/logs/0000/00000044.a1.out")" -eq 1024 ] &&
	[ -n "$R" ] && field status "\"ok\"" && field loss 3'

# 5. --help and the manual page list the same options.
"$DEHBQ_BIN/dehbq-worker" --help >"$T/help"
check "--help exits 0 with a usage line" eval '[ $? = 0 ] &&
	grep -q "^usage: dehbq-worker --study DIR" "$T/help"'
MAN=${DEHBQ_SRC:-.}/docs/dehbq-worker.1
missing=
for o in $(grep -o -- '--[a-z][a-z-]*' "$T/help" | sort -u); do
	m=$(printf '%s' "$o" | sed 's/-/\\\\-/g')
	grep -q -- "$m" "$MAN" || missing="$missing $o"
done
check "every --help option is in docs/dehbq-worker.1${missing:+ (missing:$missing)}" \
	[ -z "$missing" ]

# 6. pending/ is watched only while the worker looks for work: each
# rename into pending/ queues an event for every watch, at the publisher's
# expense.  /proc/PID/fdinfo lists a process's inotify watches by inode.
# watched PID DIR: DIR is among PID's inotify watches
watched() {
	w_ino=$(printf '%x' "$(stat -c %i "$2")")
	cat /proc/"$1"/fdinfo/* 2>/dev/null |
		grep -q "^inotify wd:[0-9]* ino:$w_ino "
}
rm -f "$S/FINISHED" "$T/gate"
"$DEHBQ_BIN/dehbq-worker" --study "$S" --max-poll 30 -- sh -c \
	'while ! test -e "$0"; do sleep 0.05; done; echo "{\"loss\": 1}"' \
	"$T/gate" 2>"$T/w6.log" &
BGPID=$!
BG_PIDS="$BG_PIDS $BGPID"
wait_for 20 watched $BGPID "$S/pending"
check "an idle worker watches pending/ and the study (FINISHED)" eval \
	'watched $BGPID "$S/pending" && watched $BGPID "$S"'
trial "$S" 00000045 0 1 1 null "$CFG"
wait_for 20 eval 'ls "$S"/claimed/00000045@* >/dev/null 2>&1'
# the worker drops the watch after its claim: wait for that (the trainer
# is gated, so the trial is still running)
wait_for 20 eval '! watched $BGPID "$S/pending"'
check "a worker running a trial does not watch pending/ (still the study)" \
	eval '! watched $BGPID "$S/pending" && watched $BGPID "$S"'
touch "$T/gate"
wait_for 20 eval 'ls "$S"/results/00000045.a1.*.json >/dev/null 2>&1'
wait_for 20 watched $BGPID "$S/pending"
check "idle again after the trial: it watches pending/ again" \
	watched $BGPID "$S/pending"
kill $BGPID
wait $BGPID
check "SIGTERM: exit 0" [ $? = 0 ]
BGPID=

# The trainer runs in the trial's work directory: a script named relative to
# the worker's directory is resolved at start (and said so), so trials run
# it; a command path that names no file here is refused (exit 100).
mkstudy "$T/rel"
printf '#!/bin/sh\necho "{\\"loss\\": 0.5}"\n' >"$T/rel.sh"
chmod +x "$T/rel.sh"
"$DEHBQ_BIN/dehbq-orchestrator" --once "$T/rel" 2>/dev/null
(cd "$T" && "$DEHBQ_BIN/dehbq-worker" --study rel --max-trials 1 --idle-exit 2 -- sh rel.sh) 2>"$T/wrel.log"
check "a relative script argument is resolved at start, and the trial runs it" \
	sh -c "grep -q \"'rel.sh' resolved to '$T/rel.sh'\" '$T/wrel.log' && grep -q 'done status=ok' '$T/wrel.log'"
(cd "$T" && "$DEHBQ_BIN/dehbq-worker" --study rel --idle-exit 0.3 -- ./missing.sh) 2>"$T/wmiss.log"
check "a relative command that names no file exits 100 with one line" \
	sh -c "test $? = 100 && test \$(wc -l <'$T/wmiss.log') = 1 && grep -q 'give it as an absolute path' '$T/wmiss.log'"
# the study's lease is 4 s: a heartbeat longer than 2 s would let claims expire
"$DEHBQ_BIN/dehbq-worker" --study "$T/rel" --heartbeat 3 -- true 2>"$T/whb.log"
check "--heartbeat longer than lease / 2 exits 100 with one line" \
	sh -c "test $? = 100 && test \$(wc -l <'$T/whb.log') = 1 && grep -q 'use at most 2' '$T/whb.log'"
SLURM_JOB_END_TIME=soon "$DEHBQ_BIN/dehbq-worker" --study "$T/rel" --idle-exit 0.3 -- true 2>"$T/wsl.log"
check "a SLURM_JOB_END_TIME that is not a time is warned about, not silently ignored" \
	grep -q "SLURM_JOB_END_TIME is not a Unix time" "$T/wsl.log"

[ "$TAP_FAIL" = 0 ] || cat "$T"/w*.log
exit 0
