#!/bin/sh
# t0180: transfer from earlier studies: init --transfer-from studies and a
# JSON-lines or CSV file, frozen into state/transfer.jsonl; a cts study runs on
# it, status shows the tasks and the prior's RMSE; bad imports get one line
# naming the file, the row and the field, and create nothing; cts without
# earlier results is refused; kill -9 and deterministic resume hold.
. "${DEHBQ_SRC:-.}/tests/lib.sh"
plan 32

mkspec "$T/spec.json" 30 '{"lease": 5, "poll": 0.05}'
# cts with a short prior fit (the sanitizers make the full one slow)
sed 's/"seed": 7,/"seed": 7, "optimizer": {"name": "cts", "prior_steps": 150},/' \
	"$T/spec.json" >"$T/spec_cts.json"
for sd in a:1 b:2; do
	s=${sd%:*}
	"$B/dehbq" init "$T/$s" --spec "$T/spec.json" --optimizer random \
		--seed "${sd#*:}" --name "task-$s" >/dev/null 2>&1
	bg "$B/dehbq-orchestrator" "$T/$s" 2>>"$T/orch.log"
	"$B/dehbq-worker" --study "$T/$s" --idle-exit 60 -- sh -c "$TRAINER" 2>>"$T/w.log"
	wait_for 30 test -e "$T/$s/FINISHED"
done
check "two earlier studies finish" test -e "$T/a/FINISHED" -a -e "$T/b/FINISHED"

# a JSON-lines import: two tasks, one with fidelities (only its top counts)
cat >"$T/old.jsonl" <<'EOF'
{"task": "old1", "x": 0.25, "layers": 2, "opt": "adam", "loss": 0.1}
{"task": "old1", "x": 0.75, "layers": 6, "opt": "sgd", "loss": 0.6}
{"task": "old2", "x": 0.3, "layers": 1, "opt": "adam", "loss": 0.4, "fidelity": 3}

{"task": "old2", "x": 0.3, "layers": 1, "opt": "adam", "loss": 0.05, "fidelity": 9}
{"task": "old2", "x": 0.9, "layers": 8, "opt": "sgd", "loss": 0.7, "fidelity": 9}
EOF
"$B/dehbq" init "$T/c" --spec "$T/spec_cts.json" \
	--transfer-from "$T/a" --transfer-from "$T/b" \
	--transfer-from "$T/old.jsonl" >"$T/c.out" 2>&1
check "init --transfer-from takes two studies and a .jsonl file" \
	grep -q 'transfer: 4 earlier tasks (task-a: 30, task-b: 30, old1: 2, old2: 2 results)' "$T/c.out"
check "the imported results are frozen in state/transfer.jsonl, in the new space's vectors" \
	python3 - "$T/c/state/transfer.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) == 64, len(rows)
assert [r["task"] for r in rows[60:]] == ["old1", "old1", "old2", "old2"]
assert all(len(r["x"]) == 3 and all(0 <= u <= 1 for u in r["x"]) for r in rows)
assert [r["loss"] for r in rows[62:]] == [0.05, 0.7]   # fidelity 9 only
PY
mv "$T/a" "$T/a.moved" # the new study never reads the old one again
bg "$B/dehbq-orchestrator" "$T/c" 2>"$T/c.orch.log"
bg "$B/dehbq-worker" --study "$T/c" --idle-exit 60 -- sh -c "$TRAINER" 2>>"$T/w.log"
wait_for 60 test -e "$T/c/FINISHED"
check "a cts study finishes (the earlier study moved away meanwhile)" test -e "$T/c/FINISHED"
check "... and the independent checker accepts it" \
	python3 "$DEHBQ_SRC/tests/checkstudy.py" "$T/c" --finished
"$B/dehbq" status "$T/c" >"$T/c.status" 2>&1
check "status shows the earlier tasks and the prior's RMSE" \
	sh -c "grep -q '^transfer: 4 earlier tasks, 64 results' '$T/c.status' && grep -q 'prior RMSE on this study.s results: [0-9.]*' '$T/c.status'"
