#!/bin/bash
# t3020-remote-results.sh - issue 7 item 5: the orchestrator runs on host A
# (its own sshfs client), the workers on host B (another client).  inotify on
# A sees none of B's writes; results must still be found by polling (the
# observed ingest latency is printed, not bounded: nominally poll + the
# client's cache delay, and a loaded machine adds to it), and no trial is
# requeued merely because a listing lagged: no "expired" or "requeued" line
# in the orchestrator's log and requeues = 0 in FINISHED.
#   short: NFS-like profile (3 s directory cache); DEHBQ_CHAOS=long: also the
#   sshfs defaults (20 s directory cache) and a longer study.
. "${DEHBQ_SRC:-.}/tests/lib.sh"
. "$DEHBQ_SRC/tests/infra/nodes-lib.sh"
trap 'infra_down; cleanup' EXIT

PROFILES="nfs"
FEVALS=40
if [ "${DEHBQ_CHAOS:-}" = long ]; then
	PROFILES="nfs default"
	FEVALS=300
fi
POLL=0.5
nprof=$(echo $PROFILES | wc -w)
NCHK=7
plan $((nprof * NCHK))
why=$(infra_missing)
if [ -n "$why" ]; then
	for _ in $(seq $((nprof * NCHK))); do skip "$why"; done
	exit 0
fi

run_profile() {
	prof=$1
	case $prof in
	# dcache_timeout=3 (+1 s measured).  Every trial waits for B's listing
	# of pending/ and then A's listing of results/, so with 4 workers the
	# study runs at about 1.2 trials/s: the cap (a hang, not a speed) allows
	# 6 s per trial.  The lease is long: a heartbeat that a loaded machine
	# delays through sshfs must not expire a live claim.
	nfs) opts=$PROFILE_NFS cache=4 lease=30 n=$FEVALS cap=$((120 + FEVALS * 6)) ;;
	default) opts=$PROFILE_DEFAULT cache=21 lease=120 cap=2400 n=60 ;;
	esac
	L=$T/$prof
	mkdir -p "$L"
	if ! infra_up 2 "$opts"; then
		for _ in $(seq $NCHK); do not_ok "[$prof] infrastructure up"; done
		return
	fi
	mkspec "$T/spec.json" $n "{\"lease\": $lease, \"poll\": $POLL}"
	"$B/dehbq" init "$EXPORT/s" --spec "$T/spec.json" >/dev/null || return
	# A = n1: the orchestrator and an inotify watch on results/
	bg nx n1 "$B/dehbq-orchestrator" "$SHARED/s" 2>"$L/orch.log"
	if command -v inotifywait >/dev/null; then
		bg nx n1 inotifywait -m -q -e create,moved_to,close_write,modify \
			--format '%e %f' "$SHARED/s/results" >"$L/inotify.log" 2>/dev/null
		ino=1
	else
		ino=0
	fi
	# B = n2: four workers
	for k in 1 2 3 4; do
		bg nx n2 "$B/dehbq-worker" --study "$SHARED/s" --idle-exit 60 \
			--max-poll 0.5 -- sh -c "sleep 0.3; $TRAINER" 2>>"$L/workers.log"
	done
	t0=$(date +%s)
	wait_for $cap test -e "$EXPORT/s/FINISHED"
	diag "[$prof] $n trials in $(($(date +%s) - t0)) s (cap $cap s)"
	check "[$prof] study completes (orchestrator on n1, workers on n2)" test -e "$EXPORT/s/FINISHED"
	sleep 1
	# latency: worker's "done" line -> orchestrator's "told" line
	python3 - "$L/workers.log" "$L/orch.log" >"$L/lat" <<'PY'
import re, sys, datetime
def ts(s):
    return datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%fZ").timestamp()
done = {}
for l in open(sys.argv[1]):
    m = re.match(r"(\S+) .* trial=(\d+) attempt=(\d+) .*done status", l)
    if m: done[(m.group(2), m.group(3))] = ts(m.group(1))
lat = []
for l in open(sys.argv[2]):
    m = re.match(r"(\S+) .* trial=(\d+) attempt=(\d+) told", l)
    if m and (m.group(2), m.group(3)) in done:
        lat.append(ts(m.group(1)) - done[(m.group(2), m.group(3))])
lat.sort()
if not lat: print("0 nan nan nan"); sys.exit()
print(len(lat), "%.2f" % lat[len(lat) // 2], "%.2f" % lat[int(len(lat) * 0.95)], "%.2f" % lat[-1])
PY
	read -r nlat med p95 max <"$L/lat"
	diag "[$prof] sshfs -o '${opts:-(defaults)}': ingest latency over $nlat results: median ${med}s, p95 ${p95}s, max ${max}s (nominal: poll $POLL + cache ~${cache}s; the lease: ${lease}s)"
	check "[$prof] every result was ingested ($nlat of $n measured)" test "$nlat" -ge "$n"
	if [ $ino = 1 ]; then
		nev=$(wc -l <"$L/inotify.log")
		diag "[$prof] inotify events on n1 for results/ written on n2: $nev"
		# the watch itself works: it sees a write made on n1
		nx n1 sh -c "echo x >'$SHARED/s/results/.probe-n1'; rm -f '$SHARED/s/results/.probe-n1'"
		wait_for 30 grep -q 'probe-n1' "$L/inotify.log"
		own=$(grep -c 'probe-n1' "$L/inotify.log")
		diag "[$prof] ... and $own event(s) for a probe file written on n1 itself"
		check "[$prof] inotify on A saw none of B's result writes (but A's own)" test "$nev" = 0 -a "$own" -gt 0
	else
		skip "[$prof] inotifywait not installed (apt-get install inotify-tools)"
	fi
	nexp=$(grep -c 'expired\|requeued' "$L/orch.log")
	check "[$prof] no 'expired'/'requeued' line in the orchestrator log ($nexp)" test "$nexp" = 0
	rq=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["counts"]["requeues"])' "$EXPORT/s/FINISHED")
	check "[$prof] FINISHED requeues = 0 ($rq)" test "$rq" = 0
	check "[$prof] independent checker (--finished)" \
		python3 "$DEHBQ_SRC/tests/checkstudy.py" "$EXPORT/s" --finished
	infra_down
	left=$(infra_leftovers)
	check "[$prof] teardown left no mount or process" test -z "$left"
}
for p in $PROFILES; do run_profile "$p"; done
