#!/bin/sh
# t2020-worker-faults.sh - dehbq-worker under faults: a hung trainer is
# killed at --trial-timeout, SIGTERM releases the claim to pending/ with the
# same attempt, a trainer killed by a signal is "crashed", garbage and NaN
# reports are "failed", and symlinks, FIFOs, bad names and bad JSON in
# pending/ are quarantined with a reason, without a crash or a hang.

. "${DEHBQ_SRC:-$(cd "$(dirname "$0")/.." && pwd)}/tests/lib.sh"
BGPID=

S=$T/s
xstudy "$S"

# trial ID [ATTEMPT]: publish a rung-0 trial
trial() { put_trial "$S" "$@"; }
# one ID TRAINER...: run one trial with the given trainer
one() {
	id=$1
	shift
	trial "$id"
	timeout 60 "$DEHBQ_BIN/dehbq-worker" --study "$S" --max-trials 1 \
		--grace 2 "$@" 2>"$T/w$id.log"
}
# has ID FIELD REGEX: the result of trial ID has FIELD matching REGEX
has() {
	grep -q "^[[:space:]]*\"$2\":[[:space:]]*$3,\{0,1\}\$" \
		"$S"/results/"$1".a*.json 2>/dev/null ||
		{ echo "# $1: $2 !~ $3"; return 1; }
}

echo "1..22"

one 00000001 --trial-timeout 1 -- sh -c 'echo stuck >&2; sleep 60'
rc=$?
check "hung trainer: status timeout" eval '[ $rc = 0 ] &&
	has 00000001 status "\"timeout\"" && has 00000001 error "\"timeout.*\"" &&
	has 00000001 stderr_tail "\"stuck\""'

one 00000002 -- sh -c 'kill -SEGV $$'
check "trainer killed by SIGSEGV: status crashed, signal 11" eval \
	'has 00000002 status "\"crashed\"" && has 00000002 signal 11 &&
	has 00000002 exit_code -1'

one 00000003 -- sh -c 'echo this is not json; echo oops >&2'
check "garbage report: status failed with reason and stderr tail" eval \
	'has 00000003 status "\"failed\"" &&
	has 00000003 error "\"invalid report.*\"" &&
	has 00000003 stderr_tail "\"oops\"" && ! grep -q "\"loss\"" \
	"$S"/results/00000003.a*.json'

one 00000004 -- sh -c 'echo "{\"loss\": NaN}" >"$DEHBQ_RESULT"'
check "NaN loss: status failed" eval 'has 00000004 status "\"failed\""'

one 00000005 -- sh -c 'echo "{\"loss\": 1}"; exit 3'
check "non-zero exit: status failed, exit_code 3" eval \
	'has 00000005 status "\"failed\"" && has 00000005 exit_code 3'

one 00000006 -- "$T/no-such-trainer"
check "missing trainer: status failed" eval 'has 00000006 status "\"failed\"" &&
	has 00000006 error "\"cannot execute.*\""'

# SIGTERM mid-trial: the claim goes back to pending/ at once.
trial 00000007 2
"$DEHBQ_BIN/dehbq-worker" --study "$S" --grace 2 -- \
	sh -c 'touch "$0"; sleep 60' "$T/started" 2>"$T/wterm.log" &
BGPID=$!
BG_PIDS="$BG_PIDS $BGPID"
wait_for 30 test -f "$T/started"
kill -TERM $BGPID
wait_for 20 eval '! kill -0 $BGPID 2>/dev/null'
wait $BGPID
rc=$?
BGPID=
check "SIGTERM: worker exits 0" [ $rc = 0 ]
check "SIGTERM: claim back in pending/ with the same attempt" eval \
	'[ -f "$S/pending/99-00000007.json" ] &&
	grep -q "\"attempt\":[[:space:]]*2" "$S/pending/99-00000007.json" &&
	[ -z "$(ls "$S/claimed" | grep ^00000007)" ]'
check "SIGTERM: no result, registry removed" eval \
	'[ -z "$(ls "$S/results" | grep ^00000007)" ] &&
	[ -z "$(ls "$S/workers")" ]'
rm -f "$S/pending/99-00000007.json"