check "export marks every cts proposal as drawn from the prior" \
	sh -c "test \$('$B/dehbq' export '$T/c' --csv - 2>/dev/null | cut -d, -f5 | grep -c '^prior$') = 30"
mv "$T/a.moved" "$T/a"

# a task unlike the earlier ones: losses that scramble the trainer's
sed 's/"fevals": 30/"fevals": 20/' "$T/spec_cts.json" >"$T/spec_u.json"
"$B/dehbq" init "$T/u" --spec "$T/spec_u.json" --transfer-from "$T/a" \
	--transfer-from "$T/b" >/dev/null 2>&1
bg "$B/dehbq-orchestrator" "$T/u" 2>"$T/u.orch.log"
"$B/dehbq-worker" --study "$T/u" --idle-exit 60 -- sh -c \
	'awk -v x="$DEHBQ_P_X" -v l="$DEHBQ_P_LAYERS" "BEGIN{v = x * 7919.7 + l * 104.729; printf \"{\\\"loss\\\": %.6f}\\n\", v - int(v)}"' \
	2>>"$T/w.log"
wait_for 30 test -e "$T/u/FINISHED"
"$B/dehbq" status "$T/u" >"$T/u.status" 2>&1
check "a task unlike the earlier ones: status shows an RMSE above 1, and says so" \
	sh -c "grep -q 'prior RMSE on this study.s results: [1-9]' '$T/u.status' && grep -q 'warning: above 1' '$T/u.status'"
# the report's transfer section (issue 39), in a real browser: the earlier
# tasks and their sizes, the prior's RMSE with its warning, the trials the
# prior proposed
"$B/dehbq" report "$T/u" -o "$T/u.html" >/dev/null 2>&1
cr --dump-dom "file://$T/u.html" >"$T/u.dom" 2>/dev/null
check "report: a transfer section with the 2 tasks and their 30 results each, the RMSE and its warning, the prior's 20 trials (Chromium's DOM)" \
	python3 - "$T/u.dom" <<'PY'
import re, sys
d = open(sys.argv[1]).read()
sec = d.split('<section id="transfer"')[1].split("</section>")[0]
rows = re.findall(r"<tr><td>([^<]*)</td><td>(\d+)</td></tr>", sec)
assert rows == [("task-a", "30"), ("task-b", "30")], rows
assert re.search(r"prior RMSE on this study.s results: [1-9]", sec), sec
assert "warning: above 1" in sec
assert re.search(r'class="prior">20<', sec), sec
PY

# bad imports: one line naming the file, the row and the field; no study
bad() { # NAME LINE EXPECT
	printf '%s\n' "$2" >"$T/bad.jsonl"
	"$B/dehbq" init "$T/bad" --spec "$T/spec.json" --optimizer cts \
		--transfer-from "$T/bad.jsonl" >"$T/bad.out" 2>&1
	rc=$?
	if [ $rc = 100 ] && [ "$(wc -l <"$T/bad.out")" = 1 ] &&
		grep -q "bad.jsonl: row 1" "$T/bad.out" && grep -q "$3" "$T/bad.out" &&
		[ ! -e "$T/bad/study.json" ] && [ ! -e "$T/bad/state/transfer.jsonl" ]; then
		ok "import refuses $1"
	else
		not_ok "import refuses $1 (rc $rc: $(cat "$T/bad.out"))"
	fi
	rm -rf "$T/bad"
}
bad "a missing loss column" '{"task": "t", "x": 0.5, "layers": 2, "opt": "adam"}' "'loss'"
bad "a non-numeric loss" '{"task": "t", "x": 0.5, "layers": 2, "opt": "adam", "loss": "low"}' "'loss'"
bad "an unknown parameter" '{"task": "t", "x": 0.5, "layers": 2, "opt": "adam", "depth": 3, "loss": 1}' "depth"
bad "a categorical value outside the space" '{"task": "t", "x": 0.5, "layers": 2, "opt": "rmsprop", "loss": 1}' "opt"
bad "an empty task" '{"task": "", "x": 0.5, "layers": 2, "opt": "adam", "loss": 1}' "'task'"

