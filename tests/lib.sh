# lib.sh - helpers for the end-to-end TAP scripts (POSIX sh)
#
# Each script: . "$DEHBQ_SRC/tests/lib.sh"; plan N; ...; ok/not_ok; done.
# Every script gets a fresh scratch directory $T, removed at exit, and
# every background process it starts with `bg` is killed at exit.

: "${DEHBQ_BIN:?set DEHBQ_BIN to the directory of the dehbq binaries}"
: "${DEHBQ_SRC:=$(cd "$(dirname "$0")/.." && pwd)}"
B=$DEHBQ_BIN
T=$(mktemp -d "${TMPDIR:-/tmp}/dehbq-t.XXXXXX")
TAP_N=0
TAP_FAIL=0
BG_PIDS=

cleanup() {
	for p in $BG_PIDS; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	if [ "$TAP_FAIL" = 0 ] || [ -z "${KEEP:-}" ]; then rm -rf "$T"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

plan() { echo "1..$1"; }
ok() {
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N - $*"
}
# not_ok also prints the last diag lines to stderr, which prove shows
# without -v: a failure in CI says what the test measured
not_ok() {
	TAP_N=$((TAP_N + 1))
	TAP_FAIL=$((TAP_FAIL + 1))
	echo "not ok $TAP_N - $*"
	{
		echo "# ${0##*/}: not ok $TAP_N - $*; its last diag lines:"
		tail -n 6 "$T/.diag" 2>/dev/null
	} >&2
}
skip() {
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N # SKIP $*"
}
# check DESCRIPTION COMMAND...: ok if the command succeeds
check() {
	d=$1
	shift
	if "$@"; then ok "$d"; else not_ok "$d"; fi
}
diag() { echo "# $*" | tee -a "$T/.diag"; }

# py_with MODULE...: set PY to the first python3 that imports every MODULE:
# $PYTHON if set, then python3 on PATH, then /usr/bin/python3 (Debian's
# python3-pandas and python3-sklearn are seen only by the latter, and a
# pyenv or venv python3 may come first on PATH).  Says which in a diag line.
# If none has them: PY is the first that exists, PY_TRIED lists those
# tried, and it returns 1 (the caller skips, naming PY_TRIED).
py_with() {
	PY= PY_TRIED= py_m=$(echo "$*" | tr ' ' ,)
	for py_c in ${PYTHON:-} python3 /usr/bin/python3; do
		py_c=$(command -v "$py_c" 2>/dev/null) || continue
		case "$PY_TRIED " in *" $py_c "*) continue ;; esac
		PY_TRIED="$PY_TRIED $py_c"
		[ -n "$PY" ] || PY=$py_c
		if "$py_c" -c "import $py_m" 2>/dev/null; then
			PY=$py_c
			diag "python with $py_m: $PY (tried:$PY_TRIED)"
			return 0
		fi
	done
	: "${PY:=python3}"
	diag "no python with $py_m (tried:${PY_TRIED:- none})"
	return 1
}

# bg CMD...: run in the background, remember the pid in $!
bg() {
	"$@" &
	BG_PIDS="$BG_PIDS $!"
}

# wait_for SECONDS COMMAND...: poll until the command succeeds
wait_for() {
	w_end=$(($(date +%s) + $1))
	shift
	while ! "$@"; do
		[ "$(date +%s)" -ge "$w_end" ] && return 1
		sleep 0.1
	done
	return 0
}

# now_s: a monotonic clock in seconds (centiseconds; /proc/uptime);
# since_s T0: the seconds since T0, as "%.2f"
now_s() { cut -d' ' -f1 /proc/uptime; }
since_s() { awk -v a="$1" -v b="$(now_s)" 'BEGIN{printf "%.2f", b - a}'; }
# lt A B: A < B for decimal numbers
lt() { awk -v a="$1" -v b="$2" 'BEGIN{exit !(a < b)}'; }

# A 3-parameter space used by most tests.
write_space() {
	cat >"$1" <<'SP'
{"format": "dehbq-space/1", "parameters": [
 {"name": "x", "type": "float", "low": 0, "high": 1},
 {"name": "layers", "type": "int", "low": 1, "high": 8},
 {"name": "opt", "type": "categorical", "choices": ["adam", "sgd"]}]}
SP
}

# mkspec FILE FEVALS [RUNTIME-JSON]: a study spec on the test space
mkspec() {
	rt=${3:-}
	[ -n "$rt" ] || rt='{"lease": 5, "poll": 0.1}'
	write_space "$T/space.json"
	cat >"$1" <<SP
{"format": "dehbq-study/1", "space": "space.json",
 "fidelity": {"min": 1, "max": 9, "eta": 3}, "seed": 7,
 "termination": {"fevals": $2},
 "runtime": $rt}
SP
}

