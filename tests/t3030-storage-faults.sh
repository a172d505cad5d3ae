#!/bin/bash
# t3030-storage-faults.sh - issue 7 item 7: storage faults.
#  (a) ENOSPC for real: the study lives on a tiny tmpfs (root only); mid-study
#      a ballast file fills it.  The orchestrator keeps running and logs
#      storage errors; it is kill -9ed while the disk is full and restarted:
#      the newest snapshot still parses and loads, and so does every staged
#      trial file its redo list names (staging/ is written in place, see
#      docs/protocol.md section 3); no empty or partial file is ever
#      published in pending/ claimed/ results/ archive/ state/; once
#      the ballast is removed the study completes (checkstudy --finished).
#  (b) EIO, ENOSPC, EMFILE and short writes injected into the orchestrator's
#      atomic writer (DEHBQ_TEST_FAULTS), with kill -9 restarts: the same
#      assertions plus checkstudy --finished.
. "${DEHBQ_SRC:-.}/tests/lib.sh"
trap 'umount_fs; cleanup' EXIT
plan 14

FEVALS=150
KILLS=3
# CAP: seconds after which (b) counts as hung (it takes well under a minute
# here: the cap is no speed requirement)
CAP=900
if [ "${DEHBQ_CHAOS:-}" = long ]; then
	FEVALS=800
	KILLS=20
	CAP=3600
fi
MNT=
umount_fs() {
	if [ -n "$MNT" ] && grep -q " $MNT " /proc/mounts; then
		for p in $BG_PIDS; do kill -9 "$p" 2>/dev/null; done
		wait 2>/dev/null
		umount "$MNT" 2>/dev/null || umount -l "$MNT"
	fi
}
# scan_bad DIR: print every published file that is empty or does not
# parse as JSON (dotfiles are temporaries and are skipped, as every reader
# does; .note/.reason files are text)
SCAN=$T/scan.py
cat >"$SCAN" <<'PY'
import json, os, sys
root = sys.argv[1]
bad = 0
n = 0
for d in ("pending", "claimed", "results", "archive", "state"):
    for dp, dns, fns in os.walk(os.path.join(root, d)):
        for f in fns:
            if f.startswith(".") or f.endswith((".note", ".reason")) or f == "clock":
                continue
            p = os.path.join(dp, f)
            try:
                with open(p, "rb") as fh:
                    data = fh.read()
                if not data:
                    raise ValueError("empty")
                json.loads(data)
                n += 1
            except FileNotFoundError:
                pass
            except Exception as e:
                bad += 1
                print("BAD %s: %s" % (p, e))
for f in ("study.json", "FINISHED"):
    p = os.path.join(root, f)
    if os.path.exists(p):
        try:
            json.load(open(p))
        except Exception as e:
            bad += 1
            print("BAD %s: %s" % (p, e))
print("scanned %d files, %d bad" % (n, bad))
sys.exit(1 if bad else 0)
PY
scan_loop() { # scan every 0.3 s until $T/stop-scan exists; log bad files
	while [ ! -e "$T/stop-scan" ]; do
		python3 "$SCAN" "$1" 2>/dev/null | grep '^BAD' >>"$T/bad.log"
		sleep 0.3
	done
}
# with the orchestrator dead: the newest snapshot parses, and so does every
# staging/ file its redo list is about to publish.  Before the first
# snapshot (storage faults can hold it back for seconds) nothing may be
# published.
newest_snapshot_loads() {
	python3 - "$1" <<'PY'
import glob, json, os, sys
root = sys.argv[1]
snaps = sorted(glob.glob(root + "/state/snapshot-*.json"))
if not snaps:
    published = [f for d in ("pending", "claimed", "results")
                 for f in os.listdir(os.path.join(root, d)) if not f.startswith(".")]
    sys.exit("no snapshot, yet published: %s" % published[:3] if published else 0)
snap = json.load(open(snaps[-1]))
for a in snap.get("redo", []):
    if a.get("op") == "move" and a["from"].startswith("staging/"):
        try:
            json.load(open(os.path.join(root, a["from"])))
        except FileNotFoundError:
            pass
PY
}
start_workers() {
	for _ in 1 2 3; do
		bg "$B/dehbq-worker" --study "$1" --idle-exit 120 --max-poll 0.3 -- \
			sh -c "sleep 0.05; $TRAINER" 2>>"$T/workers-$2.log"
	done
}

