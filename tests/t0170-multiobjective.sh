#!/bin/sh
# t0170: a multi-objective study end to end: the spec's objectives, the
# trainer's {"objectives": ...} report and $DEHBQ_OBJECTIVES, a result
# missing an objective counted as failed with its name, status's front and
# hypervolume, dehbq pareto in three formats, export's columns and pareto
# flag, and kill -9 with deterministic resume (DEHB with copula
# scalarisation, and ASHA with Pareto selection).
. "${DEHBQ_SRC:-.}/tests/lib.sh"
plan 23

ZDT="sh $DEHBQ_SRC/examples/train_zdt.sh"
cat >"$T/spec.json" <<SP
{"format": "dehbq-study/1", "space": "$DEHBQ_SRC/examples/space_zdt.json",
 "fidelity": {"min": 1, "max": 9, "eta": 3}, "seed": 5,
 "termination": {"fevals": 80},
 "objectives": [{"name": "f1"}, {"name": "f2", "weight": 2}],
 "multiobjective": {"reference": {"f1": 1.5, "f2": 12}},
 "runtime": {"lease": 5, "poll": 0.05}}
SP

"$B/dehbq" init "$T/a" --spec "$T/spec.json" >/dev/null 2>"$T/err"
check "init keeps the objectives, with copula scalarisation by default" \
	python3 -c "
import json, sys
s = json.load(open('$T/a/study.json'))
assert [o['name'] for o in s['objectives']] == ['f1', 'f2']
assert s['objectives'][1]['weight'] == 2
assert s['multiobjective']['scalarise'] == 'copula'
assert s['multiobjective']['reference'] == {'f1': 1.5, 'f2': 12}"

# the trainer sees the names; trial 3 forgets f2
cat >"$T/train.sh" <<EOF
#!/bin/sh
echo "\$DEHBQ_OBJECTIVES" >"\$DEHBQ_WORKDIR/names"
if [ "\$DEHBQ_TRIAL_ID" = 00000003 ]; then
	echo '{"objectives": {"f1": 0.5}}'
	exit 0
fi
exec $ZDT
EOF
bg "$B/dehbq-orchestrator" "$T/a" 2>"$T/a.orch.log"
bg "$B/dehbq-worker" --study "$T/a" --idle-exit 20 -- sh "$T/train.sh" 2>>"$T/a.w.log"
bg "$B/dehbq-worker" --study "$T/a" --idle-exit 20 -- sh "$T/train.sh" 2>>"$T/a.w.log"
wait_for 60 test -e "$T/a/FINISHED"
check "a two-objective DEHB study finishes with 2 workers" test -e "$T/a/FINISHED"
check "... and the independent checker accepts it" \
	python3 "$DEHBQ_SRC/tests/checkstudy.py" "$T/a" --finished
check "the trainer got DEHBQ_OBJECTIVES=f1,f2" \
	sh -c "cat '$T'/a/work/*/00000000*/names 2>/dev/null | grep -qx f1,f2 || grep -rqx f1,f2 '$T/a/work'"