# A deterministic trainer: loss from x and layers, scaled by the budget.
TRAINER='awk -v x="$DEHBQ_P_X" -v l="$DEHBQ_P_LAYERS" -v b="$DEHBQ_BUDGET" "BEGIN{printf \"{\\\"loss\\\": %.10g, \\\"cost\\\": %s}\\n\", (x-0.3)^2 + l/100 + 1/b, b}"'

# kill9_run DIR KILLS LO SPAN TRAINER: one worker runs TRAINER (a shell
# command) on study DIR while orchestrators start and are killed -9 KILLS
# times, each after LO + rand * SPAN seconds (at most 2 * KILLS starts: one
# that finishes by itself is not killed); then one runs to the end.
# Prints the number of kills.
kill9_run() {
	"$B/dehbq-worker" --study "$1" --idle-exit 60 --max-poll 0.2 -- \
		sh -c "sleep 0.01; $5" 2>>"$1.workers.log" &
	kw=$!
	k=0 starts=0
	while [ $k -lt "$2" ] && [ $starts -lt $((2 * $2)) ] &&
		[ ! -e "$1/FINISHED" ]; do
		starts=$((starts + 1))
		"$B/dehbq-orchestrator" -q "$1" 2>>"$1.orch.log" &
		ko=$!
		sleep "$(awk -v s=$k -v lo="$3" -v sp="$4" 'BEGIN{srand(s); printf "%.2f", lo + rand() * sp}')"
		kill -9 $ko 2>/dev/null && k=$((k + 1))
		wait $ko 2>/dev/null
	done
	[ -e "$1/FINISHED" ] || "$B/dehbq-orchestrator" -q "$1" 2>>"$1.orch.log"
	wait $kw
	echo "$k"
}

# lockstep_run DIR KILLS TRAINER: run study DIR to the end with no timing
# in it: each step is one `dehbq-orchestrator --once`, then (if it left a
# trial in pending/) one trial by `dehbq-worker --max-trials 1` running
# TRAINER (a shell command).  KILLS > 0: steps 2, 2 + LS_EVERY, ...
# (default 3) first run an orchestrator with DEHBQ_TEST_CRASH_AFTER=k, k
# taken in turn from LS_POINTS, until KILLS of them have run; each must
# kill itself (exit 137), and the step's --once then resumes the study.
# Sets LS_KILLS (crashed orchestrators that exited 137), LS_BAD (any
# other unexpected exit status, each with a diag) and LS_STEPS.  At most
# LS_MAX_STEPS steps (default 2000): a study that never finishes fails.
LS_POINTS_DEFAULT="1 14 4 9 15 6 12 2 10 7 13 3 11 5 8"
lockstep_run() {
	LS_KILLS=0 LS_BAD=0 LS_STEPS=0
	ls_n=0 ls_pts=${LS_POINTS:-$LS_POINTS_DEFAULT}
	ls_np=$(echo $ls_pts | wc -w)
	while [ ! -e "$1/FINISHED" ] && [ $LS_STEPS -lt "${LS_MAX_STEPS:-2000}" ]; do
		LS_STEPS=$((LS_STEPS + 1))
		if [ $ls_n -lt "$2" ] && [ $LS_STEPS -ge 2 ] &&
			[ $(((LS_STEPS - 2) % ${LS_EVERY:-3})) = 0 ]; then
			ls_k=$(echo $ls_pts | cut -d' ' -f$((ls_n % ls_np + 1)))
			ls_n=$((ls_n + 1))
			DEHBQ_TEST_CRASH_AFTER=$ls_k "$B/dehbq-orchestrator" -q \
				--once "$1" 2>>"$1.orch.log"
			ls_rc=$?
			if [ $ls_rc = 137 ]; then
				LS_KILLS=$((LS_KILLS + 1))
			else
				LS_BAD=$((LS_BAD + 1))
				diag "$1: step $LS_STEPS: orchestrator to crash after change $ls_k exited $ls_rc, not 137"
			fi
		fi
		"$B/dehbq-orchestrator" -q --once "$1" 2>>"$1.orch.log" || {
			ls_rc=$?
			LS_BAD=$((LS_BAD + 1))
			diag "$1: step $LS_STEPS: orchestrator --once exited $ls_rc"
		}
		[ ! -e "$1/FINISHED" ] || break
		[ -n "$(ls "$1/pending")" ] || continue
		"$B/dehbq-worker" --study "$1" --max-trials 1 --idle-exit 60 \
			-- sh -c "$3" 2>>"$1.workers.log" || {
			ls_rc=$?
			LS_BAD=$((LS_BAD + 1))
			diag "$1: step $LS_STEPS: worker exited $ls_rc"
		}
	done
	[ -e "$1/FINISHED" ] || diag "$1: not FINISHED after $LS_STEPS steps"
}

# lockstep_pair A B KILLS TRAINER: lockstep_run A without kills (in the
# background, on the other core) and B with KILLS; then LS_* are B's and
# A's own are in A.ls (its diags too).
lockstep_pair() {
	(lockstep_run "$1" 0 "$4" >"$1.ls" 2>&1; echo "# bad: $LS_BAD" >>"$1.ls") &
	lp_pid=$!
	lockstep_run "$2" "$3" "$4"
	wait $lp_pid
	grep -v '^# bad: 0$' "$1.ls"
}