# ---- (a) a real full disk --------------------------------------------------
t0=$(date +%s)
if [ "$(id -u)" != 0 ]; then
	for _ in $(seq 7); do skip "(a) mounting a tmpfs needs root"; done
else
	MNT=$T/fs
	mkdir -p "$MNT"
	if ! mount -t tmpfs -o size=24m,mode=0755 tmpfs "$MNT"; then
		for _ in $(seq 7); do skip "(a) mount -t tmpfs failed"; done
		MNT=
	fi
fi
if [ -n "$MNT" ]; then
	S=$MNT/s
	mkspec "$T/spec.json" $FEVALS '{"lease": 4, "poll": 0.1, "max_attempts": 10}'
	"$B/dehbq" init "$S" --spec "$T/spec.json" >/dev/null || exit 1
	rm -f "$T/stop-scan"
	bg scan_loop "$S"
	bg "$B/dehbq-orchestrator" "$S" 2>>"$T/orch-a.log"
	orch=$!
	start_workers "$S" a
	wait_for 60 sh -c "[ \$(ls '$S'/archive/0000 2>/dev/null | grep -c result) -ge 20 ]"
	# fill the disk
	dd if=/dev/zero of="$MNT/ballast" bs=64k 2>/dev/null
	df -k "$MNT" | tail -1 | awk '{print "# disk full: " $4 " KiB free"}'
	# Workers hold their claims and retry writing their results; the
	# orchestrator meets the full disk whenever it has something to write.
	wait_for 15 sh -c "grep -q -i 'storage error\|no space' '$T/orch-a.log' '$T/workers-a.log'"
	sleep 2
	check "(a) the orchestrator keeps running on a full disk" kill -0 $orch
	nerr=$(grep -c -i 'no space\|storage' "$T/orch-a.log")
	nwret=$(grep -c 'retrying in' "$T/workers-a.log")
	diag "(a) storage-error log lines while full: orchestrator $nerr, worker result retries $nwret"
	check "(a) the full disk is logged, not silent" test $((nerr + nwret)) -gt 0
	kill -9 $orch
	wait $orch 2>/dev/null
	check "(a) after kill -9 on a full disk, the newest snapshot and its staged trials parse" newest_snapshot_loads "$S"
	bg "$B/dehbq-orchestrator" "$S" 2>>"$T/orch-a2.log"
	orch=$!
	sleep 3
	alive=$(kill -0 $orch 2>/dev/null && echo yes || echo no)
	diag "(a) restarted orchestrator on the full disk alive after 3 s: $alive; its log: $(grep -v ' I ' "$T/orch-a2.log" | tail -1 | cut -c1-160)"
	rm -f "$MNT/ballast"
	# dehbq-worker treats ENOSPC on its own writes as a system failure and
	# exits 111 (its trial then goes back through lease expiry); a batch
	# system would start new workers, so do we
	wex=$(grep -c 'exiting: system failure' "$T/workers-a.log")
	diag "(a) workers that exited (111, system failure) on ENOSPC: $wex of 3"
	start_workers "$S" a
	if [ $alive = no ]; then
		bg "$B/dehbq-orchestrator" "$S" 2>>"$T/orch-a2.log"
		orch=$!
	fi
	wait_for 600 test -e "$S/FINISHED"
	check "(a) the study completes once space returns" test -e "$S/FINISHED"
	check "(a) the restart resumed from the last good snapshot" grep -q 'resumed from snapshot' "$T/orch-a2.log"
	touch "$T/stop-scan"
	sleep 0.5
	python3 "$SCAN" "$S" >>"$T/bad.log"
	nbad=$(grep -c '^BAD' "$T/bad.log")
	diag "(a) $(tail -1 "$T/bad.log"); empty/partial files seen by the 0.3 s scanner during the run: $nbad"
	grep '^BAD' "$T/bad.log" | sort -u | head -5 | sed 's/^/#   /'
	check "(a) no empty or partial file was ever published" test "$nbad" = 0
	diag "(a) worker warnings/errors: $(grep -c ' [EW] ' "$T/workers-a.log"); quarantined: $(ls "$S/quarantine" | grep -vc '\.reason$'); (a) took $(($(date +%s) - t0))s"
	check "(a) independent checker (--finished)" python3 "$DEHBQ_SRC/tests/checkstudy.py" "$S" --finished
	for p in $BG_PIDS; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	BG_PIDS=
	umount_fs
	MNT=
fi

