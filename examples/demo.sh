#!/bin/sh
# demo.sh - a one-minute dehbq study you can watch (what `make demo` runs)
#
# Usage: sh examples/demo.sh BINDIR
#
# Creates ./demo-study (an existing one is moved to
# ./demo-study.old.TIMESTAMP first), a DEHB study on multi-fidelity Branin
# run by the bundled C trainer (build/bin/bench_trainer), which sleeps
# DEMO_SLEEP seconds per budget unit so that trials take time like real
# training.  Starts the orchestrator and DEMO_WORKERS local workers in the
# background, prints a progress line every 2 s, and at the end prints
# `dehbq status` and writes demo-study/plot.svg with `dehbq plot`.
# Orchestrator and worker logs go to ./demo-study.logs/.
#
# Every command is printed as a user would type it, with BINDIR on PATH.
# Background processes are stopped on exit and on Ctrl-C (SIGTERM: the
# workers release their trials, the orchestrator snapshots, and the study
# can be resumed by starting them again).
#
# Knobs (environment): DEMO_DIR (demo-study), DEMO_WORKERS (4),
# DEMO_BRACKETS (3: about 175 trials), DEMO_SLEEP (0.1), DEMO_TIMEOUT (180 seconds).
# Exit status: 0 when the study finished, 1 when it did not finish within
# DEMO_TIMEOUT or a process failed, 2 on bad usage.
set -eu

