#!/bin/sh
# t0110: dehbq trials, show, export and plot on a finished study whose
# trainer reports info (nested); export loads in pandas; plot is XML.
. "${DEHBQ_SRC:-.}/tests/lib.sh"
plan 30

cat >"$T/trainer.sh" <<'TR'
#!/bin/sh
echo "training at budget $DEHBQ_BUDGET" >&2
awk -v x="$DEHBQ_P_X" -v l="$DEHBQ_P_LAYERS" -v b="$DEHBQ_BUDGET" 'BEGIN{
 loss = (x-0.3)^2 + l/100 + 1/b
 printf "{\"loss\": %.10g, \"cost\": %s, \"info\": {\"acc\": %.4f, \"nested\": {\"a\": 1, \"s\": \"x,\\\"y\\\"\"}}}\n", loss, b, 1-loss }'
TR
chmod +x "$T/trainer.sh"
mkspec "$T/spec.json" 30
"$B/dehbq" init "$T/s" --spec "$T/spec.json" >/dev/null
bg "$B/dehbq-orchestrator" "$T/s" 2>"$T/orch.log"
for i in 1 2; do
	bg "$B/dehbq-worker" --study "$T/s" --idle-exit 20 -- "$T/trainer.sh" 2>>"$T/workers.log"
done
wait_for 60 test -e "$T/s/FINISHED"
check "the study finishes" test -e "$T/s/FINISHED"
n=$(ls "$T/s"/archive/0000/*.result.json | wc -l)

# trials
"$B/dehbq" trials "$T/s" >"$T/out"
check "trials exits 0" test $? = 0
check "... header names the columns" \
	grep -q '^id *state *bracket *rung *fidelity *kind *parent *attempt *loss *status *host *error' "$T/out"
check "... one row per archived trial" test "$(($(wc -l <"$T/out") - 1))" = "$n"
"$B/dehbq" trials "$T/s" --state done --format csv >"$T/out"
check "trials --format csv has a header and done rows" \
	sh -c "head -1 '$T/out' | grep -q '^id,state,bracket,rung,fidelity,kind,parent,attempt,loss,status,host,error\$' &&
	       test \$(grep -c ',done,' '$T/out') = $n"
"$B/dehbq" trials "$T/s" --format jsonl >"$T/out"
check "trials --format jsonl is one JSON object per line" python3 -c "
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) == int(sys.argv[2]) and rows[0]['state'] == 'done', rows[:1]
" "$T/out" "$n"
"$B/dehbq" trials "$T/s" --state failed >"$T/out"
check "trials --state failed: no rows" test "$(wc -l <"$T/out")" = 1
"$B/dehbq" trials "$T/s" --state bogus 2>"$T/err"
check "trials --state bogus exits 100 with usage" \
	sh -c "test $? = 100 && grep -q usage: '$T/err'"
"$B/dehbq" trials 2>/dev/null
check "trials without STUDY exits 100" test $? = 100

# show
"$B/dehbq" show "$T/s" 00000003 >"$T/out"
check "show exits 0" test $? = 0
check "... says where the trial is" grep -q "^state: done (archive/0000/00000003.result.json)" "$T/out"
check "... prints the trial and the result" \
	sh -c "grep -q dehbq-trial/1 '$T/out' && grep -q dehbq-result/1 '$T/out'"
check "... prints the log tails" grep -q "training at budget" "$T/out"
"$B/dehbq" show "$T/s" 3x 2>"$T/err"
check "show with a malformed id exits 100" \
	sh -c "test $? = 100 && grep -q 'not a trial id' '$T/err'"
"$B/dehbq" show "$T/s" 00009999 2>"$T/err"
check "show of an unknown id exits 100" test $? = 100

# export
"$B/dehbq" export "$T/s" --csv "$T/out.csv" 2>"$T/err"
check "export --csv exits 0" test $? = 0
check "... header has parameters in space order and flattened info" \
	sh -c "head -1 '$T/out.csv' | grep -q '^id,bracket,rung,fidelity,kind,parent,x,layers,opt,loss,cost,status,attempt,worker,host,started,finished,wall_time,max_rss_kb,reached,info.acc,info.nested.a,info.nested.s,state.level\$'"
check "... one row per evaluation; a promotion's parent is the trial it continued" python3 -c "
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == int(sys.argv[2]), len(rows)
assert all(r['info.nested.s'] == 'x,\"y\"' for r in rows), rows[0]
# a promotion names the trial it continued: an earlier one, at a lower
# fidelity; every other row none
ids = {r['id']: r for r in rows}
for r in rows:
    if r['kind'] == 'promotion':
        p = ids[r['parent']]
        assert p['id'] < r['id'] and float(p['fidelity']) < float(r['fidelity']), r
    else:
        assert r['parent'] == '', r
assert any(r['kind'] == 'promotion' for r in rows)
" "$T/out.csv" "$n"
if py_with pandas; then
	check "... loads in pandas with info.nested.a" "$PY" -c "
import pandas, sys
d = pandas.read_csv(sys.argv[1])
assert len(d) == int(sys.argv[2]) and (d['info.nested.a'] == 1).all()
assert d['loss'].dtype.kind == 'f' and list(d.columns[6:9]) == ['x', 'layers', 'opt']
" "$T/out.csv" "$n"
else
	skip "no python3 with pandas (tried:$PY_TRIED; apt-get install python3-pandas)"
fi
"$B/dehbq" export "$T/s" --jsonl - >"$T/out.jsonl"
check "export --jsonl - writes one object per evaluation to stdout" python3 -c "
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) == int(sys.argv[2]) and rows[0]['info.nested.a'] == 1, rows[0]
" "$T/out.jsonl" "$n"
"$B/dehbq" export "$T/s" 2>"$T/err"
check "export without --csv/--jsonl exits 100 with usage" \
	sh -c "test $? = 100 && grep -q usage: '$T/err'"
"$B/dehbq" export "$T/s" --csv "$T/nodir/x.csv" 2>"$T/err"
check "export into a missing directory fails cleanly" \
	sh -c "test $? = 100 && grep -q 'unable to write' '$T/err'"

# plot
"$B/dehbq" plot "$T/s" -o "$T/p.svg" >"$T/out"
check "plot exits 0" test $? = 0
check "... writes well-formed XML with an <svg> root" python3 -c "
import sys, xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot()
assert r.tag == '{http://www.w3.org/2000/svg}svg', r.tag
assert len(r.findall('.//{http://www.w3.org/2000/svg}circle')) >= int(sys.argv[2])
" "$T/p.svg" "$n"
sid=$(study_id "$T/s")
check "... titled by the study's directory, not its UUID" \
	sh -c "grep -q '>dehbq study s - ' '$T/p.svg' && ! grep -q '$sid' '$T/p.svg'"
check "... no outage shaded: a worker was always running" \
	sh -c "! grep -q 'class=\"outage\"' '$T/p.svg'"
# a 12-second stretch with no worker: shaded as an outage
mkspec "$T/spec2.json" 6
"$B/dehbq" init "$T/g" --spec "$T/spec2.json" >/dev/null
bg "$B/dehbq-orchestrator" "$T/g" 2>"$T/orch2.log"
"$B/dehbq-worker" --study "$T/g" --max-trials 3 -- "$T/trainer.sh" 2>>"$T/workers.log"
sleep 12
bg "$B/dehbq-worker" --study "$T/g" --idle-exit 20 -- "$T/trainer.sh" 2>>"$T/workers.log"
wait_for 60 test -e "$T/g/FINISHED"
"$B/dehbq" plot "$T/g" -o "$T/g.svg"
check "plot shades a 12 s stretch with no trial running as an outage" \
	sh -c "test \$(grep -c 'class=\"outage\"' '$T/g.svg') = 2 &&
	       grep -q 'no trial running for 1[2-9] s' '$T/g.svg'"
"$B/dehbq" plot "$T/s" 2>"$T/err"
check "plot without -o exits 100" test $? = 100
"$B/dehbq" plot --help >/dev/null
check "plot --help exits 0" test $? = 0
"$B/dehbq" show --help >/dev/null && "$B/dehbq" trials --help >/dev/null &&
	"$B/dehbq" export --help >/dev/null && "$B/dehbq" workers --help >/dev/null &&
	"$B/dehbq" stop --help >/dev/null && "$B/dehbq" requeue --help >/dev/null
check "every subcommand takes --help" test $? = 0