# lockstep_checks NAME A B KILLS: the check that both lockstep runs of
# lockstep_pair finished, B after exactly KILLS kills, with no other
# failure.
lockstep_checks() {
	check "$1: both runs finish, the second after its $4 planned kills, each exit 137" \
		test -e "$2/FINISHED" -a -e "$3/FINISHED" -a "$LS_KILLS" = "$4" \
		-a "$LS_BAD" = 0 -a -z "$(grep -v '^# bad: 0$' "$2.ls")"
}

# killed_pair NAME A B KILLS TRAINER [LO SPAN]: studies A (never killed)
# and B (killed KILLS times) run to the end with TRAINER, then one check.
# The gate: lockstep_pair and lockstep_checks (the kill count exact).
# DEHBQ_CHAOS=long (make chaos): the timed soak, kill9_run with kills after
# LO + rand * SPAN seconds (default 0.1, 0.4); how many landed depends on
# speed, so it is only reported, and the check is that both finish.
killed_pair() {
	if [ "${DEHBQ_CHAOS:-}" = long ]; then
		kill9_run "$2" 0 "${6:-0.1}" "${7:-0.4}" "$5" >/dev/null
		kp_k=$(kill9_run "$3" "$4" "${6:-0.1}" "${7:-0.4}" "$5")
		diag "$1: soak: $kp_k of at most $4 kills landed (depends on speed)"
		check "$1: both runs finish" test -e "$2/FINISHED" -a -e "$3/FINISHED"
	else
		lockstep_pair "$2" "$3" "$4" "$5"
		diag "$1: $LS_STEPS steps, crash points: $(echo ${LS_POINTS:-$LS_POINTS_DEFAULT} | cut -d' ' -f1-$4)"
		lockstep_checks "$1" "$2" "$3" "$4"
	fi
}

# optim_state DIR: the newest snapshot's optimiser state, without its
# timestamp, as one line of sorted JSON (to compare two runs).
optim_state() {
	python3 - "$1" <<'PY'
import glob, json, sys
snap = json.load(open(sorted(glob.glob(sys.argv[1] + "/state/snapshot-*"))[-1]))
e = snap["optimizer"]
e["books"].pop("elapsed")
print(json.dumps(e, sort_keys=True))
PY
}

# xstudy DIR: a study on a one-parameter space (x), for tests that play the
# orchestrator with put_trial; sets SID
xstudy() {
	cat >"$T/xspace.json" <<'EOF'
{"format": "dehbq-space/1", "parameters": [
 {"name": "x", "type": "float", "low": 0, "high": 1}]}
EOF
	"$DEHBQ_BIN/dehbq" init "$1" --space "$T/xspace.json" --min-budget 1 \
		--max-budget 9 --fevals 20 --lease 4 >/dev/null || exit 1
	SID=$(study_id "$1")
}

# put_trial DIR ID [ATTEMPT]: publish a rung-0 trial of xstudy DIR straight
# into pending/, as an orchestrator would
put_trial() {
	printf '{"format": "dehbq-trial/1", "id": "%s", "study": "%s", "epoch": 1, "bracket": 0, "rung": 0, "fidelity": 1, "kind": "trial", "parent": null, "attempt": %d, "created": "2026-11-22T04:30:00.123Z", "seed": 1, "config": {"x": 0.5}, "vector": [0.5]}\n' \
		"$2" "$SID" "${3:-1}" >"$1/pending/.$2.tmp"
	mv "$1/pending/.$2.tmp" "$1/pending/99-$2.json"
}

# cr ARGS...: headless Chromium (CHROME; empty when none is installed), its
# log in $T/chrome.log; e.g. cr --dump-dom file://$T/r.html >$T/dom.html
CHROME=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
cr() {
	timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu \
		--hide-scrollbars --no-first-run --user-data-dir="$T/chrome" \
		--enable-logging=stderr --v=0 "$@" 2>>"$T/chrome.log"
}

study_id() { sed -n 's/.*"study":[[:space:]]*"\([0-9a-f-]*\)".*/\1/p' "$1/study.json" | head -1; }

# check_no_leftovers: kill everything this test started (and the children
# of those processes), then check that no process or mount of $T remains.
check_no_leftovers() {
	for p in $BG_PIDS; do
		for c in $(cat /proc/"$p"/task/*/children 2>/dev/null); do
			kill -9 "$c" 2>/dev/null
		done
		kill -9 "$p" 2>/dev/null
	done
	wait 2>/dev/null
	BG_PIDS=
	sleep 0.5
	left=$(ps -eo pid,args | grep -F "$T" | grep -v grep; grep -F " $T" /proc/mounts)
	[ -z "$left" ] || echo "$left" | sed 's/^/# left: /'
	check "no process or mount of this test left behind" test -z "$left"
}