if [ $# -ne 1 ] || [ ! -x "$1/dehbq-orchestrator" ]; then
	echo "usage: sh examples/demo.sh BINDIR (the directory with dehbq-orchestrator)" >&2
	exit 2
fi
BIN=$(cd "$1" && pwd)
PATH=$BIN:$PATH
export PATH
EX=$(dirname "$0")
STUDY=${DEMO_DIR:-demo-study}
NW=${DEMO_WORKERS:-4}
BRACKETS=${DEMO_BRACKETS:-3}
SLEEP=${DEMO_SLEEP:-0.1}
TIMEOUT=${DEMO_TIMEOUT:-180}
LOGS=$STUDY.logs
PIDS=
T0=$(date +%s)

say() { printf '%s\n' "$*"; }
# show CMD...: print the command as a user would type it
show() { printf '\n$ %s\n' "$*"; }

cleanup() {
	rc=$?
	trap - EXIT INT TERM
	live=
	for p in $PIDS; do
		kill -0 "$p" 2>/dev/null && live="$live $p"
	done
	if [ -n "$live" ]; then
		say "demo: stopping background processes:$live"
		# SIGTERM: workers release their claims, the orchestrator
		# snapshots; the study stays resumable.
		kill -TERM $live 2>/dev/null || :
		i=0
		while [ $i -lt 50 ]; do
			still=
			for p in $live; do
				kill -0 "$p" 2>/dev/null && still="$still $p"
			done
			[ -z "$still" ] && break
			sleep 0.2
			i=$((i + 1))
		done
		[ -n "${still:-}" ] && kill -KILL $still 2>/dev/null
		[ -e "$STUDY/FINISHED" ] || say "demo: resume with:" \
			"dehbq-orchestrator $STUDY & plus the workers above"
	fi
	exit $rc
}
trap cleanup EXIT
trap 'say ""; say "demo: interrupted"; exit 130' INT TERM

# json_num FILE KEY: first "KEY": number in a pretty-printed JSON file
json_num() {
	sed -n "s/^[[:space:]]*\"$2\":[[:space:]]*\\([-0-9.eE+]*\\),\\{0,1\\}\$/\\1/p" \
		"$1" 2>/dev/null | head -1
}

# progress: one line from state/status.json (what `dehbq status` reads),
# or, before the first batch, from the archive.
progress() {
	el=$(($(date +%s) - T0))
	st=$STUDY/state/status.json
	if [ -r "$st" ]; then
		cp "$st" "$LOGS/.status" 2>/dev/null || return 0
		best=$(sed -n '/"incumbent_any_fidelity"/,/}/s/^[[:space:]]*"loss":[[:space:]]*\([-0-9.eE+]*\),*$/\1/p' \
			"$LOGS/.status" | head -1)
		printf '[%3ss] bracket %s/%s  issued %3s  done %3s  running %2s  pending %2s  failed %s  best loss (any budget) %s\n' \
			"$el" "$(json_num "$LOGS/.status" brackets)" "$BRACKETS" \
			"$(json_num "$LOGS/.status" issued)" \
			"$(json_num "$LOGS/.status" done)" \
			"$(ls "$STUDY/claimed" 2>/dev/null | grep -c -v '^\.' || :)" \
			"$(ls "$STUDY/pending" 2>/dev/null | grep -c -v '^\.' || :)" \
			"$(json_num "$LOGS/.status" failed)" \
			"$(printf '%.4f' "${best:-nan}" 2>/dev/null || echo -)"
	else
		printf '[%3ss] results archived: %s\n' "$el" \
			"$(find "$STUDY/archive" -name '*.result.json' 2>/dev/null | wc -l)"
	fi
}

have_sub() { dehbq "$1" --help >/dev/null 2>&1; }

say "dehbq demo: DEHB on multi-fidelity Branin, $NW local workers, $BRACKETS brackets"
say "(binaries from $BIN, put first on PATH)"

if [ -e "$STUDY" ]; then
	old=$STUDY.old.$(date +%Y%m%d-%H%M%S)
	mv "$STUDY" "$old"
	say "demo: moved the existing $STUDY to $old"
	if [ -e "$LOGS" ]; then mv "$LOGS" "$old.logs"; fi
fi
rm -rf "$LOGS"
mkdir -p "$LOGS"

say ""
say "1. Create the study: the search space (x1 in [-5,10], x2 in [0,15]),"
say "   the fidelity range (budget 1..100, eta 3: trials run at budgets"
say "   1.23, 3.7, 11.1, 33.3 and 100) and when to stop ($BRACKETS DEHB brackets)."
show dehbq init "$STUDY" --space "$EX/space_branin.json" --min-budget 1 \
	--max-budget 100 --eta 3 --brackets "$BRACKETS" --seed 1 --name demo-branin \
	--lease 10 --poll 0.2
dehbq init "$STUDY" --space "$EX/space_branin.json" --min-budget 1 \
	--max-budget 100 --eta 3 --brackets "$BRACKETS" --seed 1 --name demo-branin \
	--lease 10 --poll 0.2

say ""
say "2. Start the orchestrator (one per study; it resumes after any kill)."
show dehbq-orchestrator "$STUDY" "2>$LOGS/orchestrator.log &"
dehbq-orchestrator "$STUDY" 2>"$LOGS/orchestrator.log" &
PIDS="$PIDS $!"

say ""
say "3. Start workers, here or on any host that sees the directory. Each one"
say "   claims a trial and runs the trainer with {config} and {budget} filled in."
i=1
while [ "$i" -le "$NW" ]; do
	show dehbq-worker --study "$STUDY" --idle-exit 60 -- bench_trainer branin \
		'{config}' '{budget}' --sleep-per-unit "$SLEEP" "2>>$LOGS/workers.log &"
	dehbq-worker --study "$STUDY" --idle-exit 60 -- bench_trainer branin \
		'{config}' '{budget}' --sleep-per-unit "$SLEEP" 2>>"$LOGS/workers.log" &
	PIDS="$PIDS $!"
	i=$((i + 1))
done

say ""
say "4. Watch it (a line every 2 s, from $STUDY/state/status.json):"
while [ ! -e "$STUDY/FINISHED" ]; do
	if [ $(($(date +%s) - T0)) -ge "$TIMEOUT" ]; then
		say "demo: FAILED: the study did not finish within ${TIMEOUT}s"
		say "demo: see $LOGS/orchestrator.log and $LOGS/workers.log"
		exit 1
	fi
	set -- $PIDS
	if ! kill -0 "$1" 2>/dev/null && [ ! -e "$STUDY/FINISHED" ]; then
		say "demo: FAILED: the orchestrator exited; its log:"
		tail -5 "$LOGS/orchestrator.log"
		exit 1
	fi
	progress
	sleep 2
done
progress
say "demo: study finished after $(($(date +%s) - T0))s"

# Workers exit by themselves once they see FINISHED; the orchestrator too.
for p in $PIDS; do wait "$p" 2>/dev/null || :; done
PIDS=

say ""
say "5. Look at the result."
if have_sub status; then
	show dehbq status "$STUDY"
	dehbq status "$STUDY" || say "demo: dehbq status failed"
else
	say "(dehbq status is not in this build yet; here is $STUDY/FINISHED)"
	show cat "$STUDY/FINISHED"
	sed -n '1,/"brackets":[[:space:]]*\[/p' "$STUDY/FINISHED" | sed '$d'
fi
if have_sub plot; then
	show dehbq plot "$STUDY" -o "$STUDY/plot.svg"
	if dehbq plot "$STUDY" -o "$STUDY/plot.svg"; then
		say "demo: open $STUDY/plot.svg in a browser"
	else
		say "demo: dehbq plot failed"
	fi
else
	say ""
	say "(dehbq plot is not in this build yet: no $STUDY/plot.svg)"
fi
if have_sub report; then
	show dehbq report "$STUDY" -o "$STUDY/report.html"
	if dehbq report "$STUDY" -o "$STUDY/report.html"; then
		say "demo: open $STUDY/report.html in a browser (one file, works offline)"
	else
		say "demo: dehbq report failed"
	fi
fi
say ""
if have_sub trials; then
	say "More to try:"
	say "  dehbq trials $STUDY | head        one row per trial"
	have_sub show && say "  dehbq show $STUDY 00000001      one trial: files, result, logs"
	have_sub export && say "  dehbq export $STUDY --csv $STUDY/trials.csv"
	say ""
fi
say "Every trial is a file: $STUDY/archive/0000/*.trial.json and *.result.json;"
say "trainer output is in $STUDY/logs/, working directories in $STUDY/work/."
say "The optimum of Branin is 0.397887."
rm -f "$LOGS/.status"
exit 0
