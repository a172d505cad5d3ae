#!/bin/sh
# t1100: live trials (issue 35).  A trainer that only prints per-epoch
# lines, with no checkpoints, gets early stopping under asha-stop, with 4
# workers, the orchestrator killed -9 three times and a worker killed -9
# mid-trial.  What is checked does not depend on timing: every trial ends
# ok or stopped (none failed, none lost, none told twice), a stopped trial
# stopped within its fidelity at one of its own reported points, its
# progress and stop files are archived, and later, worse trials are
# stopped (losses grow with the trial id, so a rung sees a worse value
# after a better one whatever the order).  A stopped trial is no failure:
# max_failures_in_a_row 3 would hold the study and stop the workers if it
# were counted as one.
. "${DEHBQ_SRC:-.}/tests/lib.sh"
plan 13

fevals=24
write_space "$T/space.json"
cat >"$T/spec.json" <<SP
{"format": "dehbq-study/1", "space": "space.json",
 "fidelity": {"min": 1, "max": 27, "eta": 3}, "seed": 5,
 "termination": {"fevals": $fevals},
 "runtime": {"lease": 3, "poll": 0.1, "max_attempts": 5, "stop_grace": 1,
             "max_failures_in_a_row": 3}}
SP
"$B/dehbq" init "$T/s" --spec "$T/spec.json" --scheduler asha-stop \
	--searcher random >/dev/null || exit 1

# epochs 1..budget: loss = id + 1/epoch; a stopped trial exits at once
cat >"$T/train.sh" <<'TR'
#!/bin/sh
id=$((1${DEHBQ_TRIAL_ID} - 100000000))
e=1
while [ "$e" -le "$DEHBQ_BUDGET" ]; do
	awk -v i="$id" -v e="$e" 'BEGIN{printf "{\"fidelity\": %d, \"loss\": %.10g}\n", e, i + 1/e}'
	[ -e "$DEHBQ_STOP" ] && exit 0
	sleep 0.05
	e=$((e + 1))
done
awk -v i="$id" 'BEGIN{printf "{\"loss\": %.10g}\n", i + 1/27}'
TR
chmod +x "$T/train.sh"
for i in 1 2 3 4; do
	bg "$B/dehbq-worker" --study "$T/s" --idle-exit 60 --max-poll 0.2 -- \
		"$T/train.sh" 2>>"$T/workers.log"
done
# a fifth worker, killed -9 while its trainer runs
"$B/dehbq-worker" --study "$T/s" --max-poll 0.2 -- "$T/train.sh" \
	2>>"$T/workers.log" &
victim=$!
BG_PIDS="$BG_PIDS $victim"

# start an orchestrator as $o; one started right after a kill -9 exits
# 111 until the dead one's lease expires: start again until one runs
start_orch() {
	tries=0
	while [ $tries -lt 100 ]; do
		tries=$((tries + 1))
		"$B/dehbq-orchestrator" -q "$T/s" 2>>"$T/orch.log" &
		o=$!
		BG_PIDS="$BG_PIDS $o"
		sleep 0.3
		kill -0 $o 2>/dev/null && return 0
		wait $o
		[ $? = 111 ] || return 0
	done
	diag "no orchestrator would start: $(tail -1 "$T/orch.log")"
}

kills=0
for n in 3 9 15; do
	start_orch
	wait_for 120 sh -c "[ \$(ls '$T/s/archive'/*/*.result.json 2>/dev/null | wc -l) -ge $n ] || [ -e '$T/s/FINISHED' ]"
	if [ "$n" = 3 ]; then
		wait_for 60 sh -c "ls '$T/s/claimed' | grep -q '[.]$victim[.]'"
		kill -9 $victim 2>/dev/null
	fi
	kill -9 $o 2>/dev/null && kills=$((kills + 1))
	wait $o 2>/dev/null
done
start_orch
wait_for 300 test -e "$T/s/FINISHED"
diag "orchestrator kills: $kills"
check "the study finishes after the kills" test -e "$T/s/FINISHED"
check "independent checker: every trial told once, exact accounting, progress/ and stop/ empty" \
	python3 "$DEHBQ_SRC/tests/checkstudy.py" "$T/s" --finished
check "nothing quarantined" test "$(ls "$T/s/quarantine" | wc -l)" = 0

