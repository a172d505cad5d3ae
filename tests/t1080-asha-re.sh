#!/bin/sh
# t1080: the optimisers added on the optim/ interface run end to end:
# init, orchestrator and workers, status, export.  ASHA's promotions
# continue from the parent's work directory (examples/mlpdigits.py resumes
# its checkpoint); RE runs at the maximum fidelity and ages its population.
# A failed ASHA trial is requeued and re-run through its opaque state.
. "${DEHBQ_SRC:-.}/tests/lib.sh"
plan 21

"$B/dehbq" init --help >"$T/help" 2>&1
check "init --help lists every optimiser with its settings and defaults" \
	sh -c "grep -q '^  bohb .*KDE' '$T/help' && grep -q '\"top_n_percent\":15' '$T/help' && grep -q '\"population_size\":20' '$T/help' && grep -q '^  asha ' '$T/help'"

# ---- RE on the deterministic trainer
mkspec "$T/spec.json" 60
"$B/dehbq" init "$T/re" --spec "$T/spec.json" --optimizer re >"$T/out" 2>&1
check "init --optimizer re says every trial runs at the maximum fidelity" \
	grep -q 'every trial runs at fidelity 9 (optimizer re)' "$T/out"
grep -q '"population_size":[[:space:]]*20' "$T/re/study.json" &&
	grep -q '"sample_size":[[:space:]]*10' "$T/re/study.json"
check "study.json records RE's settings with their defaults" test $? = 0
bg "$B/dehbq-orchestrator" "$T/re" 2>"$T/re.orch.log"
for i in 1 2 3; do
	bg "$B/dehbq-worker" --study "$T/re" --idle-exit 20 -- sh -c "$TRAINER" 2>>"$T/re.workers.log"
done
wait_for 60 test -e "$T/re/FINISHED"
check "an RE study finishes with 3 workers" test -e "$T/re/FINISHED"
check "... and the independent checker accepts it" \
	python3 "$DEHBQ_SRC/tests/checkstudy.py" "$T/re" --finished
"$B/dehbq" export "$T/re" --csv "$T/re.csv" 2>/dev/null
check "export writes a row per trial, all at fidelity 9" \
	sh -c "test \$(tail -n +2 '$T/re.csv' | wc -l) = 60 && test \$(tail -n +2 '$T/re.csv' | cut -d, -f4 | sort -u) = 9"

# A snapshot of dehbq 0.3 (dehbq-snapshot/1, no optimiser format) is
# refused with one line and left where it is, never misread
snap=$(ls "$T/re/state"/snapshot-*.json | tail -1)
cp -R "$T/re" "$T/old"
rm -f "$T/old/FINISHED"
osnap="$T/old/state/${snap##*/}"
python3 - "$osnap" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["format"] = "dehbq-snapshot/1"
s["engine"] = s.pop("optimizer")["state"]
json.dump(s, open(sys.argv[1], "w"))
PY
ls "$T/old/state"/snapshot-*.json | grep -v "${snap##*/}" | xargs rm -f
"$B/dehbq-orchestrator" --once "$T/old" 2>"$T/old.err"
rc=$?
check "an orchestrator refuses a dehbq 0.3 snapshot: exit 100, one line naming it" \
	sh -c "test $rc = 100 && grep -q 'written by dehbq 0.3 or older (dehbq-snapshot/1)' '$T/old.err' && grep -q '${snap##*/}' '$T/old.err'"
check "... and leaves it in place, not quarantined" \
	sh -c "test -e '$osnap' && test -z \"\$(ls '$T/old/quarantine')\""

# ---- ASHA: a failing first trial is requeued and re-run
mkspec "$T/spec2.json" 40 '{"lease": 5, "poll": 0.1, "max_attempts": 1}'
"$B/dehbq" init "$T/as" --spec "$T/spec2.json" --optimizer asha >"$T/out" 2>&1
check "init --optimizer asha describes the rungs" \
	grep -q 'asha: new configurations (searcher random) start at fidelity 1; the best 1/3 of each rung are promoted' "$T/out"
bg "$B/dehbq-orchestrator" "$T/as" 2>"$T/as.orch.log"
FAILFIRST='if [ "$DEHBQ_TRIAL_ID" = 00000000 ] && [ ! -e "$DEHBQ_STUDY/.failed-once" ]; then : >"$DEHBQ_STUDY/.failed-once"; exit 3; fi; '
for i in 1 2; do
	bg "$B/dehbq-worker" --study "$T/as" --idle-exit 20 -- sh -c "$FAILFIRST$TRAINER" 2>>"$T/as.workers.log"
done
wait_for 60 test -e "$T/as/FINISHED"
check "an ASHA study finishes with 2 workers" test -e "$T/as/FINISHED"
"$B/dehbq" status "$T/as" >"$T/as.status" 2>&1
"$B/dehbq" export "$T/as" --csv "$T/as.csv" 2>/dev/null
check "ASHA promoted configurations: rungs at fidelities 1, 3 and 9" \
	sh -c "for f in 1 3 9; do tail -n +2 '$T/as.csv' | cut -d, -f4 | grep -qx \$f || exit 1; done"