# Junk in pending/.
ln -s /etc/passwd "$S/pending/99-00000010.json"
mkfifo "$S/pending/99-00000011.json"
echo '{"format": "dehbq-trial/1", oops' >"$S/pending/99-00000012.json"
echo hello >"$S/pending/hello.txt"
printf '{"format": "dehbq-trial/1", "id": "00000099", "study": "%s", "epoch": 1, "bracket": 0, "rung": 0, "fidelity": 1, "kind": "trial", "parent": null, "attempt": 1, "created": "2026-11-22T04:30:00.123Z", "seed": 1, "config": {"x": 0.5}, "vector": [0.5]}\n' \
	"$SID" >"$S/pending/99-00000013.json"
echo junk >"$S/pending/.ignored-dotfile"
timeout 60 "$DEHBQ_BIN/dehbq-worker" --study "$S" --idle-exit 1 \
	--max-poll 0.3 -- sh -c 'echo "{\"loss\": 1}"' 2>"$T/wjunk.log"
rc=$?
check "junk in pending/: worker exits 0" [ $rc = 0 ]
q() { [ -e "$S/quarantine/pending.$1" ] || [ -L "$S/quarantine/pending.$1" ] &&
	[ -s "$S/quarantine/pending.$1.reason" ] ||
	{ echo "# not quarantined: $1"; return 1; }; }
check "symlink, FIFO, bad JSON, bad name, wrong id quarantined" eval \
	'q 99-00000010.json && q 99-00000011.json && q 99-00000012.json &&
	q hello.txt && q 99-00000013.json &&
	[ -L "$S/quarantine/pending.99-00000010.json" ] &&
	[ -p "$S/quarantine/pending.99-00000011.json" ]'
check "reasons name the file; dotfile left alone; nothing ran" eval \
	'grep -q "^pending/99-00000013.json: .*id" \
		"$S/quarantine/pending.99-00000013.json.reason" &&
	[ -f "$S/pending/.ignored-dotfile" ] &&
	[ -z "$(ls "$S/results" | grep "^0000001")" ]'

# Heartbeat: the claim's mtime moves; a vanished claim is finished anyway.
trial 00000030
"$DEHBQ_BIN/dehbq-worker" --study "$S" --max-trials 1 --heartbeat 0.2 -- \
	sh -c 'touch "$0"; while [ ! -f "$0.go" ]; do sleep 0.1; done
	echo "{\"loss\": 2}"' "$T/hb" 2>"$T/whb.log" &
BGPID=$!
BG_PIDS="$BG_PIDS $BGPID"
wait_for 30 test -f "$T/hb"
c=$(ls "$S"/claimed/00000030@*.json)
m1=$(stat -c %y "$c")
sleep 1.5
m2=$(stat -c %y "$c")
check "heartbeat: the claim's mtime is refreshed" [ "$m1" != "$m2" ]
rm -f "$c"
sleep 1
touch "$T/hb.go"
wait_for 30 eval '! kill -0 $BGPID 2>/dev/null'
wait $BGPID
rc=$?
BGPID=
check "claim lost: warned, result still written" eval '[ $rc = 0 ] &&
	grep -q "claim lost (requeued?)" "$T/whb.log" &&
	has 00000030 status "\"ok\""'

# --time-limit: nothing to claim -> exit when the limit is reached.
timeout 60 "$DEHBQ_BIN/dehbq-worker" --study "$S" --time-limit 1 \
	--max-poll 0.3 -- true 2>"$T/wtl1.log"
rc=$?
check "--time-limit with nothing to do: exit 0" eval '[ $rc = 0 ] &&
	grep -q "exiting: time limit reached" "$T/wtl1.log"'

# --time-limit: after a 1 s trial, the next one (estimate 1 s + grace 2 s)
# does not fit in the 3 s limit: it is released and the worker exits.
trial 00000020
trial 00000021
timeout 60 "$DEHBQ_BIN/dehbq-worker" --study "$S" --time-limit 3 \
	--grace 2 -- sh -c 'sleep 1; echo "{\"loss\": 1}"' 2>"$T/wtl2.log"