# ---- (b) injected faults ---------------------------------------------------
[ "${T3030_ONLY:-}" = a ] && exit 0
t0=$(date +%s)
S=$T/s2
FAULTS="write=ENOSPC:0.1,fsync=EIO:0.05,short=0.5,rename=EIO:0.03,open=EMFILE:0.1"
mkspec "$T/spec.json" $FEVALS '{"lease": 4, "poll": 0.1, "max_attempts": 10}'
"$B/dehbq" init "$S" --spec "$T/spec.json" >/dev/null || exit 1
rm -f "$T/stop-scan" "$T/bad.log"
touch "$T/bad.log"
bg scan_loop "$S"
start_workers "$S" b
k=0
restarts=0
while [ ! -e "$S/FINISHED" ] && [ $(($(date +%s) - t0)) -lt $CAP ]; do
	DEHBQ_TEST_FAULTS=$FAULTS "$B/dehbq-orchestrator" "$S" 2>>"$T/orch-b.log" &
	orch=$!
	BG_PIDS="$BG_PIDS $orch"
	restarts=$((restarts + 1))
	if [ $k -lt $KILLS ]; then
		sleep "$(awk -v s=$k 'BEGIN{srand(s); printf "%.2f", 1 + rand() * 2}')"
		if kill -9 $orch 2>/dev/null; then
			k=$((k + 1))
			newest_snapshot_loads "$S" >>"$T/snapbad.why" 2>&1 ||
				echo "snapshot unreadable after kill $k" >>"$T/snapbad"
		fi
	fi
	wait $orch 2>/dev/null
	rc=$?
	if [ $rc != 0 ] && [ $rc != 137 ]; then
		echo "exit $rc" >>"$T/orch-b-exits"
		grep ' [EW] ' "$T/orch-b.log" | tail -1 | cut -d' ' -f4- | cut -c1-150 >>"$T/orch-b-why"
	fi
done
check "(b) the study completes under injected faults ($k kill -9, $restarts starts)" test -e "$S/FINISHED"
check "(b) the newest snapshot and its staged trials parsed after every kill" test ! -e "$T/snapbad"
[ -e "$T/snapbad" ] && cat "$T/snapbad" "$T/snapbad.why" | sed 's/^/# /'
nerr=$(grep -c ' [EW] ' "$T/orch-b.log")
diag "(b) DEHBQ_TEST_FAULTS=$FAULTS"
diag "(b) orchestrator warnings/errors logged: $nerr; non-kill exits: $(cat "$T/orch-b-exits" 2>/dev/null | sort | uniq -c | tr '\n' ' ')"
[ -s "$T/orch-b-why" ] && sed 's/^/# (b) last error before a non-kill exit: /' "$T/orch-b-why"
grep ' [EW] ' "$T/orch-b.log" | sed 's/^[^ ]* [^ ]* [EW] //; s/[0-9]\{8\}/N/g; s/\.[0-9]*\.[0-9a-f]*\.tmp/.TMP/g' | cut -c1-90 | sort | uniq -c | sort -rn | head -5 | sed 's/^/#   /'
check "(b) the injected faults were hit and logged" test "$nerr" -gt 0
touch "$T/stop-scan"
sleep 0.5
python3 "$SCAN" "$S" >>"$T/bad.log"
nbad=$(grep -c '^BAD' "$T/bad.log")
diag "(b) $(tail -1 "$T/bad.log"); empty/partial files seen during the run: $nbad"
grep '^BAD' "$T/bad.log" | sort -u | head -5 | sed 's/^/#   /'
check "(b) no empty or partial file was ever published" test "$nbad" = 0
check "(b) independent checker (--finished)" python3 "$DEHBQ_SRC/tests/checkstudy.py" "$S" --finished
nq=$(ls "$S/quarantine" | grep -vc '\.reason$')
diag "(b) files quarantined: $nq; took $(($(date +%s) - t0))s"
for r in "$S"/quarantine/*.reason; do
	[ -e "$r" ] && diag "(b) quarantined ${r##*/}: $(head -c 300 "$r" | tr '\n' ' ')"
done
# which snapshot each start resumed from, and any it passed over: a trial
# "never issued" means a start resumed from an older snapshot than the
# newest durable one
if [ "$nq" != 0 ]; then
	grep -h 'skipped\|resumed from snapshot\|started' "$T/orch-b.log" |
		tail -8 | cut -c1-200 | sed 's/^/# (b) start: /'
fi
check "(b) nothing quarantined (every published file was whole)" test "$nq" = 0

check_no_leftovers
