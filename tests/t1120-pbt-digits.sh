#!/bin/sh
# t1120: population based training on a real trainer that checkpoints
# (examples/pbtdigits.py: sklearn's SGDClassifier on digits, partial_fit),
# with 4 dehbq-workers side by side and kill -9s (issue 36, "done when").
#  - the orchestrator is killed at 3 planned points (DEHBQ_TEST_CRASH_AFTER:
#    each dies at its k-th durable change, exit 137) and restarted;
#  - one worker is killed (SIGKILL, by its own trainer wrapper, as a lost
#    node would be) while it holds trial 5's first attempt; the claim's
#    lease (2 s) expires and the segment runs again.  When that happens
#    depends on speed; the checks do not;
#  - the study, which has no limit (pbt needs none), ends by itself with
#    every member at the maximum fidelity, and the checker accepts it;
#  - every segment started from its parent trial's checkpoint (the trainer
#    reports the trial that wrote the checkpoint it loaded), so every
#    exploit started from the donor's checkpoint, never the member's own
#    (Ray's classic bug, ray PR #28509); a first segment from scratch.
. "${DEHBQ_SRC:-.}/tests/lib.sh"
plan 5

if ! py_with sklearn numpy; then
	for i in 1 2 3 4 5; do skip "no python3 with scikit-learn (tried:$PY_TRIED; apt-get install -y python3-sklearn)"; done
	exit 0
fi
cat >"$T/spec.json" <<SP
{"format": "dehbq-study/1", "space": "$DEHBQ_SRC/examples/space_pbtdigits.json",
 "fidelity": {"min": 1, "max": 12, "eta": 3}, "seed": 11,
 "optimizer": {"name": "pbt", "searcher": "random", "population_size": 4,
               "perturbation_interval": 3},
 "runtime": {"lease": 2, "poll": 0.1}}
SP
S=$T/s
"$B/dehbq" init "$S" --spec "$T/spec.json" >"$T/init.out" 2>&1 ||
	diag "init: $(cat "$T/init.out")"
cat >"$T/trainer.sh" <<TR
#!/bin/sh
if [ "\$DEHBQ_TRIAL_ID" = 00000005 ] && [ "\$DEHBQ_ATTEMPT" = 1 ] &&
	mkdir "$T/killed" 2>/dev/null; then
	kill -9 \$PPID
	exit 9
fi
exec "$PY" "$DEHBQ_SRC/examples/pbtdigits.py"
TR
chmod +x "$T/trainer.sh"
for w in 1 2 3 4; do
	bg "$B/dehbq-worker" --study "$S" --idle-exit 600 -- "$T/trainer.sh" \
		2>>"$T/workers.log"
done
kills=0
for k in 2 4 3; do
	DEHBQ_TEST_CRASH_AFTER=$k "$B/dehbq-orchestrator" -q "$S" 2>>"$T/orch.log"
	rc=$?
	[ $rc = 137 ] && kills=$((kills + 1)) || diag "orchestrator to crash after change $k exited $rc"
done
bg "$B/dehbq-orchestrator" -q "$S" 2>>"$T/orch.log"
wait_for 600 test -e "$S/FINISHED"
check "the study finishes after 3 planned orchestrator kills" \
	test -e "$S/FINISHED" -a $kills = 3
check "the checker accepts it" \
	sh -c "python3 '$DEHBQ_SRC/tests/checkstudy.py' '$S' --finished >'$T/chk' 2>&1 ||
	       { cat '$T/chk' >&2; false; }"
"$B/dehbq" export "$S" --csv "$T/all.csv" 2>/dev/null
export_check() {
	python3 - "$T/all.csv" "$1" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ok = [r for r in rows if r["status"] == "ok"]
by = {r["id"]: r for r in ok}
what = sys.argv[2]
if what == "killed":
    seg = [r for r in rows if r["id"] == "00000005"]
    att = sorted(int(r["attempt"]) for r in seg)
    print("# trial 5: attempts %s, statuses %s" % (att, [r["status"] for r in seg]))
    # the killed attempt left no result (its stale claim is archived)
    assert att and att[-1] >= 2 and seg[-1]["status"] == "ok"
elif what == "ends":
    done = {r["state.member"] for r in ok if float(r["fidelity"]) == 12}
    print("# members at 12: %s; ok segments: %d" % (sorted(done), len(ok)))
    assert done == {"0", "1", "2", "3"}
else:
    ex = 0
    for r in ok:
        got = int(float(r["info.from_trial"]))
        if not r["parent"]:
            assert got == -1, r
            continue
        assert got == int(r["parent"]), (r["id"], got, r["parent"])
        p = by[r["parent"]]
        if int(r["state.donor"]) >= 0:
            ex += 1
            assert p["state.member"] == r["state.donor"] != r["state.member"], r
        else:
            assert p["state.member"] == r["state.member"], r
    print("# %d segments checked, %d exploits" % (len(ok), ex))
    assert ex > 0
PY
}
killed() { test -d "$T/killed" && export_check killed; }
check "trial 5's worker was killed; the trial ran again and ended ok" killed
check "every member trained to fidelity 12; the study ended by itself" \
	export_check ends
check "every segment started from its parent's checkpoint: an exploit from the donor's, never the member's own" \
	export_check lineage