r3=$(ls "$T"/a/archive/*/00000003.result.json)
check "a result without f2 fails, naming it" \
	sh -c "grep -q '\"status\":[[:space:]]*\"failed\"' '$r3' && grep -q \"objective 'f2'\" '$r3'"
"$B/dehbq" status "$T/a" >"$T/status" 2>&1
check "status shows the objectives and the front, with the spec's reference" \
	sh -c "grep -q '^objectives: f1 (min, weight 1), f2 (min, weight 2); copula' '$T/status' && grep -q '^front: .* hypervolume .*from the spec' '$T/status'"
"$B/dehbq" pareto "$T/a" >"$T/front.txt" 2>"$T/front.err"
"$B/dehbq" pareto "$T/a" --format csv >"$T/front.csv" 2>/dev/null
"$B/dehbq" pareto "$T/a" --format jsonl >"$T/front.jsonl" 2>/dev/null
n=$(tail -n +2 "$T/front.csv" | wc -l)
check "pareto prints the same front as a table, CSV and JSON lines ($n)" \
	sh -c "test $n -ge 1 && test \$(tail -n +2 '$T/front.txt' | wc -l) = $n && test \$(wc -l <'$T/front.jsonl') = $n && grep -q hypervolume '$T/front.err'"
check "the front is non-dominated, at fidelity 9, and nothing dominates it" \
	python3 - "$T/front.jsonl" "$T/a" <<'PY'
import glob, json, sys
front = [json.loads(l) for l in open(sys.argv[1])]
pts = []
for f in glob.glob(sys.argv[2] + "/archive/*/*.result.json"):
    r = json.load(open(f))
    t = json.load(open(f.replace(".result.", ".trial.")))
    o = r.get("objectives", {})
    if r["status"] == "ok" and t["fidelity"] == 9 and "f2" in o:
        pts.append((o["f1"], o["f2"]))
dom = lambda a, b: a[0] <= b[0] and a[1] <= b[1] and a != b
fp = [(p["f1"], p["f2"]) for p in front]
assert all(p["fidelity"] == 9 for p in front)
assert all(not dom(q, p) for p in fp for q in pts), "a front point is dominated"
assert sorted(fp) == sorted(p for p in pts if not any(dom(q, p) for q in pts))
PY
"$B/dehbq" export "$T/a" --csv "$T/a.csv" 2>/dev/null
check "export has a column per objective and a pareto flag" \
	sh -c "head -1 '$T/a.csv' | grep -q ',loss,f1,f2,pareto,cost,' && test \$(grep -c ',1,9,ok,' '$T/a.csv') = $n"

"$B/dehbq" plot "$T/a" -o "$T/a.svg" >/dev/null 2>&1
check "plot draws the front, $n points red, the rest grey" \
	sh -c "grep -q 'Pareto front at the maximum fidelity' '$T/a.svg' && test \$(grep -c '<title>trial ' '$T/a.svg') = $n"

# the report's objectives section, in a real browser: the front of each
# fidelity, the hypervolume over the results, each objective against the
# parameters (issue 39)
"$B/dehbq" report "$T/a" -o "$T/a.html" >/dev/null 2>&1
cr --dump-dom "file://$T/a.html" >"$T/a.dom" 2>/dev/null
check "report: an objectives section with the front per fidelity, the hypervolume and the scatter (Chromium's DOM)" \
	python3 - "$T/a.dom" "$T/front.txt" <<'PY'
import re, sys
d = open(sys.argv[1]).read()
sec = d.split('<section id="objectives"')[1].split("</section>")[0]
fronts = re.findall(r"fidelity (\d+): front (\d+) of (\d+)", sec)
assert sorted(f[0] for f in fronts) == ["1", "3", "9"], fronts
top = [f for f in fronts if f[0] == "9"][0]
n = sum(1 for l in open(sys.argv[2]) if re.match(r"\s*0000", l))
assert int(top[1]) == n, (top, n)  # dehbq pareto's front at fidelity 9
assert 'class="hv"' in sec and sec.count('class="obj"') > 20
PY
"$B/dehbq" best "$T/a" >"$T/best.out" 2>&1
rc=$?
check "best refuses a multi-objective study, pointing at pareto" \
	sh -c "test $rc = 100 && grep -q 'no single best: dehbq pareto' '$T/best.out'"

# refusals: one objective, a parameter's name, an optimiser that cannot
"$B/dehbq" init "$T/r1" --spec "$T/spec.json" --objective f1 >"$T/r1.out" 2>&1
rc=$?
check "init refuses a single --objective" \
	sh -c "test $rc = 100 && grep -q 'two or more' '$T/r1.out' && test ! -e '$T/r1/study.json'"
"$B/dehbq" init "$T/r2" --spec "$T/spec.json" --optimizer pbt >"$T/r2.out" 2>&1
check "init refuses pbt for a multi-objective study, naming what can" \
	sh -c "grep -q 'pbt cannot run a multi-objective study' '$T/r2.out' && test ! -e '$T/r2/study.json'"
"$B/dehbq" pareto "$T/r2" >/dev/null 2>&1
check "pareto on a directory without a study fails" test $? != 0
"$B/dehbq" init "$T/r3" --spec "$T/spec.json" --objective a --objective b \
	--objective c --objective d --selection hypervolume >"$T/r3.out" 2>&1
rc=$?
check "init refuses hypervolume selection for four objectives in one line, naming the field" \
	sh -c "test $rc = 100 && test \$(wc -l <'$T/r3.out') = 1 &&
	       grep -q 'multiobjective.selection.*2 or 3 objectives' '$T/r3.out' && test ! -e '$T/r3/study.json'"
"$B/dehbq" init "$T/h" --spec "$T/spec.json" --optimizer tpe --selection hypervolume >/dev/null 2>&1 &&
	"$B/dehbq-orchestrator" --once "$T/h" 2>/dev/null &&
	"$B/dehbq" status "$T/h" >"$T/h.out" 2>&1
check "hypervolume selection (MOTPE's split) is kept in study.json and shown by status" \
	sh -c "grep -q '\"selection\":[[:space:]]*\"hypervolume\"' '$T/h/study.json' && grep -q 'hypervolume selection' '$T/h.out'"

# ---- kill -9 and deterministic resume: one trial in flight.  The gate is
# a lockstep run (lib.sh) crashed by DEHBQ_TEST_CRASH_AFTER at fixed
# points, so the kill count is exact; DEHBQ_CHAOS=long (make chaos) runs
# the timed random kill -9 soak instead, its kill count only reported.
init() { # DIR OPTIONS...
	d=$1
	shift
	"$B/dehbq" init "$d" --spec "$T/spec1.json" "$@" >/dev/null 2>&1
}
traj() {
	python3 - "$1" <<'PY'
import glob, json, sys
for f in sorted(glob.glob(sys.argv[1] + "/archive/*/*.result.json")):
    r = json.load(open(f))
    print(r["id"], r["status"], json.dumps(r.get("objectives"), sort_keys=True))
PY
}
fe=60 n=8
[ "${DEHBQ_CHAOS:-}" = long ] && fe=300 n=15
sed 's/"fevals": 80/"fevals": '$fe'/; s/"poll": 0.05}/"poll": 0.05, "max_inflight": 1, "prefetch": 1}/' \
	"$T/spec.json" >"$T/spec1.json"
LS_POINTS="1 14 4 9 15 6 12 2 10 7 13 3 11 5 8"
for v in dehb:copula asha:pareto; do
	opt=${v%:*} how=${v#*:}
	if [ "$how" = pareto ]; then sel="--selection pareto"; else sel="--scalarise $how"; fi
	init "$T/$opt.x" --optimizer $opt $sel && init "$T/$opt.y" --optimizer $opt $sel ||
		diag "$v: init failed"
	killed_pair "$v" "$T/$opt.x" "$T/$opt.y" $n "$ZDT"
	# the next variant from the next crash point
	LS_POINTS="$(echo $LS_POINTS | cut -d" " -f$((n + 1))-) $(echo $LS_POINTS | cut -d" " -f1-$n)"
	a=$(optim_state "$T/$opt.x") b=$(optim_state "$T/$opt.y")
	check "$v: identical optimiser state (objectives and scores too)" \
		sh -c "test -n '$a' && test '$a' = '$b' && echo '$a' | grep -q '\"objectives\": 2'"
	check "$v: identical trajectory of objective values" \
		test -n "$(traj "$T/$opt.x")" -a "$(traj "$T/$opt.x")" = "$(traj "$T/$opt.y")"
done