# the same as CSV (a header row; an empty field: no fidelity): the same data
cat >"$T/old.csv" <<'EOF'
task,x,layers,opt,loss,fidelity
old1,0.25,2,adam,0.1,
old1,0.75,6,sgd,0.6,
old2,0.3,1,adam,0.4,3
old2,0.3,1,"adam",0.05,9
old2, 0.9 ,8,sgd,0.7,9
EOF
"$B/dehbq" init "$T/cc" --spec "$T/spec_cts.json" --transfer-from "$T/old.csv" >/dev/null 2>&1
"$B/dehbq" init "$T/cj" --spec "$T/spec_cts.json" --transfer-from "$T/old.jsonl" >/dev/null 2>&1
check "a .csv import freezes what the same .jsonl import does" \
	sh -c "test -s '$T/cc/state/transfer.jsonl' && cmp -s '$T/cc/state/transfer.jsonl' '$T/cj/state/transfer.jsonl'"
badcsv() { # NAME ROW2 EXPECT [HEADER]
	printf '%s\n%s\n' "${4:-task,x,layers,opt,loss}" "$2" >"$T/bad.csv"
	"$B/dehbq" init "$T/bad" --spec "$T/spec.json" --optimizer cts \
		--transfer-from "$T/bad.csv" >"$T/bad.out" 2>&1
	rc=$?
	if [ $rc = 100 ] && [ "$(wc -l <"$T/bad.out")" = 1 ] &&
		grep -q "bad.csv: row 2" "$T/bad.out" && grep -q "$3" "$T/bad.out" &&
		[ ! -e "$T/bad/study.json" ]; then
		ok "CSV import refuses $1"
	else
		not_ok "CSV import refuses $1 (rc $rc: $(cat "$T/bad.out"))"
	fi
	rm -rf "$T/bad"
}
badcsv "a missing loss column" 't,0.5,2,adam' "'loss'" 'task,x,layers,opt'
badcsv "a non-numeric loss" 't,0.5,2,adam,low' "'loss'"
badcsv "an unknown parameter" 't,0.5,2,adam,1,3' "depth" 'task,x,layers,opt,loss,depth'
badcsv "a categorical value outside the space" 't,0.5,2,rmsprop,1' "opt"
badcsv "an empty task" ',0.5,2,adam,1' "'task'"
badcsv "a row longer than the header" 't,0.5,2,adam,1,9' "6 fields, where the header has 5"
badcsv "an unclosed quote" 't,0.5,2,"adam,1' "malformed CSV"

"$B/dehbq" init "$T/d" --spec "$T/spec.json" --optimizer cts >"$T/d.out" 2>&1
check "cts without --transfer-from is refused" \
	sh -c "grep -q 'cts needs earlier results' '$T/d.out' && test ! -e '$T/d/study.json'"
"$B/dehbq" init "$T/e" --spec "$T/spec.json" --transfer-from "$T/a/study.json" >"$T/e.out" 2>&1
check "a source that is neither a study nor .jsonl is refused" \
	sh -c "grep -q 'neither a study directory nor a .jsonl or .csv file' '$T/e.out' && test ! -e '$T/e/study.json'"

"$B/dehbq" init "$T/f" --spec "$T/spec.json" --optimizer hyperband \
	--transfer-from "$T/a" >"$T/f.out" 2>&1
check "an optimiser that ignores earlier tasks is refused with them" \
	sh -c "grep -q 'hyperband does not use earlier results' '$T/f.out' && test ! -e '$T/f/study.json'"
"$B/dehbq" init "$T/g" --spec "$T/spec.json" --optimizer asha --sampler gcp \
	--transfer-from "$T/a" >/dev/null 2>&1
check "asha --sampler gcp (0.3's spelling) is asha with searcher gcp, with the earlier tasks" \
	sh -c "grep -q '\"searcher\":.*\"gcp\"' '$T/g/study.json' &&
		grep -q '\"name\":.*\"asha\"' '$T/g/study.json' && test -s '$T/g/state/transfer.jsonl'"