python3 - "$T/as" <<'PY' >"$T/as.promo" 2>&1
import glob, json, sys
n = 0
for p in glob.glob(sys.argv[1] + "/archive/*/*.trial.json"):
    t = json.load(open(p))
    if t["kind"] == "promotion":
        st = json.loads(t["optimizer"])
        parent = json.load(open(glob.glob(sys.argv[1] + "/archive/*/%s.trial.json" % t["parent"])[0]))
        assert json.loads(parent["optimizer"]) == st, (t, parent)
        assert parent["vector"] == t["vector"], p
        assert parent["fidelity"] < t["fidelity"], p
        n += 1
assert n > 0
print("promotions", n)
PY
check "every promotion names its parent, the same configuration and vector, one rung lower" test $? = 0
python3 - "$T/as" <<'PY' >"$T/as.hist" 2>&1
import glob, json, sys
d = sys.argv[1]
snap = json.load(open(sorted(glob.glob(d + "/state/snapshot-*"))[-1]))
st = snap["optimizer"]["state"]
assert sorted(st) == ["configs", "search", "searcher"], st  # bounded: no results
assert st["searcher"] == "random" and sorted(st["search"]) == ["rng"], st
h = snap["history"]
text = open(d + "/state/" + h["file"]).read()
assert len(text.encode()) == h["bytes"], (len(text), h)
recs = [json.loads(l) for l in text.splitlines()]
done = snap["optimizer"]["books"]["told"]
assert len(recs) == done == snap["optimizer"]["books"]["history"], (len(recs), done)
print("history records", len(recs))
PY
check "ASHA's snapshot holds only its count and its searcher's rng; its results are the history file's records" test $? = 0
# bytes beyond what the snapshot names (a crash between append and
# snapshot) are never read: a resume copies exactly the named bytes
hf=$(ls "$T/as/state"/history-*.jsonl | tail -1)
echo '{"torn": ' >>"$hf"
"$B/dehbq-orchestrator" --once "$T/as" 2>>"$T/as.orch.log"
check "a torn record beyond the snapshot's length is ignored at resume" \
	sh -c "! grep -q torn \$(ls '$T'/as/state/history-*.jsonl | tail -1) && ! grep -q ' E ' '$T/as.orch.log'"
cp -R "$T/as" "$T/as2"
rm -f "$T/as2"/state/history-*.jsonl
"$B/dehbq-orchestrator" --once "$T/as2" 2>"$T/as2.err"
rc=$?
check "without its history file the study is refused, never started over, its snapshots kept" \
	sh -c "test $rc = 100 && grep -q 'history-.*No such file' '$T/as2.err' && grep -q 'refusing to start over' '$T/as2.err' && ls '$T'/as2/state/snapshot-* >/dev/null && test -z \"\$(ls '$T/as2/quarantine')\""
"$B/dehbq" requeue "$T/as" 0 >/dev/null 2>&1
"$B/dehbq-orchestrator" --once "$T/as" 2>>"$T/as.orch.log"
check "a requeue of a finished study's failed trial removes FINISHED" test ! -e "$T/as/FINISHED"
"$B/dehbq-worker" --study "$T/as" --idle-exit 2 --max-trials 1 -- sh -c "$TRAINER" 2>>"$T/as.workers.log"
"$B/dehbq-orchestrator" --once "$T/as" 2>>"$T/as.orch.log"
check "the failed trial was re-run through its opaque state, and the study finished again" \
	sh -c "grep -q '\"status\":[[:space:]]*\"ok\"' '$T'/as/archive/0000/00000000.result.json && test -e '$T'/as/archive/0000/00000000.a1.result.json && test -e '$T'/as/FINISHED"

# ---- ASHA with examples/mlpdigits.py: promotions resume the checkpoint
if ! py_with sklearn; then
	for i in 1 2 3; do
		skip "no python3 with sklearn (tried:$PY_TRIED; apt-get install python3-sklearn)"
	done
else
	"$B/dehbq" init "$T/md" --space "$DEHBQ_SRC/examples/space_mlpdigits.json" \
		--min-budget 1 --max-budget 9 --fevals 24 --optimizer asha >/dev/null 2>&1
	bg "$B/dehbq-orchestrator" "$T/md" 2>"$T/md.orch.log"
	for i in 1 2; do
		bg "$B/dehbq-worker" --study "$T/md" --idle-exit 30 -- "$PY" "$DEHBQ_SRC/examples/mlpdigits.py" \
			--config {config} --budget {budget} --parent-workdir {parent_workdir} 2>>"$T/md.workers.log"
	done
	wait_for 240 test -e "$T/md/FINISHED"
	check "an ASHA study of mlpdigits.py finishes" test -e "$T/md/FINISHED"
	python3 - "$T/md" <<'PY' >"$T/md.resumed" 2>&1
import glob, json, sys
n = 0
for p in glob.glob(sys.argv[1] + "/archive/*/*.result.json"):
    r = json.load(open(p))
    info = r.get("info") or {}
    t = json.load(open(p.replace(".result.json", ".trial.json")))
    if t["kind"] == "promotion":
        assert info.get("resumed_from"), (p, info)
        assert info["trained_epochs"] < info["epochs"], (p, info)
        n += 1
assert n > 0
print("resumed", n)
PY
	check "every promotion resumed its parent's checkpoint and trained only the missing epochs" test $? = 0
	"$B/dehbq" status "$T/md" >"$T/md.status" 2>&1
	check "status of the finished study shows the best at the maximum fidelity" \
		grep -q 'at max fidelity' "$T/md.status"
fi
check_no_leftovers