rc=$?
check "--time-limit: one trial run, the next released, exit 0" eval \
	'[ $rc = 0 ] && [ "$(ls "$S/results" | grep -c "^0000002")" = 1 ] &&
	[ "$(ls "$S/pending" | grep -c "^99-0000002")" = 1 ] &&
	grep -q "released: needs" "$T/wtl2.log"'
check "--time-limit: the released trial keeps its attempt" eval \
	'grep -q "\"attempt\":[[:space:]]*1" "$S"/pending/99-0000002*.json'

# --max-failures-in-a-row: a command that fails every trial on this host
# makes the worker exit 100 after N in a row instead of eating the queue
rm -f "$S"/pending/*.json
for i in 60 61 62 63 64; do trial 000000$i; done
timeout 60 "$DEHBQ_BIN/dehbq-worker" --study "$S" --pick 1 \
	--max-failures-in-a-row 3 -- sh -c 'exit 4' 2>"$T/wmf1.log"
rc=$?
check "--max-failures-in-a-row 3: exit 100 after 3 failed trials, 2 left" eval \
	'[ $rc = 100 ] && [ "$(ls "$S/results" | grep -c "^0000006")" = 3 ] &&
	[ "$(ls "$S/pending" | grep -c "^99-0000006")" = 2 ] &&
	grep -q "3 trials in a row failed on this host, the last trial 0000006[0-4] attempt 1: exit code 4; its log: logs/0000/0000006[0-4].a1.err" "$T/wmf1.log" &&
	grep -q "exiting: --max-failures-in-a-row reached (3 trials run)" "$T/wmf1.log"'
# an ok trial restarts the count: fail, ok, fail, fail with N = 3 runs all
rm -f "$S"/pending/*.json
for i in 70 71 72 73; do trial 000000$i; done
timeout 60 "$DEHBQ_BIN/dehbq-worker" --study "$S" --pick 1 --idle-exit 1 \
	--max-failures-in-a-row 3 -- sh -c \
	'[ "$DEHBQ_TRIAL_ID" = 00000071 ] && echo "{\"loss\": 1}" || exit 4' \
	2>"$T/wmf2.log"
rc=$?
check "--max-failures-in-a-row: an ok trial restarts the count" eval \
	'[ $rc = 0 ] && [ "$(ls "$S/results" | grep -c "^0000007")" = 4 ]'
# the default is the study's runtime.max_failures_in_a_row; 0 = never
"$DEHBQ_BIN/dehbq" init "$T/s2" --space "$T/xspace.json" --min-budget 1 \
	--max-budget 9 --fevals 10 --lease 4 --max-failures-in-a-row 2 \
	>/dev/null || exit 1
S=$T/s2
SID=$(sed -n 's/^[[:space:]]*"study":[[:space:]]*"\([^"]*\)".*/\1/p' \
	"$S/study.json")
for i in 50 51 52; do trial 000000$i; done
timeout 60 "$DEHBQ_BIN/dehbq-worker" --study "$S" -- sh -c 'exit 4' \
	2>"$T/wmf3.log"
rc=$?
check "the study's max_failures_in_a_row (2) is the default" eval \
	'[ $rc = 100 ] && [ "$(ls "$S/results" | wc -l)" = 2 ]'
timeout 60 "$DEHBQ_BIN/dehbq-worker" --study "$S" --idle-exit 1 \
	--max-failures-in-a-row 0 -- sh -c 'exit 4' 2>"$T/wmf4.log"
rc=$?
check "--max-failures-in-a-row 0: never exits for failures" eval \
	'[ $rc = 0 ] && [ "$(ls "$S/results" | wc -l)" = 3 ]'
"$DEHBQ_BIN/dehbq-worker" --study "$S" --max-failures-in-a-row 1.5 \
	-- true 2>"$T/wmf5.log"
rc=$?
check "--max-failures-in-a-row 1.5: refused, exit 100, one line" eval \
	'[ $rc = 100 ] && [ "$(wc -l <"$T/wmf5.log")" = 1 ] &&
	grep -q "not an integer" "$T/wmf5.log"'

[ "$TAP_FAIL" = 0 ] || cat "$T"/w*.log
exit 0
