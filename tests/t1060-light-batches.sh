#!/bin/sh
# t1060: light batches (docs/protocol.md section 6).  With poll 3600 s,
# every batch but the first is woken by results and is light: it lists
# only results/ and pending/.  (A wait for the poll would take an hour: the
# checks wait for events, and their bounds only catch that, or a hang.)
#  - the batch that tells a result archives the claim that ran it, so told
#    claims leave claimed/ trial by trial and the study ends with claimed/
#    empty and every trial file in the archive, without a full batch;
#  - a request still wakes a full batch at once (not after poll);
#  - a result whose claim is not under the name its worker, host and pid
#    give (a worker of another make) is told, its trial file is archived
#    as issued, and the claim left in claimed/ is archived as stale by the
#    next full batch (the timer's);
#  - a result that appears without a rename into results/ (link(2), which
#    wakes no batch) is told by the next batch, which lists results/.
. "${DEHBQ_SRC:-.}/tests/lib.sh"
plan 11
FEVALS=30
start() { # start NAME FEVALS POLL TRAINER-SLEEP: study + orchestrator (+ worker)
	mkspec "$T/$1.json" "$2" "{\"lease\": 7200, \"poll\": $3, \"prefetch\": 4}"
	"$B/dehbq" init "$T/$1" --spec "$T/$1.json" >/dev/null || exit 1
	[ "$4" = none ] || bg "$B/dehbq-worker" --study "$T/$1" --idle-exit 60 \
		--max-poll 0.2 -- sh -c "sleep $4; $TRAINER" 2>"$T/$1-w.log"
	bg "$B/dehbq-orchestrator" "$T/$1" 2>"$T/$1-orch.log"
	ORCH=$!
}
ntrial() { ls "$1"/archive/*/ | grep -c '^[0-9]*\.trial\.json$'; }

# A: claims archived as they are told, results told by light batches
# (poll 3600 s: a study that waited for the timer would take hours, and
# the 600 s bound only catches that, or a hang)
t0=$(now_s)
start a $FEVALS 3600 0.02
# the most files claimed/ holds while the study runs: one live claim, and
# a told one until its batch's moves are done
max=0
while [ ! -e "$T/a/FINISHED" ] && lt "$(since_s "$t0")" 600; do
	n=$(ls "$T/a/claimed" | wc -l)
	[ "$n" -gt "$max" ] && max=$n
	sleep 0.01
done
diag "(light) $FEVALS trials in $(since_s "$t0") s"
check "(light) the study of $FEVALS trials finishes without waiting for the timer (poll 3600 s)" \
	test -e "$T/a/FINISHED"
check "(light) told claims leave claimed/ batch by batch (at most $max there, not all $FEVALS)" test "$max" -le $((FEVALS / 3))
issued=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["counts"]["issued"])' "$T/a/FINISHED")
check "(light) every trial's claim is archived as its trial file ($(ntrial "$T/a") of $issued)" \
	test "$(ntrial "$T/a")" = "$issued"
check "(light) independent checker (--finished)" \
	python3 "$DEHBQ_SRC/tests/checkstudy.py" "$T/a" --finished

# B: a request is handled at once while results keep batches light
start b 400 3600 0.05
wait_for 300 sh -c "ls '$T/b/archive/0000' 2>/dev/null | grep -q result"
t0=$(now_s)
"$B/dehbq" stop "$T/b" >/dev/null 2>&1
wait_for 600 sh -c "! kill -0 $ORCH 2>/dev/null"
diag "(request) stop handled in $(since_s "$t0") s"
check "(request) stop is handled without waiting for the timer (poll 3600 s)" \
	sh -c "! kill -0 $ORCH 2>/dev/null && grep -q 'stopped by request\|stop requested' '$T/b-orch.log'"

# C: a claim under another name than its result's waits for a full batch
# (the timer's, poll 2 s); the study goes on meanwhile
play() { # play ROOT N [inplace]: claim and answer N trials as pid 111,
	# naming pid 222; inplace: write the result where it lies, no rename
	python3 - "$1" "$2" "${3:-}" >>"$T/c-play.log" 2>&1 <<'PY'
import json, os, sys, time
root, n, inplace = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "inplace"
wid = "abcdefabcdef"
done = 0
end = time.time() + 120
while done < n and time.time() < end:
    names = sorted(os.listdir(root + "/pending"))
    if not names:
        time.sleep(0.05)
        continue
    name = names[0]
    t = json.load(open(root + "/pending/" + name))
    claim = "%s@faketest.111.%s.json" % (t["id"], wid)
    os.rename(root + "/pending/" + name, root + "/claimed/" + claim)
    os.utime(root + "/claimed/" + claim)
    now = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())
    r = {"format": "dehbq-result/1", "id": t["id"], "study": t["study"],
         "attempt": t["attempt"], "status": "ok", "loss": 0.5, "cost": 1,
         "info": {}, "worker": wid, "host": "faketest", "pid": 222,
         "started": now, "finished": now, "wall_time": 0, "max_rss_kb": -1,
         "exit_code": 0, "signal": 0}
    if "token" in t:  # a worker copies its trial's token into its result
        r["token"] = t["token"]
    res = "%s.a%d.%s.json" % (t["id"], t["attempt"], wid)
    tmp = root + "/results/." + res + ".tmp"
    with open(tmp, "w") as f:
        json.dump(r, f)
    if inplace:  # the name appears by link(2): IN_CREATE, not IN_MOVED_TO
        os.link(tmp, root + "/results/" + res)
        os.unlink(tmp)
    else:
        os.rename(tmp, root + "/results/" + res)
    print("answered", t["id"], flush=True)
    done += 1
PY
}
start c 3 2 none
play "$T/c" 1
wait_for 120 test -e "$T/c/archive/0000/00000000.trial.json"
check "(other name) the told trial's file is archived as issued" \
	sh -c "test -e '$T/c/archive/0000/00000000.trial.json' && ! test -e '$T/c/FINISHED'"
play "$T/c" 2
wait_for 120 test -e "$T/c/FINISHED"
n=$(ls "$T/c/claimed" | wc -l)
check "(other name) the study finishes with claimed/ empty ($n left)" \
	test -e "$T/c/FINISHED" -a "$n" = 0
check "(other name) each trial file is archived ($(ntrial "$T/c") of 3)" \
	test "$(ntrial "$T/c")" = 3

# D: a result that appears without a rename into results/ (link(2): no
# IN_MOVED_TO) is not announced; light batches woken by the others do not
# see it, the timer's full batch (poll 2 s) tells it
start d 3 2 none
play "$T/d" 1 inplace
wait_for 120 test -e "$T/d/archive/0000/00000000.result.json"
check "(unannounced) a result linked into results/ is told by the next batch" \
	test -e "$T/d/archive/0000/00000000.result.json"
play "$T/d" 2
wait_for 120 test -e "$T/d/FINISHED"
check "(unannounced) independent checker (--finished)" \
	python3 "$DEHBQ_SRC/tests/checkstudy.py" "$T/d" --finished
check_no_leftovers