# the searcher gcp under fifo: earlier tasks taken, and status reports
# them from the searcher's part of status.json (one --once batch writes it)
"$B/dehbq" init "$T/g2" --spec "$T/spec.json" --scheduler fifo --searcher gcp \
	--transfer-from "$T/a" >"$T/g2.out" 2>&1
"$B/dehbq-orchestrator" --once "$T/g2" >/dev/null 2>&1
"$B/dehbq" status "$T/g2" >"$T/g2.status" 2>&1
diag "fifo + gcp: $(grep -E '^transfer|prior RMSE' "$T/g2.status" | tr '\n' ' ')"
check "fifo with searcher gcp takes the earlier tasks, and status shows them" \
	sh -c "test -s '$T/g2/state/transfer.jsonl' && grep -q '^transfer: [0-9]* earlier tasks' '$T/g2.status' && grep -q 'prior RMSE' '$T/g2.status'"

# kill -9 and deterministic resume, one trial in flight.  The gate is a
# lockstep run (lib.sh) crashed by DEHBQ_TEST_CRASH_AFTER at fixed points,
# so the kill count is exact; DEHBQ_CHAOS=long (make chaos) runs the timed
# random kill -9 soak instead, its kill count only reported.
mkspec "$T/spec1.json" 25 '{"lease": 5, "poll": 0.05, "max_inflight": 1, "prefetch": 1}'
sed -i 's/"seed": 7,/"seed": 7, "optimizer": {"name": "cts", "prior_steps": 150},/' \
	"$T/spec1.json"
init() { # DIR [SPEC]
	"$B/dehbq" init "$1" --spec "${2:-$T/spec1.json}" \
		--transfer-from "$T/a" --transfer-from "$T/b" >/dev/null 2>&1
}
traj() {
	python3 - "$1" <<'PY'
import glob, json, sys
for f in sorted(glob.glob(sys.argv[1] + "/archive/*/*.trial.json")):
    t = json.load(open(f))
    print(t["id"], json.dumps(t["vector"]))
PY
}
resume_runs() { # NAME X Y KILLS [SPEC]
	init "$2" "${5:-}" && init "$3" "${5:-}" || diag "$1: init failed"
	if [ "${DEHBQ_CHAOS:-}" = long ]; then
		# trials of 0.15 s, so that the study outlasts its kills
		killed_pair "$1" "$2" "$3" "$4" "sleep 0.15; $TRAINER" 0.3 1.0
	else
		killed_pair "$1" "$2" "$3" "$4" "$TRAINER"
	fi
}
LS_POINTS="1 14 4 9 15 6 12 2 10 7 13 3 11 5 8"
resume_runs cts "$T/x" "$T/y" 6
check "cts: identical proposals after the kills" \
	test -n "$(traj "$T/x")" -a "$(traj "$T/x")" = "$(traj "$T/y")"

# DEHB+prior: the same with brackets (one trial in flight, as t1030: with
# more, what is told before each ask depends on timing)
mkspec "$T/spec2.json" 40 '{"lease": 5, "poll": 0.05, "max_inflight": 1, "prefetch": 1}'
sed -i 's/"seed": 7,/"seed": 7, "optimizer": {"name": "dehb", "prior_steps": 150, "prior_candidates": 300},/' \
	"$T/spec2.json"
LS_POINTS="12 2 10 7 13 3 11 5 8 1 14 4 9 15 6"
resume_runs dehb+prior "$T/dx" "$T/dy" 9 "$T/spec2.json"
check "dehb+prior: identical proposals after the kills" \
	test -n "$(traj "$T/dx")" -a "$(traj "$T/dx")" = "$(traj "$T/dy")"
check "dehb+prior: export marks the prior's trials, status its RMSE" \
	sh -c "'$B/dehbq' export '$T/dx' --csv - | grep -q ',prior,' &&
		'$B/dehbq' status '$T/dx' | grep -q 'prior RMSE'"