py_live() {
	python3 - "$T/s" "$1" <<'PY'
import glob, json, os, sys
root, what = sys.argv[1], sys.argv[2]
res = {}
for p in glob.glob(os.path.join(root, "archive/*/*.result.json")):
    r = json.load(open(p))
    res[int(r["id"])] = r
st = [r["status"] for r in res.values()]
stopped = [i for i, r in res.items() if r["status"] == "stopped"]
print("# statuses:", {s: st.count(s) for s in set(st)},
      "stopped:", sorted(stopped))
if what == "statuses":
    sys.exit(0 if set(st) <= {"ok", "stopped"} else 1)
if what == "some-stopped":
    sys.exit(0 if stopped else 1)
if what == "points":
    # a stopped trial's loss and fidelity are one of its archived points,
    # below its fidelity, and its stop file names a point too
    for i in stopped:
        r = res[i]
        sh = "%04d" % (i // 10000)
        pts = []
        for p in glob.glob(os.path.join(root, "archive", sh,
                                        "%08d.a*.progress.json" % i)):
            pts += [(q["fidelity"], q["loss"]) for q in json.load(open(p))["points"]]
        if (r["fidelity"], r["loss"]) not in pts or not r["fidelity"] < 27:
            print("# trial %d: %r not among its points" % (i, (r["fidelity"], r["loss"])))
            sys.exit(1)
        s = json.load(open(os.path.join(root, "archive", sh, "%08d.stop.json" % i)))
        if (s["fidelity"], s["loss"]) not in pts:
            print("# trial %d: the stop file's point is not its own" % i)
            sys.exit(1)
    sys.exit(0)
if what == "first-goes-on":
    # trial 0 has the best value at every rung: never stopped
    sys.exit(0 if res[0]["status"] == "ok" else 1)
PY
}
check "every result is ok or stopped: none failed" py_live statuses
check "the scheduler stopped worse trials" py_live some-stopped
check "a stopped trial's loss is its last point, below its fidelity; its stop file names a point" \
	py_live points
check "the best trial is never stopped" py_live first-goes-on
"$B/dehbq" export "$T/s" --csv "$T/out.csv" >/dev/null
check "the export has status stopped and the fidelity reached" \
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "status") s = i; if ($i == "reached") r = i } }
		NR > 1 && $s == "stopped" && $r + 0 < 27 && $r + 0 >= 1 { n++ }
		END { exit !(s && r && n > 0) }' "$T/out.csv"

"$B/dehbq" report "$T/s" --out "$T/r.html" >/dev/null 2>&1
check "the report draws the learning curves, stopped ones marked, and says what stopping saved" \
	sh -c "grep -q '<section id=\"curves\">' '$T/r.html' &&
	       grep -q 'evaluations stopped early. Training used' '$T/r.html' &&
	       grep -q 'stopping saved' '$T/r.html' &&
	       grep -q '<path stroke=\"#d62728\"' '$T/r.html'"

# what users see of a running trial: one more trial issued (extend, one
# orchestrator batch), claimed by hand with a progress file of two points
wait $o 2>/dev/null # the last orchestrator ends with the study
"$B/dehbq" extend "$T/s" --fevals $((fevals + 1)) >/dev/null
"$B/dehbq-orchestrator" -q --once "$T/s" 2>>"$T/orch.log"
p=$(ls "$T/s/pending" | head -1)
id=$(echo "$p" | cut -c4-11)
mv "$T/s/pending/$p" "$T/s/claimed/$id@h.1.0123456789ab.json"
cat >"$T/s/progress/$id.a1.0123456789ab.json" <<PG
{"format": "dehbq-progress/1", "id": "$id", "attempt": 1,
 "worker": "0123456789ab", "thinned": 0,
 "points": [{"fidelity": 1, "loss": 0.75}, {"fidelity": 4, "loss": 0.25}]}
PG
"$B/dehbq" trials "$T/s" --state claimed >"$T/out"
check "trials shows a running trial's latest loss, at the fidelity it reached" \
	grep -q "^$id claimed .* 0.25 at 4 " "$T/out"
"$B/dehbq" status "$T/s" >"$T/out"
check "status lists the running trials' latest intermediate results" \
	grep -q "trial $id attempt 1: loss 0.25 at fidelity 4 (2 points)" "$T/out"
"$B/dehbq" show "$T/s" "$id" >"$T/out"
check "show prints a running trial's curve, one point per line" \
	sh -c "grep -q '^curve of attempt 1 (worker 0123456789ab): 2 points$' '$T/out' &&
	       grep -q '^1 0.75 -$' '$T/out' && grep -q '^4 0.25 -$' '$T/out'"

# a progress file too big, or whose content is not its name's, goes to
# quarantine; the orchestrator goes on
head -c 1100000 /dev/zero | tr '\0' ' ' >"$T/s/progress/$id.a1.bbbbbbbbbbbb.json"
sed 's/"attempt": 1/"attempt": 2/' "$T/s/progress/$id.a1.0123456789ab.json" \
	>"$T/s/progress/$id.a1.cccccccccccc.json"
"$B/dehbq-orchestrator" -q --once "$T/s" 2>>"$T/orch.log"
rc=$?
check "an oversized or forged progress file is quarantined, the batch goes on" \
	sh -c "test $rc = 0 && test -e '$T/s/quarantine/progress.$id.a1.bbbbbbbbbbbb.json' &&
	       test -e '$T/s/quarantine/progress.$id.a1.cccccccccccc.json' &&
	       test -e '$T/s/progress/$id.a1.0123456789ab.json'"
